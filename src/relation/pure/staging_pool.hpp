// The free list behind the checkpoint staging buffers (staging.cpp): buffers a
// checkpoint released, kept for the next checkpoint of the process instead of
// going back to the kernel. Every staged byte of a checkpoint is written into
// memory the process has not touched yet unless it reuses such a buffer, and on
// this machine's VM the first touch is the cost: 14 MiB took 16-31 ms to fill in
// 4 KiB pages (3,585 faults) and 1.4-1.6 ms in 2 MiB pages, and whether 2 MiB
// pages are to be had depends on the machine's memory, not on exacdf
// (docs/perf/checkpoint.md, "What costs exacdf 20 ms at vsp_finan, 2 ranks").
// A reused buffer costs neither. Used only with EXACDF_STAGING_POOL=1 (off by
// default since 2026-11-25: with 2 MiB pages free it saved nothing measurable
// and cost CPU at fe_ocean, 1 rank; staging.cpp). Pure bookkeeping (no allocation) so it is unit
// tested; staging.cpp allocates, frees and locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace exa::relation {

// At most this many bytes of released buffers are kept per process (the
// staging of one checkpoint of a few hundred MiB per rank; larger ones go back
// to the kernel as before).
inline constexpr size_t kStagingPoolBytes = size_t{256} << 20;

class StagingPool {
 public:
  explicit StagingPool(size_t cap = kStagingPoolBytes) : cap_(cap) {}

  // The smallest kept buffer of at least `bytes` (taken out of the pool), or
  // {nullptr, 0} when none is that large.
  std::pair<void*, size_t> take(size_t bytes);
  // Keeps buffer p of capacity `bytes` for a later take; false (p not kept:
  // the caller frees it) when that would keep more than the cap.
  bool give(void* p, size_t bytes);
  // Empties the pool; the buffers it held, for the caller to free.
  std::vector<std::pair<void*, size_t>> drain();

  size_t bytes() const { return bytes_; }
  size_t buffers() const { return free_.size(); }

 private:
  size_t cap_;
  size_t bytes_ = 0;
  std::vector<std::pair<void*, size_t>> free_;
};

}  // namespace exa::relation
