// The cache connector's prefetched chunks of one open file: boxes of
// variables copied into the fast tier (a file of the tier's directory each,
// mapped), the fetches still to make, the access history per variable, and
// the epoch that every write ends (a fetch started before a write is thrown
// away). Thread-safe: the program's thread serves reads and schedules
// fetches, the fetcher thread makes them. The reads below are the
// connector's (cache_connector.cpp).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exacdf_nc_constants.h"
#include "layer/cache_prefetch.hpp"
#include "util/status.hpp"

namespace exa::layer {

// One box of one variable in the tier: the variable's values in its own
// type, native byte order, row-major.
struct PrefetchChunk {
  PrefetchChunk() = default;
  PrefetchChunk(const PrefetchChunk&) = delete;
  PrefetchChunk& operator=(const PrefetchChunk&) = delete;
  ~PrefetchChunk();
  int varid = 0;
  nc_type type = NC_NAT;
  prefetch::Box box;
  uint8_t* data = nullptr;  // mapped
  int64_t bytes = 0;
};

// Makes a chunk of `bytes` bytes in the tier directory (an unlinked file,
// its space reserved so that writing the mapping cannot fault).
Status make_chunk(const std::string& dir, int64_t bytes, std::shared_ptr<PrefetchChunk>* out);

struct PrefetchJob {
  uint64_t epoch = 0;
  int varid = 0;
  nc_type type = NC_NAT;
  prefetch::Box box;
  int64_t bytes = 0;  // the chunk's, in the variable's type
  // When the program will read it: the read of its variable it is predicted
  // for (that variable's n-th read), so that the chunks of variables read in
  // turn (u and v of each step) are fetched in turn; the lowest first, then
  // the oldest (seq). A read that waits for it moves it to the front.
  int64_t due = 0;
  uint64_t seq = 0;
  bool running = false;
  bool advised = false;  // its file extents were asked of the target (advise_next)
  bool stale = false;    // a write reached its box while it ran: thrown away at its end
};

// One event of prefetch's timeline (EXACDF_CACHE_READ_TRACE): when a fetch
// was scheduled ('S'), taken by the fetcher ('F'), ended ('E', value 1 kept,
// 0 not), when a read came ('R'), when its wait for a fetch ended ('W',
// value: seconds waited) and when it was answered ('D', value 1 served, 0
// direct). t: CLOCK_MONOTONIC seconds (one clock for every rank of a node).
struct ReadEvent {
  double t = 0;
  char kind = 0;
  int varid = 0;
  std::vector<int64_t> start;
  double value = 0;
};

// What prefetch did (exa_cache_read_stats).
struct ReadCounters {
  int64_t served = 0, direct = 0, fetched = 0, fetched_bytes = 0, dropped = 0;
};

class ReadCache {
 public:
  // depth: chunks predicted per read at least; lookahead: bytes of chunks
  // predicted ahead at most beyond that (0: depth only), while the budget
  // (bytes of chunks kept) has room for them.
  ReadCache(int depth, std::vector<int64_t> ghost, int64_t budget, int64_t lookahead = 0)
      : depth_(depth), ghost_(std::move(ghost)), budget_(budget), lookahead_(lookahead) {}

  int depth() const { return depth_; }
  const std::vector<int64_t>& ghost() const { return ghost_; }

  // A chunk holding the box, or null.
  std::shared_ptr<PrefetchChunk> find(int varid, const prefetch::Box& want);
  // Waits while a fetch scheduled (or running) would bring the box; then find().
  std::shared_ptr<PrefetchChunk> await(int varid, const prefetch::Box& want);
  // Notes a read of varid and schedules the boxes its history predicts
  // (grown by the ghost zone, clipped to dims) that no chunk or fetch holds.
  // Returns how many were scheduled.
  int note_and_schedule(int varid, nc_type type, int64_t elem, const prefetch::Box& read,
                        const std::vector<int64_t>& dims);
  // Every chunk and scheduled fetch is dropped; fetches running now are
  // thrown away when they end (a point where other ranks' writes become
  // visible, or a write whose region is not known).
  void invalidate();
  // The same for the chunks and fetches of varid that share an element with
  // `region` (null: the whole variable): a write of that region.
  void invalidate(int varid, const prefetch::Box* region);

  // The scheduled fetches whose file extents were not asked for yet, in the
  // order they will be fetched (marked asked), while the asked ones not yet
  // fetched stay within `window` bytes (at least one is returned): the
  // fetcher asks for them before it reads the next, so the target reads
  // ahead in large requests, and a read of the program's own is queued
  // behind no more than that.
  std::vector<PrefetchJob> advise_next(int64_t window);

  // The fetcher: the next job to run (marked running), false when stopped.
  bool next_job(PrefetchJob* out);
  // The next scheduled job without waiting (inline fetching), false if none.
  bool take_job(PrefetchJob* out);
  // A job ended; chunk null when nothing was fetched. Kept if no write came since.
  void finish(const PrefetchJob& job, std::shared_ptr<PrefetchChunk> chunk);
  void stop();

  void count_read(bool served);
  ReadCounters counters();

  // The timeline, kept only once enabled.
  void enable_trace();
  void trace(char kind, int varid, const prefetch::Box& box, double value = 0);
  std::vector<ReadEvent> take_trace();

 private:
  std::shared_ptr<PrefetchChunk> find_locked(int varid, const prefetch::Box& want) const;
  PrefetchJob* scheduled_job_locked(int varid, const prefetch::Box& want);
  // The next job to fetch (not running; lowest due, then oldest), or null.
  PrefetchJob* first_locked();
  void trace_locked(char kind, int varid, const prefetch::Box& box, double value);
  bool scheduled_locked(int varid, const prefetch::Box& want) const;

  const int depth_;
  const std::vector<int64_t> ghost_;
  const int64_t budget_;  // bytes of chunks kept (oldest dropped first)
  const int64_t lookahead_;
  std::mutex mu_;
  std::condition_variable changed_;
  uint64_t epoch_ = 0;
  bool stopped_ = false;
  std::map<int, prefetch::History> history_;
  std::map<int, int64_t> reads_;  // reads of each variable so far
  uint64_t seq_ = 0;
  std::deque<std::shared_ptr<PrefetchChunk>> chunks_;  // oldest first
  int64_t held_ = 0;
  std::deque<PrefetchJob> jobs_;
  ReadCounters counters_;
  bool tracing_ = false;
  std::vector<ReadEvent> events_;
};

}  // namespace exa::layer
