// format/compact_patch: compact data written into an encoded block gives
// the bytes that decoding, applying the pieces to the decoded data and
// encoding again give (the compact commit's former path), byte for byte.
#include <gtest/gtest.h>

#include <cstring>

#include "format/compact_patch.hpp"
#include "format/partitioned.hpp"
#include "util/crc32c.hpp"

namespace pf = exa::format::partitioned;
using exa::format::Attribute;

namespace {

// A block of `n` variables: every third not compact, the others compact
// with `size` bytes, written (data present) when `written`, else not yet.
pf::Block block_of(int n, size_t size, bool written) {
  pf::Block b;
  b.path = "/grp/s\xc3\xa9\xe2\x82\xac";  // bytes above 127 ("/grp/sé€")
  b.dims = {{"n", int64_t(size / 4)}};
  b.atts = {Attribute{"title", NC_CHAR, 3, {'a', 'b', 'c'}}};
  for (int k = 0; k < n; ++k) {
    pf::BlockVariable v;
    v.var.name = "v" + std::to_string(k);
    v.var.type = NC_INT;
    v.var.dimids = {0};
    v.var.atts = {Attribute{"odd", NC_BYTE, 1, {uint8_t(k)}}};
    v.var.vsize = int64_t((size + 3) / 4 * 4);
    if (k % 3 == 2) {
      v.var.begin = 1 << 20;
    } else {
      v.flags = pf::kVarCompact;
      if (written)
        for (size_t i = 0; i < size; ++i) v.data.push_back(uint8_t(k + i));
    }
    b.vars.push_back(v);
  }
  return b;
}

pf::BlockEntry entry_of(const pf::Block& b, const std::vector<uint8_t>& bytes) {
  return {b.path, 4096, bytes.size(), exa::crc32c(bytes.data(), bytes.size()),
          uint32_t(b.atts.size()), b.dims.size(), b.vars.size()};
}

// The former path: decode, apply each piece to the data, encode.
std::vector<uint8_t> decoded_way(const std::vector<uint8_t>& bytes, const pf::BlockEntry& e,
                                 const std::vector<pf::CompactPatch>& patches) {
  pf::Block b;
  EXPECT_TRUE(pf::decode_block(bytes, e, 1, &b).is_ok());
  for (const auto& p : patches) {
    auto& data = b.vars[p.var].data;
    if (data.empty() && p.total > 0) {
      data.assign(p.total, 0);
      for (size_t at = 0; !p.fill.empty() && at + p.fill.size() <= data.size(); at += p.fill.size())
        std::memcpy(data.data() + at, p.fill.data(), p.fill.size());
    }
    std::memcpy(data.data() + p.offset, p.bytes.data(), p.bytes.size());
  }
  return pf::encode_block(b);
}

std::vector<uint8_t> patched_way(const std::vector<uint8_t>& bytes, const pf::BlockEntry& e,
                                 const std::vector<pf::CompactPatch>& patches, int* code) {
  std::vector<uint8_t> out = {9, 9};  // appended after what is there
  *code = pf::append_patched_block(bytes, e, patches, &out).code();
  return std::vector<uint8_t>(out.begin() + 2, out.end());
}

}  // namespace

TEST(CompactPatch, NewBlockFirstWritesFromFill) {
  const pf::Block b = block_of(7, 10, false);
  const auto bytes = pf::encode_block(b);
  const auto e = entry_of(b, bytes);
  const std::vector<uint8_t> fill = {0x80, 0, 0, 1}, whole(10, 7), part = {1, 2, 3};
  // Variable 0 whole, 1 in part (the rest its fill), 3 twice (the later wins), 6 untouched.
  std::vector<pf::CompactPatch> patches = {{0, 0, 10, {}, whole},
                                           {1, 5, 10, fill, part},
                                           {3, 2, 10, fill, part},
                                           {3, 3, 10, fill, {}}};
  patches[3].bytes = std::span<const uint8_t>(whole).first(3);
  int code = -1;
  const auto got = patched_way(bytes, e, patches, &code);
  ASSERT_EQ(code, NC_NOERR);
  EXPECT_EQ(got, decoded_way(bytes, e, patches));
  pf::Block back;
  ASSERT_TRUE(pf::decode_block(got, entry_of(b, got), 1, &back).is_ok());
  EXPECT_EQ(back.vars[0].data, whole);
  EXPECT_EQ(back.vars[1].data, (std::vector<uint8_t>{0x80, 0, 0, 1, 0x80, 1, 2, 3, 0, 0}));
  EXPECT_EQ(back.vars[3].data, (std::vector<uint8_t>{0x80, 0, 1, 7, 7, 7, 0, 1, 0, 0}));
  EXPECT_TRUE(back.vars[6].data.empty());  // still never written
}

TEST(CompactPatch, WrittenBlockAndNoPatchIsTheSame) {
  const pf::Block b = block_of(5, 6, true);
  const auto bytes = pf::encode_block(b);
  const auto e = entry_of(b, bytes);
  int code = -1;
  EXPECT_EQ(patched_way(bytes, e, {}, &code), bytes);
  EXPECT_EQ(code, NC_NOERR);
  const std::vector<uint8_t> two = {0xAA, 0xBB};
  const std::vector<pf::CompactPatch> patches = {{1, 4, 6, {}, two}, {4, 0, 6, {}, two}};
  const auto got = patched_way(bytes, e, patches, &code);
  ASSERT_EQ(code, NC_NOERR);
  EXPECT_EQ(got, decoded_way(bytes, e, patches));
}

TEST(CompactPatch, RefusesWhatDecodeRefusesAndBadPieces) {
  const pf::Block b = block_of(4, 8, false);
  auto bytes = pf::encode_block(b);
  auto e = entry_of(b, bytes);
  const std::vector<uint8_t> four = {1, 2, 3, 4};
  int code = -1;
  // A piece for a variable that is not compact (2), beyond its data, out of order, for no variable.
  patched_way(bytes, e, {{2, 0, 8, {}, four}}, &code);
  EXPECT_EQ(code, NC_EINTERNAL);
  patched_way(bytes, e, {{0, 6, 8, {}, four}}, &code);
  EXPECT_EQ(code, NC_EINTERNAL);
  patched_way(bytes, e, {{1, 0, 8, {}, four}, {0, 0, 8, {}, four}}, &code);
  EXPECT_EQ(code, NC_EINTERNAL);
  patched_way(bytes, e, {{9, 0, 8, {}, four}}, &code);
  EXPECT_EQ(code, NC_EINTERNAL);
  // The entry disagrees: CRC, size, path, counts.
  auto bad = e;
  bad.crc ^= 1;
  patched_way(bytes, bad, {}, &code);
  EXPECT_EQ(code, NC_EFILEMETA);
  bad = e;
  bad.size += 1;
  patched_way(bytes, bad, {}, &code);
  EXPECT_EQ(code, NC_ETRUNC);
  bad = e;
  bad.path = "/grp/s\xc3\xa9\xe2\x82\xad";
  patched_way(bytes, bad, {}, &code);
  EXPECT_EQ(code, NC_EFILEMETA);
  bad = e;
  bad.nvars = 3;
  patched_way(bytes, bad, {}, &code);
  EXPECT_EQ(code, NC_EFILEMETA);
  // Every truncation, with the CRCs made right: refused, never read past the end.
  for (size_t n = 0; n + 4 < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + ptrdiff_t(n));
    const uint32_t crc = exa::crc32c(cut.data(), cut.size());
    for (int i = 0; i < 4; ++i) cut.push_back(uint8_t(crc >> (24 - 8 * i)));
    auto ce = entry_of(b, cut);
    patched_way(cut, ce, {}, &code);
    EXPECT_NE(code, NC_NOERR) << n;
  }
}
