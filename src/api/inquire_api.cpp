// C entry points that inquire about a file, its dimensions and variables.
// All are local: they answer from the metadata every rank holds.
#include <algorithm>
#include <cstring>

#include "api/api_support.hpp"
#include "convert/external.hpp"
#include "io/header_io.hpp"
#include "exacdf.h"

using exa::Status;
using exa::api::OpenFile;
using exa::api::with_file;
using exa::model::Dataset;

namespace {

// Runs fn(dataset) for an open ncid, as an inquiry through the file's stack.
template <typename Fn>
int with_dataset(const char* name, int ncid, Fn&& fn) {
  return with_file(name, ncid, [&](OpenFile& f) -> Status {
    // Through the stack as one inquiry call (layer/connector.hpp).
    auto answer = [&](const Dataset& ds) -> Status {
      const int64_t failures = ds.load_failures();
      Status st = fn(ds);
      // In a lazily opened partitioned file an id or name may fail because its
      // block could not be read: report that, not a missing object.
      if (!st.is_ok() && ds.load_failures() != failures) return ds.lazy_status();
      return st;
    };
    return f.connector->inquire(*f.state, name, answer);
  });
}

void copy_name(const std::string& s, char* out) {
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
}

Status dim_length(const Dataset& ds, int dimid, MPI_Offset* lenp) {
  if (!ds.valid_dim(dimid)) return {NC_EBADDIM, "invalid dimension id"};
  if (lenp) *lenp = dimid == ds.unlimited_dim() ? ds.numrecs() : ds.dim(dimid).length;
  return Status::ok();
}

Status var_of(const Dataset& ds, int varid, const exa::format::Variable** out) {
  if (varid == NC_GLOBAL) return {NC_EGLOBAL, "NC_GLOBAL is not a variable"};
  if (!ds.valid_var(varid)) return {NC_ENOTVAR, "invalid variable id"};
  *out = &ds.var(varid);
  return Status::ok();
}

int format_code(exa::format::Version v) {
  return v == exa::format::Version::kCdf5 ? NC_FORMAT_CDF5
       : v == exa::format::Version::kCdf2 ? NC_FORMAT_CDF2 : NC_FORMAT_CLASSIC;
}

}  // namespace

int ncmpi_inq(int ncid, int* ndimsp, int* nvarsp, int* ngattsp, int* unlimdimidp) {
  return with_dataset("ncmpi_inq", ncid, [&](const Dataset& ds) {
    if (ndimsp) *ndimsp = ds.ndims();
    if (nvarsp) *nvarsp = ds.nvars();
    if (ngattsp) *ngattsp = static_cast<int>(ds.header().gatts.size());
    if (unlimdimidp) *unlimdimidp = ds.unlimited_dim();
    return Status::ok();
  });
}

int ncmpi_inq_ndims(int ncid, int* p) { return ncmpi_inq(ncid, p, nullptr, nullptr, nullptr); }
int ncmpi_inq_nvars(int ncid, int* p) { return ncmpi_inq(ncid, nullptr, p, nullptr, nullptr); }
int ncmpi_inq_natts(int ncid, int* p) { return ncmpi_inq(ncid, nullptr, nullptr, p, nullptr); }
int ncmpi_inq_unlimdim(int ncid, int* p) { return ncmpi_inq(ncid, nullptr, nullptr, nullptr, p); }

int ncmpi_inq_num_rec_vars(int ncid, int* nvarsp) {
  return with_dataset("ncmpi_inq_num_rec_vars", ncid, [&](const Dataset& ds) -> Status {
    EXA_RETURN_IF_ERROR(ds.load_all());
    int n = 0;
    for (int id = 0; id < ds.nvars(); ++id) n += ds.is_record_var(id) ? 1 : 0;
    if (nvarsp) *nvarsp = n;
    return Status::ok();
  });
}

int ncmpi_inq_num_fix_vars(int ncid, int* nvarsp) {
  return with_dataset("ncmpi_inq_num_fix_vars", ncid, [&](const Dataset& ds) -> Status {
    EXA_RETURN_IF_ERROR(ds.load_all());
    int n = 0;
    for (int id = 0; id < ds.nvars(); ++id) n += ds.is_record_var(id) ? 0 : 1;
    if (nvarsp) *nvarsp = n;
    return Status::ok();
  });
}

int ncmpi_inq_format(int ncid, int* formatp) {
  return with_dataset("ncmpi_inq_format", ncid, [&](const Dataset& ds) {
    if (ds.partitioned()) {
      if (formatp) *formatp = EXA_FORMAT_PARTITIONED_V1;
      return Status::ok();
    }
    if (formatp) *formatp = format_code(ds.version());
    return Status::ok();
  });
}

int ncmpi_inq_version(int ncid, int* nc_mode) {
  return with_dataset("ncmpi_inq_version", ncid, [&](const Dataset& ds) {
    auto v = ds.version();
    if (nc_mode)
      *nc_mode = v == exa::format::Version::kCdf5 ? NC_64BIT_DATA
               : v == exa::format::Version::kCdf2 ? NC_64BIT_OFFSET : NC_CLASSIC_MODEL;
    return Status::ok();
  });
}

int ncmpi_inq_file_format(const char* filename, int* formatp) {
  return exa::api::guarded("ncmpi_inq_file_format", [&]() -> Status {
    if (filename == nullptr || *filename == '\0') return {NC_EINVAL, "empty path"};
    int fmt = NC_FORMAT_UNKNOWN;
    EXA_RETURN_IF_ERROR(exa::io::probe_format(filename, &fmt));
    if (formatp) *formatp = fmt;
    return Status::ok();
  });
}

int ncmpi_inq_striping(int ncid, int* striping_size, int* striping_count) {
  return with_file("ncmpi_inq_striping", ncid, [&](OpenFile& f) {
    auto facts = f.connector->facts(*f.state);
    if (striping_size) *striping_size = facts.striping_size;
    if (striping_count) *striping_count = facts.striping_count;
    return Status::ok();
  });
}

int ncmpi_inq_dimid(int ncid, const char* name, int* idp) {
  return with_dataset("ncmpi_inq_dimid", ncid, [&](const Dataset& ds) -> Status {
    if (name == nullptr) return {NC_EBADNAME, "null name"};
    int id = ds.find_dim(name);
    if (id < 0) return {NC_EBADDIM, "no such dimension"};
    if (idp) *idp = id;
    return Status::ok();
  });
}

int ncmpi_inq_dim(int ncid, int dimid, char* name, MPI_Offset* lenp) {
  return with_dataset("ncmpi_inq_dim", ncid, [&](const Dataset& ds) -> Status {
    EXA_RETURN_IF_ERROR(dim_length(ds, dimid, lenp));
    copy_name(ds.dim(dimid).name, name);
    return Status::ok();
  });
}

int ncmpi_inq_dimname(int ncid, int dimid, char* name) { return ncmpi_inq_dim(ncid, dimid, name, nullptr); }
int ncmpi_inq_dimlen(int ncid, int dimid, MPI_Offset* lenp) {
  return ncmpi_inq_dim(ncid, dimid, nullptr, lenp);
}

int ncmpi_inq_var(int ncid, int varid, char* name, nc_type* xtypep, int* ndimsp, int* dimidsp,
                  int* nattsp) {
  // As PnetCDF: NC_GLOBAL asked only for its number of attributes answers it.
  if (varid == NC_GLOBAL && !name && !xtypep && !ndimsp && !dimidsp)
    return ncmpi_inq_natts(ncid, nattsp);
  return with_dataset("ncmpi_inq_var", ncid, [&](const Dataset& ds) -> Status {
    const exa::format::Variable* v = nullptr;
    EXA_RETURN_IF_ERROR(var_of(ds, varid, &v));
    copy_name(v->name, name);
    if (xtypep) *xtypep = v->type;
    if (ndimsp) *ndimsp = static_cast<int>(v->dimids.size());
    if (dimidsp) std::copy(v->dimids.begin(), v->dimids.end(), dimidsp);
    if (nattsp) *nattsp = static_cast<int>(v->atts.size());
    return Status::ok();
  });
}

int ncmpi_inq_varname(int ncid, int varid, char* name) {
  return ncmpi_inq_var(ncid, varid, name, nullptr, nullptr, nullptr, nullptr);
}
int ncmpi_inq_vartype(int ncid, int varid, nc_type* xtypep) {
  return ncmpi_inq_var(ncid, varid, nullptr, xtypep, nullptr, nullptr, nullptr);
}
int ncmpi_inq_varndims(int ncid, int varid, int* ndimsp) {
  return ncmpi_inq_var(ncid, varid, nullptr, nullptr, ndimsp, nullptr, nullptr);
}
int ncmpi_inq_vardimid(int ncid, int varid, int* dimidsp) {
  return ncmpi_inq_var(ncid, varid, nullptr, nullptr, nullptr, dimidsp, nullptr);
}
int ncmpi_inq_varnatts(int ncid, int varid, int* nattsp) {
  // As PnetCDF: NC_GLOBAL gives the number of global attributes.
  if (varid == NC_GLOBAL) return ncmpi_inq_natts(ncid, nattsp);
  return ncmpi_inq_var(ncid, varid, nullptr, nullptr, nullptr, nullptr, nattsp);
}

int ncmpi_inq_varid(int ncid, const char* name, int* varidp) {
  return with_dataset("ncmpi_inq_varid", ncid, [&](const Dataset& ds) -> Status {
    if (name == nullptr) return {NC_EBADNAME, "null name"};
    int id = ds.find_var(name);
    if (id < 0) return {NC_ENOTVAR, "no such variable"};
    if (varidp) *varidp = id;
    return Status::ok();
  });
}

int ncmpi_inq_varoffset(int ncid, int varid, MPI_Offset* offset) {
  return with_dataset("ncmpi_inq_varoffset", ncid, [&](const Dataset& ds) -> Status {
    const exa::format::Variable* v = nullptr;
    EXA_RETURN_IF_ERROR(var_of(ds, varid, &v));
    // A record variable of a file with record sections: where record 0 would
    // be were the current section's records laid out from it, so that
    // offset + r * recsize is record r for every record of the current
    // section (the records before it are in closed sections).
    const auto& sections = ds.layout().sections;
    const bool sectioned = sections.present && ds.is_record_var(varid);
    if (offset)
      *offset = sectioned ? v->begin - int64_t(sections.current_first) * ds.layout().recsize : v->begin;
    return Status::ok();
  });
}

int ncmpi_inq_var_fill(int ncid, int varid, int* no_fill, void* fill_value) {
  return with_dataset("ncmpi_inq_var_fill", ncid, [&](const Dataset& ds) -> Status {
    const exa::format::Variable* v = nullptr;
    EXA_RETURN_IF_ERROR(var_of(ds, varid, &v));
    if (no_fill) *no_fill = ds.var_no_fill(varid) ? 1 : 0;
    if (!fill_value) return Status::ok();
    auto x = ds.fill_value_external(varid);
    return exa::convert::from_external(x.data(), v->type, v->type, 1, fill_value);
  });
}

int ncmpi_inq_header_size(int ncid, MPI_Offset* size) {
  return with_dataset("ncmpi_inq_header_size", ncid, [&](const Dataset& ds) {
    // A partitioned file: where its metadata (blocks, index table) ends.
    if (size) *size = ds.partitioned() ? ds.layout().header_size : exa::format::encoded_size(ds.header());
    return Status::ok();
  });
}

int ncmpi_inq_header_extent(int ncid, MPI_Offset* extent) {
  return with_dataset("ncmpi_inq_header_extent", ncid, [&](const Dataset& ds) {
    if (extent) *extent = ds.layout().header_extent;
    return Status::ok();
  });
}

int ncmpi_inq_recsize(int ncid, MPI_Offset* recsize) {
  return with_dataset("ncmpi_inq_recsize", ncid, [&](const Dataset& ds) {
    if (recsize) *recsize = ds.layout().recsize;
    return Status::ok();
  });
}

int ncmpi_inq_put_size(int ncid, MPI_Offset* size) {
  return with_file("ncmpi_inq_put_size", ncid, [&](OpenFile& f) {
    if (size) *size = f.connector->facts(*f.state).put_bytes;
    return Status::ok();
  });
}

int ncmpi_inq_get_size(int ncid, MPI_Offset* size) {
  return with_file("ncmpi_inq_get_size", ncid, [&](OpenFile& f) {
    if (size) *size = f.connector->facts(*f.state).get_bytes;
    return Status::ok();
  });
}

int ncmpi_inq_path(int ncid, int* pathlen, char* path) {
  return with_file("ncmpi_inq_path", ncid, [&](OpenFile& f) {
    auto facts = f.connector->facts(*f.state);
    if (pathlen) *pathlen = static_cast<int>(facts.path.size());
    copy_name(facts.path, path);
    return Status::ok();
  });
}

int ncmpi_inq_files_opened(int* num, int* ncids) {
  auto ids = exa::api::open_ncids();
  if (num) *num = static_cast<int>(ids.size());
  if (ncids) std::copy(ids.begin(), ids.end(), ncids);
  return NC_NOERR;
}

// Memory profiling is a build option of PnetCDF that is off by default; the
// metadata arena of exacdf reports its use through exa_* calls instead.
int ncmpi_inq_malloc_size(MPI_Offset*) { return NC_ENOTENABLED; }
int ncmpi_inq_malloc_max_size(MPI_Offset*) { return NC_ENOTENABLED; }
int ncmpi_inq_malloc_list(void) { return NC_ENOTENABLED; }

int exa_inq_io_calls(int ncid, MPI_Offset* ncalls) {
  return with_file("exa_inq_io_calls", ncid, [&](OpenFile& f) {
    if (ncalls) *ncalls = f.connector->facts(*f.state).io_calls;
    return Status::ok();
  });
}

int exa_inq_enddef_stats(int ncid, exa_enddef_stats* stats) {
  return with_file("exa_inq_enddef_stats", ncid, [&](OpenFile& f) {
    if (stats == nullptr) return Status{NC_EINVAL, "null stats"};
    const exa::layer::EnddefStats s = f.connector->facts(*f.state).last_enddef;
    *stats = {s.merge_check, s.merge_exchange, s.layout, s.header_io, s.total,
              s.new_objects, s.owned_objects};
    return Status::ok();
  });
}

int exa_inq_blocks(int ncid, MPI_Offset* nblocks) {
  return with_file("exa_inq_blocks", ncid, [&](OpenFile& f) {
    const auto* index = f.connector->facts(*f.state).blocks;
    if (index == nullptr && !f.connector->dataset(*f.state).partitioned())
      return Status{NC_ENOTSUPPORT, "not a partitioned file"};
    // (A new file has no index table before its first enddef.)
    if (nblocks) *nblocks = index ? static_cast<MPI_Offset>(index->nblocks()) : 0;
    return Status::ok();
  });
}

int exa_inq_generation(int ncid, long long* generation, int* newer_damaged) {
  return with_file("exa_inq_generation", ncid, [&](OpenFile& f) {
    const exa::layer::FileFacts facts = f.connector->facts(*f.state);
    if (!f.connector->dataset(*f.state).partitioned()) return Status{NC_ENOTSUPPORT, "not a partitioned file"};
    if (generation) *generation = facts.generation;
    if (newer_damaged) *newer_damaged = facts.newer_damaged ? 1 : 0;
    return Status::ok();
  });
}

int exa_inq_block(int ncid, MPI_Offset index, char* path, MPI_Offset* ndims, MPI_Offset* nvars,
                  MPI_Offset* natts, MPI_Offset* offset, MPI_Offset* size) {
  return with_file("exa_inq_block", ncid, [&](OpenFile& f) {
    auto* table = f.connector->facts(*f.state).blocks;
    if (table == nullptr && !f.connector->dataset(*f.state).partitioned())
      return Status{NC_ENOTSUPPORT, "not a partitioned file"};
    if (index < 0 || table == nullptr) return Status{NC_EINVAL, "block index out of range"};
    const exa::format::partitioned::BlockEntry* e = nullptr;  // (reads its index page if not loaded yet)
    EXA_RETURN_IF_ERROR(table->entry(static_cast<size_t>(index), &e));
    if (path) std::memcpy(path, e->path.c_str(), e->path.size() + 1);
    if (ndims) *ndims = static_cast<MPI_Offset>(e->ndims);
    if (nvars) *nvars = static_cast<MPI_Offset>(e->nvars);
    if (natts) *natts = static_cast<MPI_Offset>(e->natts);
    if (offset) *offset = static_cast<MPI_Offset>(e->offset);
    if (size) *size = static_cast<MPI_Offset>(e->size);
    return Status::ok();
  });
}

int exa_inq_heartbeat(int ncid, long long* heartbeat_us) {
  return with_file("exa_inq_heartbeat", ncid, [&](OpenFile& f) {
    if (heartbeat_us == nullptr) return Status{NC_EINVAL, "null heartbeat"};
    *heartbeat_us = f.connector->facts(*f.state).heartbeat_us;
    return Status::ok();
  });
}
