// Conversion loops: one template instance per (source type, destination
// type, direction), chosen once per call by external.cpp. Each loop is a
// plain pass over the elements with unaligned loads/stores and byte swaps
// that the compiler can vectorize; range checks accumulate into a flag
// instead of branching.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "convert/byte_order.hpp"
#include "convert/range_rules.hpp"

namespace exa::convert {

// Elements per block of the floating -> integer loop: small enough that the
// check pass and the cast pass share the L1 cache.
inline constexpr int64_t kBlockElements = 512;

// Calls body(i) for i in [0, n): in groups of a fixed 16, then the rest.
// The fixed-count inner loop is what lets gcc vectorize at -O2 (its "very
// cheap" cost model refuses loops that need a remainder loop).
template <class Body>
inline void for_each_index(int64_t n, Body body) {
  constexpr int64_t kGroup = 16;
  int64_t i = 0;
  for (; i + kGroup <= n; i += kGroup)
    for (int64_t j = 0; j < kGroup; ++j) body(i + j);
  for (; i < n; ++i) body(i);
}

// Converts n values of S at `in` to D at `out`; returns whether any value
// gives NC_ERANGE. `in` and `out` must not overlap (external.cpp stages
// in-place calls through a block buffer).
template <class S, class D, Direction dir>
bool convert_values(const unsigned char* __restrict in, unsigned char* __restrict out,
                    int64_t n) {
  constexpr bool in_be = dir == Direction::get;
  constexpr bool out_be = dir == Direction::put;
  constexpr int64_t ss = sizeof(S);
  constexpr int64_t ds = sizeof(D);

  if constexpr (std::is_integral_v<S> && std::is_integral_v<D>) {
    unsigned bad = 0;
    for_each_index(n, [&](int64_t i) {
      S v = load<S, in_be>(in + i * ss);
      bad |= gives_erange<S, D, dir>(v);
      store<D, out_be>(out + i * ds, static_cast<D>(v));
    });
    return bad != 0;
  } else if constexpr (std::is_same_v<S, double> && std::is_same_v<D, float>) {
    unsigned bad = 0;
    for_each_index(n, [&](int64_t i) {
      double v = load<S, in_be>(in + i * ss);
      bad |= gives_erange<S, D, dir>(v);
      float f = dir == Direction::put ? static_cast<float>(v) : double_to_float_get(v);
      store<D, out_be>(out + i * ds, f);
    });
    return bad != 0;
  } else if constexpr (std::is_same_v<S, float> && std::is_same_v<D, double> &&
                       dir == Direction::put) {
    unsigned bad = 0;
    for_each_index(n, [&](int64_t i) {
      float v = load<S, in_be>(in + i * ss);
      bad |= gives_erange<S, D, dir>(v);
      store<D, out_be>(out + i * ds, static_cast<double>(v));
    });
    return bad != 0;
  } else if constexpr (std::is_floating_point_v<D>) {
    // integer -> floating, reading float -> double: always representable.
    for_each_index(n, [&](int64_t i) {
      store<D, out_be>(out + i * ds, static_cast<D>(load<S, in_be>(in + i * ss)));
    });
    return false;
  } else {
    // floating -> integer: check a block; if every value casts cleanly (the
    // usual case) cast it directly, else take the per-element defined path.
    bool bad = false;
    for (int64_t base = 0; base < n; base += kBlockElements) {
      const int64_t m = std::min(kBlockElements, n - base);
      const unsigned char* bin = in + base * ss;
      unsigned char* bout = out + base * ds;
      unsigned clean = 1;
      for_each_index(m, [&](int64_t i) {
        clean &= float_casts_cleanly<D>(static_cast<double>(load<S, in_be>(bin + i * ss)));
      });
      if (clean) {
        for_each_index(m, [&](int64_t i) {
          store<D, out_be>(bout + i * ds, static_cast<D>(load<S, in_be>(bin + i * ss)));
        });
        continue;
      }
      for (int64_t i = 0; i < m; ++i) {
        S v = load<S, in_be>(bin + i * ss);
        bad |= gives_erange<S, D, dir>(v);
        store<D, out_be>(bout + i * ds, float_to_int_defined<D>(static_cast<double>(v)));
      }
    }
    return bad;
  }
}

// Stores `fill` (a native D) over every element of `out` whose source gives
// NC_ERANGE. Called only after convert_values found one, so the in-range
// fast path pays nothing for it.
template <class S, class D, Direction dir>
void fill_out_of_range(const unsigned char* __restrict in, unsigned char* __restrict out,
                       int64_t n, const unsigned char* fill) {
  constexpr bool in_be = dir == Direction::get;
  constexpr bool out_be = dir == Direction::put;
  const D f = load<D, false>(fill);
  for (int64_t i = 0; i < n; ++i)
    if (gives_erange<S, D, dir>(load<S, in_be>(in + i * sizeof(S))))
      store<D, out_be>(out + i * sizeof(D), f);
}

// convert_values, then the fill value where an element gave NC_ERANGE
// (`fill` null: the converted values stay, exa_erange_fill=disable).
template <class S, class D, Direction dir>
bool convert_and_fill(const unsigned char* __restrict in, unsigned char* __restrict out,
                      int64_t n, const unsigned char* fill) {
  const bool bad = convert_values<S, D, dir>(in, out, n);
  if (bad && fill != nullptr) fill_out_of_range<S, D, dir>(in, out, n, fill);
  return bad;
}

}  // namespace exa::convert
