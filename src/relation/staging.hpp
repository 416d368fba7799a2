// Memory for the rows a checkpoint stages until its commit (and rank 0's
// gathered copy under O1). A checkpoint holds all its relations at once, so
// within one checkpoint the allocator cannot hand back the pages of the
// relation written just before (as it does for a writer that frees each
// relation's rows after its write), and fresh memory is dear on this machine's
// VM: a 20 MB buffer took 54 ms to fill at 4 KiB pages, 3 ms in 2 MiB pages,
// 2.3 ms reused (docs/perf/checkpoint.md, "Staging in huge pages"). So buffers
// of 2 MiB and more are 2 MiB-aligned, rounded up to whole 2 MiB (less than
// 2 MiB more per relation) and advised MADV_HUGEPAGE (a hint: where
// transparent huge pages are off or none is free it changes nothing). With the
// staging pool on (EXACDF_STAGING_POOL=1; off by default since 2026-11-25: it
// saved nothing measurable with huge pages free and was slower at fe_ocean,
// 1 rank, docs/perf/checkpoint.md) released buffers are kept for the
// process's next checkpoints (up to kStagingPoolBytes, pure/staging_pool.hpp),
// which then reuse touched memory whether or not huge pages were to be had.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace exa::relation {

// pooled: the buffer's capacity in bytes when it came from (and goes back to)
// the staging pool; 0 for a malloc'd buffer, which is freed.
struct FreeRows {
  size_t pooled = 0;
  void operator()(uint64_t* p) const noexcept;
};
using StagedRows = std::unique_ptr<uint64_t[], FreeRows>;

// Room for `values` uint64 values (never null for 0); nullptr when out of memory.
StagedRows allocate_rows(size_t values);

// Whether EXACDF_STAGING_POOL's value (nullptr: unset) turns the pool on: only "1".
bool staging_pool_from_env(const char* value);
// Whether buffers allocated now go back to the pool when released.
bool staging_pool_on();
// Turns the staging pool on or off for the buffers allocated from now on
// (tests, benchmarks; otherwise EXACDF_STAGING_POOL=1 turns it on, read once).
// Turning it off keeps the buffers already kept: trim_staging_pool frees them.
void set_staging_pool(bool on);
// The bytes of released staging buffers kept for reuse, and how many (tests).
size_t staging_pool_bytes();
size_t staging_pool_buffers();
// Frees the kept buffers (tests; nothing needs it otherwise).
void trim_staging_pool();

}  // namespace exa::relation
