// Unit tests of the convert layer (src/convert): every memory/external type
// pair against an independent per-element reference model, big-endian bytes
// on disk, every NC_ERANGE rule, the unsigned char/NC_BYTE rule, in-place
// conversion, byte swapping and fill values. The model below is written from
// the rules in external.hpp (long double / __int128 arithmetic, truncate then
// saturate), not from the library's code; test_convert_oracle.cpp checks the
// rules themselves against the real PnetCDF.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "convert/external.hpp"
#include "convert/type_table.hpp"

namespace {

using exa::convert::check_convertible;
using exa::convert::default_fill_external;
using exa::convert::ErangeFill;
using exa::convert::from_external;
using exa::convert::native_size;
using exa::convert::swap_bytes_in_place;
using exa::convert::to_external;

using Bytes = std::vector<unsigned char>;

template <class T>
constexpr nc_type nc_type_of() {
#define EXA_CASE(code, type) \
  if constexpr (std::is_same_v<T, type>) return code;
  EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
  return NC_NAT;
}

const nc_type kNumeric[] = {NC_BYTE,  NC_SHORT,  NC_INT,  NC_FLOAT, NC_DOUBLE,
                            NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64};

// ---- byte helpers ------------------------------------------------------

template <class T>
Bytes be_bytes(T v) {  // big-endian image of v, computed byte by byte
  unsigned char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));
  Bytes b(sizeof(T));
  for (size_t i = 0; i < sizeof(T); ++i) b[i] = raw[sizeof(T) - 1 - i];
  return b;
}

template <class T>
Bytes be_array(const std::vector<T>& v) {
  Bytes out;
  for (T x : v) {
    Bytes b = be_bytes(x);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

template <class T>
T from_be(const unsigned char* p) {
  unsigned char raw[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) raw[i] = p[sizeof(T) - 1 - i];
  T v;
  std::memcpy(&v, raw, sizeof(T));
  return v;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
    return buf;
  } else if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<long long>(v));
  } else {
    return std::to_string(static_cast<unsigned long long>(v));
  }
}

// ---- reference model ----------------------------------------------------

// The value PnetCDF writes for NaN -> integer (x86-64 "integer indefinite").
template <class D>
D nan_bits() {
  if (sizeof(D) == 8) return static_cast<D>(0x8000000000000000ULL);
  if (sizeof(D) == 4 && std::is_signed_v<D>) return std::numeric_limits<D>::min();
  return 0;
}

// One element S -> D: the expected value and whether it is NC_ERANGE.
template <class S, class D>
D reference(S v, bool put, bool cdf5, bool* bad) {
  *bad = false;
  constexpr nc_type s_nc = nc_type_of<S>(), d_nc = nc_type_of<D>();
  const bool uchar_byte = put ? (s_nc == NC_UBYTE && d_nc == NC_BYTE)
                              : (s_nc == NC_BYTE && d_nc == NC_UBYTE);
  if constexpr (std::is_integral_v<S> && std::is_integral_v<D>) {
    __int128 w = v;
    if (!(uchar_byte && !cdf5))
      *bad = w < static_cast<__int128>(std::numeric_limits<D>::min()) ||
             w > static_cast<__int128>(std::numeric_limits<D>::max());
    return static_cast<D>(static_cast<unsigned __int128>(w));
  } else if constexpr (std::is_integral_v<D>) {
    long double x = v;
    if (std::isnan(x)) return nan_bits<D>();
    long double lo = std::is_signed_v<D> ? std::numeric_limits<D>::min() : 0;
    long double hi = static_cast<double>(std::numeric_limits<D>::max());  // PnetCDF's bound
    *bad = x > hi || x < lo;
    long double t = std::truncl(x);
    if (t > static_cast<long double>(std::numeric_limits<D>::max()))
      return std::numeric_limits<D>::max();
    if (t < static_cast<long double>(std::numeric_limits<D>::min()))
      return std::numeric_limits<D>::min();
    return static_cast<D>(t);
  } else if constexpr (std::is_integral_v<S> || std::is_same_v<S, D>) {
    return static_cast<D>(v);
  } else if constexpr (std::is_same_v<D, double>) {  // float -> double
    *bad = put && std::isinf(v);
    return v;
  } else {  // double -> float
    *bad = !std::isnan(v) && std::fabs(v) > FLT_MAX;
    if (*bad && !put) return std::copysign(FLT_MAX, static_cast<float>(v));
    return static_cast<float>(v);
  }
}

// What an NC_ERANGE element becomes, for each kind of ErangeFill.
enum class Fill { kDefault, kValue, kKeep };
constexpr int kValueFill = 42;  // a fill value every type holds

template <class D>
D default_fill() {
  unsigned char b[8];
  default_fill_external(nc_type_of<D>(), b);
  return from_be<D>(b);
}

template <class D>
ErangeFill erange_fill(Fill f) {
  if (f == Fill::kKeep) return ErangeFill::keep_converted();
  if (f == Fill::kDefault) return ErangeFill::type_default();
  Bytes x = be_bytes(static_cast<D>(kValueFill));
  return ErangeFill::value(x.data(), static_cast<int64_t>(x.size()));
}

// The element expected for S -> D: the reference, or the fill for NC_ERANGE.
template <class S, class D>
D expected(S v, bool put, bool cdf5, Fill f, bool* bad) {
  D value = reference<S, D>(v, put, cdf5, bad);
  if (!*bad || f == Fill::kKeep) return value;
  return f == Fill::kValue ? static_cast<D>(kValueFill) : default_fill<D>();
}

// ---- value sets ---------------------------------------------------------

// Boundary values of every type that T can hold: the limits of all types,
// +-1 around them, and for floating types halves, zeros, infinities, NaN,
// subnormals and the extremes of float and double.
template <class T>
std::vector<T> boundary_values() {
  std::vector<T> out;
  if constexpr (std::is_integral_v<T>) {
    const __int128 anchors[] = {0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
                                2147483647LL, 2147483648LL, 4294967295LL, 4294967296LL,
                                (static_cast<__int128>(1) << 53) + 1,
                                static_cast<__int128>(INT64_MAX),
                                static_cast<__int128>(INT64_MAX) + 1,
                                static_cast<__int128>(UINT64_MAX)};
    for (__int128 a : anchors)
      for (int sign : {1, -1})
        for (int d : {-1, 0, 1}) {
          __int128 w = sign * a + d;
          if (w >= static_cast<__int128>(std::numeric_limits<T>::min()) &&
              w <= static_cast<__int128>(std::numeric_limits<T>::max()))
            out.push_back(static_cast<T>(w));
        }
  } else {
    const long double anchors[] = {0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
                                   2147483520.0L, 2147483647, 2147483648.0L, 4294967040.0L,
                                   4294967295.0L, 4294967296.0L, 9223372036854774784.0L,
                                   9223372036854775808.0L, 18446744073709549568.0L,
                                   18446744073709551616.0L, 1e30L};
    for (long double a : anchors)
      for (long double d : {-1.0L, -0.5L, 0.0L, 0.5L, 1.0L})
        for (int sign : {1, -1}) out.push_back(static_cast<T>(sign * (a + d)));
    out.push_back(-0.0);
    for (double special : {static_cast<double>(FLT_MAX), 3.4028235677973366e38, 3.4028236e38,
                           1e39, DBL_MAX, static_cast<double>(FLT_MIN), 1e-40, 1e-45, 1e-46,
                           1e-310, 5e-324, static_cast<double>(INFINITY)}) {
      out.push_back(static_cast<T>(special));
      out.push_back(static_cast<T>(-special));
    }
    out.push_back(std::numeric_limits<T>::quiet_NaN());
    out.push_back(std::numeric_limits<T>::denorm_min());
    out.push_back(std::numeric_limits<T>::max());
    out.push_back(std::numeric_limits<T>::lowest());
  }
  return out;
}

// Random bit patterns (all values of small types, NaN payloads, subnormals).
template <class T>
std::vector<T> random_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> out(n);
  for (auto& v : out) {
    uint64_t bits = rng();
    std::memcpy(&v, &bits, sizeof(T));
  }
  return out;
}

// n values cycling through `base`, long enough to cross the 512-element
// blocks of the floating -> integer loops.
template <class T>
std::vector<T> cycle(const std::vector<T>& base, size_t n) {
  std::vector<T> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = base[(i * 7) % base.size()];
  return out;
}

// ---- pair checks --------------------------------------------------------

// to_external of `values` (memory M -> external X) against the reference.
template <class M, class X>
void check_put(const std::vector<M>& values, bool cdf5, Fill fill = Fill::kDefault) {
  Bytes out(values.size() * sizeof(X) + 1, 0xA5);
  // Offset by one byte: the kernels must not assume alignment.
  exa::Status st = to_external(values.data(), nc_type_of<M>(), nc_type_of<X>(),
                               static_cast<int64_t>(values.size()), out.data() + 1, cdf5,
                               erange_fill<X>(fill));
  bool any_bad = false;
  for (size_t i = 0; i < values.size(); ++i) {
    bool bad;
    X expect = expected<M, X>(values[i], true, cdf5, fill, &bad);
    any_bad |= bad;
    X got = from_be<X>(out.data() + 1 + i * sizeof(X));
    ASSERT_TRUE(same_bits(expect, got)) << "put " << nc_type_of<M>() << "->" << nc_type_of<X>()
                                        << " value " << show(values[i]) << " expected "
                                        << show(expect) << " got " << show(got);
  }
  EXPECT_EQ(out[0], 0xA5);
  EXPECT_EQ(st.code(), any_bad ? NC_ERANGE : NC_NOERR)
      << "put " << nc_type_of<M>() << "->" << nc_type_of<X>();
}

// from_external of `values` (external X -> memory M) against the reference.
template <class X, class M>
void check_get(const std::vector<X>& values, bool cdf5, Fill fill = Fill::kDefault) {
  Bytes in = be_array(values);
  in.insert(in.begin(), 0x5A);  // misalign the input
  std::vector<M> out(values.size());
  exa::Status st = from_external(in.data() + 1, nc_type_of<X>(), nc_type_of<M>(),
                                 static_cast<int64_t>(values.size()), out.data(), cdf5,
                                 erange_fill<M>(fill));
  bool any_bad = false;
  for (size_t i = 0; i < values.size(); ++i) {
    bool bad;
    M expect = expected<X, M>(values[i], false, cdf5, fill, &bad);
    any_bad |= bad;
    ASSERT_TRUE(same_bits(expect, out[i]))
        << "get " << nc_type_of<X>() << "->" << nc_type_of<M>() << " value " << show(values[i])
        << " expected " << show(expect) << " got " << show(out[i]);
  }
  EXPECT_EQ(st.code(), any_bad ? NC_ERANGE : NC_NOERR)
      << "get " << nc_type_of<X>() << "->" << nc_type_of<M>();
}

// Values of A the reference converts to B without NC_ERANGE: the fast paths.
template <class A, class B>
std::vector<A> clean_values(const std::vector<A>& in, bool put) {
  std::vector<A> out;
  for (A v : in) {
    bool bad;
    reference<A, B>(v, put, true, &bad);
    if (!bad) out.push_back(v);
  }
  return out;
}

template <class M, class X>
void check_pair() {
  SCOPED_TRACE(std::to_string(nc_type_of<M>()) + " <-> " + std::to_string(nc_type_of<X>()));
  for (bool cdf5 : {false, true}) {
    auto mb = boundary_values<M>();
    auto xb = boundary_values<X>();
    check_put<M, X>(mb, cdf5);
    check_get<X, M>(xb, cdf5);
    check_put<M, X>(cycle(mb, 1500), cdf5);
    check_get<X, M>(cycle(xb, 1500), cdf5);
    check_put<M, X>(random_values<M>(1100, 17 + nc_type_of<M>()), cdf5);
    check_get<X, M>(random_values<X>(1100, 31 + nc_type_of<X>()), cdf5);
    auto mc = clean_values<M, X>(cycle(mb, 1500), true);
    auto xc = clean_values<X, M>(cycle(xb, 1500), false);
    if (!mc.empty()) check_put<M, X>(mc, cdf5);
    if (!xc.empty()) check_get<X, M>(xc, cdf5);
    // The other ErangeFill kinds: a given value, and the converted value kept.
    for (Fill f : {Fill::kValue, Fill::kKeep}) {
      check_put<M, X>(cycle(mb, 1500), cdf5, f);
      check_get<X, M>(cycle(xb, 1500), cdf5, f);
    }
  }
}

template <class M>
void check_all_for_memory(nc_type xtype) {
  switch (xtype) {
#define EXA_CASE(code, type) \
  case code: check_pair<M, type>(); break;
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
  }
}

void check_all(nc_type mem, nc_type xtype) {
  switch (mem) {
#define EXA_CASE(code, type) \
  case code: check_all_for_memory<type>(xtype); break;
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
  }
}

class ConvertPair : public ::testing::TestWithParam<std::tuple<nc_type, nc_type>> {};

TEST_P(ConvertPair, MatchesReferenceModel) {
  check_all(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(AllNumeric, ConvertPair,
                         ::testing::Combine(::testing::ValuesIn(kNumeric),
                                            ::testing::ValuesIn(kNumeric)),
                         [](const auto& param_info) {
                           return "mem" + std::to_string(std::get<0>(param_info.param)) + "_x" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

// ---- exact round trips ----------------------------------------------------

// Values of M that X holds exactly come back bit for bit through put + get.
template <class M, class X>
void check_round_trip() {
  std::vector<M> values;
  for (M v : boundary_values<M>()) {
    if constexpr (std::is_floating_point_v<M>) {
      if (std::isnan(v)) continue;
    }
    bool bad;
    X x = reference<M, X>(v, true, true, &bad);
    bool back_bad;
    M back = reference<X, M>(x, false, true, &back_bad);
    if (!bad && !back_bad && same_bits(back, v)) values.push_back(v);
  }
  ASSERT_FALSE(values.empty());
  Bytes ext(values.size() * sizeof(X));
  std::vector<M> back(values.size());
  auto n = static_cast<int64_t>(values.size());
  ASSERT_EQ(to_external(values.data(), nc_type_of<M>(), nc_type_of<X>(), n, ext.data(), true)
                .code(),
            NC_NOERR);
  ASSERT_EQ(
      from_external(ext.data(), nc_type_of<X>(), nc_type_of<M>(), n, back.data(), true).code(),
      NC_NOERR);
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_TRUE(same_bits(values[i], back[i])) << show(values[i]) << " -> " << show(back[i]);
}

template <class M>
void round_trip_for_memory(nc_type xtype) {
  switch (xtype) {
#define EXA_CASE(code, type) \
  case code: check_round_trip<M, type>(); break;
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
  }
}

TEST(Convert, ExactRoundTripsAllPairs) {
  for (nc_type m : kNumeric)
    for (nc_type x : kNumeric) {
      SCOPED_TRACE(std::to_string(m) + " <-> " + std::to_string(x));
      switch (m) {
#define EXA_CASE(code, type) \
  case code: round_trip_for_memory<type>(x); break;
        EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
      }
    }
}

// ---- types and argument checks --------------------------------------------

TEST(Convert, NativeSizes) {
  EXPECT_EQ(native_size(NC_BYTE), 1);
  EXPECT_EQ(native_size(NC_CHAR), 1);
  EXPECT_EQ(native_size(NC_UBYTE), 1);
  EXPECT_EQ(native_size(NC_SHORT), 2);
  EXPECT_EQ(native_size(NC_USHORT), 2);
  EXPECT_EQ(native_size(NC_INT), 4);
  EXPECT_EQ(native_size(NC_UINT), 4);
  EXPECT_EQ(native_size(NC_FLOAT), 4);
  EXPECT_EQ(native_size(NC_DOUBLE), 8);
  EXPECT_EQ(native_size(NC_INT64), 8);
  EXPECT_EQ(native_size(NC_UINT64), 8);
  for (nc_type bad : {NC_NAT, NC_STRING, NC_VLEN, NC_COMPOUND, -1, 99})
    EXPECT_EQ(native_size(bad), 0) << bad;
}

TEST(Convert, CheckConvertibleAllPairs) {
  for (nc_type m = -1; m <= 13; ++m)
    for (nc_type x = -1; x <= 13; ++x) {
      bool m_ok = m >= NC_BYTE && m <= NC_UINT64, x_ok = x >= NC_BYTE && x <= NC_UINT64;
      int expect = !m_ok || !x_ok                    ? NC_EBADTYPE
                   : (m == NC_CHAR) != (x == NC_CHAR) ? NC_ECHAR
                                                      : NC_NOERR;
      EXPECT_EQ(check_convertible(m, x).code(), expect) << m << " " << x;
    }
}

TEST(Convert, RejectsBadArguments) {
  int v[4] = {1, 2, 3, 4};
  unsigned char out[32];
  EXPECT_EQ(to_external(v, NC_INT, NC_CHAR, 4, out).code(), NC_ECHAR);
  EXPECT_EQ(to_external("ab", NC_CHAR, NC_BYTE, 2, out).code(), NC_ECHAR);
  EXPECT_EQ(from_external(out, NC_CHAR, NC_INT, 1, v).code(), NC_ECHAR);
  EXPECT_EQ(from_external(out, NC_STRING, NC_INT, 1, v).code(), NC_EBADTYPE);
  EXPECT_EQ(to_external(v, 0, NC_INT, 1, out).code(), NC_EBADTYPE);
  EXPECT_EQ(to_external(v, NC_INT, NC_INT, -1, out).code(), NC_EINVAL);
  // Zero elements touch nothing, even through null pointers.
  EXPECT_EQ(to_external(nullptr, NC_INT, NC_DOUBLE, 0, nullptr).code(), NC_NOERR);
  EXPECT_EQ(from_external(nullptr, NC_DOUBLE, NC_INT, 0, nullptr).code(), NC_NOERR);
  // In place is only for equal sizes; partial overlap is refused.
  EXPECT_EQ(to_external(v, NC_INT, NC_DOUBLE, 2, v).code(), NC_EINVAL);
  unsigned char buf[64] = {};
  EXPECT_EQ(to_external(buf, NC_INT, NC_INT, 4, buf + 4).code(), NC_EINVAL);
  EXPECT_EQ(from_external(buf + 8, NC_SHORT, NC_INT, 4, buf).code(), NC_EINVAL);
  EXPECT_EQ(to_external(buf, NC_INT, NC_INT, 4, buf + 16).code(), NC_NOERR);  // adjacent
}

// ---- bytes on disk --------------------------------------------------------

template <class M>
Bytes put_one(M v, nc_type xtype, int* rc = nullptr,
              const ErangeFill& fill = ErangeFill::type_default()) {
  Bytes out(static_cast<size_t>(native_size(xtype)));
  int code = to_external(&v, nc_type_of<M>(), xtype, 1, out.data(), false, fill).code();
  if (rc) *rc = code;
  return out;
}

TEST(Convert, BigEndianBytes) {
  EXPECT_EQ(put_one<int>(0x01020304, NC_INT), (Bytes{1, 2, 3, 4}));
  EXPECT_EQ(put_one<int>(-2, NC_INT), (Bytes{0xff, 0xff, 0xff, 0xfe}));
  EXPECT_EQ(put_one<short>(-2, NC_SHORT), (Bytes{0xff, 0xfe}));
  EXPECT_EQ(put_one<int>(-2, NC_SHORT), (Bytes{0xff, 0xfe}));
  EXPECT_EQ(put_one<signed char>(-1, NC_INT), (Bytes{0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(put_one<unsigned char>(200, NC_SHORT), (Bytes{0x00, 0xc8}));
  EXPECT_EQ(put_one<unsigned short>(0xABCD, NC_USHORT), (Bytes{0xab, 0xcd}));
  EXPECT_EQ(put_one<float>(1.0f, NC_FLOAT), (Bytes{0x3f, 0x80, 0, 0}));
  EXPECT_EQ(put_one<float>(-2.5f, NC_FLOAT), (Bytes{0xc0, 0x20, 0, 0}));
  EXPECT_EQ(put_one<double>(1.0, NC_DOUBLE), (Bytes{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(put_one<int>(3, NC_DOUBLE), (Bytes{0x40, 0x08, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(put_one<double>(-0.0, NC_DOUBLE), (Bytes{0x80, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(put_one<float>(-0.0f, NC_INT), (Bytes{0, 0, 0, 0}));
  EXPECT_EQ(put_one<long long>(0x0102030405060708LL, NC_INT64),
            (Bytes{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(put_one<unsigned long long>(UINT64_MAX - 1, NC_UINT64),
            (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}));
  EXPECT_EQ(put_one<double>(1.5, NC_FLOAT), (Bytes{0x3f, 0xc0, 0, 0}));
  EXPECT_EQ(put_one<float>(1.5f, NC_DOUBLE), (Bytes{0x3f, 0xf8, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(put_one<double>(-7.9, NC_BYTE), (Bytes{0xf9}));  // truncation toward zero

  const unsigned char ext_int[] = {0x80, 0, 0, 1};
  int got = 0;
  ASSERT_EQ(from_external(ext_int, NC_INT, NC_INT, 1, &got).code(), NC_NOERR);
  EXPECT_EQ(got, INT32_MIN + 1);
  const unsigned char ext_double[] = {0xc0, 0x5e, 0xdd, 0x2f, 0x1a, 0x9f, 0xbe, 0x77};
  double d = 0;
  ASSERT_EQ(from_external(ext_double, NC_DOUBLE, NC_DOUBLE, 1, &d).code(), NC_NOERR);
  EXPECT_EQ(d, -123.456);
  short s = 0;
  EXPECT_EQ(from_external(ext_double, NC_DOUBLE, NC_SHORT, 1, &s).code(), NC_NOERR);
  EXPECT_EQ(s, -123);
}

TEST(Convert, TextIsCopied) {
  const char text[] = "hello, \xff world";
  char ext[sizeof text] = {};
  ASSERT_EQ(to_external(text, NC_CHAR, NC_CHAR, sizeof text, ext).code(), NC_NOERR);
  EXPECT_EQ(std::memcmp(text, ext, sizeof text), 0);
  char back[sizeof text] = {};
  ASSERT_EQ(from_external(ext, NC_CHAR, NC_CHAR, sizeof text, back).code(), NC_NOERR);
  EXPECT_EQ(std::memcmp(text, back, sizeof text), 0);
}

// ---- range rules ------------------------------------------------------------

// One value put (memory M) into external xtype: its return code.
template <class M>
int put_code(M v, nc_type xtype) {
  int rc;
  put_one(v, xtype, &rc);
  return rc;
}

// One external value (type X, given natively) read as memory mem: its code.
template <class X>
int get_code(X v, nc_type mem) {
  Bytes in = be_bytes(v);
  unsigned char out[8];
  return from_external(in.data(), nc_type_of<X>(), mem, 1, out).code();
}

TEST(Convert, ErangeIntegerCases) {
  EXPECT_EQ(put_code<int>(128, NC_BYTE), NC_ERANGE);
  EXPECT_EQ(put_code<int>(-129, NC_BYTE), NC_ERANGE);
  EXPECT_EQ(put_code<int>(127, NC_BYTE), NC_NOERR);
  EXPECT_EQ(put_code<int>(-128, NC_BYTE), NC_NOERR);
  EXPECT_EQ(put_code<int>(256, NC_UBYTE), NC_ERANGE);
  EXPECT_EQ(put_code<int>(-1, NC_UBYTE), NC_ERANGE);
  EXPECT_EQ(put_code<signed char>(-1, NC_UBYTE), NC_ERANGE);
  EXPECT_EQ(put_code<signed char>(-1, NC_USHORT), NC_ERANGE);
  EXPECT_EQ(put_code<signed char>(-1, NC_UINT), NC_ERANGE);
  EXPECT_EQ(put_code<signed char>(-1, NC_UINT64), NC_ERANGE);
  EXPECT_EQ(put_code<int>(32768, NC_SHORT), NC_ERANGE);
  EXPECT_EQ(put_code<int>(65536, NC_USHORT), NC_ERANGE);
  EXPECT_EQ(put_code<unsigned>(2147483648u, NC_INT), NC_ERANGE);
  EXPECT_EQ(put_code<int>(-1, NC_UINT), NC_ERANGE);
  EXPECT_EQ(put_code<long long>(4294967296LL, NC_UINT), NC_ERANGE);
  EXPECT_EQ(put_code<long long>(-2147483649LL, NC_INT), NC_ERANGE);
  EXPECT_EQ(put_code<unsigned long long>(1ULL << 63, NC_INT64), NC_ERANGE);
  EXPECT_EQ(put_code<long long>(-1, NC_UINT64), NC_ERANGE);
  EXPECT_EQ(put_code<unsigned short>(32768, NC_SHORT), NC_ERANGE);
  EXPECT_EQ(put_code<short>(-1, NC_USHORT), NC_ERANGE);
  EXPECT_EQ(get_code<unsigned char>(255, NC_BYTE), NC_ERANGE);
  EXPECT_EQ(get_code<short>(-1, NC_UBYTE), NC_ERANGE);
  EXPECT_EQ(get_code<int>(70000, NC_USHORT), NC_ERANGE);
  EXPECT_EQ(get_code<unsigned>(4294967295u, NC_INT), NC_ERANGE);
  EXPECT_EQ(get_code<long long>(INT64_MIN, NC_UINT64), NC_ERANGE);
  EXPECT_EQ(get_code<unsigned long long>(UINT64_MAX, NC_INT64), NC_ERANGE);
  EXPECT_EQ(get_code<unsigned long long>(UINT64_MAX, NC_DOUBLE), NC_NOERR);
  EXPECT_EQ(get_code<long long>(INT64_MIN, NC_FLOAT), NC_NOERR);
  // The fill value is written for an out-of-range integer (PnetCDF's
  // erange-fill): the type's default, or the one given; keep_converted()
  // writes the C cast (modular).
  EXPECT_EQ(put_one<int>(300, NC_UBYTE), (Bytes{0xff}));
  EXPECT_EQ(put_one<int>(40000, NC_SHORT), be_bytes<short>(NC_FILL_SHORT));
  const Bytes minus99 = be_bytes<short>(-99);
  EXPECT_EQ(put_one<int>(40000, NC_SHORT, nullptr, ErangeFill::value(minus99.data(), 2)), minus99);
  // A fill value of another size than the type's: the type's default.
  EXPECT_EQ(put_one<int>(40000, NC_SHORT, nullptr, ErangeFill::value(minus99.data(), 1)),
            be_bytes<short>(NC_FILL_SHORT));
  const ErangeFill keep = ErangeFill::keep_converted();
  EXPECT_EQ(put_one<int>(300, NC_UBYTE, nullptr, keep), (Bytes{44}));
  EXPECT_EQ(put_one<int>(-1, NC_USHORT, nullptr, keep), (Bytes{0xff, 0xff}));
  EXPECT_EQ(put_one<int>(40000, NC_SHORT, nullptr, keep), be_bytes<short>(-25536));
  short s = 0;
  Bytes big = be_bytes<int>(70000);
  EXPECT_EQ(from_external(big.data(), NC_INT, NC_SHORT, 1, &s).code(), NC_ERANGE);
  EXPECT_EQ(s, NC_FILL_SHORT);
  EXPECT_EQ(from_external(big.data(), NC_INT, NC_SHORT, 1, &s, false, keep).code(), NC_ERANGE);
  EXPECT_EQ(s, 4464);
}

TEST(Convert, ErangeFloatingCases) {
  // float/double -> integer: strict comparison with the limits, in double.
  EXPECT_EQ(put_code<float>(127.0f, NC_BYTE), NC_NOERR);
  EXPECT_EQ(put_code<float>(127.5f, NC_BYTE), NC_ERANGE);
  EXPECT_EQ(put_code<float>(-128.5f, NC_BYTE), NC_ERANGE);
  EXPECT_EQ(put_code<double>(-0.5, NC_UBYTE), NC_ERANGE);  // < 0 for unsigned
  EXPECT_EQ(put_code<double>(-0.0, NC_UBYTE), NC_NOERR);
  EXPECT_EQ(put_code<double>(2147483647.0, NC_INT), NC_NOERR);
  EXPECT_EQ(put_code<double>(2147483647.5, NC_INT), NC_ERANGE);
  EXPECT_EQ(put_code<float>(2147483648.0f, NC_INT), NC_ERANGE);
  EXPECT_EQ(put_code<double>(4294967295.5, NC_UINT), NC_ERANGE);
  EXPECT_EQ(put_code<double>(1e300, NC_INT64), NC_ERANGE);
  EXPECT_EQ(put_code<double>(-1e300, NC_UINT64), NC_ERANGE);
  EXPECT_EQ(put_code<float>(INFINITY, NC_SHORT), NC_ERANGE);
  EXPECT_EQ(put_code<float>(-INFINITY, NC_INT64), NC_ERANGE);
  EXPECT_EQ(get_code<float>(1e10f, NC_INT), NC_ERANGE);
  EXPECT_EQ(get_code<double>(-1.0, NC_UINT), NC_ERANGE);
  EXPECT_EQ(get_code<double>(65535.5, NC_USHORT), NC_ERANGE);
  EXPECT_EQ(get_code<double>(INFINITY, NC_UBYTE), NC_ERANGE);
  // double -> float beyond FLT_MAX (infinities too); NaN and underflow are fine.
  EXPECT_EQ(put_code<double>(1e39, NC_FLOAT), NC_ERANGE);
  EXPECT_EQ(put_code<double>(-3.4028236e38, NC_FLOAT), NC_ERANGE);
  EXPECT_EQ(put_code<double>(INFINITY, NC_FLOAT), NC_ERANGE);
  EXPECT_EQ(put_code<double>(FLT_MAX, NC_FLOAT), NC_NOERR);
  EXPECT_EQ(put_code<double>(NAN, NC_FLOAT), NC_NOERR);
  EXPECT_EQ(put_code<double>(1e-310, NC_FLOAT), NC_NOERR);
  EXPECT_EQ(get_code<double>(-1e39, NC_FLOAT), NC_ERANGE);
  EXPECT_EQ(get_code<double>(-INFINITY, NC_FLOAT), NC_ERANGE);
  EXPECT_EQ(get_code<double>(DBL_MAX, NC_DOUBLE), NC_NOERR);
  // float -> double: only the infinities, and only when writing.
  EXPECT_EQ(put_code<float>(INFINITY, NC_DOUBLE), NC_ERANGE);
  EXPECT_EQ(put_code<float>(FLT_MAX, NC_DOUBLE), NC_NOERR);
  EXPECT_EQ(get_code<float>(INFINITY, NC_DOUBLE), NC_NOERR);
  EXPECT_EQ(put_code<float>(INFINITY, NC_FLOAT), NC_NOERR);
  // NaN is never NC_ERANGE (PnetCDF's comparisons are false for it).
  for (nc_type x : kNumeric) {
    EXPECT_EQ(put_code<float>(NAN, x), NC_NOERR) << x;
    EXPECT_EQ(put_code<double>(NAN, x), NC_NOERR) << x;
    EXPECT_EQ(get_code<double>(NAN, x), NC_NOERR) << x;
  }
  // Exactly 2^63 / 2^64: (double)MAX equals them, so PnetCDF lets them pass.
  EXPECT_EQ(put_code<double>(9223372036854775808.0, NC_INT64), NC_NOERR);
  EXPECT_EQ(put_code<double>(18446744073709551616.0, NC_UINT64), NC_NOERR);
  EXPECT_EQ(put_code<double>(18446744073709551616.0, NC_INT64), NC_ERANGE);
  EXPECT_EQ(put_code<double>(-9223372036854775808.0, NC_INT64), NC_NOERR);
}

TEST(Convert, DefinedValuesWhereTheCastIsUndefined) {
  // Out of range: the fill value; the converted value kept is saturated.
  const ErangeFill keep = ErangeFill::keep_converted();
  EXPECT_EQ(put_one<double>(1e10, NC_INT), be_bytes<int>(NC_FILL_INT));
  EXPECT_EQ(put_one<float>(INFINITY, NC_INT), be_bytes<int>(NC_FILL_INT));
  EXPECT_EQ(put_one<double>(1e10, NC_INT, nullptr, keep), be_bytes<int>(INT32_MAX));
  EXPECT_EQ(put_one<double>(-1e10, NC_INT, nullptr, keep), be_bytes<int>(INT32_MIN));
  EXPECT_EQ(put_one<float>(-INFINITY, NC_UINT, nullptr, keep), be_bytes<unsigned>(0));
  EXPECT_EQ(put_one<double>(1e300, NC_UINT64, nullptr, keep),
            be_bytes<unsigned long long>(UINT64_MAX));
  EXPECT_EQ(put_one<double>(9223372036854775808.0, NC_INT64), be_bytes<long long>(INT64_MAX));
  EXPECT_EQ(put_one<double>(18446744073709551616.0, NC_UINT64),
            be_bytes<unsigned long long>(UINT64_MAX));
  // NaN: what PnetCDF writes on x86-64.
  EXPECT_EQ(put_one<float>(NAN, NC_INT), be_bytes<int>(INT32_MIN));
  EXPECT_EQ(put_one<float>(NAN, NC_SHORT), be_bytes<short>(0));
  EXPECT_EQ(put_one<double>(NAN, NC_UINT), be_bytes<unsigned>(0));
  EXPECT_EQ(put_one<double>(NAN, NC_INT64), be_bytes<long long>(INT64_MIN));
  EXPECT_EQ(put_one<double>(NAN, NC_UINT64), be_bytes<unsigned long long>(1ULL << 63));
  // Reading 2^63 into long long gives LLONG_MAX without error, as in PnetCDF.
  long long ll = 0;
  Bytes two63 = be_bytes(9223372036854775808.0);
  EXPECT_EQ(from_external(two63.data(), NC_DOUBLE, NC_INT64, 1, &ll).code(), NC_NOERR);
  EXPECT_EQ(ll, INT64_MAX);
  // double -> float: the fill value; kept, put writes the cast (inf), get
  // writes +-FLT_MAX. float +-inf -> double (put): the fill value.
  EXPECT_EQ(put_one<double>(1e39, NC_FLOAT), be_bytes<float>(NC_FILL_FLOAT));
  EXPECT_EQ(put_one<double>(1e39, NC_FLOAT, nullptr, keep), be_bytes<float>(INFINITY));
  EXPECT_EQ(put_one<float>(-INFINITY, NC_DOUBLE), be_bytes<double>(NC_FILL_DOUBLE));
  float f = 0;
  Bytes big = be_bytes(-1e39);
  EXPECT_EQ(from_external(big.data(), NC_DOUBLE, NC_FLOAT, 1, &f).code(), NC_ERANGE);
  EXPECT_EQ(f, NC_FILL_FLOAT);
  EXPECT_EQ(from_external(big.data(), NC_DOUBLE, NC_FLOAT, 1, &f, false, keep).code(), NC_ERANGE);
  EXPECT_EQ(f, -FLT_MAX);
}

TEST(Convert, ErangeReportedOnceAndOtherElementsExact) {
  std::vector<double> v(2000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) - 1000.5;
  v[1500] = 1e20;  // one bad element in the third block
  Bytes out(v.size() * 4);
  EXPECT_EQ(to_external(v.data(), NC_DOUBLE, NC_INT, 2000, out.data()).code(), NC_ERANGE);
  for (size_t i = 0; i < v.size(); ++i) {
    int expect = i == 1500 ? NC_FILL_INT : static_cast<int>(v[i]);
    ASSERT_EQ(from_be<int>(out.data() + 4 * i), expect) << i;
  }
  EXPECT_EQ(to_external(v.data(), NC_DOUBLE, NC_INT, 2000, out.data(), false,
                        ErangeFill::keep_converted())
                .code(),
            NC_ERANGE);
  EXPECT_EQ(from_be<int>(out.data() + 4 * 1500), INT32_MAX);
  EXPECT_EQ(from_be<int>(out.data() + 4 * 1499), 498);
  // In place (staged through blocks): the fill lands in the right block.
  std::vector<int> w(1300, 5);
  w[700] = 70000;
  EXPECT_EQ(to_external(w.data(), NC_INT, NC_FLOAT, 1300, w.data()).code(), NC_NOERR);
  std::vector<int> x(1300, 5);
  x[1100] = 70000;
  std::vector<unsigned char> xs(1300 * 2);
  EXPECT_EQ(to_external(x.data(), NC_INT, NC_SHORT, 1300, xs.data()).code(), NC_ERANGE);
  EXPECT_EQ(from_be<short>(xs.data() + 2 * 1100), NC_FILL_SHORT);
  EXPECT_EQ(from_be<short>(xs.data() + 2 * 1101), 5);
  std::vector<unsigned> y(1300, 5);
  y[1100] = 3000000000u;
  EXPECT_EQ(to_external(y.data(), NC_UINT, NC_INT, 1300, y.data()).code(), NC_ERANGE);
  const auto* yb = reinterpret_cast<const unsigned char*>(y.data());
  EXPECT_EQ(from_be<int>(yb + 4 * 1100), NC_FILL_INT);
  EXPECT_EQ(from_be<int>(yb + 4 * 1099), 5);
}

TEST(Convert, UnsignedCharAndByteRule) {
  const unsigned char u[] = {0, 1, 127, 128, 200, 255};
  unsigned char ext[6];
  // CDF-1/2 (and the overload without the flag): raw bytes, no NC_ERANGE.
  EXPECT_EQ(to_external(u, NC_UBYTE, NC_BYTE, 6, ext).code(), NC_NOERR);
  EXPECT_EQ(std::memcmp(u, ext, 6), 0);
  EXPECT_EQ(to_external(u, NC_UBYTE, NC_BYTE, 6, ext, false).code(), NC_NOERR);
  // CDF-5: NC_BYTE is signed, 128..255 are out of range: the fill value
  // (kept converted: the bytes unchanged).
  std::memset(ext, 0, 6);
  EXPECT_EQ(to_external(u, NC_UBYTE, NC_BYTE, 6, ext, true).code(), NC_ERANGE);
  EXPECT_EQ(ext[2], 127);
  EXPECT_EQ(ext[3], 0x81);
  EXPECT_EQ(ext[5], 0x81);
  EXPECT_EQ(to_external(u, NC_UBYTE, NC_BYTE, 6, ext, true, ErangeFill::keep_converted()).code(),
            NC_ERANGE);
  EXPECT_EQ(std::memcmp(u, ext, 6), 0);
  EXPECT_EQ(to_external(u, NC_UBYTE, NC_BYTE, 3, ext, true).code(), NC_NOERR);
  // Reading NC_BYTE into unsigned char: the mirror rule.
  unsigned char back[6];
  EXPECT_EQ(from_external(u, NC_BYTE, NC_UBYTE, 6, back).code(), NC_NOERR);
  EXPECT_EQ(std::memcmp(u, back, 6), 0);
  EXPECT_EQ(from_external(u, NC_BYTE, NC_UBYTE, 6, back, true).code(), NC_ERANGE);
  const unsigned char filled[] = {0, 1, 127, 255, 255, 255};
  EXPECT_EQ(std::memcmp(filled, back, 6), 0);
  // Only unsigned char memory is special: signed char -> NC_UBYTE checks always.
  const signed char s[] = {-1};
  EXPECT_EQ(to_external(s, NC_BYTE, NC_UBYTE, 1, ext, false).code(), NC_ERANGE);
  // unsigned char -> other types is an ordinary conversion in every format.
  unsigned char shorts[12];
  EXPECT_EQ(to_external(u, NC_UBYTE, NC_SHORT, 6, shorts, false).code(), NC_NOERR);
  EXPECT_EQ(from_be<short>(shorts + 10), 255);
  EXPECT_EQ(from_external(u, NC_UBYTE, NC_BYTE, 6, back, false).code(), NC_ERANGE);
}

// ---- in place ---------------------------------------------------------------

template <class M, class X>
void check_in_place(size_t n) {
  static_assert(sizeof(M) == sizeof(X));
  std::vector<M> values = cycle(boundary_values<M>(), n);
  Bytes expect(n * sizeof(X));
  int rc = to_external(values.data(), nc_type_of<M>(), nc_type_of<X>(),
                       static_cast<int64_t>(n), expect.data(), true)
               .code();
  std::vector<M> buf = values;
  EXPECT_EQ(to_external(buf.data(), nc_type_of<M>(), nc_type_of<X>(), static_cast<int64_t>(n),
                        buf.data(), true)
                .code(),
            rc);
  EXPECT_EQ(std::memcmp(buf.data(), expect.data(), expect.size()), 0);
  // And back, in place, compared with the out-of-place result.
  std::vector<M> back(n);
  int rc_back = from_external(expect.data(), nc_type_of<X>(), nc_type_of<M>(),
                              static_cast<int64_t>(n), back.data(), true)
                    .code();
  EXPECT_EQ(from_external(buf.data(), nc_type_of<X>(), nc_type_of<M>(), static_cast<int64_t>(n),
                          buf.data(), true)
                .code(),
            rc_back);
  EXPECT_EQ(std::memcmp(buf.data(), back.data(), n * sizeof(M)), 0);
}

TEST(Convert, InPlaceEqualSizes) {
  for (size_t n : {size_t{1}, size_t{511}, size_t{512}, size_t{1537}}) {
    check_in_place<int, float>(n);
    check_in_place<float, int>(n);
    check_in_place<float, unsigned>(n);
    check_in_place<unsigned, int>(n);
    check_in_place<int, int>(n);
    check_in_place<double, long long>(n);
    check_in_place<unsigned long long, double>(n);
    check_in_place<long long, unsigned long long>(n);
    check_in_place<double, double>(n);
    check_in_place<short, unsigned short>(n);
    check_in_place<unsigned char, signed char>(n);
    check_in_place<signed char, signed char>(n);
  }
}

// ---- swap and fill --------------------------------------------------------

TEST(Convert, SwapBytesInPlace) {
  for (int64_t size : {1, 2, 3, 4, 8, 16}) {
    for (int64_t n : {0, 1, 7, 1000}) {
      Bytes buf(static_cast<size_t>(size * n + 1));
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<unsigned char>(i * 37 + 1);
      Bytes orig = buf;
      swap_bytes_in_place(buf.data() + 1, size, n);  // unaligned on purpose
      EXPECT_EQ(buf[0], orig[0]);
      for (int64_t e = 0; e < n; ++e)
        for (int64_t b = 0; b < size; ++b)
          ASSERT_EQ(buf[1 + e * size + b], orig[1 + e * size + (size - 1 - b)])
              << size << " " << n << " " << e << " " << b;
      swap_bytes_in_place(buf.data() + 1, size, n);
      EXPECT_EQ(buf, orig);
    }
  }
}

TEST(Convert, DefaultFillExternal) {
  auto fill = [](nc_type t) {
    Bytes b(static_cast<size_t>(native_size(t)));
    default_fill_external(t, b.data());
    return b;
  };
  EXPECT_EQ(fill(NC_BYTE), (Bytes{0x81}));
  EXPECT_EQ(fill(NC_CHAR), (Bytes{0x00}));
  EXPECT_EQ(fill(NC_SHORT), (Bytes{0x80, 0x01}));
  EXPECT_EQ(fill(NC_INT), (Bytes{0x80, 0x00, 0x00, 0x01}));
  EXPECT_EQ(fill(NC_FLOAT), (Bytes{0x7c, 0xf0, 0x00, 0x00}));
  EXPECT_EQ(fill(NC_DOUBLE), (Bytes{0x47, 0x9e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}));
  EXPECT_EQ(fill(NC_UBYTE), (Bytes{0xff}));
  EXPECT_EQ(fill(NC_USHORT), (Bytes{0xff, 0xff}));
  EXPECT_EQ(fill(NC_UINT), (Bytes{0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(fill(NC_INT64), (Bytes{0x80, 0, 0, 0, 0, 0, 0, 0x02}));
  EXPECT_EQ(fill(NC_UINT64), (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}));
  unsigned char untouched[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  default_fill_external(NC_STRING, untouched);
  EXPECT_EQ(untouched[0], 1);
  // The fill values read back as the NC_FILL_* constants.
  float f;
  Bytes ff = fill(NC_FLOAT);
  ASSERT_EQ(from_external(ff.data(), NC_FLOAT, NC_FLOAT, 1, &f).code(), NC_NOERR);
  EXPECT_EQ(f, NC_FILL_FLOAT);
  long long ll;
  Bytes fl = fill(NC_INT64);
  ASSERT_EQ(from_external(fl.data(), NC_INT64, NC_INT64, 1, &ll).code(), NC_NOERR);
  EXPECT_EQ(ll, NC_FILL_INT64);
}

}  // namespace
