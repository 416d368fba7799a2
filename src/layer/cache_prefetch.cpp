#include "layer/cache_prefetch.hpp"

#include <algorithm>
#include <cstring>

namespace exa::layer::prefetch {

int64_t Box::elements() const {
  if (count.empty()) return 0;
  int64_t n = 1;
  for (int64_t c : count) n *= c;
  return n;
}

Box bounding_box(size_t ndims, const int64_t* start, const int64_t* count, const int64_t* stride) {
  Box b;
  for (size_t d = 0; d < ndims; ++d) {
    if (count[d] <= 0) return Box{};
    const int64_t step = stride ? stride[d] : 1;
    b.start.push_back(start[d]);
    b.count.push_back((count[d] - 1) * step + 1);
  }
  return b;
}

bool covers(const Box& outer, const Box& inner) {
  if (outer.start.size() != inner.start.size() || outer.empty() || inner.empty()) return false;
  for (size_t d = 0; d < outer.start.size(); ++d) {
    if (inner.start[d] < outer.start[d]) return false;
    if (inner.start[d] + inner.count[d] > outer.start[d] + outer.count[d]) return false;
  }
  return true;
}

Box grown(const Box& b, const std::vector<int64_t>& ghost, const std::vector<int64_t>& dims) {
  Box g;
  for (size_t d = 0; d < b.start.size(); ++d) {
    const int64_t w = d < ghost.size() ? ghost[d] : 0;
    const int64_t lo = std::max<int64_t>(b.start[d] - w, 0);
    const int64_t hi = std::min<int64_t>(b.start[d] + b.count[d] + w, dims[d]);
    if (hi <= lo) return Box{};
    g.start.push_back(lo);
    g.count.push_back(hi - lo);
  }
  return g;
}

std::vector<int64_t> ghost_for(const std::vector<int64_t>& setting, size_t ndims) {
  std::vector<int64_t> g(ndims, 0);
  if (setting.size() == 1) {
    std::fill(g.begin(), g.end(), setting[0]);
    return g;
  }
  for (size_t i = 0; i < setting.size() && i < ndims; ++i)
    g[ndims - 1 - i] = setting[setting.size() - 1 - i];
  return g;
}

namespace {

std::vector<int64_t> step(const Box& from, const Box& to) {
  std::vector<int64_t> s(from.start.size());
  for (size_t d = 0; d < s.size(); ++d) s[d] = to.start[d] - from.start[d];
  return s;
}

bool moves(const std::vector<int64_t>& s) {
  return std::any_of(s.begin(), s.end(), [](int64_t v) { return v != 0; });
}

// Whether `to` follows `from` by the step s: its start moved by s, or its end
// did (a read clipped at an edge moves its start or its end less).
bool follows(const Box& from, const Box& to, const std::vector<int64_t>& s) {
  if (s.size() != from.start.size() || s.size() != to.start.size()) return false;
  bool by_start = true, by_end = true;
  for (size_t d = 0; d < s.size(); ++d) {
    by_start = by_start && to.start[d] - from.start[d] == s[d];
    by_end = by_end && (to.start[d] + to.count[d]) - (from.start[d] + from.count[d]) == s[d];
  }
  return by_start || by_end;
}

}  // namespace

void History::note(const Box& b) {
  if (!last_.empty() && last_.back().start.size() != b.start.size()) {
    last_.clear();
    stride_.clear();
    wrap_.clear();
    run_ = since_wrap_ = 0;
  }
  if (!last_.empty() && !stride_.empty()) {
    if (follows(last_.back(), b, stride_)) {
      ++since_wrap_;
    } else {  // off the stride: the loop's wrap to its next row (or a new pattern)
      wrap_ = step(last_.back(), b);
      run_ = since_wrap_;
      since_wrap_ = 0;
    }
  }
  last_.push_back(b);
  if (last_.size() > 3) last_.pop_front();
  if (last_.size() < 3) return;
  // Two successive reads by the same step (by start or by end) establish it.
  std::vector<int64_t> by_end(b.start.size());
  for (size_t d = 0; d < by_end.size(); ++d)
    by_end[d] = (last_[2].start[d] + last_[2].count[d]) - (last_[1].start[d] + last_[1].count[d]);
  for (const std::vector<int64_t>& c : {step(last_[1], last_[2]), by_end}) {
    if (c == stride_ || !moves(c) || !follows(last_[0], last_[1], c) || !follows(last_[1], last_[2], c)) continue;
    stride_ = c;
    wrap_.clear();
    run_ = 0;
    since_wrap_ = 2;
    break;
  }
}

std::vector<Box> History::predict(int depth) const {
  std::vector<Box> out;
  if (stride_.empty() || last_.empty()) return out;
  // A read at the lower edge may have been clipped there (a chunk read with
  // its ghost zone at index 0): the next ones have the full size of the
  // others, and start that much before where the clipped one would have.
  Box from = last_.back();
  for (size_t d = 0; d < from.start.size(); ++d) {
    int64_t widest = from.count[d];
    for (const Box& b : last_) widest = std::max(widest, b.count[d]);
    if (from.start[d] == 0 && from.count[d] < widest && stride_[d] > 0) from.start[d] -= widest - from.count[d];
    from.count[d] = widest;
  }
  // Along the stride; once a row's run of steps is known, the wrap after it.
  int64_t in_row = since_wrap_;
  for (int k = 1; k <= depth; ++k) {
    const bool wrap = !wrap_.empty() && run_ > 0 && in_row >= run_;
    const std::vector<int64_t>& s = wrap ? wrap_ : stride_;
    for (size_t d = 0; d < from.start.size(); ++d) from.start[d] += s[d];
    in_row = wrap ? 0 : in_row + 1;
    out.push_back(from);
  }
  return out;
}

Box core_of(const Box& read, const std::vector<int64_t>& ghost, const std::vector<int64_t>& dims) {
  Box c = read;
  for (size_t d = 0; d < c.start.size(); ++d) {
    const int64_t w = d < ghost.size() ? ghost[d] : 0;
    int64_t lo = c.start[d], hi = c.start[d] + c.count[d];
    if (lo > 0) lo += w;
    if (hi < dims[d]) hi -= w;
    if (hi <= lo) return read;  // narrower than its ghost zone: take it as it is
    c.start[d] = lo;
    c.count[d] = hi - lo;
  }
  return c;
}

std::vector<Box> guess(const std::deque<Box>& last, const std::vector<int64_t>& ghost,
                       const std::vector<int64_t>& dims, int depth) {
  std::vector<Box> out;
  if (last.empty() || last.size() > 2 || last.back().start.size() != dims.size()) return out;
  const size_t n = dims.size();
  const Box core = core_of(last.back(), ghost, dims);
  std::vector<int64_t> s(n, 0);
  if (last.size() == 2) {
    if (last.front().start.size() != n) return out;
    s = step(core_of(last.front(), ghost, dims), core);
    if (!moves(s)) return out;
  } else {
    for (size_t d = n; d-- > 0;)
      if (core.count[d] < dims[d]) {
        s[d] = core.count[d];
        break;
      }
    if (!moves(s)) return out;  // the whole variable
  }
  Box next = core;
  for (int k = 0; k < depth; ++k) {
    for (size_t d = 0; d < n; ++d) next.start[d] += s[d];
    const Box read = grown(next, ghost, dims);
    if (read.empty()) break;
    // Past an edge: the guess ends there (the loop wraps in a way not seen yet).
    bool inside = true;
    for (size_t d = 0; d < n; ++d) inside = inside && next.start[d] >= 0 && next.start[d] < dims[d];
    if (!inside) break;
    out.push_back(read);
  }
  return out;
}

std::vector<Box> grid_predict(const std::deque<Box>& cores, const std::vector<int64_t>& dims, int depth) {
  std::vector<Box> out;
  const size_t n = dims.size();
  if (cores.size() < 2 || n == 0) return out;
  std::vector<int64_t> tile(n, 0);
  for (const Box& c : cores) {
    if (c.start.size() != n || c.empty()) return out;
    for (size_t d = 0; d < n; ++d) tile[d] = std::max(tile[d], c.count[d]);
  }
  std::vector<int64_t> chunks(n);  // chunks along each dimension
  for (size_t d = 0; d < n; ++d) {
    if (tile[d] <= 0 || dims[d] <= 0) return out;
    chunks[d] = (dims[d] + tile[d] - 1) / tile[d];
  }
  std::vector<int64_t> lin;
  for (const Box& c : cores) {
    int64_t l = 0;
    for (size_t d = 0; d < n; ++d) {
      const bool fits = c.count[d] == tile[d] || c.start[d] + c.count[d] == dims[d];
      if (c.start[d] % tile[d] != 0 || !fits) return out;  // off the grid
      l = l * chunks[d] + c.start[d] / tile[d];
    }
    lin.push_back(l);
  }
  const int64_t step = lin[lin.size() - 1] - lin[lin.size() - 2];
  if (step <= 0) return out;
  for (size_t i = 1; i < lin.size(); ++i)
    if (lin[i] - lin[i - 1] != step) return out;
  int64_t total = 1;
  for (int64_t c : chunks) total *= c;
  for (int k = 1; k <= depth; ++k) {
    int64_t l = lin.back() + k * step;
    if (l >= total) break;
    Box b;
    b.start.assign(n, 0);
    b.count.assign(n, 0);
    for (size_t d = n; d-- > 0;) {
      b.start[d] = (l % chunks[d]) * tile[d];
      b.count[d] = std::min(tile[d], dims[d] - b.start[d]);
      l /= chunks[d];
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<std::pair<int64_t, int64_t>> extents(const Box& box, const std::vector<int64_t>& pitch, int64_t begin,
                                                 int64_t gap) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const size_t n = box.start.size();
  if (n == 0 || box.empty() || pitch.size() != n) return out;
  const size_t last = n - 1;
  const int64_t run = box.count[last] * pitch[last];
  std::vector<int64_t> idx(n, 0);
  while (true) {
    int64_t at = begin;
    for (size_t d = 0; d < n; ++d) at += (box.start[d] + (d == last ? 0 : idx[d])) * pitch[d];
    if (!out.empty() && at - (out.back().first + out.back().second) <= gap && at >= out.back().first)
      out.back().second = std::max(out.back().second, at + run - out.back().first);
    else
      out.emplace_back(at, run);
    size_t d = last;
    while (d > 0) {
      --d;
      if (++idx[d] < box.count[d]) break;
      idx[d] = 0;
      if (d == 0) return out;
    }
    if (last == 0) return out;
  }
}

bool overlaps(const Box& a, const Box& b) {
  if (a.start.size() != b.start.size() || a.empty() || b.empty()) return false;
  for (size_t d = 0; d < a.start.size(); ++d)
    if (a.start[d] + a.count[d] <= b.start[d] || b.start[d] + b.count[d] <= a.start[d]) return false;
  return true;
}

void gather(const Box& box, const uint8_t* values, int64_t elem, size_t ndims, const int64_t* start,
            const int64_t* count, const int64_t* stride, uint8_t* out) {
  if (ndims == 0) {
    std::memcpy(out, values, static_cast<size_t>(elem));
    return;
  }
  // Elements per step of each dimension inside the box (row-major).
  std::vector<int64_t> pitch(ndims, 1);
  for (size_t d = ndims - 1; d > 0; --d) pitch[d - 1] = pitch[d] * box.count[d];
  std::vector<int64_t> idx(ndims, 0);  // position in the selection, outer dimensions
  const size_t last = ndims - 1;
  const int64_t inner_step = stride ? stride[last] : 1;
  for (size_t d = 0; d < ndims; ++d)
    if (count[d] <= 0) return;
  while (true) {
    int64_t at = 0;  // element offset of the row's first element in the box
    for (size_t d = 0; d < last; ++d) {
      const int64_t s = stride ? stride[d] : 1;
      at += (start[d] + idx[d] * s - box.start[d]) * pitch[d];
    }
    at += start[last] - box.start[last];
    if (inner_step == 1) {
      const size_t bytes = static_cast<size_t>(count[last] * elem);
      std::memcpy(out, values + at * elem, bytes);
      out += bytes;
    } else {
      for (int64_t i = 0; i < count[last]; ++i) {
        std::memcpy(out, values + (at + i * inner_step) * elem, static_cast<size_t>(elem));
        out += elem;
      }
    }
    size_t d = last;
    while (d > 0) {  // the next row: odometer over the outer dimensions
      --d;
      if (++idx[d] < count[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (last == 0) return;
  }
}

}  // namespace exa::layer::prefetch
