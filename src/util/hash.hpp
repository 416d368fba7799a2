// 64-bit hashing of bytes for name lookup keys and content digests. Not
// cryptographic; two seeds give two independent 64-bit hashes of a name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace exa {

// The splitmix64 finalizer: a bijective avalanche of 64 bits.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Hash of n bytes, chained from `seed` (pass a previous hash to continue).
inline uint64_t hash_bytes(const void* data, size_t n, uint64_t seed = 0) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = mix64(seed ^ (0x9e3779b97f4a7c15ULL * (n + 1)));
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix64(h ^ w) + 0x632be59bd9b4e019ULL;
  }
  uint64_t tail = 0;
  if (n > 0) std::memcpy(&tail, p, n);  // p may be null when n is 0 (an empty string_view)
  return mix64(h ^ tail ^ (uint64_t{n} << 56));
}

inline uint64_t hash_string(std::string_view s, uint64_t seed = 0) {
  return hash_bytes(s.data(), s.size(), seed);
}

template <typename T>
inline uint64_t hash_value(const T& v, uint64_t seed) {
  return hash_bytes(&v, sizeof v, seed);
}

}  // namespace exa
