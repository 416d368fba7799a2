// Sizes of memory types and which memory/external type pairs convert.
#include "convert/external.hpp"
#include "convert/type_table.hpp"

namespace exa::convert {

int64_t native_size(nc_type mem_type) {
  switch (mem_type) {
    case NC_CHAR: return 1;
#define EXA_CASE(code, type) \
  case code: return static_cast<int64_t>(sizeof(type));
    EXA_CONVERT_NUMERIC_TYPES(EXA_CASE)
#undef EXA_CASE
    default: return 0;
  }
}

Status check_convertible(nc_type mem_type, nc_type xtype) {
  if (native_size(mem_type) == 0 || native_size(xtype) == 0)
    return Status(NC_EBADTYPE, "convert: unknown data type");
  // netCDF allows no conversion between text and numbers in either direction.
  if ((mem_type == NC_CHAR) != (xtype == NC_CHAR))
    return Status(NC_ECHAR, "convert: no conversion between text and numbers");
  return Status::ok();
}

}  // namespace exa::convert
