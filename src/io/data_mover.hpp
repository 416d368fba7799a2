// Moving existing variable data to new offsets when a redef grows the
// header or the record size, done by all ranks in parallel as PnetCDF does.
#pragma once

#include <cstdint>
#include <vector>

#include "format/classic_header.hpp"
#include "format/layout.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

struct Move {
  int64_t src = 0;
  int64_t dst = 0;
  int64_t len = 0;
};

// The moves that take the data of the first `old_header.vars.size()`
// variables from their old places to their places in `new_header`
// (fixed variables whole, record variables record by record). Pure.
std::vector<Move> plan_relocation(const format::Header& old_header, const format::Layout& old_layout,
                                  const format::Header& new_header, const format::Layout& new_layout,
                                  int64_t numrecs);

// Collective. Performs moves whose destinations lie at or above their
// sources (data only ever moves towards the end of the file), tail first so
// nothing is overwritten before it is read, in rounds of at most
// `bytes_per_rank` per rank. Errors agreed on all ranks.
Status move_data(MpiFile& file, std::vector<Move> moves, int64_t bytes_per_rank = 16 << 20);

}  // namespace exa::io
