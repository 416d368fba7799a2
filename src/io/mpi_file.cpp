#include "io/mpi_file.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "io/collective.hpp"
#include "io/mpi_errors.hpp"

namespace exa::io {

namespace {

// The largest piece one MPI call moves: MPI counts are int.
constexpr int64_t kMaxPiece = int64_t{1} << 30;

template <typename Fn>
Status in_pieces(int64_t offset, int64_t nbytes, Fn&& fn) {
  do {
    int64_t piece = nbytes < kMaxPiece ? nbytes : kMaxPiece;
    EXA_RETURN_IF_ERROR(fn(offset, piece));
    offset += piece;
    nbytes -= piece;
  } while (nbytes > 0);
  return Status::ok();
}

}  // namespace

namespace {

// The bytes a transfer moved, by its status; 0 when MPI cannot tell (which makes the
// caller treat the transfer as short: the safe side for reads and writes alike).
int64_t bytes_moved(const MPI_Status& status) {
  MPI_Count got = 0;
  MPI_Status copy = status;
  if (MPI_Get_elements_x(&copy, MPI_BYTE, &got) != MPI_SUCCESS || got == MPI_UNDEFINED || got < 0)
    return 0;
  return static_cast<int64_t>(got);
}

}  // namespace

bool read_complete(const MPI_Status& status, int64_t nbytes) { return bytes_moved(status) >= nbytes; }

void zero_unread(const MPI_Status& status, void* buf, int64_t nbytes) {
  const int64_t got = bytes_moved(status);
  if (got < nbytes) std::memset(static_cast<char*>(buf) + got, 0, static_cast<size_t>(nbytes - got));
}

void zero_past_size(int64_t size, int64_t offset, void* buf, int64_t nbytes) {
  const int64_t keep = std::clamp<int64_t>(size - offset, 0, nbytes);
  if (keep < nbytes) std::memset(static_cast<char*>(buf) + keep, 0, static_cast<size_t>(nbytes - keep));
}

Status check_written(int mpi_err, const MPI_Status& status, int64_t expected, const char* what) {
  if (mpi_err != MPI_SUCCESS) return from_mpi(mpi_err, MpiOp::kWrite, what);
  if (expected <= 0) return Status::ok();
  const int64_t got = bytes_moved(status);
  if (got >= expected) return Status::ok();
  return {NC_EWRITE, std::string(what) + ": wrote " + std::to_string(got) + " of " + std::to_string(expected) +
                         " bytes (is the file system full?)"};
}

MpiFile::~MpiFile() { close().set_aside("destructor: a handle still open here was abandoned after an error"); }

namespace {

// The open's agreement travels as 16-bit words, each a maximum over the
// ranks: two error codes (negated), rank 0's fact (4 words), its payload's
// size (2 words) and payload (2 bytes a word); the other ranks give 0 where
// rank 0 tells.
constexpr size_t kHeadWords = 8;

uint16_t code_word(const Status& st) {
  return st.is_ok() ? 0 : static_cast<uint16_t>(std::min(65535, std::max(1, -st.code())));
}

Status word_code(uint16_t w, const char* what) { return w == 0 ? Status::ok() : Status{-int{w}, what}; }

}  // namespace

Status MpiFile::open_impl(MPI_Comm comm, const std::string& path, int amode, MPI_Info info, bool create,
                          const Status& carried, const RootStep& root_step, size_t payload_capacity,
                          RootLook* look) {
  // (A failing MPI_Comm_dup is collective: every rank gets it.)
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_dup(comm, &comm_)));
  // (The rank and size first, whatever `carried` is: the agreement below needs them.)
  Status st = EXA_MPI(MPI_Comm_rank(comm_, &rank_));
  if (st.is_ok()) st = EXA_MPI(MPI_Comm_size(comm_, &nprocs_));
  // Errors on the library's own communicator come back as codes, never abort.
  if (st.is_ok()) st = EXA_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  if (st.is_ok()) st = carried;
  // Every rank takes part in the open, whatever the above gave.
  int err = MPI_File_open(comm_, path.c_str(), amode, info, &fh_);
  if (st.is_ok()) st = from_mpi(err, create ? MpiOp::kCreate : MpiOp::kOpen, "MPI_File_open");
  if (st.is_ok()) st = EXA_MPI(MPI_File_set_errhandler(fh_, MPI_ERRORS_RETURN));
  Status step;
  RootLook seen;
  if (st.is_ok() && rank_ == 0 && root_step) step = root_step(*this, &seen);
  if (seen.payload.size() > payload_capacity) step = {NC_EINTERNAL, "an open's look exceeds its room"};
  if (nprocs_ > 1) {
    std::vector<uint16_t> v(kHeadWords + (payload_capacity + 1) / 2, 0);
    v[0] = code_word(st);
    if (rank_ == 0) {
      v[1] = code_word(step);
      for (int k = 0; k < 4; ++k) v[2 + size_t(k)] = static_cast<uint16_t>(uint64_t(seen.fact) >> (16 * k));
      const size_t n = step.is_ok() ? seen.payload.size() : 0;
      v[6] = static_cast<uint16_t>(n);
      v[7] = static_cast<uint16_t>(n >> 16);
      for (size_t i = 0; step.is_ok() && i < seen.payload.size(); ++i)
        v[kHeadWords + i / 2] |= static_cast<uint16_t>(seen.payload[i] << (8 * (i % 2)));
    }
    Status agreed = EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_UINT16_T, MPI_MAX, comm_));
    // The open's failure first; rank 0 keeps its own messages.
    if (agreed.is_ok() && st.is_ok()) agreed = word_code(v[0], "error reported by another rank");
    if (agreed.is_ok() && st.is_ok()) agreed = step.is_ok() ? word_code(v[1], "error reported by another rank") : step;
    if (st.is_ok()) st = agreed;
    uint64_t fact = 0;
    for (int k = 0; k < 4; ++k) fact |= uint64_t(v[2 + size_t(k)]) << (16 * k);
    seen.fact = int64_t(fact);
    if (rank_ != 0 && st.is_ok()) {
      seen.payload.resize(std::min(size_t(v[6]) | size_t(v[7]) << 16, payload_capacity));
      for (size_t i = 0; i < seen.payload.size(); ++i)
        seen.payload[i] = static_cast<uint8_t>(v[kHeadWords + i / 2] >> (8 * (i % 2)));
    }
  } else if (st.is_ok()) {
    st = step;
  }
  if (!st.is_ok()) {
    abandon();
    return st;
  }
  if (look) *look = std::move(seen);
  return Status::ok();
}

// After a failed open: the handle and the communicator go, the failure is reported.
void MpiFile::abandon() {
  if (fh_ != MPI_FILE_NULL) EXA_MPI(MPI_File_close(&fh_)).set_aside("the open's failure is reported");
  if (comm_ != MPI_COMM_NULL) EXA_MPI(MPI_Comm_free(&comm_)).set_aside("the open's failure is reported");
  fh_ = MPI_FILE_NULL;
  comm_ = MPI_COMM_NULL;
}

Status MpiFile::create(MPI_Comm comm, const std::string& path, bool noclobber, MPI_Info info, const Status& carried) {
  writable_ = true;
  int amode = MPI_MODE_RDWR | MPI_MODE_CREATE | (noclobber ? MPI_MODE_EXCL : 0);
  // NC_CLOBBER: an existing file loses its contents; a new (empty) one is not
  // truncated. On ext4 a truncate to size 0 -- even of an empty file -- marks
  // the inode so that its close starts writeback of everything written since
  // (the replace-via-truncate heuristic, mount option auto_da_alloc): a 64 MiB
  // file's close took 7-23 ms instead of 10 us, and PnetCDF, which truncates
  // only a file that exists, does not pay it for a new file. Rank 0 looks
  // (as PnetCDF's rank 0 does), the open's agreement tells every rank.
  RootStep has_contents = [](MpiFile& file, RootLook* look) {
    int64_t size = 0;
    Status st = file.size(&size);
    look->fact = st.is_ok() && size > 0 ? 1 : 0;
    return st;
  };
  RootLook look;
  EXA_RETURN_IF_ERROR(
      open_impl(comm, path, amode, info, true, carried, noclobber ? nullptr : has_contents, 0, &look));
  const int64_t contents = look.fact;
  known_size_ = 0;  // (rank 0's look saw the old contents)
  if (contents == 0) return Status::ok();
  Status st = from_mpi(MPI_File_set_size(fh_, 0), MpiOp::kWrite, "MPI_File_set_size");
  return agree(comm_, st);
}

Status MpiFile::open(MPI_Comm comm, const std::string& path, bool writable, MPI_Info info, const Status& carried,
                     const RootStep& root_step, RootLook* look) {
  writable_ = writable;
  return open_impl(comm, path, writable ? MPI_MODE_RDWR : MPI_MODE_RDONLY, info, false, carried, root_step,
                   root_step ? kRootPayload : 0, look);
}

Status MpiFile::set_view(int64_t disp, MPI_Datatype filetype) {
  // A data view even where this rank's part is plain bytes (it moves nothing):
  // whether the view is bytes must be the same on every rank, since restoring
  // it is collective, and another rank's view is not bytes.
  byte_view_ = false;
  return from_mpi(MPI_File_set_view(fh_, disp, MPI_BYTE, filetype, "native", MPI_INFO_NULL), MpiOp::kOther,
                  "MPI_File_set_view");
}

Status MpiFile::use_byte_view() {
  if (byte_view_) return Status::ok();
  Status st = from_mpi(MPI_File_set_view(fh_, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), MpiOp::kOther,
                       "MPI_File_set_view");
  byte_view_ = st.is_ok();
  return st;
}

// Byte offsets mean bytes only in the byte view. A one-rank file may set it
// here (set_view is collective over its one rank); with more ranks a rank
// alone cannot, and a collective caller forgot use_byte_view: a bug, loud.
Status MpiFile::need_byte_view() {
  if (byte_view_) return Status::ok();
  if (nprocs_ == 1) return use_byte_view();
  return {NC_EINTERNAL, "byte-offset I/O while a data transfer's file view is set"};
}

Status MpiFile::read_at(int64_t offset, void* buf, int64_t nbytes) {
  EXA_RETURN_IF_ERROR(need_byte_view());
  auto* p = static_cast<char*>(buf);
  return in_pieces(offset, nbytes, [&](int64_t off, int64_t n) {
    MPI_Status status;
    int err = MPI_File_read_at(fh_, off, p + (off - offset), static_cast<int>(n), MPI_BYTE, &status);
    if (err != MPI_SUCCESS) return from_mpi(err, MpiOp::kRead, "MPI_File_read_at");
    count_read(n);
    const bool complete = read_complete(status, n);
    if (!complete) zero_unread(status, p + (off - offset), n);
    int64_t size = 0;
    EXA_RETURN_IF_ERROR(size_for_read(off + n, &size));
    if (complete && size >= off + n) return Status::ok();
    zero_past_size(size, off, p + (off - offset), n);
    return check_short_read(off + n);
  });
}

Status MpiFile::size_for_read(int64_t end, int64_t* size) {
  *size = known_size_;
  if (end <= known_size_) return Status::ok();
  MPI_Offset sz = 0;
  EXA_RETURN_IF_ERROR(from_mpi(MPI_File_get_size(fh_, &sz), MpiOp::kRead, "MPI_File_get_size"));
  note_extent(sz);
  *size = sz;
  return Status::ok();
}

Status MpiFile::extend_before_write(int64_t end, int64_t nbytes, const void* last) {
  if (end <= known_size_ || nbytes <= 0) return Status::ok();
  MPI_Status status;
  const int err = MPI_File_write_at(fh_, nbytes - 1, last, 1, MPI_BYTE, &status);
  // (The write itself notes `end`: with a file type whose bytes do not rise
  // in file order its last byte need not be the highest.)
  Status st = check_written(err, status, 1, "MPI_File_write_at (the end of a write first)");
  // An MPI-IO write call of its own (io_calls); its byte is the transfer's,
  // counted in bytes_written once, by the transfer.
  if (st.is_ok()) ++io_calls_;
  return st;
}

Status MpiFile::check_short_read(int64_t end) {
  if (committed_end_ <= 0) return Status::ok();
  MPI_Offset size = 0;
  EXA_RETURN_IF_ERROR(from_mpi(MPI_File_get_size(fh_, &size), MpiOp::kRead, "MPI_File_get_size"));
  if (size < std::min(end, committed_end_))
    return {NC_ETRUNC, "data lies beyond the end of the file (" + std::to_string(size) + " bytes, " +
                           std::to_string(committed_end_) + " committed): truncated"};
  return Status::ok();
}

namespace {
std::atomic<int> g_fail_write_countdown{0};  // 0: disarmed
}  // namespace

void fail_nth_write(int nth) { g_fail_write_countdown.store(nth > 0 ? nth : 0); }

bool take_injected_write_failure() {
  note_io_event();
  return g_fail_write_countdown.load() > 0 && g_fail_write_countdown.fetch_sub(1) == 1;
}

namespace {
std::atomic<long long> g_io_events{0};
std::atomic<long long> g_kill_at{-1};  // -1: EXACDF_DEBUG_KILL_AT not read yet; 0: never
}  // namespace

void note_io_event() {
  if (g_kill_at.load() < 0) {
    const char* env = std::getenv("EXACDF_DEBUG_KILL_AT");
    g_kill_at.store(env != nullptr ? std::max(0LL, std::atoll(env)) : 0);
  }
  const long long n = g_io_events.fetch_add(1) + 1;
  if (g_kill_at.load() > 0 && n == g_kill_at.load()) std::raise(SIGKILL);  // as kill -9: nothing after
}

long long io_events() { return g_io_events.load(); }

namespace {
std::atomic<int> g_late_write_ms{0};
}  // namespace

void set_late_writes(int ms) { g_late_write_ms.store(ms > 0 ? ms : 0); }
int late_writes_ms() { return g_late_write_ms.load(); }
void wait_late_write() {
  if (const int ms = g_late_write_ms.load(); ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void kill_at_io_event(long long nth) {
  g_kill_at.store(nth > 0 ? g_io_events.load() + nth : 0);
}

namespace {
std::atomic<long long> g_unsynced_writes{0};
std::atomic<long long> g_unordered_commits{0};
}  // namespace

void note_unsynced_write() { g_unsynced_writes.fetch_add(1); }
void note_synced() { g_unsynced_writes.store(0); }
void note_commit_point() {
  if (g_unsynced_writes.load() > 0) g_unordered_commits.fetch_add(1);
}
long long unordered_commits() { return g_unordered_commits.load(); }

namespace {
std::mutex g_commit_mutex;
CommitTiming g_commit_pending, g_commit_last;  // the one in progress, the last synced
double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
}  // namespace

void note_commit_began() {
  std::lock_guard lock(g_commit_mutex);
  g_commit_pending = CommitTiming{};
  g_commit_pending.began = wall_seconds();
}
void note_commit_written() {
  std::lock_guard lock(g_commit_mutex);
  g_commit_pending.written = wall_seconds();
}
void note_commit_synced(long long generation) {
  std::lock_guard lock(g_commit_mutex);
  g_commit_pending.synced = wall_seconds();
  if (g_commit_pending.began == 0) g_commit_pending.began = g_commit_pending.synced;
  if (g_commit_pending.written == 0) g_commit_pending.written = g_commit_pending.synced;  // not rank 0
  g_commit_pending.generation = generation;
  g_commit_last = g_commit_pending;
  g_commit_pending = CommitTiming{};
}
CommitTiming last_commit() {
  std::lock_guard lock(g_commit_mutex);
  return g_commit_last;
}

namespace {
std::atomic<long long> g_metadata_blocks{0};
std::atomic<long long> g_metadata_bytes{0};
}  // namespace

void note_metadata_written(int64_t blocks, int64_t bytes) {
  g_metadata_blocks.fetch_add(blocks);
  g_metadata_bytes.fetch_add(bytes);
}
long long metadata_blocks_written() { return g_metadata_blocks.load(); }
long long metadata_bytes_written() { return g_metadata_bytes.load(); }

namespace {
std::atomic<long long> g_metadata_bytes_read{0};
}  // namespace

void note_metadata_read(int64_t bytes) { g_metadata_bytes_read.fetch_add(bytes); }
long long metadata_bytes_read() { return g_metadata_bytes_read.load(); }

Status MpiFile::write_at(int64_t offset, const void* buf, int64_t nbytes, bool injectable) {
  if (!writable_) return {NC_EPERM, "file is open read-only"};
  EXA_RETURN_IF_ERROR(need_byte_view());
  if (injectable && take_injected_write_failure())
    return {NC_EWRITE, "write failed (injected by exa_debug_fail_write)"};
  wait_late_write();
  const auto* p = static_cast<const char*>(buf);
  return in_pieces(offset, nbytes, [&](int64_t off, int64_t n) {
    MPI_Status status;
    int err = MPI_File_write_at(fh_, off, p + (off - offset), static_cast<int>(n), MPI_BYTE, &status);
    Status st = check_written(err, status, n, "MPI_File_write_at");
    if (st.is_ok()) count_written(n);
    if (st.is_ok()) note_extent(off + n);
    return st;
  });
}

Status MpiFile::sync() {
  note_io_event();
  Status st = from_mpi(MPI_File_sync(fh_), MpiOp::kWrite, "MPI_File_sync");
  if (st.is_ok()) {
    note_synced();
    unsynced_ = false;
  }
  return st;
}

Status MpiFile::sync_all() {
  Status st = sync();
  // One rank: no other process's writes to order, the second fsync has nothing to flush.
  if (nprocs_ == 1) return st;
  Status waited = EXA_MPI(MPI_Barrier(comm_));
  if (st.is_ok()) st = waited;
  Status again = sync();
  return st.is_ok() ? again : st;
}

Status MpiFile::size(int64_t* nbytes) {
  MPI_Offset sz = 0;
  Status st = from_mpi(MPI_File_get_size(fh_, &sz), MpiOp::kOther, "MPI_File_get_size");
  *nbytes = sz;
  if (st.is_ok()) note_extent(sz);
  return st;
}

Status MpiFile::grow_to(int64_t nbytes) {
  int64_t current = 0;
  EXA_RETURN_IF_ERROR(size(&current));
  if (current >= nbytes) return Status::ok();
  note_io_event();
  Status st = from_mpi(MPI_File_set_size(fh_, nbytes), MpiOp::kWrite, "MPI_File_set_size");
  if (st.is_ok()) note_extent(nbytes);
  return st;
}

Status MpiFile::close() {
  Status st;
  if (fh_ != MPI_FILE_NULL) st = from_mpi(MPI_File_close(&fh_), MpiOp::kOther, "MPI_File_close");
  fh_ = MPI_FILE_NULL;
  byte_view_ = true;
  known_size_ = 0;
  if (comm_ != MPI_COMM_NULL) {
    Status freed = EXA_MPI(MPI_Comm_free(&comm_));
    if (st.is_ok()) st = freed;
  }
  comm_ = MPI_COMM_NULL;
  return st;
}

}  // namespace exa::io
