// Compact variables of partitioned files (docs/format.md, variable flag 1):
// their data lives in their metadata block. A rank reads a compact variable
// from its block (read once, kept); what it writes stays here, as pieces,
// until the next collective commit point (sync, flush, redef, close), where
// io::commit_compact_pieces rewrites the blocks past the end of the file and
// flips the superblock. Like PnetCDF data written by one rank, other ranks
// see the new values after that commit.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

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

  // Collective: commits every rank's writes (nothing to do: one allreduce).
  Status commit(NativeFile& nf);
  bool dirty() const { return !dirty_.empty(); }

  // The bytes on disk of compact variable `varid` (local id), at file
  // position `pos` of the current index table, the fill value if not written
  // yet (a redef copying it into a new block, after a commit).
  Status value(NativeFile& nf, int varid, int64_t pos, std::vector<uint8_t>* out);

  // After an enddef: file positions and blocks may have changed.
  void reset();

 private:
  struct Piece {
    int64_t offset = 0;
    std::vector<uint8_t> bytes;
  };
  int64_t position(const NativeFile& nf, int varid);
  // The block holding the variable at file position pos, and the position
  // of its first variable (may read the index page).
  static Status block_of(const NativeFile& nf, int64_t pos, size_t* block, int64_t* first_var);
  Status load(NativeFile& nf, int64_t pos);
  // The variable's data as this rank sees it: as read (the fill value where
  // not written yet), with this rank's uncommitted writes on top.
  Status materialize(NativeFile& nf, int varid, int64_t pos, std::vector<uint8_t>** out);
  static std::vector<uint8_t> fill_bytes(const NativeFile& nf, int varid, int64_t bytes);
  std::vector<int> var_pos_;        // local id -> file position (file order not the identity)
  // By file position: data as stored in blocks read (empty: not written yet),
  // and data as this rank sees it.
  std::unordered_map<int64_t, std::vector<uint8_t>> raw_, current_;
  std::map<int64_t, std::vector<Piece>> dirty_;  // this rank's writes, in order
  std::map<int64_t, int> dirty_var_;             // their local ids
};

}  // namespace exa::layer
