#include "layer/cache_connector.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "convert/external.hpp"
#include "exacdf.h"
#include "format/classic_header.hpp"
#include "io/memory_plan.hpp"
#include "io/mpi_errors.hpp"
#include "layer/cache_files.hpp"
#include "layer/cache_log.hpp"
#include "layer/cache_prefetch.hpp"
#include "layer/cache_reads.hpp"
#include "layer/forwarding_connector.hpp"
#include "layer/put_range.hpp"

extern char** environ;

namespace exa::layer {

namespace {

namespace cl = cachelog;

enum class DrainWhen { kEager, kClose, kManual };

struct CacheSettings {
  std::string dir = cache::default_dir();
  int64_t size = int64_t{1} << 30;  // per node, shared by its ranks
  bool durable_node = false;       // fdatasync every record (else: the page cache)
  DrainWhen drain = DrainWhen::kEager;
  bool detach = false;             // close=detach: a helper process finishes the drain
  bool recover_auto = false;
  int prefetch = 4;              // chunks read ahead per variable (0: no prefetch)
  std::vector<int64_t> ghost;    // ghost zone of prefetched chunks (prefetch::ghost_for)
};

bool verbose() {
  const char* v = std::getenv("EXACDF_VERBOSE");
  return v && std::strcmp(v, "1") == 0;
}

// EXACDF_CACHE_WRITE_TIMES=1: where a writer's time goes (bench/run_cache_bench.sh).
// Each rank prints one line to stderr at close; unset, nothing is printed.
bool write_times_on() {
  static const bool on = [] {
    const char* v = std::getenv("EXACDF_CACHE_WRITE_TIMES");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

using WriteClock = std::chrono::steady_clock;

double seconds_since(WriteClock::time_point t0) {
  return std::chrono::duration<double>(WriteClock::now() - t0).count();
}

// Seconds and bytes, by where they went. The program's thread writes the put
// and close fields; append's under log_mu; the drains' under below_mu; read at
// close after the mover stopped.
struct WriteTimes {
  double put = 0;          // inside put() of collective puts (what the application sees)
  double agree = 0;        // the put's allreduce
  double range = 0;        // range_status (the conversion trial)
  double encode = 0;       // record head + tail: the CRC pass over the values
  double tier_write = 0;   // pwrite of the record into the tier
  double log_sync = 0;     // fdatasync of the log (durable=node)
  double manifest = 0;     // open_log: making the log, writing its manifest
  double put_drain = 0;    // drains a put had to make (back-pressure, write-through)
  int64_t logged = 0;      // payload bytes logged
  double mover = 0;        // the mover's drains
  int64_t mover_bytes = 0;
  double close_drain = 0;  // close: draining what was left
  int64_t close_bytes = 0;
  double close_sync = 0;   // close: sync of the target (close=sync) or of the log (detach)
  double close_below = 0;  // close: the layer below's close
  double close = 0;        // the whole close
};

Status write_at(int fd, const void* data, int64_t n, int64_t at) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = ::pwrite(fd, p, static_cast<size_t>(n), at);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return {NC_EFILE, std::string("cache log write failed: ") + std::strerror(errno)};
    p += put;
    n -= put;
    at += put;
  }
  return Status::ok();
}

Status read_at(int fd, void* data, int64_t n, int64_t at) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, static_cast<size_t>(n), at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return {NC_EFILE, std::string("cache log read failed: ") + std::strerror(errno)};
    p += got;
    n -= got;
    at += got;
  }
  return Status::ok();
}

class CacheFile final : public WrappedState {
 public:
  CacheFile(std::unique_ptr<FileState> lower, const CacheSettings& s) : WrappedState(std::move(lower)), settings(s) {}
  ~CacheFile() override {
    if (fetcher.joinable()) {
      reads->stop();
      fetcher.join();
    }
    if (mover.joinable()) {  // closed without close/abort (the program ended): stop it
      {
        std::lock_guard<std::mutex> lock(log_mu);
        stop = true;
        abandon = true;  // no agreement of the movers to wait for
      }
      wake.notify_all();
      mover.join();
    }
    if (fd >= 0) ::close(fd);
    int finalized = 0;
    if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return;  // the communicators went with MPI
    if (dup != MPI_COMM_NULL) static_cast<void>(MPI_Comm_free(&dup));  // nothing to report to at destruction
    if (movers != MPI_COMM_NULL && !round_open) static_cast<void>(MPI_Comm_free(&movers));
  }

  CacheSettings settings;
  MPI_Comm dup = MPI_COMM_NULL;  // the connector's own agreements
  int rank = 0, nprocs = 1;
  bool active = false;  // a writable classic file: puts are logged
  bool indep = false;   // independent data mode
  std::string target;   // absolute path
  std::string log_file;
  int fd = -1;
  int64_t capacity = 0;
  int64_t generation = 0;
  bool manifest_current = false;
  bool tier_broken = false;  // the log could not be written (full tier): puts write through
  WriteTimes times;          // EXACDF_CACHE_WRITE_TIMES
  uint64_t calls = 0;  // collective puts so far (the program's thread; the same count on every rank)

  // The ring: guarded by log_mu.
  std::mutex log_mu;
  int64_t head = 0;
  uint64_t next_seq = 0;
  std::deque<cl::Record> queue;  // logged, not yet drained, in program order
  cl::State state;
  // Records of collective calls up to this one may drain on this rank alone:
  // every rank had drained all older calls (agreed at a collective put, or
  // by the movers among themselves: mover_agree).
  uint64_t watermark = 0;
  // Collective puts that have returned on this rank (their records logged, or
  // written): with an empty queue, every record of an older call is in the file.
  uint64_t settled_calls = 0;

  // The movers' own agreement (several ranks, MPI_THREAD_MULTIPLE): a second
  // duplicate of the file's communicator, used by the mover threads alone for
  // a nonblocking allreduce they progress while the program computes.
  MPI_Comm movers = MPI_COMM_NULL;
  bool round_open = false;  // an allreduce on `movers` not completed (the mover thread)
  uint64_t rounds = 0;      // the movers' agreements completed (the mover thread; read after join)
  bool nudged = false;      // a put returned since the last agreement (log_mu)
  bool abandon = false;     // destroyed unclosed: the mover leaves at once (log_mu)
  Status mover_error;       // an agreement failed (log_mu; the mover then stops agreeing)

  // Calls into the layers below (the program's thread and the mover).
  std::recursive_mutex below_mu;  // recursive: an inquiry's answer may ask facts()
  Status failure;  // a drain that failed (sticky; the log is kept)
  std::atomic<bool> failed{false};

  std::thread mover;
  std::condition_variable wake;
  bool stop = false;  // guarded by log_mu

  // Read prefetch (null: off): the chunks in the tier, and the thread that
  // fetches them (MPI_THREAD_MULTIPLE; else fetched inside the read).
  std::unique_ptr<ReadCache> reads;
  std::thread fetcher;
  int advise_fd = -1;  // the target opened read-only: its extents asked for ahead (fadvise)
  // This rank's put requests (iput, bput) posted and not yet waited for, by
  // id, with the region each writes (whole: the variable as far as prefetch
  // can tell): a wait drops what the requests it completes reach. The
  // program's thread only (post, wait, cancel).
  struct PendingPut {
    int varid = 0;
    bool whole = false;
    prefetch::Box box;
  };
  std::map<int, PendingPut> pending_puts;
  bool writable = false;
  bool erange_keep = false;  // exa_erange_fill=disable: out-of-range reads keep the C cast
};

CacheFile& own(FileState& f) { return static_cast<CacheFile&>(f); }

int64_t tail_of(const CacheFile& cf) { return cf.queue.empty() ? cf.head : cf.queue.front().offset; }

int64_t used_of(const CacheFile& cf) {
  if (cf.queue.empty()) return 0;
  const int64_t span = (cf.head - tail_of(cf) + cf.capacity) % cf.capacity;
  return span == 0 ? cf.capacity : span;
}

// Where a record of len bytes goes now (wrap: it starts over at 0), or -1.
int64_t place(const CacheFile& cf, int64_t len, bool* wrap) {
  *wrap = false;
  if (used_of(cf) == cf.capacity) return -1;
  const int64_t tail = tail_of(cf);
  if (cf.head >= tail) {
    if (len <= cf.capacity - cf.head) return cf.head;
    if (len <= tail || (cf.queue.empty() && len <= cf.capacity)) {
      *wrap = true;
      return 0;
    }
    return -1;
  }
  return len <= tail - cf.head ? cf.head : -1;
}

Status sync_log(CacheFile& cf) {
  if (!cf.settings.durable_node) return Status::ok();
  const auto t0 = WriteClock::now();
  const int rc = ::fdatasync(cf.fd);
  cf.times.log_sync += seconds_since(t0);
  if (rc != 0) return {NC_EFILE, std::string("cache log fdatasync failed: ") + std::strerror(errno)};
  return Status::ok();
}

// Records where the undrained part of the log starts (log_mu held).
Status write_state(CacheFile& cf) {
  cf.state.counter++;
  cf.state.tail = tail_of(cf);
  cf.state.next_seq = cf.queue.empty() ? cf.next_seq : cf.queue.front().seq;
  const std::vector<uint8_t> slot = cl::encode_state(cf.state);
  EXA_RETURN_IF_ERROR(write_at(cf.fd, slot.data(), cl::kStateBytes, cl::kStateSlot[cf.state.counter % 2]));
  return sync_log(cf);
}

// Makes the log file, and (re)writes its manifest after an enddef changed
// the header (log_mu held; the log is empty then: redef drains it).
Status open_log(CacheFile& cf, const model::Dataset& ds) {
  if (cf.fd < 0) {
    EXA_RETURN_IF_ERROR(cache::make_dir(cf.settings.dir));
    cf.fd = ::open(cf.log_file.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (cf.fd < 0) return {NC_EFILE, "cannot create cache log " + cf.log_file + ": " + std::strerror(errno)};
    if (::ftruncate(cf.fd, cl::kHeadBytes + cf.capacity) != 0)
      return {NC_EFILE, "cannot size cache log " + cf.log_file + ": " + std::strerror(errno)};
  }
  if (cf.manifest_current) return Status::ok();
  cl::Manifest m;
  const std::vector<uint8_t> header = ds.encode_file_header();  // rank 0's may not be in the file yet
  if (static_cast<int64_t>(header.size()) == ds.layout().header_size)
    EXA_RETURN_IF_ERROR(cache::describe_target(cf.target, header, &m));
  else
    EXA_RETURN_IF_ERROR(cache::describe_target(cf.target, ds.layout().header_size, &m));
  m.generation = cf.generation;
  m.rank = cf.rank;
  m.nprocs = cf.nprocs;
  m.capacity = cf.capacity;
  const std::vector<uint8_t> block = cl::encode_manifest(m);
  EXA_RETURN_IF_ERROR(write_at(cf.fd, block.data(), static_cast<int64_t>(block.size()), 0));
  EXA_RETURN_IF_ERROR(write_state(cf));
  cf.manifest_current = true;
  return Status::ok();
}

// Appends a record (log_mu held). *placed is false when the ring has no
// room for it now.
Status append(CacheFile& cf, cl::Record rec, const void* payload, bool* placed,
              convert::SegmentedRange* range = nullptr) {
  const int64_t len = cl::record_length(static_cast<int>(rec.start.size()), rec.has_stride, rec.payload_size);
  bool wrap = false;
  const int64_t at = place(cf, len, &wrap);
  *placed = at >= 0;
  if (at < 0) return Status::ok();
  if (wrap && cf.capacity - cf.head >= 8) {
    const uint32_t marker = cl::kWrapMagic;
    EXA_RETURN_IF_ERROR(write_at(cf.fd, &marker, 4, cl::kHeadBytes + cf.head));
  }
  rec.seq = cf.next_seq;
  rec.offset = at;
  rec.length = len;
  std::vector<uint8_t> head, tail;
  const auto t_encode = WriteClock::now();
  cl::encode_record_head(rec, &head);
  cl::encode_record_tail(head, payload, rec.payload_size, len, &tail,
                         range != nullptr ? [&](const void* block, int64_t bytes) {
                           range->add_native(block, rec.memtype, bytes / convert::native_size(rec.memtype));
                         } : cl::PayloadBlockFn{});
  rec.payload_offset = at + static_cast<int64_t>(head.size());
  cf.times.encode += seconds_since(t_encode);
  const auto t_write = WriteClock::now();
  EXA_RETURN_IF_ERROR(write_at(cf.fd, head.data(), static_cast<int64_t>(head.size()), cl::kHeadBytes + at));
  cache::crash_point("put_mid", cf.rank);
  EXA_RETURN_IF_ERROR(write_at(cf.fd, payload, rec.payload_size, cl::kHeadBytes + rec.payload_offset));
  EXA_RETURN_IF_ERROR(write_at(cf.fd, tail.data(), static_cast<int64_t>(tail.size()),
                               cl::kHeadBytes + rec.payload_offset + rec.payload_size));
  cf.times.tier_write += seconds_since(t_write);
  cf.times.logged += rec.payload_size;
  EXA_RETURN_IF_ERROR(sync_log(cf));
  cf.head = at + len == cf.capacity ? 0 : at + len;
  cf.next_seq++;
  cf.queue.push_back(std::move(rec));
  cache::crash_point("put_after", cf.rank);
  return Status::ok();
}

// Posts `batch` (logged records, in order) and then `extra` (a put of the
// program written through; *extra_status its answer) as requests below and
// waits once: native merges them into one MPI-IO call in posting order
// (overlaps resolved as the program wrote them) and converts to external
// form there. collective: every rank waits (with nothing after a failure).
// below_mu held.
Status write_batch(Connector* next, CacheFile& cf, const std::vector<cl::Record>& batch, bool collective,
                   const DataRequest* extra, Status* extra_status) {
  FileState& lower = cf.below();
  Status st = cf.failure;
  std::vector<int> ids;
  std::vector<uint8_t> payload;
  std::vector<MPI_Offset> start, count, stride;
  for (size_t i = 0; st.is_ok() && i < batch.size(); ++i) {
    const cl::Record& rec = batch[i];
    payload.resize(static_cast<size_t>(rec.payload_size));
    st = read_at(cf.fd, payload.data(), rec.payload_size, cl::kHeadBytes + rec.payload_offset);
    if (!st.is_ok()) break;
    start.assign(rec.start.begin(), rec.start.end());
    count.assign(rec.count.begin(), rec.count.end());
    stride.assign(rec.stride.begin(), rec.stride.end());
    DataRequest r;
    r.varid = rec.varid;
    r.start = start.data();
    r.count = count.data();
    r.stride = rec.has_stride ? stride.data() : nullptr;
    r.buf = payload.data();
    r.memtype = rec.memtype;
    r.collective = false;
    int id = NC_REQ_NULL;
    Status posted = next->post(lower, r, PostKind::kIput, &id);  // converted (copied) at once
    if (!posted.is_ok() && posted.code() != NC_ERANGE) st = posted;  // NC_ERANGE: told at the put
    else ids.push_back(id);
  }
  const size_t logged = ids.size();
  if (st.is_ok() && extra) {
    int id = NC_REQ_NULL;
    *extra_status = next->post(lower, *extra, PostKind::kIput, &id);
    if (extra_status->is_ok() || extra_status->code() == NC_ERANGE) ids.push_back(id);
  }
  if (!st.is_ok() && !ids.empty()) {
    std::vector<int> statuses(ids.size());
    next->cancel(lower, static_cast<int>(ids.size()), ids.data(), statuses.data())
        .set_aside("the failure before is what is reported");
    ids.clear();
  }
  if (!ids.empty() || collective) {
    std::vector<int> statuses(ids.size() + 1, NC_NOERR);
    Status waited = next->wait(lower, static_cast<int>(ids.size()), ids.data(), statuses.data(), collective);
    for (size_t i = 0; waited.is_ok() && i < ids.size(); ++i) {
      if (statuses[i] == NC_NOERR) continue;
      if (i < logged) waited = {statuses[i], "a logged record failed to drain"};
      else if (extra_status->is_ok()) *extra_status = {statuses[i], "the write-through failed"};
    }
    if (st.is_ok()) st = waited;
  }
  return st;
}

// The first n records of the queue are in the file: they are forgotten and
// the state slot advances. Or the write failed: the log is kept and the
// failure recorded (sticky). below_mu held.
Status settle(CacheFile& cf, size_t n, const Status& written) {
  cache::crash_point("drain_mid", cf.rank);
  std::lock_guard<std::mutex> lock(cf.log_mu);
  if (!written.is_ok()) {
    if (cf.failure.is_ok()) {
      cf.failure = {written.code(), "cache: draining into " + cf.target + " failed (" + written.message() +
                                        "); the log " + cf.log_file + " is kept for exacdf recover"};
      cf.failed = true;
      if (cf.fd >= 0) {
        cf.state.failed = 1;
        write_state(cf).set_aside("the drain failure is what is reported");
      }
    }
    return cf.failure;
  }
  if (n > 0) {
    cf.queue.erase(cf.queue.begin(), cf.queue.begin() + static_cast<std::ptrdiff_t>(n));
    EXA_RETURN_IF_ERROR(write_state(cf));
  }
  cache::crash_point("drain_after", cf.rank);
  return Status::ok();
}

// This rank alone writes the logged records of collective calls up to
// `last_call`, plus `extra` after them. Other ranks' logs are not ordered
// against it: used by the mover (up to the calls every rank has drained
// before, so nothing older can land later) and by calls only this rank makes.
// below_mu held.
Status drain_locked(Connector* next, CacheFile& cf, uint64_t last_call, const DataRequest* extra,
                    Status* extra_status, int64_t* bytes = nullptr) {
  std::vector<cl::Record> batch;
  {
    std::lock_guard<std::mutex> lock(cf.log_mu);
    for (const cl::Record& rec : cf.queue) {
      if (rec.call > last_call) break;
      batch.push_back(rec);
      if (bytes) *bytes += rec.payload_size;
    }
  }
  Status written = write_batch(next, cf, batch, false, extra, extra_status);
  return settle(cf, batch.size(), written);
}

// The part of one variable some puts of one rank in one collective call
// reach: per dimension the first and last index (empty: lo > hi).
struct Reach {
  int rank = 0;
  uint64_t call = 0;
  int64_t varid = 0;
  std::vector<int64_t> lo, hi;
};

template <typename T>
void widen(Reach* r, size_t ndims, const T* start, const T* count, const T* stride) {
  if (r->lo.size() != ndims) {
    r->lo.assign(ndims, INT64_MAX);
    r->hi.assign(ndims, INT64_MIN);
  }
  for (size_t d = 0; d < ndims; ++d)
    if (count && count[d] <= 0) return;  // no element
  for (size_t d = 0; d < ndims; ++d) {
    if (!start) {  // the whole variable
      r->lo[d] = 0;
      r->hi[d] = INT64_MAX;
      continue;
    }
    const int64_t first = start[d];
    const int64_t steps = count ? count[d] - 1 : 0;
    const int64_t last = first + steps * (stride ? stride[d] : 1);
    r->lo[d] = std::min({r->lo[d], first, last});
    r->hi[d] = std::max({r->hi[d], first, last});
  }
}

bool overlap(const Reach& a, const Reach& b) {
  if (a.varid != b.varid) return false;
  if (a.lo.size() != b.lo.size()) return true;
  for (size_t d = 0; d < a.lo.size(); ++d)
    if (a.lo[d] > a.hi[d] || b.lo[d] > b.hi[d] || a.hi[d] < b.lo[d] || b.hi[d] < a.lo[d]) return false;
  return true;
}

// The calls where a new collective write begins (reaches sorted by call).
// One MPI-IO call does not order the writes of different ranks, so one write
// may hold overlapping parts of two ranks only if they come from the same
// collective call (where PnetCDF leaves the result undefined too).
std::vector<uint64_t> round_starts(const std::vector<Reach>& reaches) {
  std::vector<uint64_t> starts;
  std::vector<const Reach*> current;
  for (size_t i = 0; i < reaches.size();) {
    size_t j = i;
    while (j < reaches.size() && reaches[j].call == reaches[i].call) ++j;
    bool conflict = current.empty();
    for (size_t g = i; g < j && !conflict; ++g)
      for (const Reach* h : current)
        if (h->rank != reaches[g].rank && overlap(*h, reaches[g])) {
          conflict = true;
          break;
        }
    if (conflict) {
      starts.push_back(reaches[i].call);
      current.clear();
    }
    for (size_t g = i; g < j; ++g) current.push_back(&reaches[g]);
    i = j;
  }
  return starts;
}

// What this rank will write: its records (and extra, of call extra_call),
// as reaches, flattened: call, varid, ndims, lo..., hi... each.
std::vector<int64_t> describe(const model::Dataset& ds, const std::vector<cl::Record>& batch, uint64_t extra_call,
                              const DataRequest* extra) {
  std::vector<Reach> mine;
  for (const cl::Record& rec : batch) {
    if (mine.empty() || mine.back().call != rec.call || mine.back().varid != rec.varid) {
      mine.emplace_back();
      mine.back().call = rec.call;
      mine.back().varid = rec.varid;
    }
    widen(&mine.back(), rec.start.size(), rec.start.data(), rec.count.data(),
          rec.has_stride ? rec.stride.data() : nullptr);
  }
  if (extra) {
    Reach r;
    r.call = extra_call;
    r.varid = extra->varid;
    const size_t ndims = ds.var(extra->varid).dimids.size();
    if (extra->varn) {
      for (int i = 0; i < extra->npieces; ++i)
        widen<MPI_Offset>(&r, ndims, extra->starts ? extra->starts[i] : nullptr,
                          extra->counts ? extra->counts[i] : nullptr, nullptr);
      if (r.lo.size() != ndims) widen<MPI_Offset>(&r, ndims, nullptr, nullptr, nullptr);  // no piece: all of it
    } else {
      widen(&r, ndims, extra->start, extra->count, extra->stride);
    }
    mine.push_back(std::move(r));
  }
  std::vector<int64_t> flat;
  for (const Reach& r : mine) {
    flat.push_back(static_cast<int64_t>(r.call));
    flat.push_back(r.varid);
    flat.push_back(static_cast<int64_t>(r.lo.size()));
    flat.insert(flat.end(), r.lo.begin(), r.lo.end());
    flat.insert(flat.end(), r.hi.begin(), r.hi.end());
  }
  return flat;
}

// Every rank's reaches, sorted by call (rank by rank within one call).
Status gather_reaches(CacheFile& cf, const std::vector<int64_t>& mine, std::vector<Reach>* out) {
  if (mine.size() > static_cast<size_t>(INT32_MAX)) return {NC_EINVAL, "cache: too many records to drain at once"};
  std::vector<int> sizes(static_cast<size_t>(cf.nprocs)), displs(static_cast<size_t>(cf.nprocs));
  int my_size = static_cast<int>(mine.size());
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, cf.dup)));
  int64_t total = 0;
  for (int r = 0; r < cf.nprocs; ++r) {
    displs[static_cast<size_t>(r)] = static_cast<int>(total);
    total += sizes[static_cast<size_t>(r)];
  }
  if (total > INT32_MAX) return {NC_EINVAL, "cache: too many records to drain at once"};
  std::vector<int64_t> all(static_cast<size_t>(total));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgatherv(mine.data(), my_size, MPI_INT64_T, all.data(), sizes.data(),
                                             displs.data(), MPI_INT64_T, cf.dup)));
  for (int r = 0; r < cf.nprocs; ++r) {
    size_t at = static_cast<size_t>(displs[static_cast<size_t>(r)]);
    const size_t end = at + static_cast<size_t>(sizes[static_cast<size_t>(r)]);
    while (at + 3 <= end) {
      Reach g;
      g.rank = r;
      g.call = static_cast<uint64_t>(all[at]);
      g.varid = all[at + 1];
      const auto nd = static_cast<size_t>(all[at + 2]);
      at += 3;
      if (at + 2 * nd > end) break;
      g.lo.assign(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + nd));
      g.hi.assign(all.begin() + static_cast<std::ptrdiff_t>(at + nd),
                  all.begin() + static_cast<std::ptrdiff_t>(at + 2 * nd));
      at += 2 * nd;
      out->push_back(std::move(g));
    }
  }
  std::stable_sort(out->begin(), out->end(), [](const Reach& a, const Reach& b) { return a.call < b.call; });
  return Status::ok();
}

// Every rank writes its whole log, and `extra` (the program's put of
// collective call extra_call, written through), in collective writes that
// keep the order of the collective calls across ranks: the ranks exchange
// what their records reach, and every rank cuts the same calls into the same
// rounds (round_starts); each round is one collective wait, and the state
// slots advance after each, so a crash leaves only records newer than any
// round written (recovery replays them in call order). below_mu held; every
// rank calls, in collective data mode.
Status drain_ordered(Connector* next, CacheFile& cf, uint64_t extra_call, const DataRequest* extra,
                     Status* extra_status) {
  if (!cf.active) return Status::ok();
  std::vector<cl::Record> batch;
  if (cf.failure.is_ok()) {
    std::lock_guard<std::mutex> lock(cf.log_mu);
    batch.assign(cf.queue.begin(), cf.queue.end());
  }
  const std::vector<int64_t> mine =
      describe(next->dataset(cf.below()), batch, extra_call, cf.failure.is_ok() ? extra : nullptr);
  std::vector<Reach> reaches;
  EXA_RETURN_IF_ERROR(gather_reaches(cf, mine, &reaches));
  const std::vector<uint64_t> starts = round_starts(reaches);
  size_t done = 0;  // records of batch written
  for (size_t r = 0; r < starts.size(); ++r) {
    const uint64_t end = r + 1 < starts.size() ? starts[r + 1] : UINT64_MAX;
    std::vector<cl::Record> part;
    while (done + part.size() < batch.size() && batch[done + part.size()].call < end)
      part.push_back(batch[done + part.size()]);
    const bool with_extra = extra && extra_call >= starts[r] && extra_call < end;
    Status written = write_batch(next, cf, part, true, with_extra ? extra : nullptr, extra_status);
    settle(cf, part.size(), written)
        .set_aside("kept in the file's failure, returned below");
    done += part.size();
  }
  // A collective write returns on a rank once that rank's part is handed over,
  // not once every rank's part is in the file: under OMPIO another rank (or an
  // aggregator) may still be writing its part of the last round. The caller's
  // mover may write newer calls as soon as this returns (put: watermark = call),
  // and such a write must not land before an older round's. So every rank (all
  // gathered the same reaches) waits here until every rank is done.
  if (!reaches.empty()) EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Barrier(cf.dup)));
  return cf.failure;
}

bool has_logged(CacheFile& cf) {
  std::lock_guard<std::mutex> lock(cf.log_mu);
  return !cf.queue.empty();
}

// This rank's whole log, alone (see drain_locked).
Status drain(Connector* next, CacheFile& cf) {
  if (!cf.active || (!has_logged(cf) && !cf.failed)) return Status::ok();
  return drain_locked(next, cf, UINT64_MAX, nullptr, nullptr);
}

// Whether the mover may write the oldest record now (log_mu held).
bool drainable(const CacheFile& cf) {
  return !cf.queue.empty() && !cf.failed && cf.queue.front().call <= cf.watermark;
}

// One drain of the mover: every record up to the watermark (log_mu held by
// `lock` on entry and on return, released while writing).
void mover_drain(Connector* next, CacheFile* cf, std::unique_lock<std::mutex>& lock) {
  const uint64_t watermark = cf->watermark;
  lock.unlock();
  {
    std::lock_guard<std::recursive_mutex> below(cf->below_mu);
    const auto t0 = WriteClock::now();
    int64_t bytes = 0;
    drain_locked(next, *cf, watermark, nullptr, nullptr, &bytes)
        .set_aside("kept in the file's failure; the next flush/sync/close reports it");
    cf->times.mover += seconds_since(t0);
    cf->times.mover_bytes += bytes;
  }
  lock.lock();
}

// What this rank tells an agreement (log_mu held): every record of a
// collective call older than this is in the file. With records logged, the
// oldest one's call; with none, the collective puts returned so far (a put
// on its way may still log a record of its call).
uint64_t drained_below(const CacheFile& cf) {
  return cf.queue.empty() ? cf.settled_calls : cf.queue.front().call;
}

// One rank, or no agreement of the movers' own: drains what the puts'
// agreements allow (calls up to the watermark).
void mover_loop_alone(Connector* next, CacheFile* cf) {
  std::unique_lock<std::mutex> lock(cf->log_mu);
  while (true) {
    cf->wake.wait(lock, [&] { return cf->stop || drainable(*cf); });
    if (cf->stop) return;
    mover_drain(next, cf, lock);
  }
}

// MPI_Finalize with a file left open: the movers must make no MPI call once
// it began. An attribute of MPI_COMM_SELF is deleted first thing in
// MPI_Finalize (MPI is still usable then): its callback says so and waits
// until no mover is inside an MPI call; a mover checks before each call.
std::atomic<bool> g_mpi_ending{false};
std::atomic<int> g_movers_in_mpi{0};

int on_mpi_end(MPI_Comm, int, void*, void*) {
  g_mpi_ending.store(true);
  while (g_movers_in_mpi.load() > 0) std::this_thread::yield();
  return MPI_SUCCESS;
}

Status watch_mpi_end() {
  static std::once_flag once;
  static Status result;
  std::call_once(once, [] {
    int key = MPI_KEYVAL_INVALID;
    result = EXA_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_mpi_end, &key, nullptr));
    if (result.is_ok()) result = EXA_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr));
  });
  return result;
}

// A mover's MPI call may be made while `ok` (MPI_Finalize has not begun).
struct MoverInMpi {
  bool ok;
  MoverInMpi() {
    g_movers_in_mpi.fetch_add(1);
    ok = !g_mpi_ending.load();
    if (!ok) g_movers_in_mpi.fetch_sub(1);
  }
  ~MoverInMpi() {
    if (ok) g_movers_in_mpi.fetch_sub(1);
  }
  MoverInMpi(const MoverInMpi&) = delete;
  MoverInMpi& operator=(const MoverInMpi&) = delete;
};

// Several ranks: the movers agree among themselves how far each may drain,
// while the program computes. Each agreement is a nonblocking allreduce on
// the movers' own communicator (every rank's drained_below, the lowest
// wins: no rank holds a record of an older call, so records up to that call
// may drain on each rank alone -- the watermark of the puts' agreement, but
// reached without a library call of the program), which the mover completes
// with MPI_Test, sleeping between tests. Then it drains what it may and
// starts the next agreement. The agreements match across ranks by their
// order; a mover stops only when an agreement says every rank's mover is
// stopping (close or abort on every rank, as both are collective), so none
// is left with an allreduce the others never join. When an agreement moves
// nothing, the next waits (1 ms, doubling to 100 ms) unless a put or a stop
// comes first.
void mover_loop_agreeing(Connector* next, CacheFile* cf) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  std::unique_lock<std::mutex> lock(cf->log_mu);
  milliseconds idle(1);
  while (true) {
    if (cf->abandon) return;
    if (drainable(*cf)) {
      mover_drain(next, cf, lock);
      continue;
    }
    cf->nudged = false;
    // On the heap: an allreduce left open (the file destroyed unclosed, or a
    // failed test) keeps its buffers, which are then never freed.
    auto* buf = new int64_t[4]{-static_cast<int64_t>(drained_below(*cf)), cf->stop ? 0 : 1, 0, 0};
    lock.unlock();
    MPI_Request req = MPI_REQUEST_NULL;
    Status st;
    {
      MoverInMpi in;
      if (!in.ok) {  // MPI is ending (the file was not closed)
        delete[] buf;
        return;
      }
      st = EXA_MPI(MPI_Iallreduce(buf, buf + 2, 2, MPI_INT64_T, MPI_MAX, cf->movers, &req));
    }
    cf->round_open = st.is_ok();
    if (!st.is_ok()) delete[] buf;
    microseconds poll(100);
    int done = 0;
    while (st.is_ok()) {
      {
        MoverInMpi in;
        if (!in.ok) return;  // MPI is ending: the allreduce stays open
        st = EXA_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
      }
      if (!st.is_ok() || done) break;
      {
        std::lock_guard<std::mutex> peek(cf->log_mu);
        if (cf->abandon) return;  // the file is destroyed unclosed: the allreduce stays open
      }
      std::this_thread::sleep_for(poll);
      poll = std::min<microseconds>(poll * 2, microseconds(5000));
    }
    lock.lock();
    if (!st.is_ok()) {  // the agreements end here; close reports it
      cf->mover_error = st;
      return;
    }
    const int64_t all[2] = {buf[2], buf[3]};
    delete[] buf;
    cf->round_open = false;
    cf->rounds++;
    if (all[1] == 0) return;  // every rank's mover is stopping
    const auto agreed = static_cast<uint64_t>(-all[0]);
    const bool moved = agreed > cf->watermark;
    cf->watermark = std::max(cf->watermark, agreed);
    if (moved || drainable(*cf) || cf->stop) {
      idle = milliseconds(1);
      continue;
    }
    cf->wake.wait_for(lock, idle, [&] { return cf->stop || cf->nudged || cf->abandon; });
    idle = cf->nudged ? milliseconds(1) : std::min<milliseconds>(idle * 2, milliseconds(100));
  }
}

void mover_loop(Connector* next, CacheFile* cf) {
  if (cf->movers == MPI_COMM_NULL) mover_loop_alone(next, cf);
  else mover_loop_agreeing(next, cf);
}

void stop_mover(CacheFile& cf) {
  if (!cf.mover.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(cf.log_mu);
    cf.stop = true;
  }
  cf.wake.notify_all();
  cf.mover.join();
}

// After stop_mover: the movers' communicator freed (every rank's mover left
// the same last agreement), and an agreement's failure.
Status end_agreements(CacheFile& cf) {
  Status st = cf.mover_error;
  if (cf.movers != MPI_COMM_NULL && !cf.round_open) {
    Status freed = EXA_MPI(MPI_Comm_free(&cf.movers));
    if (st.is_ok()) st = freed;
  }
  return st;
}

// Bytes between successive indexes of each dimension of a classic file's
// variable (the first of a record variable: the record size).
std::vector<int64_t> file_pitch(const model::Dataset& ds, const format::Variable& var) {
  const size_t n = var.dimids.size();
  std::vector<int64_t> pitch(n, format::external_size(var.type));
  for (size_t d = n - 1; d > 0; --d) pitch[d - 1] = pitch[d] * ds.dim(var.dimids[d]).length;
  if (n > 0 && var.dimids[0] == ds.unlimited_dim()) pitch[0] = ds.layout().recsize;
  return pitch;
}

// The merged extents a fetch reads by itself: runs closer than this are one read.
constexpr int64_t kMergeGap = int64_t{64} << 10;

// A box of a classic file's variable read by this rank itself (the
// read-only descriptor of the advice): one pread per merged extent instead of
// MPI-IO's one per run of the selection (2,704 of 88 bytes for a [52,52,22]
// float box of a [400,400,160] variable, 52 here), the rows picked out and
// turned from external to native order, as a read of the variable in its own
// type converts them. False, with nothing kept, when the extents would read
// more than kMostOverread times the box's bytes (one read per run is
// cheaper then) or a read comes back short (past the end of the file: native
// answers that read). Planned under below_mu (plan_extents: the Dataset),
// read without it (read_extents).
constexpr int64_t kMostOverread = 16;

// What read_extents needs of the file, taken under below_mu: the box's
// merged extents and how to pick its rows out of them.
struct ExtentPlan {
  std::vector<std::pair<int64_t, int64_t>> ext;  // (offset, length), offset order
  std::vector<int64_t> pitch;
  int64_t begin = 0, esize = 0, total = 0;
  nc_type type = NC_NAT;
  bool cdf5 = false;
};

// False when the fetch is not one for read_extents (native reads it).
bool plan_extents(const model::Dataset& ds, const PrefetchJob& job, int64_t chunk_bytes, ExtentPlan* plan) {
  if (!ds.valid_var(job.varid)) return false;
  const format::Variable& var = ds.var(job.varid);
  const size_t n = var.dimids.size();
  if (n == 0 || job.box.start.size() != n || var.type != job.type) return false;
  plan->pitch = file_pitch(ds, var);
  plan->esize = format::external_size(var.type);
  if (plan->esize != convert::native_size(var.type) || chunk_bytes != job.box.elements() * plan->esize) return false;
  plan->ext = prefetch::extents(job.box, plan->pitch, var.begin, kMergeGap);
  plan->total = 0;
  for (const auto& e : plan->ext) plan->total += e.second;
  if (plan->total > kMostOverread * chunk_bytes) return false;
  plan->begin = var.begin;
  plan->type = var.type;
  plan->cdf5 = ds.header().version == format::Version::kCdf5;
  return true;
}

bool read_fully(int fd, uint8_t* to, int64_t length, int64_t offset) {
  for (int64_t done = 0; done < length;) {
    const ssize_t got = ::pread(fd, to + done, static_cast<size_t>(length - done), offset + done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += got;
  }
  return true;
}

// The planned read (no lock needed: the plan holds what it uses of the
// file's layout). When the extents are exactly the box's rows (their bytes
// add up to the box's: a slice, or rows that follow each other), they are
// read straight into the chunk; else into a scratch buffer, and the rows
// picked out of it.
bool read_extents(const ExtentPlan& plan, int fd, const PrefetchJob& job, PrefetchChunk& chunk) {
  if (fd < 0) return false;
  const int64_t elements = job.box.elements();
  if (plan.total == chunk.bytes) {
    int64_t at = 0;
    for (const auto& [offset, length] : plan.ext) {
      if (!read_fully(fd, chunk.data + at, length, offset)) return false;
      at += length;
    }
    return convert::from_external(chunk.data, plan.type, plan.type, elements, chunk.data, plan.cdf5).is_ok();
  }
  const std::vector<std::pair<int64_t, int64_t>>& ext = plan.ext;
  std::unique_ptr<uint8_t[]> scratch(new uint8_t[static_cast<size_t>(plan.total)]);  // not zeroed: every byte is read
  std::vector<int64_t> placed;  // where each extent starts in scratch
  int64_t at = 0;
  for (const auto& [offset, length] : ext) {
    placed.push_back(at);
    if (!read_fully(fd, scratch.get() + at, length, offset)) return false;
    at += length;
  }
  // The rows in the box's order (the extents' order too): each within the current extent or a later one.
  const size_t n = job.box.start.size();
  const size_t last = n - 1;
  const int64_t row = job.box.count[last] * plan.esize;
  std::vector<int64_t> idx(n, 0);
  size_t e = 0;
  uint8_t* out = chunk.data;
  while (true) {
    int64_t offset = plan.begin;
    for (size_t d = 0; d < n; ++d) offset += (job.box.start[d] + (d == last ? 0 : idx[d])) * plan.pitch[d];
    while (e < ext.size() && offset >= ext[e].first + ext[e].second) ++e;
    if (e == ext.size() || offset < ext[e].first || offset + row > ext[e].first + ext[e].second) return false;
    std::memcpy(out, scratch.get() + placed[e] + (offset - ext[e].first), static_cast<size_t>(row));
    out += row;
    size_t d = last;
    bool more = false;
    while (d > 0) {
      --d;
      if (++idx[d] < job.box.count[d]) {
        more = true;
        break;
      }
      idx[d] = 0;
    }
    if (!more) break;
  }
  return convert::from_external(chunk.data, plan.type, plan.type, elements, chunk.data, plan.cdf5).is_ok();
}

// Read prefetch. A prefetched chunk is read below by this rank alone, into a
// file of the tier in the variable's own type: in independent data mode an
// independent get; in collective data mode a nonblocking get and an
// independent wait (native's independent handle), only while the program has
// no request pending (its request ids must stay PnetCDF's). below_mu held.
// below: the fetcher thread's hold of below_mu, let go while read_extents
// reads (a read of the program's own then need not wait for the fetch);
// null when the caller holds below_mu throughout (fetching inline).
Status fetch(Connector* next, CacheFile& cf, const PrefetchJob& job, std::shared_ptr<PrefetchChunk>* out,
             std::unique_lock<std::recursive_mutex>* below) {
  FileState& lower = cf.below();
  CallModes modes = next->modes(lower);
  if (modes.define_mode) return Status::ok();
  int nreqs = 0;
  if (!modes.indep_mode) EXA_RETURN_IF_ERROR(next->inq_nreqs(lower, &nreqs));
  if (nreqs != 0) return Status::ok();
  std::shared_ptr<PrefetchChunk> chunk;
  EXA_RETURN_IF_ERROR(make_chunk(cf.settings.dir, job.box.elements() * convert::native_size(job.type), &chunk));
  ExtentPlan plan;
  if (plan_extents(next->dataset(lower), job, chunk->bytes, &plan)) {
    if (below) below->unlock();
    const bool read = read_extents(plan, cf.advise_fd, job, *chunk);
    if (below) below->lock();
    if (read) {
      chunk->varid = job.varid;
      chunk->type = job.type;
      chunk->box = job.box;
      *out = std::move(chunk);
      return Status::ok();
    }
    // The modes again: the program may have changed them meanwhile.
    modes = next->modes(lower);
    if (modes.define_mode) return Status::ok();
    if (!modes.indep_mode) EXA_RETURN_IF_ERROR(next->inq_nreqs(lower, &nreqs));
    if (nreqs != 0) return Status::ok();
  }
  std::vector<MPI_Offset> start(job.box.start.begin(), job.box.start.end());
  std::vector<MPI_Offset> count(job.box.count.begin(), job.box.count.end());
  DataRequest r;
  r.varid = job.varid;
  r.start = start.data();
  r.count = count.data();
  r.buf = chunk->data;
  r.memtype = job.type;
  r.collective = false;
  if (modes.indep_mode) {  // an independent get (no request: cheaper than a request's segments)
    EXA_RETURN_IF_ERROR(next->get(lower, r));
  } else {
    int id = NC_REQ_NULL;
    EXA_RETURN_IF_ERROR(next->post(lower, r, PostKind::kIget, &id));
    int status = NC_NOERR;
    EXA_RETURN_IF_ERROR(next->wait(lower, 1, &id, &status, false));
    if (status != NC_NOERR) return {status, "cache: a prefetch read failed"};
  }
  chunk->varid = job.varid;
  chunk->type = job.type;
  chunk->box = job.box;
  *out = std::move(chunk);
  return Status::ok();
}

// The file extents of the scheduled fetches not asked for yet, in the order
// they will be fetched, while those asked for and not fetched stay within
// kAdviseWindow bytes (POSIX_FADV_WILLNEED: the kernel reads them ahead, in
// large requests, while the fetcher copies the current chunk and the
// program computes; a direct read of the program's own queues behind no
// more than that, about 0.4 s of a 20 MB/s target), runs of a box less than
// 64 KiB apart merged into one extent. Only advice: what the fetch then
// reads comes through native as always. Classic files only (prefetch is off
// for partitioned ones). below_mu held.
constexpr int64_t kAdviseWindow = int64_t{8} << 20;

void advise_scheduled(Connector* next, CacheFile& cf) {
  const std::vector<PrefetchJob> jobs = cf.reads->advise_next(kAdviseWindow);
  if (cf.advise_fd < 0 || jobs.empty()) return;
  const model::Dataset& ds = next->dataset(cf.below());
  for (const PrefetchJob& job : jobs) {
    if (!ds.valid_var(job.varid)) continue;
    const format::Variable& var = ds.var(job.varid);
    const size_t n = var.dimids.size();
    if (n == 0 || job.box.start.size() != n) continue;
    const std::vector<int64_t> pitch = file_pitch(ds, var);
    // In pieces of 1 MiB: the kernel reads at most its readahead window per
    // call (max of the device's io and readahead sizes), the rest of a longer
    // extent would not be asked for.
    constexpr int64_t kPiece = int64_t{1} << 20;
    for (const auto& [offset, length] : prefetch::extents(job.box, pitch, var.begin, kMergeGap))
      for (int64_t at = offset; at < offset + length; at += kPiece)  // advice only: its outcome changes nothing
        static_cast<void>(::posix_fadvise(cf.advise_fd, at, std::min(kPiece, offset + length - at), POSIX_FADV_WILLNEED));
  }
}

// One scheduled fetch; a failed one is only not kept (the read it was for
// goes below and reports its own outcome). below_mu held.
void fetch_one(Connector* next, CacheFile& cf, const PrefetchJob& job,
               std::unique_lock<std::recursive_mutex>* below = nullptr) {
  advise_scheduled(next, cf);
  std::shared_ptr<PrefetchChunk> chunk;
  Status st = fetch(next, cf, job, &chunk, below);
  if (!st.is_ok() && verbose()) std::fprintf(stderr, "exacdf cache: prefetch skipped: %s\n", st.message().c_str());
  cf.reads->finish(job, st.is_ok() ? std::move(chunk) : nullptr);
}

// The fetcher thread: the scheduled fetches, one at a time, while the
// program computes.
void fetcher_loop(Connector* next, CacheFile* cf) {
  PrefetchJob job;
  while (cf->reads->next_job(&job)) {
    std::unique_lock<std::recursive_mutex> below(cf->below_mu);
    fetch_one(next, *cf, job, &below);
  }
}

// Bytes of chunks predicted ahead of a read with a fetcher thread: about
// a second of a slow target (0.8 s at 20 MB/s), two of a chunk of 8 MiB.
constexpr int64_t kLookahead = int64_t{16} << 20;

// The timeline of prefetch (EXACDF_CACHE_READ_TRACE=PREFIX: PREFIX.RANK,
// one event a line: seconds kind varid start... value; see ReadEvent), for
// finding what a read waited on. Best effort: a file that cannot be written
// is skipped.
const char* read_trace_prefix() {
  const char* p = std::getenv("EXACDF_CACHE_READ_TRACE");
  return p && *p ? p : nullptr;
}

void write_read_trace(CacheFile& cf) {
  const char* prefix = read_trace_prefix();
  if (!prefix) return;
  const std::vector<ReadEvent> events = cf.reads->take_trace();
  const std::string path = std::string(prefix) + "." + std::to_string(cf.rank);
  std::FILE* out = std::fopen(path.c_str(), "a");
  if (!out) return;
  for (const ReadEvent& e : events) {
    std::fprintf(out, "%.6f %c %d", e.t, e.kind, e.varid);
    for (int64_t v : e.start) std::fprintf(out, " %lld", static_cast<long long>(v));
    std::fprintf(out, " %.6f\n", e.value);
  }
  std::fclose(out);
}

// At close: the thread ends and the chunks are freed.
void stop_fetcher(CacheFile& cf) {
  if (!cf.reads) return;
  cf.reads->stop();
  if (cf.fetcher.joinable()) cf.fetcher.join();
  write_read_trace(cf);
  cf.reads->invalidate();
  if (cf.advise_fd >= 0) ::close(cf.advise_fd);
  cf.advise_fd = -1;
}

// Drops every prefetched chunk: a point where other ranks' writes become
// visible (sync, waits, mode changes, define mode), or a write whose region
// is not known.
void invalidate_reads(CacheFile& cf) {
  if (cf.reads) cf.reads->invalidate();
}

std::vector<int64_t> as_int64(const MPI_Offset* v, size_t n) {
  return v ? std::vector<int64_t>(v, v + n) : std::vector<int64_t>();
}

// The box of a variable a put writes: true with `whole` when the region is
// the whole variable as far as prefetch can tell (varn, no start, a scalar),
// false when it writes nothing (a count of 0) or the variable is not valid.
bool written_box(const model::Dataset& ds, const DataRequest& req, prefetch::Box* out, bool* whole) {
  *whole = false;
  if (!ds.valid_var(req.varid)) return false;
  const size_t ndims = ds.var(req.varid).dimids.size();
  if (req.varn || !req.start || ndims == 0) {
    *whole = true;
    return true;
  }
  const std::vector<int64_t> start = as_int64(req.start, ndims), stride = as_int64(req.stride, ndims);
  const std::vector<int64_t> count = req.count ? as_int64(req.count, ndims) : std::vector<int64_t>(ndims, 1);
  *out = prefetch::bounding_box(ndims, start.data(), count.data(), req.stride ? stride.data() : nullptr);
  return !out->empty();
}

// This rank's own write of req: the chunks and fetches it reaches are dropped.
void invalidate_written(const model::Dataset& ds, CacheFile& cf, const DataRequest& req) {
  if (!cf.reads) return;
  prefetch::Box box;
  bool whole = false;
  if (written_box(ds, req, &box, &whole)) cf.reads->invalidate(req.varid, whole ? nullptr : &box);
}

// What the ranks wrote in one collective put, agreed in the allreduce the put
// makes anyway (MPI_MAX over int64): [varid or -1, -varid or min, whole?,
// then -start and end of each dimension]. Every rank then drops the union of
// the writers' boxes when they wrote one variable, else all its chunks.
constexpr size_t kUnionDims = 8;
constexpr size_t kUnionSize = 3 + 2 * kUnionDims;

void fill_union(const model::Dataset& ds, const DataRequest& req, bool writes, int64_t* u) {
  std::fill(u, u + kUnionSize, INT64_MIN);
  u[0] = -1;
  prefetch::Box box;
  bool whole = false;
  if (!writes || !written_box(ds, req, &box, &whole)) return;
  u[0] = req.varid;
  u[1] = -static_cast<int64_t>(req.varid);
  u[2] = whole || box.start.size() > kUnionDims ? 1 : 0;
  if (u[2] != 0) return;
  for (size_t d = 0; d < box.start.size(); ++d) {
    u[3 + 2 * d] = -box.start[d];
    u[4 + 2 * d] = box.start[d] + box.count[d];
  }
}

void invalidate_union(const model::Dataset& ds, CacheFile& cf, const int64_t* u) {
  if (u[0] < 0) return;  // no rank wrote
  const int varid = static_cast<int>(u[0]);
  if (u[0] != -u[1] || !ds.valid_var(varid)) return cf.reads->invalidate();  // several variables
  if (u[2] != 0) return cf.reads->invalidate(varid, nullptr);
  prefetch::Box box;
  for (size_t d = 0; d < ds.var(varid).dimids.size(); ++d) {
    box.start.push_back(-u[3 + 2 * d]);
    box.count.push_back(u[4 + 2 * d] + u[3 + 2 * d]);
  }
  cf.reads->invalidate(varid, &box);
}

// A put request posted: its region is kept until a wait completes it.
void note_put_posted(const model::Dataset& ds, CacheFile& cf, const DataRequest& req, int reqid) {
  if (!cf.reads || reqid == NC_REQ_NULL) return;
  CacheFile::PendingPut p;
  p.varid = req.varid;
  if (!written_box(ds, req, &p.box, &p.whole)) {  // writes nothing: nothing to drop
    cf.pending_puts.erase(reqid);
    return;
  }
  cf.pending_puts[reqid] = std::move(p);
}

// The put requests a wait or cancel of (num, reqids) ends, taken out of the
// pending ones: NC_REQ_ALL and NC_PUT_REQ_ALL end every one, NC_GET_REQ_ALL
// none. Read before the call below, which resets the ids.
std::vector<CacheFile::PendingPut> take_puts(CacheFile& cf, int num, const int* reqids) {
  std::vector<CacheFile::PendingPut> out;
  if (num == NC_REQ_ALL || num == NC_PUT_REQ_ALL) {
    for (auto& [id, p] : cf.pending_puts) out.push_back(std::move(p));
    cf.pending_puts.clear();
    return out;
  }
  for (int i = 0; reqids && i < num; ++i) {
    auto it = cf.pending_puts.find(reqids[i]);
    if (it == cf.pending_puts.end()) continue;
    out.push_back(std::move(it->second));
    cf.pending_puts.erase(it);
  }
  return out;
}

// After a wait: the chunks the completed put requests reach are dropped --
// this rank's, and in a collective wait every rank's (gathered here, as a
// collective put agrees on its writers' boxes), nothing else. Each region
// travels as [varid, whole, ndims, start..., count...].
Status drop_completed(const model::Dataset& ds, CacheFile& cf, const std::vector<CacheFile::PendingPut>& done,
                      bool collective) {
  if (!cf.reads) return Status::ok();
  if (!collective || cf.nprocs == 1) {
    for (const CacheFile::PendingPut& p : done) cf.reads->invalidate(p.varid, p.whole ? nullptr : &p.box);
    return Status::ok();
  }
  std::vector<int64_t> mine;
  for (const CacheFile::PendingPut& p : done) {
    mine.push_back(p.varid);
    mine.push_back(p.whole ? 1 : 0);
    mine.push_back(static_cast<int64_t>(p.box.start.size()));
    mine.insert(mine.end(), p.box.start.begin(), p.box.start.end());
    mine.insert(mine.end(), p.box.count.begin(), p.box.count.end());
  }
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<size_t>(cf.nprocs)), displs(static_cast<size_t>(cf.nprocs));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, cf.dup)));
  int total = 0;
  for (int r = 0; r < cf.nprocs; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += sizes[static_cast<size_t>(r)];
  }
  if (total == 0) return Status::ok();
  std::vector<int64_t> all(static_cast<size_t>(total));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgatherv(mine.data(), n, MPI_INT64_T, all.data(), sizes.data(), displs.data(),
                                             MPI_INT64_T, cf.dup)));
  for (size_t at = 0; at + 3 <= all.size();) {
    const int varid = static_cast<int>(all[at]);
    const bool whole = all[at + 1] != 0;
    const size_t nd = static_cast<size_t>(all[at + 2]);
    at += 3;
    if (at + 2 * nd > all.size()) return cf.reads->invalidate(), Status::ok();  // cannot be: drop all
    prefetch::Box box;
    box.start.assign(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + nd));
    box.count.assign(all.begin() + static_cast<std::ptrdiff_t>(at + nd),
                     all.begin() + static_cast<std::ptrdiff_t>(at + 2 * nd));
    at += 2 * nd;
    if (!ds.valid_var(varid)) continue;
    cf.reads->invalidate(varid, whole ? nullptr : &box);
  }
  return Status::ok();
}

// The box a typed get of a var1/vara/vars selection reads; false for the
// reads prefetch does not serve (flexible buffer types, imaps, varn, whole
// variables, scalars, no element).
bool served_box(const model::Dataset& ds, const DataRequest& req, prefetch::Box* out) {
  if (req.varn || req.imap || !req.buf || !req.start || !req.count || req.memtype == NC_NAT) return false;
  if (!ds.valid_var(req.varid)) return false;
  const size_t ndims = ds.var(req.varid).dimids.size();
  if (ndims == 0) return false;
  const std::vector<int64_t> start = as_int64(req.start, ndims), count = as_int64(req.count, ndims),
                             stride = as_int64(req.stride, ndims);
  *out = prefetch::bounding_box(ndims, start.data(), count.data(), req.stride ? stride.data() : nullptr);
  return !out->empty();
}

// The variable's shape now (the record dimension: numrecs).
std::vector<int64_t> shape_of(const model::Dataset& ds, int varid) {
  std::vector<int64_t> dims;
  for (int id : ds.var(varid).dimids) dims.push_back(id == ds.unlimited_dim() ? ds.numrecs() : ds.dim(id).length);
  return dims;
}

// A get answered from a chunk: the selection copied out, converted to the
// memory type as native converts what it reads (same range rule and fill).
Status serve(const model::Dataset& ds, const CacheFile& cf, const DataRequest& req, const PrefetchChunk& chunk) {
  const size_t ndims = chunk.box.start.size();
  const std::vector<int64_t> start = as_int64(req.start, ndims), count = as_int64(req.count, ndims),
                             stride = as_int64(req.stride, ndims);
  const int64_t elem = convert::native_size(chunk.type);
  int64_t n = 1;
  for (int64_t c : count) n *= c;
  const int64_t* step = req.stride ? stride.data() : nullptr;
  if (req.memtype == chunk.type) {
    prefetch::gather(chunk.box, chunk.data, elem, ndims, start.data(), count.data(), step, static_cast<uint8_t*>(req.buf));
    return Status::ok();
  }
  std::vector<uint8_t> values(static_cast<size_t>(n * elem));
  prefetch::gather(chunk.box, chunk.data, elem, ndims, start.data(), count.data(), step, values.data());
  EXA_RETURN_IF_ERROR(convert::to_external(values.data(), chunk.type, chunk.type, n, values.data()));  // byte order
  const bool cdf5 = ds.header().version == format::Version::kCdf5;
  return convert::from_external(values.data(), chunk.type, req.memtype, n, req.buf, cdf5,
                                cf.erange_keep ? convert::ErangeFill::keep_converted()
                                               : convert::ErangeFill::type_default());
}

// The last index a selection reaches along the record dimension, + 1.
int64_t records_reached(const DataRequest& req) {
  auto reach = [](const MPI_Offset* s, const MPI_Offset* c, const MPI_Offset* st) -> int64_t {
    if (!s) return 0;
    if (!c) return s[0] + 1;
    if (c[0] <= 0) return 0;
    return s[0] + (c[0] - 1) * (st ? st[0] : 1) + 1;
  };
  if (!req.varn) return reach(req.start, req.count, req.stride);
  int64_t most = 0;
  for (int i = 0; i < req.npieces; ++i)
    most = std::max(most, reach(req.starts ? req.starts[i] : nullptr, req.counts ? req.counts[i] : nullptr, nullptr));
  return most;
}

// A put that reaches past the records every rank knows of.
bool grows_records(const model::Dataset& ds, const DataRequest& req) {
  return ds.is_record_var(req.varid) && records_reached(req) > ds.numrecs();
}

// The record of a put whose values lie packed in memory in one C type
// (typed calls, or a predefined MPI type); false for the rest (imap,
// varn, derived types, whole-variable calls), which are written through,
// and for a put of no element (*nelems 0).
bool make_record(const model::Dataset& ds, const DataRequest& req, cl::Record* rec, int64_t* nelems) {
  const int ndims = static_cast<int>(ds.var(req.varid).dimids.size());
  if (!req.varn && req.start && req.count) {
    for (int i = 0; i < ndims; ++i)
      if (req.count[i] == 0) {  // no element (*nelems 0: nothing to write)
        *nelems = 0;
        return false;
      }
  }
  if (req.varn || req.imap || !req.buf) return false;
  if (ndims > 0 && (!req.start || !req.count)) return false;
  nc_type memtype = req.memtype;
  if (memtype == NC_NAT) {
    int64_t per = 0;
    int combiner = 0, ni = 0, na = 0, nd = 0;
    if (req.buftype == MPI_DATATYPE_NULL || !io::element_type_of(req.buftype, &memtype, &per).is_ok() ||
        per != 1 || MPI_Type_get_envelope(req.buftype, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner != MPI_COMBINER_NAMED)
      return false;
  }
  int64_t n = 1;
  for (int i = 0; i < ndims; ++i) {
    rec->start.push_back(req.start[i]);
    rec->count.push_back(req.count[i]);
    if (req.stride) rec->stride.push_back(req.stride[i]);
    n *= req.count[i];
  }
  rec->has_stride = req.stride != nullptr && ndims > 0;
  rec->varid = req.varid;
  rec->memtype = memtype;
  rec->payload_size = n * convert::native_size(memtype);
  *nelems = n;
  return n > 0;
}

// NC_ERANGE as the put would have said it (the drain writes the fill
// values). `seen` (a conversion's put range, layer/put_range.hpp): the
// range of the external values, fill values included, taken in the same
// conversion pass -- what native's conversion would have taken.
Status range_status(const model::Dataset& ds, const cl::Record& rec, const void* values, int64_t n,
                    convert::SegmentedRange* seen) {
  const nc_type xtype = ds.var(rec.varid).type;
  if (rec.memtype == xtype || xtype == NC_CHAR) return Status::ok();
  std::vector<uint8_t> scratch(static_cast<size_t>(n * format::external_size(xtype)));
  const bool cdf5 = ds.header().version == format::Version::kCdf5;
  Status st = convert::to_external(values, rec.memtype, xtype, n, scratch.data(), cdf5,
                                   convert::ErangeFill::type_default(), seen);
  return st.code() == NC_ERANGE ? st : Status::ok();
}

class CacheConnector final : public ForwardingConnector {
 public:
  CacheConnector(Connector* below, CacheSettings settings) : ForwardingConnector(below), settings_(std::move(settings)) {}
  const char* name() const override { return "cache"; }

  Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                std::unique_ptr<FileState>* out) override {
    Status st = ForwardingConnector::create(comm, path, cmode, info, out);
    if (!*out) return st;
    Status set = setup(own(**out), cmode, true);
    return st.is_ok() ? set : st;
  }

  Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
              std::unique_ptr<FileState>* out) override {
    if (!cache::recovering()) EXA_RETURN_IF_ERROR(check_pending(comm, path));
    Status st = ForwardingConnector::open(comm, path, omode, info, out);
    if (!*out) return st;
    Status set = setup(own(**out), omode, false);
    return st.is_ok() ? set : st;
  }

  Status put(FileState& f, const DataRequest& req) override {
    if (!write_times_on()) return put_timed(f, req);
    const auto t0 = WriteClock::now();
    Status st = put_timed(f, req);
    own(f).times.put += seconds_since(t0);
    return st;
  }

  Status put_timed(FileState& f, const DataRequest& req) {
    CacheFile& cf = own(f);
    invalidate_written(next()->dataset(below(f)), cf, req);  // other ranks' writes: below
    if (!cf.active) {
      std::lock_guard<std::recursive_mutex> lock(cf.below_mu);
      return next()->put(below(f), req);
    }
    // Read without below_mu: the mover changes only the record count, and
    // records grow only on this thread (below).
    Status checked = next()->check_data(below(f), req, true, false);
    const model::Dataset& ds = next()->dataset(below(f));
    if (!req.collective || cf.indep) {
      // Independent mode (begin_indep drained the log): written at once. PnetCDF
      // programs count on an independent write being seen by other ranks after an
      // MPI_Barrier, which a log would hide.
      EXA_RETURN_IF_ERROR(checked);
      return write_through(cf, req);
    }
    const uint64_t call = cf.calls++;
    // However it returns, this call is settled on this rank then (its record
    // logged, or written): the movers' agreements may count it.
    struct Settled {
      CacheFile& cf;
      uint64_t call;
      ~Settled() {
        {
          std::lock_guard<std::mutex> lock(cf.log_mu);
          cf.settled_calls = std::max(cf.settled_calls, call + 1);
          cf.nudged = true;
        }
        if (cf.mover.joinable()) cf.wake.notify_one();
      }
    } settled{cf, call};
    cl::Record rec;
    int64_t n = -1;
    const bool loggable = checked.is_ok() && make_record(ds, req, &rec, &n);
    const bool nothing = checked.is_ok() && !loggable && n == 0;  // no element: nothing to write
    // Every rank drains its log in collective writes ordered by call
    // (drain_ordered) when any rank's put must be written through -- it grows
    // the record count (other ranks' inquiries must see it) or cannot be logged
    // -- or finds no room in its ring (back-pressure; without a mover, eager
    // drains at half). A put written through is the drain's last write; the
    // others are logged after it. Else the agreement also says up to which
    // call every rank has drained (the mover's watermark).
    bool through = checked.is_ok() && !nothing && (grows_records(ds, req) || !loggable);
    bool room = false;
    uint64_t lowest = call;
    {
      std::lock_guard<std::mutex> lock(cf.log_mu);
      if (!cf.queue.empty()) lowest = cf.queue.front().call;
      if (checked.is_ok() && !nothing && !through) {
        const int64_t len = cl::record_length(static_cast<int>(rec.start.size()), rec.has_stride, rec.payload_size);
        if (!cf.tier_broken && len <= cf.capacity) {
          const auto t_manifest = WriteClock::now();
          Status opened = open_log(cf, ds);
          cf.times.manifest += seconds_since(t_manifest);
          if (!opened.is_ok()) {  // never an error for the tier: written through from now on
            cf.tier_broken = true;
            if (cf.queue.empty() && cf.fd >= 0) {  // a log without its manifest: recovery would refuse it
              ::close(cf.fd);
              cf.fd = -1;
              ::unlink(cf.log_file.c_str());
            }
            if (verbose()) std::fprintf(stderr, "exacdf cache: %s; writing through\n", opened.message().c_str());
          }
        }
        bool wrap = false;
        if (cf.tier_broken || len > cf.capacity) through = true;
        else if (place(cf, len, &wrap) < 0) room = true;
        else if (cf.settings.drain == DrainWhen::kEager && !cf.mover.joinable() && (used_of(cf) + len) * 2 > cf.capacity)
          room = true;
      }
    }
    // With prefetch, the same allreduce carries what every rank writes in
    // this call (the chunks it reaches are dropped on every rank).
    int64_t agreed[2 + kUnionSize] = {through || room ? 1 : 0, -static_cast<int64_t>(lowest)};
    if (cf.reads) fill_union(ds, req, checked.is_ok() && !nothing, agreed + 2);
    const int nagreed = cf.reads ? 2 + static_cast<int>(kUnionSize) : 2;
    const auto t_agree = WriteClock::now();
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, agreed, nagreed, MPI_INT64_T, MPI_MAX, cf.dup)));
    cf.times.agree += seconds_since(t_agree);
    if (cf.reads) invalidate_union(ds, cf, agreed + 2);
    // One rank: no other rank's older call can land later, so every call logged
    // may drain (the mover keeps program order); else up to the agreed lowest
    // undrained call (which holds back the calls logged after it until the next
    // collective put: see docs/perf/cache.md, 2026-11-25).
    // With a mover of several ranks, the movers' own agreements
    // (mover_loop_agreeing) release those while the program computes.
    uint64_t watermark = cf.nprocs == 1 ? call : static_cast<uint64_t>(-agreed[1]);
    if (agreed[0] != 0) {
      std::lock_guard<std::recursive_mutex> lock(cf.below_mu);
      Status mine;
      const auto t_drain = WriteClock::now();
      Status st = drain_ordered(next(), cf, call, through ? &req : nullptr, &mine);
      cf.times.put_drain += seconds_since(t_drain);
      if (!checked.is_ok()) return checked;
      if (through || !st.is_ok()) return st.is_ok() ? mine : st;
      watermark = call;  // every older call is in the file now
    }
    {
      std::lock_guard<std::mutex> lock(cf.log_mu);
      cf.watermark = std::max(cf.watermark, watermark);
    }
    EXA_RETURN_IF_ERROR(checked);
    if (nothing) return Status::ok();
    // The put's value range (PutRangeScope): a conversion's in range_status's
    // pass, a same-type put's in the log record's CRC pass (append).
    convert::SegmentedRange* seen = put_range_for(req.varid, req.buf);
    const bool same_type = rec.memtype == ds.var(req.varid).type;
    const auto t_range = WriteClock::now();
    Status range = range_status(ds, rec, req.buf, n, same_type ? nullptr : seen);
    cf.times.range += seconds_since(t_range);
    rec.call = call;
    bool placed = false;
    {
      std::lock_guard<std::mutex> lock(cf.log_mu);
      Status logged = append(cf, rec, req.buf, &placed, same_type ? seen : nullptr);  // room was seen above; the mover only frees
      if (!logged.is_ok()) placed = false;  // the record is not in the queue
      if (!placed) {
        cf.tier_broken = true;
        if (verbose())
          std::fprintf(stderr, "exacdf cache: %s; writing through\n",
                       logged.is_ok() ? "no room in the ring" : logged.message().c_str());
      }
    }
    // The tier failed under this put: written through alone (ordered against
    // this rank's log, not against other ranks' logs of older calls).
    if (!placed) return write_through(cf, req);
    return range;  // the mover is woken as this call settles
  }

  Status get(FileState& f, const DataRequest& req) override {
    CacheFile& cf = own(f);
    if (!cf.reads) return after_drain(f, [&] { return next()->get(below(f), req); }, req.collective);
    // Read without below_mu, as put does: a fetch on its way is waited for
    // before the read takes the file (the fetcher needs it).
    prefetch::Box want;
    const bool servable = served_box(next()->dataset(below(f)), req, &want);
    if (servable && serving(cf)) {
      cf.reads->trace('R', req.varid, want);
      const auto t0 = std::chrono::steady_clock::now();
      static_cast<void>(cf.reads->await(req.varid, want));
      cf.reads->trace('W', req.varid, want, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return after_drain(f, [&] { return get_through_tier(cf, req, servable ? &want : nullptr); }, req.collective);
  }
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override {
    if (put && collective) invalidate_reads(own(f));  // other ranks' regions are not known
    if (put && !collective && own(f).reads) own(f).reads->invalidate(varid, nullptr);
    return after_drain(f, [&] { return next()->vard(below(f), varid, filetype, buf, bufcount, buftype, put, collective); },
                       collective);
  }
  // A post does no I/O (the wait does, after draining the log), and it is
  // independent: draining here would order this rank's log alone.
  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override {
    CacheFile& cf = own(f);
    const bool put = kind != PostKind::kIget;
    if (put) invalidate_written(next()->dataset(below(f)), cf, req);  // the wait drops it again
    Status st = locked(f, [&] { return next()->post(below(f), req, kind, reqid); });
    if (put && st.is_ok() && reqid) note_put_posted(next()->dataset(below(f)), cf, req, *reqid);
    return st;
  }
  // A wait drops the chunks its completed put requests reach (in a
  // collective wait every rank's), nothing else: other ranks' independent
  // writes are seen after sync + barrier + sync (sync drops every chunk).
  Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) override {
    CacheFile& cf = own(f);
    const std::vector<CacheFile::PendingPut> done = take_puts(cf, num, reqids);
    Status st = after_drain(f, [&] { return next()->wait(below(f), num, reqids, statuses, collective); }, collective);
    Status dropped = drop_completed(next()->dataset(below(f)), cf, done, collective);
    return st.is_ok() ? dropped : st;
  }
  Status cancel(FileState& f, int num, int* reqids, int* statuses) override {
    static_cast<void>(take_puts(own(f), num, reqids));  // a cancelled put writes nothing
    return locked(f, [&] { return next()->cancel(below(f), num, reqids, statuses); });
  }
  Status enddef(FileState& f, const format::LayoutHints* a) override {
    invalidate_reads(own(f));
    Status st = after_drain(f, [&] { return next()->enddef(below(f), a); });
    if (st.is_ok()) {
      std::lock_guard<std::mutex> lock(own(f).log_mu);
      own(f).generation++;
      own(f).manifest_current = false;  // a new header: the next record rewrites the manifest
    }
    return st;
  }
  Status redef(FileState& f) override {
    invalidate_reads(own(f));
    return after_drain(f, [&] { return next()->redef(below(f)); }, true);
  }
  Status sync(FileState& f) override {
    invalidate_reads(own(f));
    return after_drain(f, [&] { return next()->sync(below(f)); }, true);
  }
  Status flush(FileState& f) override {
    invalidate_reads(own(f));
    return after_drain(f, [&] { return next()->flush(below(f)); }, true);
  }
  Status sync_numrecs(FileState& f) override {
    invalidate_reads(own(f));
    return after_drain(f, [&] { return next()->sync_numrecs(below(f)); }, true);
  }
  Status begin_indep(FileState& f) override {
    invalidate_reads(own(f));
    Status st = after_drain(f, [&] { return next()->begin_indep(below(f)); }, true);
    if (st.is_ok()) own(f).indep = true;
    return st;
  }
  Status end_indep(FileState& f) override {
    invalidate_reads(own(f));
    Status st = after_drain(f, [&] { return next()->end_indep(below(f)); }, true);
    if (st.is_ok()) own(f).indep = false;
    return st;
  }
  Status set_fill(FileState& f, int mode, int* old) override {
    return after_drain(f, [&] { return next()->set_fill(below(f), mode, old); });
  }
  Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) override {
    invalidate_reads(own(f));
    return after_drain(f, [&] { return next()->fill_var_rec(below(f), varid, recno); });
  }
  Status refresh(FileState& f) override {
    invalidate_reads(own(f));
    return locked(f, [&] { return next()->refresh(below(f)); });
  }
  Status file_info(FileState& f, MPI_Info* info) override {
    return locked(f, [&] { return next()->file_info(below(f), info); });
  }
  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override {
    return locked(f, [&] { return next()->def_dim(below(f), name, len, id); });
  }
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids, int* id) override {
    return locked(f, [&] { return next()->def_var(below(f), name, type, ndims, dimids, id); });
  }
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* value) override {
    return locked(f, [&] { return next()->def_var_fill(below(f), varid, no_fill, value); });
  }
  Status rename_dim(FileState& f, int dimid, const char* name) override {
    return locked(f, [&] { return next()->rename_dim(below(f), dimid, name); });
  }
  Status rename_var(FileState& f, int varid, const char* name) override {
    return locked(f, [&] { return next()->rename_var(below(f), varid, name); });
  }
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override {
    return locked(f, [&] { return next()->put_att(below(f), varid, name, xtype, nelems, values, memtype); });
  }
  Status del_att(FileState& f, int varid, const char* name) override {
    return locked(f, [&] { return next()->del_att(below(f), varid, name); });
  }
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override {
    return locked(f, [&] { return next()->rename_att(below(f), varid, name, new_name); });
  }
  // A writable classic file (active): without below_mu, which the mover holds
  // for as long as a drain writes to the target (seconds on a slow tier), and
  // the api layer asks for the Dataset (and prepares) before every put -- each
  // put waited for the mover's batch. The Dataset changes only on the thread
  // making the calls (defines; record growth is written through), never in a
  // drain (the mover changes request tables), and the reference is read after
  // the lock would have been released anyway; prepare_collective does nothing
  // for a classic file (it shares blocks of lazily opened partitioned ones).
  const model::Dataset& dataset(FileState& f) override {
    if (own(f).active) return next()->dataset(below(f));
    std::lock_guard<std::recursive_mutex> lock(own(f).below_mu);
    return next()->dataset(below(f));
  }
  FileFacts facts(FileState& f) override {
    std::lock_guard<std::recursive_mutex> lock(own(f).below_mu);
    return next()->facts(below(f));
  }
  MPI_Offset io_calls(FileState& f) override {
    std::lock_guard<std::recursive_mutex> lock(own(f).below_mu);
    return next()->io_calls(below(f));
  }
  Status get_att(FileState& f, int varid, const char* name, void* values, nc_type memtype) override {
    return locked(f, [&] { return next()->get_att(below(f), varid, name, values, memtype); });
  }
  Status inquire(FileState& f, const char* call, InquiryAnswer answer) override {
    return locked(f, [&] { return next()->inquire(below(f), call, answer); });
  }
  void prepare_collective(FileState& f, int varid) override {
    if (own(f).active) return;  // a classic file: nothing to prepare (see dataset)
    std::lock_guard<std::recursive_mutex> lock(own(f).below_mu);
    next()->prepare_collective(below(f), varid);
  }
  Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) override {
    return locked(f, [&] { return next()->check_data(below(f), req, put, call_only); });
  }
  Status inq_nreqs(FileState& f, int* nreqs) override {
    return locked(f, [&] { return next()->inq_nreqs(below(f), nreqs); });
  }
  Status buffer_attach(FileState& f, MPI_Offset size) override {
    return locked(f, [&] { return next()->buffer_attach(below(f), size); });
  }
  Status buffer_detach(FileState& f) override {
    return locked(f, [&] { return next()->buffer_detach(below(f)); });
  }
  Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) override {
    return locked(f, [&] { return next()->buffer_usage(below(f), usage, size); });
  }
  Status extension(FileState& f, const char* name, void* args) override {
    if (std::strcmp(name, "puts_settled") == 0) {  // the log drained (collective, as the caller is)
      Status drained = after_drain(f, [] { return Status::ok(); }, true);
      if (!drained.is_ok()) {
        drained.set_aside("sticky in the file's failure: the next flush/sync/close reports it");
        static_cast<PutsSettledArgs*>(args)->settled = false;
      }
      return ForwardingConnector::extension(f, name, args);
    }
    if (std::strcmp(name, "cache_read_stats") != 0) return ForwardingConnector::extension(f, name, args);
    auto* info = static_cast<exa_cache_read_info*>(args);
    *info = exa_cache_read_info{};
    if (!own(f).reads) return Status::ok();
    const ReadCounters c = own(f).reads->counters();
    info->served_reads = c.served;
    info->direct_reads = c.direct;
    info->fetched_chunks = c.fetched;
    info->fetched_bytes = c.fetched_bytes;
    info->dropped_chunks = c.dropped;
    return Status::ok();
  }

  Status close(FileState& f) override {
    CacheFile& cf = own(f);
    const auto t0 = WriteClock::now();
    Status st = close_timed(cf);
    cf.times.close = seconds_since(t0);
    if (write_times_on() && cf.active) print_times(cf);
    return st;
  }

  Status close_timed(CacheFile& cf) {
    stop_fetcher(cf);
    stop_mover(cf);
    Status agreements = end_agreements(cf);
    std::lock_guard<std::recursive_mutex> lock(cf.below_mu);
    if (!cf.active) return next()->close(cf.below());
    Status st = cf.settings.detach ? close_detached(cf) : close_synced(cf);
    return st.is_ok() ? agreements : st;
  }

  // close=sync: every rank drains what is left of its log, then the target is synced (below_mu held).
  Status close_synced(CacheFile& cf) {
    auto t = WriteClock::now();
    {
      std::lock_guard<std::mutex> log(cf.log_mu);
      for (const cl::Record& rec : cf.queue) cf.times.close_bytes += rec.payload_size;
    }
    Status drained = cf.indep ? drain(next(), cf) : drain_ordered(next(), cf, 0, nullptr, nullptr);
    cf.times.close_drain = seconds_since(t);
    // The data is on the target and synced. In define mode nothing is logged
    // (redef drained it) and close ends define mode itself, as in PnetCDF.
    t = WriteClock::now();
    const bool define_mode = next()->facts(cf.below()).define_mode;
    Status synced = define_mode ? Status::ok() : next()->sync(cf.below());
    cf.times.close_sync = seconds_since(t);
    cache::crash_point("close_synced", cf.rank);
    if (drained.is_ok() && synced.is_ok()) remove_log(cf);
    t = WriteClock::now();
    Status closed = next()->close(cf.below());
    cf.times.close_below = seconds_since(t);
    if (!drained.is_ok()) return drained;
    return synced.is_ok() ? closed : synced;
  }

  static void print_times(const CacheFile& cf) {
    const WriteTimes& w = cf.times;
    std::fprintf(stderr,
                 "EXACDF_CACHE_WRITE rank=%d detach=%d durable_node=%d logged=%lld put=%.6f agree=%.6f range=%.6f "
                 "encode=%.6f tier_write=%.6f log_sync=%.6f manifest=%.6f put_drain=%.6f mover=%.6f "
                 "mover_bytes=%lld close=%.6f close_drain=%.6f close_bytes=%lld close_sync=%.6f close_below=%.6f "
                 "mover_rounds=%llu\n",
                 cf.rank, cf.settings.detach ? 1 : 0, cf.settings.durable_node ? 1 : 0, static_cast<long long>(w.logged),
                 w.put, w.agree, w.range, w.encode, w.tier_write, w.log_sync, w.manifest, w.put_drain, w.mover,
                 static_cast<long long>(w.mover_bytes), w.close, w.close_drain, static_cast<long long>(w.close_bytes),
                 w.close_sync, w.close_below, static_cast<unsigned long long>(cf.rounds));
  }

  Status abort(FileState& f) override {
    CacheFile& cf = own(f);
    stop_fetcher(cf);
    stop_mover(cf);  // abort is collective (as PnetCDF's, which closes the MPI file)
    Status agreements = end_agreements(cf);
    std::lock_guard<std::recursive_mutex> lock(cf.below_mu);
    Status drained = drain(next(), cf);  // what was put stays written, as without the cache
    if (cf.active && drained.is_ok()) remove_log(cf);
    Status aborted = next()->abort(below(f));
    if (!drained.is_ok()) return drained;
    return aborted.is_ok() ? agreements : aborted;
  }

 protected:
  std::unique_ptr<FileState> wrap(std::unique_ptr<FileState> lower) override {
    return std::make_unique<CacheFile>(std::move(lower), settings_);
  }

 private:
  template <typename F>
  Status locked(FileState& f, F&& call) {
    std::lock_guard<std::recursive_mutex> lock(own(f).below_mu);
    return call();
  }

  // A call that depends on what was put before it: the log is drained
  // first. The call is made even when the drain failed (it may be
  // collective); the drain's failure is what is reported.
  // collective: every rank makes the call (in collective mode): the logs drain
  // together, in the order of the collective puts (drain_ordered), then one
  // allreduce agrees on a failure. Otherwise this rank's log drains alone
  // (calls only this rank may make: its own order holds, not the order
  // against other ranks' older calls still in their logs).
  template <typename F>
  Status after_drain(FileState& f, F&& call, bool collective = false) {
    CacheFile& cf = own(f);
    std::lock_guard<std::recursive_mutex> lock(cf.below_mu);
    const bool together = collective && cf.active && !cf.indep;
    Status drained = together ? drain_ordered(next(), cf, 0, nullptr, nullptr) : drain(next(), cf);
    if (together) {
      int failed = drained.is_ok() ? 0 : 1;
      Status agreed = EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, cf.dup));
      if (drained.is_ok()) drained = agreed;
    }
    Status st = call();
    return drained.is_ok() ? st : drained;
  }

  Status write_through(CacheFile& cf, const DataRequest& req) {
    std::lock_guard<std::recursive_mutex> lock(cf.below_mu);
    Status mine;
    Status st = drain_locked(next(), cf, UINT64_MAX, &req, &mine);
    return st.is_ok() ? mine : st;
  }

  // Whether reads may be served from prefetched chunks now: not in
  // independent data mode of a writable file, where other ranks' writes are
  // to be seen after an MPI_Barrier the library does not see.
  static bool serving(const CacheFile& cf) { return !(cf.writable && cf.indep); }

  // A get with prefetch on (below_mu held; the log drained). Served from a
  // chunk when one holds the selection and the checks pass (else below,
  // which answers errors as always). A collective get: one allreduce says
  // whether every rank was served -- then none reads below -- else the
  // served ranks take part in the collective read with no element. Then the
  // read is noted and the chunks its stride predicts are scheduled.
  Status get_through_tier(CacheFile& cf, const DataRequest& req, const prefetch::Box* want) {
    FileState& lower = cf.below();
    const bool usable = want && serving(cf);
    if (usable) cf.reads->trace('L', req.varid, *want);  // below_mu taken
    std::shared_ptr<PrefetchChunk> hit;
    if (usable && next()->check_data(lower, req, false, false).is_ok()) hit = cf.reads->find(req.varid, *want);
    bool join_empty = false;
    if (req.collective && cf.nprocs > 1) {
      int all = hit ? 1 : 0;
      EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, cf.dup)));
      join_empty = hit && all == 0;
    }
    const model::Dataset& ds = next()->dataset(lower);
    Status st = hit ? serve(ds, cf, req, *hit) : next()->get(lower, req);
    if (join_empty) {
      DataRequest none = req;
      const std::vector<MPI_Offset> zeros(want->start.size(), 0);
      none.count = zeros.data();
      Status part = next()->get(lower, none);
      if (st.is_ok()) st = part;
    }
    if (usable) {
      cf.reads->count_read(hit != nullptr);
      cf.reads->trace('D', req.varid, *want, hit ? 1 : 0);
      schedule(cf, req.varid, *want);
    }
    return st;
  }

  // Notes the read and fetches what its stride predicts: by the fetcher
  // thread, or here (below_mu held).
  void schedule(CacheFile& cf, int varid, const prefetch::Box& read) {
    const model::Dataset& ds = next()->dataset(cf.below());
    const nc_type type = ds.var(varid).type;
    const int n = cf.reads->note_and_schedule(varid, type, convert::native_size(type), read, shape_of(ds, varid));
    if (n == 0 || cf.fetcher.joinable()) return;
    PrefetchJob job;
    while (cf.reads->take_job(&job)) fetch_one(next(), cf, job);
  }

  void remove_log(CacheFile& cf) {
    if (cf.fd < 0) return;
    ::close(cf.fd);
    cf.fd = -1;
    ::unlink(cf.log_file.c_str());
  }

  // close=detach: the log is complete (and synced); the file below is
  // closed; rank 0 starts `exacdf recover` in a process of its own, which
  // replays every rank's log, syncs, and removes them.
  Status close_detached(CacheFile& cf) {
    Status st;
    auto t = WriteClock::now();
    if (cf.fd >= 0 && ::fdatasync(cf.fd) != 0) st = {NC_EFILE, "cache log fdatasync failed"};
    cf.times.close_sync = seconds_since(t);
    t = WriteClock::now();
    Status closed = next()->close(cf.below());
    cf.times.close_below = seconds_since(t);
    if (st.is_ok()) st = closed;
    int logged = cf.fd >= 0 ? 1 : 0;
    Status agreed = EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &logged, 1, MPI_INT, MPI_MAX, cf.dup));
    if (st.is_ok()) st = agreed;
    if (st.is_ok() && logged && cf.rank == 0) st = spawn_helper(cf);
    return st;
  }

  static Status spawn_helper(const CacheFile& cf) {
    const char* cmd = std::getenv("EXACDF_RECOVER_COMMAND");
    std::string program = cmd && *cmd ? cmd : "exacdf";
    std::vector<std::string> args = {program, "recover", "--dir", cf.settings.dir, cf.target};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The helper is no part of this MPI job: it must not find its variables.
    std::vector<std::string> env_keep;
    for (char** e = environ; *e; ++e) {
      const std::string v = *e;
      if (v.rfind("OMPI_", 0) == 0 || v.rfind("PMIX_", 0) == 0 || v.rfind("PRTE_", 0) == 0) continue;
      env_keep.push_back(v);
    }
    std::vector<char*> envp;
    for (std::string& v : env_keep) envp.push_back(v.data());
    envp.push_back(nullptr);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid = 0;
    const int err = posix_spawnp(&pid, program.c_str(), nullptr, &attr, argv.data(), envp.data());
    posix_spawnattr_destroy(&attr);
    if (err != 0)
      return {NC_EFILE, "cache: cannot start " + program + " recover (" + std::strerror(err) +
                            "); the logs stay for exacdf recover"};
    if (verbose()) std::fprintf(stderr, "exacdf cache: helper %d drains %s\n", static_cast<int>(pid), cf.target.c_str());
    return Status::ok();
  }

  // Logs left by an earlier run of this file: replayed (recover=auto) or an error.
  Status check_pending(MPI_Comm comm, const std::string& path) {
    int rank = 0;
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
    int code = NC_NOERR;
    std::string message;
    if (rank == 0) {
      std::string target;
      if (cache::absolute_path(path, &target).is_ok() && !cache::find_logs(settings_.dir, target).empty()) {
        if (settings_.recover_auto) {
          std::string report;
          Status st = cache::recover(target, settings_.dir, &report);
          code = st.code();
          message = st.is_ok() ? report : st.message();
        } else {
          code = NC_EFILE;
          message = target + " has cache logs in " + settings_.dir +
                    " that were not drained: run `exacdf recover " + target + "` or open with cache{recover=auto}";
        }
        if (verbose() || code != NC_NOERR) std::fprintf(stderr, "exacdf cache: %s\n", message.c_str());
      }
    }
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm)));
    if (code != NC_NOERR) return {code, message.empty() ? "undrained cache logs (see rank 0)" : message};
    return Status::ok();
  }

  // The chunks' budget is the node's tier size shared by its ranks, as the
  // logs' (a budget of its own).
  Status setup_prefetch(CacheFile& cf, int local) {
    MPI_Info info = MPI_INFO_NULL;
    EXA_RETURN_IF_ERROR(next()->file_info(cf.below(), &info));
    char value[32] = {0};
    int found = 0;
    Status got = EXA_MPI(MPI_Info_get(info, "exa_erange_fill", sizeof value - 1, value, &found));
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_free(&info)));
    EXA_RETURN_IF_ERROR(got);
    cf.erange_keep = found && std::strcmp(value, "disable") == 0;
    EXA_RETURN_IF_ERROR(cache::make_dir(cf.settings.dir));
    int provided = MPI_THREAD_SINGLE;
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Query_thread(&provided)));
    const bool thread = provided == MPI_THREAD_MULTIPLE;
    // With a fetcher thread, chunks are predicted up to kLookahead bytes ahead
    // (fetched while the program computes); inline, only `prefetch` of them
    // (each fetch delays the read that schedules it).
    cf.reads = std::make_unique<ReadCache>(cf.settings.prefetch, cf.settings.ghost, cf.settings.size / local,
                                           thread ? kLookahead : 0);
    cf.advise_fd = ::open(next()->facts(cf.below()).path.c_str(), O_RDONLY | O_CLOEXEC);  // -1: no advice
    if (read_trace_prefix()) cf.reads->enable_trace();
    if (thread) cf.fetcher = std::thread(fetcher_loop, next(), &cf);
    return Status::ok();
  }

  Status setup(CacheFile& cf, int mode, bool created) {
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(cf.comm(), &cf.dup)));
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(cf.dup, &cf.rank)));
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(cf.dup, &cf.nprocs)));
    const FileFacts facts = next()->facts(cf.below());
    const bool partitioned = (facts.mode & EXA_FORMAT_PARTITIONED) != 0 || facts.blocks != nullptr;
    const bool writable = created || (mode & NC_WRITE) != 0;
    // Safe mode agrees on every data call's checks across ranks before any I/O: a
    // logged put would not take part (and ranks making different calls would not meet).
    cf.active = writable && !partitioned && !cache::recovering() && !safe_mode_requested();
    // Every rank must agree (a rank that cannot log would write through alone: fine,
    // but the node share of the tier is computed collectively below).
    MPI_Comm node = MPI_COMM_NULL;
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_split_type(cf.dup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)));
    int local = 1;
    Status sized = EXA_MPI(MPI_Comm_size(node, &local));
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_free(&node)));
    EXA_RETURN_IF_ERROR(sized);
    // Ranks may have passed different modes (the file is opened with rank 0's,
    // NC_EMULTIDEFINE_OMODE elsewhere): the file is cached on every rank or none.
    // Prefetch: classic formats (native's independent gets), not in safe mode.
    const bool prefetch = cf.settings.prefetch > 0 && !partitioned && !cache::recovering() && !safe_mode_requested();
    int agreed[3] = {cf.active ? 1 : 0, prefetch ? 1 : 0, writable ? 0 : 1};
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, agreed, 3, MPI_INT, MPI_MIN, cf.dup)));
    cf.active = agreed[0] == 1;
    cf.writable = agreed[2] == 0;
    if (agreed[1] == 1) EXA_RETURN_IF_ERROR(setup_prefetch(cf, local));
    if (!cf.active) return Status::ok();
    cf.capacity = std::max<int64_t>(cf.settings.size / local / 8 * 8, 4096);
    EXA_RETURN_IF_ERROR(cache::absolute_path(facts.path, &cf.target));
    cf.log_file = cache::log_path(cf.settings.dir, cf.target, cf.rank);
    if (created && cf.rank == 0) {  // the file was (re)made: older logs of this path describe nothing
      for (const std::string& stale : cache::find_logs(cf.settings.dir, cf.target)) ::unlink(stale.c_str());
    }
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Barrier(cf.dup)));  // stale logs gone before anyone logs
    if (cf.settings.drain == DrainWhen::kEager) {
      int provided = MPI_THREAD_SINGLE;
      EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Query_thread(&provided)));
      if (provided == MPI_THREAD_MULTIPLE) {
        // Several ranks: the movers agree among themselves (mover_loop_agreeing).
        if (cf.nprocs > 1) {
          EXA_RETURN_IF_ERROR(watch_mpi_end());
          EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(cf.dup, &cf.movers)));
        }
        cf.mover = std::thread(mover_loop, next(), &cf);
      } else if (verbose()) {
        static std::once_flag said;
        std::call_once(said, [] {
          std::fprintf(stderr,
                       "exacdf cache: MPI_THREAD_MULTIPLE was not provided; the log drains inside "
                       "library calls (when half full and at flush/sync/close)\n");
        });
      }
    }
    return Status::ok();
  }

  CacheSettings settings_;
};

bool parse_size(const std::string& text, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || v <= 0) return false;
  double scale = 1;
  const std::string unit = end;
  if (unit == "K" || unit == "k" || unit == "KiB") scale = 1024.0;
  else if (unit == "M" || unit == "MiB") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB") scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty()) return false;
  if (v * scale > 9.0e18) return false;
  *out = static_cast<int64_t>(v * scale);
  return true;
}

// "1" or "1,2,1": non-negative widths.
bool parse_ghost(const std::string& text, std::vector<int64_t>* out) {
  out->clear();
  size_t at = 0;
  while (true) {
    const size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    char* end = nullptr;
    const long long w = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || w < 0 || w > (int64_t{1} << 40)) return false;
    out->push_back(w);
    if (comma == std::string::npos) return true;
    at = comma + 1;
  }
}

}  // namespace

Status make_cache_connector(Connector* below, const ConnectorSettings& settings,
                            std::unique_ptr<Connector>* out) {
  CacheSettings s;
  auto bad = [](const std::string& key, const std::string& value, const char* wants) -> Status {
    return {NC_EINVAL, "cache: " + key + "=" + value + " (wants " + wants + ")"};
  };
  for (const auto& [key, value] : settings) {
    if (key == "dir") {
      if (value.empty()) return bad(key, value, "a directory");
      s.dir = value;
    } else if (key == "size") {
      if (!parse_size(value, &s.size)) return bad(key, value, "a size such as 512M or 2G");
    } else if (key == "durable") {
      if (value != "process" && value != "node") return bad(key, value, "process or node");
      s.durable_node = value == "node";
    } else if (key == "drain") {
      if (value == "eager") s.drain = DrainWhen::kEager;
      else if (value == "close") s.drain = DrainWhen::kClose;
      else if (value == "manual") s.drain = DrainWhen::kManual;
      else return bad(key, value, "eager, close or manual");
    } else if (key == "close") {
      if (value != "sync" && value != "detach") return bad(key, value, "sync or detach");
      s.detach = value == "detach";
    } else if (key == "prefetch") {
      char* end = nullptr;
      const long depth = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || depth < 0 || depth > 64) return bad(key, value, "chunks ahead, 0 to 64");
      s.prefetch = static_cast<int>(depth);
    } else if (key == "ghost") {
      if (!parse_ghost(value, &s.ghost)) return bad(key, value, "widths such as 1 or 1,1,1");
    } else if (key == "recover") {
      if (value != "off" && value != "auto") return bad(key, value, "off or auto");
      s.recover_auto = value == "auto";
    } else {
      return {NC_EINVAL, "cache: unknown setting '" + key + "' (known: dir, size, durable, drain, close, recover, prefetch, ghost)"};
    }
  }
  *out = std::make_unique<CacheConnector>(below, std::move(s));
  return Status::ok();
}

}  // namespace exa::layer
