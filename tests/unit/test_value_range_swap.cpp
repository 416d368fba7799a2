// Unit tests of the one-pass swap + range (swap_out_with_range, the put's
// conversion to external form taking its values' range; issue 20; and
// copy_with_range, a layer's own copy of a put taking it) and of
// the byte swap and the swapping copy, with the SSE2, SSE4.2 and AVX2 passes each (the latter two
// where the CPU has them): the bytes written equal a byte-by-byte reversal,
// in place and into another buffer, unaligned too, and the range equals a
// scalar reference's, for all 10 numeric types, lengths inside and past
// the vector groups, NaN in every lane, and the types' extremes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "convert/external.hpp"
#include "convert/simd.hpp"
#include "convert/type_table.hpp"
#include "convert/value_range.hpp"

namespace {

using exa::convert::ValueRange;

// Restores the SIMD choice whatever a test did.
struct SimdChoice {
  explicit SimdChoice(exa::convert::Simd level) : before_(exa::convert::simd_level()) {
    exa::convert::set_simd_for_tests(level);
  }
  ~SimdChoice() { exa::convert::set_simd_for_tests(before_); }
  exa::convert::Simd before_;
};

// Each element's bytes reversed, one byte at a time.
std::vector<unsigned char> reversed(const unsigned char* p, int64_t size, int64_t n) {
  std::vector<unsigned char> out(p, p + size * n);
  for (int64_t e = 0; e < n; ++e) std::reverse(out.begin() + e * size, out.begin() + (e + 1) * size);
  return out;
}

template <class T>
ValueRange reference(const unsigned char* p, int64_t n) {
  ValueRange r;
  r.n = n;
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof v);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) {
        r.nan = true;
        continue;
      }
    }
    const long double x = static_cast<long double>(v);
    r.lo = r.any ? std::min(r.lo, x) : x;
    r.hi = r.any ? std::max(r.hi, x) : x;
    r.any = true;
  }
  return r;
}

void expect_same(const ValueRange& got, const ValueRange& want, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(got.known);
  EXPECT_EQ(got.n, want.n);
  EXPECT_EQ(got.nan, want.nan);
  ASSERT_EQ(got.any, want.any);
  if (want.any) {
    EXPECT_EQ(got.lo, want.lo);
    EXPECT_EQ(got.hi, want.hi);
  }
}

template <class T>
std::vector<T> random_values(std::mt19937_64& rng, int64_t n) {
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
    } else {
      using W = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
      x = static_cast<T>(std::uniform_int_distribution<W>(std::numeric_limits<T>::lowest(),
                                                          std::numeric_limits<T>::max())(rng));
    }
  }
  return v;
}

const std::vector<int64_t> kLengths = {0, 1, 7, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 4097};

// Checks one buffer of values (as bytes at `shift` past an aligned start).
template <class T>
void check_values(nc_type t, const std::vector<T>& v, int shift) {
  constexpr int64_t size = sizeof(T);
  const int64_t n = static_cast<int64_t>(v.size());
  std::vector<unsigned char> src(static_cast<size_t>(n * size) + 1);
  if (n > 0) std::memcpy(src.data() + shift, v.data(), static_cast<size_t>(n * size));
  const unsigned char* in = src.data() + shift;
  const ValueRange want = reference<T>(in, n);
  const std::vector<unsigned char> swapped = reversed(in, size, n);

  std::vector<unsigned char> out(static_cast<size_t>(n * size) + 1, 0xAB);
  ValueRange copy;
  exa::convert::swap_out_with_range(in, out.data() + (1 - shift), t, n, &copy);
  expect_same(copy, want, "copy");
  EXPECT_TRUE(std::equal(swapped.begin(), swapped.end(), out.begin() + (1 - shift)));

  ValueRange ext;
  exa::convert::add_external_range(out.data() + (1 - shift), t, n, &ext);
  expect_same(ext, want, "external");

  std::vector<unsigned char> inplace = src;
  ValueRange own;
  exa::convert::swap_out_with_range(inplace.data() + shift, inplace.data() + shift, t, n, &own);
  expect_same(own, want, "in place");
  EXPECT_TRUE(std::equal(swapped.begin(), swapped.end(), inplace.begin() + shift));

  std::vector<unsigned char> same(static_cast<size_t>(n * size) + 1, 0xEF);  // the plain copy with the range
  ValueRange plain_copy;
  exa::convert::copy_with_range(in, same.data() + (1 - shift), t, n, &plain_copy);
  expect_same(plain_copy, want, "plain copy");
  EXPECT_TRUE(std::equal(in, in + n * size, same.begin() + (1 - shift)));

  std::vector<unsigned char> copied(static_cast<size_t>(n * size) + 1, 0xCD);  // the swapping copy alone
  if (exa::convert::swap_bytes_copy(in, copied.data() + (1 - shift), size, n))
    EXPECT_TRUE(std::equal(swapped.begin(), swapped.end(), copied.begin() + (1 - shift)));
  else
    EXPECT_TRUE(size == 1 || exa::convert::simd_level() == exa::convert::Simd::kSse2);

  std::vector<unsigned char> plain = src;  // the swap alone
  exa::convert::swap_bytes_in_place(plain.data() + shift, size, n);
  EXPECT_TRUE(std::equal(swapped.begin(), swapped.end(), plain.begin() + shift));
}

template <class T>
void check_type(nc_type t) {
  SCOPED_TRACE(t);
  std::mt19937_64 rng(static_cast<uint64_t>(t) * 104729u);
  for (int64_t n : kLengths) {
    SCOPED_TRACE(n);
    for (int shift : {0, 1}) check_values<T>(t, random_values<T>(rng, n), shift);
  }
  // The extremes at every place of a 256-byte window (every lane of both
  // accumulators of each vector), one at a time; NaN and infinities too.
  std::vector<T> specials = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()};
  if constexpr (std::is_floating_point_v<T>)
    specials = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                -std::numeric_limits<T>::infinity(), T(-0.0)};
  const int64_t n = 256 / static_cast<int64_t>(sizeof(T)) + 3;
  for (T s : specials) {
    for (int64_t at = 0; at < n; ++at) {
      std::vector<T> v(static_cast<size_t>(n), T(1));
      v[static_cast<size_t>(at)] = s;
      check_values<T>(t, v, 0);
    }
  }
  // Only NaN: no value, NaN seen.
  if constexpr (std::is_floating_point_v<T>) {
    std::vector<T> v(static_cast<size_t>(n), std::numeric_limits<T>::quiet_NaN());
    check_values<T>(t, v, 0);
  }
}

void check_all_types() {
#define EXA_CASE(code, type) check_type<type>(code);
  EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
}

TEST(ValueRangeSwap, Sse2) {
  SimdChoice sse2(exa::convert::Simd::kSse2);
  ASSERT_EQ(exa::convert::simd_level(), exa::convert::Simd::kSse2);
  check_all_types();
}

TEST(ValueRangeSwap, Sse42WhereTheCpuHasIt) {
  SimdChoice sse42(exa::convert::Simd::kSse42);
  check_all_types();
}

TEST(ValueRangeSwap, Avx2WhereTheCpuHasIt) {
  SimdChoice avx2(exa::convert::Simd::kAvx2);
  check_all_types();
}

TEST(ValueRangeSwap, TextMovesAndIsUnknown) {
  const char text[] = "abcdef";
  char out[6] = {};
  ValueRange r;
  exa::convert::swap_out_with_range(text, out, NC_CHAR, 6, &r);
  EXPECT_EQ(std::memcmp(out, text, 6), 0);
  EXPECT_FALSE(r.known);
  EXPECT_EQ(r.n, 6);
}

// The segmented form: each segment gets its own values' range, the bytes
// are all swapped.
TEST(ValueRangeSwap, SegmentsInOnePass) {
  std::vector<int> v(300);
  for (int i = 0; i < 300; ++i) v[static_cast<size_t>(i)] = i % 2 == 0 ? i : -i;
  const std::vector<unsigned char> swapped =
      reversed(reinterpret_cast<const unsigned char*>(v.data()), 4, 300);
  exa::convert::SegmentedRange s(100, 150);  // [0, 100), [100, 250), [250, 300)
  s.swap_out(v.data(), v.data(), NC_INT, 300);
  ASSERT_EQ(s.segments().size(), 3u);
  EXPECT_EQ(s.segments()[0].lo, -99.0L);
  EXPECT_EQ(s.segments()[0].hi, 98.0L);
  EXPECT_EQ(s.segments()[1].lo, -249.0L);
  EXPECT_EQ(s.segments()[1].hi, 248.0L);
  EXPECT_EQ(s.segments()[2].lo, -299.0L);
  EXPECT_EQ(s.segments()[2].hi, 298.0L);
  EXPECT_EQ(std::memcmp(v.data(), swapped.data(), swapped.size()), 0);
}

}  // namespace

namespace {

// Doubles put into a float variable: the AVX2 pass that converts, checks,
// swaps and takes the range in one go (convert/double_to_float.cpp) writes
// the same bytes, returns the same status and takes the same range, segment
// by segment, as the generic kernel and its separate range look (SSE2), for
// random doubles with the specials (NaN, +-inf, beyond +-FLT_MAX -- also by
// less than half a float's step, which narrows to +-FLT_MAX --, the smallest
// doubles, -0), with a fill value and without, unaligned, at
// lengths inside and past the 16-value groups.
TEST(ValueRangeSwap, DoublesIntoFloatsFusedEqualsGeneric) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2";
  std::mt19937_64 rng(20);
  std::uniform_real_distribution<double> u(-4e38, 4e38), small(-1e3, 1e3);
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), 3.5e38, -3.5e38,
                             static_cast<double>(std::numeric_limits<float>::max()),
                             -static_cast<double>(std::numeric_limits<float>::max()), 1e-320, -0.0, 0.0,
                             // beyond FLT_MAX (NC_ERANGE) but narrowed to +-FLT_MAX, not inf
                             static_cast<double>(std::numeric_limits<float>::max()) * (1 + 0x1p-30),
                             -static_cast<double>(std::numeric_limits<float>::max()) * (1 + 0x1p-30)};
  const float minus7 = -7.0f;
  unsigned char xfill[4];
  ASSERT_EQ(exa::convert::to_external(&minus7, NC_FLOAT, NC_FLOAT, 1, xfill).code(), NC_NOERR);
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{15}, int64_t{16}, int64_t{33}, int64_t{100}, int64_t{5000}}) {
    // mix 0: in range; 1: most out of range; 2: NaN; 3: every special; 4: one
    // value just beyond FLT_MAX (which narrows to FLT_MAX), the rest in range
    for (int mix = 0; mix < 5; ++mix) {
      std::vector<double> buf(static_cast<size_t>(n) + 1);
      double* v = buf.data() + (mix % 2);  // (odd: 8-byte but not 32-byte aligned)
      for (int64_t i = 0; i < n; ++i) {
        v[i] = mix == 1 ? u(rng) : small(rng);
        if (mix == 2 && i % 37 == 5) v[i] = specials[0];
        if (mix == 3 && i % 3 == 0) v[i] = specials[static_cast<size_t>(i / 3) % std::size(specials)];
        if (mix == 4 && i == n / 2) v[i] = specials[std::size(specials) - 1 - static_cast<size_t>(n % 2)];
      }
      for (bool with_fill : {false, true}) {
        const auto fill = with_fill ? exa::convert::ErangeFill::value(xfill, 4) : exa::convert::ErangeFill::keep_converted();
        std::vector<unsigned char> want(static_cast<size_t>(n) * 4 + 1), got(want.size() + 1);
        exa::convert::SegmentedRange want_r(7, 1000), got_r(7, 1000);
        exa::Status ws, gs, ws0, gs0;
        {
          SimdChoice sse2(exa::convert::Simd::kSse2);
          ws = exa::convert::to_external(v, NC_DOUBLE, NC_FLOAT, n, want.data(), true, fill, &want_r);
        }
        {
          SimdChoice avx2(exa::convert::Simd::kAvx2);
          gs = exa::convert::to_external(v, NC_DOUBLE, NC_FLOAT, n, got.data() + 1, true, fill, &got_r);
        }
        SCOPED_TRACE(testing::Message() << "n " << n << " mix " << mix << " fill " << with_fill);
        EXPECT_EQ(gs.code(), ws.code());
        EXPECT_EQ(std::memcmp(got.data() + 1, want.data(), static_cast<size_t>(n) * 4), 0);
        ASSERT_EQ(got_r.segments().size(), want_r.segments().size());
        for (size_t k = 0; k < want_r.segments().size(); ++k) {
          const ValueRange& a = got_r.segments()[k];
          const ValueRange& b = want_r.segments()[k];
          EXPECT_EQ(a.n, b.n) << k;
          EXPECT_EQ(a.any, b.any) << k;
          EXPECT_EQ(a.nan, b.nan) << k;
          if (a.any && b.any) {
            EXPECT_EQ(a.lo, b.lo) << k;
            EXPECT_EQ(a.hi, b.hi) << k;
          }
        }
        // Without a range (the pass that only converts): the same bytes and status.
        std::vector<unsigned char> plain(want.size());
        {
          SimdChoice avx2(exa::convert::Simd::kAvx2);
          gs0 = exa::convert::to_external(v, NC_DOUBLE, NC_FLOAT, n, plain.data(), true, fill);
        }
        EXPECT_EQ(gs0.code(), ws.code());
        EXPECT_EQ(std::memcmp(plain.data(), want.data(), static_cast<size_t>(n) * 4), 0);
      }
    }
  }
}

}  // namespace
