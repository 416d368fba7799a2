#include "layer/cache_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pnetcdf.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>
#include <mutex>

#include "io/memory_plan.hpp"
#include "util/hash.hpp"

namespace exa::layer::cache {

namespace {

std::atomic<int> g_recovering{0};

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string log_prefix(const std::string& target) { return hex16(hash_string(target)) + "."; }

Status read_exact(int fd, void* buf, int64_t n, int64_t at) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, static_cast<size_t>(n), at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return {NC_EFILE, std::string("cache log read failed: ") + (got < 0 ? std::strerror(errno) : "short file")};
    p += got;
    n -= got;
    at += got;
  }
  return Status::ok();
}

// One log, read whole and checked against the target.
struct LoadedLog {
  std::string path;
  cachelog::Manifest manifest;
  cachelog::State state;
  // The ring, mapped (a ring of 1 GiB holding a few records costs what they hold).
  const uint8_t* ring = nullptr;
  size_t mapped = 0;
  LoadedLog() = default;
  LoadedLog(const LoadedLog&) = delete;
  LoadedLog& operator=(const LoadedLog&) = delete;
  LoadedLog(LoadedLog&& o) noexcept { *this = std::move(o); }
  LoadedLog& operator=(LoadedLog&& o) noexcept {
    std::swap(path, o.path);
    std::swap(manifest, o.manifest);
    std::swap(state, o.state);
    std::swap(ring, o.ring);
    std::swap(mapped, o.mapped);
    std::swap(records, o.records);
    return *this;
  }
  ~LoadedLog() {
    if (ring) ::munmap(const_cast<uint8_t*>(ring - cachelog::kHeadBytes), mapped);
  }
  std::vector<cachelog::Record> records;
};

Status load_log(const std::string& path, LoadedLog* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {NC_EFILE, "cannot open cache log " + path + ": " + std::strerror(errno)};
  std::vector<uint8_t> head(static_cast<size_t>(cachelog::kHeadBytes));
  Status st = read_exact(fd, head.data(), cachelog::kHeadBytes, 0);
  if (st.is_ok()) st = cachelog::decode_manifest(head.data(), 2048, &out->manifest);
  if (st.is_ok()) st = cachelog::decode_state(head.data(), head.size(), &out->state);
  struct stat sb {};
  if (st.is_ok() && ::fstat(fd, &sb) != 0) st = {NC_EFILE, "cannot stat cache log " + path};
  if (st.is_ok() && sb.st_size - cachelog::kHeadBytes < out->manifest.capacity)
    st = {NC_ENOTNC, "cache log " + path + " is shorter than its ring"};
  if (st.is_ok()) {
    const size_t bytes = static_cast<size_t>(cachelog::kHeadBytes + out->manifest.capacity);
    // Writable and private (copy-on-write: the log on disk never changes):
    // replay_record hands the values to a put, and native swaps a put of 64 KiB
    // or more that needs no conversion to big-endian in the caller's buffer and
    // back (io::kInPlaceSwapMin), which faulted on a read-only mapping.
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      st = {NC_EFILE, std::string("cannot map the cache log: ") + std::strerror(errno)};
    } else {
      out->ring = static_cast<const uint8_t*>(p) + cachelog::kHeadBytes;
      out->mapped = bytes;
    }
  }
  ::close(fd);
  if (!st.is_ok()) return {st.code(), path + ": " + st.message()};
  out->path = path;
  out->records = cachelog::parse_ring(out->ring, out->manifest.capacity, out->state);
  return Status::ok();
}

// Why the log does not belong to the target as it is now ("" if it does).
std::string mismatch(const cachelog::Manifest& log, const std::string& target) {
  if (log.path != target) return "it belongs to " + log.path;
  cachelog::Manifest now;
  Status st = describe_target(target, log.header_size, &now);
  if (!st.is_ok()) return st.message();
  if (now.dev != log.dev || now.ino != log.ino) return "the file was replaced since the log was written";
  if (now.header_digest != log.header_digest)
    return "the file's header (generation " + std::to_string(log.generation) + " of the log) has changed";
  return "";
}

Status replay_record(int ncid, const LoadedLog& log, const cachelog::Record& r) {
  MPI_Datatype t = io::predefined_of_memtype(r.memtype);
  const int64_t esize = t == MPI_DATATYPE_NULL ? 0 : [&] { int s = 0; MPI_Type_size(t, &s); return int64_t{s}; }();
  if (esize == 0 || r.payload_size % esize != 0)
    return {NC_ENOTNC, log.path + ": record " + std::to_string(r.seq) + " has a bad memory type"};
  const void* buf = log.ring + r.payload_offset;
  const MPI_Offset n = r.payload_size / esize;
  static_assert(sizeof(MPI_Offset) == sizeof(int64_t));
  const auto* start = reinterpret_cast<const MPI_Offset*>(r.start.data());
  const auto* count = reinterpret_cast<const MPI_Offset*>(r.count.data());
  int err = r.has_stride
                ? ncmpi_put_vars(ncid, r.varid, start, count, reinterpret_cast<const MPI_Offset*>(r.stride.data()), buf, n, t)
                : ncmpi_put_vara(ncid, r.varid, start, count, buf, n, t);
  if (err != NC_NOERR && err != NC_ERANGE)
    return {err, log.path + ": record " + std::to_string(r.seq) + ": " + ncmpi_strerror(err)};
  return Status::ok();
}

}  // namespace

std::string default_dir() {
  return "/dev/shm/exacdf-cache-" + std::to_string(static_cast<unsigned long>(::getuid()));
}

Status absolute_path(const std::string& path, std::string* out) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return {NC_ENOENT, "cannot resolve " + path + ": " + std::strerror(errno)};
  *out = real;
  std::free(real);
  return Status::ok();
}

std::string log_path(const std::string& dir, const std::string& target, int rank) {
  return dir + "/" + log_prefix(target) + std::to_string(rank) + ".log";
}

std::vector<std::string> find_logs(const std::string& dir, const std::string& target) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  const std::string prefix = log_prefix(target);
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) == 0 && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".log") == 0)
      out.push_back(dir + "/" + name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Status make_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Status::ok();
  return {NC_EFILE, "cannot make cache directory " + dir + ": " + std::strerror(errno)};
}

Status describe_target(const std::string& target, int64_t header_size, cachelog::Manifest* out) {
  const int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {NC_ENOENT, "cannot open " + target + ": " + std::strerror(errno)};
  struct stat sb {};
  Status st;
  if (::fstat(fd, &sb) != 0) st = {NC_EFILE, "cannot stat " + target};
  std::vector<uint8_t> header(static_cast<size_t>(std::max<int64_t>(header_size, 0)));
  if (st.is_ok() && header_size > 0) st = read_exact(fd, header.data(), header_size, 0);
  ::close(fd);
  EXA_RETURN_IF_ERROR(st);
  out->path = target;
  out->dev = sb.st_dev;
  out->ino = sb.st_ino;
  out->header_size = header_size;
  out->header_digest = cachelog::header_digest(header.data(), header.size());
  return Status::ok();
}

Status describe_target(const std::string& target, const std::vector<uint8_t>& header, cachelog::Manifest* out) {
  struct stat sb {};
  if (::stat(target.c_str(), &sb) != 0) return {NC_ENOENT, "cannot stat " + target + ": " + std::strerror(errno)};
  out->path = target;
  out->dev = sb.st_dev;
  out->ino = sb.st_ino;
  out->header_size = static_cast<int64_t>(header.size());
  out->header_digest = cachelog::header_digest(header.data(), header.size());
  return Status::ok();
}

Status recover(const std::string& target, const std::string& dir, std::string* report) {
  const std::vector<std::string> paths = find_logs(dir, target);
  if (paths.empty()) {
    *report += target + ": no cache logs in " + dir + "\n";
    return Status::ok();
  }
  std::vector<LoadedLog> logs(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    EXA_RETURN_IF_ERROR(load_log(paths[i], &logs[i]));
    const std::string why = mismatch(logs[i].manifest, target);
    if (!why.empty()) return {NC_EINVAL, "refused " + paths[i] + ": " + why + " (log kept)"};
  }
  std::sort(logs.begin(), logs.end(), [](const LoadedLog& a, const LoadedLog& b) {
    return a.manifest.rank < b.manifest.rank;
  });
  // Every rank's records in the order of the collective puts they came from
  // (within one put, rank by rank: overlaps of one collective call are the
  // program's to avoid, as in PnetCDF); each log is in that order already.
  std::vector<std::pair<size_t, size_t>> order;  // (log, record)
  for (size_t i = 0; i < logs.size(); ++i)
    for (size_t j = 0; j < logs[i].records.size(); ++j) order.emplace_back(i, j);
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return logs[a.first].records[a.second].call < logs[b.first].records[b.second].call;
  });
  MPI_Info info;
  if (MPI_Info_create(&info) != MPI_SUCCESS) return {NC_EFILE, "MPI_Info_create failed"};
  if (MPI_Info_set(info, "exa_connectors", "native") != MPI_SUCCESS) {
    MPI_Info_free(&info);
    return {NC_EFILE, "MPI_Info_set failed"};
  }
  g_recovering.fetch_add(1);
  int ncid = -1;
  int err = ncmpi_open(MPI_COMM_SELF, target.c_str(), NC_WRITE, info, &ncid);
  MPI_Info_free(&info);
  Status st;
  if (err != NC_NOERR) st = {err, "cannot open " + target + ": " + ncmpi_strerror(err)};
  if (st.is_ok() && (err = ncmpi_begin_indep_data(ncid)) != NC_NOERR) st = {err, "begin_indep_data failed"};
  for (size_t i = 0; st.is_ok() && i < order.size(); ++i)
    st = replay_record(ncid, logs[order[i].first], logs[order[i].first].records[order[i].second]);
  for (const LoadedLog& log : logs) {
    if (!st.is_ok()) break;
    *report += log.path + ": rank " + std::to_string(log.manifest.rank) + ", " +
               std::to_string(log.records.size()) + " record(s) replayed\n";
  }
  if (ncid >= 0) {
    if (st.is_ok() && (err = ncmpi_end_indep_data(ncid)) != NC_NOERR) st = {err, "end_indep_data failed"};
    if (st.is_ok() && (err = ncmpi_sync(ncid)) != NC_NOERR) st = {err, std::string("sync failed: ") + ncmpi_strerror(err)};
    err = ncmpi_close(ncid);
    if (st.is_ok() && err != NC_NOERR) st = {err, std::string("close failed: ") + ncmpi_strerror(err)};
  }
  g_recovering.fetch_sub(1);
  EXA_RETURN_IF_ERROR(st);
  for (const LoadedLog& log : logs) ::unlink(log.path.c_str());  // only after the sync
  return Status::ok();
}

bool recovering() { return g_recovering.load() > 0; }

void crash_point(const char* point, int rank) {
  static const char* spec = std::getenv("EXACDF_CACHE_CRASH");
  if (!spec || !*spec) return;
  static std::map<std::string, long> passes;
  static std::mutex mutex;  // the mover thread passes points too
  std::lock_guard<std::mutex> lock(mutex);
  const char* colon = std::strchr(spec, ':');
  if (!colon || std::string(spec, colon) != point) return;
  char* end = nullptr;
  const long n = std::strtol(colon + 1, &end, 10);
  if (end && *end == ':' && std::strtol(end + 1, nullptr, 10) != rank) return;
  if (++passes[point] == n) ::raise(SIGKILL);
}

}  // namespace exa::layer::cache
