// The one table of numeric netCDF types and their native C types. Every
// conversion kernel and every dispatch switch is generated from it, so adding
// or checking a type happens here and nowhere else. NC_CHAR is not numeric:
// it converts only to itself and is handled apart.
#pragma once

#include <cfloat>
#include <climits>
#include <limits>

#include "exacdf_nc_constants.h"

// X(nc_type code, native C type) for each numeric type, in nc_type order.
#define EXA_CONVERT_NUMERIC_TYPES(X) \
  X(NC_BYTE, signed char)            \
  X(NC_SHORT, short)                 \
  X(NC_INT, int)                     \
  X(NC_FLOAT, float)                 \
  X(NC_DOUBLE, double)               \
  X(NC_UBYTE, unsigned char)         \
  X(NC_USHORT, unsigned short)       \
  X(NC_UINT, unsigned int)           \
  X(NC_INT64, long long)             \
  X(NC_UINT64, unsigned long long)

namespace exa::convert {

// The external sizes are fixed by the format; the kernels move native values
// straight into them, so the native types must have the same sizes and the
// floating types must be IEEE 754.
static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long long) == 8);
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);
static_assert(sizeof(float) == 4 && sizeof(double) == 8);

}  // namespace exa::convert
