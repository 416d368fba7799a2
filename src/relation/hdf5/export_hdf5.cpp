// HDF5 export of relations and checkpoints (include/exacdf_hdf5.h), over the
// public exacdf API and Debian's parallel HDF5. A library of its own
// (libexacdf_hdf5) so that libexacdf needs no HDF5.
#include "exacdf_hdf5.h"

#include <hdf5.h>
#include <pnetcdf.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "exacdf.h"
#include "layer/connector.hpp"

namespace {

// An HDF5 handle closed by the destructor with its close function.
class Handle {
 public:
  Handle(hid_t id, herr_t (*closer)(hid_t)) : id_(id), close_(closer) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) static_cast<void>(close_(id_));  // a failed close after a write shows in H5Fclose
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }
  // Closes now and reports the result (the file's close is where data is flushed).
  herr_t close() {
    const herr_t e = id_ >= 0 ? close_(id_) : -1;
    id_ = -1;
    return e;
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// The first (most negative) error of any rank, so every rank returns the same code.
int agree(MPI_Comm comm, int code) {
  int worst = code;
  if (MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return NC_EINTERNAL;
  return worst;
}

// HDF5's error stack printing off (failures come back as NC_EHDFERR), unless
// EXACDF_VERBOSE=1 asks for the diagnostics.
void quiet_hdf5() {
  const char* v = std::getenv("EXACDF_VERBOSE");
  if (v == nullptr || std::strcmp(v, "1") != 0) static_cast<void>(H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr));
}

// The rows a rank owns of a relation of `total` rows: a contiguous block.
void block_of(uint64_t total, int rank, int size, uint64_t* first, uint64_t* count) {
  const uint64_t base = total / size, rem = total % size, r = static_cast<uint64_t>(rank);
  *first = r * base + (r < rem ? r : rem);
  *count = base + (r < rem ? 1 : 0);
}

hid_t open_file(MPI_Comm comm, const char* path, bool append) {
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!fapl.ok() || H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL) < 0) return -1;
  return append ? H5Fopen(path, H5F_ACC_RDWR, fapl.get()) : H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
}

herr_t put_text_attribute(hid_t obj, const char* name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.ok() || H5Tset_size(type.get(), value.empty() ? 1 : value.size()) < 0) return -1;
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.ok()) return -1;
  return H5Awrite(attr.get(), type.get(), value.c_str());
}

template <typename T>
herr_t put_number_attribute(hid_t obj, const char* name, hid_t type, T value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.ok()) return -1;
  return H5Awrite(attr.get(), type, &value);
}

// Creates dataset `name` (total x cols uint64, contiguous) in file and writes
// this rank's rows [first, first + count) collectively. An NC_* code.
int write_dataset(hid_t file, const char* name, int arity, uint64_t total, uint64_t first, uint64_t count,
                  const uint64_t* rows) {
  const hsize_t cols = static_cast<hsize_t>(arity) + 1;
  if (H5Lexists(file, name, H5P_DEFAULT) > 0) return NC_ENAMEINUSE;
  hsize_t dims[2] = {total, cols};
  Handle fspace(H5Screate_simple(2, dims, nullptr), H5Sclose);
  Handle dset(H5Dcreate2(file, name, H5T_NATIVE_UINT64, fspace.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
              H5Dclose);
  if (!dset.ok()) return NC_EHDFERR;
  std::string columns;
  for (int c = 0; c < arity; ++c) columns += "c" + std::to_string(c) + ",";
  columns += "id";
  if (put_text_attribute(dset.get(), "exa_kind", "exacdf relation") < 0 ||
      put_number_attribute(dset.get(), "arity", H5T_NATIVE_INT, arity) < 0 ||
      put_text_attribute(dset.get(), "columns", columns) < 0)
    return NC_EHDFERR;
  hsize_t start[2] = {first, 0}, counts[2] = {count, cols};
  herr_t e = count > 0 ? H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, counts, nullptr)
                       : H5Sselect_none(fspace.get());
  Handle mspace(H5Screate_simple(2, counts, nullptr), H5Sclose);
  if (e >= 0 && count == 0) e = H5Sselect_none(mspace.get());
  Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  if (e >= 0) e = H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  // An empty dataset has no storage address: HDF5 1.10 refuses even an empty write to it.
  if (e >= 0 && total > 0)
    e = H5Dwrite(dset.get(), H5T_NATIVE_UINT64, mspace.get(), fspace.get(), dxpl.get(), rows);
  if (e < 0) return NC_EHDFERR;
  return dset.close() < 0 ? NC_EHDFERR : NC_NOERR;
}

}  // namespace

extern "C" {

int exa_relation_export_hdf5(int ncid, const char* name, const char* h5path, int append) {
  if (name == nullptr || h5path == nullptr || (append != 0 && append != 1)) return NC_EINVAL;
  exa::api::OpenFile* f = exa::api::find_file(ncid);  // the file's communicator: no public call gives it
  if (f == nullptr) return NC_EBADID;
  MPI_Comm comm = f->state->comm();
  int rc = NC_NOERR;
  int rank = 0, size = 1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS) return NC_EINTERNAL;

  int arity = 0, varid = -1;
  MPI_Offset nrows = 0;
  rc = exa_relation_inq(ncid, name, &arity, &nrows);  // local, the same answer on every rank
  if (rc == NC_NOERR) rc = ncmpi_inq_varid(ncid, name, &varid);
  if (rc != NC_NOERR) return rc;
  uint64_t first = 0, count = 0;
  block_of(static_cast<uint64_t>(nrows), rank, size, &first, &count);
  const size_t cols = static_cast<size_t>(arity) + 1;
  std::vector<uint64_t> rows(count * cols + 1);
  MPI_Offset start[2] = {static_cast<MPI_Offset>(count > 0 ? first : 0), 0};
  MPI_Offset counts[2] = {static_cast<MPI_Offset>(count), static_cast<MPI_Offset>(cols)};
  rc = ncmpi_get_vara_ulonglong_all(ncid, varid, start, counts, reinterpret_cast<unsigned long long*>(rows.data()));
  rc = agree(comm, rc);
  if (rc != NC_NOERR) return rc;

  quiet_hdf5();
  Handle file(open_file(comm, h5path, append == 1), H5Fclose);  // collective: every rank reaches it
  rc = file.ok() ? write_dataset(file.get(), name, arity, static_cast<uint64_t>(nrows), first, count, rows.data())
                 : NC_EHDFERR;
  if (file.ok() && file.close() < 0 && rc == NC_NOERR) rc = NC_EHDFERR;
  return agree(comm, rc);
}

int exa_checkpoint_export_hdf5(MPI_Comm comm, const char* dir, const char* h5path) {
  if (dir == nullptr || h5path == nullptr) return NC_EINVAL;
  long long iteration = 0;
  int nrel = 0, ckid = -1;
  int rc = exa_checkpoint_restore(comm, dir, &iteration, &nrel, &ckid);
  if (rc != NC_NOERR) return rc;
  quiet_hdf5();
  Handle file(open_file(comm, h5path, false), H5Fclose);
  rc = agree(comm, file.ok() ? NC_NOERR : NC_EHDFERR);
  if (rc == NC_NOERR && put_number_attribute(file.get(), "iteration", H5T_NATIVE_LLONG, iteration) < 0)
    rc = NC_EHDFERR;
  rc = agree(comm, rc);
  for (int i = 0; i < nrel && rc == NC_NOERR; ++i) {
    char name[NC_MAX_NAME + 1] = {0};
    int arity = 0;
    rc = exa_checkpoint_inq_relation(ckid, i, name, &arity);
    MPI_Offset nlocal = 0;
    unsigned long long* tuples = nullptr;
    if (rc == NC_NOERR) rc = exa_checkpoint_read(ckid, name, -1, &nlocal, &tuples);  // collective
    if (rc != NC_NOERR) break;                                                     // the same on every rank
    // Rows with ids 0..n-1 in rank order (one prefix sum).
    uint64_t mine = static_cast<uint64_t>(nlocal), first = 0, total = 0;
    if (MPI_Exscan(&mine, &first, 1, MPI_UINT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, comm) != MPI_SUCCESS)
      rc = NC_EINTERNAL;
    int rank = 0;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) rc = NC_EINTERNAL;
    if (rank == 0) first = 0;  // MPI_Exscan leaves rank 0's result undefined
    const size_t cols = static_cast<size_t>(arity) + 1;
    std::vector<uint64_t> rows(mine * cols + 1);
    for (uint64_t r = 0; r < mine; ++r) {
      for (int c = 0; c < arity; ++c) rows[r * cols + c] = tuples[r * arity + c];
      rows[r * cols + arity] = first + r;
    }
    exa_relation_free(tuples);
    rc = agree(comm, rc);
    if (rc == NC_NOERR) rc = agree(comm, write_dataset(file.get(), name, arity, total, first, mine, rows.data()));
  }
  if (file.ok() && file.close() < 0 && rc == NC_NOERR) rc = NC_EHDFERR;
  const int closed = exa_checkpoint_close(ckid);
  rc = agree(comm, rc);
  return rc != NC_NOERR ? rc : closed;
}

}  // extern "C"
