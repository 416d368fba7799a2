#include "layer/trace_connector.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "format/classic_header.hpp"
#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
#include "layer/trace_recorder.hpp"
#include "layer/trace_report.hpp"

namespace exa::layer {

namespace {

using namespace trace;

// Our per-file state: the lower connector's, and what we record.
class TraceFile final : public FileState {
 public:
  // A file dropped without close/abort (the program ends with it open) still
  // returns its communicator, while MPI is up.
  ~TraceFile() override {
    int finalized = 1;
    if (report_comm == MPI_COMM_NULL || MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return;
    EXA_MPI(MPI_Comm_free(&report_comm)).set_aside("a destructor has no caller to tell");
  }
  MPI_Comm comm() const override { return inner->comm(); }
  std::unique_ptr<FileState> inner;
  MPI_Comm report_comm = MPI_COMM_NULL;  // our duplicate: the reduction at close never meets user traffic
  FileTrace trace;
  // The kind of a blocking varn just posted: its wait, which follows at
  // once, is part of that call (and says whether it is collective).
  KindCounters* blocking_post = nullptr;
  // MPI-IO calls of the file after our last call: every call reaches the
  // file through us, so a call's share is the count after it minus this.
  int64_t io_calls_seen = 0;
};

TraceFile& traced(FileState& f) { return static_cast<TraceFile&>(f); }

// Which call a data request is, how many bytes of the file it touches, and
// where in the variable's row-major byte space it begins and ends (-1: unknown).
struct Access {
  Shape shape = kVara;
  int64_t bytes = 0;
  int64_t begin = -1, end = -1;
};

int64_t piece_elements(const MPI_Offset* count, size_t n) {
  int64_t e = 1;
  for (size_t k = 0; k < n; ++k) e *= count ? count[k] : 1;
  return e;
}

// Offsets of the first and one past the last byte of one subarray.
void piece_extent(const VarTrace& v, const MPI_Offset* start, const MPI_Offset* count,
                  const MPI_Offset* stride, int64_t* begin, int64_t* end) {
  int64_t b = 0, last = 0;
  for (size_t k = 0; k < v.row_bytes.size(); ++k) {
    const int64_t c = count ? count[k] : 1;
    const int64_t s = stride ? stride[k] : 1;
    b += start[k] * v.row_bytes[k];
    last += (start[k] + (c - 1) * s) * v.row_bytes[k];
  }
  *begin = b;
  *end = last + v.elsize;
}

Access describe(const VarTrace& v, const DataRequest& req) {
  Access a;
  const size_t n = v.row_bytes.size();
  if (req.varn) {
    a.shape = kVarn;
    int64_t elements = 0;
    // Null arrays the lower layer accepted (it reports them at the wait): no extent.
    bool placed = req.starts != nullptr;
    for (int i = 0; i < req.npieces; ++i) {
      const MPI_Offset* count = req.counts ? req.counts[i] : nullptr;
      const int64_t e = piece_elements(count, n);
      if (e == 0) continue;
      const MPI_Offset* start = req.starts ? req.starts[i] : nullptr;
      placed = placed && (start != nullptr || n == 0);
      if (placed) {
        int64_t b = 0, end = 0;
        piece_extent(v, start, count, nullptr, &b, &end);
        if (elements == 0) a.begin = b;
        a.end = end;
      }
      elements += e;
    }
    if (!placed) a.begin = a.end = -1;
    a.bytes = elements * v.elsize;
    return a;
  }
  a.shape = req.imap ? kVarm : req.stride ? kVars : kVara;
  const int64_t elements = piece_elements(req.count, n);
  if (a.shape == kVara && elements == 1) a.shape = kVar1;  // var1 is vara of one element
  a.bytes = elements * v.elsize;
  if (elements > 0 && (req.start != nullptr || n == 0)) piece_extent(v, req.start, req.count, req.stride, &a.begin, &a.end);
  return a;
}

class TraceConnector final : public Connector {
 public:
  TraceConnector(Connector* below, std::string dir, size_t event_cap)
      : next_(below), dir_(std::move(dir)), event_cap_(event_cap) {}
  const char* name() const override { return "trace"; }

  Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                std::unique_ptr<FileState>* out) override {
    return start_file(comm, kCreate, out, [&](std::unique_ptr<FileState>* in) {
      return next_->create(comm, path, cmode, info, in);
    });
  }
  Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
              std::unique_ptr<FileState>* out) override {
    return start_file(comm, kOpen, out, [&](std::unique_ptr<FileState>* in) {
      return next_->open(comm, path, omode, info, in);
    });
  }
  Status enddef(FileState& f, const format::LayoutHints* a) override {
    return meta(f, kEnddef, [&](FileState& in) { return next_->enddef(in, a); });
  }
  Status redef(FileState& f) override { return meta(f, kRedef, [&](FileState& in) { return next_->redef(in); }); }
  Status sync(FileState& f) override { return meta(f, kSync, [&](FileState& in) { return next_->sync(in); }); }
  Status flush(FileState& f) override { return meta(f, kFlush, [&](FileState& in) { return next_->flush(in); }); }
  Status sync_numrecs(FileState& f) override {
    return meta(f, kSyncNumrecs, [&](FileState& in) { return next_->sync_numrecs(in); });
  }
  Status begin_indep(FileState& f) override {
    return meta(f, kBeginIndep, [&](FileState& in) { return next_->begin_indep(in); });
  }
  Status end_indep(FileState& f) override {
    return meta(f, kEndIndep, [&](FileState& in) { return next_->end_indep(in); });
  }
  Status close(FileState& f) override;
  Status abort(FileState& f) override;
  Status set_fill(FileState& f, int mode, int* old) override {
    return meta(f, kSetFill, [&](FileState& in) { return next_->set_fill(in, mode, old); });
  }
  Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) override {
    return meta(f, kFillVarRec, [&](FileState& in) { return next_->fill_var_rec(in, varid, recno); });
  }
  Status file_info(FileState& f, MPI_Info* info) override {
    return meta(f, kFileInfo, [&](FileState& in) { return next_->file_info(in, info); });
  }
  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override {
    return meta(f, kDefDim, [&](FileState& in) { return next_->def_dim(in, name, len, id); });
  }
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids,
                 int* id) override {
    return meta(f, kDefVar, [&](FileState& in) { return next_->def_var(in, name, type, ndims, dimids, id); });
  }
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* value) override {
    return meta(f, kDefVarFill, [&](FileState& in) { return next_->def_var_fill(in, varid, no_fill, value); });
  }
  Status rename_dim(FileState& f, int dimid, const char* name) override {
    return meta(f, kRenameDim, [&](FileState& in) { return next_->rename_dim(in, dimid, name); });
  }
  Status rename_var(FileState& f, int varid, const char* name) override {
    return meta(f, kRenameVar, [&](FileState& in) { return next_->rename_var(in, varid, name); });
  }
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override {
    return meta(f, kPutAtt, [&](FileState& in) {
      return next_->put_att(in, varid, name, xtype, nelems, values, memtype);
    });
  }
  Status del_att(FileState& f, int varid, const char* name) override {
    return meta(f, kDelAtt, [&](FileState& in) { return next_->del_att(in, varid, name); });
  }
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override {
    return meta(f, kRenameAtt, [&](FileState& in) { return next_->rename_att(in, varid, name, new_name); });
  }
  Status refresh(FileState& f) override {
    return meta(f, kRefresh, [&](FileState& in) { return next_->refresh(in); });
  }
  Status inquire(FileState& f, const char* call, InquiryAnswer answer) override {
    TraceFile& tf = traced(f);
    ++tf.trace.meta[kInquire].calls;
    return next_->inquire(*tf.inner, call, answer);
  }
  const model::Dataset& dataset(FileState& f) override {
    TraceFile& tf = traced(f);
    ++tf.trace.meta[kDataset].calls;
    return next_->dataset(*tf.inner);
  }
  FileFacts facts(FileState& f) override {
    TraceFile& tf = traced(f);
    ++tf.trace.meta[kFacts].calls;
    return next_->facts(*tf.inner);
  }
  MPI_Offset io_calls(FileState& f) override { return next_->io_calls(*traced(f).inner); }
  // Extension calls (exa_async_*, the query engine's index blocks) pass through, not counted.
  Status extension(FileState& f, const char* name, void* args) override {
    return next_->extension(*traced(f).inner, name, args);
  }
  Status get_att(FileState& f, int varid, const char* name, void* values, nc_type memtype) override {
    return meta(f, kGetAtt, [&](FileState& in) { return next_->get_att(in, varid, name, values, memtype); });
  }
  void prepare_collective(FileState& f, int varid) override {
    TraceFile& tf = traced(f);
    ++tf.trace.meta[kPrepareCollective].calls;
    next_->prepare_collective(*tf.inner, varid);
  }
  Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) override {
    TraceFile& tf = traced(f);
    ++tf.trace.meta[kCheckData].calls;
    return next_->check_data(*tf.inner, req, put, call_only);
  }
  Status put(FileState& f, const DataRequest& req) override {
    return data(f, req, kPut, [&](FileState& in) { return next_->put(in, req); });
  }
  Status get(FileState& f, const DataRequest& req) override {
    return data(f, req, kGet, [&](FileState& in) { return next_->get(in, req); });
  }
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override;
  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override {
    // A blocking varn is posted and waited for: count it as the blocking call.
    const Op op = kind == PostKind::kBput ? kBput
                  : kind == PostKind::kIput ? (req.blocking ? kPut : kIput)
                                            : (req.blocking ? kGet : kIget);
    return data(f, req, op, [&](FileState& in) { return next_->post(in, req, kind, reqid); });
  }
  // Not a call of the program's: forwarded without a record.
  int reserve_request_id(FileState& f) override { return next_->reserve_request_id(*traced(f).inner); }
  Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) override;
  Status cancel(FileState& f, int num, int* reqids, int* statuses) override {
    return meta(f, kCancel, [&](FileState& in) { return next_->cancel(in, num, reqids, statuses); });
  }
  Status inq_nreqs(FileState& f, int* nreqs) override {
    return meta(f, kInqNreqs, [&](FileState& in) { return next_->inq_nreqs(in, nreqs); });
  }
  Status buffer_attach(FileState& f, MPI_Offset size) override {
    return meta(f, kBufferAttach, [&](FileState& in) { return next_->buffer_attach(in, size); });
  }
  Status buffer_detach(FileState& f) override {
    return meta(f, kBufferDetach, [&](FileState& in) { return next_->buffer_detach(in); });
  }
  Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) override {
    return meta(f, kBufferUsage, [&](FileState& in) { return next_->buffer_usage(in, usage, size); });
  }

 private:
  // The MPI-IO calls made since the previous traced call ended (none are
  // made between our calls: every call reaches the file through us).
  int64_t new_io_calls(TraceFile& tf) {
    const int64_t now = next_->io_calls(*tf.inner);
    const int64_t made = now - tf.io_calls_seen;
    tf.io_calls_seen = now;
    return made;
  }

  template <typename Call>
  Status start_file(MPI_Comm comm, Meta m, std::unique_ptr<FileState>* out, Call&& call);

  // Times a non-data call and counts the MPI-IO calls it made.
  template <typename Call>
  Status meta(FileState& f, Meta m, Call&& call) {
    TraceFile& tf = traced(f);
    const int64_t t0 = now_ns();
    Status st = call(*tf.inner);
    const int64_t t1 = now_ns();
    MetaCounters& c = tf.trace.meta[m];
    ++c.calls;
    c.time_ns += t1 - t0;
    c.io_calls += new_io_calls(tf);
    tf.trace.add_event(t0, t1, 0, -1, kMetaCode + m);
    if (!st.is_ok()) ++tf.trace.failed_calls;
    return st;
  }

  // Times a data call (blocking, or the posting of a request) and records
  // its kind, bytes and place; failed calls are only counted.
  template <typename Call>
  Status data(FileState& f, const DataRequest& req, Op op, Call&& call) {
    TraceFile& tf = traced(f);
    const int64_t t0 = now_ns();
    Status st = call(*tf.inner);
    const int64_t t1 = now_ns();
    VarTrace* vp = st.is_ok() ? var_trace(tf, req.varid) : nullptr;
    if (vp == nullptr) {
      ++tf.trace.failed_calls;
      tf.trace.failed_io_calls += new_io_calls(tf);
      return st;
    }
    VarTrace& v = *vp;
    const Access a = describe(v, req);
    KindCounters& k = v.kinds[op][a.shape];
    ++k.calls;
    // Only blocking calls know whether they are collective; a blocking varn learns it in its wait.
    const bool posted = (op != kPut && op != kGet) || req.blocking;
    if (!posted) k.collective += req.collective;
    if (req.blocking) tf.blocking_post = &k;
    k.bytes += a.bytes;
    k.time_ns += t1 - t0;
    k.io_calls += new_io_calls(tf);
    tf.trace.record_access(v, is_write(op), a.bytes, a.begin, a.end);
    tf.trace.add_event(t0, t1, a.bytes, req.varid, op * kNumShapes + a.shape);
    return st;
  }

  // The variable's record, with its geometry on first use; null for an id
  // that is not a variable (a post may leave its errors to the wait).
  VarTrace* var_trace(TraceFile& tf, int varid) {
    const bool known = varid >= 0 && static_cast<size_t>(varid) < tf.trace.vars.size() &&
                       tf.trace.vars[static_cast<size_t>(varid)].geometry;
    if (!known && !next_->dataset(*tf.inner).valid_var(varid)) return nullptr;
    VarTrace& v = tf.trace.var(varid);
    if (!v.geometry) {
      const model::Dataset& ds = next_->dataset(*tf.inner);
      const format::Variable& var = ds.var(varid);
      v.elsize = format::external_size(var.type);
      v.row_bytes.assign(var.dimids.size(), 0);
      int64_t step = v.elsize;
      for (size_t k = var.dimids.size(); k-- > 0;) {
        v.row_bytes[k] = step;
        step *= ds.dim(var.dimids[k]).length;
      }
      v.geometry = true;
    }
    v.touched = true;
    return &v;
  }

  Connector* next_;
  std::string dir_;
  size_t event_cap_;
};

// Rank 0 checks that the report directory takes files, and tells the others.
Status check_dir(MPI_Comm comm, const std::string& dir) {
  int rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  Status local = Status::ok();
  if (rank == 0 && ::access(dir.c_str(), W_OK | X_OK) != 0)
    local = Status{NC_EINVAL, "trace: directory '" + dir + "' is not writable"};
  return io::agree(comm, local);
}

template <typename Call>
Status TraceConnector::start_file(MPI_Comm comm, Meta m, std::unique_ptr<FileState>* out, Call&& call) {
  auto tf = std::make_unique<TraceFile>();
  tf->trace.origin_ns = now_ns();
  tf->trace.event_cap = event_cap_;
  EXA_RETURN_IF_ERROR(check_dir(comm, dir_));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(comm, &tf->report_comm)));
  const int64_t t0 = now_ns();
  Status st = call(&tf->inner);
  const int64_t t1 = now_ns();
  // An error with a state is a file open anyway (PnetCDF: a rank whose mode
  // differs gets NC_EMULTIDEFINE_CMODE/OMODE and a valid ncid): trace it.
  if (tf->inner == nullptr) {
    EXA_MPI(MPI_Comm_free(&tf->report_comm)).set_aside("the failed create/open is what is reported");
    return st;
  }
  MetaCounters& c = tf->trace.meta[m];
  ++c.calls;
  c.time_ns += t1 - t0;
  c.io_calls += new_io_calls(*tf);
  tf->trace.add_event(t0, t1, 0, -1, kMetaCode + m);
  if (!st.is_ok()) ++tf->trace.failed_calls;
  *out = std::move(tf);
  return st;
}

Status TraceConnector::vard(FileState& f, int varid, MPI_Datatype filetype, void* buf,
                            MPI_Offset bufcount, MPI_Datatype buftype, bool put, bool collective) {
  TraceFile& tf = traced(f);
  const int64_t t0 = now_ns();
  Status st = next_->vard(*tf.inner, varid, filetype, buf, bufcount, buftype, put, collective);
  const int64_t t1 = now_ns();
  VarTrace* vp = st.is_ok() ? var_trace(tf, varid) : nullptr;
  if (vp == nullptr) {
    ++tf.trace.failed_calls;
    tf.trace.failed_io_calls += new_io_calls(tf);
    return st;
  }
  MPI_Count size = 0;
  if (filetype != MPI_DATATYPE_NULL) EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_size_x(filetype, &size)));
  VarTrace& v = *vp;
  const Op op = put ? kPut : kGet;
  KindCounters& k = v.kinds[op][kVard];
  ++k.calls;
  k.collective += collective;
  k.bytes += size;
  k.time_ns += t1 - t0;
  k.io_calls += new_io_calls(tf);
  tf.trace.record_access(v, put, size, -1, -1);
  tf.trace.add_event(t0, t1, size, varid, op * kNumShapes + kVard);
  return st;
}

Status TraceConnector::wait(FileState& f, int num, int* reqids, int* statuses, bool collective) {
  TraceFile& tf = traced(f);
  int requests = num;
  if (num < 0) {  // NC_REQ_ALL and friends: how many are pending
    Status counted = next_->inq_nreqs(*tf.inner, &requests);
    if (!counted.is_ok()) requests = 0;
  }
  const int64_t t0 = now_ns();
  Status st = next_->wait(*tf.inner, num, reqids, statuses, collective);
  const int64_t t1 = now_ns();
  if (KindCounters* k = tf.blocking_post; k != nullptr) {
    tf.blocking_post = nullptr;
    k->collective += collective;
    k->time_ns += t1 - t0;
    k->io_calls += new_io_calls(tf);
    tf.trace.add_event(t0, t1, 0, -1, kWaitCode);
    if (!st.is_ok()) ++tf.trace.failed_calls;
    return st;
  }
  WaitCounters& w = tf.trace.waits;
  ++w.calls;
  w.collective += collective;
  w.requests += requests;
  w.time_ns += t1 - t0;
  w.io_calls += new_io_calls(tf);
  tf.trace.add_event(t0, t1, 0, -1, kWaitCode);
  if (!st.is_ok()) ++tf.trace.failed_calls;
  return st;
}

Status TraceConnector::close(FileState& f) {
  TraceFile& tf = traced(f);
  // What the report names, taken while the file is open.
  ReportContext ctx;
  ctx.dir = dir_;
  ctx.below = next_->name();
  ctx.event_cap = event_cap_;
  ctx.path = next_->facts(*tf.inner).path;
  const model::Dataset& ds = next_->dataset(*tf.inner);
  for (int id = 0; id < ds.nvars(); ++id)
    ctx.var_names.push_back(ds.valid_var(id) ? ds.var(id).name : std::string());
  Status closed = meta(f, kClose, [&](FileState& in) { return next_->close(in); });
  Status reported = write_trace_report(tf.report_comm, tf.trace, ctx);
  Status freed = EXA_MPI(MPI_Comm_free(&tf.report_comm));
  if (!closed.is_ok()) return closed;
  if (!reported.is_ok()) return reported;
  return freed;
}

Status TraceConnector::abort(FileState& f) {
  // No report: abort need not be reached by every rank.
  TraceFile& tf = traced(f);
  Status st = next_->abort(*tf.inner);
  Status freed = EXA_MPI(MPI_Comm_free(&tf.report_comm));
  if (!st.is_ok()) return st;
  return freed;
}

bool parse_count(const std::string& text, size_t* out) {
  if (text.empty() || text.size() > 12) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  *out = static_cast<size_t>(std::strtoull(text.c_str(), nullptr, 10));
  return true;
}

}  // namespace

Status make_trace_connector(Connector* below, const ConnectorSettings& settings,
                            std::unique_ptr<Connector>* out) {
  std::string dir = ".";
  size_t events = 4096;
  for (const auto& [key, value] : settings) {
    if (key == "dir") {
      if (value.empty()) return {NC_EINVAL, "trace: dir= needs a directory"};
      dir = value;
    } else if (key == "events") {
      if (!parse_count(value, &events)) return {NC_EINVAL, "trace: events= takes a count, got '" + value + "'"};
    } else {
      return {NC_EINVAL, "trace: unknown setting '" + key + "' (known: dir, events)"};
    }
  }
  *out = std::make_unique<TraceConnector>(below, std::move(dir), events);
  return Status::ok();
}

}  // namespace exa::layer
