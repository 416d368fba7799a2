// format/partitioned_assembly: every rank plans only its own blocks, rank 0
// places them from summaries; the result must be the file one header with
// every rank's objects gives (plan_image + place_image), byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "format/partitioned_assembly.hpp"

namespace {

namespace pf = exa::format::partitioned;
using exa::format::Dimension;
using exa::format::Header;
using exa::format::Variable;

// Rank r's objects: blocks /s<r>_<k> for the given k, each a dimension n
// (length 3 + k) and variables small (int over n) and big (double over n,
// non-compact under a compact limit of 16 bytes).
// Every rank holds the file's global attributes (merged before planning).
const std::vector<exa::format::Attribute> kGatts = {{"title", NC_CHAR, 2, {'h', 'i'}}};

Header rank_header(const std::vector<int>& samples, bool with_root) {
  Header h;
  h.version = exa::format::Version::kCdf5;
  h.gatts = kGatts;
  if (with_root) h.dims.push_back({"nroot", 2});
  for (int k : samples) {
    const std::string p = "/s" + std::to_string(k);
    h.dims.push_back({p + "/n", 3 + k});
    Variable small;
    small.name = p + "/small";
    small.type = NC_INT;
    small.dimids = {int(h.dims.size() - 1)};
    Variable big = small;
    big.name = p + "/big";
    big.type = NC_DOUBLE;
    h.vars.push_back(big);
    h.vars.push_back(small);
  }
  return h;
}

std::vector<uint8_t> compact_of(const Header& h, int64_t most) {
  std::vector<uint8_t> c(h.vars.size(), pf::kNotCompact);
  for (size_t i = 0; i < h.vars.size(); ++i)
    if (exa::format::var_bytes(h, h.vars[i]) <= most) c[i] = pf::kCompactPending;
  return c;
}

struct Planned {
  Header header;
  pf::Image image;
  std::vector<pf::BlockSummary> summaries;
  std::vector<size_t> blocks;
};

Planned plan_rank(Header h) {
  Planned p;
  p.header = std::move(h);
  const auto compact = compact_of(p.header, 16);
  EXPECT_TRUE(pf::plan_image(p.header, &p.image, &compact).is_ok());
  EXPECT_TRUE(pf::summarize_image(p.header, p.image, &p.summaries, &p.blocks).is_ok());
  // Summaries travel as bytes.
  std::vector<pf::BlockSummary> back;
  EXPECT_TRUE(pf::decode_summaries(pf::encode_summaries(p.summaries), &back).is_ok());
  EXPECT_EQ(back, p.summaries);
  return p;
}

// The same objects in one header, rank 0's first: what the merge gives.
Header union_of(const std::vector<Header>& parts) {
  Header all;
  all.version = exa::format::Version::kCdf5;
  for (const Header& h : parts) {
    const int base = int(all.dims.size());
    all.dims.insert(all.dims.end(), h.dims.begin(), h.dims.end());
    for (Variable v : h.vars) {
      for (int& d : v.dimids) d += base;
      all.vars.push_back(v);
    }
  }
  all.gatts = kGatts;
  return all;
}

void check_against_one_header(const std::vector<std::vector<int>>& samples, int root_rank) {
  std::vector<Planned> ranks;
  std::vector<Header> parts;
  std::vector<std::vector<pf::BlockSummary>> summaries;
  for (size_t r = 0; r < samples.size(); ++r) {
    parts.push_back(rank_header(samples[r], int(r) == root_rank));
    ranks.push_back(plan_rank(parts.back()));
    summaries.push_back(ranks.back().summaries);
  }
  pf::Assembly a;
  ASSERT_TRUE(pf::assemble(summaries, kGatts, 4096, &a).is_ok());
  ASSERT_TRUE(a.shared_path.empty());
  EXPECT_EQ(a.root_by_rank0, root_rank < 0);

  Header whole = union_of(parts);
  const auto compact = compact_of(whole, 16);
  pf::Image img;
  exa::format::Layout layout;
  ASSERT_TRUE(pf::plan_image(whole, &img, &compact).is_ok());
  ASSERT_TRUE(pf::place_image(whole, img, 4096, &layout).is_ok());
  ASSERT_EQ(a.index, img.index);
  EXPECT_EQ(a.index_offset, img.index_offset);
  EXPECT_EQ(a.index_size, img.index_size);
  EXPECT_EQ(a.data_begin, img.data_begin);
  EXPECT_EQ(a.data_end, layout.begin_rec);
  EXPECT_EQ(a.ndims, whole.dims.size());
  EXPECT_EQ(a.nvars, whole.vars.size());
  if (a.root_by_rank0) {
    EXPECT_EQ(pf::root_block(kGatts), pf::encode_block(pf::make_block(whole, img, 0)));
  }

  // Each rank's blocks, placed, encode to the bytes of the whole file's.
  int dim_base = 0, var_base = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    Planned& p = ranks[r];
    std::vector<int64_t> dpos, vpos;
    ASSERT_TRUE(pf::apply_placements(p.header, p.image, p.blocks, a.placements[r], &dpos, &vpos).is_ok());
    for (size_t k = 0; k < p.blocks.size(); ++k) {
      const size_t global = size_t(a.placements[r][k].block);
      EXPECT_EQ(pf::encode_block(pf::make_block(p.header, p.image, p.blocks[k])),
                pf::encode_block(pf::make_block(whole, img, global)));
    }
    for (size_t i = 0; i < p.header.vars.size(); ++i) {
      const Variable& mine = p.header.vars[i];
      const Variable& there = whole.vars[size_t(var_base) + i];
      EXPECT_EQ(mine.begin, there.begin) << mine.name;
      EXPECT_EQ(mine.vsize, there.vsize) << mine.name;
      EXPECT_EQ(img.var_order[size_t(vpos[i])], var_base + int(i)) << mine.name;
    }
    for (size_t i = 0; i < p.header.dims.size(); ++i)
      EXPECT_EQ(img.dim_order[size_t(dpos[i])], dim_base + int(i));
    dim_base += int(p.header.dims.size());
    var_base += int(p.header.vars.size());
  }
}

}  // namespace

TEST(PartitionedAssembly, SameFileAsOneHeader) {
  check_against_one_header({{0, 1, 2}, {3, 4}}, -1);          // no root objects: rank 0 writes the root
  check_against_one_header({{3, 4}, {0, 1, 2}}, 1);           // interleaved paths, rank 1 owns the root
  check_against_one_header({{5}, {}, {1, 9, 10}, {2}}, 0);    // a rank with nothing
  check_against_one_header({{}, {}}, -1);                     // nothing at all
}

TEST(PartitionedAssembly, ABlockOfTwoRanksVoidsThePlan) {
  std::vector<std::vector<pf::BlockSummary>> s = {plan_rank(rank_header({1, 2}, false)).summaries,
                                                  plan_rank(rank_header({2, 3}, false)).summaries};
  pf::Assembly a;
  ASSERT_TRUE(pf::assemble(s, kGatts, 4096, &a).is_ok());
  EXPECT_EQ(a.shared_path, "/s2");
  // Two ranks with root dimensions share "/" (global attributes alone do not).
  s = {plan_rank(rank_header({1}, true)).summaries, plan_rank(rank_header({2}, true)).summaries};
  ASSERT_TRUE(pf::assemble(s, kGatts, 4096, &a).is_ok());
  EXPECT_EQ(a.shared_path, "/");
  // A rank's list must come in path order (summarize_image's).
  s = {plan_rank(rank_header({1, 2}, false)).summaries};
  std::swap(s[0][0], s[0][1]);
  EXPECT_EQ(pf::assemble(s, kGatts, 4096, &a).code(), NC_EINTERNAL);
}

TEST(PartitionedAssembly, BadSummaryBytesAreRefused) {
  auto bytes = pf::encode_summaries(plan_rank(rank_header({1, 2}, false)).summaries);
  std::vector<pf::BlockSummary> out;
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    const bool whole_records = pf::decode_summaries({bytes.data(), cut}, &out).is_ok();
    if (whole_records) {
      EXPECT_LT(out.size(), 2u);
    }
  }
  bytes[0] = 0xff;  // a path longer than the bytes
  EXPECT_EQ(pf::decode_summaries(bytes, &out).code(), NC_EINTERNAL);
}
