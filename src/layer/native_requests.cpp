// Native connector: nonblocking requests. Posting keeps the request (a put
// already converted to external form, as PnetCDF packs at post; a get with its
// own duplicate of a derived buftype, since the caller may free its type as
// soon as the call returns); waiting turns every selected request of this rank
// into file segments and moves the gets with one MPI-IO call, the puts by the
// path their shape calls for (choose_put_path).
#include <algorithm>
#include <set>

#include "convert/external.hpp"
#include "io/aggregate.hpp"
#include "io/collective.hpp"
#include "io/header_io.hpp"
#include "io/memory_plan.hpp"
#include "io/mpi_errors.hpp"
#include "io/two_phase.hpp"
#include "layer/data_checks.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"
#include "layer/native_plan.hpp"
#include "layer/put_range.hpp"

namespace exa::layer {

namespace {

// Memory is the concatenation of the pieces' elements (imap only with one piece).
Status build_memory(const PendingRequest& r, MPI_Datatype buftype, io::MemoryPlan* mem) {
  io::Selection all = r.pieces.size() == 1 ? r.pieces[0] : io::Selection{{0}, {r.nelems}, {}};
  return mem->build(r.buf, buftype, r.bufcount, r.memtype, all,
                    r.imap.empty() ? nullptr : r.imap.data());
}

// Converts a put's values (laid out by the caller's `buftype`) to external
// form into r.external (from `pool`). Done at post, while the caller's type is alive.
Status convert_put(PendingRequest& r, MPI_Datatype buftype, BufferPool& pool) {
  io::MemoryPlan mem;
  EXA_RETURN_IF_ERROR(build_memory(r, buftype, &mem));
  const void* values = r.buf;
  ByteBuffer gathered;
  if (!mem.contiguous() && r.nelems > 0) {
    EXA_RETURN_IF_ERROR(mem.gather(&gathered, r.nelems * convert::native_size(r.memtype)));
    values = gathered.data();
  }
  r.external = pool.take(static_cast<size_t>(r.nelems * r.geo.xsize));
  if (r.nelems == 0) return Status::ok();
  // The values' range, in the same pass, when the api layer asks for it
  // (for the caller's buffer: a flexible put's values gathered from it too,
  // a varn request's values of all its pieces, one after the other).
  convert::SegmentedRange* range = put_range_for(r.varid, r.buf);
  return convert::to_external(values, r.memtype, r.xtype, r.nelems, r.external.data(), r.cdf5,
                              r.erange, range);
}

// Converts a completed get's external bytes into the caller's buffer.
Status deliver_get(PendingRequest& r) {
  if (r.nelems == 0) return Status::ok();
  io::MemoryPlan mem;
  EXA_RETURN_IF_ERROR(build_memory(r, r.buftype.get(), &mem));
  if (mem.contiguous())
    return convert::from_external(r.external.data(), r.xtype, r.memtype, r.nelems, r.buf, r.cdf5,
                                  r.erange);
  ByteBuffer values(static_cast<size_t>(r.nelems * convert::native_size(r.memtype)));
  Status st = convert::from_external(r.external.data(), r.xtype, r.memtype, r.nelems,
                                     values.data(), r.cdf5, r.erange);
  if (!st.is_ok() && st.code() != NC_ERANGE) return st;
  EXA_RETURN_IF_ERROR(mem.scatter(values.data(), static_cast<int64_t>(values.size())));
  return st;
}

int64_t reached(const PendingRequest& r) {
  int64_t most = 0;
  for (const io::Selection& sel : r.pieces) {
    Plan p;
    p.geo = r.geo;
    p.sel = sel;
    p.nelems = io::selected_elements(sel);
    most = std::max(most, records_reached(p));
  }
  return most;
}

// A request posted in define mode meets the offsets of now: its selections
// are checked against them once more before anything is flattened.
Status extents_fit(const PendingRequest& r) {
  for (const io::Selection& sel : r.pieces) {
    int64_t first = 0, end = 0;
    EXA_RETURN_IF_ERROR(io::selection_extent(r.geo, sel, &first, &end));
  }
  return Status::ok();
}

// Appends the file segments of every piece, walking the packed external bytes.

void flatten_request(PendingRequest& r, std::vector<io::Segment>* out) {
  uint8_t* at = r.external.data();
  for (const io::Selection& sel : r.pieces) {
    io::flatten(r.geo, sel, at, out);
    at += io::selected_elements(sel) * r.geo.xsize;
  }
}

// How a wait's puts reach the file, from their number and sizes (in a
// collective wait the largest of any rank, so every rank chooses alike):
//   kView       one MPI-IO call through an hindexed view of the segments (few
//               or large segments: MPI-IO handles them well);
//   kCoalesced  many small segments of one rank (an independent wait, or one
//               rank): staged in file order, one write per contiguous run;
//   kTwoPhase   many small segments over several ranks: exacdf's own
//               two-phase, one contiguous file domain per rank (io/two_phase).
// Measured on the E3SM-like step (docs/perf/e3sm_io.md): OMPIO's cost grows
// with the number of pieces in a view, far beyond the cost of copying them.
enum class PutPath { kView, kCoalesced, kTwoPhase };

PutPath choose_put_path(bool collective, int nprocs, int64_t segments, int64_t bytes) {
  if (!io::many_small_pieces(segments, bytes)) return PutPath::kView;
  if (!collective || nprocs == 1) return PutPath::kCoalesced;
  return io::fits_two_phase(segments, bytes, nprocs) ? PutPath::kTwoPhase : PutPath::kView;
}

// Writes a wait's puts by `path`; [lo, hi) is the extent of every rank's puts.
// Collective paths are taken by every rank, with or without segments.
Status move_puts(NativeFile& nf, PutPath path, bool collective, std::vector<io::Segment> puts,
                 const std::vector<size_t>& request_ends, int64_t lo, int64_t hi) {
  switch (path) {
    case PutPath::kCoalesced:
      return io::write_coalesced(handle_for(nf, collective), puts, request_ends);
    case PutPath::kTwoPhase: {
      Status opened = open_indep_handle(nf);  // (local: MPI_COMM_SELF)
      Status st = io::write_two_phase(nf.comm(), opened.is_ok() ? &nf.indep : nullptr,
                                      std::move(puts), lo, hi);
      return opened.is_ok() ? st : opened;
    }
    case PutPath::kView:
      break;
  }
  // (hi was agreed over the ranks in a collective wait)
  return io::write_segments(handle_for(nf, collective), std::move(puts), collective, collective ? hi : 0);
}

// Forgets a completed or cancelled request: gives back its share of the
// attached buffer and frees its duplicate datatype (exactly once).
Status drop_request(NativeFile& nf, int id) {
  PendingRequest& r = nf.pending.at(id);
  if (r.buffered) nf.attached_used -= static_cast<MPI_Offset>(r.external.size());
  Status freed = r.buftype.release();
  if (r.put) nf.put_buffers.give(std::move(r.external));
  nf.request_ids.done(r.put);
  nf.pending.erase(id);
  return freed;
}

// Which pending requests a wait/cancel names (into *ids). An id that is not
// pending, or is named a second time, is unknown: its status is
// NC_EINVAL_REQUEST, every other status NC_NOERR (as PnetCDF sets them).
// Returns the number of unknown ids. A count below NC_PUT_REQ_ALL names none.
int select_requests(NativeFile& nf, int num, const int* reqids, int* statuses,
                    std::vector<int>* ids) {
  if (num == NC_REQ_ALL || num == NC_PUT_REQ_ALL || num == NC_GET_REQ_ALL) {
    for (const auto& [id, r] : nf.pending)
      if (num == NC_REQ_ALL || (num == NC_PUT_REQ_ALL) == r.put) ids->push_back(id);
    return 0;
  }
  int unknown = 0;
  std::set<int> named;
  for (int i = 0; i < num; ++i) {
    int id = reqids ? reqids[i] : NC_REQ_NULL;
    int code = NC_NOERR;
    if (id != NC_REQ_NULL) {
      if (nf.pending.count(id) && named.insert(id).second) {
        ids->push_back(id);
      } else {
        code = NC_EINVAL_REQUEST;
        ++unknown;
      }
    }
    if (statuses) statuses[i] = code;
  }
  return unknown;
}

// Writes the per-request outcomes back into the caller's arrays.
void report(int num, int* reqids, int* statuses, const std::map<int, Status>& outcome) {
  if (num < 0 || reqids == nullptr) return;
  for (int i = 0; i < num; ++i) {
    auto it = outcome.find(reqids[i]);
    if (it == outcome.end()) continue;
    if (statuses) statuses[i] = it->second.code();
    reqids[i] = NC_REQ_NULL;
  }
}

// The pieces of a varn request, checked in PnetCDF's order: the call (mode,
// ids, a typed call's text mismatch); nothing more when num is 0; a scalar
// takes exactly one subarray (its starts ignored); otherwise starts and each
// starts[i] must be given (NC_ENULLSTART), and a missing counts or counts[i]
// means one element (as var1). Each subarray is checked as its own selection;
// the element count and memory type are taken for all of them together.
Status plan_pieces(NativeFile& nf, const DataRequest& req, bool put, Plan* plan,
                   std::vector<io::Selection>* pieces) {
  EXA_RETURN_IF_ERROR(check_call(nf, req, put, req.blocking));
  const auto& var = nf.ds.var(req.varid);
  if (req.memtype != NC_NAT) EXA_RETURN_IF_ERROR(convert::check_convertible(req.memtype, var.type));
  const size_t ndims = var.dimids.size();
  if (req.npieces != 0 && ndims == 0 && req.npieces != 1)
    return {NC_EINVAL, "a scalar variable takes exactly one subarray"};
  if (req.npieces != 0 && ndims > 0) {
    if (req.starts == nullptr) return {NC_ENULLSTART, "starts is a NULL pointer"};
    if (req.npieces < 0) return {NC_EINVAL, "negative number of subarrays"};
  }
  DataRequest one = req;
  one.bufcount = -1;  // checked below against the total
  const std::vector<MPI_Offset> ones(ndims, 1);
  int64_t total = 0;
  for (int i = 0; i < req.npieces; ++i) {
    one.start = ndims > 0 ? req.starts[i] : nullptr;
    if (ndims > 0 && one.start == nullptr) return {NC_ENULLSTART, "starts[i] is a NULL pointer"};
    bool has_count = ndims > 0 && req.counts != nullptr && req.counts[i] != nullptr;
    one.count = has_count ? req.counts[i] : ones.data();
    one.buf = req.buf ? req.buf : reinterpret_cast<void*>(1);  // null only matters in total
    *plan = Plan{};  // make_plan fills a fresh plan
    EXA_RETURN_IF_ERROR(make_plan(nf, one, put, plan, req.blocking));
    pieces->push_back(plan->sel);
    total += plan->nelems;
  }
  if (req.npieces == 0) {  // nothing selected: still a request, of nothing
    plan->xtype = var.type;
    plan->memtype = req.memtype != NC_NAT ? req.memtype : var.type;
    plan->geo.xsize = format::external_size(var.type);
    return Status::ok();  // PnetCDF: a varn of no subarrays succeeds, whatever the arrays
  }
  plan->nelems = total;
  plan->sel = {};
  if (req.buftype != MPI_DATATYPE_NULL && req.bufcount >= 0) {
    int64_t per = 0;
    nc_type m = NC_NAT;
    EXA_RETURN_IF_ERROR(io::element_type_of(req.buftype, &m, &per));
    if (req.bufcount * per != total) return {NC_EIOMISMATCH, "buffer holds a different number of elements"};
  }
  if (total > 0 && req.buf == nullptr) return {NC_ENULLBUF, "null buffer"};
  return Status::ok();
}

}  // namespace

Status check_varn(NativeFile& nf, const DataRequest& req, bool write) {
  Plan plan;
  std::vector<io::Selection> pieces;
  return plan_pieces(nf, req, write, &plan, &pieces);
}

Status NativeConnector::post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) {
  auto& nf = native(f);
  const int reserved = reqid != nullptr ? *reqid : NC_REQ_NULL;  // >= 0: taken ahead
  if (reqid) *reqid = NC_REQ_NULL;
  bool put = kind != PostKind::kIget;
  Plan plan;
  PendingRequest r;
  if (kind == PostKind::kBput) {  // PnetCDF: the attached buffer right after the call's checks
    EXA_RETURN_IF_ERROR(check_call(nf, req, put, req.blocking));
    if (req.memtype != NC_NAT)
      EXA_RETURN_IF_ERROR(convert::check_convertible(req.memtype, nf.ds.var(req.varid).type));
    if (nf.attached_size < 0) return {NC_ENULLABUF, "no buffer attached for bput"};
  }
  if (req.varn) {
    EXA_RETURN_IF_ERROR(plan_pieces(nf, req, put, &plan, &r.pieces));
  } else {
    EXA_RETURN_IF_ERROR(make_plan(nf, req, put, &plan, req.blocking));
    r.pieces.push_back(plan.sel);
    if (req.imap) r.imap.assign(req.imap, req.imap + plan.sel.count.size());
  }
  r.put = put;
  r.buffered = kind == PostKind::kBput;
  r.varid = req.varid;
  r.geo = plan.geo;
  r.buf = req.buf;
  r.bufcount = req.bufcount;
  r.memtype = plan.memtype;
  r.xtype = plan.xtype;
  r.nelems = plan.nelems;
  r.cdf5 = plan.cdf5;
  r.erange = plan.erange;
  if (r.buffered) {
    if (nf.attached_used + plan.xbytes() > nf.attached_size)
      return {NC_EINSUFFBUF, "attached buffer too small"};
  }
  Status converted;
  if (put) {
    // Converted now: the external bytes are what wait writes anyway (the
    // same peak memory), and neither the caller's type nor its buffer is
    // needed afterwards (a bput's buffer may be reused at once).
    converted = convert_put(r, req.buftype, nf.put_buffers);
    if (!converted.is_ok() && converted.code() != NC_ERANGE) return converted;
    if (r.buffered) nf.attached_used += plan.xbytes();
    r.buf = nullptr;
  } else {
    EXA_RETURN_IF_ERROR(io::KeptDatatype::keep(req.buftype, &r.buftype));
  }
  const int id = reserved >= 0 ? reserved : nf.request_ids.take(put);  // (a reserved id is counted)
  if (nf.pending.count(id)) return {NC_EINTERNAL, "request id " + std::to_string(id) + " is in use"};
  nf.pending.emplace(id, std::move(r));
  if (reqid) *reqid = id;
  // As PnetCDF: NC_ERANGE is the post's answer; the request stands (the
  // values that fit are written) and completes without error.
  return converted;
}

int NativeConnector::reserve_request_id(FileState& f) { return native(f).request_ids.take(true); }

int NativeFile::RequestIds::take(bool put) {
  std::lock_guard<std::mutex> lock(mutex);
  int& pending = put ? pending_puts : pending_gets;
  int& next = put ? next_put : next_get;
  if (pending == 0) next = 0;  // none of the kind pending: PnetCDF starts again
  ++pending;
  return 2 * next++ + (put ? 0 : 1);
}

void NativeFile::RequestIds::done(bool put) {
  std::lock_guard<std::mutex> lock(mutex);
  int& pending = put ? pending_puts : pending_gets;
  if (pending > 0) --pending;
}

void NativeFile::RequestIds::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  pending_puts = pending_gets = 0;
}

Status NativeConnector::wait(FileState& f, int num, int* reqids, int* statuses, bool collective) {
  auto& nf = native(f);
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  collective = collective && !nf.indep_mode;  // requests of independent mode go independently
  // PnetCDF: an unknown request id fails the whole wait with NC_EINVAL_REQUEST;
  // no request is carried out and every id stays as it was (still pending).
  std::vector<int> ids;
  const bool unknown = select_requests(nf, num, reqids, statuses, &ids) > 0;
  if (unknown && !collective) return {NC_EINVAL_REQUEST, "no pending request has this id"};
  if (unknown) ids.clear();  // this rank still takes part in the agreement below
  std::map<int, Status> outcome;
  std::vector<io::Segment> puts, gets;
  std::set<int> compact_ids;  // requests served by the compact store
  int64_t recs = 0;
  std::vector<size_t> put_ends;  // where each put request's segments end in `puts`
  size_t put_segments = 0;  // reserved at once: a step of puts can flatten to 600,000
  for (int id : ids) {
    const PendingRequest& r = nf.pending.at(id);
    if (r.put)
      for (const io::Selection& sel : r.pieces) put_segments += static_cast<size_t>(io::flat_segments(r.geo, sel));
  }
  puts.reserve(put_segments);
  for (int id : ids) {
    PendingRequest& r = nf.pending.at(id);
    // Posted perhaps in define mode: the offsets are those of now.
    Status fits = place_of_var(nf.ds, r.varid, &r.geo);
    if (fits.is_ok()) fits = extents_fit(r);
    if (!fits.is_ok()) {  // nothing of it is transferred
      outcome[id] = fits;
      continue;
    }
    if (!r.put) r.external.resize(static_cast<size_t>(r.nelems * r.geo.xsize));
    outcome[id] = Status::ok();  // a put's NC_ERANGE was the post's answer
    if (CompactStore::is_compact(nf, r.varid)) {  // the data is in its block: no MPI-IO
      compact_ids.insert(id);  // served once every rank agrees the wait goes ahead
      continue;
    }
    flatten_request(r, r.put ? &puts : &gets);
    if (r.put) {
      recs = std::max(recs, reached(r));
      put_ends.push_back(puts.size());
    }
  }
  if (!collective && ids.empty()) return Status::ok();
  if (!collective) EXA_RETURN_IF_ERROR(open_indep_handle(nf));
  // One allreduce tells every rank whether anyone writes or reads, numrecs,
  // whether any rank named an unknown request (then no rank does anything),
  // and the shape of the puts (most segments and bytes of a rank, the extent
  // of all) from which every rank chooses the same path for them.
  const io::WriteShape shape = io::shape_of(puts);
  int64_t need[8] = {puts.empty() ? 0 : 1, gets.empty() ? 0 : 1, std::max(recs, nf.ds.numrecs()),
                     unknown ? 1 : 0, shape.segments, shape.bytes, -shape.lo, shape.hi};
  if (collective)  // on failure the requests stay pending: nothing was moved
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, need, 8, MPI_INT64_T, MPI_MAX, nf.comm())));
  if (need[3]) {
    if (unknown) return {NC_EINVAL_REQUEST, "no pending request has this id"};
    return Status::ok();  // as PnetCDF: another rank's unknown id stops the wait everywhere
  }
  for (int id : compact_ids) {
    PendingRequest& r = nf.pending.at(id);
    std::vector<io::Segment> segments;
    flatten_request(r, &segments);
    Status done = r.put ? nf.compact.write(nf, r.varid, segments) : nf.compact.read(nf, r.varid, segments);
    if (!done.is_ok()) outcome[id] = done;
  }
  io::MpiFile& file = handle_for(nf, collective);
  Status io_put, io_get;
  if (need[0])
    io_put = move_puts(nf, choose_put_path(collective, file.nprocs(), need[4], need[5]), collective,
                       std::move(puts), put_ends, -need[6], need[7]);
  if (need[1]) io_get = io::read_segments(file, std::move(gets), collective);
  if (need[2] > nf.ds.numrecs() || (collective && nf.numrecs_dirty)) {
    nf.ds.set_numrecs(need[2]);
    if (collective && nf.swmr != NativeFile::Swmr::kWrite) {
      nf.numrecs_dirty = false;
      // numrecs was agreed before the I/O, as in PnetCDF, whose flush makes no MPI call
      // after it: a put that failed on one rank is that rank's. Safe mode (and a
      // partitioned file's commit, which must not count a failed write) agrees on it.
      const bool agree_failure = nf.safe_mode || nf.partitioned;
      Status w = write_numrecs(nf, need[2], agree_failure, io_put);
      if (io_put.is_ok()) io_put = w;
    } else {
      nf.numrecs_dirty = true;
    }
  }
  for (int id : ids) {
    PendingRequest& r = nf.pending.at(id);
    Status& st = outcome[id];
    if (st.is_ok() || st.code() == NC_ERANGE) {
      const Status& io_st = compact_ids.count(id) ? Status::ok() : r.put ? io_put : io_get;
      if (!io_st.is_ok()) st = io_st;
      else if (!r.put) {
        Status delivered = deliver_get(r);
        if (!delivered.is_ok()) st = delivered;
      }
    }
    Status dropped = drop_request(nf, id);
    if (st.is_ok()) st = dropped;
  }
  report(num, reqids, statuses, outcome);
  Status first = io_put.is_ok() ? io_get : io_put;
  if (!first.is_ok()) return first;
  // A get whose values did not fit is also the wait's code, as in PnetCDF.
  for (const auto& [id, st] : outcome)
    if (st.code() == NC_ERANGE) return st;
  return first;
}

Status NativeConnector::cancel(FileState& f, int num, int* reqids, int* statuses) {
  auto& nf = native(f);
  if (num == 0) return Status::ok();
  if (num < NC_PUT_REQ_ALL) return {NC_EINVAL, "bad number of requests"};
  // Unlike wait, PnetCDF cancels the known requests and reports the unknown ones.
  std::vector<int> ids;
  const bool unknown = select_requests(nf, num, reqids, statuses, &ids) > 0;
  std::map<int, Status> outcome;
  for (int id : ids) outcome[id] = drop_request(nf, id);
  report(num, reqids, statuses, outcome);
  if (unknown) return {NC_EINVAL_REQUEST, "no pending request has this id"};
  return Status::ok();
}

Status NativeConnector::inq_nreqs(FileState& f, int* nreqs) {
  if (nreqs) *nreqs = static_cast<int>(native(f).pending.size());
  return Status::ok();
}

Status NativeConnector::buffer_attach(FileState& f, MPI_Offset bufsize) {
  auto& nf = native(f);
  if (nf.attached_size >= 0) return {NC_EPREVATTACHBUF, "a buffer is attached already"};
  if (bufsize <= 0) return {NC_ENULLBUF, "buffer size must be positive"};
  nf.attached_size = bufsize;
  nf.attached_used = 0;
  return Status::ok();
}

Status NativeConnector::buffer_detach(FileState& f) {
  auto& nf = native(f);
  if (nf.attached_size < 0) return {NC_ENULLABUF, "no buffer attached"};
  for (const auto& [id, r] : nf.pending)
    if (r.buffered) return {NC_EPENDINGBPUT, "bput requests are pending"};
  nf.attached_size = -1;
  nf.attached_used = 0;
  return Status::ok();
}

Status NativeConnector::buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) {
  auto& nf = native(f);
  if (nf.attached_size < 0) return {NC_ENULLABUF, "no buffer attached"};
  if (usage) *usage = nf.attached_used;
  if (size) *size = nf.attached_size;
  return Status::ok();
}

}  // namespace exa::layer
