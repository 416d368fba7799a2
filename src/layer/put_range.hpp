// The value range of the blocking put this thread is making, taken by
// native's conversion pass (issue 20: per-chunk min/max at put time). The
// api layer opens a PutRangeScope around connector->put; native fills it
// when it converts that put's own buffer for that variable. A layer that
// copies the values (cache), defers them to another thread (async) or splits
// the put fills nothing or fills it more than once: the api layer then takes
// no range from it (PutRangeScope::range()).
#pragma once

#include "convert/value_range.hpp"

namespace exa::layer {

class PutRangeScope {
 public:
  // ranges: how the values are segmented (convert::SegmentedRange).
  PutRangeScope(int varid, const void* buf, convert::SegmentedRange ranges);
  ~PutRangeScope();
  PutRangeScope(const PutRangeScope&) = delete;
  PutRangeScope& operator=(const PutRangeScope&) = delete;
  // The values' range when exactly one conversion of the put's own buffer
  // filled it; null otherwise.
  const convert::SegmentedRange* range() const { return fills_ == 1 ? &range_ : nullptr; }

 private:
  friend convert::SegmentedRange* put_range_for(int varid, const void* buf);
  int varid_;
  const void* buf_;
  int fills_ = 0;
  convert::SegmentedRange range_;
  PutRangeScope* outer_;
};

// Connector::extension(f, "puts_settled", &args): whether every put the
// stack accepted without writing it at once (async's queue, cache's log) is
// in the file and no error of one is left unreported (a layer that defers
// puts completes them first; collective: every rank calls it). Answered by
// native (nothing deferred) and by the deferring layers on the way down;
// NC_ENOTSUPPORT from a stack with another connector: not known.
struct PutsSettledArgs {
  bool settled = true;
};

// Native's conversion of a put of varid from buf: where to take its range,
// or null (no scope open on this thread, or another variable or buffer).
convert::SegmentedRange* put_range_for(int varid, const void* buf);

}  // namespace exa::layer
