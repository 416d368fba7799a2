#include "relation/checkpoint.hpp"

#include <fcntl.h>
#include <pnetcdf.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "io/mpi_errors.hpp"
#include "relation/pure/manifest.hpp"
#include "relation/relation_io.hpp"

namespace exa::relation {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifest = "MANIFEST";
constexpr const char* kManifestTmp = "MANIFEST.tmp";

struct Checkpoint {
  MPI_Comm comm = MPI_COMM_NULL;
  std::string dir;
  int64_t iteration = 0;
  bool restoring = false;
  std::string subdir;  // "ck-<iteration>.<nonce>", relative to dir
  unsigned mask = 0;
  std::vector<ManifestEntry> written;
  Manifest manifest;  // restoring: the current manifest
};

std::map<int, std::unique_ptr<Checkpoint>>& table() {
  static std::map<int, std::unique_ptr<Checkpoint>> t;
  return t;
}
int next_id = 1;
int kill_after = -1;  // -1: not read from the environment yet
int files_written = 0;

Checkpoint* find(int ckid, bool restoring) {
  auto it = table().find(ckid);
  if (it == table().end() || it->second->restoring != restoring) return nullptr;
  return it->second.get();
}

Status release(int ckid) {
  auto it = table().find(ckid);
  Status st = EXA_MPI(MPI_Comm_free(&it->second->comm));
  table().erase(it);
  return st;
}

Status errno_status(int code, const std::string& what) {
  return {code, what + ": " + std::strerror(errno)};
}

Status fsync_path(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return errno_status(NC_EFILE, "open " + path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return errno_status(NC_EWRITE, "fsync " + path);
  return Status::ok();
}

// Rank 0 only: the manifest's bytes (NC_ENOENT when there is none).
Status read_file(const std::string& path, std::string* bytes) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return errno_status(errno == ENOENT ? NC_ENOENT : NC_EFILE, "open " + path);
  bytes->clear();
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || bytes->size() > kMaxManifestBytes) break;
    bytes->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return Status::ok();
}

Status write_file_synced(const std::string& path, const std::string& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return errno_status(NC_EFILE, "create " + path);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return errno_status(NC_EWRITE, "write " + path);
    }
    done += static_cast<size_t>(n);
  }
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return errno_status(NC_EWRITE, "fsync " + path);
  return Status::ok();
}

// Rank 0 only: the current manifest, or an empty one when the directory has none.
Status load_manifest(const std::string& dir, Manifest* m, bool* found) {
  std::string bytes;
  Status st = read_file(dir + "/" + kManifest, &bytes);
  *found = st.is_ok();
  if (st.code() == NC_ENOENT) {
    *m = Manifest{};
    return Status::ok();
  }
  EXA_RETURN_IF_ERROR(st);
  return decode_manifest(bytes, m);
}

// Rank 0 only: removes checkpoint directories the manifest does not name
// (older checkpoints, and any a crash left half written).
void collect_garbage(const std::string& dir, const Manifest& m) {
  std::set<std::string> keep;
  for (const ManifestEntry& e : m.entries) keep.insert(e.file.substr(0, e.file.find('/')));
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string leaf = it->path().filename().string();
    if (leaf.rfind("ck-", 0) == 0 && keep.count(leaf) == 0) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

Status bcast_status(MPI_Comm comm, Status st) {
  int code = st.code();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm)));
  if (code == NC_NOERR) return Status::ok();
  return st.is_ok() ? Status{code, "failed on rank 0"} : st;
}

void maybe_kill() {
  if (kill_after < 0) {
    const char* env = std::getenv("EXACDF_CHECKPOINT_KILL_AFTER");
    kill_after = env != nullptr ? std::atoi(env) : 0;
  }
  ++files_written;
  if (kill_after > 0 && files_written == kill_after) std::raise(SIGKILL);
}

}  // namespace

void set_kill_after(int nth) {
  kill_after = nth < 0 ? 0 : nth;
  files_written = 0;
}

Status checkpoint_begin(MPI_Comm comm, const std::string& dir, int64_t iteration, MPI_Info info, int* ckid) {
  if (dir.empty() || iteration < 0 || ckid == nullptr) return {NC_EINVAL, "checkpoint arguments"};
  auto ck = std::make_unique<Checkpoint>();
  ck->dir = dir;
  ck->iteration = iteration;
  EXA_RETURN_IF_ERROR(policy_mask(info, &ck->mask));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(comm, &ck->comm)));
  int rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(ck->comm, &rank)));
  // A fresh directory name (rank 0's clock) so a checkpoint never writes over
  // the files of the current one, even for the same iteration.
  unsigned long long nonce = 0;
  if (rank == 0)
    nonce = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
            (static_cast<unsigned long long>(::getpid()) << 40);
  Status st = EXA_MPI(MPI_Bcast(&nonce, 1, MPI_UNSIGNED_LONG_LONG, 0, ck->comm));
  char sub[64];
  std::snprintf(sub, sizeof sub, "ck-%lld.%llx", static_cast<long long>(iteration), nonce);
  ck->subdir = sub;
  if (st && rank == 0) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) fs::create_directory(dir + "/" + ck->subdir, ec);
    if (ec) st = {NC_EFILE, "checkpoint directory " + dir + ": " + ec.message()};
  }
  st = bcast_status(ck->comm, st);
  if (!st) {
    EXA_MPI(MPI_Comm_free(&ck->comm)).set_aside("the directory error is reported");
    return st;
  }
  *ckid = next_id++;
  table()[*ckid] = std::move(ck);
  return Status::ok();
}

Status checkpoint_write(int ckid, const std::string& name, int kind, int arity, uint64_t nlocal,
                        const uint64_t* tuples) {
  Checkpoint* ck = find(ckid, false);
  if (ck == nullptr) return {NC_EBADID, "not a checkpoint being written"};
  if (!valid_relation_name(name)) return {NC_EBADNAME, "relation name " + name};
  if (kind != 0 && kind != 1) return {NC_EINVAL, "checkpoint kind"};
  if (arity < 1 || arity > kMaxArity) return {NC_EINVAL, "arity"};
  if (nlocal > 0 && tuples == nullptr) return {NC_EINVAL, "null tuples"};
  for (const ManifestEntry& e : ck->written)
    if (e.relation == name && e.delta == (kind == 1)) return {NC_ENAMEINUSE, "relation written twice: " + name};
  ManifestEntry e;
  e.relation = name;
  e.arity = arity;
  e.delta = kind == 1;
  e.iteration = ck->iteration;
  e.file = ck->subdir + "/" + name + (e.delta ? "_delta" : "_full") + ".nc";
  EXA_RETURN_IF_ERROR(
      write_relation_file(ck->comm, ck->dir + "/" + e.file, name, arity, nlocal, tuples, ck->mask, &e.rows));
  ck->written.push_back(std::move(e));
  int rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(ck->comm, &rank)));
  if (rank == 0) maybe_kill();
  return Status::ok();
}

Status checkpoint_commit(int ckid) {
  Checkpoint* ck = find(ckid, false);
  if (ck == nullptr) return {NC_EBADID, "not a checkpoint being written"};
  int rank = 0, size = 1;
  Status st = EXA_MPI(MPI_Comm_rank(ck->comm, &rank));
  if (st) st = EXA_MPI(MPI_Comm_size(ck->comm, &size));
  // Every rank's files are synced (write_relation_file); the barrier makes it so for all.
  if (st) st = EXA_MPI(MPI_Barrier(ck->comm));
  if (st && rank == 0) {
    Manifest old;
    bool found = false;
    st = fsync_path(ck->dir + "/" + ck->subdir, true);
    if (st) st = load_manifest(ck->dir, &old, &found);
    const Manifest next = next_manifest(old, ck->iteration, size, ck->written);
    if (st) st = write_file_synced(ck->dir + "/" + kManifestTmp, encode_manifest(next));
    if (st && std::rename((ck->dir + "/" + kManifestTmp).c_str(), (ck->dir + "/" + kManifest).c_str()) != 0)
      st = errno_status(NC_EWRITE, "rename manifest");
    if (st) st = fsync_path(ck->dir, true);
    if (st) collect_garbage(ck->dir, next);
  }
  st = bcast_status(ck->comm, st);
  Status freed = release(ckid);
  return st ? freed : st;
}

Status checkpoint_abort(int ckid) {
  Checkpoint* ck = find(ckid, false);
  if (ck == nullptr) return {NC_EBADID, "not a checkpoint being written"};
  int rank = 0;
  Status st = EXA_MPI(MPI_Barrier(ck->comm));
  if (st) st = EXA_MPI(MPI_Comm_rank(ck->comm, &rank));
  if (st && rank == 0) {
    std::error_code ec;
    fs::remove_all(ck->dir + "/" + ck->subdir, ec);
  }
  Status freed = release(ckid);
  return st ? freed : st;
}

Status checkpoint_restore(MPI_Comm comm, const std::string& dir, int64_t* iteration, int* nrelations, int* ckid) {
  if (dir.empty() || ckid == nullptr) return {NC_EINVAL, "checkpoint arguments"};
  int rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  std::string bytes;
  Status st;
  if (rank == 0) st = read_file(dir + "/" + kManifest, &bytes);
  EXA_RETURN_IF_ERROR(bcast_status(comm, st));
  unsigned long long n = bytes.size();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm)));
  if (n > kMaxManifestBytes) return {NC_ENOTNC, "checkpoint manifest larger than 1 MiB"};
  bytes.resize(n);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_CHAR, 0, comm)));
  auto ck = std::make_unique<Checkpoint>();
  EXA_RETURN_IF_ERROR(decode_manifest(bytes, &ck->manifest));  // the same bytes: the same answer everywhere
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(comm, &ck->comm)));
  ck->dir = dir;
  ck->restoring = true;
  ck->iteration = ck->manifest.iteration;
  std::set<std::string> names;
  for (const ManifestEntry& e : ck->manifest.entries) names.insert(e.relation);
  if (iteration != nullptr) *iteration = ck->iteration;
  if (nrelations != nullptr) *nrelations = static_cast<int>(names.size());
  *ckid = next_id++;
  table()[*ckid] = std::move(ck);
  return Status::ok();
}

Status checkpoint_inq_relation(int ckid, int i, std::string* name, int* arity) {
  Checkpoint* ck = find(ckid, true);
  if (ck == nullptr) return {NC_EBADID, "not a restored checkpoint"};
  int seen = -1;
  std::set<std::string> names;
  for (const ManifestEntry& e : ck->manifest.entries) {
    if (!names.insert(e.relation).second) continue;
    if (++seen == i) {
      *name = e.relation;
      if (arity != nullptr) *arity = e.arity;
      return Status::ok();
    }
  }
  return {NC_EINVAL, "relation index out of range"};
}

Status checkpoint_read(int ckid, const std::string& name, int hash_column, std::vector<uint64_t>* out,
                       int* arity_out) {
  Checkpoint* ck = find(ckid, true);
  if (ck == nullptr) return {NC_EBADID, "not a restored checkpoint"};
  bool any = false;
  for (const ManifestEntry& e : ck->manifest.entries) {
    if (e.relation != name) continue;
    any = true;
    int ncid = -1, arity = 0, varid = -1;
    uint64_t rows = 0;
    const std::string path = ck->dir + "/" + e.file;
    const int rc = ncmpi_open(ck->comm, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid);
    if (rc != NC_NOERR) return {rc, "checkpoint file " + path + ": " + ncmpi_strerror(rc)};
    Status st = inquire_relation(ncid, name, &varid, &arity, &rows);
    if (st && (arity != e.arity || rows != e.rows)) st = {NC_ENOTNC, "checkpoint file " + path + " does not match the manifest"};
    if (st) st = read_relation(ncid, ck->comm, name, hash_column, out, &arity);
    *arity_out = arity;
    const int closed = ncmpi_close(ncid);
    EXA_RETURN_IF_ERROR(st);
    if (closed != NC_NOERR) return {closed, "close " + path};
  }
  if (!any) return {NC_ENOTVAR, "no relation " + name + " in the checkpoint"};
  return Status::ok();
}

Status checkpoint_close(int ckid) {
  if (find(ckid, true) == nullptr) return {NC_EBADID, "not a restored checkpoint"};
  return release(ckid);
}

}  // namespace exa::relation
