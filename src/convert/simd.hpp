// Which vector instructions the conversion passes use (swap.cpp,
// value_range.cpp), chosen once: SSE4.2 (SSSE3's byte shuffle, SSE4.1's
// integer min/max) where the CPU has it, else SSE2 (the x86-64 baseline).
// AVX2 only when asked (EXACDF_SIMD=avx2): on the 2-core VM this was
// measured on it took 1.7-2.7x the time of SSE2 for the same passes
// (docs/perf/query_minmax.md). EXACDF_SIMD=sse2 or sse4.2 picks those.
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
