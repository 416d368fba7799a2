// The memory type (an nc_type naming a native C type) of each C type of
// the typed API, for the generated entry points.
#pragma once

#include <type_traits>

#include "exacdf_nc_constants.h"

namespace exa::api {

template <typename T>
constexpr nc_type memtype_of() {
  if constexpr (std::is_same_v<T, char>) return NC_CHAR;
  else if constexpr (std::is_same_v<T, signed char>) return NC_BYTE;
  else if constexpr (std::is_same_v<T, unsigned char>) return NC_UBYTE;
  else if constexpr (std::is_same_v<T, short>) return NC_SHORT;
  else if constexpr (std::is_same_v<T, unsigned short>) return NC_USHORT;
  else if constexpr (std::is_same_v<T, int>) return NC_INT;
  else if constexpr (std::is_same_v<T, unsigned int>) return NC_UINT;
  else if constexpr (std::is_same_v<T, long>) return sizeof(long) == 8 ? NC_INT64 : NC_INT;
  else if constexpr (std::is_same_v<T, float>) return NC_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return NC_DOUBLE;
  else if constexpr (std::is_same_v<T, long long>) return NC_INT64;
  else if constexpr (std::is_same_v<T, unsigned long long>) return NC_UINT64;
  else static_assert(!sizeof(T), "not a type of the typed API");
}

}  // namespace exa::api
