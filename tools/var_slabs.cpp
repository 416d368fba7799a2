#include "var_slabs.hpp"

#include <algorithm>

#include "nc_error.hpp"
#include "nc_mpi_type.hpp"

namespace exa::tool {

VarShape var_shape(int ncid, int varid) {
  VarShape vs;
  int ndims = 0;
  nc_check(ncmpi_inq_vartype(ncid, varid, &vs.type), "ncmpi_inq_vartype");
  nc_check(ncmpi_inq_varndims(ncid, varid, &ndims), "ncmpi_inq_varndims");
  std::vector<int> dimids(static_cast<size_t>(ndims));
  if (ndims > 0) nc_check(ncmpi_inq_vardimid(ncid, varid, dimids.data()), "ncmpi_inq_vardimid");
  for (int d : dimids) {
    MPI_Offset len = 0;
    nc_check(ncmpi_inq_dimlen(ncid, d, &len), "ncmpi_inq_dimlen");
    vs.shape.push_back(len);
  }
  return vs;
}

int for_each_slab(int ncid, int varid, const VarShape& vs, size_t max_bytes, int rank, int nprocs,
                  const std::function<int(const MPI_Offset*, const MPI_Offset*, const void*)>& visit) {
  const MPI_Datatype mtype = mpi_type_of(vs.type);
  const MPI_Offset width = native_size_of(vs.type);
  if (mtype == MPI_DATATYPE_NULL) return NC_EBADTYPE;
  std::vector<MPI_Offset> start(vs.shape.size(), 0), count = vs.shape;
  if (vs.shape.empty()) {
    if (rank != 0) return NC_NOERR;
    std::vector<unsigned char> buf(static_cast<size_t>(width));
    int st = ncmpi_get_vara(ncid, varid, nullptr, nullptr, buf.data(), 1, mtype);
    return st != NC_NOERR ? st : visit(nullptr, nullptr, buf.data());
  }
  MPI_Offset row = width;
  for (size_t d = 1; d < vs.shape.size(); ++d)
    if (__builtin_mul_overflow(row, vs.shape[d], &row)) return NC_EINTOVERFLOW;
  const MPI_Offset len = vs.shape[0];
  // This rank's rows [lo, hi): len / nprocs each, the first len % nprocs one more.
  const MPI_Offset q = len / nprocs, r = len % nprocs;
  const MPI_Offset lo = q * rank + std::min<MPI_Offset>(rank, r), hi = lo + q + (rank < r ? 1 : 0);
  if (row == 0) return NC_NOERR;
  const MPI_Offset rows_per_slab = std::max<MPI_Offset>(1, static_cast<MPI_Offset>(max_bytes) / row);
  std::vector<unsigned char> buf;
  for (MPI_Offset first = lo; first < hi; first += rows_per_slab) {
    start[0] = first;
    count[0] = std::min(rows_per_slab, hi - first);
    buf.resize(static_cast<size_t>(count[0] * row));
    int st = ncmpi_get_vara(ncid, varid, start.data(), count.data(), buf.data(),
                            count[0] * (row / width), mtype);
    if (st == NC_NOERR) st = visit(start.data(), count.data(), buf.data());
    if (st != NC_NOERR) return st;
  }
  return NC_NOERR;
}

}  // namespace exa::tool
