// Index blocks in the partitioned format (docs/format.md "Index blocks"):
// the reserved paths, entry flag 1 and superblock flags 4 and 8 round trip,
// sort after every netCDF path, and what contradicts them is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/partitioned.hpp"
#include "format/partitioned_index.hpp"
#include "util/crc32c.hpp"

namespace {

namespace pf = exa::format::partitioned;

pf::Superblock superblock_for(const std::vector<uint8_t>& table, uint64_t head, const pf::IndexTable& t) {
  pf::Superblock sb;
  sb.generation = 2;
  sb.index_offset = 1 << 16;
  sb.index_size = table.size();
  sb.index_head_size = head;
  sb.index_crc = exa::crc32c(table.data(), head);
  sb.nblocks = t.blocks.size();
  sb.ndims = 1;
  sb.nvars = 2;
  sb.file_end = (1 << 16) + table.size();
  sb.index_blocks = true;
  return sb;
}

pf::IndexTable table_with_index_blocks() {
  pf::IndexTable t;
  t.blocks.push_back({"/", 4096, 200, 0x11u, 0, 1, 2});
  t.blocks.push_back({"/\xc3\xa9t\xc3\xa9", 4296, 200, 0x12u, 0, 0, 0});  // a UTF-8 name sorts before them too
  for (uint64_t v : {0, 1}) {
    pf::BlockEntry e;
    e.path = pf::index_block_path(v);
    e.offset = 8192 + 400 * v;
    e.size = 300;
    e.crc = 0x99u;
    e.flags = pf::kEntryIndexBlock;
    t.blocks.push_back(e);
  }
  return t;
}

TEST(IndexBlocks, ReservedPaths) {
  uint64_t v = 99;
  EXPECT_TRUE(pf::parse_index_block_path(pf::index_block_path(0), &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(pf::parse_index_block_path(pf::index_block_path(2147483647), &v));
  EXPECT_EQ(v, 2147483647u);
  for (const char* bad : {"/exaidx/1", "/\xff" "exaidx/", "/\xff" "exaidx/01", "/\xff" "exaidx/1a",
                          "/\xff" "exaidx/2147483648", "/\xff" "exaidx/1/c2", "/.exaidx/1"})
    EXPECT_FALSE(pf::parse_index_block_path(bad, &v)) << bad;
  // No netCDF path can take one, and they sort after every netCDF path.
  EXPECT_FALSE(pf::is_valid_path(pf::index_block_path(3)));
  EXPECT_LT(std::string("/\xf4\x8f\xbf\xbf"), pf::index_block_path(0));
  EXPECT_LT(std::string("/zzz/\xc3\xa9"), pf::index_block_path(0));
}

TEST(IndexBlocks, SuperblockFlagsRoundTrip) {
  pf::Superblock sb;
  sb.generation = 5;
  sb.index_offset = 8192;
  sb.index_size = 200;
  sb.index_head_size = 100;
  sb.file_end = 9000;
  for (int flags : {0, 4, 12}) {
    sb.index_blocks = flags & 4;
    sb.writer_open = flags & 8;
    auto bytes = pf::encode_superblock(sb);
    pf::Superblock back;
    ASSERT_TRUE(pf::decode_superblock(bytes, &back).is_ok()) << flags;
    EXPECT_EQ(back, sb);
  }
  // Flag 8 without flag 4 is refused.
  sb.index_blocks = true;
  sb.writer_open = true;
  auto bytes = pf::encode_superblock(sb);
  bytes[15] = 8;  // flags word (big-endian, bytes 12-15): 8 alone
  const uint32_t crc = exa::crc32c(bytes.data(), bytes.size() - 4);
  for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + size_t(i)] = uint8_t(crc >> (24 - 8 * i));
  pf::Superblock back;
  EXPECT_EQ(pf::decode_superblock(bytes, &back).code(), NC_EFILEMETA);
}

TEST(IndexBlocks, TableRoundTripAndLookups) {
  for (uint32_t per_page : {1u, 2u, pf::kIndexPageEntries}) {
    const pf::IndexTable t = table_with_index_blocks();
    uint64_t head = 0;
    const std::vector<uint8_t> bytes = pf::encode_index(t, per_page, &head);
    const pf::Superblock sb = superblock_for(bytes, head, t);
    pf::IndexTable back;
    ASSERT_TRUE(pf::decode_index(bytes, sb, sb.file_end, &back).is_ok()) << per_page;
    EXPECT_EQ(back, t);
    EXPECT_EQ(pf::find_block(back, pf::index_block_path(1)), 3);
    // Ids are those of the metadata blocks alone.
    pf::IndexHead h;
    ASSERT_TRUE(pf::decode_index_head(std::span(bytes).first(head), sb, sb.file_end, &h).is_ok());
    pf::PagedIndex paged(sb, h, sb.file_end, [&](uint64_t off, uint64_t size, std::vector<uint8_t>* out) {
      out->assign(bytes.begin() + int64_t(off - sb.index_offset), bytes.begin() + int64_t(off - sb.index_offset + size));
      return exa::Status::ok();
    });
    size_t b = 99;
    ASSERT_TRUE(paged.block_of_var(1, &b).is_ok());
    EXPECT_EQ(b, 0u);
    ASSERT_TRUE(paged.block_of_dim(0, &b).is_ok());
    EXPECT_EQ(b, 0u);
  }
}

TEST(IndexBlocks, ContradictionsAreRefused) {
  struct Case {
    const char* what;
    size_t entry;
    uint32_t flags;
    uint32_t natts;
    bool superblock_flag;
  };
  const Case cases[] = {
      {"index block without the superblock flag", 2, pf::kEntryIndexBlock, 0, false},
      {"flag 1 on a netCDF path", 1, pf::kEntryIndexBlock, 0, true},
      {"reserved path without flag 1", 2, 0, 0, true},
      {"index block with objects", 3, pf::kEntryIndexBlock, 1, true},
      {"unknown entry flag", 3, 3, 0, true},
  };
  for (const Case& c : cases) {
    pf::IndexTable t = table_with_index_blocks();
    t.blocks[c.entry].flags = c.flags;
    t.blocks[c.entry].natts = c.natts;
    uint64_t head = 0;
    const std::vector<uint8_t> bytes = pf::encode_index(t, 2, &head);
    pf::Superblock sb = superblock_for(bytes, head, t);
    sb.index_blocks = c.superblock_flag;
    pf::IndexTable back;
    EXPECT_EQ(pf::decode_index(bytes, sb, sb.file_end, &back).code(), NC_EFILEMETA) << c.what;
  }
}

}  // namespace
