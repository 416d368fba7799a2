// Sizes and encoder of the classic header. The grammar (netCDF classic
// format specification):
//   header  = magic numrecs dim_list gatt_list var_list
//   list    = ABSENT | tag nelems [item ...]     ABSENT = ZERO ZERO
//   name    = nelems chars padding
//   dim     = name dim_length
//   attr    = name nc_type nelems values padding
//   var     = name nelems [dimid ...] vatt_list nc_type vsize begin
// NON_NEG fields (numrecs, nelems, lengths, dimids, vsize) are 4 bytes in
// CDF-1/CDF-2 and 8 bytes in CDF-5; begin is 4 bytes in CDF-1 and 8 bytes
// otherwise; tags and nc_type are always 4 bytes.
#include "format/classic_header.hpp"

#include <algorithm>

#include "format/classic_header_internal.hpp"
#include "format/xdr.hpp"

namespace exa::format {

using xdr::round4;

int64_t external_size(nc_type type) {
  switch (type) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_FLOAT: case NC_UINT: return 4;
    case NC_DOUBLE: case NC_INT64: case NC_UINT64: return 8;
    default: return 0;
  }
}

bool type_valid_for(nc_type type, Version version) {
  if (type >= NC_BYTE && type <= NC_DOUBLE) return true;
  return version == Version::kCdf5 && type >= NC_UBYTE && type <= NC_UINT64;
}

namespace {

int64_t name_size(const std::string& name, int width) {
  return width + round4(int64_t(name.size()));
}

int64_t attr_list_size(const std::vector<Attribute>& atts, int width) {
  int64_t size = 4 + width;  // tag (or ZERO) and nelems
  for (const Attribute& a : atts)
    size += name_size(a.name, width) + 4 + width + round4(a.nelems * external_size(a.type));
  return size;
}

void put_name(xdr::Writer& w, const std::string& name, int width) {
  w.uint(name.size(), width);
  w.bytes(name);
  w.pad(int64_t(name.size()));
}

// Writes exactly nelems * size value bytes, whatever xvalues holds, so the
// output always matches encoded_size().
void put_attr_list(xdr::Writer& w, const std::vector<Attribute>& atts, int width) {
  w.u32(atts.empty() ? 0 : kTagAttribute);
  w.uint(atts.size(), width);
  for (const Attribute& a : atts) {
    put_name(w, a.name, width);
    w.u32(uint32_t(a.type));
    w.uint(uint64_t(a.nelems), width);
    const int64_t nbytes = a.nelems * external_size(a.type);
    const size_t have = std::min(a.xvalues.size(), size_t(nbytes));
    w.bytes(std::span<const uint8_t>(a.xvalues.data(), have));
    for (int64_t i = int64_t(have); i < round4(nbytes); ++i) w.u8(0);
  }
}

// The CDF-2 specification's rule: a vsize that does not fit is written as
// 2^32-1. (A computed vsize is a multiple of 4, so "above 2^32-4", PnetCDF's
// test, and "above 2^32-1" agree; the latter keeps any decoded value intact.)
uint64_t stored_vsize(int64_t vsize, int width) {
  if (width == 8) return uint64_t(vsize);
  return vsize > int64_t(UINT32_MAX) ? 0xFFFFFFFFu : uint64_t(vsize);
}

}  // namespace

int64_t encoded_size(const Header& header) {
  const int width = nonneg_width(header.version);
  const int offset_width = header.version == Version::kCdf1 ? 4 : 8;
  int64_t size = 4 + width;  // magic, numrecs
  size += 4 + width;
  for (const Dimension& d : header.dims) size += name_size(d.name, width) + width;
  size += attr_list_size(header.gatts, width);
  size += 4 + width;
  for (const Variable& v : header.vars) {
    size += name_size(v.name, width) + width + width * int64_t(v.dimids.size());
    size += attr_list_size(v.atts, width) + 4 + width + offset_width;
  }
  return size;
}

std::vector<uint8_t> encode(const Header& header, const FileOrder& order) {
  auto dim_at = [&](size_t pos) -> const Dimension& {
    return header.dims[order.dims.empty() ? pos : size_t(order.dims[pos])];
  };
  auto var_at = [&](size_t pos) -> const Variable& {
    return header.vars[order.vars.empty() ? pos : size_t(order.vars[pos])];
  };
  std::vector<int> dim_pos;  // index -> position, when dims are reordered
  if (!order.dims.empty()) {
    dim_pos.resize(header.dims.size());
    for (size_t pos = 0; pos < order.dims.size(); ++pos) dim_pos[size_t(order.dims[pos])] = int(pos);
  }
  const int width = nonneg_width(header.version);
  const int offset_width = header.version == Version::kCdf1 ? 4 : 8;
  std::vector<uint8_t> out;
  out.reserve(size_t(encoded_size(header)));
  xdr::Writer w(out);
  w.bytes(std::string_view("CDF"));
  w.u8(uint8_t(header.version));
  // Streaming (-1) becomes all ones in either width.
  w.uint(uint64_t(header.numrecs), width);

  w.u32(header.dims.empty() ? 0 : kTagDimension);
  w.uint(header.dims.size(), width);
  for (size_t pos = 0; pos < header.dims.size(); ++pos) {
    const Dimension& d = dim_at(pos);
    put_name(w, d.name, width);
    w.uint(uint64_t(d.length), width);
  }
  put_attr_list(w, header.gatts, width);

  w.u32(header.vars.empty() ? 0 : kTagVariable);
  w.uint(header.vars.size(), width);
  for (size_t pos = 0; pos < header.vars.size(); ++pos) {
    const Variable& v = var_at(pos);
    put_name(w, v.name, width);
    w.uint(v.dimids.size(), width);
    for (int id : v.dimids) w.uint(uint64_t(dim_pos.empty() ? id : dim_pos[size_t(id)]), width);
    put_attr_list(w, v.atts, width);
    w.u32(uint32_t(v.type));
    w.uint(stored_vsize(v.vsize, width), width);
    w.uint(uint64_t(v.begin), offset_width);
  }
  return out;
}

}  // namespace exa::format
