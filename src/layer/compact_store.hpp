// Compact variables of partitioned files (docs/format.md, variable flag 1):
// their data lives in their metadata block. A rank reads a compact variable
// from its block (read once, kept); what it writes stays here, as pieces,
// until the next collective commit point (sync, flush, redef, close), where
// io::commit_compact_pieces rewrites the blocks past the end of the file and
// flips the superblock. Like PnetCDF data written independently, other
// ranks see a rank's independent writes after that commit; a collective put
// shows its writes to every rank at once (publish), as PnetCDF's collective
// writes are seen by the collective reads after them.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "format/partitioned.hpp"
#include "io/aggregate.hpp"
#include "util/status.hpp"

namespace exa::layer {

class NativeFile;

class CompactStore {
 public:
  // Whether a valid variable (local id) of a file in data mode is compact.
  static bool is_compact(const NativeFile& nf, int varid);

  // Segments: offsets within the variable's external bytes; data in memory.
  Status read(NativeFile& nf, int varid, std::span<const io::Segment> segments);
  Status write(NativeFile& nf, int varid, std::span<const io::Segment> segments);
  // Collective, in a collective put: every rank's compact writes of the call
  // (`varid` -1: none; `segments` as for write) become this rank's own and
  // the others' view (applied in rank order), so a collective get anywhere
  // sees them; only the writer commits them. *any_io: whether some rank
  // said `needs_io` (its variable is not compact: the MPI-IO call follows).
  Status publish(NativeFile& nf, int varid, std::span<const io::Segment> segments, bool needs_io, bool* any_io);

  // Collective: commits every rank's writes (nothing to do: one allreduce).
  Status commit(NativeFile& nf);
  bool dirty() const { return !log_.empty(); }

  // The bytes on disk of compact variable `varid` (local id), at file
  // position `pos` of the current index table, the fill value if not written
  // yet (a redef copying it into a new block, after a commit).
  Status value(NativeFile& nf, int varid, int64_t pos, std::vector<uint8_t>* out);

  // After an enddef: file positions and blocks may have changed.
  void reset();

  // Encoded blocks this rank just wrote at the enddef, back to back from
  // file offset `offset` (blocks holding compact variables): the first
  // commit writes its pieces into them instead of reading them back. Kept
  // until a commit succeeds or the next enddef.
  void hold_written(uint64_t offset, std::vector<uint8_t> run);
  // The held bytes of the block at `entry` if they are those the entry
  // names (offset, size, CRC), else empty.
  std::span<const uint8_t> held(const format::partitioned::BlockEntry& entry) const;
  size_t held_bytes() const;

  // One write of this rank since the last commit: `len` bytes at `offset`
  // of the variable at file position `pos`, kept in arena_ from `at` on.
  struct Write {
    int64_t pos = 0;
    int varid = 0;
    int64_t offset = 0;
    size_t at = 0, len = 0;
    bool own = true;  // else another rank's, published (it commits it)
  };

 private:
  int64_t position(const NativeFile& nf, int varid);
  // The block holding the variable at file position pos, and the position
  // of its first variable (may read the index page).
  static Status block_of(const NativeFile& nf, int64_t pos, size_t* block, int64_t* first_var);
  Status load(NativeFile& nf, int64_t pos);
  // Keeps a write (this rank's or a published one of another rank).
  void note(int64_t pos, int varid, int64_t offset, std::span<const uint8_t> bytes, bool own);
  // This rank's writes to `pos` (indexes into log_), in order; null if none.
  const std::vector<size_t>* writes_to(int64_t pos);
  // Drops what is kept of the variables of the blocks a commit rewrote.
  Status forget_blocks(NativeFile& nf, const std::vector<size_t>& changed);
  // The variable's data as this rank sees it: as read (the fill value where
  // not written yet), with this rank's uncommitted writes on top.
  Status materialize(NativeFile& nf, int varid, int64_t pos, std::vector<uint8_t>** out);
  static std::vector<uint8_t> fill_bytes(const NativeFile& nf, int varid, int64_t bytes);
  std::vector<int> var_pos_;        // local id -> file position (file order not the identity)
  // By file position: data as stored in blocks read (empty: not written yet),
  // and data as this rank sees it.
  std::unordered_map<int64_t, std::vector<uint8_t>> raw_, current_;
  // This rank's writes since the last commit (and the others' it was shown
  // by publish), in order: appended, no lookup
  // per write (a file of a million variables written once makes a million).
  std::vector<Write> log_;
  std::vector<uint8_t> arena_;
  // log_ by position, built when a read needs it (entries below indexed_).
  std::unordered_map<int64_t, std::vector<size_t>> by_pos_;
  size_t indexed_ = 0;
  // hold_written's runs, by file offset.
  std::map<uint64_t, std::vector<uint8_t>> held_;
};

}  // namespace exa::layer
