// exa_cache_recover / exa_cache_pending (include/exacdf_cache.h) over
// layer/cache_files.
#include <cstring>
#include <exception>
#include <string>

#include "api/api_support.hpp"
#include "exacdf.h"
#include "layer/cache_files.hpp"

namespace {

void copy_out(const std::string& text, char* out, size_t size) {
  if (!out || size == 0) return;
  const size_t n = std::min(text.size(), size - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

std::string dir_or_default(const char* dir) { return dir && *dir ? dir : exa::layer::cache::default_dir(); }

}  // namespace

extern "C" int exa_cache_recover(const char* path, const char* dir, char* report, size_t report_size) {
  if (!path) return NC_EINVAL;
  try {
    namespace cache = exa::layer::cache;
    std::string target, text;
    exa::Status st = cache::absolute_path(path, &target);
    if (st.is_ok()) st = cache::recover(target, dir_or_default(dir), &text);
    copy_out(st.is_ok() ? text : st.message(), report, report_size);
    return st.code();
  } catch (const std::exception& e) {
    copy_out(e.what(), report, report_size);
    return NC_ENOMEM;
  }
}

extern "C" int exa_cache_pending(const char* path, const char* dir, int* nlogs) {
  if (!path || !nlogs) return NC_EINVAL;
  try {
    namespace cache = exa::layer::cache;
    std::string target;
    exa::Status st = cache::absolute_path(path, &target);
    if (!st.is_ok()) return st.code();
    *nlogs = static_cast<int>(cache::find_logs(dir_or_default(dir), target).size());
    return NC_NOERR;
  } catch (const std::exception&) {
    return NC_ENOMEM;
  }
}

extern "C" int exa_cache_read_stats(int ncid, exa_cache_read_info* info) {
  if (info) *info = exa_cache_read_info{};
  return exa::api::with_file("exa_cache_read_stats", ncid, [&](exa::api::OpenFile& f) -> exa::Status {
    if (info == nullptr) return {NC_EINVAL, "null info"};
    exa::Status st = f.connector->extension(*f.state, "cache_read_stats", info);
    if (st.code() == NC_ENOTSUPPORT) return exa::Status::ok();  // no cache connector: nothing prefetched
    return st;
  });
}
