// An index from object names to ids, grouped by the names' paths: "/a/b/x"
// is "x" in group "/a/b/" (a name without '/' is in group ""). Each group is
// a short list scanned by hash while small, a NameIndex once it grows; the
// groups are found through a NameIndex of paths, and the last group used is
// tried first.
//
// Why: defining the objects of one block after another (each rank its own
// samples, seed 000) otherwise probes one random slot of a table sized by
// all objects per call: with millions of objects, a cache and TLB miss per
// def_dim/def_var that cost more than the rest of the call. Here the calls
// of one block touch one small group, which stays in cache. A file without
// paths (one group) costs one extra comparison per lookup. Stores no names:
// lookups compare against the dataset's through `name_of`, as NameIndex.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/name_index.hpp"

namespace exa::model {

class PathNameIndex {
 public:
  // Id of `name`, or -1. name_of(id) returns the name of an indexed id.
  template <typename NameOf>
  int find(std::string_view name, const NameOf& name_of) const {
    const auto [path, local] = split(name);
    const int g = group_of(path);
    return g < 0 ? -1 : find_in(groups_[size_t(g)], NameIndex::hash_of(local), name, name_of);
  }

  // Adds a name that is not in the index.
  void insert(std::string_view name, int id) {
    const auto [path, local] = split(name);
    add_to(group_for(path), NameIndex::hash_of(local), id);
  }

  // Adds `name` as `id` unless it is indexed already (then false): a lookup
  // and an insert for the price of one.
  template <typename NameOf>
  bool insert_new(std::string_view name, int id, const NameOf& name_of) {
    const auto [path, local] = split(name);
    Group& group = groups_[size_t(group_for(path))];
    const uint32_t h = NameIndex::hash_of(local);
    if (find_in(group, h, name, name_of) >= 0) return false;
    add_to(int(&group - groups_.data()), h, id);
    return true;
  }

  // Removes a name (no-op if absent).
  template <typename NameOf>
  void erase(std::string_view name, const NameOf& name_of) {
    const auto [path, local] = split(name);
    const int g = group_of(path);
    if (g < 0) return;
    Group& group = groups_[size_t(g)];
    const uint32_t h = NameIndex::hash_of(local);
    if (group.few_done) {
      const size_t before = group.many.size();
      group.many.erase_hashed(h, name, name_of);
      count_ -= before - group.many.size();
      return;
    }
    for (size_t i = 0; i < group.few.size(); ++i) {
      if (group.few[i].first != h || name_of(group.few[i].second) != name) continue;
      group.few[i] = group.few.back();
      group.few.pop_back();
      --count_;
      return;
    }
  }

  void clear() {
    groups_.clear();
    groups_.shrink_to_fit();
    paths_.clear();
    last_ = -1;
    count_ = 0;
  }
  size_t size() const { return count_; }

 private:
  static constexpr size_t kFew = 32;  // a list scan of up to 4 cache lines
  struct Group {
    std::string path;
    bool few_done = false;                    // `many` holds the group
    std::vector<std::pair<uint32_t, int>> few;  // (hash of the local name, id)
    NameIndex many;
  };

  static std::pair<std::string_view, std::string_view> split(std::string_view name) {
    const size_t slash = name.rfind('/');
    if (slash == std::string_view::npos) return {name.substr(0, 0), name};
    return {name.substr(0, slash + 1), name.substr(slash + 1)};
  }

  // The group of `path`, or -1; the last group used is compared first,
  // before hashing the path.
  int group_of(std::string_view path) const {
    if (last_ >= 0 && groups_[size_t(last_)].path == path) return last_;
    const int g = paths_.find_hashed(NameIndex::hash_of(path), path,
                                     [this](int i) { return std::string_view(groups_[size_t(i)].path); });
    if (g >= 0) last_ = g;
    return g;
  }

  // The group of `path`, made if new.
  int group_for(std::string_view path) {
    const int g = group_of(path);
    if (g >= 0) return g;
    Group& added = groups_.emplace_back();
    added.path = std::string(path);
    last_ = int(groups_.size() - 1);
    paths_.insert_hashed(NameIndex::hash_of(path), last_);
    return last_;
  }

  template <typename NameOf>
  static int find_in(const Group& group, uint32_t h, std::string_view name, const NameOf& name_of) {
    if (group.few_done) return group.many.find_hashed(h, name, name_of);
    for (const auto& [hash, id] : group.few)
      if (hash == h && name_of(id) == name) return id;
    return -1;
  }

  void add_to(int g, uint32_t h, int id) {
    Group& group = groups_[size_t(g)];
    if (!group.few_done && group.few.size() < kFew) {
      group.few.emplace_back(h, id);
    } else {
      if (!group.few_done) {  // the group outgrew its list
        for (const auto& [hash, old] : group.few) group.many.insert_hashed(hash, old);
        group.few = {};
        group.few_done = true;
      }
      group.many.insert_hashed(h, id);
    }
    ++count_;
  }

  std::vector<Group> groups_;
  NameIndex paths_;  // path -> group
  mutable int last_ = -1;
  size_t count_ = 0;
};

}  // namespace exa::model
