// model::IdMap: own objects keep local ids 0..k-1, every other object of the
// file follows in file order; checked against a brute-force listing.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/id_map.hpp"

using exa::model::IdMap;

namespace {

// The local ids by brute force: own ones, then the others in file order.
std::vector<int64_t> brute_force(const std::vector<int64_t>& own, int64_t total) {
  std::vector<int64_t> local_of(size_t(total), -1);
  for (size_t l = 0; l < own.size(); ++l) local_of[size_t(own[l])] = int64_t(l);
  int64_t next = int64_t(own.size());
  for (int64_t g = 0; g < total; ++g)
    if (local_of[size_t(g)] < 0) local_of[size_t(g)] = next++;
  return local_of;
}

void check(const std::vector<int64_t>& own, int64_t total) {
  const IdMap map(own);
  const std::vector<int64_t> want = brute_force(own, total);
  for (int64_t g = 0; g < total; ++g) {
    ASSERT_EQ(map.local(g), want[size_t(g)]) << "global " << g;
    ASSERT_EQ(map.global(want[size_t(g)]), g) << "local " << want[size_t(g)];
  }
  const std::vector<int> order = map.order(total);
  for (int64_t g = 0; g < total; ++g) ASSERT_EQ(order[size_t(g)], want[size_t(g)]);
}

}  // namespace

TEST(IdMap, NoOwnObjectsIsTheIdentity) {
  const IdMap map;
  for (int64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(map.local(i), i);
    EXPECT_EQ(map.global(i), i);
  }
}

TEST(IdMap, OwnObjectsFirstThenTheRestInFileOrder) {
  check({2, 5}, 8);       // foreign: 0 1 3 4 6 7 -> local 2..7
  check({5, 2}, 8);       // own ids need not follow the file order
  check({0, 1, 2}, 3);    // everything is own
  check({7}, 8);          // own at the end
  check({0}, 1);
}

TEST(IdMap, RandomOwnSets) {
  std::mt19937 rng(6);
  for (int round = 0; round < 200; ++round) {
    const int64_t total = 1 + int64_t(rng() % 60);
    std::vector<int64_t> all(static_cast<size_t>(total), 0);
    for (int64_t i = 0; i < total; ++i) all[size_t(i)] = i;
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(size_t(rng() % (total + 1)));
    check(all, total);
  }
}
