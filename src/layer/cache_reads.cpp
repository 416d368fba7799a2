#include "layer/cache_reads.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace exa::layer {

PrefetchChunk::~PrefetchChunk() {
  if (data) ::munmap(data, static_cast<size_t>(bytes));
}

namespace {

// The most chunks predicted ahead of one read (small chunks, a large lookahead).
constexpr int64_t kMostAhead = 64;

// An unlinked file of the tier directory: nothing is left behind by a crash.
int tier_file(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = dir + "/prefetch.XXXXXX";
  fd = ::mkstemp(name.data());
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

// Whether the edges leave less than half of the predicted read (its ghost
// zone aside) along some dimension.
bool mostly_clipped(const prefetch::Box& predicted, const prefetch::Box& clipped) {
  for (size_t d = 0; d < predicted.count.size(); ++d)
    if (clipped.count[d] * 2 < predicted.count[d]) return true;
  return false;
}

}  // namespace

Status make_chunk(const std::string& dir, int64_t bytes, std::shared_ptr<PrefetchChunk>* out) {
  const int fd = tier_file(dir);
  if (fd < 0) return {NC_EFILE, "cannot make a prefetch file in " + dir + ": " + std::strerror(errno)};
  // Reserved, so that a full tier is an error here and not a fault on the
  // mapping; mapped populated (one call instead of a fault per page: 1,160
  // for a 4.75 MB slice).
  const int reserved = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  constexpr int kFlags = MAP_SHARED | MAP_POPULATE;
  void* p = reserved == 0 ? ::mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE, kFlags, fd, 0)
                          : MAP_FAILED;
  ::close(fd);
  if (reserved != 0) return {NC_EFILE, "no room for a prefetched chunk in " + dir + ": " + std::strerror(reserved)};
  if (p == MAP_FAILED) return {NC_EFILE, "cannot map a prefetched chunk: " + std::string(std::strerror(errno))};
  auto chunk = std::make_shared<PrefetchChunk>();
  chunk->data = static_cast<uint8_t*>(p);
  chunk->bytes = bytes;
  *out = std::move(chunk);
  return Status::ok();
}

std::shared_ptr<PrefetchChunk> ReadCache::find_locked(int varid, const prefetch::Box& want) const {
  for (auto it = chunks_.rbegin(); it != chunks_.rend(); ++it)
    if ((*it)->varid == varid && prefetch::covers((*it)->box, want)) return *it;
  return nullptr;
}

bool ReadCache::scheduled_locked(int varid, const prefetch::Box& want) const {
  for (const PrefetchJob& j : jobs_)
    if (j.epoch == epoch_ && j.varid == varid && prefetch::covers(j.box, want)) return true;
  return false;
}

PrefetchJob* ReadCache::scheduled_job_locked(int varid, const prefetch::Box& want) {
  for (PrefetchJob& j : jobs_)
    if (j.epoch == epoch_ && j.varid == varid && prefetch::covers(j.box, want)) return &j;
  return nullptr;
}

PrefetchJob* ReadCache::first_locked() {
  PrefetchJob* best = nullptr;
  for (PrefetchJob& j : jobs_)
    if (!j.running && (!best || j.due < best->due || (j.due == best->due && j.seq < best->seq))) best = &j;
  return best;
}

std::shared_ptr<PrefetchChunk> ReadCache::find(int varid, const prefetch::Box& want) {
  std::lock_guard<std::mutex> lock(mu_);
  return find_locked(varid, want);
}

std::shared_ptr<PrefetchChunk> ReadCache::await(int varid, const prefetch::Box& want) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    std::shared_ptr<PrefetchChunk> hit = find_locked(varid, want);
    if (hit || stopped_) return hit;
    PrefetchJob* job = scheduled_job_locked(varid, want);
    if (!job) return hit;
    if (!job->running) job->due = INT64_MIN;  // the program waits for it: next
    changed_.wait(lock);
  }
}

int ReadCache::note_and_schedule(int varid, nc_type type, int64_t elem, const prefetch::Box& read,
                                 const std::vector<int64_t>& dims) {
  std::lock_guard<std::mutex> lock(mu_);
  // The history is of the reads' chunks (less their ghost zone): regular
  // where the reads are clipped at the edges, so strides and wraps are exact;
  // a fetch holds the predicted chunk with its ghost zone.
  const std::vector<int64_t> ghost = prefetch::ghost_for(ghost_, dims.size());
  const prefetch::Box core = prefetch::core_of(read, ghost, dims);
  prefetch::History& h = history_[varid];
  h.note(core);
  int scheduled = 0;
  // How many ahead: depth, or as many as the lookahead holds (a few chunks
  // of a big read, many of a small one), within half the budget.
  int ahead = depth_;
  if (lookahead_ > 0) {
    const int64_t each = std::max<int64_t>(prefetch::grown(core, ghost, dims).elements() * elem, 1);
    const int64_t room = std::min(lookahead_, budget_ / 2);
    ahead = static_cast<int>(std::max<int64_t>(depth_, std::min<int64_t>(room / each, kMostAhead)));
  }
  // A loop over the variable's chunk grid goes on across its rows and
  // planes; else a stride once two equal steps show it; before that, a guess
  // from the first chunk or two (the chunk's shape along the variable's).
  std::vector<prefetch::Box> predicted = prefetch::grid_predict(h.last(), dims, ahead);
  if (predicted.empty()) predicted = h.has_stride() ? h.predict(ahead) : prefetch::guess(h.last(), {}, dims, ahead);
  // The k-th predicted chunk is for this variable's (n + k)-th read.
  const int64_t n = ++reads_[varid];
  int64_t k = 0;
  std::vector<prefetch::Box> wanted;
  for (const prefetch::Box& next : predicted) {
    ++k;
    prefetch::Box box = prefetch::grown(next, ghost, dims);
    if (box.empty() || box.elements() * elem * 2 > budget_) continue;  // past the edge, or too big to keep two
    if (mostly_clipped(next, box)) continue;  // the loop ends at that edge: a sliver is no chunk
    wanted.push_back(box);
    if (find_locked(varid, box)) continue;  // held already
    if (PrefetchJob* j = scheduled_job_locked(varid, box)) {  // scheduled: maybe needed sooner now
      j->due = std::min(j->due, n + k);
      continue;
    }
    PrefetchJob job;
    job.epoch = epoch_;
    job.varid = varid;
    job.type = type;
    job.box = std::move(box);
    job.bytes = job.box.elements() * elem;
    job.due = n + k;
    job.seq = seq_++;
    trace_locked('S', varid, job.box, static_cast<double>(job.due));
    jobs_.push_back(std::move(job));
    ++scheduled;
  }
  // Fetches of this variable no longer predicted -- a guess the reads did
  // not follow (the next chunk is another rank's) -- are not made, once two
  // reads show the loop's step.
  if (h.last().size() >= 2)
    std::erase_if(jobs_, [&](const PrefetchJob& j) {
      return j.varid == varid && !j.running && j.epoch == epoch_ &&
             std::none_of(wanted.begin(), wanted.end(), [&](const prefetch::Box& b) { return b == j.box; });
    });
  if (scheduled > 0) changed_.notify_all();
  return scheduled;
}

void ReadCache::invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  ++epoch_;
  chunks_.clear();
  held_ = 0;
  std::erase_if(jobs_, [](const PrefetchJob& j) { return !j.running; });
  changed_.notify_all();
}

void ReadCache::invalidate(int varid, const prefetch::Box* region) {
  std::lock_guard<std::mutex> lock(mu_);
  auto reached = [&](int v, const prefetch::Box& b) {
    return v == varid && (!region || prefetch::overlaps(b, *region));
  };
  for (auto it = chunks_.begin(); it != chunks_.end();) {
    if (reached((*it)->varid, (*it)->box)) {
      held_ -= (*it)->bytes;
      it = chunks_.erase(it);
    } else {
      ++it;
    }
  }
  for (PrefetchJob& j : jobs_)
    if (j.running && reached(j.varid, j.box)) j.stale = true;
  std::erase_if(jobs_, [&](const PrefetchJob& j) { return !j.running && reached(j.varid, j.box); });
  changed_.notify_all();
}

std::vector<PrefetchJob> ReadCache::advise_next(int64_t window) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PrefetchJob*> order;
  int64_t asked = 0;  // asked for, not fetched yet
  for (PrefetchJob& j : jobs_)
    if (j.epoch == epoch_) {
      if (j.advised) asked += j.bytes;
      else order.push_back(&j);
    }
  std::sort(order.begin(), order.end(), [](const PrefetchJob* a, const PrefetchJob* b) {
    return a->due != b->due ? a->due < b->due : a->seq < b->seq;
  });
  std::vector<PrefetchJob> out;
  for (PrefetchJob* j : order) {
    if (asked > 0 && asked + j->bytes > window) break;
    j->advised = true;
    asked += j->bytes;
    out.push_back(*j);
  }
  return out;
}

bool ReadCache::next_job(PrefetchJob* out) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (stopped_) return false;
    if (PrefetchJob* j = first_locked()) {
      j->running = true;
      *out = *j;
      trace_locked('F', j->varid, j->box, 0);
      return true;
    }
    changed_.wait(lock);
  }
}

bool ReadCache::take_job(PrefetchJob* out) {
  std::lock_guard<std::mutex> lock(mu_);
  PrefetchJob* j = first_locked();
  if (!j) return false;
  j->running = true;
  *out = *j;
  trace_locked('F', j->varid, j->box, 0);
  return true;
}

void ReadCache::finish(const PrefetchJob& job, std::shared_ptr<PrefetchChunk> chunk) {
  std::lock_guard<std::mutex> lock(mu_);
  bool stale = false;
  for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
    if (it->running) {  // one job runs at a time
      stale = it->stale;
      jobs_.erase(it);
      break;
    }
  const bool current = job.epoch == epoch_ && !stale;
  trace_locked('E', job.varid, job.box, chunk && current ? 1 : 0);
  if (chunk && !current) counters_.dropped++;
  if (chunk && current) {
    counters_.fetched++;
    counters_.fetched_bytes += chunk->bytes;
    while (!chunks_.empty() && held_ + chunk->bytes > budget_) {
      held_ -= chunks_.front()->bytes;
      chunks_.pop_front();
    }
    held_ += chunk->bytes;
    chunks_.push_back(std::move(chunk));
  }
  changed_.notify_all();
}

void ReadCache::count_read(bool served) {
  std::lock_guard<std::mutex> lock(mu_);
  (served ? counters_.served : counters_.direct)++;
}

ReadCounters ReadCache::counters() {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

void ReadCache::enable_trace() {
  std::lock_guard<std::mutex> lock(mu_);
  tracing_ = true;
}

void ReadCache::trace_locked(char kind, int varid, const prefetch::Box& box, double value) {
  if (!tracing_) return;
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  events_.push_back(ReadEvent{t, kind, varid, box.start, value});
}

void ReadCache::trace(char kind, int varid, const prefetch::Box& box, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  trace_locked(kind, varid, box, value);
}

std::vector<ReadEvent> ReadCache::take_trace() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(events_);
}

void ReadCache::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  changed_.notify_all();
}

}  // namespace exa::layer
