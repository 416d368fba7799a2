#include "layer/trace_report.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>

#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
#include "util/json_writer.hpp"

namespace exa::layer {

namespace {

using namespace trace;

// The summable part of a variable's record (the file's is the sum of its variables').
struct AccessSums {
  KindCounters kinds[kNumOps][kNumShapes];
  int64_t read_bins[kNumBins] = {}, write_bins[kNumBins] = {};
  int64_t seq_reads = 0, seq_writes = 0, consec_reads = 0, consec_writes = 0;
  int64_t touched = 0;

  static constexpr size_t kFields = kNumOps * kNumShapes * 5 + 2 * kNumBins + 5;

  template <typename F>  // visits every field in a fixed order
  void each(F&& f) {
    for (auto& row : kinds)
      for (KindCounters& k : row) { f(k.calls); f(k.collective); f(k.bytes); f(k.time_ns); f(k.io_calls); }
    for (int64_t& b : read_bins) f(b);
    for (int64_t& b : write_bins) f(b);
    f(seq_reads); f(seq_writes); f(consec_reads); f(consec_writes); f(touched);
  }
  void add(const AccessSums& o) {
    std::vector<int64_t> other;
    const_cast<AccessSums&>(o).each([&](int64_t& x) { other.push_back(x); });
    size_t i = 0;
    each([&](int64_t& x) { x += other[i++]; });
  }
  int64_t bytes(bool write) const {
    int64_t b = 0;
    for (int op = 0; op < kNumOps; ++op)
      if (is_write(Op(op)) == write)
        for (const KindCounters& k : kinds[op]) b += k.bytes;
    return b;
  }
  int64_t field_sum(int64_t KindCounters::*field) const {
    int64_t s = 0;
    for (const auto& row : kinds)
      for (const KindCounters& k : row) s += k.*field;
    return s;
  }
};

AccessSums sums_of(const VarTrace& v) {
  AccessSums s;
  std::copy(&v.kinds[0][0], &v.kinds[0][0] + kNumOps * kNumShapes, &s.kinds[0][0]);
  std::copy(v.read_bins, v.read_bins + kNumBins, s.read_bins);
  std::copy(v.write_bins, v.write_bins + kNumBins, s.write_bins);
  s.seq_reads = v.seq_reads;
  s.seq_writes = v.seq_writes;
  s.consec_reads = v.consec_reads;
  s.consec_writes = v.consec_writes;
  s.touched = v.touched;
  return s;
}

// Fixed layout summed over ranks: per variable AccessSums, then metadata, waits, failures.
std::vector<int64_t> pack_sums(const FileTrace& t, int nvars) {
  std::vector<int64_t> out;
  out.reserve(size_t(nvars) * AccessSums::kFields + kNumMeta * 3 + 7);
  for (int id = 0; id < nvars; ++id) {
    AccessSums s = size_t(id) < t.vars.size() ? sums_of(t.vars[size_t(id)]) : AccessSums{};
    s.each([&](int64_t& x) { out.push_back(x); });
  }
  for (const MetaCounters& m : t.meta) {
    out.push_back(m.calls);
    out.push_back(m.time_ns);
    out.push_back(m.io_calls);
  }
  const WaitCounters& w = t.waits;
  for (int64_t x : {w.calls, w.collective, w.requests, w.time_ns, w.io_calls, t.failed_calls, t.failed_io_calls})
    out.push_back(x);
  return out;
}

struct Reduced {
  std::vector<AccessSums> vars;
  MetaCounters meta[kNumMeta];
  WaitCounters waits;
  int64_t failed_calls = 0, failed_io_calls = 0;
};

Reduced unpack_sums(const std::vector<int64_t>& in, int nvars) {
  Reduced r;
  size_t i = 0;
  r.vars.resize(size_t(nvars));
  for (AccessSums& s : r.vars) s.each([&](int64_t& x) { x = in[i++]; });
  for (MetaCounters& m : r.meta) {
    m.calls = in[i++];
    m.time_ns = in[i++];
    m.io_calls = in[i++];
  }
  WaitCounters& w = r.waits;
  w.calls = in[i++];
  w.collective = in[i++];
  w.requests = in[i++];
  w.time_ns = in[i++];
  w.io_calls = in[i++];
  r.failed_calls = in[i++];
  r.failed_io_calls = in[i++];
  return r;
}

// Per rank: data+wait time, bytes, metadata time, events kept, dropped, open-to-close time.
constexpr int kRankFields = 6;

void pack_rank_totals(const FileTrace& t, int64_t now, int64_t* out) {
  int64_t time = t.waits.time_ns, bytes = 0, meta = 0;
  for (const VarTrace& v : t.vars) {
    const AccessSums s = sums_of(v);
    time += s.field_sum(&KindCounters::time_ns);
    bytes += s.field_sum(&KindCounters::bytes);
  }
  for (const MetaCounters& m : t.meta) meta += m.time_ns;
  const int64_t values[kRankFields] = {time, bytes, meta, int64_t(t.events.size()), t.dropped_events,
                                       now - t.origin_ns};
  std::copy(values, values + kRankFields, out);
}

// Per rank, variable length: [ntouched, {varid, bytes, time_ns, nsizes, (v,c)..., nstrides,
// (v,c)...}..., nevents, {start, end, bytes, varid, code}...].
void pack_counter(const ValueCounter& c, std::vector<int64_t>* out) {
  size_t n = out->size();
  out->push_back(0);
  for (const auto& s : c.slots())
    if (s.count != 0) {
      out->push_back(s.value);
      out->push_back(s.count);
      ++(*out)[n];
    }
}

std::vector<int64_t> pack_details(const FileTrace& t) {
  std::vector<int64_t> out;
  out.push_back(0);
  for (size_t id = 0; id < t.vars.size(); ++id) {
    const VarTrace& v = t.vars[id];
    if (!v.touched) continue;
    ++out[0];
    const AccessSums s = sums_of(v);
    out.push_back(int64_t(id));
    out.push_back(s.field_sum(&KindCounters::bytes));
    out.push_back(s.field_sum(&KindCounters::time_ns));
    pack_counter(v.sizes, &out);
    pack_counter(v.strides, &out);
  }
  out.push_back(int64_t(t.events.size()));
  for (const Event& e : t.events)
    for (int64_t x : {e.start_ns, e.end_ns, e.bytes, int64_t(e.varid), int64_t(e.code)}) out.push_back(x);
  return out;
}

struct RankCost {
  int rank;
  int64_t bytes, time_ns;
};

struct VarDetails {
  std::map<int64_t, int64_t> sizes, strides;
  std::vector<RankCost> ranks;
};

struct RankTimeline {
  std::vector<Event> events;
};

void unpack_details(const int64_t* p, int rank, std::vector<VarDetails>* vars, RankTimeline* tl) {
  const int64_t ntouched = *p++;
  for (int64_t i = 0; i < ntouched; ++i) {
    const size_t id = size_t(*p++);
    if (id >= vars->size()) vars->resize(id + 1);
    VarDetails& d = (*vars)[id];
    const int64_t bytes = *p++, time = *p++;
    d.ranks.push_back({rank, bytes, time});
    for (auto* table : {&d.sizes, &d.strides}) {
      const int64_t n = *p++;
      for (int64_t k = 0; k < n; ++k, p += 2) (*table)[p[0]] += p[1];
    }
  }
  const int64_t nevents = *p++;
  tl->events.resize(size_t(nevents));
  for (Event& e : tl->events) {
    e.start_ns = *p++;
    e.end_ns = *p++;
    e.bytes = *p++;
    e.varid = int32_t(*p++);
    e.code = int32_t(*p++);
  }
}

double seconds(int64_t ns) { return double(ns) * 1e-9; }

// "put_vara", ..., "wait", or a metadata call's name, by event code.
const char* event_name(int32_t code) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (int op = 0; op < kNumOps; ++op)
      for (int sh = 0; sh < kNumShapes; ++sh) n.push_back(std::string(kOpNames[op]) + "_" + kShapeNames[sh]);
    n.push_back("wait");
    for (const char* m : kMetaNames) n.push_back(m);
    return n;
  }();
  return code >= 0 && static_cast<size_t>(code) < names.size() ? names[static_cast<size_t>(code)].c_str() : "?";
}

void write_top(JsonWriter& j, const char* key, const std::map<int64_t, int64_t>& table) {
  std::vector<std::pair<int64_t, int64_t>> v(table.begin(), table.end());
  std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
  if (v.size() > 4) v.resize(4);
  j.key(key).begin_array();
  for (auto& [value, count] : v) j.begin_array().value(value).value(count).end_array();
  j.end_array();
}

void write_cost(JsonWriter& j, const char* key, const RankCost& c) {
  j.key(key).begin_object().member("rank", int64_t(c.rank)).member("bytes", c.bytes);
  j.member("time_s", seconds(c.time_ns)).end_object();
}

// Fastest and slowest by time among the ranks given.
void write_extremes(JsonWriter& j, const std::vector<RankCost>& ranks) {
  if (ranks.empty()) return;
  auto [lo, hi] = std::minmax_element(ranks.begin(), ranks.end(),
                                      [](auto& a, auto& b) { return a.time_ns < b.time_ns; });
  write_cost(j, "fastest", *lo);
  write_cost(j, "slowest", *hi);
}

void write_var_totals(JsonWriter& j, const AccessSums& s) {
  j.key("totals").begin_object();
  j.member("bytes_written", s.bytes(true)).member("bytes_read", s.bytes(false));
  j.member("time_s", seconds(s.field_sum(&KindCounters::time_ns)));
  j.member("io_calls", s.field_sum(&KindCounters::io_calls)).end_object();
}

// kinds, size_bins, sequential, consecutive.
void write_access(JsonWriter& j, const AccessSums& s) {
  j.key("kinds").begin_object();
  for (int op = 0; op < kNumOps; ++op)
    for (int sh = 0; sh < kNumShapes; ++sh) {
      const KindCounters& k = s.kinds[op][sh];
      if (k.calls == 0) continue;
      j.key(std::string(kOpNames[op]) + "_" + kShapeNames[sh]).begin_object();
      j.member("calls", k.calls).member("collective", k.collective);
      j.member("independent", k.calls - k.collective).member("bytes", k.bytes);
      j.member("time_s", seconds(k.time_ns)).member("io_calls", k.io_calls).end_object();
    }
  j.end_object();
  j.key("size_bins").begin_object().key("edges").begin_array();
  for (const char* e : {"0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M",
                        "10M-100M", "100M-1G", "1G+"})
    j.value(e);
  j.end_array().key("read").begin_array();
  for (int64_t b : s.read_bins) j.value(b);
  j.end_array().key("write").begin_array();
  for (int64_t b : s.write_bins) j.value(b);
  j.end_array().end_object();
  j.key("sequential").begin_object().member("reads", s.seq_reads).member("writes", s.seq_writes).end_object();
  j.key("consecutive").begin_object().member("reads", s.consec_reads).member("writes", s.consec_writes).end_object();
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string run_id() {
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "FLUX_JOB_ID"})
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return v;
  return std::to_string(static_cast<long>(::getpid()));
}

// Creates the report file under a name no earlier report took, and writes it.
Status write_file(const std::string& dir, const std::string& path, const std::string& text) {
  const std::string stem = dir + "/" + base_name(path) + "." + run_id();
  for (int n = 1; n < 1000; ++n) {
    const std::string name = stem + (n == 1 ? "" : "." + std::to_string(n)) + ".trace.json";
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return {NC_EFILE, "trace: cannot create " + name + ": " + std::strerror(errno)};
    size_t done = 0;
    while (done < text.size()) {
      ssize_t w = ::write(fd, text.data() + done, text.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ::close(fd);
        return {NC_EWRITE, "trace: cannot write " + name};
      }
      done += size_t(w);
    }
    if (::close(fd) != 0) return {NC_EWRITE, "trace: cannot close " + name};
    return Status::ok();
  }
  return {NC_EFILE, "trace: no free report name for " + stem};
}

std::string render(const ReportContext& ctx, int nprocs, const Reduced& r,
                   const std::vector<int64_t>& rank_totals, const std::vector<VarDetails>& details,
                   const std::vector<RankTimeline>& timelines) {
  JsonWriter j;
  j.begin_object();
  j.member("schema", "exacdf-trace-1").member("file", ctx.path).member("nprocs", int64_t(nprocs));
  j.member("below", ctx.below).member("written_unix", int64_t(std::time(nullptr)));
  int64_t duration = 0;
  std::vector<RankCost> costs;
  for (int p = 0; p < nprocs; ++p) {
    const int64_t* t = &rank_totals[size_t(p) * kRankFields];
    duration = std::max(duration, t[5]);
    costs.push_back({p, t[1], t[0]});
  }
  j.member("duration_s", seconds(duration)).member("failed_calls", r.failed_calls);

  AccessSums file;
  for (const AccessSums& s : r.vars) file.add(s);
  int64_t meta_time = 0;
  for (const MetaCounters& m : r.meta) meta_time += m.time_ns;
  j.key("totals").begin_object();
  j.member("bytes_written", file.bytes(true)).member("bytes_read", file.bytes(false));
  j.member("data_time_s", seconds(file.field_sum(&KindCounters::time_ns)));
  j.member("wait_time_s", seconds(r.waits.time_ns)).member("meta_time_s", seconds(meta_time));
  int64_t io_calls = file.field_sum(&KindCounters::io_calls) + r.waits.io_calls;
  for (const MetaCounters& m : r.meta) io_calls += m.io_calls;
  io_calls += r.failed_io_calls;
  j.member("io_calls", io_calls).end_object();

  write_access(j, file);
  j.key("waits").begin_object().member("calls", r.waits.calls).member("collective", r.waits.collective);
  j.member("requests", r.waits.requests).member("time_s", seconds(r.waits.time_ns));
  j.member("io_calls", r.waits.io_calls).end_object();
  j.key("metadata").begin_object();
  for (int m = 0; m < kNumMeta; ++m) {
    if (r.meta[m].calls == 0) continue;
    j.key(kMetaNames[m]).begin_object().member("calls", r.meta[m].calls);
    j.member("time_s", seconds(r.meta[m].time_ns)).member("io_calls", r.meta[m].io_calls).end_object();
  }
  j.end_object();
  std::map<int64_t, int64_t> sizes, strides;
  for (const VarDetails& d : details) {
    for (auto& [v, c] : d.sizes) sizes[v] += c;
    for (auto& [v, c] : d.strides) strides[v] += c;
  }
  write_top(j, "common_sizes", sizes);
  write_top(j, "common_strides", strides);

  j.key("ranks").begin_object();
  write_extremes(j, costs);
  j.key("per_rank").begin_array();
  for (int p = 0; p < nprocs; ++p) {
    const int64_t* t = &rank_totals[size_t(p) * kRankFields];
    j.begin_object().member("rank", int64_t(p)).member("bytes", t[1]).member("time_s", seconds(t[0]));
    j.member("meta_time_s", seconds(t[2])).member("events", t[3]).member("dropped_events", t[4]).end_object();
  }
  j.end_array().end_object();

  j.key("variables").begin_array();
  for (size_t id = 0; id < r.vars.size(); ++id) {
    const AccessSums& s = r.vars[id];
    if (s.touched == 0) continue;
    j.begin_object().member("id", int64_t(id));
    j.member("name", id < ctx.var_names.size() ? ctx.var_names[id] : std::string());
    write_var_totals(j, s);
    write_access(j, s);
    if (id < details.size()) {
      write_top(j, "common_sizes", details[id].sizes);
      write_top(j, "common_strides", details[id].strides);
      write_extremes(j, details[id].ranks);
    }
    j.end_object();
  }
  j.end_array();

  j.key("timeline").begin_object().member("cap_per_rank", int64_t(ctx.event_cap));
  j.key("ranks").begin_array();
  for (int p = 0; p < nprocs; ++p) {
    j.begin_object().member("rank", int64_t(p)).member("dropped", rank_totals[size_t(p) * kRankFields + 4]);
    j.key("events").begin_array();
    for (const Event& e : timelines[size_t(p)].events) {
      j.begin_array().seconds(e.start_ns).seconds(e.end_ns).value(event_name(e.code));
      j.value(int64_t(e.varid)).value(e.bytes).end_array();
    }
    j.end_array().end_object();
  }
  j.end_array().end_object();
  j.end_object();
  return j.text();
}

}  // namespace

Status write_trace_report(MPI_Comm comm, const FileTrace& t, const ReportContext& ctx) {
  int rank = 0, nprocs = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &nprocs)));
  int nvars = static_cast<int>(std::max(ctx.var_names.size(), t.vars.size()));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &nvars, 1, MPI_INT, MPI_MAX, comm)));

  std::vector<int64_t> sums = pack_sums(t, nvars);
  std::vector<int64_t> summed(rank == 0 ? sums.size() : 0);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Reduce(sums.data(), summed.data(), static_cast<int>(sums.size()),
                                         MPI_INT64_T, MPI_SUM, 0, comm)));
  int64_t mine[kRankFields];
  pack_rank_totals(t, now_ns(), mine);
  std::vector<int64_t> rank_totals(rank == 0 ? size_t(nprocs) * kRankFields : 0);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gather(mine, kRankFields, MPI_INT64_T, rank_totals.data(),
                                         kRankFields, MPI_INT64_T, 0, comm)));
  const std::vector<int64_t> details = pack_details(t);
  int length = static_cast<int>(details.size());
  std::vector<int> lengths(rank == 0 ? size_t(nprocs) : 0), offsets(lengths.size());
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm)));
  size_t total = 0;
  for (size_t p = 0; p < lengths.size(); ++p) {
    offsets[p] = static_cast<int>(total);
    total += size_t(lengths[p]);
  }
  std::vector<int64_t> all(total);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gatherv(details.data(), length, MPI_INT64_T, all.data(), lengths.data(),
                                          offsets.data(), MPI_INT64_T, 0, comm)));
  Status written = Status::ok();
  if (rank == 0) {
    const Reduced r = unpack_sums(summed, nvars);
    std::vector<VarDetails> var_details(static_cast<size_t>(nvars));
    std::vector<RankTimeline> timelines(static_cast<size_t>(nprocs));
    for (int p = 0; p < nprocs; ++p) unpack_details(&all[size_t(offsets[size_t(p)])], p, &var_details, &timelines[size_t(p)]);
    written = write_file(ctx.dir, ctx.path, render(ctx, nprocs, r, rank_totals, var_details, timelines));
  }
  return io::agree(comm, written);
}

}  // namespace exa::layer
