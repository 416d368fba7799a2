// The partitioned format's codecs (docs/format.md): round trips, and every
// corruption the decoders must refuse with a clean error.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "format/partitioned.hpp"
#include "format/partitioned_image.hpp"
#include "format/partitioned_index.hpp"
#include "model/dataset.hpp"
#include "util/crc32c.hpp"

namespace {

namespace pf = exa::format::partitioned;
using exa::format::Attribute;
using exa::format::Dimension;

void put_be32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

// Rewrites the trailing CRC of a block after a deliberate change.
void fix_block_crc(std::vector<uint8_t>& b) {
  put_be32(b.data() + b.size() - 4, exa::crc32c(b.data(), b.size() - 4));
}

pf::Superblock sample_superblock() {
  pf::Superblock sb;
  sb.generation = 3;
  sb.index_offset = 8192;
  sb.index_size = 32 + 64 + 1 + 24 + 2 * 64 + 10;
  sb.index_head_size = 32 + 64 + 1;
  sb.index_crc = 0x12345678;
  sb.nblocks = 2;
  sb.ndims = 3;
  sb.nvars = 4;
  sb.numrecs = 5;
  sb.record_begin = 9000;
  sb.record_size = 16;
  sb.file_end = 20000;
  return sb;
}

TEST(Crc32c, KnownValue) {
  EXPECT_EQ(exa::crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(exa::crc32c("", 0), 0u);
  // Continuation equals one pass.
  EXPECT_EQ(exa::crc32c("6789", 4, exa::crc32c("12345", 5)), 0xE3069283u);
}

// The instruction (where the CPU has it) and the tables agree, at every
// length and alignment, and with a bit-by-bit reference.
TEST(Crc32c, FastPathsAgree) {
  std::vector<uint8_t> bytes(300);
  uint32_t x = 12345;
  for (auto& b : bytes) b = uint8_t((x = x * 1103515245u + 12345u) >> 16);
  auto reference = [&](size_t at, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = at; i < at + n; ++i) {
      c ^= bytes[i];
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
  };
  for (size_t at = 0; at < 9; ++at)
    for (size_t n = 0; at + n <= bytes.size(); n += 7) {
      const uint32_t want = reference(at, n);
      EXPECT_EQ(exa::crc32c(bytes.data() + at, n), want) << at << " " << n;
      EXPECT_EQ(exa::detail::crc32c_portable(bytes.data() + at, n), want) << at << " " << n;
    }
  EXPECT_EQ(exa::detail::crc32c_portable("6789", 4, exa::crc32c("12345", 5)), 0xE3069283u);
}

TEST(PartitionedSuperblock, RoundTripAndEveryCorruption) {
  const pf::Superblock sb = sample_superblock();
  auto bytes = pf::encode_superblock(sb);
  ASSERT_EQ(bytes.size(), 128u);
  EXPECT_NE(std::memcmp(bytes.data(), "CDF", 3), 0);  // classic readers reject it
  pf::Superblock back;
  ASSERT_TRUE(pf::decode_superblock(bytes, &back).is_ok());
  EXPECT_EQ(back, sb);
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto bad = bytes;
    bad[i] ^= 0x40;
    pf::Superblock out;
    int code = pf::decode_superblock(bad, &out).code();
    EXPECT_TRUE(code == NC_ENOTNC || code == NC_EFILEMETA) << i;
  }
  for (size_t n = 8; n < bytes.size(); ++n)
    EXPECT_EQ(pf::decode_superblock(std::span(bytes).first(n), &back).code(), NC_ETRUNC) << n;
  EXPECT_EQ(pf::decode_superblock(std::span(bytes).first(3), &back).code(), NC_ENOTNC);
}

TEST(PartitionedSuperblock, HeartbeatOfAnSwmrWriter) {
  pf::Superblock sb = sample_superblock();
  sb.heartbeat_us = 0x0001234567890ABCull;  // flag 1: bytes 44-47 high, 120-123 low
  auto bytes = pf::encode_superblock(sb);
  EXPECT_EQ(bytes[15], 1);  // flags
  EXPECT_EQ(bytes[44] << 24 | bytes[45] << 16 | bytes[46] << 8 | bytes[47], 0x00012345);
  EXPECT_EQ(uint32_t(bytes[120]) << 24 | bytes[121] << 16 | bytes[122] << 8 | bytes[123], 0x67890ABCu);
  pf::Superblock back;
  ASSERT_TRUE(pf::decode_superblock(bytes, &back).is_ok());
  EXPECT_EQ(back, sb);
  // Without a heartbeat the bytes are reserved (zero), as in files written before it.
  sb.heartbeat_us = 0;
  bytes = pf::encode_superblock(sb);
  EXPECT_EQ(bytes[15], 0);
  for (int i : {44, 45, 46, 47, 120, 121, 122, 123}) EXPECT_EQ(bytes[size_t(i)], 0) << i;
  ASSERT_TRUE(pf::decode_superblock(bytes, &back).is_ok());
  EXPECT_EQ(back.heartbeat_us, 0u);
}

TEST(PartitionedSuperblock, FieldsThatContradictEachOtherAreRefused) {
  auto check = [](pf::Superblock sb) {
    pf::Superblock out;
    return pf::decode_superblock(pf::encode_superblock(sb), &out).code();
  };
  pf::Superblock sb = sample_superblock();
  sb.generation = 0;
  EXPECT_EQ(check(sb), NC_EFILEMETA);
  sb = sample_superblock();
  sb.index_offset = 100;  // inside the superblock region
  EXPECT_EQ(check(sb), NC_EFILEMETA);
  sb = sample_superblock();
  sb.index_size = sb.file_end;  // past the end
  EXPECT_EQ(check(sb), NC_EFILEMETA);
  sb = sample_superblock();
  sb.nblocks = 1000;  // the table cannot hold them
  EXPECT_EQ(check(sb), NC_EFILEMETA);
  sb = sample_superblock();
  sb.index_head_size = sb.index_size + 1;  // a head larger than its table
  EXPECT_EQ(check(sb), NC_EFILEMETA);
  sb.index_head_size = 8;  // smaller than any head
  EXPECT_EQ(check(sb), NC_EFILEMETA);
  sb = sample_superblock();
  sb.numrecs = uint64_t(1) << 62;
  sb.record_size = 1 << 20;
  EXPECT_EQ(check(sb), NC_EFILEMETA);
}

TEST(PartitionedSuperblock, PickTheNewestValidSlot) {
  pf::Superblock a = sample_superblock(), b = sample_superblock();
  b.generation = 4;
  auto ea = pf::encode_superblock(a), eb = pf::encode_superblock(b);
  pf::Superblock out;
  int slot = -1;
  ASSERT_TRUE(pf::pick_superblock(ea, eb, &out, &slot).is_ok());
  EXPECT_EQ(slot, 1);
  EXPECT_EQ(out.generation, 4u);
  eb[20] ^= 1;  // a torn write of the newer slot: the older one stays current
  ASSERT_TRUE(pf::pick_superblock(ea, eb, &out, &slot).is_ok());
  EXPECT_EQ(slot, 0);
  ea[20] ^= 1;
  EXPECT_EQ(pf::pick_superblock(ea, eb, &out, &slot).code(), NC_EFILEMETA);
  std::vector<uint8_t> zeros(128, 0);
  EXPECT_EQ(pf::pick_superblock(zeros, zeros, &out, &slot).code(), NC_ENOTNC);
}

TEST(PartitionedPath, Rules) {
  EXPECT_TRUE(pf::is_valid_path("/"));
  EXPECT_TRUE(pf::is_valid_path("/event000123"));
  EXPECT_TRUE(pf::is_valid_path("/a/b_c/d"));
  EXPECT_FALSE(pf::is_valid_path(""));
  EXPECT_FALSE(pf::is_valid_path("a"));
  EXPECT_FALSE(pf::is_valid_path("/a/"));
  EXPECT_FALSE(pf::is_valid_path("//a"));
  EXPECT_FALSE(pf::is_valid_path("/a//b"));
  EXPECT_FALSE(pf::is_valid_path("/a b "));
}

// Two blocks and the superblock that lists them, in a file of file_size bytes.
struct SampleIndex {
  pf::IndexTable index;
  pf::Superblock sb;
  std::vector<uint8_t> bytes;
};

// Points sb at an encoded index table (at offset 8192).
void point_at(pf::Superblock* sb, const std::vector<uint8_t>& bytes, uint64_t head_size) {
  sb->generation = 1;
  sb->index_offset = 8192;
  sb->index_size = bytes.size();
  sb->index_head_size = head_size;
  sb->index_crc = exa::crc32c(bytes.data(), size_t(head_size));
  sb->file_end = 8192 + bytes.size();
}

// page_entries 1: one page per block, so a damage can be in the head, a page, or across pages.
SampleIndex sample_index(uint32_t page_entries = 1) {
  SampleIndex s;
  s.index.blocks = {{"/", 4096, 200, 0xAAAA, 2, 1, 1}, {"/event1", 4296, 300, 0xBBBB, 0, 2, 3}};
  uint64_t head = 0;
  s.bytes = pf::encode_index(s.index, page_entries, &head);
  point_at(&s.sb, s.bytes, head);
  s.sb.nblocks = 2;
  s.sb.ndims = 3;
  s.sb.nvars = 4;
  return s;
}

TEST(PartitionedIndex, RoundTripAndLookup) {
  for (uint32_t per_page : {1u, 2u, pf::kIndexPageEntries}) {
    SampleIndex s = sample_index(per_page);
    EXPECT_EQ(int64_t(s.bytes.size()), pf::encoded_index_size(s.index, per_page));
    pf::IndexTable back;
    ASSERT_TRUE(pf::decode_index(s.bytes, s.sb, s.sb.file_end, &back).is_ok()) << per_page;
    EXPECT_EQ(back, s.index);
    pf::IndexHead head;
    ASSERT_TRUE(pf::decode_index_head(std::span(s.bytes).first(s.sb.index_head_size), s.sb, s.sb.file_end, &head)
                    .is_ok());
    ASSERT_EQ(head.pages.size(), per_page == 1 ? 2u : 1u);
    EXPECT_EQ(head.pages.back().first_path, per_page == 1 ? "/event1" : "/");
    EXPECT_EQ(head.pages.back().first_var, per_page == 1 ? 1u : 0u);
    EXPECT_EQ(head.pages.back().first_dim, per_page == 1 ? 1u : 0u);
  }
  SampleIndex s = sample_index();
  pf::IndexTable back;
  ASSERT_TRUE(pf::decode_index(s.bytes, s.sb, s.sb.file_end, &back).is_ok());
  EXPECT_EQ(pf::find_block(back, "/event1"), 1);
  EXPECT_EQ(pf::find_block(back, "/"), 0);
  EXPECT_EQ(pf::find_block(back, "/event2"), -1);
}

TEST(PartitionedIndex, CorruptionsAreRefused) {
  SampleIndex s = sample_index();
  pf::IndexTable out;
  // Re-encoded with checksums that match: the structure checks must catch it.
  auto decode_fixed = [&](pf::IndexTable idx) {
    int code = NC_NOERR;
    for (uint32_t per_page : {1u, 2u}) {
      uint64_t head = 0;
      std::vector<uint8_t> b = pf::encode_index(idx, per_page, &head);
      pf::Superblock sb = s.sb;
      point_at(&sb, b, head);
      sb.nblocks = idx.blocks.size();
      const int c = pf::decode_index(b, sb, 1 << 20, &out).code();
      EXPECT_TRUE(code == NC_NOERR || c == code) << per_page;
      code = c;
    }
    return code;
  };
  // Any flipped bit: a checksum (of the head or of a page).
  for (size_t i = 0; i < s.bytes.size(); ++i) {
    auto bad = s.bytes;
    bad[i] ^= 1;
    EXPECT_EQ(pf::decode_index(bad, s.sb, s.sb.file_end, &out).code(), NC_EFILEMETA) << i;
  }
  for (size_t n = 0; n < s.bytes.size(); ++n)
    EXPECT_NE(pf::decode_index(std::span(s.bytes).first(n), s.sb, s.sb.file_end, &out).code(), NC_NOERR);
  pf::IndexTable idx = s.index;
  std::swap(idx.blocks[0], idx.blocks[1]);  // not sorted
  EXPECT_EQ(decode_fixed(idx), NC_EFILEMETA);
  idx = s.index;
  idx.blocks[1].offset = 4100;  // overlaps the first block
  EXPECT_EQ(decode_fixed(idx), NC_EFILEMETA);
  idx = s.index;
  idx.blocks[1].offset = (1 << 20) - 100;  // beyond the end of the file
  EXPECT_EQ(decode_fixed(idx), NC_ETRUNC);
  idx = s.index;
  idx.blocks[1].nvars = 1000000;  // absurd count
  EXPECT_EQ(decode_fixed(idx), NC_EFILEMETA);
  idx = s.index;
  idx.blocks[1].nvars = 2;  // disagrees with the superblock's total
  EXPECT_EQ(decode_fixed(idx), NC_EFILEMETA);
  idx = s.index;
  idx.blocks[1].path = "/bad name ";
  EXPECT_EQ(decode_fixed(idx), NC_EFILEMETA);
  idx = s.index;
  idx.blocks[1].offset = 8192;  // overlaps the index table itself
  EXPECT_EQ(decode_fixed(idx), NC_EFILEMETA);
}

// 1500 blocks "/b0000" ... in three pages; every third block holds no
// variable, every block one dimension. The table lies at 8192 of `file`.
struct ManyBlocks {
  pf::IndexTable index;
  pf::Superblock sb;
  std::vector<uint8_t> file;
};

ManyBlocks many_blocks() {
  ManyBlocks m;
  uint64_t nvars = 0;
  for (int i = 0; i < 1500; ++i) {
    char path[16];
    std::snprintf(path, sizeof path, "/b%04d", i);
    const uint64_t vars = i % 3 == 0 ? 0 : 2;
    m.index.blocks.push_back({path, (1 << 19) + 100 * uint64_t(i), 100, 0, 0, 1, vars});
    nvars += vars;
  }
  uint64_t head = 0;
  std::vector<uint8_t> bytes = pf::encode_index(m.index, pf::kIndexPageEntries, &head);
  point_at(&m.sb, bytes, head);
  m.sb.nblocks = 1500;
  m.sb.ndims = 1500;
  m.sb.nvars = nvars;
  m.file.assign(8192, 0);
  m.file.insert(m.file.end(), bytes.begin(), bytes.end());
  m.file.resize(1 << 20);  // the blocks' place (not read here)
  return m;
}

// A reader's PagedIndex over m.file; *reads counts page reads.
pf::PagedIndex open_index(const ManyBlocks& m, int* reads) {
  pf::IndexHead head;
  auto bytes = std::span(m.file).subspan(8192, m.sb.index_head_size);
  EXPECT_TRUE(pf::decode_index_head(bytes, m.sb, m.file.size(), &head).is_ok());
  return pf::PagedIndex(m.sb, head, m.file.size(), [&m, reads](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
    ++*reads;
    out->assign(m.file.begin() + int64_t(offset), m.file.begin() + int64_t(offset + size));
    return exa::Status::ok();
  });
}

TEST(PartitionedIndex, PagesLoadOnlyWhenUsed) {
  const ManyBlocks m = many_blocks();
  int reads = 0;
  pf::PagedIndex index = open_index(m, &reads);
  ASSERT_EQ(index.npages(), 3u);  // 512 + 512 + 476
  EXPECT_EQ(reads, 0);
  int64_t b = -1;
  ASSERT_TRUE(index.find("/b1400", &b).is_ok());
  EXPECT_EQ(b, 1400);
  EXPECT_EQ(reads, 1);
  EXPECT_TRUE(index.page_loaded(2));
  EXPECT_FALSE(index.page_loaded(0));
  ASSERT_TRUE(index.find("/b1401x", &b).is_ok());  // between two paths of the same page
  EXPECT_EQ(b, -1);
  ASSERT_TRUE(index.find("/a", &b).is_ok());  // before the first path: no page to read
  EXPECT_EQ(b, -1);
  EXPECT_EQ(reads, 1);
  // Global ids -> blocks, across the page boundary at block 512 (512 = 3 * 170 + 2).
  for (int64_t id = 0; id < int64_t(m.sb.nvars); id += 7) {
    size_t block = 0;
    ASSERT_TRUE(index.block_of_var(id, &block).is_ok());
    int64_t first_dim = 0, first_var = 0;
    ASSERT_TRUE(index.first_ids(block, &first_dim, &first_var).is_ok());
    const pf::BlockEntry* e = nullptr;
    ASSERT_TRUE(index.entry(block, &e).is_ok());
    EXPECT_EQ(first_dim, int64_t(block));
    EXPECT_LE(first_var, id);
    EXPECT_LT(id, first_var + int64_t(e->nvars)) << "a block without variables was picked";
    EXPECT_EQ(first_var, int64_t(block / 3 * 4 + (block % 3 == 2 ? 2 : 0)));
  }
  size_t block = 0;
  ASSERT_TRUE(index.block_of_dim(1499, &block).is_ok());
  EXPECT_EQ(block, 1499u);
  EXPECT_EQ(index.block_of_var(int64_t(m.sb.nvars), &block).code(), NC_ENOTVAR);
  EXPECT_EQ(reads, 3);  // each page once
  pf::IndexTable all;
  ASSERT_TRUE(index.table(&all).is_ok());
  EXPECT_EQ(all, m.index);
  EXPECT_EQ(reads, 3);
}

TEST(PartitionedIndex, ABadPageFailsOnlyItsBlocks) {
  ManyBlocks m = many_blocks();
  int reads = 0;
  pf::PagedIndex probe = open_index(m, &reads);
  uint64_t offset = 0, size = 0;
  probe.page_extent(1, &offset, &size);
  m.file[size_t(offset + size / 2)] ^= 0x40;  // inside page 1
  pf::PagedIndex index = open_index(m, &reads);
  reads = 0;
  const pf::BlockEntry* e = nullptr;
  EXPECT_EQ(index.entry(600, &e).code(), NC_EFILEMETA);
  EXPECT_EQ(index.entry(601, &e).code(), NC_EFILEMETA);
  EXPECT_EQ(reads, 1);  // a failed page fails again without another read
  ASSERT_TRUE(index.entry(1499, &e).is_ok());
  EXPECT_EQ(e->path, "/b1499");
  ASSERT_TRUE(index.entry(0, &e).is_ok());
  pf::IndexTable all;
  EXPECT_EQ(index.table(&all).code(), NC_EFILEMETA);
  // The whole-table decoder says the same.
  EXPECT_EQ(pf::decode_index(std::span(m.file).subspan(8192, m.sb.index_size), m.sb, m.file.size(), &all).code(), NC_EFILEMETA);
}

TEST(PartitionedIndex, PagesMustJoinUp) {
  const ManyBlocks m = many_blocks();
  auto decode_with = [&](pf::IndexTable idx, pf::Superblock sb) {
    uint64_t head = 0;
    std::vector<uint8_t> b = pf::encode_index(idx, pf::kIndexPageEntries, &head);
    point_at(&sb, b, head);
    pf::IndexTable out;
    return pf::decode_index(b, sb, 1 << 20, &out).code();
  };
  EXPECT_EQ(decode_with(m.index, m.sb), NC_NOERR);
  pf::IndexTable idx = m.index;
  std::swap(idx.blocks[511], idx.blocks[512]);  // unsorted across a page boundary
  EXPECT_EQ(decode_with(idx, m.sb), NC_EFILEMETA);
  idx = m.index;
  idx.blocks[100].nvars += 1;  // page 0 holds more than page 1's first id says
  pf::Superblock sb = m.sb;
  sb.nvars += 1;
  EXPECT_EQ(decode_with(idx, sb), NC_NOERR);  // consistent: fine
  sb = m.sb;
  sb.nvars -= 1;  // the last page's count disagrees with the superblock
  EXPECT_EQ(decode_with(m.index, sb), NC_EFILEMETA);
  sb = m.sb;
  sb.nblocks -= 1;
  EXPECT_EQ(decode_with(m.index, sb), NC_EFILEMETA);
}

pf::Block sample_block() {
  pf::Block b;
  b.path = "/event1";
  b.dims = {{"hits", 100}, {"edges", 250}};
  pf::BlockVariable x;
  x.var.name = "x";
  x.var.type = NC_FLOAT;
  x.var.dimids = {0, 1};
  x.var.atts = {Attribute{"units", NC_CHAR, 2, {'c', 'm'}}};
  x.var.vsize = 100000;
  x.var.begin = 1 << 20;
  pf::BlockVariable tiny;
  tiny.var.name = "n_sp";
  tiny.var.type = NC_INT64;
  tiny.var.vsize = 8;
  tiny.flags = pf::kVarCompact;
  tiny.data = {0, 0, 0, 0, 0, 0, 0, 42};
  pf::BlockVariable rec;
  rec.var.name = "rec";
  rec.var.type = NC_UBYTE;
  rec.var.dimids = {2};
  rec.var.vsize = 4;
  rec.var.begin = 1 << 21;
  b.vars = {x, tiny, rec};
  b.atts = {Attribute{"sample", NC_INT, 1, {0, 0, 0, 7}}};
  return b;
}

pf::BlockEntry entry_for(const pf::Block& b, const std::vector<uint8_t>& bytes) {
  return {b.path, 4096, bytes.size(), exa::crc32c(bytes.data(), bytes.size()),
          uint32_t(b.atts.size()), b.dims.size(), b.vars.size()};
}

TEST(PartitionedBlock, RoundTrip) {
  pf::Block b = sample_block();
  std::vector<uint8_t> bytes = pf::encode_block(b);
  pf::Block back;
  ASSERT_TRUE(pf::decode_block(bytes, entry_for(b, bytes), 3, &back).is_ok());
  EXPECT_EQ(back, b);
}

TEST(PartitionedBlock, CorruptionsAreRefused) {
  pf::Block b = sample_block();
  std::vector<uint8_t> bytes = pf::encode_block(b);
  const pf::BlockEntry entry = entry_for(b, bytes);
  pf::Block out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto bad = bytes;
    bad[i] ^= 0x10;
    EXPECT_EQ(pf::decode_block(bad, entry, 3, &out).code(), NC_EFILEMETA) << i;
    // The same damage with valid checksums: structure checks still hold.
    fix_block_crc(bad);
    pf::BlockEntry e = entry_for(b, bad);
    int code = pf::decode_block(bad, e, 3, &out).code();
    EXPECT_TRUE(code == NC_NOERR || code == NC_EFILEMETA) << i;
  }
  EXPECT_EQ(pf::decode_block(std::span(bytes).first(bytes.size() - 1), entry, 3, &out).code(),
            NC_ETRUNC);
  EXPECT_EQ(pf::decode_block(bytes, entry, 2, &out).code(), NC_EFILEMETA);  // dimension id 2 unknown
  pf::BlockEntry wrong = entry;
  wrong.nvars = 2;
  EXPECT_EQ(pf::decode_block(bytes, wrong, 3, &out).code(), NC_EFILEMETA);
  wrong = entry;
  wrong.path = "/event2";
  EXPECT_EQ(pf::decode_block(bytes, wrong, 3, &out).code(), NC_EFILEMETA);
  pf::Block dup = b;
  dup.vars[1].var.name = "x";
  std::vector<uint8_t> d = pf::encode_block(dup);
  EXPECT_EQ(pf::decode_block(d, entry_for(dup, d), 3, &out).code(), NC_EFILEMETA);
}

}  // namespace

namespace {

using exa::Status;
using exa::format::Header;
using exa::format::Layout;
using exa::format::Variable;

// A lazily opened dataset whose blocks come from memory; *reads counts the
// blocks it asked for.
Status open_from_memory(exa::model::Dataset& ds, const pf::Superblock& sb, const pf::IndexTable& index,
                        const std::vector<pf::Block>& blocks, int* reads) {
  auto paged = std::make_shared<pf::PagedIndex>(sb, index);
  return ds.open_lazily(paged, blocks[0], [&blocks, reads](const pf::BlockEntry& e, pf::Block* out) {
    ++*reads;
    for (const pf::Block& b : blocks)
      if (b.path == e.path) *out = b;
    return Status::ok();
  });
}

Header paths_header() {
  Header h;
  h.version = exa::format::Version::kCdf5;
  h.dims = {{"/s1/n", 3}, {"time", 0}, {"/s0/n", 2}};
  h.gatts = {Attribute{"title", NC_CHAR, 1, {'t'}}};
  Variable a;
  a.name = "/s1/x";
  a.type = NC_INT;
  a.dimids = {0};
  Variable t;
  t.name = "t";
  t.type = NC_DOUBLE;
  t.dimids = {1};
  Variable b;
  b.name = "/s0/x";
  b.type = NC_SHORT;
  b.dimids = {1, 2};
  h.vars = {a, t, b};
  return h;
}

TEST(PartitionedImage, NamesSplitIntoPaths) {
  std::string_view path, local;
  pf::split_name("/a/b/x", &path, &local);
  EXPECT_EQ(path, "/a/b");
  EXPECT_EQ(local, "x");
  pf::split_name("x", &path, &local);
  EXPECT_EQ(path, "/");
  EXPECT_EQ(local, "x");
  pf::split_name("/x", &path, &local);
  EXPECT_EQ(path, "/");
  EXPECT_EQ(local, "x");
  EXPECT_TRUE(pf::is_valid_full_name("/event000123/edge_index"));
  EXPECT_FALSE(pf::is_valid_full_name("/a//x"));
  EXPECT_FALSE(pf::is_valid_full_name("/a/"));
  EXPECT_EQ(pf::full_name("/", "x"), "x");
  EXPECT_EQ(pf::full_name("/a", "x"), "/a/x");
}

TEST(PartitionedImage, PlanPlaceAndReadBack) {
  Header h = paths_header();
  pf::Image img;
  ASSERT_TRUE(pf::plan_image(h, &img).is_ok());
  // blocks sorted by path: "/", "/s0", "/s1"; dims and vars in that order
  ASSERT_EQ(img.index.blocks.size(), 3u);
  EXPECT_EQ(img.index.blocks[0].path, "/");
  EXPECT_EQ(img.index.blocks[1].path, "/s0");
  EXPECT_EQ(img.dim_order, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(img.var_order, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(pf::make_block(h, img, 1).vars[0].var.dimids, (std::vector<int>{0, 1}));  // time, /s0/n
  Layout layout;
  ASSERT_TRUE(pf::place_image(h, img, 4096, &layout).is_ok());
  const std::vector<pf::Block> blocks = pf::make_blocks(h, img);
  EXPECT_EQ(img.index.blocks[0].offset, uint64_t(pf::kFirstRegion));
  for (size_t i = 0; i < blocks.size(); ++i)
    EXPECT_EQ(int64_t(pf::encode_block(blocks[i]).size()), int64_t(img.index.blocks[i].size));
  EXPECT_EQ(img.data_begin % 4096, 0);
  EXPECT_EQ(h.vars[0].begin, img.data_begin);                 // the only fixed-size variable
  EXPECT_EQ(layout.begin_rec, img.data_begin + 12);          // after 3 ints
  EXPECT_EQ(layout.recsize, 8 + 4);                          // t, then /s0/x (2 shorts)
  // Read back lazily, as ncmpi_open does: the same objects, in file order.
  pf::Superblock sb;
  sb.generation = 1;
  sb.ndims = 3;
  sb.nvars = 3;
  sb.record_begin = uint64_t(layout.begin_rec);
  sb.record_size = uint64_t(layout.recsize);
  sb.record_dim = 1;  // "time", file position 0
  exa::model::Dataset back;
  int reads = 0;
  ASSERT_TRUE(open_from_memory(back, sb, img.index, blocks, &reads).is_ok());
  EXPECT_EQ(reads, 0);  // the root block comes with the open
  EXPECT_EQ(back.nvars(), 3);
  EXPECT_EQ(back.unlimited_dim(), 0);
  EXPECT_EQ(back.find_var("/s0/x"), 1);
  EXPECT_EQ(reads, 1);
  ASSERT_TRUE(back.valid_var(1));
  EXPECT_EQ(back.var(1).dimids, (std::vector<int>{0, 1}));
  EXPECT_EQ(back.dim(1).name, "/s0/n");
  ASSERT_TRUE(back.valid_var(2));
  EXPECT_EQ(back.var(2).name, "/s1/x");
  EXPECT_EQ(back.var(2).begin, h.vars[0].begin);
  EXPECT_EQ(back.header().gatts, h.gatts);
  EXPECT_EQ(reads, 2);
  // Only the loaded blocks' objects are kept: no placeholder per object.
  EXPECT_TRUE(back.header().vars.empty());
  EXPECT_TRUE(back.header().dims.empty());
  EXPECT_EQ(back.var_bytes(1), 2 * 2);  // one record of /s0/x: 2 shorts
}

TEST(PartitionedImage, LazyReadRefusesWhatBreaksTheModel) {
  Header h = paths_header();
  pf::Image img;
  Layout layout;
  ASSERT_TRUE(pf::plan_image(h, &img).is_ok());
  ASSERT_TRUE(pf::place_image(h, img, 4096, &layout).is_ok());
  pf::Superblock sb;
  sb.ndims = 3;
  sb.nvars = 3;
  sb.record_begin = uint64_t(layout.begin_rec);
  sb.record_size = uint64_t(layout.recsize);
  sb.record_dim = 1;
  // Each damage, made to a copy of the blocks; the access that loads it fails with NC_EFILEMETA.
  auto code_after = [&](auto damage, bool by_dim, int id) {
    std::vector<pf::Block> bad = pf::make_blocks(h, img);
    damage(bad);
    exa::model::Dataset ds;
    int reads = 0;
    EXPECT_TRUE(open_from_memory(ds, sb, img.index, bad, &reads).is_ok());
    bool ok = by_dim ? ds.valid_dim(id) : ds.valid_var(id);
    return ok ? NC_NOERR : ds.lazy_status().code();
  };
  EXPECT_EQ(code_after([](std::vector<pf::Block>&) {}, false, 2), NC_NOERR);
  EXPECT_EQ(code_after([](std::vector<pf::Block>& b) { b[2].dims[0].length = 0; }, true, 2), NC_EFILEMETA);
  EXPECT_EQ(code_after([](std::vector<pf::Block>& b) { b[1].vars[0].var.dimids = {1, 0}; }, false, 1),
            NC_EFILEMETA);  // the unlimited dimension not first
  EXPECT_EQ(code_after([](std::vector<pf::Block>& b) { b[2].vars[0].var.vsize = 4; }, false, 2), NC_EFILEMETA);
  EXPECT_EQ(code_after([](std::vector<pf::Block>& b) { b[2].vars[0].var.begin = 100; }, false, 2),
            NC_EFILEMETA);  // inside the superblock region
  EXPECT_EQ(code_after([](std::vector<pf::Block>& b) { b[1].vars[0].var.begin = 1; }, false, 1),
            NC_EFILEMETA);  // a record variable outside the record section
  Header bad = paths_header();
  bad.vars[0].name = "/s1//x";
  EXPECT_EQ(pf::plan_image(bad, &img).code(), NC_EBADNAME);
}

// The image as written: blocks placed, CRCs filled in as the writer does.
pf::IndexTable written_index(const Header& h, const pf::Image& img) {
  pf::IndexTable index = img.index;
  for (size_t i = 0; i < index.blocks.size(); ++i) {
    auto bytes = pf::encode_block(pf::make_block(h, img, i));
    index.blocks[i].crc = exa::crc32c(bytes.data(), bytes.size());
  }
  return index;
}

TEST(PartitionedImage, RedefPlacesEverythingNewPastTheEnd) {
  Header before = paths_header();
  pf::Image img;
  Layout layout;
  ASSERT_TRUE(pf::plan_image(before, &img).is_ok());
  ASSERT_TRUE(pf::place_image(before, img, 4096, &layout).is_ok());
  const pf::IndexTable on_disk = written_index(before, img);
  const int64_t end = layout.begin_rec + 5 * layout.recsize;  // five records
  pf::OnDisk old{&before, &on_disk, end};

  // Nothing changed: nothing to write.
  Header same = before;
  pf::Image again;
  Layout l2;
  bool unchanged = false;
  ASSERT_TRUE(pf::plan_redef_image(same, old, nullptr, 4096, &again, &l2, &unchanged).is_ok());
  EXPECT_TRUE(unchanged);

  // A new block /z with a fixed-size variable, and a new record variable in "/".
  Header grown = before;
  grown.dims.push_back({"/z/m", 4});
  Variable y;
  y.name = "/z/y";
  y.type = NC_INT;
  y.dimids = {3};
  Variable r;
  r.name = "r";
  r.type = NC_FLOAT;
  r.dimids = {1};
  grown.vars.push_back(y);
  grown.vars.push_back(r);
  pf::Image next;
  Layout l3;
  ASSERT_TRUE(pf::plan_redef_image(grown, old, nullptr, 4096, &next, &l3, &unchanged).is_ok());
  EXPECT_FALSE(unchanged);
  ASSERT_EQ(next.index.blocks.size(), 4u);  // "/", "/s0", "/s1", "/z"
  ASSERT_EQ(next.reused.size(), 4u);
  // "/s1" (fixed-size data only, ids unchanged) stays; "/" and "/s0" hold
  // record variables (the record section moves); "/z" is new.
  EXPECT_EQ(next.reused, (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(next.index.blocks[2], on_disk.blocks[2]);
  for (size_t i = 0; i < next.index.blocks.size(); ++i) {
    if (next.reused[i]) continue;
    EXPECT_GE(int64_t(next.index.blocks[i].offset), end);  // nothing over the current state
    EXPECT_EQ(int64_t(pf::encode_block(pf::make_block(grown, next, i)).size()),
              int64_t(next.index.blocks[i].size));
  }
  EXPECT_GE(next.index_offset, end);
  EXPECT_EQ(grown.vars[0].begin, before.vars[0].begin);  // old fixed-size data stays
  EXPECT_GE(grown.vars[3].begin, next.data_begin);       // new fixed-size data: past the metadata
  EXPECT_GT(l3.begin_rec, grown.vars[3].begin);          // then the record section, last
  EXPECT_EQ(l3.recsize, 8 + 4 + 4);                      // t, /s0/x, r
  EXPECT_GE(grown.vars[1].begin, l3.begin_rec);

  // An earlier failed attempt moved the old variables in memory: the plan
  // starts again from where they are on disk.
  Header retried = grown;
  retried.vars[0].begin = 999999;
  pf::Image third;
  Layout l4;
  ASSERT_TRUE(pf::plan_redef_image(retried, old, nullptr, 4096, &third, &l4, &unchanged).is_ok());
  EXPECT_EQ(retried.vars[0].begin, before.vars[0].begin);
  EXPECT_EQ(third.index_offset, next.index_offset);
}

TEST(PartitionedImage, CompactVariablesHaveNoDataRegion) {
  Header h;
  h.version = exa::format::Version::kCdf5;
  h.dims = {{"/g/n", 3}};
  Variable a;
  a.name = "/g/a";
  a.type = NC_SHORT;
  a.dimids = {0};
  Variable b = a;
  b.name = "/g/b";
  b.type = NC_DOUBLE;
  h.vars = {a, b};
  std::vector<uint8_t> compact = {pf::kCompactFull, pf::kNotCompact};
  pf::Image img;
  Layout layout;
  ASSERT_TRUE(pf::plan_image(h, &img, &compact).is_ok());
  ASSERT_TRUE(pf::place_image(h, img, 4096, &layout).is_ok());
  EXPECT_EQ(h.vars[0].begin, 0);
  EXPECT_EQ(h.vars[0].vsize, 8);  // 3 shorts, rounded up to 4
  EXPECT_EQ(h.vars[1].begin, img.data_begin);
  pf::Block g = pf::make_block(h, img, 1);
  ASSERT_EQ(g.vars[0].flags, pf::kVarCompact);
  // The planned size counts the data the writer fills in.
  g.vars[0].data = {1, 2, 3, 4, 5, 6};
  auto bytes = pf::encode_block(g);
  EXPECT_EQ(int64_t(bytes.size()), int64_t(img.index.blocks[1].size));
  pf::Block back;
  auto decode = [&](const pf::Block& block) {  // as the index table would list it
    auto enc = pf::encode_block(block);
    pf::BlockEntry e = img.index.blocks[1];
    e.size = enc.size();
    e.crc = exa::crc32c(enc.data(), enc.size());
    return pf::decode_block(enc, e, 1, &back).code();
  };
  ASSERT_EQ(decode(g), NC_NOERR);
  EXPECT_EQ(back.vars[0].data, g.vars[0].data);
  // No data yet (a new compact variable nobody wrote): the block is valid.
  g.vars[0].data.clear();
  ASSERT_EQ(decode(g), NC_NOERR);
  EXPECT_TRUE(back.vars[0].data.empty());
  g.vars[0].data = {1, 2, 3, 4, 5, 6};
  // A compact variable whose data size disagrees with its vsize, or with an offset, is refused.
  g.vars[0].var.vsize = 16;
  EXPECT_EQ(decode(g), NC_EFILEMETA);
  g.vars[0].var.vsize = 8;
  g.vars[0].var.begin = 4096;
  EXPECT_EQ(decode(g), NC_EFILEMETA);
}

}  // namespace
