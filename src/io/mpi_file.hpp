// An open MPI-IO file shared by the ranks of a communicator: open/create
// with hints, positioned reads and writes (split so no MPI count exceeds
// INT_MAX) by one rank, sync, size, close, and the file view. Data transfers
// with file views live in access_plan and aggregate, which use handle().
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "util/status.hpp"

namespace exa::io {

// Bytes past the end of the file read as zeros: zeroes what a read left
// unfilled (a read of nbytes into buf that returned `status`). A status's
// count is not enough: Open MPI's collective read reports every byte asked
// for past the end of the file too, and leaves stale or uninitialised bytes
// there; readers also zero by the file's size (MpiFile::size_for_read,
// zero_past_size).
void zero_unread(const MPI_Status& status, void* buf, int64_t nbytes);
// Zeroes the bytes of a contiguous run read from file offset `offset` (nbytes
// into buf) that lie at or past `size`.
void zero_past_size(int64_t size, int64_t offset, void* buf, int64_t nbytes);
// Whether a read of nbytes that returned `status` got all of them.
bool read_complete(const MPI_Status& status, int64_t nbytes);

// The Status of a finished MPI-IO write of `expected` bytes: MPI's error,
// or NC_EWRITE when it moved fewer bytes than asked (Open MPI's ompio
// reports success with a short count when the file system is full).
Status check_written(int mpi_err, const MPI_Status& status, int64_t expected, const char* what);

// Crash tests (exa_debug_fail_write): the nth positioned write of this
// process from now on fails with NC_EWRITE without writing; 0 disarms.
void fail_nth_write(int nth);
// Whether this write is the one to fail (counts one write; every write
// path of the io layer asks).
bool take_injected_write_failure();

// Crash tests by SIGKILL (exa_debug_kill_at, EXACDF_DEBUG_KILL_AT=n): every
// write (the paths that ask take_injected_write_failure), sync and size
// change of this process is one event; the process kills itself with
// SIGKILL before its nth event from now on (0: never).
void note_io_event();
long long io_events();
void kill_at_io_event(long long nth);

// Write-order tests (exa_debug_late_writes): how late this process's data
// writes land (0: not late), and the wait itself.
void set_late_writes(int ms);
int late_writes_ms();
void wait_late_write();

// Commit-order checks (exa_debug_unordered_commits): this process's writes
// not yet synced, and commit points (a superblock, an ordered numrecs)
// written while some were pending -- a crash then could keep the commit
// point and lose what it counts. A write marks, a sync clears.
void note_unsynced_write();
void note_synced();
void note_commit_point();
long long unordered_commits();

// The timing of the last superblock commit this process took part in
// (exa_debug_last_commit, for bench/swmr_bench.c's lag bound): wall-clock
// seconds when commit_superblock began (before the data sync), when the
// superblock was written (rank 0; visible to readers on this node), and when
// it was synced on every rank.
struct CommitTiming {
  long long generation = 0;
  double began = 0, written = 0, synced = 0;
};
void note_commit_began();
void note_commit_written();
void note_commit_synced(long long generation);
CommitTiming last_commit();

// Partitioned metadata this process wrote (exa_debug_blocks_written,
// exa_debug_metadata_bytes_written): the io layer's writers of blocks, index
// tables and superblocks note what they wrote.
void note_metadata_written(int64_t blocks, int64_t bytes);
long long metadata_blocks_written();
long long metadata_bytes_written();
// Index pages and blocks of partitioned files this process read after the
// open's first read (exa_debug_metadata_bytes_read): read_extent and
// share_extents note them.
void note_metadata_read(int64_t bytes);
long long metadata_bytes_read();

class MpiFile {
 public:
  MpiFile() = default;
  MpiFile(const MpiFile&) = delete;
  MpiFile& operator=(const MpiFile&) = delete;
  ~MpiFile();

  // What rank 0 learns right after its open succeeded (a RootStep), handed
  // to every rank by the open's agreement, so it costs no collective call of
  // its own: a number (>= 0) and, at an open, up to kRootPayload bytes.
  struct RootLook {
    int64_t fact = 0;
    std::vector<uint8_t> payload;
  };
  static constexpr size_t kRootPayload = 4096;
  using RootStep = std::function<Status(MpiFile& file, RootLook* look)>;

  // Collective. Creates (NC_CLOBBER truncates an existing file with contents,
  // NC_NOCLOBBER fails with NC_EEXIST) or opens (writable with NC_WRITE).
  // One allreduce agrees every rank's outcome, `carried` (this rank's error
  // from before the open, which still takes part in it) and, at an open,
  // `root_step`'s outcome and look (in `*look` on every rank); a failure of
  // any of them is returned on every rank with the file closed.
  Status create(MPI_Comm comm, const std::string& path, bool noclobber, MPI_Info info,
                const Status& carried = Status::ok());
  Status open(MPI_Comm comm, const std::string& path, bool writable, MPI_Info info,
              const Status& carried = Status::ok(), const RootStep& root_step = nullptr, RootLook* look = nullptr);

  // Independent positioned I/O of contiguous bytes. Needs the byte view: on
  // a file of one rank it is restored here; with more ranks a collective
  // caller must have restored it (use_byte_view), else NC_EINTERNAL.
  Status read_at(int64_t offset, void* buf, int64_t nbytes);
  // `injectable` false: the caller asked take_injected_write_failure once
  // for a write made of several runs (exa_debug_fail_write counts writes).
  Status write_at(int64_t offset, const void* buf, int64_t nbytes, bool injectable = true);

  // Collective. The view of a data transfer (etype MPI_BYTE), on every rank
  // a data view (even where this rank's filetype is MPI_BYTE). It stays set
  // after the transfer, as PnetCDF leaves it: resetting it would cost every
  // collective data call a set_view PnetCDF does not make.
  Status set_view(int64_t disp, MPI_Datatype filetype);
  // Collective. The byte view back for byte-offset I/O, if a data transfer
  // left its view (no MPI call otherwise). Every collective user of byte
  // offsets calls it first; rank-0-only writes inside a collective data call
  // (numrecs) go through another handle instead.
  Status use_byte_view();
  bool has_byte_view() const { return byte_view_; }

  // Collective: flushes written data to storage and orders it before later
  // reads by other ranks (sync, barrier, sync as MPI-IO requires; one sync on one rank).
  Status sync_all();
  // This rank's MPI_File_sync (collective over this file's communicator:
  // local for a file opened on MPI_COMM_SELF).
  Status sync();
  // Collective. Current size in bytes; grow (never shrink) to at least nbytes.
  Status size(int64_t* nbytes);
  Status grow_to(int64_t nbytes);
  // Collective. Closes; safe to call twice.
  Status close();

  // Bytes a reader may expect to exist: the committed end of a partitioned
  // file (its writers make the file at least that long, so missing bytes
  // below it are a truncation). 0 (classic files): bytes past the end of the
  // file read as zeros, as in PnetCDF.
  void set_committed_end(int64_t end) { committed_end_ = end; }
  // An SWMR writer's file: each superblock written carries a heartbeat.
  void set_heartbeat(bool on) { heartbeat_ = on; }
  bool heartbeat() const { return heartbeat_; }
  // After a read of a range ending at `end` got fewer bytes than asked for:
  // NC_ETRUNC when the file is shorter than min(end, committed end), else ok
  // (the caller zeroes what was not read). Independent.
  Status check_short_read(int64_t end);

  // A lower bound of the file's size this rank knows without asking: the
  // largest size it was told (size, size_for_read) and the ends of its own
  // writes (a file only grows while open).
  int64_t known_size() const { return known_size_; }
  void note_extent(int64_t end) { known_size_ = std::max(known_size_, end); }
  // For a read of bytes ending at `end`, the file's size as far as the read
  // needs it: known_size() when `end` lies within it (no MPI call), else
  // MPI_File_get_size (independent, asked after the read: what the read saw).
  // Bytes at or past *size read as zeros.
  Status size_for_read(int64_t end, int64_t* size);
  // Before a write through a data view of nbytes ending at file offset `end`
  // (the view's last byte is `last`): when `end` lies past known_size(), this
  // rank writes that one byte alone first, so the file reaches `end` before
  // the transfer. Open MPI's data sieving of a write with gaps (an
  // independent one's, a collective one's aggregator's) reads the span and
  // writes it back whole; past the end of the file its read is short and the
  // gaps went to disk as whatever its buffer held.
  Status extend_before_write(int64_t end, int64_t nbytes, const void* last);

  // Bytes this rank moved through this file (ncmpi_inq_put_size/get_size).
  int64_t bytes_written() const { return bytes_written_; }
  int64_t bytes_read() const { return bytes_read_; }
  void count_written(int64_t n) {
    bytes_written_ += n;
    ++io_calls_;
    unsynced_ = true;
    note_unsynced_write();
  }
  // Whether this handle wrote since its last sync (a handle of this rank
  // alone with nothing unsynced needs no MPI_File_sync).
  bool has_unsynced_writes() const { return unsynced_; }
  void count_read(int64_t n) { bytes_read_ += n; ++io_calls_; }
  // MPI-IO read/write calls this rank made through this file.
  int64_t io_calls() const { return io_calls_; }

  MPI_File handle() const { return fh_; }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int nprocs() const { return nprocs_; }
  bool writable() const { return writable_; }

 private:
  Status open_impl(MPI_Comm comm, const std::string& path, int amode, MPI_Info info, bool create,
                   const Status& carried, const RootStep& root_step, size_t payload_capacity, RootLook* look);
  void abandon();
  Status need_byte_view();

  MPI_File fh_ = MPI_FILE_NULL;
  MPI_Comm comm_ = MPI_COMM_NULL;  // a dup owned by this object
  int rank_ = 0;
  int nprocs_ = 1;
  bool writable_ = false;
  int64_t bytes_written_ = 0;
  bool unsynced_ = false;
  int64_t bytes_read_ = 0;
  int64_t io_calls_ = 0;
  int64_t committed_end_ = 0;
  int64_t known_size_ = 0;
  bool heartbeat_ = false;
  bool byte_view_ = true;  // a fresh handle's view is bytes from offset 0
};

}  // namespace exa::io
