// An index from object names to ids that stores no names: open addressing
// with linear probing over 8-byte slots (32 bits of the name's hash, the
// id). The names stay in the dataset; lookups compare against them through
// the `name_of` function given to each call. Millions of objects cost 16-32
// bytes each and no allocation per object, which matters for files with
// hundreds of thousands of variables (seed 000).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "util/hash.hpp"

namespace exa::model {

class NameIndex {
 public:
  // Id of `name`, or -1. name_of(id) returns the name of an indexed id.
  template <typename NameOf>
  int find(std::string_view name, const NameOf& name_of) const {
    return find_hashed(hash_of(name), name, name_of);
  }
  // The same given h = hash_of(name) (callers that hash once and look up twice).
  template <typename NameOf>
  int find_hashed(uint32_t h, std::string_view name, const NameOf& name_of) const {
    if (slots_.empty()) return -1;
    for (size_t pos = h & mask(); slots_[pos].id >= 0; pos = (pos + 1) & mask())
      if (slots_[pos].hash == h && name_of(slots_[pos].id) == name) return slots_[pos].id;
    return -1;
  }

  // Adds a name that is not in the index.
  void insert(std::string_view name, int id) { insert_hashed(hash_of(name), id); }
  void insert_hashed(uint32_t h, int id) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    place({h, id});
    ++count_;
  }

  // Removes a name (no-op if absent).
  template <typename NameOf>
  void erase(std::string_view name, const NameOf& name_of) {
    erase_hashed(hash_of(name), name, name_of);
  }
  template <typename NameOf>
  void erase_hashed(uint32_t h, std::string_view name, const NameOf& name_of) {
    if (slots_.empty()) return;
    size_t pos = h & mask();
    for (; slots_[pos].id >= 0; pos = (pos + 1) & mask())
      if (slots_[pos].hash == h && name_of(slots_[pos].id) == name) break;
    if (slots_[pos].id < 0) return;
    // Backward-shift deletion: pull later entries of the probe run into the hole.
    size_t hole = pos;
    for (size_t next = (hole + 1) & mask(); slots_[next].id >= 0; next = (next + 1) & mask()) {
      size_t home = slots_[next].hash & mask();
      bool movable = hole <= next ? (home <= hole || home > next) : (home <= hole && home > next);
      if (movable) {
        slots_[hole] = slots_[next];
        hole = next;
      }
    }
    slots_[hole] = {0, -1};
    --count_;
  }

  void clear() {
    slots_.clear();
    slots_.shrink_to_fit();
    count_ = 0;
  }
  size_t size() const { return count_; }

  static uint32_t hash_of(std::string_view name) {
    return static_cast<uint32_t>(hash_string(name, 0x696e646578ULL));
  }

 private:
  struct Slot {
    uint32_t hash;
    int32_t id;  // -1: empty
  };
  size_t mask() const { return slots_.size() - 1; }
  void place(Slot s) {
    size_t pos = s.hash & mask();
    while (slots_[pos].id >= 0) pos = (pos + 1) & mask();
    slots_[pos] = s;
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{0, -1});
    for (const Slot& s : old)
      if (s.id >= 0) place(s);
  }

  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace exa::model
