#include "data_extent.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "cdl_format.hpp"
#include "nc_error.hpp"

namespace exa::tool {

namespace {

constexpr MPI_Offset kMax = std::numeric_limits<MPI_Offset>::max();

MPI_Offset sat_mul(MPI_Offset a, MPI_Offset b) {
  MPI_Offset out = 0;
  return __builtin_mul_overflow(a, b, &out) ? kMax : out;
}

MPI_Offset sat_add(MPI_Offset a, MPI_Offset b) {
  MPI_Offset out = 0;
  return __builtin_add_overflow(a, b, &out) ? kMax : out;
}

// One past the last byte of variable `varid`'s data, as the header describes it.
MPI_Offset var_end(int ncid, int varid, int unlimdim, MPI_Offset numrecs, MPI_Offset recsize) {
  nc_type type = NC_NAT;
  int ndims = 0;
  nc_check(ncmpi_inq_vartype(ncid, varid, &type), "ncmpi_inq_vartype");
  nc_check(ncmpi_inq_varndims(ncid, varid, &ndims), "ncmpi_inq_varndims");
  std::vector<int> dimids(static_cast<std::size_t>(std::max(ndims, 0)));
  if (ndims > 0) nc_check(ncmpi_inq_vardimid(ncid, varid, dimids.data()), "ncmpi_inq_vardimid");
  MPI_Offset offset = 0;
  nc_check(ncmpi_inq_varoffset(ncid, varid, &offset), "ncmpi_inq_varoffset");
  const bool record = ndims > 0 && dimids[0] == unlimdim;
  MPI_Offset bytes = static_cast<MPI_Offset>(cdl::type_size(type));
  for (std::size_t k = record ? 1 : 0; k < dimids.size(); ++k) {
    MPI_Offset len = 0;
    nc_check(ncmpi_inq_dimlen(ncid, dimids[k], &len), "ncmpi_inq_dimlen");
    bytes = sat_mul(bytes, len);
  }
  if (bytes == 0) return 0;
  if (!record) return sat_add(offset, bytes);
  if (numrecs == 0) return 0;
  // The last record's part of this variable.
  return sat_add(sat_add(offset, sat_mul(numrecs - 1, recsize)), bytes);
}

}  // namespace

std::string DataExtent::describe() const {
  return "the file has " + std::to_string(file_bytes) + " bytes, the header describes " +
         (described == kMax ? std::string("more than 2^63") : std::to_string(described));
}

DataExtent data_extent(int ncid, const std::string& path) {
  DataExtent out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw NcError(NC_EFILE, path + ": " + std::strerror(errno));
  out.file_bytes = static_cast<MPI_Offset>(st.st_size);
  int nvars = 0, unlimdim = -1;
  MPI_Offset numrecs = 0, recsize = 0;
  nc_check(ncmpi_inq_nvars(ncid, &nvars), "ncmpi_inq_nvars");
  nc_check(ncmpi_inq_unlimdim(ncid, &unlimdim), "ncmpi_inq_unlimdim");
  if (unlimdim >= 0) {
    nc_check(ncmpi_inq_dimlen(ncid, unlimdim, &numrecs), "ncmpi_inq_dimlen");
    nc_check(ncmpi_inq_recsize(ncid, &recsize), "ncmpi_inq_recsize");
  }
  for (int v = 0; v < nvars; ++v)
    out.described = std::max(out.described, var_end(ncid, v, unlimdim, numrecs, recsize));
  return out;
}

}  // namespace exa::tool
