// PathNameIndex against std::unordered_map under random inserts, erases and
// lookups: names in a few paths (groups that outgrow their short list), in
// many small paths, without a path, and names that differ only in the path.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/path_name_index.hpp"

namespace {

std::string random_name(std::mt19937& rng) {
  switch (rng() % 4) {
    case 0: return "v" + std::to_string(rng() % 300);  // no path: one big group
    case 1: return "/big/v" + std::to_string(rng() % 200);  // past the short list
    case 2: return "/s" + std::to_string(rng() % 400) + "/v" + std::to_string(rng() % 6);  // many small groups
    default: return "/a/b" + std::to_string(rng() % 3) + "/v" + std::to_string(rng() % 60);  // nested paths
  }
}

TEST(PathNameIndex, AgreesWithAMapUnderChurn) {
  exa::model::PathNameIndex index;
  std::vector<std::string> names;  // by id; "" once erased
  std::unordered_map<std::string, int> model;
  auto name_of = [&](int id) -> std::string_view { return names[static_cast<size_t>(id)]; };
  std::mt19937 rng(11);
  for (int step = 0; step < 300000; ++step) {
    const int op = static_cast<int>(rng() % 3);
    const std::string name = random_name(rng);
    if (op == 0 && !model.count(name)) {
      const int id = static_cast<int>(names.size());
      names.push_back(name);
      index.insert(name, id);
      model[name] = id;
    } else if (op == 1 && model.count(name)) {
      index.erase(name, name_of);
      names[static_cast<size_t>(model[name])] = "";
      model.erase(name);
    } else {
      auto it = model.find(name);
      ASSERT_EQ(index.find(name, name_of), it == model.end() ? -1 : it->second) << step << " " << name;
    }
    ASSERT_EQ(index.size(), model.size());
  }
  for (const auto& [name, id] : model) EXPECT_EQ(index.find(name, name_of), id) << name;
  index.clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.find("/big/v1", name_of), -1);
}

TEST(PathNameIndex, SameLocalNameInDifferentPaths) {
  exa::model::PathNameIndex index;
  const std::vector<std::string> names = {"/e0/x", "/e1/x", "x", "/e0/e1/x", "/e0x"};
  auto name_of = [&](int id) -> std::string_view { return names[static_cast<size_t>(id)]; };
  for (size_t i = 0; i < names.size(); ++i) index.insert(names[i], int(i));
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(index.find(names[i], name_of), int(i)) << names[i];
  EXPECT_EQ(index.find("/e2/x", name_of), -1);
  EXPECT_EQ(index.find("/e0/", name_of), -1);
  EXPECT_EQ(index.find("", name_of), -1);
  index.erase("/e1/x", name_of);
  EXPECT_EQ(index.find("/e1/x", name_of), -1);
  EXPECT_EQ(index.find("/e0/x", name_of), 0);
  EXPECT_EQ(index.size(), names.size() - 1);
}

// Two distinct strings "<prefix><i><suffix>" with the same 32-bit index hash
// (a birthday search: ~2^16 tries).
std::pair<std::string, std::string> colliding(const std::string& prefix, const std::string& suffix) {
  std::unordered_map<uint32_t, std::string> seen;
  for (int i = 0;; ++i) {
    std::string s = prefix + std::to_string(i) + suffix;
    auto [it, fresh] = seen.emplace(exa::model::NameIndex::hash_of(s), s);
    if (!fresh) return {it->second, s};
  }
}

TEST(PathNameIndex, HashCollisionsOfPathsAndNames) {
  const auto [p1, p2] = colliding("/p", "/");  // two groups whose paths collide
  const auto [l1, l2] = colliding("x", "");    // two local names that collide
  ASSERT_NE(p1, p2);
  ASSERT_NE(l1, l2);
  std::vector<std::string> names;
  for (const std::string& p : {p1, p2})
    for (const std::string& l : {l1, l2}) names.push_back(p + l);
  for (int i = 0; i < 40; ++i) names.push_back(p2 + "many" + std::to_string(i));  // p2's group outgrows its list
  exa::model::PathNameIndex index;
  auto name_of = [&](int id) -> std::string_view { return names[static_cast<size_t>(id)]; };
  for (size_t i = 0; i < names.size(); ++i) {
    ASSERT_EQ(index.find(names[i], name_of), -1) << names[i];
    index.insert(names[i], int(i));
  }
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(index.find(names[i], name_of), int(i)) << names[i];
  index.erase(p1 + l2, name_of);
  index.erase(p2 + l1, name_of);
  EXPECT_EQ(index.find(p1 + l1, name_of), 0);
  EXPECT_EQ(index.find(p1 + l2, name_of), -1);
  EXPECT_EQ(index.find(p2 + l1, name_of), -1);
  EXPECT_EQ(index.find(p2 + l2, name_of), 3);
}

}  // namespace
