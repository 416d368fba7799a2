#include "query/predicate.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "query/types.hpp"

namespace exa::query {

// Every value of the 10 types, and every constant, is exact as a long double
// only with a 64-bit mantissa (x86-64's 80-bit format, aarch64's quad).
static_assert(std::numeric_limits<long double>::digits >= 64,
              "exact comparison needs a long double holding every 64-bit integer");

bool valid_op(int op) { return op >= 1 && op <= 6; }

bool numeric_type(int type) { return type != NC_CHAR && with_type(type, [](auto) {}); }

int type_size(int type) {
  int size = 0;
  if (!with_type(type, [&](auto t) { size = static_cast<int>(sizeof(t)); })) return 0;
  return size;
}

long double Constant::value() const {
  long double v = 0;
  if (!with_type(type, [&](auto t) {
        decltype(t) x;
        std::memcpy(&x, bytes, sizeof x);
        v = static_cast<long double>(x);
      }))
    return std::numeric_limits<long double>::quiet_NaN();
  return v;
}

namespace {

Normalized make(Test t, long double b = 0) { return Normalized{t, b}; }

// `v <= b` / `v >= a` on an integer type whose range is [lo, hi].
Normalized int_le(long double b, long double lo, long double hi) {
  if (b < lo) return make(Test::kNone);
  if (b >= hi) return make(Test::kAll);
  return make(Test::kLe, b);
}
Normalized int_ge(long double a, long double lo, long double hi) {
  if (a > hi) return make(Test::kNone);
  if (a <= lo) return make(Test::kAll);
  return make(Test::kGe, a);
}

template <typename T>
Normalized normalize_int(Op op, long double c) {
  const long double lo = static_cast<long double>(std::numeric_limits<T>::min());
  const long double hi = static_cast<long double>(std::numeric_limits<T>::max());
  const bool integral_in_range = std::floor(c) == c && c >= lo && c <= hi;
  switch (op) {
    case Op::kLt: return int_le(std::ceil(c) - 1, lo, hi);
    case Op::kLe: return int_le(std::floor(c), lo, hi);
    case Op::kGt: return int_ge(std::floor(c) + 1, lo, hi);
    case Op::kGe: return int_ge(std::ceil(c), lo, hi);
    case Op::kEq: return integral_in_range ? make(Test::kEq, c) : make(Test::kNone);
    case Op::kNe: return integral_in_range ? make(Test::kNe, c) : make(Test::kAll);
  }
  return make(Test::kNone);
}

// The neighbours of c among the values of float type T: *below = the
// largest T <= c, *above = the smallest T >= c (equal when c is a T).
template <typename T>
void float_neighbours(long double c, T* below, T* above) {
  const long double max = static_cast<long double>(std::numeric_limits<T>::max());
  const T inf = std::numeric_limits<T>::infinity();
  if (std::isinf(c)) {
    *below = *above = c > 0 ? inf : -inf;
  } else if (c > max) {
    *below = std::numeric_limits<T>::max();
    *above = inf;
  } else if (c < -max) {
    *below = -inf;
    *above = -std::numeric_limits<T>::max();
  } else {
    T r = static_cast<T>(c);  // in range: rounds to nearest
    long double rl = static_cast<long double>(r);
    if (rl == c) {
      *below = *above = r;
    } else if (rl < c) {
      *below = r;
      *above = std::nextafter(r, inf);
    } else {
      *above = r;
      *below = std::nextafter(r, -inf);
    }
  }
}

template <typename T>
Normalized normalize_float(Op op, long double c) {
  T below, above;
  float_neighbours<T>(c, &below, &above);
  const T inf = std::numeric_limits<T>::infinity();
  const auto L = [](T v) { return static_cast<long double>(v); };
  if (below != above) {  // c is no T: strict and non-strict agree
    switch (op) {
      case Op::kLt:
      case Op::kLe: return make(Test::kLe, L(below));
      case Op::kGt:
      case Op::kGe: return make(Test::kGe, L(above));
      case Op::kEq: return make(Test::kNone);
      case Op::kNe: return make(Test::kAll);
    }
  }
  const T t = below;
  switch (op) {
    case Op::kLt: return t == -inf ? make(Test::kNone) : make(Test::kLe, L(std::nextafter(t, -inf)));
    case Op::kLe: return make(Test::kLe, L(t));
    case Op::kGt: return t == inf ? make(Test::kNone) : make(Test::kGe, L(std::nextafter(t, inf)));
    case Op::kGe: return make(Test::kGe, L(t));
    case Op::kEq: return make(Test::kEq, L(t));
    case Op::kNe: return make(Test::kNe, L(t));
  }
  return make(Test::kNone);
}

template <typename T>
inline bool test_value(Test test, T v, T b) {
  switch (test) {
    case Test::kNone: return false;
    case Test::kAll: return true;
    case Test::kLe: return v <= b;
    case Test::kGe: return v >= b;
    case Test::kEq: return v == b;
    case Test::kNe: return v != b;
  }
  return false;
}

template <typename T, typename Pred>
void apply_loop(const T* v, size_t n, Bitset* out, uint64_t off, Pred pred) {
  for (size_t i = 0; i < n; ++i)
    if (pred(v[i])) out->set(off + i);
}

template <typename T>
void apply_typed(const Normalized& nz, const T* v, size_t n, Bitset* out, uint64_t off) {
  const T b = static_cast<T>(nz.bound);
  switch (nz.test) {
    case Test::kNone: return;
    case Test::kAll:
      for (size_t i = 0; i < n; ++i) out->set(off + i);
      return;
    case Test::kLe: return apply_loop(v, n, out, off, [b](T x) { return x <= b; });
    case Test::kGe: return apply_loop(v, n, out, off, [b](T x) { return x >= b; });
    case Test::kEq: return apply_loop(v, n, out, off, [b](T x) { return x == b; });
    case Test::kNe: return apply_loop(v, n, out, off, [b](T x) { return x != b; });
  }
}

}  // namespace

Normalized normalize(Op op, const Constant& c, int var_type) {
  const long double cv = c.value();
  if (std::isnan(cv)) return make(op == Op::kNe ? Test::kAll : Test::kNone);
  Normalized out;
  with_type(var_type, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T>)
      out = normalize_float<T>(op, cv);
    else
      out = normalize_int<T>(op, cv);
  });
  return out;
}

bool nan_passes(const Normalized& n) { return n.test == Test::kNe || n.test == Test::kAll; }

bool interval_all(const Normalized& n, long double lo, long double hi, bool hi_closed) {
  const long double t = n.bound;
  switch (n.test) {
    case Test::kNone: return false;
    case Test::kAll: return true;
    case Test::kLe: return hi <= t;
    case Test::kGe: return lo >= t;
    case Test::kEq: return false;
    case Test::kNe: return t < lo || t > hi || (!hi_closed && t == hi);
  }
  return false;
}

bool interval_none(const Normalized& n, long double lo, long double hi, bool hi_closed) {
  const long double t = n.bound;
  switch (n.test) {
    case Test::kNone: return true;
    case Test::kAll: return false;
    case Test::kLe: return lo > t;
    case Test::kGe: return hi_closed ? hi < t : hi <= t;
    case Test::kEq: return t < lo || t > hi || (!hi_closed && t == hi);
    case Test::kNe: return false;
  }
  return false;
}

void apply(const Normalized& n, int var_type, const void* values, size_t n_values, Bitset* out,
           uint64_t out_offset) {
  with_type(var_type, [&](auto t) {
    using T = decltype(t);
    apply_typed<T>(n, static_cast<const T*>(values), n_values, out, out_offset);
  });
}

bool passes(const Normalized& n, int var_type, const void* value) {
  bool r = false;
  with_type(var_type, [&](auto t) {
    using T = decltype(t);
    T v;
    std::memcpy(&v, value, sizeof v);
    r = test_value<T>(n.test, v, static_cast<T>(n.bound));
  });
  return r;
}

}  // namespace exa::query
