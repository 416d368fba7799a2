// The C type of each numeric nc_type, for code generic over the 10 types.
// MPI-free.
#pragma once

#include <cstdint>

#include "exacdf_nc_constants.h"

namespace exa::query {

// Calls fn(T{}) with the C type of nc_type type; returns false for NC_CHAR
// and unknown types.
template <typename Fn>
bool with_type(int type, Fn&& fn) {
  switch (type) {
    case NC_BYTE: fn(int8_t{}); return true;
    case NC_UBYTE: fn(uint8_t{}); return true;
    case NC_SHORT: fn(int16_t{}); return true;
    case NC_USHORT: fn(uint16_t{}); return true;
    case NC_INT: fn(int32_t{}); return true;
    case NC_UINT: fn(uint32_t{}); return true;
    case NC_INT64: fn(int64_t{}); return true;
    case NC_UINT64: fn(uint64_t{}); return true;
    case NC_FLOAT: fn(float{}); return true;
    case NC_DOUBLE: fn(double{}); return true;
    default: return false;
  }
}

}  // namespace exa::query
