#include "api/handles.hpp"

#include <map>
#include <mutex>

namespace exa::api {

namespace {

struct Table {
  std::mutex mutex;
  std::map<int, std::unique_ptr<OpenFile>> files;
  int next_id = 0;
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

int add_file(std::unique_ptr<OpenFile> file) {
  auto& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  // ncids are small non-negative integers; reuse the lowest free one, as PnetCDF does.
  int id = 0;
  while (t.files.count(id)) ++id;
  t.files[id] = std::move(file);
  return id;
}

OpenFile* find_file(int ncid) {
  auto& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.files.find(ncid);
  return it == t.files.end() ? nullptr : it->second.get();
}

void remove_file(int ncid) {
  auto& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.files.erase(ncid);
}

std::vector<int> open_ncids() {
  auto& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::vector<int> out;
  for (const auto& [id, f] : t.files) out.push_back(id);
  return out;
}

}  // namespace exa::api
