#include "model/id_map.hpp"

#include <algorithm>
#include <numeric>

namespace exa::model {

IdMap::IdMap(std::vector<int64_t> own) : own_(std::move(own)) {
  if (std::is_sorted(own_.begin(), own_.end())) {  // defined in file order
    sorted_ = own_;
    sorted_local_.resize(own_.size());
    std::iota(sorted_local_.begin(), sorted_local_.end(), int64_t(0));
    return;
  }
  std::vector<std::pair<int64_t, int64_t>> pairs(own_.size());  // (global, local)
  for (size_t l = 0; l < own_.size(); ++l) pairs[l] = {own_[l], int64_t(l)};
  std::sort(pairs.begin(), pairs.end());
  sorted_.resize(pairs.size());
  sorted_local_.resize(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    sorted_[i] = pairs[i].first;
    sorted_local_[i] = pairs[i].second;
  }
}

int64_t IdMap::global(int64_t local) const {
  const int64_t k = own();
  if (local < k) return own_[size_t(local)];
  // The j-th global id that is not an own one: j + i, where i own ids lie
  // below it (the first i with sorted_[i] - i > j; that difference never
  // decreases).
  const int64_t j = local - k;
  int64_t lo = 0, hi = k;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (sorted_[size_t(mid)] - mid > j) hi = mid;
    else lo = mid + 1;
  }
  return j + lo;
}

int64_t IdMap::local(int64_t global) const {
  const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), global);
  const int64_t i = it - sorted_.begin();
  if (it != sorted_.end() && *it == global) return sorted_local_[size_t(i)];
  return own() + (global - i);
}

std::vector<int> IdMap::order(int64_t total) const {
  std::vector<int> out(size_t(std::max<int64_t>(total, 0)));
  for (int64_t g = 0; g < total; ++g) out[size_t(g)] = int(local(g));
  return out;
}

}  // namespace exa::model
