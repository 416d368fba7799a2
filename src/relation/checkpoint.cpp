#include "relation/checkpoint.hpp"

#include <fcntl.h>
#include <pnetcdf.h>
#include <sys/stat.h>
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
#include <system_error>
#include <thread>

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
  std::string file;  // "ck-<iteration>.<nonce>.nc", relative to dir
  unsigned mask = 0;
  std::vector<ManifestEntry> written;
  std::vector<StagedRelation> staged;  // written[i]'s rows, until the commit
  Manifest manifest;  // restoring: the current manifest
};

std::map<int, std::unique_ptr<Checkpoint>>& table() {
  static std::map<int, std::unique_ptr<Checkpoint>> t;
  return t;
}
int next_id = 1;
int kill_after = -1;  // -1: not read from the environment yet
int relations_written = 0;

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

// Rank 0 only: the manifest attribute of checkpoint file path (any failure
// to read it is a damaged checkpoint directory: NC_ENOTNC).
Status read_manifest_attribute(const std::string& path, std::string* bytes) {
  int ncid = -1;
  int rc = ncmpi_open(MPI_COMM_SELF, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid);
  if (rc != NC_NOERR) return {NC_ENOTNC, "checkpoint file " + path + ": " + ncmpi_strerror(rc)};
  MPI_Offset len = 0;
  rc = ncmpi_inq_attlen(ncid, NC_GLOBAL, kManifestAttribute, &len);
  if (rc == NC_NOERR && (len < 0 || static_cast<uint64_t>(len) > kMaxManifestBytes)) rc = NC_EINVAL;
  if (rc == NC_NOERR) {
    bytes->assign(static_cast<size_t>(len), '\0');
    rc = ncmpi_get_att_text(ncid, NC_GLOBAL, kManifestAttribute, bytes->data());
  }
  const int closed = ncmpi_close(ncid);
  if (rc == NC_NOERR) rc = closed;
  if (rc != NC_NOERR) return {NC_ENOTNC, "checkpoint manifest in " + path + ": " + ncmpi_strerror(rc)};
  return Status::ok();
}

// Rank 0 only: the current manifest's bytes (NC_ENOENT when there is none).
// MANIFEST is a symbolic link to the current checkpoint file, whose manifest
// attribute holds them; in the layout before it (a directory per
// checkpoint) MANIFEST is a text file holding them.
Status read_manifest_bytes(const std::string& dir, std::string* bytes) {
  const std::string path = dir + "/" + kManifest;
  struct stat sb;
  if (::lstat(path.c_str(), &sb) != 0) return errno_status(errno == ENOENT ? NC_ENOENT : NC_EFILE, "stat " + path);
  if (!S_ISLNK(sb.st_mode)) return read_file(path, bytes);
  char target[256];
  const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
  if (n < 0) return errno_status(NC_EFILE, "readlink " + path);
  const std::string file(target, static_cast<size_t>(n));
  if (file.find('/') != std::string::npos || !valid_entry_file(file))
    return {NC_ENOTNC, "checkpoint manifest names " + file};
  return read_manifest_attribute(dir + "/" + file, bytes);
}

// Rank 0 only: makes file the current checkpoint: a symbolic link
// MANIFEST.tmp -> file renamed over MANIFEST (atomic in POSIX), then DIR
// fsynced (the file's own entry, made in the same directory before the
// link, is durable with it).
Status point_manifest(const std::string& dir, const std::string& file) {
  const std::string tmp = dir + "/" + kManifestTmp;
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) return errno_status(NC_EWRITE, "unlink " + tmp);
  if (::symlink(file.c_str(), tmp.c_str()) != 0) return errno_status(NC_EWRITE, "symlink " + tmp);
  if (std::rename(tmp.c_str(), (dir + "/" + kManifest).c_str()) != 0)
    return errno_status(NC_EWRITE, "rename manifest");
  return fsync_path(dir, true);
}

// Rank 0 only: the manifest this process made current last, and where: the
// next commit into the same directory takes it from here instead of opening
// the checkpoint file again, when MANIFEST still names that file (file
// names are never reused, so another writer's commit shows as another name).
struct LastCommit {
  std::string dir, file;
  Manifest manifest;
};
LastCommit& last_commit() {
  static LastCommit last;
  return last;
}

bool manifest_names(const std::string& dir, const std::string& file) {
  char target[256];
  const ssize_t n = ::readlink((dir + "/" + kManifest).c_str(), target, sizeof target - 1);
  return n > 0 && std::string(target, static_cast<size_t>(n)) == file;
}

// Rank 0 only: the current manifest, or an empty one when the directory has none.
Status load_manifest(const std::string& dir, Manifest* m) {
  const LastCommit& last = last_commit();
  if (!last.file.empty() && last.dir == dir && manifest_names(dir, last.file)) {
    *m = last.manifest;
    return Status::ok();
  }
  std::string bytes;
  Status st = read_manifest_bytes(dir, &bytes);
  if (st.code() == NC_ENOENT) {
    *m = Manifest{};
    return Status::ok();
  }
  EXA_RETURN_IF_ERROR(st);
  return decode_manifest(bytes, m);
}

// Rank 0 only: removes the checkpoint files (and old-layout directories)
// neither the manifest nor the current file names (older checkpoints, and
// any a crash left unreferenced).
void collect_garbage(const std::string& dir, const Manifest& m, const std::string& current) {
  std::set<std::string> keep{current};
  for (const ManifestEntry& e : m.entries) keep.insert(entry_leaf(e));
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string leaf = it->path().filename().string();
    if (leaf.rfind("ck-", 0) == 0 && keep.count(leaf) == 0) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

// Rank 0 only: collect_garbage on a thread of its own, off the commit's
// path. Unlinking the superseded checkpoint file (tens of MB: the kernel
// frees its pages and extents) was 13-32 ms of a fe_ocean:2000 commit of
// 75-130 ms (timed at 1 and 2 ranks), a cost MPI-IO OPT, which removes
// nothing, does not have. The next checkpoint call of the process (begin,
// commit, restore) and its exit wait for it, so no removal overlaps the
// next checkpoint's file: a commit's first collective (measure_staged)
// follows rank 0's wait, so no rank creates the next file before it.
class Collector {
 public:
  ~Collector() { wait(); }
  void wait() {
    if (thread_.joinable()) thread_.join();
  }
  void start(const std::string& dir, const Manifest& m, const std::string& current) {
    wait();
    try {
      thread_ = std::thread([dir, m, current] { collect_garbage(dir, m, current); });
    } catch (const std::system_error&) {
      collect_garbage(dir, m, current);  // no thread to be had: remove them now
    }
  }

 private:
  std::thread thread_;
};
Collector& collector() {
  static Collector c;
  return c;
}

Status bcast_status(MPI_Comm comm, Status st) {
  int code = st.code();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm)));
  if (code == NC_NOERR) return Status::ok();
  return st.is_ok() ? Status{code, "failed on rank 0"} : st;
}

// The crash-test hook: the commit that writes relation kill_after dies
// after its file is synced, before MANIFEST names it.
void maybe_kill(size_t relations) {
  if (kill_after < 0) {
    const char* env = std::getenv("EXACDF_CHECKPOINT_KILL_AFTER");
    kill_after = env != nullptr ? std::atoi(env) : 0;
  }
  const int before = relations_written;
  relations_written += static_cast<int>(relations);
  if (kill_after > before && kill_after <= relations_written) std::raise(SIGKILL);
}

}  // namespace

void set_kill_after(int nth) {
  kill_after = nth < 0 ? 0 : nth;
  relations_written = 0;
}

Status checkpoint_begin(MPI_Comm comm, const std::string& dir, int64_t iteration, MPI_Info info, int* ckid) {
  if (dir.empty() || iteration < 0 || ckid == nullptr) return {NC_EINVAL, "checkpoint arguments"};
  collector().wait();
  auto ck = std::make_unique<Checkpoint>();
  ck->dir = dir;
  ck->iteration = iteration;
  EXA_RETURN_IF_ERROR(policy_mask(info, &ck->mask));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(comm, &ck->comm)));
  int rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(ck->comm, &rank)));
  // A fresh file name (rank 0's clock) so a checkpoint never writes over
  // the file of the current one, even for the same iteration. One broadcast
  // carries the name and whether rank 0 could make the directory.
  unsigned long long nonce_code[2] = {0, 0};
  if (rank == 0) {
    nonce_code[0] = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                    (static_cast<unsigned long long>(::getpid()) << 40);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) nonce_code[1] = 1;
  }
  Status st = EXA_MPI(MPI_Bcast(nonce_code, 2, MPI_UNSIGNED_LONG_LONG, 0, ck->comm));
  if (st && nonce_code[1] != 0) st = {NC_EFILE, "checkpoint directory " + dir + " cannot be created"};
  if (!st) {
    EXA_MPI(MPI_Comm_free(&ck->comm)).set_aside("the directory error is reported");
    return st;
  }
  char file[64];
  std::snprintf(file, sizeof file, "ck-%lld.%llx.nc", static_cast<long long>(iteration), nonce_code[0]);
  ck->file = file;
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
  e.file = ck->file;
  StagedRelation staged;  // its row count and the policy come at the commit (one collective for all)
  EXA_RETURN_IF_ERROR(stage_relation(entry_variable(e), arity, nlocal, tuples, &staged));
  ck->written.push_back(std::move(e));
  ck->staged.push_back(std::move(staged));
  return Status::ok();
}

Status checkpoint_commit(int ckid) {
  Checkpoint* ck = find(ckid, false);
  if (ck == nullptr) return {NC_EBADID, "not a checkpoint being written"};
  int rank = 0, size = 1;
  Status st = EXA_MPI(MPI_Comm_rank(ck->comm, &rank));
  if (st) st = EXA_MPI(MPI_Comm_size(ck->comm, &size));
  EXA_RETURN_IF_ERROR(st);
  // Every relation's offsets, totals and skew at once; then the manifest's row counts.
  collector().wait();
  st = measure_staged(ck->comm, ck->staged);
  if (!st) {
    release(ckid).set_aside("the measure's error is reported");
    return st;
  }
  for (size_t i = 0; i < ck->written.size(); ++i) ck->written[i].rows = ck->staged[i].shape.total;
  // Rank 0 builds the next manifest; a failure to read the current one is
  // reported after the file is written (it then is never made current).
  Manifest next;
  std::string text;
  if (rank == 0) {
    Manifest old;
    st = load_manifest(ck->dir, &old);
    next = next_manifest(old, ck->iteration, size, ck->written);
    if (st) text = encode_manifest(next);
  }
  // Every rank's rows written and synced, agreed on every rank.
  const std::string path = ck->dir + "/" + ck->file;
  const Status written = write_checkpoint_file(ck->comm, path, ck->staged, text, ck->mask);
  ck->staged.clear();
  if (rank == 0) {
    if (st) st = written;
    if (st) maybe_kill(ck->written.size());
    if (st) st = point_manifest(ck->dir, ck->file);
    if (st) {
      collector().start(ck->dir, next, ck->file);
      last_commit() = LastCommit{ck->dir, ck->file, next};
    } else {
      // The file stays (MANIFEST may name it already if only the directory
      // fsync failed); the next commit collects it when it is not current.
      last_commit() = LastCommit{};
    }
  }
  st = bcast_status(ck->comm, written ? st : written);
  Status freed = release(ckid);
  return st ? freed : st;
}

Status checkpoint_abort(int ckid) {
  // Nothing of a checkpoint reaches the disk before its commit.
  if (find(ckid, false) == nullptr) return {NC_EBADID, "not a checkpoint being written"};
  return release(ckid);
}

Status checkpoint_restore(MPI_Comm comm, const std::string& dir, int64_t* iteration, int* nrelations, int* ckid) {
  if (dir.empty() || ckid == nullptr) return {NC_EINVAL, "checkpoint arguments"};
  int rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  std::string bytes;
  Status st;
  collector().wait();
  if (rank == 0) st = read_manifest_bytes(dir, &bytes);
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
    const std::string path = ck->dir + "/" + e.file, variable = entry_variable(e);
    const int rc = ncmpi_open(ck->comm, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid);
    if (rc != NC_NOERR) return {rc, "checkpoint file " + path + ": " + ncmpi_strerror(rc)};
    Status st = inquire_relation(ncid, variable, &varid, &arity, &rows);
    if (st && (arity != e.arity || rows != e.rows)) st = {NC_ENOTNC, "checkpoint file " + path + " does not match the manifest"};
    if (st) st = read_relation(ncid, ck->comm, variable, hash_column, out, &arity);
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
