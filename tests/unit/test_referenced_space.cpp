// format::partitioned::add_references / unreferenced: what a reopened SWMR
// writer may reuse (everything between 4096 and the end in use that no
// state it keeps references).
#include <gtest/gtest.h>

#include "format/referenced_space.hpp"

namespace pf = exa::format::partitioned;
using pf::Span;

TEST(Unreferenced, GapsBetweenOverlappingUnsortedExtents) {
  const std::vector<Span> used = {{9000, 100}, {4096, 1000}, {5000, 200}, {9050, 10}};
  const std::vector<Span> want = {{5200, 3800}, {9100, 900}};
  EXPECT_EQ(pf::unreferenced(4096, 10000, used), want);
}

TEST(Unreferenced, NothingUsedAndEverythingUsed) {
  EXPECT_EQ(pf::unreferenced(4096, 8192, {}), (std::vector<Span>{{4096, 4096}}));
  EXPECT_TRUE(pf::unreferenced(4096, 8192, {{0, 10000}}).empty());
  EXPECT_TRUE(pf::unreferenced(4096, 4096, {}).empty());
  // an extent past the end cuts nothing off below it
  EXPECT_EQ(pf::unreferenced(4096, 8192, {{8000, 1000}}), (std::vector<Span>{{4096, 3904}}));
}

// A state: its index table, two blocks (one listed twice in `blocks`), a
// fixed-size variable, a compact one, a record variable, and records in the
// current section and two closed sections.
TEST(AddReferences, EveryPartOfAState) {
  pf::Superblock sb;
  sb.index_offset = 20000;
  sb.index_size = 300;
  sb.record_dim = 1;  // dimension 0
  sb.numrecs = 7;
  sb.record_begin = 40000;
  sb.record_size = 16;
  pf::IndexTable index;
  index.blocks = {{"/", 4096, 200, 0, 0, 1, 2}, {"/g", 5000, 100, 0, 0, 0, 1}};
  index.sections.present = true;
  index.sections.current_first = 5;
  index.sections.closed = {{0, 5, 30000, 0, 12}, {0, 5, 31000, 12, 16}};
  pf::Block root;
  root.path = "/";
  pf::BlockVariable fixed, compact, rec;
  fixed.var.dimids = {1};
  fixed.var.begin = 8192;
  fixed.var.vsize = 400;
  compact.var.dimids = {1};
  compact.flags = pf::kVarCompact;
  compact.var.vsize = 40;
  rec.var.dimids = {0, 1};
  rec.var.begin = 40000;
  rec.var.vsize = 12;
  root.vars = {fixed, compact, rec};
  std::vector<Span> used;
  ASSERT_TRUE(pf::add_references(sb, index, {root, root}, &used).is_ok());
  const std::vector<Span> want = {{20000, 300}, {4096, 200}, {5000, 100}, {8192, 400}, {8192, 400},
                                  {40000, 32},  {30000, 60}, {31000, 20}};
  EXPECT_EQ(used, want);
  const std::vector<Span> free = {{4296, 704}, {5100, 3092}, {8592, 11408}, {20300, 9700}, {30060, 940},
                                  {31020, 8980}};
  EXPECT_EQ(pf::unreferenced(4096, 40032, used), free);
}

TEST(AddReferences, RecordsWithoutSectionsAndOverflow) {
  pf::Superblock sb;
  sb.index_offset = 4096;
  sb.index_size = 64;
  sb.numrecs = 3;
  sb.record_begin = 8192;
  sb.record_size = 100;
  std::vector<Span> used;
  ASSERT_TRUE(pf::add_references(sb, {}, {}, &used).is_ok());
  EXPECT_EQ(used, (std::vector<Span>{{4096, 64}, {8192, 300}}));
  sb.numrecs = uint64_t(1) << 62;
  EXPECT_EQ(pf::add_references(sb, {}, {}, &used).code(), NC_EFILEMETA);
}
