// Which vector instructions the conversion passes use (swap.cpp,
// value_range.cpp): AVX2 where the CPU has it, checked once, else SSE2 (the
// x86-64 baseline). EXACDF_SIMD=sse2 keeps SSE2 (to compare the two).
// MPI-free.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EXA_CONVERT_AVX2 1
#define EXA_AVX2_FN __attribute__((target("avx2")))
#endif

namespace exa::convert {

bool use_avx2();
// Tests: false takes the SSE2 passes, true AVX2 again where the CPU has it.
void set_avx2_for_tests(bool on);

#if defined(EXA_CONVERT_AVX2)
// The byte shuffle that reverses each S-byte element of a 32-byte vector.
template <int S>
EXA_AVX2_FN inline __m256i avx_swap_mask() {
  alignas(32) char m[32];
  for (int i = 0; i < 32; ++i) m[i] = static_cast<char>((i % 16) / S * S + (S - 1 - i % S));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(m));
}
#endif

}  // namespace exa::convert
