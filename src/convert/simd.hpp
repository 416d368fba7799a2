// Which vector instructions the conversion passes use (swap.cpp,
// value_range.cpp), chosen once at run time: the best the CPU has of AVX2
// (a byte shuffle and min/max of every width on 32 bytes), SSE4.2 (the same
// on 16 bytes: SSSE3's shuffle, SSE4.1's min/max, SSE4.2's 64-bit compare)
// and SSE2 (the x86-64 baseline the library is compiled for).
// EXACDF_SIMD=sse2 or sse4.2 caps it (to compare; docs/perf/query_minmax.md).
// MPI-free.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EXA_CONVERT_AVX2 1
#define EXA_CONVERT_SSE42 1
#define EXA_AVX2_FN __attribute__((target("avx2")))
#define EXA_SSE42_FN __attribute__((target("sse4.2")))
#endif

namespace exa::convert {

enum class Simd { kSse2 = 0, kSse42 = 1, kAvx2 = 2 };
Simd simd_level();
// Tests: the passes of `level` (of the best the CPU has below it).
void set_simd_for_tests(Simd level);

#if defined(EXA_CONVERT_AVX2)
// The byte shuffle that reverses each S-byte element of a 32-byte vector.
template <int S>
EXA_AVX2_FN inline __m256i avx_swap_mask() {
  alignas(32) char m[32];
  for (int i = 0; i < 32; ++i) m[i] = static_cast<char>((i % 16) / S * S + (S - 1 - i % S));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(m));
}
// The same for a 16-byte vector.
template <int S>
EXA_SSE42_FN inline __m128i sse4_swap_mask() {
  alignas(16) char m[16];
  for (int i = 0; i < 16; ++i) m[i] = static_cast<char>(i / S * S + (S - 1 - i % S));
  return _mm_load_si128(reinterpret_cast<const __m128i*>(m));
}
#endif

}  // namespace exa::convert
