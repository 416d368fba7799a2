// The range of the values a put stores (smallest, largest, whether one is
// NaN), for the per-chunk min/max of queries (issue 20). Taken in the pass
// that converts the values to external form, block by block while a block
// is in the L1 cache, so keeping it for every put costs little
// (docs/perf/query_minmax.md). MPI-free.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "exacdf_nc_constants.h"

namespace exa::convert {

struct ValueRange {
  int64_t n = 0;        // values seen
  bool known = true;    // false: values of a type without an order (NC_CHAR) were seen
  bool any = false;     // some value is not NaN: lo and hi hold
  bool nan = false;     // some value is NaN (not in lo/hi)
  long double lo = 0, hi = 0;
  void unite(const ValueRange& o);
};

// Widens *r by the n values of type t at p, in native byte order (any
// alignment). A type without an order makes *r unknown.
void add_native_range(const void* p, nc_type t, int64_t n, ValueRange* r);
// The same for n values in external (big-endian) form.
void add_external_range(const void* p, nc_type t, int64_t n, ValueRange* r);
// Stores the n native values at src in external form at dst (dst == src:
// in place; otherwise they must not overlap) and widens *r by their range,
// in one pass: the swap's loads serve the range.
void swap_out_with_range(const void* src, void* dst, nc_type t, int64_t n, ValueRange* r);
// The same without the swap: a copy of the native values (not overlapping)
// that takes their range in its pass (a layer's own copy of a put).
void copy_with_range(const void* src, void* dst, nc_type t, int64_t n, ValueRange* r);

// The ranges of consecutive segments of one put's values, in the order the
// conversion sees them: the first `first` values, then `every` values each
// (every <= 0: one segment). A put of whole rows is segmented at the
// min/max chunks' boundaries, so each chunk gets the range of its own values.
class SegmentedRange {
 public:
  explicit SegmentedRange(int64_t first = 0, int64_t every = 0)
      : first_(every > 0 && first <= 0 ? every : first), every_(every) {}
  // Segments of any lengths: segment k ends after ends[k] values (ends
  // increasing; a varn put's subarrays, say). Values past the last end make
  // one more segment.
  static SegmentedRange with_ends(std::vector<int64_t> ends) {
    SegmentedRange r;
    r.ends_ = std::move(ends);
    return r;
  }
  // Widens the segments by the next m values at p (native or external order).
  void add_native(const void* p, nc_type t, int64_t m) { add(p, nullptr, t, m, Op::kNative); }
  void add_external(const void* p, nc_type t, int64_t m) { add(p, nullptr, t, m, Op::kExternal); }
  // Stores the next m native values at src in external form at dst (may be
  // src) and widens the segments by them, in one pass (swap_out_with_range).
  void swap_out(const void* src, void* dst, nc_type t, int64_t m) { add(src, dst, t, m, Op::kSwapOut); }
  // Copies them as they are (copy_with_range).
  void copy_out(const void* src, void* dst, nc_type t, int64_t m) { add(src, dst, t, m, Op::kCopyOut); }
  // The next m values, one piece per segment they fall in: f(offset, count,
  // segment's ValueRange*) in order (a pass of the caller's own that widens
  // the segments: the fused double-to-float conversion, say).
  template <class F>
  void each_piece(int64_t m, F f) {
    for (int64_t off = 0; m > 0;) {
      int64_t take = 0;
      ValueRange* seg = piece(m, &take);
      f(off, take, seg);
      off += take;
      m -= take;
    }
  }
  const std::vector<ValueRange>& segments() const { return segs_; }
  int64_t size() const { return seen_; }  // values seen
  int64_t first() const { return first_; }
  int64_t every() const { return every_; }

 private:
  enum class Op { kNative, kExternal, kSwapOut, kCopyOut };
  void add(const void* p, void* out, nc_type t, int64_t m, Op op);
  // The segment the next values fall in, and how many of the next m do
  // (*take); counts them as seen.
  ValueRange* piece(int64_t m, int64_t* take);
  int64_t first_, every_, seen_ = 0;
  std::vector<int64_t> ends_;  // (with_ends)
  std::vector<ValueRange> segs_;
};

// Elements per block when a conversion also takes the range: a block of
// 8-byte values (32 KiB) is still in the L1/L2 cache when its range is taken.
inline constexpr int64_t kRangeBlockElements = 4096;

}  // namespace exa::convert
