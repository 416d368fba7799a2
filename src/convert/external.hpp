// Conversion between memory values and the external (big-endian XDR)
// representation of the classic formats, with netCDF's range rules.
// Memory types are named by the nc_type whose native C type they are
// (NC_BYTE = signed char, NC_UBYTE = unsigned char, NC_CHAR = char text,
// NC_SHORT = short, NC_USHORT, NC_INT = int, NC_UINT, NC_FLOAT, NC_DOUBLE,
// NC_INT64 = long long, NC_UINT64 = unsigned long long; C long maps to
// NC_INT64 on LP64). No MPI, no I/O.
#pragma once

#include <cstdint>

#include "exacdf_nc_constants.h"
#include "util/status.hpp"

namespace exa::convert {

// Bytes of one native value of a memory type (0 if the type is unknown).
int64_t native_size(nc_type mem_type);

// Whether values of mem_type may be converted to/from external type xtype:
// NC_CHAR only with NC_CHAR; numeric with numeric. Gives NC_ECHAR otherwise,
// NC_EBADTYPE for unknown types.
Status check_convertible(nc_type mem_type, nc_type xtype);

// Converts n values from memory (mem_type) to external form (xtype,
// big-endian) in `out`. Values that do not fit xtype still produce an
// element (as netCDF does: the C cast for integers, +-inf for floats out of
// float range) and the call returns NC_ERANGE; every other element is exact.
// `in` and `out` may be the same buffer only when the sizes are equal.
Status to_external(const void* in, nc_type mem_type, nc_type xtype, int64_t n, void* out);

// Converts n external values (xtype, big-endian) to memory (mem_type), with
// NC_ERANGE as above for values that do not fit mem_type.
Status from_external(const void* in, nc_type xtype, nc_type mem_type, int64_t n, void* out);

// Reverses the byte order of n elements of elem_size bytes (1, 2, 4, 8) in place.
void swap_bytes_in_place(void* buf, int64_t elem_size, int64_t n);

// Writes the default fill value of xtype (NC_FILL_*) in external form to out.
void default_fill_external(nc_type xtype, void* out);

}  // namespace exa::convert
