// C entry points for nonblocking and buffered requests (iput/iget/bput of
// every kind and type, generated from EXACDF_FOR_EACH_DATA_TYPE), waiting,
// cancelling, the bput buffer, and the blocking calls built on requests:
// varn (many subarrays of one variable) and mput/mget (many variables).
#include <algorithm>
#include <optional>
#include <vector>

#include "api/api_support.hpp"
#include "api/memtypes.hpp"
#include "api/request_builder.hpp"
#include "api/put_notes.hpp"
#include "layer/put_range.hpp"
#include "pnetcdf.h"

using exa::Status;
using exa::api::Kind;
using exa::api::OpenFile;
using exa::api::RequestArgs;
using exa::api::with_file;
using exa::layer::PostKind;

namespace {

int post_call(const char* fn, int ncid, const RequestArgs& a, PostKind kind, int* req) {
  return with_file(fn, ncid, [&](OpenFile& f) -> Status {
    std::vector<MPI_Offset> storage;
    auto r = exa::api::make_request(f.connector->dataset(*f.state), a, &storage);
    int id = NC_REQ_NULL;  // the terminal connector gives it (layer/connector.hpp)
    // A put's conversion at post takes its values' range for the query
    // layer, as a blocking put's does (layer/put_range.hpp).
    const bool put = kind != PostKind::kIget;
    std::optional<exa::layer::PutRangeScope> range;
    exa::convert::SegmentedRange segments;
    if (put && exa::api::query_put_takes_range(ncid, f, a, &segments)) range.emplace(a.varid, a.buf, segments);
    Status posted = f.connector->post(*f.state, r, kind, &id);
    if (req) *req = id;
    // Noted once posting accepted the arguments (the note reads the values
    // by the call's counts); its rows count as written whole once its wait
    // succeeds (wait_in_mode), through a stack that writes at once.
    if ((posted.is_ok() || posted.code() == NC_ERANGE) && put) {
      const int credit = posted.is_ok() && id != NC_REQ_NULL && f.stack->writes_at_once() ? id : -1;
      exa::api::note_query_put(ncid, f, a, /*written=*/false, range ? range->range() : nullptr, credit);
    }
    return posted;
  });
}

// The request of a varn call (num subarrays whose elements follow one another);
// the layer checks it (plan_pieces), in PnetCDF's order.
void varn_request(int varid, int num, MPI_Offset* const* starts, MPI_Offset* const* counts,
                  const void* buf, MPI_Offset bufcount, MPI_Datatype buftype, nc_type memtype,
                  exa::layer::DataRequest* r) {
  r->varn = true;
  r->varid = varid;
  r->buf = const_cast<void*>(buf);
  r->bufcount = bufcount;
  r->buftype = buftype;
  r->memtype = memtype;
  r->npieces = num;
  r->starts = starts;
  r->counts = counts;
}

// A varn put's conversion at post takes its values' ranges, a segment per
// subarray (cut at the min/max chunks' rows), when the query layer wants them.
// (*range: opened in place, where it stays until the call returns.)
void open_varn_range(int ncid, OpenFile& f, const exa::layer::DataRequest& r, bool put,
                     std::optional<exa::layer::PutRangeScope>* range) {
  exa::convert::SegmentedRange segments;
  if (put && exa::api::query_varn_takes_range(ncid, f, r.varid, r.npieces, r.starts, r.counts, r.buftype,
                                              r.memtype, &segments))
    range->emplace(r.varid, r.buf, segments);
}

// Notes a posted varn put: with the ranges its conversion took, its rows of
// whole rows count as written once request `id`'s wait succeeds (through a
// stack that writes at once).
void note_varn(int ncid, OpenFile& f, const exa::layer::DataRequest& r,
               const std::optional<exa::layer::PutRangeScope>& range, int id) {
  const int credit = id != NC_REQ_NULL && f.stack->writes_at_once() ? id : -1;
  exa::api::note_query_put_varn(ncid, f, r.varid, r.npieces, r.starts, r.counts, r.buf,
                                r.buftype == MPI_DATATYPE_NULL ? r.memtype : NC_NAT,
                                range ? range->range() : nullptr, credit);
}

int post_varn(const char* fn, int ncid, int varid, int num, MPI_Offset* const* starts,
              MPI_Offset* const* counts, const void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, nc_type memtype, PostKind kind, int* req) {
  return with_file(fn, ncid, [&](OpenFile& f) -> Status {
    exa::layer::DataRequest r;
    varn_request(varid, num, starts, counts, buf, bufcount, buftype, memtype, &r);
    int id = NC_REQ_NULL;
    std::optional<exa::layer::PutRangeScope> range;
    open_varn_range(ncid, f, r, kind != PostKind::kIget, &range);
    Status posted = f.connector->post(*f.state, r, kind, &id);
    if (req) *req = id;
    if ((posted.is_ok() || posted.code() == NC_ERANGE) && kind != PostKind::kIget)
      note_varn(ncid, f, r, range, posted.is_ok() ? id : NC_REQ_NULL);
    return posted;
  });
}

// A blocking call made of requests: check the data mode (unless posting
// checks it: `post_checks_mode`), post, then wait on exactly the requests
// posted here (collectively for _all, where a rank whose post failed still
// takes part with nothing).
template <typename PostFn>
int blocking_via_requests(const char* fn, int ncid, bool collective, bool post_checks_mode,
                          PostFn&& post_all) {
  return with_file(fn, ncid, [&](OpenFile& f) -> Status {
    // modes(), not facts(): a connector that defers work (async) would
    // finish it first to report facts.
    const exa::layer::CallModes facts = f.connector->modes(*f.state);
    if (!post_checks_mode) {
      if (facts.define_mode) return {NC_EINDEFINE, "in define mode"};
      if (collective && facts.indep_mode) return {NC_EINDEP, "collective call in independent mode"};
      if (!collective && !facts.indep_mode) return {NC_ENOTINDEP, "independent call in collective mode"};
    }
    std::vector<int> ids;
    Status posted = post_all(f, &ids);
    std::vector<int> statuses(ids.size(), NC_NOERR);
    const std::vector<int> posted_ids = ids;  // (the wait sets each id to NC_REQ_NULL)
    Status waited = f.connector->wait(*f.state, static_cast<int>(ids.size()), ids.data(),
                                      statuses.data(), collective);
    for (size_t i = 0; i < posted_ids.size(); ++i)  // (a varn put's rows: written whole when it succeeded)
      exa::query::note_request_done(ncid, posted_ids[i], waited.is_ok() && statuses[i] == NC_NOERR);
    // NC_ERANGE of a post (its request was still posted and done) comes last.
    if (!posted.is_ok() && posted.code() != NC_ERANGE) return posted;
    if (!waited.is_ok()) return waited;
    for (int s : statuses)
      if (s != NC_NOERR) return {s, "a request failed"};
    return posted;
  });
}

int varn_blocking(const char* fn, int ncid, int varid, int num, MPI_Offset* const* starts,
                  MPI_Offset* const* counts, const void* buf, MPI_Offset bufcount,
                  MPI_Datatype buftype, nc_type memtype, bool put, bool collective) {
  return blocking_via_requests(fn, ncid, collective, true, [&](OpenFile& f, std::vector<int>* ids) -> Status {
    exa::layer::DataRequest r;
    if (collective) f.connector->prepare_collective(*f.state, varid);
    varn_request(varid, num, starts, counts, buf, bufcount, buftype, memtype, &r);
    r.blocking = true;
    r.collective = collective;
    int id = NC_REQ_NULL;
    std::optional<exa::layer::PutRangeScope> range;
    open_varn_range(ncid, f, r, put, &range);
    Status st = f.connector->post(*f.state, r, put ? PostKind::kIput : PostKind::kIget, &id);
    if (id != NC_REQ_NULL) ids->push_back(id);  // posted, perhaps with NC_ERANGE
    if (id != NC_REQ_NULL && put)  // the arguments are good: the note may read the values
      note_varn(ncid, f, r, range, st.is_ok() ? id : NC_REQ_NULL);
    return st;
  });
}

// mput/mget: one request per variable, one wait.
int multi_blocking(const char* fn, int ncid, int num, const int* varids, Kind kind,
                   MPI_Offset* const* starts, MPI_Offset* const* counts,
                   MPI_Offset* const* strides, MPI_Offset* const* imaps, void* const* bufs,
                   const MPI_Offset* bufcounts, const MPI_Datatype* types, nc_type memtype,
                   bool put, bool collective) {
  // PnetCDF: an independent call of no variables succeeds before any mode check.
  if (!collective && num == 0) return with_file(fn, ncid, [](OpenFile&) { return Status::ok(); });
  for (int i = 0; put && varids != nullptr && i < num; ++i) exa::query::note_put(ncid, varids[i]);
  return blocking_via_requests(fn, ncid, collective, false, [&](OpenFile& f, std::vector<int>* ids) -> Status {
    if (num < 0) return {NC_EINVAL, "negative number of variables"};
    if (num > 0 && (varids == nullptr || bufs == nullptr)) return {NC_EINVAL, "null arrays"};
    Status first;
    for (int i = 0; i < num; ++i) {
      RequestArgs a;
      a.varid = varids[i];
      a.kind = kind;
      a.start = starts ? starts[i] : nullptr;
      a.count = counts ? counts[i] : nullptr;
      a.stride = strides ? strides[i] : nullptr;
      a.imap = imaps ? imaps[i] : nullptr;
      a.buf = bufs[i];
      a.bufcount = bufcounts ? bufcounts[i] : -1;
      a.buftype = types ? types[i] : MPI_DATATYPE_NULL;
      a.memtype = memtype;
      std::vector<MPI_Offset> storage;
      auto r = exa::api::make_request(f.connector->dataset(*f.state), a, &storage);
      int id = NC_REQ_NULL;
      Status st = f.connector->post(*f.state, r, put ? PostKind::kIput : PostKind::kIget, &id);
      if (id != NC_REQ_NULL) ids->push_back(id);  // posted, perhaps with NC_ERANGE
      if (!st.is_ok() && (first.is_ok() || first.code() == NC_ERANGE)) first = st;
    }
    return first;
  });
}

}  // namespace

namespace {

// As PnetCDF 1.12.3: ncmpi_wait belongs to independent data mode and
// ncmpi_wait_all to collective data mode; in the other mode the wait does
// nothing and every request stays pending (define mode: the connector's
// NC_EINDEFINE).
int wait_in_mode(const char* fn, int ncid, int count, int* reqs, int* statuses, bool collective) {
  return with_file(fn, ncid, [&](OpenFile& f) -> Status {
    const exa::layer::CallModes facts = f.connector->modes(*f.state);  // not facts(): see above
    if (!facts.define_mode && collective && facts.indep_mode)
      return {NC_EINDEP, "ncmpi_wait_all in independent data mode"};
    if (!facts.define_mode && !collective && !facts.indep_mode)
      return {NC_ENOTINDEP, "ncmpi_wait in collective data mode"};
    // The posted puts that succeeded count as written whole (put_epoch).
    std::vector<int> ids;
    if (count > 0 && reqs != nullptr) ids.assign(reqs, reqs + count);
    std::vector<int> own(statuses == nullptr ? static_cast<size_t>(std::max(count, 0)) : 0, NC_NOERR);
    int* outcome = statuses != nullptr ? statuses : own.data();
    Status waited = f.connector->wait(*f.state, count, reqs, outcome, collective);
    if (count == NC_REQ_ALL || count == NC_PUT_REQ_ALL) exa::query::forget_requests(ncid);
    for (size_t i = 0; i < ids.size(); ++i)
      exa::query::note_request_done(ncid, ids[i], waited.is_ok() && outcome[i] == NC_NOERR);
    return waited;
  });
}

}  // namespace

int ncmpi_wait(int ncid, int count, int array_of_requests[], int array_of_statuses[]) {
  return wait_in_mode("ncmpi_wait", ncid, count, array_of_requests, array_of_statuses, false);
}

int ncmpi_wait_all(int ncid, int count, int array_of_requests[], int array_of_statuses[]) {
  return wait_in_mode("ncmpi_wait_all", ncid, count, array_of_requests, array_of_statuses, true);
}

int ncmpi_cancel(int ncid, int num, int* reqs, int* statuses) {
  return with_file("ncmpi_cancel", ncid, [&](OpenFile& f) {
    std::vector<int> ids;
    if (num > 0 && reqs != nullptr) ids.assign(reqs, reqs + num);
    Status st = f.connector->cancel(*f.state, num, reqs, statuses);
    if (num == NC_REQ_ALL || num == NC_PUT_REQ_ALL) exa::query::forget_requests(ncid);
    for (int id : ids) exa::query::note_request_done(ncid, id, false);
    return st;
  });
}

int ncmpi_buffer_attach(int ncid, MPI_Offset bufsize) {
  return with_file("ncmpi_buffer_attach", ncid,
                   [&](OpenFile& f) { return f.connector->buffer_attach(*f.state, bufsize); });
}

int ncmpi_buffer_detach(int ncid) {
  return with_file("ncmpi_buffer_detach", ncid,
                   [&](OpenFile& f) { return f.connector->buffer_detach(*f.state); });
}

int ncmpi_inq_buffer_usage(int ncid, MPI_Offset* usage) {
  return with_file("ncmpi_inq_buffer_usage", ncid,
                   [&](OpenFile& f) { return f.connector->buffer_usage(*f.state, usage, nullptr); });
}

int ncmpi_inq_buffer_size(int ncid, MPI_Offset* buf_size) {
  return with_file("ncmpi_inq_buffer_size", ncid,
                   [&](OpenFile& f) { return f.connector->buffer_usage(*f.state, nullptr, buf_size); });
}

int ncmpi_inq_nreqs(int ncid, int* nreqs) {
  return with_file("ncmpi_inq_nreqs", ncid,
                   [&](OpenFile& f) { return f.connector->inq_nreqs(*f.state, nreqs); });
}

#define EXA_NB_DEFINE_KINDS_(OP, CQ, NAME, CTYPE, POSTKIND)                                       \
  int ncmpi_##OP##_var1_##NAME(int ncid, int varid, const MPI_Offset* start, CQ CTYPE* buf,       \
                               int* req) {                                                        \
    return post_call("ncmpi_" #OP "_var1_" #NAME, ncid,                                           \
                     {varid, Kind::kVar1, start, nullptr, nullptr, nullptr, buf, -1,              \
                      MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), true},                    \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_var_##NAME(int ncid, int varid, CQ CTYPE* buf, int* req) {                     \
    return post_call("ncmpi_" #OP "_var_" #NAME, ncid,                                            \
                     {varid, Kind::kVar, nullptr, nullptr, nullptr, nullptr, buf, -1,             \
                      MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), true},                    \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_vara_##NAME(int ncid, int varid, const MPI_Offset* start,                      \
                               const MPI_Offset* count, CQ CTYPE* buf, int* req) {                \
    return post_call("ncmpi_" #OP "_vara_" #NAME, ncid,                                           \
                     {varid, Kind::kVara, start, count, nullptr, nullptr, buf, -1,                \
                      MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), true},                    \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_vars_##NAME(int ncid, int varid, const MPI_Offset* start,                      \
                               const MPI_Offset* count, const MPI_Offset* stride, CQ CTYPE* buf,  \
                               int* req) {                                                        \
    return post_call("ncmpi_" #OP "_vars_" #NAME, ncid,                                           \
                     {varid, Kind::kVars, start, count, stride, nullptr, buf, -1,                 \
                      MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), true},                    \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_varm_##NAME(int ncid, int varid, const MPI_Offset* start,                      \
                               const MPI_Offset* count, const MPI_Offset* stride,                 \
                               const MPI_Offset* imap, CQ CTYPE* buf, int* req) {                 \
    return post_call("ncmpi_" #OP "_varm_" #NAME, ncid,                                           \
                     {varid, Kind::kVarm, start, count, stride, imap, buf, -1,                    \
                      MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), true},                    \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_varn_##NAME(int ncid, int varid, int num, MPI_Offset* const* starts,           \
                               MPI_Offset* const* counts, CQ CTYPE* buf, int* req) {              \
    return post_varn("ncmpi_" #OP "_varn_" #NAME, ncid, varid, num, starts, counts, buf, -1,      \
                     MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), POSTKIND, req);            \
  }
#define EXA_NB_DEFINE_(NAME, CTYPE)                                      \
  EXA_NB_DEFINE_KINDS_(iput, const, NAME, CTYPE, PostKind::kIput)        \
  EXA_NB_DEFINE_KINDS_(iget, , NAME, CTYPE, PostKind::kIget)             \
  EXA_NB_DEFINE_KINDS_(bput, const, NAME, CTYPE, PostKind::kBput)
EXACDF_FOR_EACH_DATA_TYPE(EXA_NB_DEFINE_)
#undef EXA_NB_DEFINE_
#undef EXA_NB_DEFINE_KINDS_

#define EXA_NB_FLEX_DEFINE_(OP, CQ, POSTKIND)                                                     \
  int ncmpi_##OP##_var1(int ncid, int varid, const MPI_Offset* start, CQ void* buf,              \
                        MPI_Offset bufcount, MPI_Datatype buftype, int* req) {                   \
    return post_call("ncmpi_" #OP "_var1", ncid,                                                  \
                     {varid, Kind::kVar1, start, nullptr, nullptr, nullptr, buf, bufcount,        \
                      buftype, NC_NAT, true},                                                     \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_var(int ncid, int varid, CQ void* buf, MPI_Offset bufcount,                    \
                       MPI_Datatype buftype, int* req) {                                          \
    return post_call("ncmpi_" #OP "_var", ncid,                                                   \
                     {varid, Kind::kVar, nullptr, nullptr, nullptr, nullptr, buf, bufcount,       \
                      buftype, NC_NAT, true},                                                     \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_vara(int ncid, int varid, const MPI_Offset* start, const MPI_Offset* count,    \
                        CQ void* buf, MPI_Offset bufcount, MPI_Datatype buftype, int* req) {      \
    return post_call("ncmpi_" #OP "_vara", ncid,                                                  \
                     {varid, Kind::kVara, start, count, nullptr, nullptr, buf, bufcount, buftype, \
                      NC_NAT, true},                                                              \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_vars(int ncid, int varid, const MPI_Offset* start, const MPI_Offset* count,    \
                        const MPI_Offset* stride, CQ void* buf, MPI_Offset bufcount,              \
                        MPI_Datatype buftype, int* req) {                                         \
    return post_call("ncmpi_" #OP "_vars", ncid,                                                  \
                     {varid, Kind::kVars, start, count, stride, nullptr, buf, bufcount, buftype,  \
                      NC_NAT, true},                                                              \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_varm(int ncid, int varid, const MPI_Offset* start, const MPI_Offset* count,    \
                        const MPI_Offset* stride, const MPI_Offset* imap, CQ void* buf,           \
                        MPI_Offset bufcount, MPI_Datatype buftype, int* req) {                    \
    return post_call("ncmpi_" #OP "_varm", ncid,                                                  \
                     {varid, Kind::kVarm, start, count, stride, imap, buf, bufcount, buftype,     \
                      NC_NAT, true},                                                              \
                     POSTKIND, req);                                                              \
  }                                                                                               \
  int ncmpi_##OP##_varn(int ncid, int varid, int num, MPI_Offset* const* starts,                  \
                        MPI_Offset* const* counts, CQ void* buf, MPI_Offset bufcount,             \
                        MPI_Datatype buftype, int* req) {                                         \
    return post_varn("ncmpi_" #OP "_varn", ncid, varid, num, starts, counts, buf, bufcount,       \
                     buftype, NC_NAT, POSTKIND, req);                                             \
  }
EXA_NB_FLEX_DEFINE_(iput, const, PostKind::kIput)
EXA_NB_FLEX_DEFINE_(iget, , PostKind::kIget)
EXA_NB_FLEX_DEFINE_(bput, const, PostKind::kBput)
#undef EXA_NB_FLEX_DEFINE_

#define EXA_VARN_DEFINE_SFX_(NAME, CTYPE, SFX, COLL)                                              \
  int ncmpi_put_varn_##NAME##SFX(int ncid, int varid, int num, MPI_Offset* const* starts,         \
                                 MPI_Offset* const* counts, const CTYPE* buf) {                   \
    return varn_blocking("ncmpi_put_varn_" #NAME #SFX, ncid, varid, num, starts, counts, buf, -1, \
                         MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), true, COLL);           \
  }                                                                                               \
  int ncmpi_get_varn_##NAME##SFX(int ncid, int varid, int num, MPI_Offset* const* starts,         \
                                 MPI_Offset* const* counts, CTYPE* buf) {                         \
    return varn_blocking("ncmpi_get_varn_" #NAME #SFX, ncid, varid, num, starts, counts, buf, -1, \
                         MPI_DATATYPE_NULL, exa::api::memtype_of<CTYPE>(), false, COLL);          \
  }
#define EXA_VARN_DEFINE_(NAME, CTYPE)            \
  EXA_VARN_DEFINE_SFX_(NAME, CTYPE, , false)     \
  EXA_VARN_DEFINE_SFX_(NAME, CTYPE, _all, true)
EXACDF_FOR_EACH_DATA_TYPE(EXA_VARN_DEFINE_)
#undef EXA_VARN_DEFINE_
#undef EXA_VARN_DEFINE_SFX_

#define EXA_VARN_FLEX_DEFINE_(OP, CQ, SFX, PUT, COLL)                                             \
  int ncmpi_##OP##_varn##SFX(int ncid, int varid, int num, MPI_Offset* const* starts,            \
                             MPI_Offset* const* counts, CQ void* buf, MPI_Offset bufcount,       \
                             MPI_Datatype buftype) {                                             \
    return varn_blocking("ncmpi_" #OP "_varn" #SFX, ncid, varid, num, starts, counts, buf,       \
                         bufcount, buftype, NC_NAT, PUT, COLL);                                  \
  }                                                                                              \
  int ncmpi_##OP##_vard##SFX(int ncid, int varid, MPI_Datatype filetype, CQ void* buf,           \
                             MPI_Offset bufcount, MPI_Datatype buftype) {                        \
    if (PUT) exa::query::note_put(ncid, varid); /* region unknown: the whole variable */         \
    return with_file("ncmpi_" #OP "_vard" #SFX, ncid, [&](OpenFile& f) {                         \
      if (COLL) f.connector->prepare_collective(*f.state, varid);                                \
      return f.connector->vard(*f.state, varid, filetype, const_cast<void*>(buf), bufcount,      \
                               buftype, PUT, COLL);                                              \
    });                                                                                          \
  }
EXA_VARN_FLEX_DEFINE_(put, const, , true, false)
EXA_VARN_FLEX_DEFINE_(put, const, _all, true, true)
EXA_VARN_FLEX_DEFINE_(get, , , false, false)
EXA_VARN_FLEX_DEFINE_(get, , _all, false, true)
#undef EXA_VARN_FLEX_DEFINE_

#define EXA_MULTI_DEFINE_(OP, SFX, PUT, COLL)                                                     \
  int ncmpi_m##OP##_var##SFX(int ncid, int num, int* varids, void* const* bufs,                  \
                             const MPI_Offset* bufcounts, const MPI_Datatype datatypes[]) {      \
    return multi_blocking("ncmpi_m" #OP "_var" #SFX, ncid, num, varids, Kind::kVar, nullptr,     \
                          nullptr, nullptr, nullptr, bufs, bufcounts, datatypes, NC_NAT, PUT,    \
                          COLL);                                                                 \
  }                                                                                              \
  int ncmpi_m##OP##_var1##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,         \
                              void* const* bufs, const MPI_Offset* bufcounts,                    \
                              const MPI_Datatype datatypes[]) {                                  \
    return multi_blocking("ncmpi_m" #OP "_var1" #SFX, ncid, num, varids, Kind::kVar1, starts,    \
                          nullptr, nullptr, nullptr, bufs, bufcounts, datatypes, NC_NAT, PUT,    \
                          COLL);                                                                 \
  }                                                                                              \
  int ncmpi_m##OP##_vara##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,         \
                              MPI_Offset* const* counts, void* const* bufs,                      \
                              const MPI_Offset* bufcounts, const MPI_Datatype datatypes[]) {     \
    return multi_blocking("ncmpi_m" #OP "_vara" #SFX, ncid, num, varids, Kind::kVara, starts,    \
                          counts, nullptr, nullptr, bufs, bufcounts, datatypes, NC_NAT, PUT,     \
                          COLL);                                                                 \
  }                                                                                              \
  int ncmpi_m##OP##_vars##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,         \
                              MPI_Offset* const* counts, MPI_Offset* const* strides,             \
                              void* const* bufs, const MPI_Offset* bufcounts,                    \
                              const MPI_Datatype datatypes[]) {                                  \
    return multi_blocking("ncmpi_m" #OP "_vars" #SFX, ncid, num, varids, Kind::kVars, starts,    \
                          counts, strides, nullptr, bufs, bufcounts, datatypes, NC_NAT, PUT,     \
                          COLL);                                                                 \
  }                                                                                              \
  int ncmpi_m##OP##_varm##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,         \
                              MPI_Offset* const* counts, MPI_Offset* const* strides,             \
                              MPI_Offset* const* imaps, void* const* bufs,                       \
                              const MPI_Offset* bufcounts, const MPI_Datatype datatypes[]) {     \
    return multi_blocking("ncmpi_m" #OP "_varm" #SFX, ncid, num, varids, Kind::kVarm, starts,    \
                          counts, strides, imaps, bufs, bufcounts, datatypes, NC_NAT, PUT,       \
                          COLL);                                                                 \
  }
EXA_MULTI_DEFINE_(put, , true, false)
EXA_MULTI_DEFINE_(put, _all, true, true)
EXA_MULTI_DEFINE_(get, , false, false)
EXA_MULTI_DEFINE_(get, _all, false, true)
#undef EXA_MULTI_DEFINE_

#define EXA_MULTI_TYPED_KINDS_(OP, NAME, CTYPE, SFX, PUT, COLL)                                   \
  int ncmpi_m##OP##_var_##NAME##SFX(int ncid, int num, int* varids, CTYPE* const* bufs) {        \
    return multi_blocking("ncmpi_m" #OP "_var_" #NAME #SFX, ncid, num, varids, Kind::kVar,       \
                          nullptr, nullptr, nullptr, nullptr, (void* const*)bufs, nullptr,       \
                          nullptr, exa::api::memtype_of<CTYPE>(), PUT, COLL);                    \
  }                                                                                              \
  int ncmpi_m##OP##_var1_##NAME##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,  \
                                     CTYPE* const* bufs) {                                       \
    return multi_blocking("ncmpi_m" #OP "_var1_" #NAME #SFX, ncid, num, varids, Kind::kVar1,     \
                          starts, nullptr, nullptr, nullptr, (void* const*)bufs, nullptr,        \
                          nullptr, exa::api::memtype_of<CTYPE>(), PUT, COLL);                    \
  }                                                                                              \
  int ncmpi_m##OP##_vara_##NAME##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,  \
                                     MPI_Offset* const* counts, CTYPE* const* bufs) {            \
    return multi_blocking("ncmpi_m" #OP "_vara_" #NAME #SFX, ncid, num, varids, Kind::kVara,     \
                          starts, counts, nullptr, nullptr, (void* const*)bufs, nullptr,         \
                          nullptr, exa::api::memtype_of<CTYPE>(), PUT, COLL);                    \
  }                                                                                              \
  int ncmpi_m##OP##_vars_##NAME##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,  \
                                     MPI_Offset* const* counts, MPI_Offset* const* strides,      \
                                     CTYPE* const* bufs) {                                       \
    return multi_blocking("ncmpi_m" #OP "_vars_" #NAME #SFX, ncid, num, varids, Kind::kVars,     \
                          starts, counts, strides, nullptr, (void* const*)bufs, nullptr,         \
                          nullptr, exa::api::memtype_of<CTYPE>(), PUT, COLL);                    \
  }                                                                                              \
  int ncmpi_m##OP##_varm_##NAME##SFX(int ncid, int num, int* varids, MPI_Offset* const* starts,  \
                                     MPI_Offset* const* counts, MPI_Offset* const* strides,      \
                                     MPI_Offset* const* imaps, CTYPE* const* bufs) {             \
    return multi_blocking("ncmpi_m" #OP "_varm_" #NAME #SFX, ncid, num, varids, Kind::kVarm,     \
                          starts, counts, strides, imaps, (void* const*)bufs, nullptr, nullptr,  \
                          exa::api::memtype_of<CTYPE>(), PUT, COLL);                             \
  }
#define EXA_MULTI_TYPED_(NAME, CTYPE)                                \
  EXA_MULTI_TYPED_KINDS_(put, NAME, CTYPE, , true, false)            \
  EXA_MULTI_TYPED_KINDS_(put, NAME, CTYPE, _all, true, true)         \
  EXA_MULTI_TYPED_KINDS_(get, NAME, CTYPE, , false, false)           \
  EXA_MULTI_TYPED_KINDS_(get, NAME, CTYPE, _all, false, true)
EXACDF_FOR_EACH_DATA_TYPE(EXA_MULTI_TYPED_)
#undef EXA_MULTI_TYPED_
#undef EXA_MULTI_TYPED_KINDS_
