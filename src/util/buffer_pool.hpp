// Byte buffers kept for reuse, up to a limit of bytes. A step of nonblocking
// puts allocates the same buffers again and again; glibc gives the memory of
// a large freed buffer back to the kernel, so each step's buffers were new
// pages, every one faulted in (docs/perf/e3sm_io.md). Not thread-safe: one
// per open file, used by the calls of that file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

#include "util/byte_buffer.hpp"

namespace exa {

class BufferPool {
 public:
  explicit BufferPool(int64_t limit) : limit_(limit) {}

  // A buffer of `bytes` (contents undefined): a kept one if one is large
  // enough and not more than twice as large, else a new one.
  ByteBuffer take(size_t bytes) {
    ByteBuffer b;
    auto it = kept_.lower_bound(bytes);
    if (bytes > 0 && it != kept_.end() && it->first / 2 <= bytes) {
      b = std::move(it->second);
      held_ -= static_cast<int64_t>(it->first);
      kept_.erase(it);
    }
    b.resize(bytes);
    return b;
  }

  // Keeps `b` for a later take while the pool holds at most its limit.
  void give(ByteBuffer b) {
    const size_t capacity = b.capacity();
    if (capacity == 0 || held_ + static_cast<int64_t>(capacity) > limit_) return;
    held_ += static_cast<int64_t>(capacity);
    kept_.emplace(capacity, std::move(b));
  }

  int64_t held() const { return held_; }

 private:
  int64_t limit_;
  int64_t held_ = 0;
  std::multimap<size_t, ByteBuffer> kept_;  // by capacity
};

}  // namespace exa
