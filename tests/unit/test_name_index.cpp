// NameIndex against std::unordered_map under random inserts, erases, lookups.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/name_index.hpp"

namespace {

TEST(NameIndex, AgreesWithAMapUnderChurn) {
  exa::model::NameIndex index;
  std::vector<std::string> names;  // by id; "" once erased
  std::unordered_map<std::string, int> model;
  auto name_of = [&](int id) -> std::string_view { return names[static_cast<size_t>(id)]; };
  std::mt19937 rng(7);
  for (int step = 0; step < 200000; ++step) {
    int op = static_cast<int>(rng() % 3);
    std::string name = "n" + std::to_string(rng() % 5000);
    if (op == 0 && !model.count(name)) {
      int id = static_cast<int>(names.size());
      names.push_back(name);
      index.insert(name, id);
      model[name] = id;
    } else if (op == 1 && model.count(name)) {
      index.erase(name, name_of);
      names[static_cast<size_t>(model[name])] = "";
      model.erase(name);
    } else {
      auto it = model.find(name);
      ASSERT_EQ(index.find(name, name_of), it == model.end() ? -1 : it->second) << step;
    }
    ASSERT_EQ(index.size(), model.size());
  }
  for (const auto& [name, id] : model) EXPECT_EQ(index.find(name, name_of), id);
  index.clear();
  EXPECT_EQ(index.find("n1", name_of), -1);
}

}  // namespace
