// A compact commit that knows only the pages it changes (issue 16 item 5):
// encode_index_rewriting, from the head's page references and the changed
// pages alone, writes the same bytes as encode_index_keeping of the whole
// table; PagedIndex::apply_compact_commit updates an index in place.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "format/partitioned.hpp"
#include "format/partitioned_index.hpp"

namespace {

namespace pf = exa::format::partitioned;

constexpr uint64_t kBlocksAt = uint64_t(1) << 30;

// n blocks of 1 dimension and 2 variables (three pages for 1300).
pf::IndexTable table_of(size_t n) {
  pf::IndexTable t;
  for (size_t i = 0; i < n; ++i) {
    char path[32];
    std::snprintf(path, sizeof path, "/b%04zu", i);
    t.blocks.push_back({i == 0 ? std::string("/") : std::string(path), kBlocksAt + 100 * i, 100, uint32_t(i), 0, 1, 2});
  }
  return t;
}

pf::Superblock superblock_for(const pf::IndexTable& t) {
  pf::Superblock sb;
  sb.generation = 2;
  sb.nblocks = t.blocks.size();
  for (const auto& e : t.blocks) {
    sb.ndims += e.ndims;
    sb.nvars += e.nvars;
  }
  sb.file_end = kBlocksAt + 100 * t.blocks.size();
  return sb;
}

// The table with every block of the marked pages moved (as a commit does).
pf::IndexTable moved(pf::IndexTable t, const std::vector<bool>& rewrite) {
  for (size_t b = 0; b < t.blocks.size(); ++b)
    if (rewrite[b / pf::kIndexPageEntries] && b % 7 == 3) {
      t.blocks[b].offset += uint64_t(1) << 20;
      t.blocks[b].size += 8;
      t.blocks[b].crc ^= 0x5a5a5a5au;
    }
  return t;
}

void expect_same_as_keeping(const pf::IndexTable& table, const std::vector<bool>& rewrite) {
  std::vector<pf::PageRef> first;
  uint64_t head = 0;
  (void)pf::encode_index_placed(table, 8192, &head, &first);
  const pf::IndexTable next = moved(table, rewrite);
  const uint64_t at = uint64_t(1) << 31;
  uint64_t head_a = 0, head_b = 0;
  std::vector<pf::PageRef> placed_a, placed_b;
  const std::vector<uint8_t> a = pf::encode_index_keeping(next, at, first, rewrite, &head_a, &placed_a);
  std::vector<std::span<const pf::BlockEntry>> pages(first.size());
  for (size_t k = 0; k < pages.size(); ++k)
    if (rewrite[k])
      pages[k] = std::span<const pf::BlockEntry>(next.blocks)
                     .subspan(k * pf::kIndexPageEntries, first[k].nentries);
  const std::vector<uint8_t> b =
      pf::encode_index_rewriting(next.blocks.size(), next.sections, first, pages, at, &head_b, &placed_b);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(head_a, head_b);
  EXPECT_EQ(placed_a, placed_b);
  EXPECT_EQ(int64_t(b.size()), pf::encoded_index_rewriting_size(first, next.sections, pages));
}

TEST(IndexRewriting, SameBytesAsKeepingTheWholeTable) {
  const pf::IndexTable t = table_of(1300);
  for (const std::vector<bool>& rewrite : {std::vector<bool>{false, true, false}, std::vector<bool>{true, false, false},
                                           std::vector<bool>{false, false, true}, std::vector<bool>{true, false, true}})
    expect_same_as_keeping(t, rewrite);
}

TEST(IndexRewriting, SameBytesWithRecordSections) {
  pf::IndexTable t = table_of(1100);
  t.sections.present = true;
  t.sections.current_first = 3;
  t.sections.closed.push_back({0, 3, 8192, 0, 16});
  expect_same_as_keeping(t, {false, true, false});
}

TEST(IndexRewriting, RefusesAPageThatIsNotItsReference) {
  const pf::IndexTable t = table_of(1300);
  std::vector<pf::PageRef> first;
  uint64_t head = 0;
  (void)pf::encode_index_placed(t, 8192, &head, &first);
  std::vector<std::span<const pf::BlockEntry>> pages(first.size());
  pages[1] = std::span<const pf::BlockEntry>(t.blocks).subspan(1, 512);  // off by one block
  EXPECT_TRUE(pf::encode_index_rewriting(t.blocks.size(), t.sections, first, pages, 1 << 20, &head, nullptr).empty());
  pages[1] = std::span<const pf::BlockEntry>(t.blocks).subspan(512, 100);  // too few entries
  EXPECT_TRUE(pf::encode_index_rewriting(t.blocks.size(), t.sections, first, pages, 1 << 20, &head, nullptr).empty());
}

TEST(IndexRewriting, ApplyCompactCommitUpdatesInPlace) {
  const pf::IndexTable t = table_of(1300);
  pf::Superblock sb = superblock_for(t);
  sb.index_offset = 8192;
  std::vector<pf::PageRef> first;
  (void)pf::encode_index_placed(t, sb.index_offset, &sb.index_head_size, &first);
  pf::PagedIndex index(sb, t);
  index.set_placement(first);
  ASSERT_TRUE(index.pages_keepable());
  const std::vector<bool> rewrite{false, true, false};
  const pf::IndexTable next = moved(t, rewrite);
  std::vector<std::span<const pf::BlockEntry>> pages(first.size());
  pages[1] = std::span<const pf::BlockEntry>(next.blocks).subspan(512, 512);
  pf::Superblock nsb = sb;
  nsb.generation += 1;
  nsb.index_offset = uint64_t(1) << 31;
  nsb.kept_pages = true;
  std::vector<pf::PageRef> placed;
  (void)pf::encode_index_rewriting(next.blocks.size(), next.sections, first, pages, nsb.index_offset,
                                   &nsb.index_head_size, &placed);
  std::vector<uint64_t> rewritten;
  for (size_t b = 512; b < 1024; ++b)
    if (b % 7 == 3) rewritten.insert(rewritten.end(), {b, next.blocks[b].offset, next.blocks[b].size, next.blocks[b].crc});
  ASSERT_TRUE(index.apply_compact_commit(nsb, rewritten, placed).is_ok());
  pf::IndexTable now;
  ASSERT_TRUE(index.table(&now).is_ok());
  EXPECT_EQ(now, next);
  EXPECT_EQ(index.placement(), placed);
  EXPECT_EQ(index.superblock().generation, nsb.generation);
  // A block whose page is not loaded (a lazily read index) is refused.
  pf::IndexHead head;
  head.nblocks = t.blocks.size();
  head.pages = placed;
  pf::PagedIndex lazy(nsb, head, nsb.file_end, {});
  EXPECT_EQ(lazy.apply_compact_commit(nsb, rewritten, placed).code(), NC_EINTERNAL);
}

}  // namespace
