// How the partitioned-format fuzz targets read their input, shared with the
// program that writes their seed corpora (make_partitioned_corpus.cpp).
//
//   superblock: slot 0 (first 128 bytes) then slot 1 (the rest)
//   index:      u64 nblocks, u64 ndims, u64 nvars (the superblock's counts),
//               u64 head size (top bit: superblock flag 2, record
//               sections; bit 62: flag 4, index blocks; bit 61: flag 16,
//               kept pages, followed by u64 lead: the bytes before the table,
//               where kept pages may lie), then the file from offset 4096
//               (lead bytes, then the index table); the harness sets the
//               table size and the CRCs of the head and of every page the
//               head's directory points at
//   block:      u64 total_dims, u32 natts, u64 ndims, u64 nvars, u8 fix_crc,
//               u8 path length, path, then the block; with fix_crc the
//               harness rewrites the block's trailing CRC first
// Fixing sizes and checksums lets the fuzzer reach the structure checks.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace exa::fuzz {

inline uint64_t take_u64(std::span<const uint8_t>& in) {
  uint64_t v = 0;
  for (int i = 0; i < 8 && !in.empty(); ++i) {
    v = (v << 8) | in[0];
    in = in.subspan(1);
  }
  return v;
}

inline uint8_t take_u8(std::span<const uint8_t>& in) {
  if (in.empty()) return 0;
  uint8_t v = in[0];
  in = in.subspan(1);
  return v;
}

inline void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(uint8_t(v >> shift));
}

}  // namespace exa::fuzz
