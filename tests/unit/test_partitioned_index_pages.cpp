// The index table written a page at a time (encode_index_page, then
// encode_index_head from the pages' references), as the private-blocks
// enddef's rank 0 does it without holding every entry: byte for byte the
// table encode_index gives; and format::BlockPlacer's totals (index size,
// head size) agree with it.
#include <gtest/gtest.h>

#include <string>

#include "format/partitioned_assembly.hpp"
#include "util/crc32c.hpp"

namespace {

namespace pf = exa::format::partitioned;

pf::IndexTable table_of(size_t n) {
  pf::IndexTable t;
  uint64_t at = uint64_t(pf::kFirstRegion);
  for (size_t b = 0; b < n; ++b) {
    pf::BlockEntry e;
    e.path = b == 0 ? "/" : "/s" + std::to_string(100000 + b) + (b % 3 ? "/x" : "");
    e.offset = at;
    e.size = 40 + b % 7 * 8;
    e.crc = uint32_t(b * 2654435761u);
    e.natts = uint32_t(b % 4);
    e.ndims = b % 5;
    e.nvars = b % 3 + 1;
    at += e.size;
    t.blocks.push_back(e);
  }
  return t;
}

std::vector<uint8_t> paged(const pf::IndexTable& t) {
  std::vector<pf::PageRef> refs;
  std::vector<uint8_t> pages;
  const size_t npages = (t.blocks.size() + pf::kIndexPageEntries - 1) / pf::kIndexPageEntries;
  int64_t head = pf::kIndexHeadFixedSize + pf::kPageRefSize * int64_t(npages);
  for (size_t k = 0; k < npages; ++k) head += int64_t(t.blocks[k * pf::kIndexPageEntries].path.size());
  uint64_t first_dim = 0, first_var = 0;
  for (size_t b = 0; b < t.blocks.size(); b += pf::kIndexPageEntries) {
    const size_t n = std::min<size_t>(pf::kIndexPageEntries, t.blocks.size() - b);
    const std::span<const pf::BlockEntry> page(t.blocks.data() + b, n);
    const auto bytes = pf::encode_index_page(page);
    pf::PageRef r;
    r.offset = uint64_t(head) + pages.size();
    r.size = bytes.size();
    r.crc = exa::crc32c(bytes.data(), bytes.size());
    r.nentries = uint32_t(n);
    r.first_block = b;
    r.first_dim = first_dim;
    r.first_var = first_var;
    r.first_path = page.front().path;
    for (const pf::BlockEntry& e : page) {
      first_dim += e.ndims;
      first_var += e.nvars;
    }
    refs.push_back(r);
    pages.insert(pages.end(), bytes.begin(), bytes.end());
  }
  auto out = pf::encode_index_head(t.blocks.size(), refs);
  EXPECT_EQ(int64_t(out.size()), head);
  out.insert(out.end(), pages.begin(), pages.end());
  return out;
}

}  // namespace

TEST(PartitionedIndexPages, PageByPageIsTheWholeTable) {
  for (size_t n : {size_t(1), size_t(511), size_t(512), size_t(513), size_t(1300)}) {
    const pf::IndexTable t = table_of(n);
    uint64_t head = 0;
    const auto whole = pf::encode_index(t, pf::kIndexPageEntries, &head);
    EXPECT_EQ(paged(t), whole) << n << " entries";
    EXPECT_EQ(int64_t(whole.size()), pf::encoded_index_size(t));
  }
}

TEST(PartitionedIndexPages, PlacerSizesTheTable) {
  // Blocks placed one at a time (no "/" among them: the placer puts the
  // root first); its index and head sizes are the encoded table's.
  for (size_t n : {size_t(0), size_t(700), size_t(1100)}) {
    const std::vector<exa::format::Attribute> gatts = {{"title", NC_CHAR, 2, {'h', 'i'}}};
    pf::BlockPlacer placer(gatts);
    pf::IndexTable t;
    pf::BlockEntry root;
    root.path = "/";
    root.natts = 1;
    root.offset = uint64_t(pf::kFirstRegion);
    root.size = pf::root_block(gatts).size();
    t.blocks.push_back(root);
    for (size_t b = 0; b < n; ++b) {
      pf::BlockSummary s{"/s" + std::to_string(100000 + b), 1, 2, 0, 96, 16};
      pf::BlockPlacement p;
      ASSERT_TRUE(placer.place(s, &p).is_ok());
      EXPECT_EQ(p.block, b + 1);
      EXPECT_EQ(p.data, 16 * b);  // relative to the data's begin until finish
      pf::BlockEntry e;
      e.path = s.path;
      e.offset = p.offset;
      e.size = s.size;
      e.ndims = 1;
      e.nvars = 2;
      t.blocks.push_back(e);
    }
    ASSERT_TRUE(placer.finish(4096).is_ok());
    EXPECT_TRUE(placer.root_by_rank0());
    EXPECT_EQ(placer.nblocks(), n + 1);
    EXPECT_EQ(placer.index_size(), pf::encoded_index_size(t));
    EXPECT_EQ(placer.index_head_size(), pf::encoded_head_size(t));
    EXPECT_EQ(placer.data_begin() % 4096, 0);
    EXPECT_EQ(placer.data_end(), placer.data_begin() + int64_t(16 * n));
    // A path placed twice in a row voids the plan.
    pf::BlockPlacement p;
    if (n > 0) {
      pf::BlockPlacer again(gatts);
      pf::BlockSummary s{"/a", 0, 1, 0, 8, 0};
      ASSERT_TRUE(again.place(s, &p).is_ok());
      ASSERT_TRUE(again.place(s, &p).is_ok());
      EXPECT_EQ(again.shared_path(), "/a");
    }
  }
}
