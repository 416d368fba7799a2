// format::map_record_runs: byte runs of the unsplit record layout (how
// PnetCDF defines a put_vard/get_vard file type) placed where record
// sections keep each record's bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "format/record_sections.hpp"

namespace {

using exa::format::ByteRun;
using exa::format::RecordSections;

// As test_record_sections.cpp: 8-byte records 0-2 at 8192 (a: bytes 0-4,
// b: 4-8); a redef added c (bytes 8-12) after 3 records: c's 3 old records
// at 8216, the current section from record 3 at 9000 with 12-byte records.
RecordSections one_split() {
  RecordSections rs;
  rs.present = true;
  rs.current_first = 3;
  rs.closed = {{0, 3, 8192, 0, 8}, {0, 3, 8216, 8, 12}};
  return rs;
}

std::vector<ByteRun> mapped(const RecordSections& rs, int64_t begin, int64_t size, std::vector<ByteRun> in) {
  std::vector<ByteRun> out;
  EXPECT_TRUE(exa::format::map_record_runs(rs, begin, size, in, &out).is_ok());
  return out;
}

TEST(RecordRuns, OneVariablesRecordsInOldAndCurrentSections) {
  // b's records 1 and 3 (bytes 4-8 of each record)
  EXPECT_EQ(mapped(one_split(), 9000, 12, {{16, 4}, {40, 4}}), (std::vector<ByteRun>{{8204, 4}, {9004, 4}}));
  // c's records 0-4: its own old section, then the current one
  EXPECT_EQ(mapped(one_split(), 9000, 12, {{8, 4}, {20, 4}, {32, 4}, {44, 4}, {56, 4}}),
            (std::vector<ByteRun>{{8216, 12}, {9008, 4}, {9020, 4}}));
}

TEST(RecordRuns, ARunAcrossRecordsAndSectionsIsSplitInOrder) {
  EXPECT_EQ(mapped(one_split(), 9000, 12, {{0, 60}}),
            (std::vector<ByteRun>{{8192, 8}, {8216, 4}, {8200, 8}, {8220, 4}, {8208, 8}, {8224, 4}, {9000, 24}}));
}

TEST(RecordRuns, WholeRecordSectionsStayOneRun) {
  RecordSections rs;
  rs.present = true;
  rs.current_first = 3;
  rs.closed = {{0, 3, 4096, 0, 8}};
  EXPECT_EQ(mapped(rs, 9000, 8, {{0, 40}}), (std::vector<ByteRun>{{4096, 24}, {9000, 16}}));
  // No sections: the unsplit layout itself.
  EXPECT_EQ(mapped(RecordSections{}, 9000, 8, {{4, 4}, {20, 8}}), (std::vector<ByteRun>{{9004, 4}, {9020, 8}}));
}

TEST(RecordRuns, BytesNoSectionHoldsAreRefused) {
  std::vector<ByteRun> out;
  // before record 0
  EXPECT_EQ(exa::format::map_record_runs(one_split(), 9000, 12, {{-4, 8}}, &out).code(), NC_EINVALCOORDS);
  // bytes 8-12 of the old records without the new variable's section
  RecordSections gap = one_split();
  gap.closed.pop_back();
  EXPECT_EQ(exa::format::map_record_runs(gap, 9000, 12, {{0, 4}, {8, 4}}, &out).code(), NC_EINVALCOORDS);
  // past the largest offset
  EXPECT_EQ(exa::format::map_record_runs(one_split(), INT64_MAX - 8, 12, {{36, 16}}, &out).code(), NC_EINVALCOORDS);
  EXPECT_EQ(exa::format::map_record_runs(one_split(), 9000, 0, {{0, 4}}, &out).code(), NC_EINVALCOORDS);
}

// map_record_run, one run at a time (how io::RecordView streams a file type
// of any number of pieces), gives what map_record_runs gives for the list,
// however the runs are cut: here each byte alone and runs cut at 5 bytes.
TEST(RecordRuns, OneRunAtATimeGivesTheSameRuns) {
  const std::vector<ByteRun> in = {{0, 60}, {62, 3}, {70, 1}};
  const std::vector<ByteRun> whole = mapped(one_split(), 9000, 12, in);
  for (int64_t cut : {int64_t{1}, int64_t{5}}) {
    std::vector<ByteRun> streamed;
    for (const ByteRun& r : in)
      for (int64_t at = 0; at < r.length; at += cut) {
        const ByteRun part{r.offset + at, std::min(cut, r.length - at)};
        ASSERT_TRUE(exa::format::map_record_run(one_split(), 9000, 12, part, &streamed).is_ok());
      }
    EXPECT_EQ(streamed, whole) << "cut " << cut;
  }
  std::vector<ByteRun> out;
  EXPECT_EQ(exa::format::map_record_run(one_split(), 9000, 12, {-1, 2}, &out).code(), NC_EINVALCOORDS);
}

}  // namespace
