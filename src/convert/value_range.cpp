// The range passes. One pass over a buffer takes the range of its values
// and, for a put, stores them in external order at the same time
// (Pass::kSwapOut): the swap and the range share the loads, so the range
// costs a few vector operations per 16 or 32 bytes, not a pass of its own.
// AVX2 or SSE4.2 where the CPU has them (convert/simd.hpp), SSE2 on any
// x86-64, a scalar loop for the rest of a buffer and for the 8-byte
// integers with SSE2 alone (it has no 64-bit compare). The loops over a
// group's four vectors are unrolled by pragma: left as loops, gcc -O2 kept the
// vectors on the stack, which made the AVX2 passes slower than SSE2.
//
// NaN: never in lo/hi, it sets `nan` (as the scan's predicate sees it). The
// float min/max instructions return their second operand when either is
// NaN, so min(x, acc) leaves the accumulator alone for a NaN x; an unordered
// compare of two vectors marks a NaN in either.
#include "convert/value_range.hpp"

#include <algorithm>
#include <climits>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "convert/byte_order.hpp"
#include "convert/external.hpp"
#include "convert/simd.hpp"
#include "convert/type_table.hpp"

namespace exa::convert {

namespace {
// -1: not looked yet; else a Simd.
std::atomic<int> g_simd{-1};
Simd cpu_best() {
#if defined(EXA_CONVERT_AVX2)
  static const Simd best = __builtin_cpu_supports("avx2")     ? Simd::kAvx2
                           : __builtin_cpu_supports("sse4.2") ? Simd::kSse42
                                                              : Simd::kSse2;
  return best;
#else
  return Simd::kSse2;
#endif
}
void set_level(Simd want) { g_simd.store(static_cast<int>(std::min(want, cpu_best())), std::memory_order_relaxed); }
}  // namespace

Simd simd_level() {
  if (g_simd.load(std::memory_order_relaxed) < 0) {
    const char* e = std::getenv("EXACDF_SIMD");
    Simd want = Simd::kAvx2;
    if (e != nullptr && std::strcmp(e, "sse2") == 0) want = Simd::kSse2;
    if (e != nullptr && std::strcmp(e, "sse4.2") == 0) want = Simd::kSse42;
    set_level(want);
  }
  return static_cast<Simd>(g_simd.load(std::memory_order_relaxed));
}

void set_simd_for_tests(Simd level) { set_level(level); }

namespace {

// What a pass does with the n values at `in`.
enum class Pass {
  kNative,    // takes the range of native values
  kExternal,  // takes the range of external (big-endian) values
  kSwapOut,   // takes the range of native values and stores them at `out` in external order (out may be in)
  kCopyOut,   // takes the range of native values and stores them at `out` as they are (not overlapping)
};

// Whether a pass stores (`out` is null otherwise: it does not move).
template <Pass pass>
inline constexpr bool kStoresOf = pass == Pass::kSwapOut || pass == Pass::kCopyOut;

// Whether the external order differs from the native one.
constexpr bool kSwaps = std::endian::native == std::endian::little;

// The running range of one pass: [lo, hi] of the non-NaN values, nan.
template <class T>
struct Acc {
  T lo, hi;
  bool nan = false;
  Acc() {
    if constexpr (std::is_floating_point_v<T>) {
      lo = std::numeric_limits<T>::infinity();
      hi = -std::numeric_limits<T>::infinity();
    } else {
      lo = std::numeric_limits<T>::max();
      hi = std::numeric_limits<T>::lowest();
    }
  }
  void add(T v) {
    if constexpr (std::is_floating_point_v<T>) {
      if (v != v) {
        nan = true;
        return;
      }
    }
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
};

template <class T, Pass pass>
void scalar_pass(const unsigned char* in, unsigned char* out, int64_t n, Acc<T>* acc) {
  constexpr int64_t size = sizeof(T);
  for (int64_t i = 0; i < n; ++i) {
    Bits<T> b;
    std::memcpy(&b, in + i * size, sizeof b);
    if constexpr (pass == Pass::kExternal) b = to_from_big_endian(b);
    if constexpr (pass == Pass::kSwapOut) {
      const Bits<T> x = to_from_big_endian(b);
      std::memcpy(out + i * size, &x, sizeof x);
    }
    if constexpr (pass == Pass::kCopyOut) std::memcpy(out + i * size, &b, sizeof b);
    acc->add(std::bit_cast<T>(b));
  }
}

#if defined(__SSE2__)
// 16 bytes of elements of size S reversed with SSE2 (the x86-64 baseline has
// no byte shuffle): the 16-bit words of each element reversed, then the two
// bytes of every word swapped.
template <int S>
inline __m128i sse_swap(__m128i v) {
  if constexpr (S == 1) {
    return v;
  } else {
    if constexpr (S == 4) {
      v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
      v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
    } else if constexpr (S == 8) {
      v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
      v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
    }
    return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
  }
}

// Loads the four vectors of a 64-byte group (as native values), and stores
// them swapped for kSwapOut (after all four are loaded: out may be in).
template <int S, Pass pass>
inline void sse_group(const unsigned char* in, unsigned char* out, __m128i x[4]) {
  auto q = reinterpret_cast<const __m128i*>(in);
  #pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) x[k] = _mm_loadu_si128(q + k);
  if constexpr (pass == Pass::kExternal && kSwaps) {
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) x[k] = sse_swap<S>(x[k]);
  }
  if constexpr (pass == Pass::kSwapOut) {
    auto o = reinterpret_cast<__m128i*>(out);
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) _mm_storeu_si128(o + k, kSwaps ? sse_swap<S>(x[k]) : x[k]);
  }
  if constexpr (pass == Pass::kCopyOut) {
    auto o = reinterpret_cast<__m128i*>(out);
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) _mm_storeu_si128(o + k, x[k]);
  }
}

// The whole 64-byte groups of float or double values; returns the elements done.
template <class T, Pass pass>
int64_t sse_float_pass(const unsigned char* in, unsigned char* out, int64_t n, Acc<T>* acc) {
  constexpr bool f = std::is_same_v<T, float>;
  constexpr int64_t kPer = 16 / static_cast<int64_t>(sizeof(T));
  const int64_t groups = n / (4 * kPer);
  constexpr bool kStores = kStoresOf<pass>;
  auto vmin = [](__m128i a, __m128i b) {
    if constexpr (f) return _mm_castps_si128(_mm_min_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b)));
    else return _mm_castpd_si128(_mm_min_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b)));
  };
  auto vmax = [](__m128i a, __m128i b) {
    if constexpr (f) return _mm_castps_si128(_mm_max_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b)));
    else return _mm_castpd_si128(_mm_max_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b)));
  };
  auto unord = [](__m128i a, __m128i b) {
    if constexpr (f) return _mm_castps_si128(_mm_cmpunord_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b)));
    else return _mm_castpd_si128(_mm_cmpunord_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b)));
  };
  __m128i a0, b0;
  if constexpr (f) {
    a0 = _mm_castps_si128(_mm_set1_ps(acc->lo));
    b0 = _mm_castps_si128(_mm_set1_ps(acc->hi));
  } else {
    a0 = _mm_castpd_si128(_mm_set1_pd(acc->lo));
    b0 = _mm_castpd_si128(_mm_set1_pd(acc->hi));
  }
  __m128i a1 = a0, b1 = b0, u = _mm_setzero_si128();
  for (int64_t g = 0; g < groups; ++g, in += 64, out += kStores ? 64 : 0) {
    __m128i x[4];
    sse_group<sizeof(T), pass>(in, out, x);
    a0 = vmin(x[0], a0);
    a1 = vmin(x[1], a1);
    b0 = vmax(x[0], b0);
    b1 = vmax(x[1], b1);
    u = _mm_or_si128(u, _mm_or_si128(unord(x[0], x[1]), unord(x[2], x[3])));
    a0 = vmin(x[2], a0);
    a1 = vmin(x[3], a1);
    b0 = vmax(x[2], b0);
    b1 = vmax(x[3], b1);
  }
  const __m128i parts[4] = {a0, a1, b0, b1};
  T v[4][kPer];
  #pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) std::memcpy(v[k], &parts[k], sizeof v[k]);
  for (int64_t j = 0; j < kPer; ++j) {
    acc->lo = std::min({acc->lo, v[0][j], v[1][j]});
    acc->hi = std::max({acc->hi, v[2][j], v[3][j]});
  }
  if (_mm_movemask_epi8(u) != 0) acc->nan = true;
  return groups * 4 * kPer;
}

// The whole 64-byte groups of 1-, 2- or 4-byte integers. The values are
// biased (an xor of the top bit) into the domain SSE2 compares: unsigned for
// bytes (min/max_epu8), signed for the wider ones (min/max_epi16,
// cmpgt_epi32 and a select).
template <class T, Pass pass>
int64_t sse_int_pass(const unsigned char* in, unsigned char* out, int64_t n, Acc<T>* acc) {
  using U = Bits<T>;
  constexpr int size = sizeof(T);
  constexpr bool is_signed = std::is_signed_v<T>;
  constexpr U top = static_cast<U>(U{1} << (8 * size - 1));
  constexpr U bias = size == 1 ? (is_signed ? top : U{0}) : (is_signed ? U{0} : top);
  auto splat = [](T v) {
    const U b = static_cast<U>(static_cast<U>(v) ^ bias);
    if constexpr (size == 1) return _mm_set1_epi8(static_cast<char>(b));
    else if constexpr (size == 2) return _mm_set1_epi16(static_cast<short>(b));
    else return _mm_set1_epi32(static_cast<int>(b));
  };
  const __m128i vbias = splat(T(0));  // 0 biased: the bias itself
  auto vmin = [](__m128i a, __m128i b) {
    if constexpr (size == 1) return _mm_min_epu8(a, b);
    else if constexpr (size == 2) return _mm_min_epi16(a, b);
    else {
      const __m128i gt = _mm_cmpgt_epi32(a, b);
      return _mm_or_si128(_mm_and_si128(gt, b), _mm_andnot_si128(gt, a));
    }
  };
  auto vmax = [](__m128i a, __m128i b) {
    if constexpr (size == 1) return _mm_max_epu8(a, b);
    else if constexpr (size == 2) return _mm_max_epi16(a, b);
    else {
      const __m128i gt = _mm_cmpgt_epi32(a, b);
      return _mm_or_si128(_mm_and_si128(gt, a), _mm_andnot_si128(gt, b));
    }
  };
  __m128i a0 = splat(acc->lo), b0 = splat(acc->hi), a1 = a0, b1 = b0;
  constexpr int64_t kPer = 16 / size;
  const int64_t groups = n / (4 * kPer);
  constexpr bool kStores = kStoresOf<pass>;
  for (int64_t g = 0; g < groups; ++g, in += 64, out += kStores ? 64 : 0) {
    __m128i x[4];
    sse_group<size, pass>(in, out, x);
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) x[k] = _mm_xor_si128(x[k], vbias);
    a0 = vmin(a0, x[0]);
    a1 = vmin(a1, x[1]);
    b0 = vmax(b0, x[0]);
    b1 = vmax(b1, x[1]);
    a0 = vmin(a0, x[2]);
    a1 = vmin(a1, x[3]);
    b0 = vmax(b0, x[2]);
    b1 = vmax(b1, x[3]);
  }
  const __m128i los[2] = {a0, a1}, his[2] = {b0, b1};
  for (int k = 0; k < 2; ++k) {
    U l[kPer], h[kPer];
    std::memcpy(l, &los[k], sizeof l);
    std::memcpy(h, &his[k], sizeof h);
    for (int64_t j = 0; j < kPer; ++j) {
      acc->lo = std::min(acc->lo, static_cast<T>(static_cast<U>(l[j] ^ bias)));
      acc->hi = std::max(acc->hi, static_cast<T>(static_cast<U>(h[j] ^ bias)));
    }
  }
  return groups * 4 * kPer;
}

template <class T, Pass pass>
int64_t sse2_pass(const unsigned char* in, unsigned char* out, int64_t n, Acc<T>* acc) {
  if constexpr (std::is_floating_point_v<T>) return sse_float_pass<T, pass>(in, out, n, acc);
  else if constexpr (sizeof(T) <= 4) return sse_int_pass<T, pass>(in, out, n, acc);
  else return 0;
}
#endif  // __SSE2__

#if defined(EXA_CONVERT_AVX2)
// AVX2: a byte shuffle swaps, and min/max exist for every integer width but
// 8 bytes (a 64-bit compare and a blend). No lambdas here: they would not
// inherit the target attribute.

template <class T>
EXA_AVX2_FN inline __m256i avx_min(__m256i a, __m256i b) {
  constexpr bool s = std::is_signed_v<T>;
  if constexpr (std::is_same_v<T, float>)
    return _mm256_castps_si256(_mm256_min_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
  else if constexpr (std::is_same_v<T, double>)
    return _mm256_castpd_si256(_mm256_min_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b)));
  else if constexpr (sizeof(T) == 1) return s ? _mm256_min_epi8(a, b) : _mm256_min_epu8(a, b);
  else if constexpr (sizeof(T) == 2) return s ? _mm256_min_epi16(a, b) : _mm256_min_epu16(a, b);
  else if constexpr (sizeof(T) == 4) return s ? _mm256_min_epi32(a, b) : _mm256_min_epu32(a, b);
  else return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));  // (8 bytes: biased to signed)
}

template <class T>
EXA_AVX2_FN inline __m256i avx_max(__m256i a, __m256i b) {
  constexpr bool s = std::is_signed_v<T>;
  if constexpr (std::is_same_v<T, float>)
    return _mm256_castps_si256(_mm256_max_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
  else if constexpr (std::is_same_v<T, double>)
    return _mm256_castpd_si256(_mm256_max_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b)));
  else if constexpr (sizeof(T) == 1) return s ? _mm256_max_epi8(a, b) : _mm256_max_epu8(a, b);
  else if constexpr (sizeof(T) == 2) return s ? _mm256_max_epi16(a, b) : _mm256_max_epu16(a, b);
  else if constexpr (sizeof(T) == 4) return s ? _mm256_max_epi32(a, b) : _mm256_max_epu32(a, b);
  else return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b));
}

// A NaN in a or b: all ones in its lanes (floating types only).
template <class T>
EXA_AVX2_FN inline __m256i avx_unord(__m256i a, __m256i b) {
  if constexpr (std::is_same_v<T, float>)
    return _mm256_castps_si256(_mm256_cmp_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _CMP_UNORD_Q));
  else
    return _mm256_castpd_si256(_mm256_cmp_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b), _CMP_UNORD_Q));
}

// The 8-byte integers compare signed: unsigned ones are biased by their top bit.
template <class T>
constexpr Bits<T> avx_bias() {
  if constexpr (sizeof(T) == 8 && std::is_unsigned_v<T>) return Bits<T>{1} << 63;
  else return 0;
}

template <class T>
EXA_AVX2_FN inline __m256i avx_splat(T v) {
  const Bits<T> b = static_cast<Bits<T>>(std::bit_cast<Bits<T>>(v) ^ avx_bias<T>());
  if constexpr (sizeof(T) == 1) return _mm256_set1_epi8(static_cast<char>(b));
  else if constexpr (sizeof(T) == 2) return _mm256_set1_epi16(static_cast<short>(b));
  else if constexpr (sizeof(T) == 4) return _mm256_set1_epi32(static_cast<int>(b));
  else return _mm256_set1_epi64x(static_cast<long long>(b));
}

// The whole 128-byte groups (four vectors); returns the elements done.
template <class T, Pass pass>
EXA_AVX2_FN int64_t avx2_pass(const unsigned char* in, unsigned char* out, int64_t n, Acc<T>* acc) {
  constexpr int size = sizeof(T);
  constexpr bool fp = std::is_floating_point_v<T>;
  constexpr int64_t kPer = 32 / size;
  const int64_t groups = n / (4 * kPer);
  constexpr bool kStores = kStoresOf<pass>;
  const __m256i mask = avx_swap_mask<size>();
  const __m256i bias = avx_splat<T>(T(0));  // 0 biased: the bias itself
  __m256i a0 = avx_splat<T>(acc->lo), b0 = avx_splat<T>(acc->hi), a1 = a0, b1 = b0;
  __m256i u = _mm256_setzero_si256();
  for (int64_t g = 0; g < groups; ++g, in += 128, out += kStores ? 128 : 0) {
    auto q = reinterpret_cast<const __m256i*>(in);
    __m256i x[4];
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) x[k] = _mm256_loadu_si256(q + k);
    if constexpr (pass == Pass::kExternal && kSwaps && size > 1) {
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) x[k] = _mm256_shuffle_epi8(x[k], mask);
    }
    if constexpr (pass == Pass::kSwapOut) {
      auto o = reinterpret_cast<__m256i*>(out);
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k)
        _mm256_storeu_si256(o + k, kSwaps && size > 1 ? _mm256_shuffle_epi8(x[k], mask) : x[k]);
    }
    if constexpr (pass == Pass::kCopyOut) {
      auto o = reinterpret_cast<__m256i*>(out);
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) _mm256_storeu_si256(o + k, x[k]);
    }
    if constexpr (avx_bias<T>() != 0) {
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) x[k] = _mm256_xor_si256(x[k], bias);
    }
    if constexpr (fp) u = _mm256_or_si256(u, _mm256_or_si256(avx_unord<T>(x[0], x[1]), avx_unord<T>(x[2], x[3])));
    a0 = avx_min<T>(x[0], a0);
    a1 = avx_min<T>(x[1], a1);
    b0 = avx_max<T>(x[0], b0);
    b1 = avx_max<T>(x[1], b1);
    a0 = avx_min<T>(x[2], a0);
    a1 = avx_min<T>(x[3], a1);
    b0 = avx_max<T>(x[2], b0);
    b1 = avx_max<T>(x[3], b1);
  }
  a0 = avx_min<T>(a1, a0);
  b0 = avx_max<T>(b1, b0);
  Bits<T> l[kPer], h[kPer];
  std::memcpy(l, &a0, sizeof l);
  std::memcpy(h, &b0, sizeof h);
  for (int64_t j = 0; j < kPer; ++j) {
    const T lo = std::bit_cast<T>(static_cast<Bits<T>>(l[j] ^ avx_bias<T>()));
    const T hi = std::bit_cast<T>(static_cast<Bits<T>>(h[j] ^ avx_bias<T>()));
    acc->lo = lo < acc->lo ? lo : acc->lo;
    acc->hi = hi > acc->hi ? hi : acc->hi;
  }
  if (_mm256_movemask_epi8(u) != 0) acc->nan = true;
  return groups * 4 * kPer;
}
#endif  // EXA_CONVERT_AVX2

#if defined(EXA_CONVERT_SSE42)
// SSE4.2 (SSSE3's byte shuffle, SSE4.1's integer min/max, SSE4.2's 64-bit
// compare): the AVX2 passes above on 16-byte vectors.

template <class T>
EXA_SSE42_FN inline __m128i sse4_min(__m128i a, __m128i b) {
  constexpr bool s = std::is_signed_v<T>;
  if constexpr (std::is_same_v<T, float>)
    return _mm_castps_si128(_mm_min_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b)));
  else if constexpr (std::is_same_v<T, double>)
    return _mm_castpd_si128(_mm_min_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b)));
  else if constexpr (sizeof(T) == 1) return s ? _mm_min_epi8(a, b) : _mm_min_epu8(a, b);
  else if constexpr (sizeof(T) == 2) return s ? _mm_min_epi16(a, b) : _mm_min_epu16(a, b);
  else if constexpr (sizeof(T) == 4) return s ? _mm_min_epi32(a, b) : _mm_min_epu32(a, b);
  else return _mm_blendv_epi8(a, b, _mm_cmpgt_epi64(a, b));  // (8 bytes: biased to signed)
}

template <class T>
EXA_SSE42_FN inline __m128i sse4_max(__m128i a, __m128i b) {
  constexpr bool s = std::is_signed_v<T>;
  if constexpr (std::is_same_v<T, float>)
    return _mm_castps_si128(_mm_max_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b)));
  else if constexpr (std::is_same_v<T, double>)
    return _mm_castpd_si128(_mm_max_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b)));
  else if constexpr (sizeof(T) == 1) return s ? _mm_max_epi8(a, b) : _mm_max_epu8(a, b);
  else if constexpr (sizeof(T) == 2) return s ? _mm_max_epi16(a, b) : _mm_max_epu16(a, b);
  else if constexpr (sizeof(T) == 4) return s ? _mm_max_epi32(a, b) : _mm_max_epu32(a, b);
  else return _mm_blendv_epi8(b, a, _mm_cmpgt_epi64(a, b));
}

// A NaN in a or b: all ones in its lanes (floating types only).
template <class T>
EXA_SSE42_FN inline __m128i sse4_unord(__m128i a, __m128i b) {
  if constexpr (std::is_same_v<T, float>)
    return _mm_castps_si128(_mm_cmpunord_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b)));
  else
    return _mm_castpd_si128(_mm_cmpunord_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b)));
}

// The 8-byte integers compare signed: unsigned ones are biased by their top bit.
template <class T>
constexpr Bits<T> sse4_bias() {
  if constexpr (sizeof(T) == 8 && std::is_unsigned_v<T>) return Bits<T>{1} << 63;
  else return 0;
}

template <class T>
EXA_SSE42_FN inline __m128i sse4_splat(T v) {
  const Bits<T> b = static_cast<Bits<T>>(std::bit_cast<Bits<T>>(v) ^ sse4_bias<T>());
  if constexpr (sizeof(T) == 1) return _mm_set1_epi8(static_cast<char>(b));
  else if constexpr (sizeof(T) == 2) return _mm_set1_epi16(static_cast<short>(b));
  else if constexpr (sizeof(T) == 4) return _mm_set1_epi32(static_cast<int>(b));
  else return _mm_set1_epi64x(static_cast<long long>(b));
}

// The whole 64-byte groups (four vectors); returns the elements done.
template <class T, Pass pass>
EXA_SSE42_FN int64_t sse42_pass(const unsigned char* in, unsigned char* out, int64_t n, Acc<T>* acc) {
  constexpr int size = sizeof(T);
  constexpr bool fp = std::is_floating_point_v<T>;
  constexpr int64_t kPer = 16 / size;
  const int64_t groups = n / (4 * kPer);
  constexpr bool kStores = kStoresOf<pass>;
  const __m128i mask = sse4_swap_mask<size>();
  const __m128i bias = sse4_splat<T>(T(0));  // 0 biased: the bias itself
  __m128i a0 = sse4_splat<T>(acc->lo), b0 = sse4_splat<T>(acc->hi), a1 = a0, b1 = b0;
  __m128i u = _mm_setzero_si128();
  for (int64_t g = 0; g < groups; ++g, in += 64, out += kStores ? 64 : 0) {
    auto q = reinterpret_cast<const __m128i*>(in);
    __m128i x[4];
    #pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) x[k] = _mm_loadu_si128(q + k);
    if constexpr (pass == Pass::kExternal && kSwaps && size > 1) {
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) x[k] = _mm_shuffle_epi8(x[k], mask);
    }
    if constexpr (pass == Pass::kSwapOut) {
      auto o = reinterpret_cast<__m128i*>(out);
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k)
        _mm_storeu_si128(o + k, kSwaps && size > 1 ? _mm_shuffle_epi8(x[k], mask) : x[k]);
    }
    if constexpr (pass == Pass::kCopyOut) {
      auto o = reinterpret_cast<__m128i*>(out);
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) _mm_storeu_si128(o + k, x[k]);
    }
    if constexpr (sse4_bias<T>() != 0) {
      #pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) x[k] = _mm_xor_si128(x[k], bias);
    }
    if constexpr (fp) u = _mm_or_si128(u, _mm_or_si128(sse4_unord<T>(x[0], x[1]), sse4_unord<T>(x[2], x[3])));
    a0 = sse4_min<T>(x[0], a0);
    a1 = sse4_min<T>(x[1], a1);
    b0 = sse4_max<T>(x[0], b0);
    b1 = sse4_max<T>(x[1], b1);
    a0 = sse4_min<T>(x[2], a0);
    a1 = sse4_min<T>(x[3], a1);
    b0 = sse4_max<T>(x[2], b0);
    b1 = sse4_max<T>(x[3], b1);
  }
  a0 = sse4_min<T>(a1, a0);
  b0 = sse4_max<T>(b1, b0);
  Bits<T> l[kPer], h[kPer];
  std::memcpy(l, &a0, sizeof l);
  std::memcpy(h, &b0, sizeof h);
  for (int64_t j = 0; j < kPer; ++j) {
    const T lo = std::bit_cast<T>(static_cast<Bits<T>>(l[j] ^ sse4_bias<T>()));
    const T hi = std::bit_cast<T>(static_cast<Bits<T>>(h[j] ^ sse4_bias<T>()));
    acc->lo = lo < acc->lo ? lo : acc->lo;
    acc->hi = hi > acc->hi ? hi : acc->hi;
  }
  if (_mm_movemask_epi8(u) != 0) acc->nan = true;
  return groups * 4 * kPer;
}
#endif  // EXA_CONVERT_SSE42

// One pass of `pass` over n values of T; widens *r by their range.
template <class T, Pass pass>
void typed_pass(const unsigned char* in, unsigned char* out, int64_t n, ValueRange* r) {
  Acc<T> acc;
  int64_t done = 0;
#if defined(EXA_CONVERT_AVX2)
  const Simd level = simd_level();
  if (level == Simd::kAvx2) done = avx2_pass<T, pass>(in, out, n, &acc);
  else if (level == Simd::kSse42) done = sse42_pass<T, pass>(in, out, n, &acc);
  else
#endif
  {
#if defined(__SSE2__)
    done = sse2_pass<T, pass>(in, out, n, &acc);
#endif
  }
  const int64_t at = done * static_cast<int64_t>(sizeof(T));
  scalar_pass<T, pass>(in + at, kStoresOf<pass> ? out + at : out, n - done, &acc);
  ValueRange mine;
  mine.n = n;
  mine.nan = acc.nan;
  mine.any = std::is_floating_point_v<T> ? acc.lo <= acc.hi : n > 0;
  if (mine.any) {
    mine.lo = static_cast<long double>(acc.lo);
    mine.hi = static_cast<long double>(acc.hi);
  }
  r->unite(mine);
}

template <Pass pass>
void any_pass(const void* in, void* out, nc_type t, int64_t n, ValueRange* r) {
  if (n <= 0) return;
  const auto* b = static_cast<const unsigned char*>(in);
  auto* o = static_cast<unsigned char*>(out);
  switch (t) {
#define EXA_CASE(code, type) \
  case code: return typed_pass<type, pass>(b, o, n, r);
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
    default:  // no order (NC_CHAR): the values move all the same
      if constexpr (kStoresOf<pass>) {
        const int64_t size = native_size(t);
        if (o != b) std::memmove(o, b, static_cast<size_t>(n * size));
        if constexpr (kSwaps && pass == Pass::kSwapOut) swap_bytes_in_place(o, size, n);
      }
      r->n += n;
      r->known = false;
  }
}

}  // namespace

void ValueRange::unite(const ValueRange& o) {
  n += o.n;
  known = known && o.known;
  nan = nan || o.nan;
  if (!o.any) return;
  lo = any ? std::min(lo, o.lo) : o.lo;
  hi = any ? std::max(hi, o.hi) : o.hi;
  any = true;
}

void add_native_range(const void* p, nc_type t, int64_t n, ValueRange* r) {
  any_pass<Pass::kNative>(p, nullptr, t, n, r);
}

void add_external_range(const void* p, nc_type t, int64_t n, ValueRange* r) {
  any_pass<Pass::kExternal>(p, nullptr, t, n, r);
}

void swap_out_with_range(const void* src, void* dst, nc_type t, int64_t n, ValueRange* r) {
  any_pass<Pass::kSwapOut>(src, dst, t, n, r);
}

void copy_with_range(const void* src, void* dst, nc_type t, int64_t n, ValueRange* r) {
  any_pass<Pass::kCopyOut>(src, dst, t, n, r);
}

ValueRange* SegmentedRange::piece(int64_t m, int64_t* take) {
  size_t k = 0;
  int64_t end = INT64_MAX;  // where segment k ends
  if (!ends_.empty()) {
    k = static_cast<size_t>(std::upper_bound(ends_.begin(), ends_.end(), seen_) - ends_.begin());
    end = k < ends_.size() ? ends_[k] : INT64_MAX;
  } else if (every_ > 0 && seen_ >= first_) {
    k = 1 + static_cast<size_t>((seen_ - first_) / every_);
    end = first_ + static_cast<int64_t>(k) * every_;
  } else if (every_ > 0) {
    end = first_;
  }
  *take = std::min(m, end - seen_);
  if (segs_.size() <= k) segs_.resize(k + 1);
  seen_ += *take;
  return &segs_[k];
}

void SegmentedRange::add(const void* p, void* out, nc_type t, int64_t m, Op op) {
  const auto* b = static_cast<const unsigned char*>(p);
  auto* o = static_cast<unsigned char*>(out);
  const int64_t size = std::max<int64_t>(1, native_size(t));
  while (m > 0) {
    int64_t take = 0;
    ValueRange* seg = piece(m, &take);
    switch (op) {
      case Op::kNative: add_native_range(b, t, take, seg); break;
      case Op::kExternal: add_external_range(b, t, take, seg); break;
      case Op::kSwapOut:
        swap_out_with_range(b, o, t, take, seg);
        o += take * size;
        break;
      case Op::kCopyOut:
        copy_with_range(b, o, t, take, seg);
        o += take * size;
        break;
    }
    b += take * size;
    m -= take;
  }
}

}  // namespace exa::convert
