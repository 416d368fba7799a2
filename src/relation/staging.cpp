#include "relation/staging.hpp"

#include <sys/mman.h>

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

// EXACDF_STAGING_POOL=0: every buffer back to the kernel at once, as before
// the pool (for paired runs against it).
bool pool_on() {
  static const bool on = [] {
    const char* env = std::getenv("EXACDF_STAGING_POOL");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return on;
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
  {
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
  return StagedRows(static_cast<uint64_t*>(p), FreeRows{rounded});
}

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
