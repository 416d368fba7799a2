#include "query/mpi/typed_io.hpp"

#include <string>

#include "pnetcdf.h"

namespace exa::query {

namespace {
Status nc(int code, const char* what) {
  if (code == NC_NOERR) return Status::ok();
  return {code, std::string(what) + ": " + ncmpi_strerror(code)};
}
}  // namespace

#define EXA_Q_TYPED_(CALL, ...)                                                                  \
  switch (type) {                                                                                \
    case NC_BYTE: return nc(ncmpi_##CALL##_schar_all(__VA_ARGS__, static_cast<signed char*>(buf)), #CALL); \
    case NC_UBYTE: return nc(ncmpi_##CALL##_uchar_all(__VA_ARGS__, static_cast<unsigned char*>(buf)), #CALL); \
    case NC_SHORT: return nc(ncmpi_##CALL##_short_all(__VA_ARGS__, static_cast<short*>(buf)), #CALL); \
    case NC_USHORT: return nc(ncmpi_##CALL##_ushort_all(__VA_ARGS__, static_cast<unsigned short*>(buf)), #CALL); \
    case NC_INT: return nc(ncmpi_##CALL##_int_all(__VA_ARGS__, static_cast<int*>(buf)), #CALL); \
    case NC_UINT: return nc(ncmpi_##CALL##_uint_all(__VA_ARGS__, static_cast<unsigned int*>(buf)), #CALL); \
    case NC_INT64: return nc(ncmpi_##CALL##_longlong_all(__VA_ARGS__, static_cast<long long*>(buf)), #CALL); \
    case NC_UINT64: return nc(ncmpi_##CALL##_ulonglong_all(__VA_ARGS__, static_cast<unsigned long long*>(buf)), #CALL); \
    case NC_FLOAT: return nc(ncmpi_##CALL##_float_all(__VA_ARGS__, static_cast<float*>(buf)), #CALL); \
    case NC_DOUBLE: return nc(ncmpi_##CALL##_double_all(__VA_ARGS__, static_cast<double*>(buf)), #CALL); \
    default: return {NC_EBADTYPE, "not a numeric type"};                                         \
  }

Status get_vara_all(int ncid, int varid, int type, const MPI_Offset* start, const MPI_Offset* count,
                    void* buf) {
  EXA_Q_TYPED_(get_vara, ncid, varid, start, count)
}

Status get_varn_all(int ncid, int varid, int type, int num, MPI_Offset* const* starts,
                    MPI_Offset* const* counts, void* buf) {
  EXA_Q_TYPED_(get_varn, ncid, varid, num, starts, counts)
}

#undef EXA_Q_TYPED_

}  // namespace exa::query
