// What a committed state of a partitioned file references, and the space
// between 4096 and the end in use that neither of two states references:
// an SWMR writer that reopens a file rebuilds its list of reusable space
// from it (docs/format.md, "SWMR", refresh bound), since that list lives in
// the writer's memory only. Pure: no MPI, no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "format/partitioned.hpp"

namespace exa::format::partitioned {

struct Span {
  int64_t offset = 0;
  int64_t size = 0;
  bool operator==(const Span&) const = default;
};

// Appends to *out the extents the state (sb, its whole index table, and
// the decoded blocks that table lists, in any order; a block listed twice
// is fine) references: the index table, every block, the data of every
// fixed-size variable that is not compact, and its records -- the current
// section's [current_first, numrecs) and every closed section -- and the
// `pages` of the table (absolute offsets: decode_index's *pages), which with
// superblock flag 16 may lie outside it. NC_EFILEMETA when a field would
// reach past 2^63.
Status add_references(const Superblock& sb, const IndexTable& index, const std::vector<Block>& blocks,
                      std::vector<Span>* out, const std::vector<PageRef>& pages = {});

// The parts of [from, to) that no extent of `used` covers, by offset.
std::vector<Span> unreferenced(int64_t from, int64_t to, std::vector<Span> used);

}  // namespace exa::format::partitioned
