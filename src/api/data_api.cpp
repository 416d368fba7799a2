// C entry points for blocking data calls. Every typed variant (type x
// var1/var/vara/vars x put/get x independent/_all) and every flexible form is
// generated from EXACDF_FOR_EACH_DATA_TYPE; all of them reach data_call().
#include <optional>
#include <vector>

#include "api/api_support.hpp"
#include "api/file_order_put.hpp"
#include "api/memtypes.hpp"
#include "api/request_builder.hpp"
#include "api/put_notes.hpp"
#include "convert/external.hpp"
#include "layer/put_range.hpp"
#include "layer/data_checks.hpp"
#include "pnetcdf.h"

using exa::Status;
using exa::api::OpenFile;

namespace {

using exa::api::Kind;

int data_call(const char* fn, int ncid, int varid, Kind kind, const MPI_Offset* start,
              const MPI_Offset* count, const MPI_Offset* stride, const MPI_Offset* imap,
              const void* buf, MPI_Offset bufcount, MPI_Datatype buftype, nc_type memtype,
              bool put, bool collective, bool in_file_order = false, int64_t nvalues = 0) {
  const exa::api::RequestArgs a{varid, kind, start, count, stride, imap, buf, bufcount, buftype,
                                memtype, collective};
  return exa::api::with_file(fn, ncid, [&](OpenFile& f) -> Status {
    // Values already in the file's byte order go out as they are on a stack
    // of native alone (the same on every rank: the stack is agreed at open);
    // any other connector takes them in native order, so they are swapped back.
    const bool as_is = in_file_order && f.stack->names() == "native";
    if (in_file_order && !as_is)
      exa::convert::swap_bytes_in_place(const_cast<void*>(buf), exa::convert::native_size(memtype), nvalues);
    std::vector<MPI_Offset> storage;
    if (collective) f.connector->prepare_collective(*f.state, varid);
    const exa::model::Dataset& ds = f.connector->dataset(*f.state);
    auto req = exa::api::make_request(ds, a, &storage);
    req.call = fn;
    req.external_order = as_is;
    // The argument checks, once, above the stack (PnetCDF's dispatcher). A
    // collective call with bad arguments still goes down (safe mode agrees on
    // errors; native takes part in collective I/O with nothing).
    const exa::layer::CallModes modes = f.connector->modes(*f.state);
    Status checked = exa::layer::check_data_args(ds, modes, req, put, /*data_mode=*/true);
    if (!checked.is_ok()) {
      if (!exa::layer::reaches_stack_despite_error(req)) return checked;
      req.args_error = checked.code();
    }
    // A put's conversion pass takes its values' range for the query layer.
    std::optional<exa::layer::PutRangeScope> range;
    exa::convert::SegmentedRange segments;
    exa::query::PutVarShape shape;  // (looked up once when the range is taken)
    if (put && checked.is_ok() && !as_is && exa::api::query_put_takes_range(ncid, f, a, &segments, &shape))
      range.emplace(varid, buf, std::move(segments));
    Status done = put ? f.connector->put(*f.state, req) : f.connector->get(*f.state, req);
    // Index chunks of the rows written go stale: noted once the arguments
    // are known good (the note reads the values by the call's counts), even
    // when the I/O failed (it may have written part); its rows count as
    // written whole only when it succeeded.
    if (put && checked.is_ok()) {
      exa::api::RequestArgs noted = a;
      if (as_is) noted.memtype = NC_NAT;  // its rows are noted, its values (not native) are not read
      // A stack that defers the write (async, cache): the rows count as
      // written whole once its deferred puts are settled (exa::query::settle_puts).
      const bool at_once = f.stack->writes_at_once();
      exa::api::note_query_put(ncid, f, noted, done.is_ok() && at_once, range ? range->range() : nullptr,
                               done.is_ok() && !at_once ? exa::query::kDeferredPut : -1,
                               range ? &shape : nullptr);
    }
    return checked.is_ok() ? done : checked;
  });
}

}  // namespace

namespace exa::api {

int put_vara_in_file_order(int ncid, int varid, const MPI_Offset* start, const MPI_Offset* count,
                           unsigned long long* buf, int64_t nvalues, bool collective) {
  return data_call(collective ? "ncmpi_put_vara_ulonglong_all" : "ncmpi_put_vara_ulonglong", ncid, varid,
                   Kind::kVara, start, count, nullptr, nullptr, buf, -1, MPI_DATATYPE_NULL,
                   memtype_of<unsigned long long>(), true, collective, true, nvalues);
}

}  // namespace exa::api

#define EXA_NAME_(OP, KIND, NAME, SFX) "ncmpi_" #OP "_" #KIND "_" #NAME #SFX
#define EXA_DATA_KINDS_(OP, CQ, NAME, CTYPE, SFX, PUT, COLL)                                     \
  int ncmpi_##OP##_var1_##NAME##SFX(int ncid, int varid, const MPI_Offset* start, CQ CTYPE* buf) { \
    return data_call(EXA_NAME_(OP, var1, NAME, SFX), ncid, varid, Kind::kVar1, start, nullptr,  \
                     nullptr, nullptr, buf, -1, MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), PUT,  \
                     COLL);                                                                     \
  }                                                                                             \
  int ncmpi_##OP##_var_##NAME##SFX(int ncid, int varid, CQ CTYPE* buf) {                        \
    return data_call(EXA_NAME_(OP, var, NAME, SFX), ncid, varid, Kind::kVar, nullptr, nullptr,  \
                     nullptr, nullptr, buf, -1, MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), PUT,  \
                     COLL);                                                                     \
  }                                                                                             \
  int ncmpi_##OP##_vara_##NAME##SFX(int ncid, int varid, const MPI_Offset* start,               \
                                    const MPI_Offset* count, CQ CTYPE* buf) {                   \
    return data_call(EXA_NAME_(OP, vara, NAME, SFX), ncid, varid, Kind::kVara, start, count,    \
                     nullptr, nullptr, buf, -1, MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), PUT,  \
                     COLL);                                                                     \
  }                                                                                             \
  int ncmpi_##OP##_vars_##NAME##SFX(int ncid, int varid, const MPI_Offset* start,               \
                                    const MPI_Offset* count, const MPI_Offset* stride,          \
                                    CQ CTYPE* buf) {                                            \
    return data_call(EXA_NAME_(OP, vars, NAME, SFX), ncid, varid, Kind::kVars, start, count,    \
                     stride, nullptr, buf, -1, MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), PUT,   \
                     COLL);                                                                     \
  }                                                                                             \
  int ncmpi_##OP##_varm_##NAME##SFX(int ncid, int varid, const MPI_Offset* start,               \
                                    const MPI_Offset* count, const MPI_Offset* stride,          \
                                    const MPI_Offset* imap, CQ CTYPE* buf) {                    \
    return data_call(EXA_NAME_(OP, varm, NAME, SFX), ncid, varid, Kind::kVarm, start, count,    \
                     stride, imap, buf, -1, MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(),  \
                     PUT, COLL);                                                                \
  }
#define EXA_DATA_DEFINE_(NAME, CTYPE)                             \
  EXA_DATA_KINDS_(put, const, NAME, CTYPE, , true, false)         \
  EXA_DATA_KINDS_(put, const, NAME, CTYPE, _all, true, true)      \
  EXA_DATA_KINDS_(get, , NAME, CTYPE, , false, false)             \
  EXA_DATA_KINDS_(get, , NAME, CTYPE, _all, false, true)
EXACDF_FOR_EACH_DATA_TYPE(EXA_DATA_DEFINE_)
#undef EXA_DATA_DEFINE_
#undef EXA_DATA_KINDS_

#define EXA_FLEX_DEFINE_(OP, CQ, SFX, PUT, COLL)                                                 \
  int ncmpi_##OP##_var1##SFX(int ncid, int varid, const MPI_Offset* start, CQ void* buf,        \
                             MPI_Offset bufcount, MPI_Datatype buftype) {                       \
    return data_call("ncmpi_" #OP "_var1" #SFX, ncid, varid, Kind::kVar1, start, nullptr,       \
                     nullptr, nullptr, buf, bufcount, buftype, NC_NAT, PUT, COLL);                       \
  }                                                                                             \
  int ncmpi_##OP##_var##SFX(int ncid, int varid, CQ void* buf, MPI_Offset bufcount,             \
                            MPI_Datatype buftype) {                                             \
    return data_call("ncmpi_" #OP "_var" #SFX, ncid, varid, Kind::kVar, nullptr, nullptr,       \
                     nullptr, nullptr, buf, bufcount, buftype, NC_NAT, PUT, COLL);                       \
  }                                                                                             \
  int ncmpi_##OP##_vara##SFX(int ncid, int varid, const MPI_Offset* start,                      \
                             const MPI_Offset* count, CQ void* buf, MPI_Offset bufcount,        \
                             MPI_Datatype buftype) {                                            \
    return data_call("ncmpi_" #OP "_vara" #SFX, ncid, varid, Kind::kVara, start, count,         \
                     nullptr, nullptr, buf, bufcount, buftype, NC_NAT, PUT, COLL);                       \
  }                                                                                             \
  int ncmpi_##OP##_vars##SFX(int ncid, int varid, const MPI_Offset* start,                      \
                             const MPI_Offset* count, const MPI_Offset* stride, CQ void* buf,   \
                             MPI_Offset bufcount, MPI_Datatype buftype) {                       \
    return data_call("ncmpi_" #OP "_vars" #SFX, ncid, varid, Kind::kVars, start, count,         \
                     stride, nullptr, buf, bufcount, buftype, NC_NAT, PUT, COLL);               \
  }                                                                                             \
  int ncmpi_##OP##_varm##SFX(int ncid, int varid, const MPI_Offset* start,                      \
                             const MPI_Offset* count, const MPI_Offset* stride,                 \
                             const MPI_Offset* imap, CQ void* buf, MPI_Offset bufcount,         \
                             MPI_Datatype buftype) {                                            \
    return data_call("ncmpi_" #OP "_varm" #SFX, ncid, varid, Kind::kVarm, start, count,         \
                     stride, imap, buf, bufcount, buftype, NC_NAT, PUT, COLL);                  \
  }
EXA_FLEX_DEFINE_(put, const, , true, false)
EXA_FLEX_DEFINE_(put, const, _all, true, true)
EXA_FLEX_DEFINE_(get, , , false, false)
EXA_FLEX_DEFINE_(get, , _all, false, true)
#undef EXA_FLEX_DEFINE_
#undef EXA_NAME_
