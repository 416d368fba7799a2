// Unit tests of the value range a put's conversion takes (src/convert/
// value_range.hpp; issue 20, per-chunk min/max at put time): for all 10
// numeric types, lengths that end inside and past the SIMD groups and the
// range blocks, unaligned buffers, NaN, infinities and the types' extremes,
// against a scalar reference; and for every memory/external type pair, the
// range to_external takes equals the range of the external values it wrote
// (fill values of out-of-range elements included), in place and not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "convert/external.hpp"
#include "convert/type_table.hpp"
#include "convert/value_range.hpp"

namespace {

using exa::convert::SegmentedRange;
using exa::convert::ValueRange;

// Every segment's range together.
ValueRange united(const SegmentedRange& s) {
  ValueRange all;
  for (const ValueRange& r : s.segments()) all.unite(r);
  return all;
}

// The reference: one value at a time, in long double.
struct Ref {
  bool any = false, nan = false;
  long double lo = 0, hi = 0;
};

template <class T>
Ref reference(const unsigned char* p, int64_t n) {
  Ref r;
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

void expect_same(const ValueRange& got, const Ref& want, int64_t n, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(got.known);
  EXPECT_EQ(got.n, n);
  EXPECT_EQ(got.nan, want.nan);
  ASSERT_EQ(got.any, want.any);
  if (want.any) {
    EXPECT_EQ(got.lo, want.lo);
    EXPECT_EQ(got.hi, want.hi);
  }
}

// n random values of T, with the type's extremes (and NaN, infinities, -0
// for the floating types) at random places when `special`.
template <class T>
std::vector<T> random_values(std::mt19937_64& rng, int64_t n, bool special) {
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
  if (!special || n == 0) return v;
  std::vector<T> specials = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0)};
  if constexpr (std::is_floating_point_v<T>) {
    specials = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                -std::numeric_limits<T>::infinity(), T(-0.0), std::numeric_limits<T>::denorm_min()};
  }
  for (T s : specials) v[static_cast<size_t>(rng() % static_cast<uint64_t>(n))] = s;
  return v;
}

const std::vector<int64_t> kLengths = {0, 1, 3, 15, 16, 17, 63, 64, 65, 127, 1000, 4095, 4096, 4097, 10001};

template <class T>
void check_native_type(nc_type t) {
  std::mt19937_64 rng(static_cast<uint64_t>(t) * 7919u);
  for (int64_t n : kLengths) {
    for (bool special : {false, true}) {
      for (int shift : {0, 1}) {  // an unaligned buffer too
        std::vector<T> v = random_values<T>(rng, n, special);
        std::vector<unsigned char> bytes(static_cast<size_t>(n) * sizeof(T) + 1);
        if (n > 0) std::memcpy(bytes.data() + shift, v.data(), static_cast<size_t>(n) * sizeof(T));
        ValueRange got;
        exa::convert::add_native_range(bytes.data() + shift, t, n, &got);
        expect_same(got, reference<T>(bytes.data() + shift, n), n, "native");

        // The same values in external form.
        std::vector<unsigned char> ext(bytes.begin() + shift, bytes.end() - (1 - shift));
        exa::convert::swap_bytes_in_place(ext.data(), sizeof(T), n);
        ValueRange got_ext;
        exa::convert::add_external_range(ext.data(), t, n, &got_ext);
        expect_same(got_ext, reference<T>(bytes.data() + shift, n), n, "external");
      }
    }
  }
  // Values all equal to one extreme (the accumulators' start values).
  for (T s : {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()}) {
    std::vector<T> v(100, s);
    ValueRange got;
    exa::convert::add_native_range(v.data(), t, 100, &got);
    expect_same(got, reference<T>(reinterpret_cast<const unsigned char*>(v.data()), 100), 100, "extreme");
  }
}

TEST(ValueRange, NativeAndExternalAllTypes) {
#define EXA_CASE(code, type) check_native_type<type>(code);
  EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
}

TEST(ValueRange, OnlyNaN) {
  std::vector<float> v(40, std::numeric_limits<float>::quiet_NaN());
  ValueRange r;
  exa::convert::add_native_range(v.data(), NC_FLOAT, 40, &r);
  EXPECT_TRUE(r.nan);
  EXPECT_FALSE(r.any);
  std::vector<double> d(3, 2.5);
  exa::convert::add_native_range(d.data(), NC_DOUBLE, 3, &r);  // united: now some value
  EXPECT_TRUE(r.nan);
  EXPECT_TRUE(r.any);
  EXPECT_EQ(r.lo, 2.5L);
  EXPECT_EQ(r.hi, 2.5L);
  EXPECT_EQ(r.n, 43);
}

TEST(ValueRange, TextIsUnknown) {
  const char text[] = "abc";
  ValueRange r;
  exa::convert::add_native_range(text, NC_CHAR, 3, &r);
  EXPECT_FALSE(r.known);
}

// The range of n external values of xtype at p, by the reference.
Ref external_reference(const unsigned char* p, nc_type xtype, int64_t n) {
  std::vector<unsigned char> native(p, p + n * exa::convert::native_size(xtype));
  exa::convert::swap_bytes_in_place(native.data(), exa::convert::native_size(xtype), n);
  Ref r;
  switch (xtype) {
#define EXA_CASE(code, type) \
  case code: r = reference<type>(native.data(), n); break;
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
    default: break;
  }
  return r;
}

// Memory values of M (random, with the specials: many out of range of
// xtype) put as xtype: the range taken is that of what was written.
template <class M>
void check_put_pair(nc_type mtype, nc_type xtype, bool cdf5) {
  std::mt19937_64 rng(static_cast<uint64_t>(mtype * 131 + xtype));
  const int64_t xsize = exa::convert::native_size(xtype);
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{17}, int64_t{5000}, int64_t{9000}}) {
    for (bool special : {false, true}) {
      std::vector<M> v = random_values<M>(rng, n, special);
      // A fill value of ours for the out-of-range elements (7 in every type).
      alignas(8) unsigned char xfill[8] = {};
      const signed char seven = 7;
      ASSERT_EQ(exa::convert::to_external(&seven, NC_BYTE, xtype, 1, xfill, true).code(), NC_NOERR);
      const auto fill = exa::convert::ErangeFill::value(xfill, xsize);
      std::vector<unsigned char> out(static_cast<size_t>(n * xsize) + 1);
      SegmentedRange got;
      exa::Status st = exa::convert::to_external(v.data(), mtype, xtype, n, out.data(), cdf5, fill, &got);
      ASSERT_TRUE(st.is_ok() || st.code() == NC_ERANGE) << st.code();
      SCOPED_TRACE(testing::Message() << "mem " << mtype << " ext " << xtype << " n " << n);
      expect_same(united(got), external_reference(out.data(), xtype, n), n, "to_external");
      // Segmented (as a whole-row put is, at chunk boundaries): each segment its own values.
      SegmentedRange split(1000, 3000);
      std::vector<unsigned char> out2(out.size());
      st = exa::convert::to_external(v.data(), mtype, xtype, n, out2.data(), cdf5, fill, &split);
      ASSERT_TRUE(st.is_ok() || st.code() == NC_ERANGE);
      for (size_t k = 0; k < split.segments().size(); ++k) {
        const int64_t b = k == 0 ? 0 : 1000 + 3000 * static_cast<int64_t>(k - 1);
        const int64_t e = std::min<int64_t>(n, k == 0 ? 1000 : b + 3000);
        expect_same(split.segments()[k], external_reference(out.data() + b * xsize, xtype, e - b), e - b, "segment");
      }

      if (static_cast<int64_t>(sizeof(M)) != xsize) continue;
      // In place: the same bytes, the same range.
      std::vector<M> w = v;
      SegmentedRange in_place;
      st = exa::convert::to_external(w.data(), mtype, xtype, n, w.data(), cdf5, fill, &in_place);
      ASSERT_TRUE(st.is_ok() || st.code() == NC_ERANGE);
      if (n > 0) {
        EXPECT_EQ(std::memcmp(w.data(), out.data(), static_cast<size_t>(n * xsize)), 0);
      }
      expect_same(united(in_place), external_reference(out.data(), xtype, n), n, "in place");
    }
  }
}

template <class M>
void check_put_mem(nc_type mtype) {
#define EXA_CASE(code, type) check_put_pair<M>(mtype, code, true);
  EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
}

TEST(ValueRange, ToExternalEveryPair) {
#define EXA_CASE(code, type) check_put_mem<type>(code);
  EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
  // CDF-1/2: unsigned char into NC_BYTE is a raw copy (signed bytes stored).
  check_put_pair<unsigned char>(NC_UBYTE, NC_BYTE, false);
}

TEST(ValueRange, FillValueOfOutOfRangeElementsCounts) {
  const int in[] = {1, 300, 2};
  const signed char minus7 = -7;
  const auto fill = exa::convert::ErangeFill::value(&minus7, 1);
  signed char out[3];
  SegmentedRange s;
  EXPECT_EQ(exa::convert::to_external(in, NC_INT, NC_BYTE, 3, out, true, fill, &s).code(), NC_ERANGE);
  const ValueRange r = united(s);
  EXPECT_EQ(out[1], -7);
  ASSERT_TRUE(r.any);
  EXPECT_EQ(r.lo, -7.0L);
  EXPECT_EQ(r.hi, 2.0L);
}

TEST(ValueRange, SwapInPlaceTakesTheNativeValues) {
  std::vector<double> v = {3.0, -1.5, std::numeric_limits<double>::quiet_NaN(), 8.25};
  v.resize(5000, 0.5);
  std::vector<double> swapped = v;
  exa::convert::swap_bytes_in_place(swapped.data(), 8, 5000);
  SegmentedRange s(1, 4000);
  exa::convert::swap_to_external_in_place(v.data(), NC_DOUBLE, 5000, &s);
  ASSERT_EQ(s.segments().size(), 3u);  // [0, 1), [1, 4001), [4001, 5000)
  EXPECT_EQ(s.segments()[0].lo, 3.0L);
  EXPECT_EQ(s.segments()[0].hi, 3.0L);
  EXPECT_EQ(s.segments()[2].lo, 0.5L);
  EXPECT_EQ(s.segments()[2].hi, 0.5L);
  const ValueRange r = united(s);
  EXPECT_EQ(std::memcmp(v.data(), swapped.data(), v.size() * sizeof(double)), 0);
  EXPECT_TRUE(r.nan);
  EXPECT_EQ(r.lo, -1.5L);
  EXPECT_EQ(r.hi, 8.25L);
  EXPECT_EQ(r.n, 5000);
}

TEST(ValueRange, SegmentsSplitAtTheirBoundaries) {
  std::vector<int> v(21);
  for (int i = 0; i < 21; ++i) v[static_cast<size_t>(i)] = 100 - i;
  SegmentedRange s(3, 5);
  s.add_native(v.data(), NC_INT, 4);  // across the first boundary
  s.add_native(v.data() + 4, NC_INT, 17);
  ASSERT_EQ(s.segments().size(), 5u);
  const int bounds[5][2] = {{98, 100}, {93, 97}, {88, 92}, {83, 87}, {80, 82}};
  for (size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(s.segments()[k].lo, bounds[k][0]) << k;
    EXPECT_EQ(s.segments()[k].hi, bounds[k][1]) << k;
  }
  EXPECT_EQ(s.size(), 21);
  SegmentedRange one;  // no segmentation
  one.add_native(v.data(), NC_INT, 21);
  ASSERT_EQ(one.segments().size(), 1u);
  EXPECT_EQ(one.segments()[0].lo, 80);
}

}  // namespace
