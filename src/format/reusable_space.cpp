#include "format/reusable_space.hpp"

#include <algorithm>

namespace exa::format {

void ReusableSpace::release(int64_t offset, int64_t size, uint64_t gen, double now) {
  if (!enabled() || size <= 0) return;
  auto at = std::lower_bound(extents_.begin(), extents_.end(), offset,
                             [](const Extent& e, int64_t off) { return e.offset < off; });
  at = extents_.insert(at, {offset, size, gen, now});
  // Merge with the next, then with the previous (never overlapping: an
  // extent is released once, by the commit that stopped referencing it).
  auto merge = [](Extent& a, const Extent& b) {
    a.size = b.offset + b.size - a.offset;
    a.gen = std::max(a.gen, b.gen);
    a.time = std::max(a.time, b.time);
  };
  if (auto next = at + 1; next != extents_.end() && at->offset + at->size == next->offset) {
    merge(*at, *next);
    extents_.erase(next);
  }
  if (at != extents_.begin()) {
    auto prev = at - 1;
    if (prev->offset + prev->size == at->offset) {
      merge(*prev, *at);
      extents_.erase(at);
    }
  }
}

int64_t ReusableSpace::take(int64_t size, uint64_t gen, double now) {
  if (!enabled() || size <= 0) return -1;
  // Best fit (the smallest reusable extent that holds it, the lowest of
  // equals): a commit's blocks keep their sizes, so a block usually goes
  // exactly where its own version of some commits ago was, and no large
  // extent is split for a small block.
  auto best = extents_.end();
  for (auto it = extents_.begin(); it != extents_.end(); ++it)
    if (it->size >= size && reusable(*it, gen, now) && (best == extents_.end() || it->size < best->size)) best = it;
  if (best == extents_.end()) return -1;
  const int64_t offset = best->offset;
  best->offset += size;
  best->size -= size;
  if (best->size == 0) extents_.erase(best);
  return offset;
}

int64_t ReusableSpace::bytes() const {
  int64_t n = 0;
  for (const Extent& e : extents_) n += e.size;
  return n;
}

}  // namespace exa::format
