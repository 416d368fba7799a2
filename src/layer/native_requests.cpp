// Native connector: nonblocking requests. Posting keeps the request;
// waiting turns every selected request of this rank into file segments and
// moves them with one MPI-IO call for the puts and one for the gets.
#include <algorithm>
#include <set>

#include "convert/external.hpp"
#include "io/aggregate.hpp"
#include "io/collective.hpp"
#include "io/header_io.hpp"
#include "io/memory_plan.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"
#include "layer/native_plan.hpp"

namespace exa::layer {

namespace {

// Memory is the concatenation of the pieces' elements (imap only with one piece).
Status build_memory(const PendingRequest& r, io::MemoryPlan* mem) {
  io::Selection all = r.pieces.size() == 1 ? r.pieces[0] : io::Selection{{0}, {r.nelems}, {}};
  return mem->build(r.buf, r.buftype, r.bufcount, r.memtype, all,
                    r.imap.empty() ? nullptr : r.imap.data());
}

// Converts a put's values to external form into r.external (bput: done at post).
Status convert_put(PendingRequest& r) {
  io::MemoryPlan mem;
  EXA_RETURN_IF_ERROR(build_memory(r, &mem));
  const void* values = r.buf;
  ByteBuffer gathered;
  if (!mem.contiguous() && r.nelems > 0) {
    EXA_RETURN_IF_ERROR(mem.gather(&gathered, r.nelems * convert::native_size(r.memtype)));
    values = gathered.data();
  }
  r.external.resize(static_cast<size_t>(r.nelems * r.geo.xsize));
  if (r.nelems == 0) return Status::ok();
  return convert::to_external(values, r.memtype, r.xtype, r.nelems, r.external.data(), r.cdf5,
                              r.erange);
}

// Converts a completed get's external bytes into the caller's buffer.
Status deliver_get(PendingRequest& r) {
  if (r.nelems == 0) return Status::ok();
  io::MemoryPlan mem;
  EXA_RETURN_IF_ERROR(build_memory(r, &mem));
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

// Appends the file segments of every piece, walking the packed external bytes.
void flatten_request(PendingRequest& r, std::vector<io::Segment>* out) {
  uint8_t* at = r.external.data();
  for (const io::Selection& sel : r.pieces) {
    io::flatten(r.geo, sel, at, out);
    at += io::selected_elements(sel) * r.geo.xsize;
  }
}

// Which pending requests a wait/cancel names; statuses of the others are set here.
std::vector<int> select_requests(NativeFile& nf, int num, int* reqids, int* statuses) {
  std::vector<int> ids;
  if (num == NC_REQ_ALL || num == NC_PUT_REQ_ALL || num == NC_GET_REQ_ALL) {
    for (const auto& [id, r] : nf.pending)
      if (num == NC_REQ_ALL || (num == NC_PUT_REQ_ALL) == r.put) ids.push_back(id);
    return ids;
  }
  for (int i = 0; i < num; ++i) {
    int id = reqids ? reqids[i] : NC_REQ_NULL;
    int code = NC_NOERR;
    if (id != NC_REQ_NULL && nf.pending.count(id)) ids.push_back(id);
    else if (id != NC_REQ_NULL) code = NC_EINVAL_REQUEST;
    if (statuses) statuses[i] = code;
  }
  return ids;
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

// The pieces of a varn request: each subarray checked as its own selection,
// the element count and memory type taken for all of them together.
Status plan_pieces(NativeFile& nf, const DataRequest& req, bool put, Plan* plan,
                   std::vector<io::Selection>* pieces) {
  if (req.npieces < 0) return {NC_EINVAL, "negative number of subarrays"};
  if (req.npieces > 0 && (req.starts == nullptr || req.counts == nullptr))
    return {NC_ENULLSTART, "null starts or counts"};
  DataRequest one = req;
  one.bufcount = -1;  // checked below against the total
  int64_t total = 0;
  for (int i = 0; i < req.npieces; ++i) {
    one.start = req.starts[i];
    one.count = req.counts[i];
    one.buf = req.buf ? req.buf : reinterpret_cast<void*>(1);  // null only matters in total
    *plan = Plan{};  // make_plan fills a fresh plan
    EXA_RETURN_IF_ERROR(make_plan(nf, one, put, plan, /*check_data_mode=*/false));
    pieces->push_back(plan->sel);
    total += plan->nelems;
  }
  if (req.npieces == 0) {  // nothing selected: still a request, of nothing
    EXA_RETURN_IF_ERROR(nf.ds.check_var(req.varid));
    const auto& var = nf.ds.var(req.varid);
    plan->xtype = var.type;
    plan->memtype = req.memtype != NC_NAT ? req.memtype : var.type;
    plan->geo.xsize = format::external_size(var.type);
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

Status NativeConnector::post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) {
  auto& nf = native(f);
  if (reqid) *reqid = NC_REQ_NULL;
  bool put = kind != PostKind::kIget;
  Plan plan;
  PendingRequest r;
  if (req.npieces > 0 || req.starts != nullptr) {
    EXA_RETURN_IF_ERROR(plan_pieces(nf, req, put, &plan, &r.pieces));
  } else {
    EXA_RETURN_IF_ERROR(make_plan(nf, req, put, &plan, /*check_data_mode=*/false));
    r.pieces.push_back(plan.sel);
    if (req.imap) r.imap.assign(req.imap, req.imap + plan.sel.count.size());
  }
  r.put = put;
  r.buffered = kind == PostKind::kBput;
  r.varid = req.varid;
  r.geo = plan.geo;
  r.buf = req.buf;
  r.bufcount = req.bufcount;
  r.buftype = req.buftype;
  r.memtype = plan.memtype;
  r.xtype = plan.xtype;
  r.nelems = plan.nelems;
  r.cdf5 = plan.cdf5;
  r.erange = plan.erange;
  if (r.buffered) {
    if (nf.attached_size < 0) return {NC_ENULLABUF, "no buffer attached for bput"};
    if (nf.attached_used + plan.xbytes() > nf.attached_size)
      return {NC_EINSUFFBUF, "attached buffer too small"};
  }
  // As PnetCDF: a bput, and a put that changes type, are converted now, so
  // NC_ERANGE is the post's code (the request is still posted, and its wait
  // status is NC_NOERR).
  Status range = Status::ok();
  if (put && (r.buffered || r.memtype != r.xtype)) {
    range = convert_put(r);
    if (!range.is_ok() && range.code() != NC_ERANGE) return range;
    r.converted = true;
  }
  if (r.buffered) {
    nf.attached_used += plan.xbytes();
    r.buf = nullptr;  // the caller may reuse its buffer at once
  }
  int id = nf.next_request_id++;
  nf.pending.emplace(id, std::move(r));
  if (reqid) *reqid = id;
  return range;
}

Status NativeConnector::wait(FileState& f, int num, int* reqids, int* statuses, bool collective) {
  auto& nf = native(f);
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  collective = collective && !nf.indep_mode;  // requests of independent mode go independently
  if (num < 0 && num != NC_REQ_ALL && num != NC_PUT_REQ_ALL && num != NC_GET_REQ_ALL)
    return {NC_EINVAL, "bad number of requests"};
  std::vector<int> ids = select_requests(nf, num, reqids, statuses);
  std::map<int, Status> outcome;
  std::vector<io::Segment> puts, gets;
  std::set<int> compact_ids;  // requests served by the compact store
  int64_t recs = 0;
  for (int id : ids) {
    PendingRequest& r = nf.pending.at(id);
    // Posted perhaps in define mode: the offsets are those of now.
    r.geo.begin = nf.ds.var(r.varid).begin;
    r.geo.recsize = nf.ds.layout().recsize;
    Status st = r.put && !r.converted ? convert_put(r) : Status::ok();
    if (!r.put) r.external.resize(static_cast<size_t>(r.nelems * r.geo.xsize));
    outcome[id] = st;
    if (!st.is_ok() && st.code() != NC_ERANGE) continue;  // nothing of it is transferred
    if (CompactStore::is_compact(nf, r.varid)) {  // the data is in its block: no MPI-IO
      std::vector<io::Segment> segments;
      flatten_request(r, &segments);
      Status done = r.put ? nf.compact.write(nf, r.varid, segments) : nf.compact.read(nf, r.varid, segments);
      if (!done.is_ok()) outcome[id] = done;
      compact_ids.insert(id);
      continue;
    }
    flatten_request(r, r.put ? &puts : &gets);
    if (r.put) recs = std::max(recs, reached(r));
  }
  if (!collective && ids.empty()) return Status::ok();
  if (!collective) EXA_RETURN_IF_ERROR(open_indep_handle(nf));
  // One allreduce tells every rank whether anyone writes or reads, and numrecs.
  int64_t need[3] = {puts.empty() ? 0 : 1, gets.empty() ? 0 : 1, std::max(recs, nf.ds.numrecs())};
  if (collective) MPI_Allreduce(MPI_IN_PLACE, need, 3, MPI_INT64_T, MPI_MAX, nf.comm());
  io::MpiFile& file = handle_for(nf, collective);
  Status io_put, io_get;
  if (need[0]) io_put = io::write_segments(file, std::move(puts), collective);
  if (need[1]) io_get = io::read_segments(file, std::move(gets), collective);
  if (need[2] > nf.ds.numrecs() || (collective && nf.numrecs_dirty)) {
    nf.ds.set_numrecs(need[2]);
    if (collective) {
      nf.numrecs_dirty = false;
      Status w = write_numrecs(nf, need[2]);
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
    if (r.buffered) nf.attached_used -= static_cast<MPI_Offset>(r.external.size());
    nf.pending.erase(id);
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
  std::vector<int> ids = select_requests(nf, num, reqids, statuses);
  std::map<int, Status> outcome;
  for (int id : ids) {
    PendingRequest& r = nf.pending.at(id);
    if (r.buffered) nf.attached_used -= static_cast<MPI_Offset>(r.external.size());
    nf.pending.erase(id);
    outcome[id] = Status::ok();
  }
  report(num, reqids, statuses, outcome);
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
