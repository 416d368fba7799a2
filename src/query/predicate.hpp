// One condition `value OP constant` turned into a test on the variable's own
// C type, exactly (include/exacdf_query.h "Comparison semantics"): the
// constant is compared as a mathematical number, never rounded into the
// variable's type. MPI-free.
#pragma once

#include <cstddef>
#include <cstdint>

#include "exacdf_nc_constants.h"
#include "query/bitset.hpp"

namespace exa::query {

enum class Op : uint8_t { kEq = 1, kNe = 2, kLt = 3, kLe = 4, kGt = 5, kGe = 6 };

bool valid_op(int op);
// NC_BYTE .. NC_UINT64 except NC_CHAR.
bool numeric_type(int type);
int type_size(int type);

// A constant: its nc_type and its bytes (native order, zero padded).
struct Constant {
  int type = NC_DOUBLE;
  unsigned char bytes[8] = {};
  long double value() const;  // exact for all 10 types (x86 long double: 64-bit mantissa)
};

// The test a condition becomes on values of one type: `v <= bound`,
// `v >= bound`, `v == bound`, `v != bound`, everything, or nothing.
// The bound is exactly representable in the variable's type.
enum class Test : uint8_t { kNone, kAll, kLe, kGe, kEq, kNe };
struct Normalized {
  Test test = Test::kNone;
  long double bound = 0;  // holds a value of the variable's type exactly
};

// The test of `v op c` for values of nc_type var_type.
Normalized normalize(Op op, const Constant& c, int var_type);

// Whether every / no value of the half-open interval [lo, hi) (lo, hi may be
// infinite; hi_closed: [lo, hi]) passes the test. Used on index bins.
bool interval_all(const Normalized& n, long double lo, long double hi, bool hi_closed);
bool interval_none(const Normalized& n, long double lo, long double hi, bool hi_closed);
// NaN values pass only kNe and kAll.
bool nan_passes(const Normalized& n);

// Sets bit out_offset+i of out for every value i of values[0..n) (of
// var_type, native order) that passes.
void apply(const Normalized& n, int var_type, const void* values, size_t n_values, Bitset* out,
           uint64_t out_offset);
// One value.
bool passes(const Normalized& n, int var_type, const void* value);

}  // namespace exa::query
