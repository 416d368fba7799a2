#include "model/id_map.hpp"

#include <algorithm>

namespace exa::model {

IdMap::IdMap(const std::vector<int64_t>& own) : own_(int64_t(own.size())) {
  for (size_t l = 0; l < own.size(); ++l) {
    if (!runs_.empty()) {
      Run& last = runs_.back();
      if (own[l] == last.global + last.length) {
        ++last.length;
        continue;
      }
    }
    runs_.push_back({int64_t(l), own[l], 1});
  }
  runs_.shrink_to_fit();
  by_global_.resize(runs_.size());
  for (size_t i = 0; i < runs_.size(); ++i) by_global_[i] = uint32_t(i);
  std::sort(by_global_.begin(), by_global_.end(),
            [this](uint32_t a, uint32_t b) { return runs_[a].global < runs_[b].global; });
  own_below_.resize(runs_.size());
  int64_t below = 0;
  for (size_t i = 0; i < runs_.size(); ++i) {
    own_below_[i] = below;
    below += g_run(i).length;
  }
}

int64_t IdMap::global(int64_t local) const {
  if (local < own_) {  // the run holding it, in local order
    const auto it = std::upper_bound(runs_.begin(), runs_.end(), local,
                                     [](int64_t l, const Run& r) { return l < r.local; });
    const Run& r = *(it - 1);
    return r.global + (local - r.local);
  }
  // The j-th global id that is not an own one: j plus the own ids of the runs
  // below it, which are the runs with at most j other ids before their start
  // (that count never decreases in global order).
  const int64_t j = local - own_;
  size_t lo = 0, hi = runs_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (g_run(mid).global - own_below_[mid] <= j) lo = mid + 1;
    else hi = mid;
  }
  return j + (lo == 0 ? 0 : own_below_[lo - 1] + g_run(lo - 1).length);
}

int64_t IdMap::local(int64_t global) const {
  // The runs that start at or below `global`, in global order.
  size_t lo = 0, hi = runs_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (g_run(mid).global <= global) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return own_ + global;
  const Run& r = g_run(lo - 1);
  if (global < r.global + r.length) return r.local + (global - r.global);
  return own_ + (global - (own_below_[lo - 1] + r.length));
}

std::vector<int> IdMap::order(int64_t total) const {
  std::vector<int> out(size_t(std::max<int64_t>(total, 0)));
  for (int64_t g = 0; g < total; ++g) out[size_t(g)] = int(local(g));
  return out;
}

}  // namespace exa::model
