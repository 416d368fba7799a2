#include "layer/async_connector.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "convert/external.hpp"
#include "exacdf.h"
#include "io/mpi_errors.hpp"
#include "layer/data_checks.hpp"
#include "layer/forwarding_connector.hpp"
#include "layer/put_range.hpp"
#include "util/huge_page_arena.hpp"

namespace exa::layer {

namespace {

// The elements a put touches in one variable, as a box per dimension
// (inclusive; a strided selection is covered by its bounding box, which
// orders more than needed, never less). No dimensions: the whole variable.
struct Region {
  int varid = -1;
  bool empty = false;
  std::vector<int64_t> lo, hi;
};

bool overlaps(const Region& a, const Region& b) {
  if (a.varid != b.varid || a.empty || b.empty) return false;
  for (size_t k = 0; k < a.lo.size() && k < b.lo.size(); ++k)
    if (a.hi[k] < b.lo[k] || b.hi[k] < a.lo[k]) return false;
  return true;
}

Region region_of(int varid, const io::Selection& sel) {
  Region r;
  r.varid = varid;
  for (size_t k = 0; k < sel.start.size(); ++k) {
    int64_t count = sel.count[k], stride = sel.stride.empty() ? 1 : sel.stride[k];
    if (count == 0) r.empty = true;
    r.lo.push_back(sel.start[k]);
    r.hi.push_back(sel.start[k] + (count > 0 ? count - 1 : 0) * stride);
  }
  return r;
}

std::string list_text(const std::vector<MPI_Offset>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + std::to_string(v[k]);
  return s + "]";
}

// One queued operation: a blocking put, the post of an iput (its request
// object, under the id the user already has), or a wait_all on such
// requests. A put or post holds its request with every pointer into storage
// of its own.
enum class OpKind { kPut, kPost, kWait };

struct Op {
  OpKind kind = OpKind::kPut;
  int reqid = NC_REQ_NULL;            // kPost: the id reserved at the call
  std::vector<int> wait_ids;          // kWait: the ids named (NC_REQ_NULL dropped)
  std::vector<Region> wait_regions;   // kWait: each id's region
  uint64_t seq = 0;
  double time = 0;
  std::string call;
  DataRequest req;
  std::vector<MPI_Offset> start, count, stride;
  HugePageBytes data;  // (2 MiB pages: a new buffer costs a fault per 2 MiB, not per 4 KiB)
  Region region;
  bool record = false;  // a record variable: numrecs may grow when it runs
  size_t bytes = 0;     // held against the mem bound
  bool collective = false;  // a collective put or wait (a post is independent)
  uint64_t ticket = 0;      // collective: its place in the process's program order
  bool swap = false;        // the copy goes to the file's byte order first (prepare)
  int64_t elem_size = 1;
  bool prepared = false;    // (under the file's lock)
  // An independent put whose I/O may run beside other such puts' (native
  // right below, async{concurrent=on}: SplitPut); false once native
  // declined to split it (it then runs alone, as every other operation).
  bool split = false;
  bool started = false;     // its call below runs (under the file's lock)

  std::string args() const {
    if (kind == OpKind::kWait) {
      std::string s = "reqids=[";
      for (size_t k = 0; k < wait_ids.size(); ++k) s += (k ? "," : "") + std::to_string(wait_ids[k]);
      return s + "]";
    }
    std::string s = kind == OpKind::kPost ? "reqid=" + std::to_string(reqid) + " " : "";
    s += "varid=" + std::to_string(req.varid);
    if (!start.empty()) s += " start=" + list_text(start);
    if (!count.empty()) s += " count=" + list_text(count);
    if (!stride.empty()) s += " stride=" + list_text(stride);
    return s;
  }
};

bool verbose() {
  const char* v = std::getenv("EXACDF_VERBOSE");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

// A file's operations and their dependencies; the work runs on the process's
// pool of threads (or, without MPI_THREAD_MULTIPLE, inside library calls).
class AsyncFile;
void forget_file(AsyncFile* f);
void poke_all();

// A pool thread, woken by a put, does not take the CPU from the program's
// thread that woke it (SCHED_BATCH: no preemption at wakeup; its share of
// the CPU is unchanged). On the loaded 2-core machine a put that had just
// woken the pool was seen to stall 3-7 ms at 1 rank, where a whole step's
// puts take about 1 ms. Best effort: where it is refused, the thread keeps
// the default policy. async{sched=normal} keeps SCHED_OTHER (the pool takes
// the policy of the file opened last; a thread changes it before its next job).
void background_priority(bool batch) {
  sched_param param{};
  param.sched_priority = 0;
  (void)pthread_setschedparam(pthread_self(), batch ? SCHED_BATCH : SCHED_OTHER, &param);
}

// The process's pool of background threads, shared by every async file
// (async{threads=N}: it grows to the largest N a file asked for and keeps its
// threads until the process ends). A job never waits for another job; a
// thread blocks only inside a collective call below, and collective calls
// start in the process's program order (CollectiveOrder), so a program that
// would not deadlock with PnetCDF's blocking calls does not deadlock here,
// however few threads there are.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool;  // never destroyed: its threads live until exit
    return *pool;
  }
  void ensure(int n, bool batch) {
    batch_ = batch;
    std::lock_guard<std::mutex> lock(mu_);
    while (static_cast<int>(threads_.size()) < n) threads_.emplace_back([this] { work(); });
  }
  // first: ahead of the jobs waiting (calls below, the long pole, go before
  // preparations).
  Pool() = default;
  // A pool of the caller's own (one file's), ended when destroyed; the
  // process's pool (get) never is.
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void submit(std::function<void()> job, bool first = false) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (first)
        jobs_.push_front(std::move(job));
      else
        jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  // Tasks running at once: now, and the most so far (exa_async_concurrency).
  void enter() {
    int now = ++active_;
    if (now >= 2) ++overlaps_;
    int seen = max_active_.load();
    while (now > seen && !max_active_.compare_exchange_weak(seen, now)) {
    }
  }
  void leave() { --active_; }
  int active() const { return active_.load(); }
  int max_active() const { return max_active_.load(); }
  // How many times a task started while another ran.
  long overlaps() const { return overlaps_.load(); }

 private:
  void work() {
    bool batch = batch_.load();
    background_priority(batch);
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      if (batch != batch_.load()) background_priority(batch = batch_.load());
      job();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
  std::atomic<bool> batch_{true};  // the threads' policy: SCHED_BATCH, else SCHED_OTHER
  std::atomic<int> active_{0}, max_active_{0};
  std::atomic<long> overlaps_{0};
};

// Collective operations of every async file of the process start in program
// order: a ticket each when queued; the one whose ticket is `started` may
// start next.
struct CollectiveOrder {
  std::mutex mu;
  uint64_t issued = 0;
  std::atomic<uint64_t> started{0};
};
CollectiveOrder& collective_order() {
  static CollectiveOrder* order = new CollectiveOrder;
  return *order;
}

// Whether b, queued after a, must wait for a to finish: both collective
// (program order on the file's communicator), a wait after a post (it may
// name it), or the same variable with overlapping regions (RAW/WAW/WAR; every
// queued operation writes).
bool depends(const Op& a, const Op& b) {
  if (a.collective && b.collective) return true;
  if (b.kind == OpKind::kWait) {
    if (a.kind == OpKind::kPost) return true;
    return std::any_of(b.wait_regions.begin(), b.wait_regions.end(), [&](const Region& r) { return overlaps(a.region, r); });
  }
  if (a.kind == OpKind::kWait)
    return std::any_of(a.wait_regions.begin(), a.wait_regions.end(), [&](const Region& r) { return overlaps(r, b.region); });
  return overlaps(a.region, b.region);
}

// How many of a file's queued operations the scheduler looks at, front first.
constexpr size_t kScheduleWindow = 64;

bool hold_for_overlap() {
  static const bool hold = [] {
    const char* v = std::getenv("EXACDF_ASYNC_HOLD");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return hold;
}

class AsyncFile final : public WrappedState {
 public:
  AsyncFile(std::unique_ptr<FileState> lower, Connector* next, size_t mem_cap, bool threaded)
      : WrappedState(std::move(lower)), next_(next), mem_cap_(mem_cap), threaded_(threaded) {
    shared_ = (next_->facts(below()).mode & NC_SHARE) != 0;
    if (MPI_Comm_dup(comm(), &agree_comm_) != MPI_SUCCESS) agree_comm_ = MPI_COMM_NULL;
  }
  ~AsyncFile() override;

  bool threaded() const { return threaded_; }
  // NC_SHARE: the program asked for PnetCDF's stronger consistency (each
  // write synced), so its independent puts are not deferred.
  bool shared() const { return shared_; }
  Pool& pool() { return Pool::get(); }

  // Queues an operation (waits for room first: back-pressure); false if it
  // can never fit (bigger than the bound) and the caller runs it at once.
  // Its preparation (the copy's byte order) may start at once on the pool;
  // its call below starts when every earlier operation it depends on is done.
  bool enqueue(std::unique_ptr<Op> op) {
    std::unique_lock<std::mutex> lock(mu_);
    if (op->bytes > mem_cap_) return false;
    while (used_ + warming_bytes_ + op->bytes > mem_cap_) {
      if (threaded_) {
        space_.wait(lock);
      } else {
        lock.unlock();
        progress();
        lock.lock();
      }
    }
    // Numbered: the file's puts that passed their checks (1 = first).
    if (op->req.args_error == NC_NOERR) op->seq = ++sequence_;
    used_ += op->bytes;
    while (!spare_.empty() && held_locked() > mem_cap_) {  // kept buffers yield to queued puts
      spare_bytes_ -= spare_.back().capacity();
      spare_.pop_back();
    }
    peak_ = std::max(peak_, held_locked());
    if (op->record) ++pending_records_;
    if (op->collective && threaded_) {
      std::lock_guard<std::mutex> order(collective_order().mu);
      op->ticket = collective_order().issued++;
    }
    Op* queued = op.get();
    ops_.push_back(std::move(op));
    if (!threaded_) return true;
    if (queued->swap) {
      ++jobs_;
      pool().submit([this, queued] { prepare(queued); });
    } else {
      queued->prepared = true;
    }
    bool poke = schedule_locked();
    lock.unlock();
    if (poke) poke_all();
    return true;
  }

  // Before a call that not every rank makes (an independent one): with
  // threads, waits for the file's operations (the pool runs collectives with
  // the other ranks' pools, whatever they do); without, runs no collective
  // work -- every queued operation is collective then -- since the other
  // ranks may be anywhere, e.g. in the program's MPI_Barrier.
  void settle() {
    if (threaded_) drain();
  }

  // Whether a put of `bytes` fits the bound now (no waiting).
  bool fits(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    return used_ + bytes <= mem_cap_;
  }

  // Operations queued and not yet done.
  int pending() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(ops_.size());
  }

  // Completes every queued operation (the barrier before a collective call:
  // every rank reaches it in the same order).
  void drain() {
    if (!threaded_) return progress();
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait(lock, [this] { return idle_locked(); });
  }

  // Waits at most timeout_s (< 0: no limit); the operations left.
  int drain_for(double timeout_s) {
    if (!threaded_ || timeout_s < 0) {
      drain();
      return 0;
    }
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return idle_locked(); });
    return static_cast<int>(ops_.size());
  }

  // Starts what may start now; called by poke_all when a collective started
  // elsewhere (the next ticket may be this file's). True when a collective
  // started here.
  bool schedule_here() {
    std::lock_guard<std::mutex> lock(mu_);
    return schedule_locked();
  }

  bool pending_records() {
    std::lock_guard<std::mutex> lock(mu_);
    return pending_records_ > 0;
  }

  // Whether no background error waits to be returned (it stays).
  bool unreported_ok() {
    std::lock_guard<std::mutex> lock(mu_);
    return unreported_.is_ok();
  }

  // The first background error not yet returned; cleared.
  Status take_unreported() {
    std::lock_guard<std::mutex> lock(mu_);
    Status st = unreported_;
    unreported_ = Status::ok();
    return st;
  }

  Status error_at(int index, exa_async_error_info* info) {
    std::lock_guard<std::mutex> lock(mu_);
    if (index < 0 || static_cast<size_t>(index) >= errors_.size())
      return {NC_EINVAL, "no background error of that index"};
    if (info == nullptr) return {NC_EINVAL, "null info"};
    *info = errors_[static_cast<size_t>(index)];
    return Status::ok();
  }

  // Completes the file's operations; none runs afterwards.
  // Buffers not yet made are not made; one being made is waited for.
  void stop() {
    drain();
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    idle_.wait(lock, [this] { return jobs_ == 0; });
  }

  size_t peak() {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }
  // This file's tasks (preparations, calls below) running now, and the most
  // that ran at once.
  int active() {
    std::lock_guard<std::mutex> lock(mu_);
    return active_;
  }
  int max_active() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_active_;
  }

  // A buffer for a put's copy of `bytes`: one that an earlier put of this
  // file used, when one is big enough, so its pages are already mapped (a
  // new one faults every page in when it is filled, which costs as much as
  // the write it defers).
  // A buffer is made ready on the pool meanwhile (see warm) for every put
  // that found none, and when this put took the last that fitted (puts of
  // at least kWarmMinBytes: smaller ones come from memory malloc has mapped
  // already, and a job per put would cost more than it saves).
  HugePageBytes take_buffer(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t best = best_spare_locked(bytes);
    HugePageBytes b;
    if (best != spare_.size()) {
      b = std::move(spare_[best]);
      spare_bytes_ -= b.capacity();
      spare_.erase(spare_.begin() + static_cast<std::ptrdiff_t>(best));
    }
    if (bytes >= kWarmMinBytes && (b.capacity() == 0 || (best_spare_locked(bytes) == spare_.size() && warming_ == 0)))
      warm_locked(bytes);
    return b;
  }

  // Requests this connector keeps (deferred iputs), by id, with their region;
  // the program's thread only. An id leaves when a wait or cancel completed it.
  std::map<int, Region>& kept() { return kept_; }

  // After a drain: the kept requests whose post failed or was cancelled in
  // the background (never pending below), with their code, until a wait or
  // cancel names them (forget_lost).
  std::map<int, int> lost() {
    std::lock_guard<std::mutex> lock(mu_);
    return lost_;
  }
  void forget_lost(int id) {
    std::lock_guard<std::mutex> lock(mu_);
    lost_.erase(id);
  }
  void forget_all_lost() {
    std::lock_guard<std::mutex> lock(mu_);
    lost_.clear();
  }

  // A communicator of this connector's own for agreements made on the
  // program's thread while the pool makes collective calls on the file's
  // (duplicated when the file was made; null if that failed).
  MPI_Comm agreement_comm() const { return agree_comm_; }

 private:
  // Without MPI_THREAD_MULTIPLE: runs the queue in program order in the
  // calling thread.
  void progress() {
    for (;;) {
      Op* op = nullptr;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (ops_.empty()) return;
        op = ops_.front().get();
      }
      if (op->swap) to_file_order(*op);
      run(*op);
      std::lock_guard<std::mutex> lock(mu_);
      finish_locked(op);
    }
  }

  // The queued operations that may make their call below now, started on
  // the pool: prepared, after every earlier one they depend on, and, if
  // collective, holding the process's next ticket. An operation runs alone
  // (the layers below keep per-file state that is not thread-safe), except
  // split independent puts (Op::split): any number of those run at once,
  // each planned and finished under below_mu_ with only its I/O beside the
  // others' (layer/connector.hpp SplitPut). An operation that must run
  // alone and may start waits for the split ones running; no later one
  // starts meanwhile (it is not passed over).
  // True when a collective started (other files may hold the next ticket).
  bool schedule_locked() {
    if (below_busy_) return false;
    // (a window: the dependency checks grow with its square, and the front
    // operations are the ones that matter)
    for (size_t k = 0; k < ops_.size() && k < kScheduleWindow; ++k) {
      Op* op = ops_[k].get();
      if (!op->prepared || op->started) continue;
      bool blocked = false;
      for (size_t j = 0; j < k && !blocked; ++j) blocked = depends(*ops_[j], *op);
      if (blocked) continue;
      if (op->collective && op->ticket != collective_order().started.load()) continue;
      if (op->split) {
        op->started = true;
        ++split_running_;
        ++jobs_;
        pool().submit([this, op] { call_split(op); }, /*first=*/true);
        continue;
      }
      if (split_running_ > 0) return false;  // (it starts when they are done)
      op->started = true;
      below_busy_ = true;
      ++jobs_;
      if (op->collective) ++collective_order().started;
      pool().submit([this, op] { call_below(op); }, /*first=*/true);
      return op->collective;
    }
    return false;
  }

  // A task of the file starts. Testing hook (EXACDF_ASYNC_HOLD=1): the
  // file's first task holds until another task of the process runs beside it
  // (at most 10 s), so a test sees the overlap the scheduler allows whatever
  // the machine's load.
  void enter_locked(std::unique_lock<std::mutex>& lock) {
    ++active_;
    max_active_ = std::max(max_active_, active_);
    Pool::get().enter();
    if (!hold_for_overlap() || held_) return;
    held_ = true;
    const long before = Pool::get().overlaps();
    for (int k = 0; k < 1000 && Pool::get().overlaps() == before && Pool::get().active() < 2; ++k)
      overlap_.wait_for(lock, std::chrono::milliseconds(10));
  }
  void leave_locked() {
    --active_;
    Pool::get().leave();
  }

  // On the pool: the copy into the file's byte order (big-endian), so the
  // call below writes it as it is; runs beside other operations' calls below.
  void prepare(Op* op) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      enter_locked(lock);
    }
    to_file_order(*op);
    bool poke = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      leave_locked();
      op->prepared = true;
      --jobs_;
      poke = schedule_locked();
      if (idle_locked()) idle_.notify_all();
    }
    if (poke) poke_all();
  }

  static void to_file_order(Op& op) {
    convert::swap_bytes_in_place(op.data.data(), op.elem_size, static_cast<int64_t>(op.data.size()) / op.elem_size);
    op.req.external_order = true;
  }

  // On the pool: the operation's call below, then what it unblocked.
  void call_below(Op* op) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      enter_locked(lock);
    }
    run(*op);
    bool poke = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      leave_locked();
      below_busy_ = false;
      --jobs_;
      finish_locked(op);
      poke = schedule_locked();
    }
    if (poke) poke_all();
  }

  // On the pool: a split independent put (Op::split). Its plan and finish
  // steps run under below_mu_, its writes beside other split puts' writes.
  // Native may decline to split it: it then goes back to the queue, to run
  // alone.
  void call_split(Op* op) {
    bool cancelled = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      enter_locked(lock);
      cancelled = std::any_of(failed_.begin(), failed_.end(), [&](const Region& r) { return overlaps(r, op->region); });
    }
    Status st = {EXA_ECANCELED, "cancelled: an earlier operation on this region failed"};
    bool declined = false;
    if (!cancelled) {
      SplitPut sp;
      sp.req = &op->req;
      {
        std::lock_guard<std::mutex> below_lock(below_mu_);
        st = next_->extension(below(), "split_put", &sp);
      }
      declined = st.is_ok() && !sp.split;
      if (st.is_ok() && sp.split) {
        Status io = sp.io();
        std::lock_guard<std::mutex> below_lock(below_mu_);
        st = sp.finish(io);
      }
    }
    if (!st.is_ok()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!cancelled) failed_.push_back(op->region);
      }
      record_error(*op, st);
    }
    bool poke = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      leave_locked();
      --split_running_;
      --jobs_;
      if (declined) {
        op->split = false;
        op->started = false;
      } else {
        finish_locked(op);
      }
      poke = schedule_locked();
      if (idle_locked()) idle_.notify_all();
    }
    if (poke) poke_all();
  }

  void finish_locked(Op* op) {
    keep_buffer(std::move(op->data));
    used_ -= op->bytes;
    if (op->record) --pending_records_;
    auto it = std::find_if(ops_.begin(), ops_.end(), [op](const std::unique_ptr<Op>& o) { return o.get() == op; });
    if (it != ops_.end()) ops_.erase(it);
    space_.notify_all();
    if (idle_locked()) idle_.notify_all();
  }

  // Nothing queued and no job but buffers being made (those touch no file
  // state: a drain -- a barrier, a close -- does not wait for them).
  bool idle_locked() const { return ops_.empty() && jobs_ == warming_; }

  // The bytes the file's copies hold: queued, kept for reuse, being made
  // (mu_ held); within mem=.
  size_t held_locked() const { return used_ + spare_bytes_ + warming_bytes_; }

  // The smallest kept buffer of at least `bytes`, or spare_.size() (mu_ held).
  size_t best_spare_locked(size_t bytes) const {
    size_t best = spare_.size();
    for (size_t k = 0; k < spare_.size(); ++k)
      if (spare_[k].capacity() >= bytes && (best == spare_.size() || spare_[k].capacity() < spare_[best].capacity()))
        best = k;
    return best;
  }

  // A buffer of `bytes` made ready on the pool for a later put (mu_ held;
  // the put at hand, not queued yet, will hold `bytes` too). The copy into
  // a new buffer faults every page in on the program's thread: ten times
  // the copy into a mapped one (0.3-0.9 ms against 0.05 ms per 512 KiB
  // here). A program whose computation lasts about as long as its writes
  // finds the last step's buffers still in use at each step, so the buffers
  // in use, kept and being made grow to about two steps' worth -- within the
  // mem= bound, as kept buffers are; a put that finds none ready makes its
  // own, as before.
  void warm_locked(size_t bytes) {
    if (!threaded_ || stopping_ || spare_.size() + static_cast<size_t>(warming_) >= kMaxSpare ||
        held_locked() + 2 * bytes > mem_cap_)
      return;
    ++warming_;
    warming_bytes_ += bytes;
    peak_ = std::max(peak_, held_locked());
    ++jobs_;
    pool().submit([this, bytes] { warm(bytes); });
  }

  // On the pool: the buffer warm_locked asked for, every page written (the
  // fill value is not zero, so the allocation cannot become a calloc of
  // pages left unmapped).
  void warm(size_t bytes) {
    bool wanted = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      wanted = !stopping_;
    }
    HugePageBytes b;
    if (wanted) b.assign(bytes, uint8_t{0xa5});
    if (wanted) HugePageArena::get().prepare_chunk();  // the next chunks, faulted in here too
    std::lock_guard<std::mutex> lock(mu_);
    --warming_;
    warming_bytes_ -= bytes;
    if (wanted) keep_buffer(std::move(b));
    --jobs_;
    space_.notify_all();
    idle_.notify_all();  // (stop waits for every job)
  }

  // Keeps a finished put's buffer for the next put (mu_ held). What is kept
  // and what is queued together stay within the mem= bound.
  void keep_buffer(HugePageBytes b) {
    if (b.capacity() == 0 || held_locked() + b.capacity() > mem_cap_ || spare_.size() >= kMaxSpare) return;
    spare_bytes_ += b.capacity();
    spare_.push_back(std::move(b));
  }

  // One operation through the layers below. An operation whose region
  // overlaps that of an earlier failed one is cancelled (a collective one
  // still takes part, with nothing, so the other ranks do not hang). It runs
  // alone (no other call below of the file, split ones included, runs
  // meanwhile): failed_ needs no lock here.
  void run(Op& op) {
    if (op.kind == OpKind::kWait) return run_wait(op);
    bool cancelled = std::any_of(failed_.begin(), failed_.end(),
                                 [&](const Region& r) { return overlaps(r, op.region); });
    if (op.kind == OpKind::kPost) return run_post(op, cancelled);
    Status st;
    if (cancelled) {
      if (op.req.collective) {
        op.req.args_error = EXA_ECANCELED;
        Status part = next_->put(below(), op.req);
        part.set_aside("a cancelled operation takes part with nothing");
      }
      st = {EXA_ECANCELED, "cancelled: an earlier operation on this region failed"};
    } else {
      st = next_->put(below(), op.req);
    }
    if (op.req.args_error != NC_NOERR && !cancelled) {
      // A collective call with bad arguments took part with nothing; its
      // error was the call's own, returned when it was made.
      st.set_aside("returned at call time");
      return;
    }
    if (st.is_ok()) return;
    if (!cancelled && st.code() != NC_ERANGE) failed_.push_back(op.region);
    record_error(op, st);
  }

  // A kept iput reaches the layer below under its id (its request object
  // there); one that failed or was cancelled is remembered as lost, so the
  // wait naming it does not name an id the layer below never had.
  void run_post(Op& op, bool cancelled) {
    Status st = {EXA_ECANCELED, "cancelled: an earlier operation on this region failed"};
    if (!cancelled) {
      int id = op.reqid;
      st = next_->post(below(), op.req, PostKind::kIput, &id);
      if (st.is_ok()) return;  // (no conversion is deferred: no NC_ERANGE here)
      failed_.push_back(op.region);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      lost_[op.reqid] = st.code();
    }
    record_error(op, st);
  }

  // A deferred wait_all: collective below, on the ids the layer below has.
  void run_wait(Op& op) {
    std::vector<int> ids;
    std::vector<Region> regions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t k = 0; k < op.wait_ids.size(); ++k) {
        if (lost_.erase(op.wait_ids[k])) continue;  // its error is recorded already
        ids.push_back(op.wait_ids[k]);
        regions.push_back(op.wait_regions[k]);
      }
    }
    std::vector<int> statuses(ids.size(), NC_NOERR);
    std::vector<int> named = ids;
    Status st = next_->wait(below(), static_cast<int>(ids.size()), ids.data(), statuses.data(), true);
    bool reported = false;
    for (size_t k = 0; k < named.size(); ++k) {
      if (statuses[k] == NC_NOERR) continue;
      failed_.push_back(regions[k]);
      Op one;
      one.kind = OpKind::kPost;
      one.reqid = named[k];
      one.req.varid = regions[k].varid;
      one.call = op.call;
      one.seq = op.seq;
      one.time = op.time;
      record_error(one, {statuses[k], "a deferred request failed"});
      reported = true;
    }
    if (!st.is_ok() && !reported) {
      failed_.insert(failed_.end(), regions.begin(), regions.end());
      record_error(op, st);
    }
  }

  void record_error(const Op& op, const Status& st) {
    exa_async_error_info info{};
    info.code = st.code();
    std::snprintf(info.call, sizeof info.call, "%s", op.call.c_str());
    std::snprintf(info.args, sizeof info.args, "%s", op.args().c_str());
    info.sequence = static_cast<long long>(op.seq);
    info.time = op.time;
    std::lock_guard<std::mutex> lock(mu_);
    errors_.push_back(info);
    if (unreported_.is_ok()) unreported_ = st;
  }

  Connector* next_;
  const size_t mem_cap_;
  const bool threaded_;
  std::mutex mu_;
  std::condition_variable space_, idle_, overlap_;
  std::deque<std::unique_ptr<Op>> ops_;  // queued, not yet done, in program order
  int jobs_ = 0;             // this file's jobs on the pool
  bool below_busy_ = false;  // a call below is running (alone)
  int split_running_ = 0;    // split independent puts running (call_split)
  std::mutex below_mu_;      // the plan and finish steps of split puts
  bool shared_ = false;      // NC_SHARE
  int active_ = 0, max_active_ = 0;
  bool held_ = false;  // EXACDF_ASYNC_HOLD: the first task held
  static constexpr size_t kMaxSpare = 64;
  static constexpr size_t kWarmMinBytes = size_t{64} << 10;
  std::vector<HugePageBytes> spare_;  // finished puts' buffers, for reuse
  size_t spare_bytes_ = 0;
  int warming_ = 0;            // buffers being made ready on the pool (warm)
  bool stopping_ = false;      // stop(): no more buffers made
  size_t warming_bytes_ = 0;   // their bytes
  size_t used_ = 0, peak_ = 0;
  int pending_records_ = 0;
  uint64_t sequence_ = 0;
  std::vector<Region> failed_;  // the calls below only (alone, or split ones under mu_)
  std::map<int, Region> kept_;
  std::map<int, int> lost_;     // under mu_
  MPI_Comm agree_comm_ = MPI_COMM_NULL;
  std::vector<exa_async_error_info> errors_;
  Status unreported_;
};

AsyncFile::~AsyncFile() {
  stop();
  forget_file(this);
  int finalized = 0;
  if (agree_comm_ != MPI_COMM_NULL && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) {
    Status freed = io::from_mpi(MPI_Comm_free(&agree_comm_), io::MpiOp::kOther, "async: MPI_Comm_free");
    freed.set_aside("the file is closed; nothing to report it to");
  }
}

// Every open async file of the process: a create, an open or a get drains
// them all, so what one handle wrote is on disk before another reads.
struct OpenFiles {
  std::mutex mu;
  std::set<AsyncFile*> files;
};
OpenFiles& open_files() {
  static OpenFiles* o = new OpenFiles;  // never destroyed: files may close at exit
  return *o;
}
void forget_file(AsyncFile* f) {
  std::lock_guard<std::mutex> lock(open_files().mu);
  open_files().files.erase(f);
}
// With threads every file's queue is waited for. Without, a file's queued
// (collective) work runs only inside a collective call on a communicator of
// the same group (`collective_on`; MPI_COMM_NULL: an independent call): every
// rank of that file reaches the call in the same order relative to the
// file's own collective calls, as a program correct under PnetCDF's blocking
// calls does.
// A collective started: the next ticket may be another file's.
void poke_all() {
  for (bool again = true; again;) {
    again = false;
    std::lock_guard<std::mutex> lock(open_files().mu);  // (a file leaves only after its work is done)
    for (AsyncFile* f : open_files().files) again = f->schedule_here() || again;
  }
}

void drain_all(MPI_Comm collective_on) {
  std::vector<AsyncFile*> files;
  {
    std::lock_guard<std::mutex> lock(open_files().mu);
    files.assign(open_files().files.begin(), open_files().files.end());
  }
  for (AsyncFile* f : files) {
    if (f->threaded()) {
      f->drain();
      continue;
    }
    int same = MPI_UNEQUAL;
    if (collective_on == MPI_COMM_NULL || MPI_Comm_compare(collective_on, f->comm(), &same) != MPI_SUCCESS ||
        same == MPI_UNEQUAL)
      continue;  // (a failed compare: nothing runs; the file's next collective call runs it)
    f->drain();
  }
}

bool thread_multiple() {
  int level = MPI_THREAD_SINGLE;
  if (MPI_Query_thread(&level) != MPI_SUCCESS) return false;
  if (level >= MPI_THREAD_MULTIPLE) return true;
  static std::once_flag said;
  std::call_once(said, [level] {
    if (verbose())
      std::fprintf(stderr,
                   "exacdf async: MPI was initialised with thread level %d, not MPI_THREAD_MULTIPLE: "
                   "operations progress inside library calls only\n",
                   level);
  });
  return false;
}

class AsyncConnector final : public ForwardingConnector {
 public:
  AsyncConnector(Connector* below, size_t mem_cap, int threads, bool batch, bool defer_indep, bool concurrent)
      : ForwardingConnector(below),
        mem_cap_(mem_cap),
        threads_(threads),
        batch_(batch),
        swap_below_(std::strcmp(below->name(), "native") == 0),
        defer_indep_(defer_indep),
        concurrent_(concurrent) {}
  const char* name() const override { return "async"; }

  Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                std::unique_ptr<FileState>* out) override {
    drain_all(comm);
    return ForwardingConnector::create(comm, path, cmode, info, out);
  }
  Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
              std::unique_ptr<FileState>* out) override {
    drain_all(comm);
    return ForwardingConnector::open(comm, path, omode, info, out);
  }

  // Barriers: what came before completes, then the call runs.
  Status enddef(FileState& f, const format::LayoutHints* a) override {
    return after(f, [&] { return next()->enddef(below(f), a); });
  }
  Status redef(FileState& f) override { return after(f, [&] { return next()->redef(below(f)); }); }
  Status sync(FileState& f) override { return completing(f, [&] { return next()->sync(below(f)); }); }
  Status flush(FileState& f) override { return completing(f, [&] { return next()->flush(below(f)); }); }
  Status sync_numrecs(FileState& f) override {
    return completing(f, [&] { return next()->sync_numrecs(below(f)); });
  }
  // Collective puts of every rank are on disk before any rank reads independently.
  Status begin_indep(FileState& f) override {
    state(f).drain();
    EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Barrier(f.comm()), io::MpiOp::kOther, "async: MPI_Barrier at begin_indep"));
    return next()->begin_indep(below(f));
  }
  Status end_indep(FileState& f) override { return after(f, [&] { return next()->end_indep(below(f)); }); }
  Status refresh(FileState& f) override { return after(f, [&] { return next()->refresh(below(f)); }); }
  Status close(FileState& f) override {
    auto& af = state(f);
    af.stop();
    forget(af);
    Status st = next()->close(below(f));
    Status late = af.take_unreported();
    if (st.is_ok()) return late;
    late.set_aside("the close's own error is reported");
    return st;
  }
  Status abort(FileState& f) override {
    auto& af = state(f);
    af.stop();
    forget(af);
    return next()->abort(below(f));
  }
  Status set_fill(FileState& f, int mode, int* old) override {
    return after(f, [&] { return next()->set_fill(below(f), mode, old); });
  }
  Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) override {
    return after(f, [&] { return next()->fill_var_rec(below(f), varid, recno); });
  }
  Status file_info(FileState& f, MPI_Info* info) override {
    return independent(f, [&] { return next()->file_info(below(f), info); });
  }
  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override {
    return after(f, [&] { return next()->def_dim(below(f), name, len, id); });
  }
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids,
                 int* id) override {
    return after(f, [&] { return next()->def_var(below(f), name, type, ndims, dimids, id); });
  }
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* value) override {
    return after(f, [&] { return next()->def_var_fill(below(f), varid, no_fill, value); });
  }
  Status rename_dim(FileState& f, int dimid, const char* name) override {
    return after(f, [&] { return next()->rename_dim(below(f), dimid, name); });
  }
  Status rename_var(FileState& f, int varid, const char* name) override {
    return after(f, [&] { return next()->rename_var(below(f), varid, name); });
  }
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override {
    return after(f, [&] { return next()->put_att(below(f), varid, name, xtype, nelems, values, memtype); });
  }
  Status del_att(FileState& f, int varid, const char* name) override {
    return after(f, [&] { return next()->del_att(below(f), varid, name); });
  }
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override {
    return after(f, [&] { return next()->rename_att(below(f), varid, name, new_name); });
  }

  // Inquiries: metadata changes only by define calls (barriers) and by
  // numrecs, which a queued put of a record variable may grow; only then
  // (or for a partitioned file, whose blocks load on use) they wait.
  const model::Dataset& dataset(FileState& f) override {
    settle_metadata(f);
    return next()->dataset(below(f));
  }
  FileFacts facts(FileState& f) override {
    state(f).settle();
    return next()->facts(below(f));
  }
  Status get_att(FileState& f, int varid, const char* name, void* values, nc_type memtype) override {
    settle_metadata(f);
    return next()->get_att(below(f), varid, name, values, memtype);
  }
  Status inquire(FileState& f, const char* call, InquiryAnswer answer) override {
    settle_metadata(f);
    return next()->inquire(below(f), call, answer);
  }
  // The data calls' modes change only at barriers: no wait.
  CallModes modes(FileState& f) override { return next()->modes(below(f)); }
  // Brought in by the queued put itself (below), in program order.
  void prepare_collective(FileState& f, int varid) override {
    if (partitioned(f)) {
      state(f).drain();
      next()->prepare_collective(below(f), varid);
    }
  }
  Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) override {
    return independent(f, [&] { return next()->check_data(below(f), req, put, call_only); });
  }

  Status put(FileState& f, const DataRequest& req) override;
  Status get(FileState& f, const DataRequest& req) override {
    state(f).settle();
    drain_all(req.collective ? f.comm() : MPI_COMM_NULL);
    return next()->get(below(f), req);
  }
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override {
    return before(f, collective, [&] { return next()->vard(below(f), varid, filetype, buf, bufcount, buftype, put, collective); });
  }
  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override;
  Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) override;
  Status cancel(FileState& f, int num, int* reqids, int* statuses) override {
    Status st = independent(f, [&] { return forwarded_requests(f, num, reqids, statuses, [&](int* ids, int* sts) {
      return next()->cancel(below(f), num, ids, sts);
    }); });
    return st;
  }
  Status inq_nreqs(FileState& f, int* nreqs) override {
    return independent(f, [&] { return next()->inq_nreqs(below(f), nreqs); });
  }
  Status buffer_attach(FileState& f, MPI_Offset size) override {
    return independent(f, [&] { return next()->buffer_attach(below(f), size); });
  }
  Status buffer_detach(FileState& f) override { return independent(f, [&] { return next()->buffer_detach(below(f)); }); }
  Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) override {
    return independent(f, [&] { return next()->buffer_usage(below(f), usage, size); });
  }
  Status extension(FileState& f, const char* name, void* args) override;

 protected:
  std::unique_ptr<FileState> wrap(std::unique_ptr<FileState> lower) override {
    const bool threaded = thread_multiple();
    if (threaded) {
      Pool::get().ensure(threads_, batch_);
      // The first copies go into chunks whose 2 MiB pages the pool has
      // faulted in already (HugePageArena: a no-op when enough are ready).
      Pool::get().submit([] { HugePageArena::get().prepare_chunk(); });
    }
    auto af = std::make_unique<AsyncFile>(std::move(lower), next(), mem_cap_, threaded);
    std::lock_guard<std::mutex> lock(open_files().mu);
    open_files().files.insert(af.get());
    return af;
  }

 private:
  static AsyncFile& state(FileState& f) { return static_cast<AsyncFile&>(f); }
  static void forget(AsyncFile& af) { forget_file(&af); }
  // A collective call: what came before completes, then the call runs.
  template <typename Fn>
  Status after(FileState& f, Fn&& fn) {
    state(f).drain();
    return fn();
  }
  // An independent call (not every rank makes it): AsyncFile::settle.
  template <typename Fn>
  Status independent(FileState& f, Fn&& fn) {
    state(f).settle();
    return fn();
  }
  template <typename Fn>
  Status before(FileState& f, bool collective, Fn&& fn) {
    return collective ? after(f, fn) : independent(f, fn);
  }
  // A completing call (wait, sync, flush): also returns the first
  // background error not yet returned.
  template <typename Fn>
  Status completing(FileState& f, Fn&& fn) {
    return completing(f, true, fn);
  }
  template <typename Fn>
  Status completing(FileState& f, bool collective, Fn&& fn) {
    if (collective)
      state(f).drain();
    else
      state(f).settle();
    Status st = fn();
    Status late = state(f).take_unreported();
    if (late.is_ok()) return st;
    if (!st.is_ok()) {
      late.set_aside("the call's own error is reported");
      return st;
    }
    return late;
  }
  bool partitioned(FileState& f) { return next()->dataset(below(f)).partitioned(); }
  void settle_metadata(FileState& f) {
    if (state(f).pending_records() || partitioned(f)) state(f).settle();
  }
  std::unique_ptr<Op> copy_of(FileState& f, const DataRequest& req, const CheckedAccess& access,
                              bool* copyable);
  std::unique_ptr<Op> deferred_copy(FileState& f, const DataRequest& req);
  Status put_inline(FileState& f, const DataRequest& req, std::unique_ptr<Op> op);
  bool may_keep_wait(AsyncFile& af, int num, const int* reqids);
  Status agree_to_defer(FileState& f, bool mine, bool* all);
  // A wait or cancel made below at once (after a drain): the kept requests
  // lost in the background are answered here with their code (the layer
  // below never had them), and the ids it completed stop being kept.
  template <typename Fn>
  Status forwarded_requests(FileState& f, int num, int* reqids, int* statuses, Fn&& below_call);

  const size_t mem_cap_;
  const int threads_;       // the pool's threads (at least)
  const bool batch_;        // the pool's threads under SCHED_BATCH (sched=batch)
  const bool swap_below_;   // native is right below: it takes copies in the file's byte order
  const bool defer_indep_;  // async{indep=defer} (the default): independent puts are queued too
  const bool concurrent_;   // async{concurrent=on}: queued independent puts' writes run at once (split)
};

// The queued copy of a put, when its memory is one contiguous run of bytes
// (typed calls and flexible calls with a contiguous buffer type, no imap).
std::unique_ptr<Op> AsyncConnector::copy_of(FileState& f, const DataRequest& req,
                                            const CheckedAccess& access, bool* copyable) {
  *copyable = false;
  if (req.imap != nullptr || req.varn) return nullptr;
  int64_t bytes = 0;
  if (req.buftype == MPI_DATATYPE_NULL) {
    bytes = access.nelems * convert::native_size(access.memtype);
  } else {
    int size = 0;
    MPI_Aint lb = 0, extent = 0;
    if (MPI_Type_size(req.buftype, &size) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(req.buftype, &lb, &extent) != MPI_SUCCESS || lb != 0 || extent != size)
      return nullptr;  // not contiguous: runs at once
    bytes = req.bufcount * static_cast<int64_t>(size);
  }
  auto op = std::make_unique<Op>();
  op->time = MPI_Wtime();
  op->call = req.call != nullptr ? req.call : (req.collective ? "put_all" : "put");
  op->req = req;
  size_t n = access.sel.start.size();
  if (req.start) op->start.assign(req.start, req.start + n);
  if (req.count) op->count.assign(req.count, req.count + n);
  if (req.stride) op->stride.assign(req.stride, req.stride + n);
  op->req.start = req.start ? op->start.data() : nullptr;
  op->req.count = req.count ? op->count.data() : nullptr;
  op->req.stride = req.stride ? op->stride.data() : nullptr;
  if (bytes > 0) {
    const auto* from = static_cast<const uint8_t*>(req.buf);
    op->data = state(f).take_buffer(static_cast<size_t>(bytes));
    op->data.resize(static_cast<size_t>(bytes));  // (default-initialised: not zeroed first)
    // The put's value range, when the api layer asks for it (PutRangeScope),
    // is taken in this copy's own pass (convert::copy_with_range): the copy
    // is the one time the values are read on this thread (the swap to the
    // file's order and the write run later on the pool).
    convert::SegmentedRange* range =
        req.buftype == MPI_DATATYPE_NULL ? put_range_for(req.varid, req.buf) : nullptr;
    if (range != nullptr) range->copy_out(from, op->data.data(), access.memtype, access.nelems);
    else std::memcpy(op->data.data(), from, static_cast<size_t>(bytes));
  }
  // The copy is contiguous elements of the resolved memory type: queued as a
  // typed call (the program may free its buffer type once the put returned).
  op->req.memtype = access.memtype;
  op->req.buftype = MPI_DATATYPE_NULL;
  op->req.bufcount = -1;
  op->req.buf = op->data.empty() ? nullptr : op->data.data();
  if (op->req.buf == nullptr && bytes == 0) op->req.buf = req.buf;  // nothing to copy: kept as given
  op->region = region_of(req.varid, access.sel);
  op->record = access.geo.record;
  op->bytes = static_cast<size_t>(bytes);
  op->collective = req.collective;
  // The byte swap to the file's order is a task of its own on the pool (it
  // runs beside other operations' calls below) when native is right below,
  // which writes such a copy as it is (DataRequest::external_order).
  op->elem_size = convert::native_size(access.memtype);
  op->swap = swap_below_ && op->elem_size > 1 && !op->data.empty() &&
             std::endian::native == std::endian::little;
  *copyable = true;
  return op;
}

// Deferred: a put that passed its checks, of a fixed-size variable, with no
// conversion between types, from contiguous memory -- collective, or
// independent (async{indep=defer}, the default) with threads and native
// right below (its writes run beside other independent puts' with
// concurrent=on: Op::split). A deferred independent put is complete where
// PnetCDF 1.12.3 and MPI-IO make data visible, and nowhere else: to this
// process at its own gets (any get drains every async file of the process),
// inquiries of sizes (facts: ncmpi_inq_put_size), waits, ncmpi_sync, flush,
// begin/end_indep_data, redef and close; to another process only after
// ncmpi_sync (MPI_File_sync on every handle, then MPI_Barrier: MPI-IO's
// sync-barrier-sync, MPI 3.1 section 13.6.1), end_indep_data or close -- a bare
// MPI_Barrier between an independent write and another rank's read is not
// enough under MPI-IO's default (non-atomic) semantics, so a program cannot
// rely on it. async{indep=now} runs independent puts at the call, for programs
// that do. Every other put runs at once after the queue (its outcome is then
// the call's, as in PnetCDF): a collective call with bad arguments (it takes
// part with nothing), a record variable (numrecs is agreed and written by the
// call; inquiries must see it), a conversion (NC_ERANGE is the call's answer),
// safe mode (the ranks agree on the arguments first), a partitioned file
// (blocks load on use), an independent put of a file opened with NC_SHARE
// (PnetCDF then syncs every write: the program asked for visibility at once)
// or without threads (nothing would run it before the program's next
// collective call).
Status AsyncConnector::put(FileState& f, const DataRequest& req) {
  auto& af = state(f);
  auto at_once = [&] { return before(f, req.collective, [&] { return next()->put(below(f), req); }); };
  // (the same on every rank: safe mode, a partitioned file)
  if (safe_mode_requested() || partitioned(f)) return at_once();
  if (!req.collective) {
    if (!defer_indep_ || !af.threaded() || !swap_below_ || af.shared()) return at_once();
    std::unique_ptr<Op> op = deferred_copy(f, req);
    if (op == nullptr) return at_once();
    op->split = concurrent_;
    if (!af.enqueue(std::move(op))) return at_once();
    return Status::ok();
  }
  std::unique_ptr<Op> op = deferred_copy(f, req);
  if (!af.threaded()) return put_inline(f, req, std::move(op));
  if (op == nullptr || !af.enqueue(std::move(op))) return at_once();
  return Status::ok();
}

// Without a thread a queued collective put runs inside a later collective
// call, so whether this put is queued, and whether the queue runs first (no
// room), must be the same on every rank: one allreduce decides (the ranks'
// arguments, buffers and bounds may differ). 0: every rank queues it; 1:
// some rank has no room: every rank runs its queue, then queues it; 2: some
// rank cannot queue it: every rank runs its queue and the put.
Status AsyncConnector::put_inline(FileState& f, const DataRequest& req, std::unique_ptr<Op> op) {
  auto& af = state(f);
  int need = op == nullptr ? 2 : af.fits(op->bytes) ? 0 : 1;
  if (af.agreement_comm() == MPI_COMM_NULL) need = 2;  // (the same on every rank: the dup failed)
  else
    EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_INT, MPI_MAX, af.agreement_comm()),
                                     io::MpiOp::kOther, "async: MPI_Allreduce at a collective put"));
  if (need > 0) af.drain();
  if (need < 2 && af.enqueue(std::move(op))) return Status::ok();
  return next()->put(below(f), req);
}

// The queued copy of a put, or null when it runs at once: with bad
// arguments (it takes part with nothing), of a record variable (numrecs is
// agreed and written by the call; inquiries must see it), with a conversion
// (NC_ERANGE is the call's answer), from memory that is not one contiguous
// run, or bigger than the bound (said once with EXACDF_VERBOSE=1).
std::unique_ptr<Op> AsyncConnector::deferred_copy(FileState& f, const DataRequest& req) {
  if (req.args_error != NC_NOERR) return nullptr;
  const model::Dataset& ds = next()->dataset(below(f));
  CheckedAccess access;
  Status checked = check_data_args(ds, next()->modes(below(f)), req, true, true, &access);
  if (!checked.is_ok()) {
    checked.set_aside("the call below answers it");
    return nullptr;
  }
  if (access.geo.record || access.memtype != ds.var(req.varid).type) return nullptr;
  bool copyable = false;
  std::unique_ptr<Op> op = copy_of(f, req, access, &copyable);
  if (copyable && op->bytes <= mem_cap_) return op;
  static std::once_flag said;
  std::call_once(said, [] {
    if (verbose())
      std::fprintf(stderr, "exacdf async: a put with a non-contiguous buffer, or bigger than mem=, runs at once\n");
  });
  return nullptr;
}

// Kept (deferred): an iput that passed its checks, in data mode, of a
// fixed-size variable, with no conversion, from contiguous memory -- copied
// into the connector's buffer and posted below later under the id it gets
// now (reserve_request_id), so the ids are the ones native would give.
// Everything else drains the queue and posts at once.
Status AsyncConnector::post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) {
  auto& af = state(f);
  // A post is independent (only a blocking varn is made of posts, by every rank).
  auto at_once = [&] {
    return before(f, req.blocking && req.collective, [&] { return next()->post(below(f), req, kind, reqid); });
  };
  if (kind != PostKind::kIput || req.varn || req.blocking || !af.threaded() || af.agreement_comm() == MPI_COMM_NULL ||
      safe_mode_requested() || partitioned(f))
    return at_once();
  const CallModes modes = next()->modes(below(f));
  if (modes.define_mode) return at_once();
  const model::Dataset& ds = next()->dataset(below(f));
  CheckedAccess access;
  Status checked = check_data_args(ds, modes, req, true, false, &access);
  if (!checked.is_ok()) {
    checked.set_aside("the post below answers it, in PnetCDF's order");
    return at_once();
  }
  if (access.geo.record || access.memtype != ds.var(req.varid).type) return at_once();
  bool copyable = false;
  std::unique_ptr<Op> op = copy_of(f, req, access, &copyable);
  if (!copyable || op->bytes > mem_cap_) return at_once();
  const int id = next()->reserve_request_id(below(f));
  if (id < 0) return at_once();
  op->kind = OpKind::kPost;
  op->reqid = id;
  op->swap = false;  // (native's post converts as usual)
  op->collective = false;  // a post is independent
  if (req.call == nullptr) op->call = "ncmpi_iput";
  const Region region = op->region;
  if (!af.enqueue(std::move(op))) return {NC_EINTERNAL, "async: a kept iput did not fit its bound"};
  af.kept()[id] = region;
  if (reqid) *reqid = id;
  return Status::ok();
}

// Whether this rank's wait_all names only requests the connector keeps
// (each once; NC_REQ_NULL entries are skipped, as below).
bool AsyncConnector::may_keep_wait(AsyncFile& af, int num, const int* reqids) {
  if (num < 0 || (num > 0 && reqids == nullptr)) return false;
  std::set<int> named;
  for (int i = 0; i < num; ++i) {
    if (reqids[i] == NC_REQ_NULL) continue;
    if (!af.kept().count(reqids[i]) || !named.insert(reqids[i]).second) return false;
  }
  return true;
}

// One allreduce on the connector's own communicator: whether every rank may
// defer its wait_all (then no rank named an unknown id, and every rank's
// collective wait below runs from the queue, in program order).
Status AsyncConnector::agree_to_defer(FileState& f, bool mine, bool* all) {
  MPI_Comm comm = state(f).agreement_comm();
  int flag = mine ? 1 : 0;
  EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MIN, comm),
                                   io::MpiOp::kOther, "async: MPI_Allreduce at wait_all"));
  *all = flag != 0;
  return Status::ok();
}

template <typename Fn>
Status AsyncConnector::forwarded_requests(FileState& f, int num, int* reqids, int* statuses, Fn&& below_call) {
  auto& af = state(f);
  const std::map<int, int> lost = af.lost();
  if (num < 0 || reqids == nullptr) {
    Status st = below_call(reqids, statuses);
    if (num == NC_REQ_ALL || num == NC_PUT_REQ_ALL) {  // every kept request is a put
      af.kept().clear();
      af.forget_all_lost();
    }
    return st;
  }
  std::vector<int> ids(reqids, reqids + num);
  for (int& id : ids)
    if (lost.count(id)) id = NC_REQ_NULL;  // answered here
  Status st = below_call(ids.data(), statuses);
  for (int i = 0; i < num; ++i) {
    auto gone = lost.find(reqids[i]);
    if (gone != lost.end()) {
      if (statuses) statuses[i] = gone->second;
      af.forget_lost(reqids[i]);
      af.kept().erase(reqids[i]);
      reqids[i] = NC_REQ_NULL;
    } else if (ids[i] == NC_REQ_NULL && reqids[i] != NC_REQ_NULL) {  // completed below
      af.kept().erase(reqids[i]);
      reqids[i] = NC_REQ_NULL;
    }
  }
  return st;
}

// wait_all on requests the connector keeps, agreed by every rank, is itself
// kept: queued after their posts, it returns at once (every status
// NC_NOERR, every id NC_REQ_NULL, the buffers free, as PnetCDF's wait_all
// leaves them); a failure is recorded and returned by the next completing
// call, like a deferred put's. Any other wait drains the queue and runs.
Status AsyncConnector::wait(FileState& f, int num, int* reqids, int* statuses, bool collective) {
  auto& af = state(f);
  const CallModes modes = next()->modes(below(f));
  if (collective && af.threaded() && af.agreement_comm() != MPI_COMM_NULL && !modes.define_mode && !modes.indep_mode && !safe_mode_requested() &&
      !partitioned(f)) {
    bool all = false;
    EXA_RETURN_IF_ERROR(agree_to_defer(f, may_keep_wait(af, num, reqids), &all));
    if (all) {
      auto op = std::make_unique<Op>();
      op->kind = OpKind::kWait;
      op->collective = true;
      op->call = "ncmpi_wait_all";
      op->time = MPI_Wtime();
      for (int i = 0; i < num; ++i) {
        if (statuses) statuses[i] = NC_NOERR;
        if (reqids[i] == NC_REQ_NULL) continue;
        op->wait_ids.push_back(reqids[i]);
        op->wait_regions.push_back(af.kept()[reqids[i]]);
        af.kept().erase(reqids[i]);
        reqids[i] = NC_REQ_NULL;
      }
      if (!af.enqueue(std::move(op))) return {NC_EINTERNAL, "async: a kept wait did not fit its bound"};
      return af.take_unreported();
    }
  }
  return completing(f, collective, [&] {
    return forwarded_requests(f, num, reqids, statuses, [&](int* ids, int* sts) {
      return next()->wait(below(f), num, ids, sts, collective);
    });
  });
}

Status AsyncConnector::extension(FileState& f, const char* name, void* args) {
  auto& af = state(f);
  if (std::strcmp(name, "async_wait") == 0) {
    auto* a = static_cast<AsyncWaitArgs*>(args);
    // Local: without a thread the queued (collective) work waits for the
    // file's next collective call.
    a->pending = af.threaded() ? af.drain_for(a->timeout_s) : af.pending();
    return af.take_unreported();
  }
  if (std::strcmp(name, "async_error") == 0) {
    auto* a = static_cast<AsyncErrorArgs*>(args);
    return af.error_at(a->index, a->info);
  }
  if (std::strcmp(name, "async_concurrency") == 0) {
    auto* a = static_cast<AsyncConcurrencyArgs*>(args);
    a->file_now = af.active();
    a->file_max = af.max_active();
    a->process_max = Pool::get().max_active();
    return Status::ok();
  }
  if (std::strcmp(name, "async_peak") == 0) {
    *static_cast<size_t*>(args) = af.peak();
    return Status::ok();
  }
  // The query engine's index blocks (layer/index_blocks.hpp) use the file
  // below: not while the background thread does.
  if (std::strcmp(name, "index_blocks") == 0) af.drain();
  // Deferred puts (the query engine's per-chunk min/max): the queue runs
  // (collective, as the caller is), and an error of one not yet reported
  // leaves them unsettled -- it stays for the program's next call.
  if (std::strcmp(name, "puts_settled") == 0) {
    af.drain();
    if (!af.unreported_ok()) static_cast<PutsSettledArgs*>(args)->settled = false;
  }
  return next()->extension(below(f), name, args);
}

// "64m", "1g", "4096": bytes.
bool parse_bytes(const std::string& text, size_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return false;
  std::string unit(end);
  unsigned long long scale = 1;
  if (unit == "k" || unit == "K") scale = 1ULL << 10;
  else if (unit == "m" || unit == "M") scale = 1ULL << 20;
  else if (unit == "g" || unit == "G") scale = 1ULL << 30;
  else if (!unit.empty()) return false;
  if (v == 0) return false;
  *out = static_cast<size_t>(v * scale);
  return true;
}

size_t default_mem_cap() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t eighth = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 8 : 0;
  return std::clamp<size_t>(eighth, size_t{64} << 20, size_t{1} << 30);
}

}  // namespace

Status make_async_connector(Connector* below, const ConnectorSettings& settings,
                            std::unique_ptr<Connector>* out) {
  size_t mem = default_mem_cap();
  int threads = 2;
  bool batch = true;
  bool concurrent = true, defer_indep = true;  // (indep=defer: see AsyncConnector::put)
  for (const auto& [key, value] : settings) {
    if (key == "mem") {
      if (!parse_bytes(value, &mem))
        return {NC_EINVAL, "async: mem= takes a byte count (with k, m or g), got '" + value + "'"};
    } else if (key == "threads") {
      char* end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > 64)
        return {NC_EINVAL, "async: threads= takes a number from 1 to 64, got '" + value + "'"};
      threads = static_cast<int>(n);
    } else if (key == "sched") {
      if (value != "batch" && value != "normal")
        return {NC_EINVAL, "async: sched= takes batch or normal, got '" + value + "'"};
      batch = value == "batch";
    } else if (key == "concurrent") {
      if (value != "on" && value != "off")
        return {NC_EINVAL, "async: concurrent= takes on or off, got '" + value + "'"};
      concurrent = value == "on";
    } else if (key == "indep") {
      if (value != "defer" && value != "now")
        return {NC_EINVAL, "async: indep= takes defer or now, got '" + value + "'"};
      defer_indep = value == "defer";
    } else {
      return {NC_EINVAL, "async: unknown setting '" + key + "' (known: mem, threads, sched, indep, concurrent)"};
    }
  }
  *out = std::make_unique<AsyncConnector>(below, mem, threads, batch, defer_indep, concurrent);
  return Status::ok();
}

}  // namespace exa::layer
