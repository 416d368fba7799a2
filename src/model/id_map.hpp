// The ids a rank hands out for a file's dimensions (or variables) when it
// keeps its own objects under the ids its define calls returned: local ids
// 0..k-1 are its own objects (whose file positions, the global ids, are
// given), and the file's other objects follow in file order. With no own
// objects local and global ids are the same. Lookups cost O(log k).
#pragma once

#include <cstdint>
#include <vector>

namespace exa::model {

class IdMap {
 public:
  IdMap() = default;
  // own[local] = global id, for local ids 0..own.size()-1; distinct and >= 0.
  explicit IdMap(std::vector<int64_t> own);

  int64_t own() const { return int64_t(own_.size()); }
  int64_t global(int64_t local) const;
  int64_t local(int64_t global) const;
  // File position -> local id, for a file of `total` objects.
  std::vector<int> order(int64_t total) const;

 private:
  std::vector<int64_t> own_;          // local -> global
  std::vector<int64_t> sorted_;       // the own global ids, ascending
  std::vector<int64_t> sorted_local_; // their local ids
};

}  // namespace exa::model
