// The query engine's index blocks inside partitioned files (docs/format.md
// "Index blocks"), as the native connector offers them through
// Connector::extension(f, "index_blocks", &args): the index of a variable is
// a block of the file's index table under a reserved path (its header) and
// chunk pieces that header points at, written past the end of the space in
// use and made current by a new generation, like any other commit.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace exa::layer {

struct IndexBlocksArgs {
  enum class Op {
    kInfo,     // local: the fields below marked "kInfo"
    kRead,     // local: varid's index block (CRC checked) into bytes; empty: none
    kReadAt,   // local: size bytes at offset into bytes (a chunk piece)
    kStore,    // collective: this rank's bytes written into released space or past the end in use; offset out
    kCommit,   // collective: headers (the same on every rank) become index blocks in a new generation
    kList,     // collective: the varids that have an index block
    kApplied,  // local (on every rank): this process's puts are in the index blocks; the close may clear the writer-open flag
  };
  Op op = Op::kInfo;
  // kInfo: whether the file keeps its indexes inside (a partitioned file
  // without a record dimension: records grow at the end, where index pieces
  // would go), whether this handle may write, and whether index blocks can
  // be trusted: no writer has the file open, or this handle is that writer
  // (then every put since its open is known to this process).
  bool inside = false, writable = false, trusted = false, writer = false;
  int varid = -1;                 // kRead
  uint64_t offset = 0, size = 0;  // kReadAt in; kStore: offset out
  uint64_t at_least = 0;          // kStore: the pieces start at or after this offset (the same on every rank)
  std::vector<uint8_t> bytes;     // kRead, kReadAt out; kStore in
  // kCommit: (varid, header bytes; empty: remove varid's index block).
  std::vector<std::pair<int, std::vector<uint8_t>>> headers;
  // kCommit: (offset, size) of the chunk pieces the committed headers of
  // those varids point at and the new ones do not (the same on every rank):
  // space the commit stops referencing.
  std::vector<std::pair<uint64_t, uint64_t>> released;
  // kCommit: the close's commit: this process's puts are all in the
  // headers (as kApplied), so the new generation also clears the writer-open
  // flag -- one superblock write, and a crash leaves the old generation or
  // this one, both trusted as they stand.
  bool closing = false;
  std::vector<int> varids;  // kList out
};

}  // namespace exa::layer
