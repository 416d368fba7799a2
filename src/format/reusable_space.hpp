// Space an SWMR writer of a partitioned file may write again (docs/format.md,
// "SWMR", refresh bound): extents that a commit stopped referencing become
// reusable once no reader can still be reading them. A reader keeps a view
// at most Δt (the refresh bound) before it must refresh, so an extent
// released by the commit of generation g at time t is reusable from t + 2Δt
// on (seed 001), and only by a commit of generation g + 2 or later: the
// superblock slot of g - 1, which still references it, stays on disk (the
// fallback of a torn slot of g) until generation g + 1 overwrites it.
// Pure bookkeeping, the same on every rank given the same calls.
#pragma once

#include <cstdint>
#include <vector>

namespace exa::format {

class ReusableSpace {
 public:
  // Δt in seconds; 0 (no bound agreed): nothing is ever reused.
  void set_bound(double seconds) {
    bound_ = seconds > 0 ? seconds : 0;
    enabled_ = bound_ > 0;
  }
  // No reader in another job follows the file (a writer without SWMR): an
  // extent is reusable by generation rule alone (time plays no part).
  void set_generations_only() {
    bound_ = 0;
    enabled_ = true;
  }
  bool enabled() const { return enabled_; }

  // [offset, offset + size) is no longer referenced by generation `gen`,
  // committed at `now` (seconds, any fixed origin). Adjacent released
  // extents merge (the later generation and time of the two).
  void release(int64_t offset, int64_t size, uint64_t gen, double now);

  // The offset of `size` contiguous bytes that a commit of generation `gen`
  // at time `now` may write (the start of the smallest reusable extent that
  // holds them), removed from the list; -1 when there is none (or reuse is off).
  int64_t take(int64_t size, uint64_t gen, double now);

  // Bytes released and not taken back (reusable or not yet).
  int64_t bytes() const;

 private:
  struct Extent {
    int64_t offset = 0, size = 0;
    uint64_t gen = 0;  // the commit that released it
    double time = 0;   // when
  };
  bool reusable(const Extent& e, uint64_t gen, double now) const {
    return gen >= e.gen + 2 && (bound_ == 0 || now - e.time >= 2 * bound_);  // (no bound: generations only)
  }
  double bound_ = 0;
  bool enabled_ = false;
  std::vector<Extent> extents_;  // by offset, disjoint, none adjacent
};

}  // namespace exa::format
