#include "query/mpi/put_epoch.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace exa::query {

namespace {
std::mutex g_mutex;
std::map<std::pair<int, int>, uint64_t> g_puts;
}  // namespace

void note_put(int ncid, int varid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_puts[{ncid, varid}];
}

uint64_t put_count(int ncid, int varid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_puts.find({ncid, varid});
  return it == g_puts.end() ? 0 : it->second;
}

}  // namespace exa::query
