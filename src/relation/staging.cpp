#include "relation/staging.hpp"

#include <sys/mman.h>

#include <atomic>
#include <mutex>
#include <string_view>

#include "relation/pure/staging_pool.hpp"

namespace exa::relation {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kSmallPage = 4096;

// The released buffers of 2 MiB and more. Never destroyed: a checkpoint left
// open at exit frees its rows from a static destructor, maybe after this one's.
struct Pool {
  std::mutex mu;
  StagingPool pool;
};
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

// Off unless EXACDF_STAGING_POOL=1 (or set_staging_pool(true)): with 2 MiB
// pages free the pool saved nothing measurable and cost time at fe_ocean,
// 1 rank (paired, docs/perf/checkpoint.md, "The staging pool off by default",
// 2026-11-25); released buffers then go back to the allocator at once.
// -1: not yet read from the environment.
std::atomic<int>& pool_switch() {
  static std::atomic<int> on{-1};
  return on;
}
bool pool_on() {
  std::atomic<int>& sw = pool_switch();
  int on = sw.load(std::memory_order_relaxed);
  if (on < 0) {
    const int from_env = staging_pool_from_env(std::getenv("EXACDF_STAGING_POOL")) ? 1 : 0;
    sw.compare_exchange_strong(on, from_env, std::memory_order_relaxed);  // a racing set wins
    on = sw.load(std::memory_order_relaxed);
  }
  return on == 1;
}
}  // namespace

void FreeRows::operator()(uint64_t* p) const noexcept {
  if (p != nullptr && pooled > 0 && pool_on()) {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mu);
    if (pl.pool.give(p, pooled)) return;
  }
  std::free(p);
}

StagedRows allocate_rows(size_t values) {
  if (values > SIZE_MAX / sizeof(uint64_t) - kHugePage) return nullptr;
  const size_t bytes = values == 0 ? sizeof(uint64_t) : values * sizeof(uint64_t);
  if (bytes < kHugePage) return StagedRows(static_cast<uint64_t*>(std::malloc(bytes)));
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;  // aligned_alloc wants a multiple
  const bool pooled = pool_on();
  if (pooled) {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mu);
    const auto [p, capacity] = pl.pool.take(rounded);
    if (p != nullptr) return StagedRows(static_cast<uint64_t*>(p), FreeRows{capacity});
  }
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) return nullptr;
  // Hints: EINVAL where the kernel has no transparent huge pages leaves 4 KiB pages, and
  // before Linux 5.14 (no MADV_POPULATE_WRITE) the copy faults the pages in one by one.
  // Populating the pages the copy will write, in one call: filling 14 MiB of 4 KiB pages
  // took 14-28 ms so and 25-41 ms by the fill's own faults (6 runs each, load 13;
  // docs/perf/checkpoint.md); where huge pages are had it is a handful of faults either way.
  (void)::madvise(p, rounded, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
  (void)::madvise(p, (bytes + kSmallPage - 1) / kSmallPage * kSmallPage, MADV_POPULATE_WRITE);
#endif
  return StagedRows(static_cast<uint64_t*>(p), FreeRows{pooled ? rounded : 0});
}

bool staging_pool_from_env(const char* value) { return value != nullptr && std::string_view(value) == "1"; }

bool staging_pool_on() { return pool_on(); }

void set_staging_pool(bool on) { pool_switch().store(on ? 1 : 0, std::memory_order_relaxed); }

size_t staging_pool_bytes() {
  Pool& pl = pool();
  std::lock_guard<std::mutex> lock(pl.mu);
  return pl.pool.bytes();
}

size_t staging_pool_buffers() {
  Pool& pl = pool();
  std::lock_guard<std::mutex> lock(pl.mu);
  return pl.pool.buffers();
}

void trim_staging_pool() {
  Pool& pl = pool();
  std::lock_guard<std::mutex> lock(pl.mu);
  for (const auto& [p, bytes] : pl.pool.drain()) std::free(p);
}

}  // namespace exa::relation
