// An SWMR writer's reusable space at a reopen (docs/format.md, "SWMR",
// refresh bound): the list of released extents lives in the writer's memory
// only, so a writer that opens a file finds again what no state a reader
// may still fall back to references.
#pragma once

#include <vector>

#include "format/referenced_space.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// Independent (one rank): the extents of [4096, current.file_end) that
// neither `current` (the superblock the file was opened at) nor the state in
// the other superblock slot (its predecessor, the fallback of a torn slot)
// references: their index tables, blocks, fixed-size data and records, read
// from `file` and decoded in full. Any doubt -- the slots on disk are not
// `current` and an older valid one, a table or block that does not decode --
// is an error: the caller then reuses nothing.
Status unreferenced_space(MpiFile& file, const format::partitioned::Superblock& current,
                          std::vector<format::partitioned::Span>* out);

}  // namespace exa::io
