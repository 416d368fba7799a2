// The ids a rank hands out for a file's dimensions (or variables) when it
// keeps its own objects under the ids its define calls returned: local ids
// 0..k-1 are its own objects (whose file positions, the global ids, are
// given), and the file's other objects follow in file order. With no own
// objects local and global ids are the same.
//
// Kept as runs, not per object: own objects come block by block, and the
// objects of a block have consecutive local ids and consecutive global ids,
// so a rank's k own objects are a few runs (one per block: about k / 40 for
// the seed-000 samples). Memory and construction follow the runs; lookups
// cost O(log runs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace exa::model {

class IdMap {
 public:
  IdMap() = default;
  // own[local] = global id, for local ids 0..own.size()-1; distinct and >= 0.
  explicit IdMap(const std::vector<int64_t>& own);

  int64_t own() const { return own_; }
  int64_t global(int64_t local) const;
  int64_t local(int64_t global) const;
  // File position -> local id, for a file of `total` objects.
  std::vector<int> order(int64_t total) const;
  // Runs of consecutive local ids with consecutive global ids (what the map holds).
  size_t runs() const { return runs_.size(); }

 private:
  struct Run {
    int64_t local = 0;   // first local id
    int64_t global = 0;  // its global id
    int64_t length = 0;
  };
  int64_t own_ = 0;
  std::vector<Run> runs_;               // in local order (they tile 0..own_-1)
  std::vector<uint32_t> by_global_;     // run indexes by ascending global id
  std::vector<int64_t> own_below_;      // own ids in the runs before by_global_[i]
  // In global order: the i-th run.
  const Run& g_run(size_t i) const { return runs_[by_global_[i]]; }
};

}  // namespace exa::model
