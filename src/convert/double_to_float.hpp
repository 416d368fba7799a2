// Doubles in memory written to an external float variable (a put), in one
// vectorised pass: load, NC_ERANGE check, narrow, min/max, byte swap, store.
// The range (when asked) is that of the external values written, as the
// generic path takes it (external.cpp). MPI-free.
#pragma once

#include <cstdint>

#include "convert/value_range.hpp"

namespace exa::convert {

// Converts the n native doubles at `in` to big-endian floats at `out` (not
// overlapping), stores `fill` (a native float; null: the cast value stays)
// where a value gives NC_ERANGE, and widens *range (if not null) by the
// values written. Sets *bad when some value gave NC_ERANGE. Returns false,
// having done nothing, when the CPU (or EXACDF_SIMD) has no AVX2: the caller
// takes the generic kernel then.
bool put_doubles_as_floats(const unsigned char* in, unsigned char* out, int64_t n,
                           const unsigned char* fill, ValueRange* range, bool* bad);

}  // namespace exa::convert
