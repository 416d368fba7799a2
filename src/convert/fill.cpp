// Default fill values (NC_FILL_*) in external form.
#include "convert/byte_order.hpp"
#include "convert/external.hpp"

namespace exa::convert {

namespace {

template <class T>
void put_fill(void* out, T value) {
  store<T, true>(static_cast<unsigned char*>(out), value);
}

}  // namespace

void default_fill_external(nc_type xtype, void* out) {
  switch (xtype) {
    case NC_BYTE: put_fill<signed char>(out, NC_FILL_BYTE); break;
    case NC_CHAR: put_fill<char>(out, NC_FILL_CHAR); break;
    case NC_SHORT: put_fill<short>(out, NC_FILL_SHORT); break;
    case NC_INT: put_fill<int>(out, NC_FILL_INT); break;
    case NC_FLOAT: put_fill<float>(out, NC_FILL_FLOAT); break;
    case NC_DOUBLE: put_fill<double>(out, NC_FILL_DOUBLE); break;
    case NC_UBYTE: put_fill<unsigned char>(out, NC_FILL_UBYTE); break;
    case NC_USHORT: put_fill<unsigned short>(out, NC_FILL_USHORT); break;
    case NC_UINT: put_fill<unsigned int>(out, NC_FILL_UINT); break;
    case NC_INT64: put_fill<long long>(out, NC_FILL_INT64); break;
    case NC_UINT64: put_fill<unsigned long long>(out, NC_FILL_UINT64); break;
    default: break;
  }
}

}  // namespace exa::convert
