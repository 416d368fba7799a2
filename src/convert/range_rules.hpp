// Element rules for converting one value, as PnetCDF 1.12.3 applies them
// (src/drivers/common/ncx.m4, the same rules as netCDF-C): when a value gives
// NC_ERANGE, and which value is written. Kept apart from the loops so the
// rules can be read, and tested, in one place. See external.hpp for the list.
// Where an element gives NC_ERANGE, PnetCDF (erange-fill, Debian's build)
// stores a fill value instead; the loops write the values below and
// external.cpp replaces the NC_ERANGE elements afterwards (gives_erange).
#pragma once

#include <cfloat>
#include <limits>
#include <type_traits>
#include <utility>

namespace exa::convert {

// put: memory (native order) -> external (big-endian); get: the reverse.
enum class Direction { put, get };

// Integer -> integer: NC_ERANGE when the value is not in D (the written value
// is the C cast, which C++20 defines as modular).
template <class D, class S>
inline bool int_out_of_range(S v) {
  return !std::in_range<D>(v);
}

// Floating -> integer I. PnetCDF compares in double against (double)MAX and
// (double)MIN (0 for unsigned). (double)MAX rounds up to 2^63 / 2^64 for the
// 64-bit types, so exactly 2^63 -> int64 and 2^64 -> uint64 are not NC_ERANGE
// although no int64/uint64 holds them.
template <class I>
struct FloatToIntBounds {
  static constexpr double lo =
      std::is_signed_v<I> ? static_cast<double>(std::numeric_limits<I>::min()) : 0.0;
  static constexpr double hi = static_cast<double>(std::numeric_limits<I>::max());
  // 2^digits: the first value past MAX, exact in double. A cast of any d with
  // lo <= d < hi_excl is defined.
  static constexpr double hi_excl =
      2.0 * static_cast<double>(std::numeric_limits<I>::max() / 2 + 1);
};

template <class I>
inline bool float_out_of_range(double d) {
  using B = FloatToIntBounds<I>;
  return d > B::hi || d < B::lo;  // NaN compares false: never NC_ERANGE
}

// True when the plain C cast is defined and PnetCDF reports no NC_ERANGE:
// the common case, which the loops check per block before casting directly.
template <class I>
inline bool float_casts_cleanly(double d) {
  using B = FloatToIntBounds<I>;
  return (d >= B::lo) & (d <= B::hi) & (d < B::hi_excl);
}

// The bytes PnetCDF (gcc, x86-64) writes for NaN, which it converts without
// NC_ERANGE: cvttss2si gives the "integer indefinite" 0x80..0; narrower types
// keep its low bits (0), uint32 the low half of the 64-bit result (0).
template <class I>
constexpr I nan_result() {
  if constexpr (sizeof(I) == 8) return static_cast<I>(1ULL << 63);
  else if constexpr (sizeof(I) == 4 && std::is_signed_v<I>) return std::numeric_limits<I>::min();
  else return 0;
}

// A defined result for every d, for the values where the C cast is undefined:
// NaN as PnetCDF writes it, out-of-range values (NC_ERANGE, or exactly
// 2^63/2^64 in the 64-bit types) saturated to MIN/MAX.
template <class I>
inline I float_to_int_defined(double d) {
  using B = FloatToIntBounds<I>;
  if (d != d) return nan_result<I>();
  if (d >= B::hi_excl) return std::numeric_limits<I>::max();
  if (d < B::lo) return std::numeric_limits<I>::min();
  return static_cast<I>(d);
}

// Writing memory float -> external double: PnetCDF checks the value against
// +-DBL_MAX, which only the infinities exceed, so +-inf is NC_ERANGE (the
// written value is still +-inf). Reading float -> double has no check.
inline bool float_to_double_put_out_of_range(float f) {
  double d = f;
  return (d > DBL_MAX) | (d < -DBL_MAX);
}

// Double -> float: NC_ERANGE beyond +-FLT_MAX (infinities included, NaN not).
inline bool double_to_float_out_of_range(double d) { return (d > FLT_MAX) | (d < -FLT_MAX); }

// Reading (external double -> memory float) PnetCDF writes +-FLT_MAX for an
// out-of-range value; writing (memory double -> external float) it writes the
// C cast, +-inf or the nearest float.
inline float double_to_float_get(double d) {
  return d > FLT_MAX ? FLT_MAX : d < -FLT_MAX ? -FLT_MAX : static_cast<float>(d);
}

// The one rule: whether converting v (S -> D, in direction dir) gives
// NC_ERANGE. The loops check with these same predicates.
template <class S, class D, Direction dir>
inline bool gives_erange(S v) {
  if constexpr (std::is_integral_v<S> && std::is_integral_v<D>) {
    return int_out_of_range<D>(v);
  } else if constexpr (std::is_same_v<S, double> && std::is_same_v<D, float>) {
    return double_to_float_out_of_range(v);
  } else if constexpr (std::is_same_v<S, float> && std::is_same_v<D, double>) {
    return dir == Direction::put && float_to_double_put_out_of_range(v);
  } else if constexpr (std::is_floating_point_v<D>) {
    return false;  // integer -> floating, same floating type
  } else {
    return float_out_of_range<D>(static_cast<double>(v));
  }
}

}  // namespace exa::convert
