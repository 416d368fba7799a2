// In-place byte reversal: the whole external <-> native step for data whose
// memory type is its external type, so it must run at memory bandwidth.
#include <algorithm>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "convert/byte_order.hpp"
#include "convert/external.hpp"
#include "convert/kernels.hpp"
#include "convert/simd.hpp"

namespace exa::convert {

namespace {

template <class U>
void swap_words(unsigned char* __restrict p, int64_t n) {
  for_each_index(n, [&](int64_t i) {
    U v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(U)), sizeof v);
    v = bswap(v);
    std::memcpy(p + i * static_cast<int64_t>(sizeof(U)), &v, sizeof v);
  });
}

#if defined(__SSE2__)
// 16 bytes of elements of U reversed with SSE2 (the x86-64 baseline has no
// byte shuffle): the 16-bit words of each element reversed, then the two
// bytes of every word swapped.
template <class U>
inline __m128i swap16(__m128i v) {
  if constexpr (sizeof(U) == 4) {
    v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
    v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
  } else if constexpr (sizeof(U) == 8) {
    v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
    v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
  }
  return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
}

// The whole 64-byte groups of the buffer with SSE2; returns the elements done.
// Whatever the build type: at -O2 gcc keeps the scalar loop one bswap per
// element, which took twice the time of the -O3 build (profiled: 607 vs 321
// samples for the same 30 swaps of 64 MiB).
template <class U>
int64_t swap_sse2(unsigned char* p, int64_t n) {
  constexpr int64_t kPer = 64 / static_cast<int64_t>(sizeof(U));
  const int64_t groups = n / kPer;
  for (int64_t g = 0; g < groups; ++g, p += 64) {
    auto* q = reinterpret_cast<__m128i*>(p);
    __m128i a = _mm_loadu_si128(q), b = _mm_loadu_si128(q + 1);
    __m128i c = _mm_loadu_si128(q + 2), d = _mm_loadu_si128(q + 3);
    _mm_storeu_si128(q, swap16<U>(a));
    _mm_storeu_si128(q + 1, swap16<U>(b));
    _mm_storeu_si128(q + 2, swap16<U>(c));
    _mm_storeu_si128(q + 3, swap16<U>(d));
  }
  return groups * kPer;
}
#endif

#if defined(EXA_CONVERT_AVX2)
// The whole 128-byte groups with AVX2 (one byte shuffle per 32 bytes), from
// `in` to `out` (the same, or not overlapping).
template <class U>
EXA_AVX2_FN int64_t swap_avx2(const unsigned char* in, unsigned char* out, int64_t n) {
  constexpr int64_t kPer = 128 / static_cast<int64_t>(sizeof(U));
  const int64_t groups = n / kPer;
  const __m256i mask = avx_swap_mask<sizeof(U)>();
  for (int64_t g = 0; g < groups; ++g, in += 128, out += 128) {
    auto* q = reinterpret_cast<const __m256i*>(in);
    auto* o = reinterpret_cast<__m256i*>(out);
    __m256i x[4];
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) x[k] = _mm256_loadu_si256(q + k);
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) _mm256_storeu_si256(o + k, _mm256_shuffle_epi8(x[k], mask));
  }
  return groups * kPer;
}

// The whole 64-byte groups with SSSE3's byte shuffle (one per 16 bytes).
template <class U>
EXA_SSE42_FN int64_t swap_ssse3(const unsigned char* in, unsigned char* out, int64_t n) {
  constexpr int64_t kPer = 64 / static_cast<int64_t>(sizeof(U));
  const int64_t groups = n / kPer;
  const __m128i mask = sse4_swap_mask<sizeof(U)>();
  for (int64_t g = 0; g < groups; ++g, in += 64, out += 64) {
    auto* q = reinterpret_cast<const __m128i*>(in);
    auto* o = reinterpret_cast<__m128i*>(out);
    __m128i x[4];
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) x[k] = _mm_loadu_si128(q + k);
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) _mm_storeu_si128(o + k, _mm_shuffle_epi8(x[k], mask));
  }
  return groups * kPer;
}

// The groups a byte shuffle swaps (none with SSE2 alone).
template <class U>
int64_t swap_shuffled(const unsigned char* in, unsigned char* out, int64_t n) {
  const Simd level = simd_level();
  if (level == Simd::kAvx2) return swap_avx2<U>(in, out, n);
  if (level == Simd::kSse42) return swap_ssse3<U>(in, out, n);
  return 0;
}
#endif

template <class U>
bool swap_copy_shuffled(const unsigned char* in, unsigned char* out, int64_t n) {
#if defined(EXA_CONVERT_AVX2)
  if (simd_level() == Simd::kSse2) return false;
  const int64_t done = swap_shuffled<U>(in, out, n), at = done * static_cast<int64_t>(sizeof(U));
  for (int64_t i = at; i < n * static_cast<int64_t>(sizeof(U)); i += static_cast<int64_t>(sizeof(U))) {
    U v;
    std::memcpy(&v, in + i, sizeof v);
    v = bswap(v);
    std::memcpy(out + i, &v, sizeof v);
  }
  return true;
#else
  return false;
#endif
}

template <class U>
void swap_fast(unsigned char* p, int64_t n) {
#if defined(EXA_CONVERT_AVX2)
  {
    const int64_t done = swap_shuffled<U>(p, p, n);
    p += done * static_cast<int64_t>(sizeof(U));
    n -= done;
  }
#endif
#if defined(__SSE2__)
  const int64_t done = swap_sse2<U>(p, n);
  p += done * static_cast<int64_t>(sizeof(U));
  n -= done;
#endif
  swap_words<U>(p, n);
}

// Any other element size: reverse each element's bytes one by one.
void swap_generic(unsigned char* p, int64_t elem_size, int64_t n) {
  for (int64_t e = 0; e < n; ++e, p += elem_size)
    for (int64_t i = 0, j = elem_size - 1; i < j; ++i, --j) std::swap(p[i], p[j]);
}

}  // namespace

void swap_bytes_in_place(void* buf, int64_t elem_size, int64_t n) {
  if (n <= 0 || elem_size <= 1) return;
  auto* p = static_cast<unsigned char*>(buf);
  switch (elem_size) {
    case 2: swap_fast<uint16_t>(p, n); break;
    case 4: swap_fast<uint32_t>(p, n); break;
    case 8: swap_fast<uint64_t>(p, n); break;
    default: swap_generic(p, elem_size, n); break;
  }
}

bool swap_bytes_copy(const void* src, void* dst, int64_t elem_size, int64_t n) {
  if constexpr (std::endian::native != std::endian::little) return false;
  const auto* in = static_cast<const unsigned char*>(src);
  auto* out = static_cast<unsigned char*>(dst);
  switch (elem_size) {
    case 2: return swap_copy_shuffled<uint16_t>(in, out, n);
    case 4: return swap_copy_shuffled<uint32_t>(in, out, n);
    case 8: return swap_copy_shuffled<uint64_t>(in, out, n);
    default: return false;
  }
}

void swap_to_external_in_place(void* buf, nc_type xtype, int64_t n, SegmentedRange* range) {
  const int64_t size = native_size(xtype);
  auto* p = static_cast<unsigned char*>(buf);
  if (range == nullptr) {
    if constexpr (std::endian::native == std::endian::little) swap_bytes_in_place(p, size, n);
    return;
  }
  // One pass: the swap's loads serve the range.
  range->swap_out(p, p, xtype, n);
}

}  // namespace exa::convert
