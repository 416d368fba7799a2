#include "layer/safe_mode_connector.hpp"

#include <cstring>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "convert/external.hpp"
#include "format/classic_header.hpp"
#include "io/collective.hpp"
#include "io/mpi_errors.hpp"

namespace exa::layer {

namespace {

uint64_t digest(const void* data, size_t n, uint64_t h = 1469598103934665603ULL) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}
uint64_t digest_str(const char* s) { return s ? digest(s, std::strlen(s)) : 0; }
template <typename T>
uint64_t digest_val(const T& v) { return digest(&v, sizeof v); }

struct Field {
  int code;       // the NC_EMULTIDEFINE_* code when this argument differs
  uint64_t hash;  // digest of the argument on this rank
};

// Every safe-mode check is one allreduce of the same size, whatever the call:
// a digest of the call's name, the worst error code of the ranks, then up to
// kMaxFields argument digests (the max of a value and of its complement tells
// whether every rank had the same). Ranks that made different collective
// calls (rank 0 a put in define mode while rank 1 ends define mode) thus meet
// in the same allreduce and all return an error instead of waiting in
// different collectives.
constexpr size_t kMaxFields = 5;

Status compare_fields(MPI_Comm comm, const char* call, const Status& local,
                      std::initializer_list<Field> fields) {
  std::vector<uint64_t> v;
  const uint64_t tag = digest_str(call);
  v.push_back(tag);
  v.push_back(~tag);
  v.push_back(local.is_ok() ? 0 : static_cast<uint64_t>(-int64_t{local.code()}));
  for (const Field& f : fields) {
    v.push_back(f.hash);
    v.push_back(~f.hash);
  }
  v.resize(3 + 2 * kMaxFields, 0);
  for (size_t i = 4 + 2 * fields.size(); i < v.size(); i += 2) v[i] = ~uint64_t{0};
  int err = MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_MAX, comm);
  EXA_RETURN_IF_ERROR(io::from_mpi(err, io::MpiOp::kOther, "MPI_Allreduce of a safe-mode check"));
  if (!local.is_ok()) return local;
  if (v[2] != 0) return {-static_cast<int>(v[2]), "error reported by another rank"};
  if (v[0] != ~v[1]) return {NC_EMULTIDEFINE_FNC_ARGS, "ranks made different collective calls"};
  size_t i = 3;
  for (const Field& f : fields) {
    if (v[i] != ~v[i + 1]) return {f.code, "ranks passed different arguments to a collective call"};
    i += 2;
  }
  return Status::ok();
}

template <typename Call>
Status checked(FileState& f, const char* call_name, std::initializer_list<Field> fields, Call&& call) {
  EXA_RETURN_IF_ERROR(compare_fields(f.comm(), call_name, Status::ok(), fields));
  return io::agree(f.comm(), call());
}

// In independent define mode the define calls are local: nothing to compare
// (enddef's merge checks shared objects instead).
bool defines_locally(Connector& c, FileState& f) {
  FileFacts facts = c.facts(f);
  return facts.independent_define && facts.define_mode;
}

template <typename Call>
Status checked_define(Connector& c, FileState& f, const char* call_name, std::initializer_list<Field> fields,
                      Call&& call) {
  if (defines_locally(c, f)) return call();
  return checked(f, call_name, fields, call);
}

}  // namespace

Status SafeModeConnector::enddef(FileState& f, const format::LayoutHints* a) {
  if (!defines_locally(*this, f)) {
    auto bytes = dataset(f).encode_file_header();
    EXA_RETURN_IF_ERROR(
        compare_fields(f.comm(), "enddef", Status::ok(), {{NC_EMULTIDEFINE, digest(bytes.data(), bytes.size())}}));
  }
  return io::agree(f.comm(), next()->enddef(below(f), a));
}

Status SafeModeConnector::redef(FileState& f) {
  return io::agree(f.comm(), next()->redef(below(f)));
}

Status SafeModeConnector::set_fill(FileState& f, int mode, int* old) {
  return checked(f, "set_fill", {{NC_EMULTIDEFINE_FILL_MODE, digest_val(mode)}},
                 [&] { return next()->set_fill(below(f), mode, old); });
}

Status SafeModeConnector::def_dim(FileState& f, const char* name, MPI_Offset len, int* id) {
  return checked_define(*this, f, "def_dim", {{NC_EMULTIDEFINE_DIM_NAME, digest_str(name)},
                     {NC_EMULTIDEFINE_DIM_SIZE, digest_val(len)}},
                 [&] { return next()->def_dim(below(f), name, len, id); });
}

Status SafeModeConnector::def_var(FileState& f, const char* name, nc_type type, int ndims,
                                  const int* dimids, int* id) {
  uint64_t dims = dimids && ndims > 0 ? digest(dimids, sizeof(int) * static_cast<size_t>(ndims)) : 0;
  return checked_define(*this, f, "def_var", {{NC_EMULTIDEFINE_VAR_NAME, digest_str(name)},
                     {NC_EMULTIDEFINE_VAR_NDIMS, digest_val(ndims)},
                     {NC_EMULTIDEFINE_VAR_TYPE, digest_val(type)},
                     {NC_EMULTIDEFINE_VAR_DIMIDS, dims}},
                 [&] { return next()->def_var(below(f), name, type, ndims, dimids, id); });
}

Status SafeModeConnector::def_var_fill(FileState& f, int varid, int no_fill, const void* value) {
  uint64_t fill = 0;
  const auto& ds = dataset(f);
  if (value && ds.valid_var(varid)) {
    nc_type t = ds.var(varid).type;
    fill = digest(value, static_cast<size_t>(convert::native_size(t)));
  }
  return checked_define(*this, f, "def_var_fill", {{NC_EMULTIDEFINE_FNC_ARGS, digest_val(varid)},
                     {NC_EMULTIDEFINE_VAR_FILL_MODE, digest_val(no_fill)},
                     {NC_EMULTIDEFINE_VAR_FILL_VALUE, fill}},
                 [&] { return next()->def_var_fill(below(f), varid, no_fill, value); });
}

Status SafeModeConnector::rename_dim(FileState& f, int dimid, const char* name) {
  return checked_define(*this, f, "rename_dim", {{NC_EMULTIDEFINE_FNC_ARGS, digest_val(dimid)},
                     {NC_EMULTIDEFINE_DIM_NAME, digest_str(name)}},
                 [&] { return next()->rename_dim(below(f), dimid, name); });
}

Status SafeModeConnector::rename_var(FileState& f, int varid, const char* name) {
  return checked_define(*this, f, "rename_var", {{NC_EMULTIDEFINE_FNC_ARGS, digest_val(varid)},
                     {NC_EMULTIDEFINE_VAR_NAME, digest_str(name)}},
                 [&] { return next()->rename_var(below(f), varid, name); });
}

Status SafeModeConnector::put_att(FileState& f, int varid, const char* name, nc_type xtype,
                                  MPI_Offset nelems, const void* values, nc_type memtype) {
  int64_t width = convert::native_size(memtype);
  uint64_t vals = (values && nelems > 0 && width > 0)
                      ? digest(values, static_cast<size_t>(nelems * width)) : 0;
  return checked_define(*this, f, "put_att", {{NC_EMULTIDEFINE_FNC_ARGS, digest_val(varid)},
                     {NC_EMULTIDEFINE_ATTR_NAME, digest_str(name)},
                     {NC_EMULTIDEFINE_ATTR_TYPE, digest_val(xtype)},
                     {NC_EMULTIDEFINE_ATTR_LEN, digest_val(nelems)},
                     {NC_EMULTIDEFINE_ATTR_VAL, vals}},
                 [&] { return next()->put_att(below(f), varid, name, xtype, nelems, values, memtype); });
}

Status SafeModeConnector::del_att(FileState& f, int varid, const char* name) {
  return checked_define(*this, f, "del_att", {{NC_EMULTIDEFINE_FNC_ARGS, digest_val(varid)},
                     {NC_EMULTIDEFINE_ATTR_NAME, digest_str(name)}},
                 [&] { return next()->del_att(below(f), varid, name); });
}

Status SafeModeConnector::rename_att(FileState& f, int varid, const char* name,
                                     const char* new_name) {
  return checked_define(*this, f, "rename_att", {{NC_EMULTIDEFINE_FNC_ARGS, digest_val(varid)},
                     {NC_EMULTIDEFINE_ATTR_NAME, digest_str(name)},
                     {NC_EMULTIDEFINE_ATTR_NAME, digest_str(new_name)}},
                 [&] { return next()->rename_att(below(f), varid, name, new_name); });
}

}  // namespace exa::layer

namespace exa::layer {

// Collective data calls: every rank's argument checks are agreed before any
// rank moves data, so an error on one rank is every rank's and nothing is
// written (PnetCDF's safe mode does the same).
Status SafeModeConnector::put(FileState& f, const DataRequest& req) {
  if (req.collective)
    EXA_RETURN_IF_ERROR(compare_fields(f.comm(), "put", next()->check_data(below(f), req, true, false), {}));
  return next()->put(below(f), req);
}

Status SafeModeConnector::get(FileState& f, const DataRequest& req) {
  if (req.collective)
    EXA_RETURN_IF_ERROR(compare_fields(f.comm(), "get", next()->check_data(below(f), req, false, false), {}));
  return next()->get(below(f), req);
}

Status SafeModeConnector::vard(FileState& f, int varid, MPI_Datatype filetype, void* buf,
                               MPI_Offset bufcount, MPI_Datatype buftype, bool put, bool collective) {
  if (collective) {
    DataRequest probe;
    probe.varid = varid;
    probe.collective = true;
    EXA_RETURN_IF_ERROR(
        compare_fields(f.comm(), put ? "put_vard" : "get_vard", next()->check_data(below(f), probe, put, true), {}));
  }
  return next()->vard(below(f), varid, filetype, buf, bufcount, buftype, put, collective);
}

// A blocking collective varn call posts a request and waits on it: its
// checks are agreed before the post, so a rank whose arguments fail fails
// every rank and nothing is posted (the wait then moves nothing anywhere).
Status SafeModeConnector::post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) {
  if (req.blocking && req.collective && req.varn) {
    if (reqid) *reqid = NC_REQ_NULL;
    const bool put = kind != PostKind::kIget;
    EXA_RETURN_IF_ERROR(
        compare_fields(f.comm(), put ? "put_varn" : "get_varn", next()->check_data(below(f), req, put, false), {}));
  }
  return next()->post(below(f), req, kind, reqid);
}

}  // namespace exa::layer
