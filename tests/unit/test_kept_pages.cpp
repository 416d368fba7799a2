// Kept index pages (superblock flag 16, docs/format.md "Kept pages"): a
// table that writes some pages and references the others where an earlier
// table wrote them decodes to the same entries; the decoders refuse pages
// in the wrong place; what a generation references includes kept pages.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "format/partitioned.hpp"
#include "format/partitioned_index.hpp"
#include "format/referenced_space.hpp"
#include "util/crc32c.hpp"

namespace {

namespace pf = exa::format::partitioned;

constexpr uint64_t kBlocksAt = uint64_t(1) << 30;  // the blocks, clear of the tables

// 1300 blocks: three pages of the writer's 512 entries.
pf::IndexTable table_of(size_t n) {
  pf::IndexTable t;
  for (size_t i = 0; i < n; ++i) {
    char path[32];
    std::snprintf(path, sizeof path, "/b%04zu", i);
    t.blocks.push_back({i == 0 ? std::string("/") : std::string(path), kBlocksAt + 100 * i, 100, uint32_t(i), 0, 1, 2});
  }
  return t;
}

// A file as bytes from 0, grown as tables are appended.
struct File {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(size_t(pf::kFirstRegion), 0);
  uint64_t append(const std::vector<uint8_t>& b) {
    const uint64_t at = bytes.size();
    bytes.insert(bytes.end(), b.begin(), b.end());
    return at;
  }
  pf::PageFetch fetch() const {
    return [this](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) -> exa::Status {
      if (offset > bytes.size() || size > bytes.size() - offset) return {NC_ETRUNC, "past the end"};
      out->assign(bytes.begin() + int64_t(offset), bytes.begin() + int64_t(offset + size));
      return exa::Status::ok();
    };
  }
  std::span<const uint8_t> at(uint64_t offset, uint64_t size) const {
    return std::span<const uint8_t>(bytes).subspan(size_t(offset), size_t(size));
  }
};

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

struct TwoTables {
  File file;
  pf::IndexTable table = table_of(1300);
  pf::Superblock whole, kept;
  std::vector<pf::PageRef> first, second;
  std::vector<bool> rewrite{false, true, false};
};

// The whole table, then one that rewrites page 1 and keeps pages 0 and 2.
TwoTables two_tables() {
  TwoTables t;
  t.whole = superblock_for(t.table);
  t.whole.index_offset = t.file.bytes.size();
  std::vector<uint8_t> a = pf::encode_index_placed(t.table, t.whole.index_offset, &t.whole.index_head_size, &t.first);
  t.file.append(a);
  t.whole.index_size = a.size();
  t.whole.index_crc = exa::crc32c(a.data(), t.whole.index_head_size);
  t.kept = t.whole;
  t.kept.generation = 3;
  t.kept.kept_pages = true;
  t.kept.index_offset = t.file.bytes.size();
  std::vector<uint8_t> b =
      pf::encode_index_keeping(t.table, t.kept.index_offset, t.first, t.rewrite, &t.kept.index_head_size, &t.second);
  t.file.append(b);
  t.kept.index_size = b.size();
  t.kept.index_crc = exa::crc32c(b.data(), t.kept.index_head_size);
  return t;
}

TEST(KeptPages, EncodesOnlyTheRewrittenPagesAndDecodesTheSameEntries) {
  TwoTables t = two_tables();
  ASSERT_EQ(t.first.size(), 3u);
  EXPECT_EQ(int64_t(t.kept.index_size), pf::encoded_head_size(t.table) + pf::encoded_page_size(t.table, 1));
  EXPECT_EQ(int64_t(t.whole.index_size), pf::encoded_index_size(t.table));
  EXPECT_EQ(t.second[0], t.first[0]);
  EXPECT_EQ(t.second[2], t.first[2]);
  EXPECT_EQ(t.second[1].offset, t.kept.index_offset + t.kept.index_head_size);
  pf::IndexTable got;
  std::vector<pf::PageRef> refs;
  ASSERT_TRUE(pf::decode_index(t.file.at(t.kept.index_offset, t.kept.index_size), t.kept, t.kept.file_end, &got,
                               t.file.fetch(), &refs)
                  .is_ok());
  EXPECT_EQ(got, t.table);
  EXPECT_EQ(refs, t.second);
  // Without a way to read pages outside the table: refused, not guessed.
  EXPECT_EQ(pf::decode_index(t.file.at(t.kept.index_offset, t.kept.index_size), t.kept, t.kept.file_end, &got).code(),
            NC_EFILEMETA);
  // The old layout still decodes (its pages from the table's start).
  ASSERT_TRUE(pf::decode_index(t.file.at(t.whole.index_offset, t.whole.index_size), t.whole, t.whole.file_end, &got)
                  .is_ok());
  EXPECT_EQ(got, t.table);
}

TEST(KeptPages, TheLazyIndexReadsKeptPagesWhereTheyAre) {
  TwoTables t = two_tables();
  pf::IndexHead head;
  ASSERT_TRUE(pf::decode_index_head(t.file.at(t.kept.index_offset, t.kept.index_head_size), t.kept, t.kept.file_end,
                                    &head)
                  .is_ok());
  std::vector<uint64_t> read_at;
  pf::PagedIndex paged(t.kept, head, t.kept.file_end, [&](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
    read_at.push_back(offset);
    return t.file.fetch()(offset, size, out);
  });
  for (size_t b : {size_t(1299), size_t(700), size_t(3)}) {
    int64_t found = -1;
    ASSERT_TRUE(paged.find(t.table.blocks[b].path, &found).is_ok());
    EXPECT_EQ(found, int64_t(b));
  }
  EXPECT_EQ(read_at, (std::vector<uint64_t>{t.first[2].offset, t.second[1].offset, t.first[0].offset}));
  EXPECT_EQ(paged.placement(), t.second);
  // A writer's index made from the table knows no placement until told.
  pf::PagedIndex writer(t.kept, t.table);
  EXPECT_TRUE(writer.placement().empty());
  writer.set_placement(t.second);
  EXPECT_EQ(writer.placement(), t.second);
}

TEST(KeptPages, SuperblockFlagRoundTripsAndBoundsTheBlockCount) {
  TwoTables t = two_tables();
  auto bytes = pf::encode_superblock(t.kept);
  pf::Superblock back;
  ASSERT_TRUE(pf::decode_superblock(bytes, &back).is_ok());
  EXPECT_TRUE(back.kept_pages);
  EXPECT_EQ(back, t.kept);
  EXPECT_EQ(bytes[15] & 16, 16);
  // More blocks than the head's pages can list.
  pf::Superblock many = t.kept;
  many.nblocks = many.index_head_size / pf::kPageRefSize * pf::kMaxPageEntries + 1;
  auto b2 = pf::encode_superblock(many);
  EXPECT_EQ(pf::decode_superblock(b2, &back).code(), NC_EFILEMETA);
}

// The head with page k's reference changed (and its CRC fixed).
exa::Status decode_with_ref(const TwoTables& t, size_t k, uint64_t offset, pf::IndexHead* head,
                            uint64_t file_size = 0) {
  std::vector<uint8_t> h(t.file.bytes.begin() + int64_t(t.kept.index_offset),
                         t.file.bytes.begin() + int64_t(t.kept.index_offset + t.kept.index_head_size));
  uint8_t* ref = h.data() + pf::kIndexHeadFixedSize + pf::kPageRefSize * k;
  for (int i = 0; i < 8; ++i) ref[i] = uint8_t(offset >> (56 - 8 * i));
  pf::Superblock sb = t.kept;
  sb.index_crc = exa::crc32c(h.data(), h.size());
  return pf::decode_index_head(h, sb, file_size ? file_size : sb.file_end, head);
}

TEST(KeptPages, HeadRefusesPagesInTheWrongPlace) {
  TwoTables t = two_tables();
  pf::IndexHead head;
  ASSERT_TRUE(decode_with_ref(t, 0, t.first[0].offset, &head).is_ok());
  // Over the head, over another page, below 4096, past the space in use.
  EXPECT_EQ(decode_with_ref(t, 0, t.kept.index_offset + 8, &head).code(), NC_EFILEMETA);
  EXPECT_EQ(decode_with_ref(t, 0, t.first[2].offset + 16, &head).code(), NC_EFILEMETA);
  EXPECT_EQ(decode_with_ref(t, 0, 100, &head).code(), NC_EFILEMETA);
  EXPECT_EQ(decode_with_ref(t, 0, t.kept.file_end - 10, &head).code(), NC_EFILEMETA);
  // Past the end of the file (inside the space in use): truncated.
  const uint64_t after = t.kept.index_offset + t.kept.index_size + 1000;
  EXPECT_EQ(decode_with_ref(t, 0, after, &head, after + 10).code(), NC_ETRUNC);
}

TEST(KeptPages, ABlockOverAKeptPageIsRefused) {
  TwoTables t = two_tables();
  pf::IndexTable bad = t.table;
  bad.blocks[1200].offset = t.first[0].offset;  // page 2's block over kept page 0
  pf::Superblock sb = t.whole;
  sb.index_offset = t.file.bytes.size();
  std::vector<pf::PageRef> placed;
  // Page 2 rewritten with the bad entry, pages 0 and 1 kept.
  std::vector<uint8_t> b =
      pf::encode_index_keeping(bad, sb.index_offset, t.first, {false, false, true}, &sb.index_head_size, &placed);
  t.file.append(b);
  sb.kept_pages = true;
  sb.index_size = b.size();
  sb.index_crc = exa::crc32c(b.data(), sb.index_head_size);
  pf::IndexTable got;
  EXPECT_EQ(pf::decode_index(t.file.at(sb.index_offset, sb.index_size), sb, sb.file_end, &got, t.file.fetch()).code(),
            NC_EFILEMETA);
}

TEST(KeptPages, ReferencesIncludeKeptPages) {
  TwoTables t = two_tables();
  std::vector<pf::Span> used;
  ASSERT_TRUE(pf::add_references(t.kept, t.table, {}, &used, t.second).is_ok());
  // The first table's head and its page 1 are free; its pages 0 and 2 are not.
  const auto free = pf::unreferenced(int64_t(t.whole.index_offset), int64_t(t.kept.index_offset), used);
  ASSERT_EQ(free.size(), 2u);
  EXPECT_EQ(free[0].offset, int64_t(t.whole.index_offset));
  EXPECT_EQ(free[0].size, int64_t(t.whole.index_head_size));
  EXPECT_EQ(free[1].offset, int64_t(t.first[1].offset));
  EXPECT_EQ(free[1].size, int64_t(t.first[1].size));
}

TEST(KeptPages, APlacementPagedOtherwiseIsNotKept) {
  TwoTables t = two_tables();
  pf::IndexTable more = table_of(1400);  // page 2 holds more entries now
  EXPECT_FALSE(pf::can_keep_pages(more, t.first));
  EXPECT_TRUE(pf::can_keep_pages(t.table, t.first));
  uint64_t head = 0;
  std::vector<pf::PageRef> placed;
  EXPECT_TRUE(pf::encode_index_keeping(more, 1 << 20, t.first, t.rewrite, &head, &placed).empty());
}

}  // namespace
