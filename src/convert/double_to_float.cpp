// The AVX2 pass of double_to_float.hpp. Per 16 doubles: four loads, four
// narrowing conversions (vcvtpd2ps: the C cast, round to nearest), a min and
// a max of each 8-float vector, two byte shuffles and two stores. The min and
// max are the NC_ERANGE check too: a double beyond +-FLT_MAX narrows to
// +-FLT_MAX or +-inf, so a call whose floats stay strictly inside is clean
// (the usual case), done in that one pass; otherwise the generic kernel does
// it again (kernels.hpp: the exact rule, the fill values). So taking the
// range adds only the NaN test (an unordered compare and an or per 16 values).
#include "convert/double_to_float.hpp"

#include <cfloat>
#include <cstring>
#include <limits>

#include "convert/byte_order.hpp"
#include "convert/kernels.hpp"
#include "convert/simd.hpp"

namespace exa::convert {

namespace {

#if defined(EXA_CONVERT_AVX2)
// Two 4-double vectors narrowed into one 8-float vector.
EXA_AVX2_FN inline __m256 narrow2(__m256d a, __m256d b) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(a)), _mm256_cvtpd_ps(b), 1);
}

// The whole 16-value groups; returns the values done. lo/hi: the range of
// the non-NaN floats written; *nan: some is NaN (only when kRange: the
// conversion alone has no use for it).
template <bool kRange>
EXA_AVX2_FN int64_t avx2_doubles_to_floats(const unsigned char* in, unsigned char* out, int64_t n,
                                           float* lo, float* hi, bool* nan) {
  const int64_t groups = n / 16;
  const __m256i mask = avx_swap_mask<4>();
  __m256 a0 = _mm256_set1_ps(*lo), b0 = _mm256_set1_ps(*hi), a1 = a0, b1 = b0;
  __m256 u = _mm256_setzero_ps();
  for (int64_t g = 0; g < groups; ++g, in += 128, out += 64) {
    const __m256 f0 = narrow2(_mm256_loadu_pd(reinterpret_cast<const double*>(in)),
                              _mm256_loadu_pd(reinterpret_cast<const double*>(in + 32)));
    const __m256 f1 = narrow2(_mm256_loadu_pd(reinterpret_cast<const double*>(in + 64)),
                              _mm256_loadu_pd(reinterpret_cast<const double*>(in + 96)));
    a0 = _mm256_min_ps(f0, a0);  // (a NaN f leaves the accumulator: the second operand)
    a1 = _mm256_min_ps(f1, a1);
    b0 = _mm256_max_ps(f0, b0);
    b1 = _mm256_max_ps(f1, b1);
    if constexpr (kRange) u = _mm256_or_ps(u, _mm256_cmp_ps(f0, f1, _CMP_UNORD_Q));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                        _mm256_shuffle_epi8(_mm256_castps_si256(f0), mask));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32),
                        _mm256_shuffle_epi8(_mm256_castps_si256(f1), mask));
  }
  if (kRange && _mm256_movemask_ps(u) != 0) *nan = true;
  a0 = _mm256_min_ps(a1, a0);
  b0 = _mm256_max_ps(b1, b0);
  float l[8], h[8];
  std::memcpy(l, &a0, sizeof l);
  std::memcpy(h, &b0, sizeof h);
  for (int j = 0; j < 8; ++j) {
    *lo = l[j] < *lo ? l[j] : *lo;
    *hi = h[j] > *hi ? h[j] : *hi;
  }
  return groups * 16;
}
#endif

template <bool kRange>
bool run(const unsigned char* in, unsigned char* out, int64_t n, const unsigned char* fill,
         ValueRange* range, bool* bad) {
#if defined(EXA_CONVERT_AVX2)
  if (simd_level() != Simd::kAvx2) return false;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  bool nan = false;
  const int64_t done = avx2_doubles_to_floats<kRange>(in, out, n, &lo, &hi, &nan);
  for (int64_t i = done; i < n; ++i) {  // the rest
    const float f = static_cast<float>(load<double, false>(in + i * 8));
    store<float, true>(out + i * 4, f);
    if (f != f) {
      nan = true;
    } else {
      lo = f < lo ? f : lo;
      hi = f > hi ? f : hi;
    }
  }
  // A double beyond +-FLT_MAX (NC_ERANGE) becomes a float of at least that
  // magnitude (+-FLT_MAX or +-inf): none among the floats written, none among
  // the values. Otherwise (rare) the generic kernel does the call again --
  // the exact rule, the fill values -- and the range is taken from what it
  // wrote.
  constexpr float kMax = std::numeric_limits<float>::max();
  if (lo <= -kMax || hi >= kMax) {
    *bad |= convert_and_fill<double, float, Direction::put>(in, out, n, fill);
    if constexpr (kRange) add_external_range(out, NC_FLOAT, n, range);
    return true;
  }
  if constexpr (kRange) {
    ValueRange mine;
    mine.n = n;
    mine.nan = nan;
    mine.any = lo <= hi;
    if (mine.any) {
      mine.lo = lo;
      mine.hi = hi;
    }
    range->unite(mine);
  }
  return true;
#else
  (void)in, (void)out, (void)n, (void)fill, (void)range, (void)bad;
  return false;
#endif
}

}  // namespace

bool put_doubles_as_floats(const unsigned char* in, unsigned char* out, int64_t n,
                           const unsigned char* fill, ValueRange* range, bool* bad) {
  if constexpr (std::endian::native != std::endian::little) return false;
  if (n <= 0) return true;
  return range != nullptr ? run<true>(in, out, n, fill, range, bad) : run<false>(in, out, n, fill, range, bad);
}

}  // namespace exa::convert
