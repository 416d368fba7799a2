#include "nc_typed_io.hpp"

#include <algorithm>

#include "cdl_format.hpp"
#include "nc_error.hpp"

namespace exa::tool {

std::vector<unsigned char> read_att_values(int ncid, int varid, const std::string& name,
                                           nc_type type, MPI_Offset len) {
  const std::size_t size = cdl::type_size(type);
  if (size == 0) throw NcError(NC_EBADTYPE, "attribute " + name);
  std::vector<unsigned char> buf(static_cast<std::size_t>(len) * size + 8);
  void* p = buf.data();
  int status = NC_NOERR;
  switch (type) {
    case NC_CHAR: status = ncmpi_get_att_text(ncid, varid, name.c_str(), static_cast<char*>(p)); break;
    case NC_BYTE: status = ncmpi_get_att_schar(ncid, varid, name.c_str(), static_cast<signed char*>(p)); break;
    case NC_SHORT: status = ncmpi_get_att_short(ncid, varid, name.c_str(), static_cast<short*>(p)); break;
    case NC_INT: status = ncmpi_get_att_int(ncid, varid, name.c_str(), static_cast<int*>(p)); break;
    case NC_FLOAT: status = ncmpi_get_att_float(ncid, varid, name.c_str(), static_cast<float*>(p)); break;
    case NC_DOUBLE: status = ncmpi_get_att_double(ncid, varid, name.c_str(), static_cast<double*>(p)); break;
    case NC_UBYTE: status = ncmpi_get_att_uchar(ncid, varid, name.c_str(), static_cast<unsigned char*>(p)); break;
    case NC_USHORT: status = ncmpi_get_att_ushort(ncid, varid, name.c_str(), static_cast<unsigned short*>(p)); break;
    case NC_UINT: status = ncmpi_get_att_uint(ncid, varid, name.c_str(), static_cast<unsigned*>(p)); break;
    case NC_INT64: status = ncmpi_get_att_longlong(ncid, varid, name.c_str(), static_cast<long long*>(p)); break;
    case NC_UINT64:
      status = ncmpi_get_att_ulonglong(ncid, varid, name.c_str(), static_cast<unsigned long long*>(p));
      break;
    default: status = NC_EBADTYPE; break;
  }
  nc_check(status, "attribute " + name);
  buf.resize(static_cast<std::size_t>(len) * size);
  return buf;
}

int get_vara_typed(int ncid, int varid, nc_type type, const MPI_Offset* start,
                   const MPI_Offset* count, void* buf) {
  switch (type) {
    case NC_CHAR: return ncmpi_get_vara_text_all(ncid, varid, start, count, static_cast<char*>(buf));
    case NC_BYTE: return ncmpi_get_vara_schar_all(ncid, varid, start, count, static_cast<signed char*>(buf));
    case NC_SHORT: return ncmpi_get_vara_short_all(ncid, varid, start, count, static_cast<short*>(buf));
    case NC_INT: return ncmpi_get_vara_int_all(ncid, varid, start, count, static_cast<int*>(buf));
    case NC_FLOAT: return ncmpi_get_vara_float_all(ncid, varid, start, count, static_cast<float*>(buf));
    case NC_DOUBLE: return ncmpi_get_vara_double_all(ncid, varid, start, count, static_cast<double*>(buf));
    case NC_UBYTE: return ncmpi_get_vara_uchar_all(ncid, varid, start, count, static_cast<unsigned char*>(buf));
    case NC_USHORT: return ncmpi_get_vara_ushort_all(ncid, varid, start, count, static_cast<unsigned short*>(buf));
    case NC_UINT: return ncmpi_get_vara_uint_all(ncid, varid, start, count, static_cast<unsigned*>(buf));
    case NC_INT64: return ncmpi_get_vara_longlong_all(ncid, varid, start, count, static_cast<long long*>(buf));
    case NC_UINT64:
      return ncmpi_get_vara_ulonglong_all(ncid, varid, start, count, static_cast<unsigned long long*>(buf));
    default: return NC_EBADTYPE;
  }
}

namespace {

// The next hyperslab starting at multi-index `idx` that is contiguous in row-major
// order and holds at most `max_elems` values: whole trailing dimensions where `idx`
// is at their start, and a run along the first dimension that is not.
MPI_Offset plan_slab(const std::vector<MPI_Offset>& shape, const std::vector<MPI_Offset>& idx,
                     MPI_Offset max_elems, std::vector<MPI_Offset>& count, std::size_t& run_dim) {
  std::size_t d = shape.size() - 1;
  MPI_Offset inner = 1;
  while (d > 0 && idx[d] == 0 && shape[d] <= max_elems / inner) {
    inner *= shape[d];
    --d;
  }
  for (std::size_t k = 0; k < shape.size(); ++k) count[k] = k < d ? 1 : shape[k];
  count[d] = std::min(shape[d] - idx[d], std::max<MPI_Offset>(1, max_elems / inner));
  run_dim = d;
  return count[d] * inner;
}

// Moves `idx` past a slab that advanced dimension `d` by `steps`, carrying upward.
void advance(const std::vector<MPI_Offset>& shape, std::vector<MPI_Offset>& idx, std::size_t d,
             MPI_Offset steps) {
  idx[d] += steps;
  for (std::size_t k = d; k > 0 && idx[k] >= shape[k]; --k) {
    idx[k] = 0;
    ++idx[k - 1];
  }
}

}  // namespace

void read_var_in_chunks(int ncid, int varid, nc_type type, const std::vector<MPI_Offset>& shape,
                        std::size_t max_bytes,
                        const std::function<void(const void* values, std::size_t n)>& sink) {
  const std::size_t size = cdl::type_size(type);
  if (size == 0) throw NcError(NC_EBADTYPE, "variable data");
  if (shape.empty()) {  // scalar
    MPI_Offset zero = 0;
    MPI_Offset one = 1;
    unsigned char value[8] = {};
    nc_check(get_vara_typed(ncid, varid, type, &zero, &one, value), "reading variable data");
    sink(value, 1);
    return;
  }
  MPI_Offset total = 1;
  for (MPI_Offset len : shape)
    if (len < 0 || __builtin_mul_overflow(total, len, &total)) throw NcError(NC_EINTOVERFLOW, "variable shape");
  if (total == 0) return;

  const auto max_elems = static_cast<MPI_Offset>(std::max<std::size_t>(1, max_bytes / size));
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(total, max_elems)) * size);
  std::vector<MPI_Offset> idx(shape.size(), 0);
  std::vector<MPI_Offset> count(shape.size(), 1);
  for (MPI_Offset done = 0; done < total;) {
    std::size_t run_dim = 0;
    const MPI_Offset n = plan_slab(shape, idx, max_elems, count, run_dim);
    nc_check(get_vara_typed(ncid, varid, type, idx.data(), count.data(), buf.data()),
             "reading variable data");
    sink(buf.data(), static_cast<std::size_t>(n));
    advance(shape, idx, run_dim, count[run_dim]);
    done += n;
  }
}

}  // namespace exa::tool
