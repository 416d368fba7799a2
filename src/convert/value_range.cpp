// add_native_range / add_external_range: SSE2 for every type but the 8-byte
// integers (the x86-64 baseline has no 64-bit compare; gcc does not vectorize
// the generic loop at -O2), a scalar loop for the rest of a buffer.
#include "convert/value_range.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "convert/byte_order.hpp"
#include "convert/external.hpp"
#include "convert/type_table.hpp"

namespace exa::convert {

namespace {

// The values p[0, n) widen [*lo, *hi]; a NaN sets *nan instead.
template <class T>
void scalar_range(const unsigned char* p, int64_t n, T* lo, T* hi, bool* nan) {
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof v);
    if constexpr (std::is_floating_point_v<T>) {
      if (v != v) {
        *nan = true;
        continue;
      }
    }
    *lo = v < *lo ? v : *lo;
    *hi = v > *hi ? v : *hi;
  }
}

#if defined(__SSE2__)
// The whole groups of four vectors of float or double; returns the elements
// done. min/max return their second operand when the first is NaN, so a NaN
// leaves the accumulators alone; cmpunord marks it.
template <class T>
int64_t sse_float_range(const unsigned char* p, int64_t n, T* lo, T* hi, bool* nan) {
  constexpr bool f = std::is_same_v<T, float>;
  constexpr int64_t kPer = 16 / static_cast<int64_t>(sizeof(T));
  constexpr int64_t kStep = 4 * kPer;
  auto load = [](const unsigned char* q) {
    if constexpr (f) return _mm_loadu_ps(reinterpret_cast<const float*>(q));
    else return _mm_loadu_pd(reinterpret_cast<const double*>(q));
  };
  using V = decltype(load(p));  // __m128 or __m128d
  auto vmin = [](V a, V b) { if constexpr (f) return _mm_min_ps(a, b); else return _mm_min_pd(a, b); };
  auto vmax = [](V a, V b) { if constexpr (f) return _mm_max_ps(a, b); else return _mm_max_pd(a, b); };
  auto unord = [](V a) { if constexpr (f) return _mm_cmpunord_ps(a, a); else return _mm_cmpunord_pd(a, a); };
  auto vor = [](V a, V b) { if constexpr (f) return _mm_or_ps(a, b); else return _mm_or_pd(a, b); };
  V a0, b0, u0;
  if constexpr (f) {
    a0 = _mm_set1_ps(*lo), b0 = _mm_set1_ps(*hi), u0 = _mm_setzero_ps();
  } else {
    a0 = _mm_set1_pd(*lo), b0 = _mm_set1_pd(*hi), u0 = _mm_setzero_pd();
  }
  V a1 = a0, b1 = b0, u1 = u0;  // two chains for the latency
  const int64_t groups = n / kStep;
  for (int64_t g = 0; g < groups; ++g, p += 64) {
    const V x0 = load(p), x1 = load(p + 16), x2 = load(p + 32), x3 = load(p + 48);
    a0 = vmin(x0, a0);
    a1 = vmin(x1, a1);
    b0 = vmax(x0, b0);
    b1 = vmax(x1, b1);
    u0 = vor(u0, vor(unord(x0), unord(x2)));
    u1 = vor(u1, vor(unord(x1), unord(x3)));
    a0 = vmin(x2, a0);
    a1 = vmin(x3, a1);
    b0 = vmax(x2, b0);
    b1 = vmax(x3, b1);
  }
  const V los[2] = {a0, a1}, his[2] = {b0, b1}, bads[2] = {u0, u1};
  for (int k = 0; k < 2; ++k) {
    T l[kPer], h[kPer], u[kPer];
    std::memcpy(l, &los[k], sizeof l);
    std::memcpy(h, &his[k], sizeof h);
    std::memcpy(u, &bads[k], sizeof u);
    for (int64_t j = 0; j < kPer; ++j) {
      *lo = std::min(*lo, l[j]);
      *hi = std::max(*hi, h[j]);
      uint64_t bits = 0;
      std::memcpy(&bits, &u[j], sizeof(T));
      if (bits != 0) *nan = true;
    }
  }
  return groups * kStep;
}

// The whole groups of four vectors of 1-, 2- or 4-byte integers. The values
// are biased (an xor of the top bit) into the domain SSE2 compares: unsigned
// for bytes (min/max_epu8), signed for the wider ones (min/max_epi16,
// cmpgt_epi32 and a select).
template <class T>
int64_t sse_int_range(const unsigned char* p, int64_t n, T* lo, T* hi) {
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
  __m128i a0 = splat(*lo), b0 = splat(*hi), a1 = a0, b1 = b0;
  constexpr int64_t kPer = 16 / size;
  const int64_t groups = n / (4 * kPer);
  for (int64_t g = 0; g < groups; ++g, p += 64) {
    auto q = reinterpret_cast<const __m128i*>(p);
    const __m128i x0 = _mm_xor_si128(_mm_loadu_si128(q), vbias), x1 = _mm_xor_si128(_mm_loadu_si128(q + 1), vbias);
    const __m128i x2 = _mm_xor_si128(_mm_loadu_si128(q + 2), vbias), x3 = _mm_xor_si128(_mm_loadu_si128(q + 3), vbias);
    a0 = vmin(a0, x0);
    a1 = vmin(a1, x1);
    b0 = vmax(b0, x0);
    b1 = vmax(b1, x1);
    a0 = vmin(a0, x2);
    a1 = vmin(a1, x3);
    b0 = vmax(b0, x2);
    b1 = vmax(b1, x3);
  }
  const __m128i los[2] = {a0, a1}, his[2] = {b0, b1};
  for (int k = 0; k < 2; ++k) {
    U l[kPer], h[kPer];
    std::memcpy(l, &los[k], sizeof l);
    std::memcpy(h, &his[k], sizeof h);
    for (int64_t j = 0; j < kPer; ++j) {
      *lo = std::min(*lo, static_cast<T>(static_cast<U>(l[j] ^ bias)));
      *hi = std::max(*hi, static_cast<T>(static_cast<U>(h[j] ^ bias)));
    }
  }
  return groups * 4 * kPer;
}
#endif

template <class T>
void add_typed(const unsigned char* p, int64_t n, ValueRange* r) {
  T lo, hi;
  if constexpr (std::is_floating_point_v<T>) {
    lo = std::numeric_limits<T>::infinity();
    hi = -std::numeric_limits<T>::infinity();
  } else {
    lo = std::numeric_limits<T>::max();
    hi = std::numeric_limits<T>::lowest();
  }
  bool nan = false;
  int64_t done = 0;
#if defined(__SSE2__)
  if constexpr (std::is_floating_point_v<T>) done = sse_float_range(p, n, &lo, &hi, &nan);
  else if constexpr (sizeof(T) <= 4) done = sse_int_range(p, n, &lo, &hi);
#endif
  scalar_range(p + done * static_cast<int64_t>(sizeof(T)), n - done, &lo, &hi, &nan);
  ValueRange mine;
  mine.n = n;
  mine.nan = nan;
  mine.any = std::is_floating_point_v<T> ? lo <= hi : n > 0;
  if (mine.any) {
    mine.lo = static_cast<long double>(lo);
    mine.hi = static_cast<long double>(hi);
  }
  r->unite(mine);
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
  if (n <= 0) return;
  const auto* b = static_cast<const unsigned char*>(p);
  switch (t) {
#define EXA_CASE(code, type) \
  case code: return add_typed<type>(b, n, r);
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
    default:
      r->n += n;
      r->known = false;
  }
}

void add_external_range(const void* p, nc_type t, int64_t n, ValueRange* r) {
  const int64_t size = native_size(t);
  if (size <= 1 || std::endian::native == std::endian::big) return add_native_range(p, t, n, r);
  alignas(16) unsigned char block[kRangeBlockElements * 8];
  const auto* b = static_cast<const unsigned char*>(p);
  for (int64_t base = 0; base < n; base += kRangeBlockElements) {
    const int64_t m = std::min(kRangeBlockElements, n - base);
    std::memcpy(block, b + base * size, static_cast<size_t>(m * size));
    swap_bytes_in_place(block, size, m);
    add_native_range(block, t, m, r);
  }
}

void SegmentedRange::add(const void* p, nc_type t, int64_t m, bool external) {
  const auto* b = static_cast<const unsigned char*>(p);
  const int64_t size = std::max<int64_t>(1, native_size(t));
  while (m > 0) {
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
    const int64_t take = std::min(m, end - seen_);
    if (segs_.size() <= k) segs_.resize(k + 1);
    if (external) add_external_range(b, t, take, &segs_[k]);
    else add_native_range(b, t, take, &segs_[k]);
    b += take * size;
    m -= take;
    seen_ += take;
  }
}

}  // namespace exa::convert
