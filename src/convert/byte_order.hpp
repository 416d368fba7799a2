// Loads and stores of native values at unaligned addresses, in native or
// big-endian (external) byte order. memcpy of a fixed size plus
// __builtin_bswap compiles to plain (vectorizable) moves and byte shuffles.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace exa::convert {

// The unsigned integer with the same size as T: the carrier for byte swaps.
template <class T>
using Bits = std::conditional_t<sizeof(T) == 1, uint8_t,
             std::conditional_t<sizeof(T) == 2, uint16_t,
             std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

// Written with shifts and masks rather than __builtin_bswap*: the x86-64
// baseline (SSE2) has no vector byte shuffle, so the vectorizer cannot use
// the builtin in a loop, while shifts and masks vectorize on any target (and
// a scalar use still compiles to one bswap instruction).
template <class U>
inline U bswap(U v) {
  if constexpr (sizeof(U) == 1) {
    return v;
  } else if constexpr (sizeof(U) == 2) {
    return static_cast<U>((v << 8) | (v >> 8));
  } else if constexpr (sizeof(U) == 4) {
    v = ((v << 8) & 0xFF00FF00u) | ((v >> 8) & 0x00FF00FFu);
    return (v << 16) | (v >> 16);
  } else {
    v = ((v << 8) & 0xFF00FF00FF00FF00ull) | ((v >> 8) & 0x00FF00FF00FF00FFull);
    v = ((v << 16) & 0xFFFF0000FFFF0000ull) | ((v >> 16) & 0x0000FFFF0000FFFFull);
    return (v << 32) | (v >> 32);
  }
}

// Reverses the bytes of U when the host is little-endian (the external form
// of the classic formats is big-endian).
template <class U>
inline U to_from_big_endian(U v) {
  if constexpr (std::endian::native == std::endian::big) return v;
  else return bswap(v);
}

// Reads one T at p; big-endian when BigEndian, else native order.
template <class T, bool BigEndian>
inline T load(const unsigned char* p) {
  Bits<T> b;
  std::memcpy(&b, p, sizeof b);
  if constexpr (BigEndian) b = to_from_big_endian(b);
  return std::bit_cast<T>(b);
}

// Writes one T at p; big-endian when BigEndian, else native order.
template <class T, bool BigEndian>
inline void store(unsigned char* p, T v) {
  Bits<T> b = std::bit_cast<Bits<T>>(v);
  if constexpr (BigEndian) b = to_from_big_endian(b);
  std::memcpy(p, &b, sizeof b);
}

}  // namespace exa::convert
