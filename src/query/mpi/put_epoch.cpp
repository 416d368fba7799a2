#include "query/mpi/put_epoch.hpp"

#include <mutex>
#include <unordered_map>

namespace exa::query {

namespace {
std::mutex g_mutex;
std::unordered_map<int, uint64_t> g_puts;  // by ncid
}  // namespace

void note_put(int ncid, int /*varid*/) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_puts[ncid];
}

uint64_t put_count(int ncid, int /*varid*/) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_puts.find(ncid);
  return it == g_puts.end() ? 0 : it->second;
}

}  // namespace exa::query
