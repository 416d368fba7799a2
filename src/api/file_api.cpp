// C entry points for files: create, open, define/data mode switches, sync,
// close, abort, delete, fill mode, default format, file info.
#include <mpi.h>

#include <cstring>

#include "api/api_support.hpp"
#include "api/query_close.hpp"
#include "layer/native_connector.hpp"
#include "exacdf.h"
#include "pnetcdf.h"
#include "query/mpi/index_store.hpp"
#include "query/mpi/put_epoch.hpp"

using exa::Status;
using exa::api::OpenFile;
using exa::api::with_file;

namespace {

int open_or_create(const char* fn, MPI_Comm comm, const char* path, int mode, MPI_Info info,
                   int* ncidp, bool create) {
  return exa::api::guarded(fn, [&]() -> Status {
    if (path == nullptr || *path == '\0') return {NC_EINVAL, "empty path"};
    if (ncidp == nullptr) return {NC_EINVAL, "null ncid pointer"};
    auto file = std::make_unique<OpenFile>();
    exa::layer::AgreedMode agreed{mode, create ? NC_EMULTIDEFINE_CMODE : NC_EMULTIDEFINE_OMODE, {}};
    EXA_RETURN_IF_ERROR(exa::layer::build_connector_stack(comm, info, &agreed, &file->stack));
    file->connector = file->stack->top();
    Status st = create ? file->connector->create(comm, path, agreed.mode, info, &file->state)
                       : file->connector->open(comm, path, agreed.mode, info, &file->state);
    // A file comes with an error only when this rank's mode differed from
    // rank 0's (NC_EMULTIDEFINE_CMODE/_OMODE): opened with rank 0's mode,
    // its ncid is valid, as in PnetCDF.
    if (!file->state) return st;
    if (st.is_ok()) st = agreed.mismatch;
    const exa::layer::FileFacts facts = file->connector->facts(*file->state);
    file->path = facts.path;
    if (!facts.generation_problem.empty()) exa::api::warn(fn, path + std::string(": ") + facts.generation_problem);
    const std::string opened = file->path;
    *ncidp = exa::api::add_file(std::move(file));
    // Sidecars current at the open of a classic file for writing: this
    // process's puts extend them at the close (query/mpi/index_store.hpp).
    if (!create && st.is_ok() && (agreed.mode & NC_WRITE) != 0) exa::query::trust_at_open(*ncidp, opened);
    return st;
  });
}

// Runs a connector call that ends the file's life (close/abort): the id is
// gone afterwards whatever the outcome, as in PnetCDF.
template <typename Fn>
int finish_file(const char* fn, int ncid, Fn&& call) {
  int rc = with_file(fn, ncid, [&](OpenFile& f) { return call(f); });
  if (rc != NC_EBADID) exa::api::remove_file(ncid);
  return rc;
}

}  // namespace

int ncmpi_create(MPI_Comm comm, const char* path, int cmode, MPI_Info info, int* ncidp) {
  return open_or_create("ncmpi_create", comm, path, cmode, info, ncidp, true);
}

int ncmpi_open(MPI_Comm comm, const char* path, int omode, MPI_Info info, int* ncidp) {
  return open_or_create("ncmpi_open", comm, path, omode, info, ncidp, false);
}

int ncmpi_enddef(int ncid) {
  return with_file("ncmpi_enddef", ncid, [](OpenFile& f) { return f.connector->enddef(*f.state, nullptr); });
}

int ncmpi__enddef(int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree,
                  MPI_Offset r_align) {
  return with_file("ncmpi__enddef", ncid, [&](OpenFile& f) -> Status {
    if (h_minfree < 0 || v_align < 0 || v_minfree < 0 || r_align < 0)
      return {NC_EINVAL, "negative alignment argument"};
    exa::format::LayoutHints args;
    args.header_minfree = h_minfree;
    args.enddef_v_align = v_align;
    args.var_minfree = v_minfree;
    args.enddef_r_align = r_align;
    return f.connector->enddef(*f.state, &args);
  });
}

int ncmpi_redef(int ncid) {
  return with_file("ncmpi_redef", ncid, [](OpenFile& f) { return f.connector->redef(*f.state); });
}

int ncmpi_sync(int ncid) {
  return with_file("ncmpi_sync", ncid, [](OpenFile& f) { return f.connector->sync(*f.state); });
}

int exa_refresh(int ncid) {
  return with_file("exa_refresh", ncid, [](OpenFile& f) { return f.connector->refresh(*f.state); });
}

int ncmpi_flush(int ncid) {
  return with_file("ncmpi_flush", ncid, [](OpenFile& f) { return f.connector->flush(*f.state); });
}

int ncmpi_sync_numrecs(int ncid) {
  return with_file("ncmpi_sync_numrecs", ncid,
                   [](OpenFile& f) { return f.connector->sync_numrecs(*f.state); });
}

int ncmpi_begin_indep_data(int ncid) {
  return with_file("ncmpi_begin_indep_data", ncid,
                   [](OpenFile& f) { return f.connector->begin_indep(*f.state); });
}

int ncmpi_end_indep_data(int ncid) {
  return with_file("ncmpi_end_indep_data", ncid,
                   [](OpenFile& f) { return f.connector->end_indep(*f.state); });
}

int ncmpi_close(int ncid) {
  return exa::api::close_with_query_stamp("ncmpi_close", ncid, [ncid] {
    return finish_file("ncmpi_close", ncid, [](OpenFile& f) { return f.connector->close(*f.state); });
  });
}

int ncmpi_abort(int ncid) {
  exa::query::forget_file(ncid);
  return finish_file("ncmpi_abort", ncid, [](OpenFile& f) { return f.connector->abort(*f.state); });
}

int ncmpi_delete(const char* filename, MPI_Info info) {
  return exa::api::guarded("ncmpi_delete", [&]() -> Status {
    if (filename == nullptr || *filename == '\0') return {NC_EINVAL, "empty path"};
    int err = MPI_File_delete(filename, info);
    if (err == MPI_SUCCESS) return Status::ok();
    int cls = MPI_ERR_OTHER;  // (a failing MPI_Error_class leaves it: NC_EFILE below)
    if (MPI_Error_class(err, &cls) != MPI_SUCCESS) cls = MPI_ERR_OTHER;
    if (cls == MPI_ERR_NO_SUCH_FILE) return {NC_ENOENT, "no such file"};
    if (cls == MPI_ERR_ACCESS) return {NC_EACCESS, "permission denied"};
    return {NC_EFILE, "MPI_File_delete failed"};
  });
}

int ncmpi_set_fill(int ncid, int fillmode, int* old_modep) {
  return with_file("ncmpi_set_fill", ncid,
                   [&](OpenFile& f) { return f.connector->set_fill(*f.state, fillmode, old_modep); });
}

int ncmpi_def_var_fill(int ncid, int varid, int no_fill, const void* fill_value) {
  return with_file("ncmpi_def_var_fill", ncid, [&](OpenFile& f) {
    return f.connector->def_var_fill(*f.state, varid, no_fill, fill_value);
  });
}

int ncmpi_fill_var_rec(int ncid, int varid, MPI_Offset recno) {
  return with_file("ncmpi_fill_var_rec", ncid,
                   [&](OpenFile& f) { return f.connector->fill_var_rec(*f.state, varid, recno); });
}

int ncmpi_set_default_format(int format, int* old_formatp) {
  return exa::api::guarded("ncmpi_set_default_format", [&]() -> Status {
    if (old_formatp) *old_formatp = exa::layer::default_create_format();
    if (format != NC_FORMAT_CLASSIC && format != NC_FORMAT_CDF2 && format != NC_FORMAT_CDF5 &&
        format != EXA_FORMAT_PARTITIONED_V1)
      return {NC_EINVAL, "unsupported default format"};
    exa::layer::set_default_create_format(format);
    return Status::ok();
  });
}

int ncmpi_inq_default_format(int* formatp) {
  if (formatp == nullptr) return NC_EINVAL;
  *formatp = exa::layer::default_create_format();
  return NC_NOERR;
}

int ncmpi_inq_file_info(int ncid, MPI_Info* info_used) {
  return with_file("ncmpi_inq_file_info", ncid, [&](OpenFile& f) -> Status {
    if (info_used == nullptr) return {NC_EINVAL, "null info pointer"};
    return f.connector->file_info(*f.state, info_used);
  });
}

int ncmpi_get_file_info(int ncid, MPI_Info* info_used) { return ncmpi_inq_file_info(ncid, info_used); }
