// A plain bitset over the elements of a box (one bit per element, row-major):
// the result of a query on one rank. MPI-free.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace exa::query {

class Bitset {
 public:
  Bitset() = default;
  explicit Bitset(uint64_t n) : n_(n), words_((n + 63) / 64, 0) {}

  uint64_t size() const { return n_; }
  void set(uint64_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  bool test(uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  void set_all() {
    for (auto& w : words_) w = ~uint64_t{0};
    trim();
  }
  void and_with(const Bitset& o) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] &= o.words_[i];
  }
  void or_with(const Bitset& o) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] |= o.words_[i];
  }
  void flip() {
    for (auto& w : words_) w = ~w;
    trim();
  }
  uint64_t count() const {
    uint64_t c = 0;
    for (uint64_t w : words_) c += static_cast<uint64_t>(std::popcount(w));
    return c;
  }
  // Calls fn(i) for every set bit in increasing order until fn returns false.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (size_t k = 0; k < words_.size(); ++k) {
      uint64_t w = words_[k];
      while (w != 0) {
        uint64_t i = (uint64_t{k} << 6) + static_cast<uint64_t>(std::countr_zero(w));
        if (!fn(i)) return;
        w &= w - 1;
      }
    }
  }
  // Calls fn(i) for every set bit i in [lo, hi), increasing.
  template <typename Fn>
  void for_each_in(uint64_t lo, uint64_t hi, Fn&& fn) const {
    hi = hi < n_ ? hi : n_;
    for (uint64_t k = lo >> 6; k < words_.size() && (k << 6) < hi; ++k) {
      uint64_t w = words_[k];
      if ((k << 6) < lo) w &= ~uint64_t{0} << (lo & 63);
      while (w != 0) {
        const uint64_t i = (k << 6) + static_cast<uint64_t>(std::countr_zero(w));
        if (i >= hi) return;
        fn(i);
        w &= w - 1;
      }
    }
  }
  std::vector<uint64_t>& words() { return words_; }

 private:
  void trim() {
    if (n_ % 64 != 0 && !words_.empty()) words_.back() &= (uint64_t{1} << (n_ % 64)) - 1;
  }
  uint64_t n_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace exa::query
