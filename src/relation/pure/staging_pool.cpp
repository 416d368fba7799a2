#include "relation/pure/staging_pool.hpp"

namespace exa::relation {

std::pair<void*, size_t> StagingPool::take(size_t bytes) {
  size_t best = free_.size();
  for (size_t i = 0; i < free_.size(); ++i)
    if (free_[i].second >= bytes && (best == free_.size() || free_[i].second < free_[best].second)) best = i;
  if (best == free_.size()) return {nullptr, 0};
  const std::pair<void*, size_t> got = free_[best];
  free_[best] = free_.back();
  free_.pop_back();
  bytes_ -= got.second;
  return got;
}

bool StagingPool::give(void* p, size_t bytes) {
  if (p == nullptr || bytes > cap_ - bytes_) return false;
  free_.emplace_back(p, bytes);
  bytes_ += bytes;
  return true;
}

std::vector<std::pair<void*, size_t>> StagingPool::drain() {
  std::vector<std::pair<void*, size_t>> all;
  all.swap(free_);
  bytes_ = 0;
  return all;
}

}  // namespace exa::relation
