// Writes of many small segments without MPI-IO's per-piece handling: the
// segments are copied, in file order, into one staging buffer and each
// contiguous file run is written by one call (coalesced), and across ranks an
// aggregation of exacdf's own (two-phase): the written extent is cut into one
// contiguous domain per rank, every rank sends each domain's bytes to its
// owner (one alltoall of sizes, one alltoallv), and each owner writes its
// domain coalesced through its own MPI_COMM_SELF handle.
//
// Why: OMPIO turns a view of N pieces into N iovec entries and, collectively,
// into a two-phase exchange whose cost grows with N; an E3SM-like wait_all
// has ~600,000 pieces of 4..288 bytes per step (docs/perf/e3sm_io.md).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "io/aggregate.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// One rank's segments to write, as the strategy choice sees them.
struct WriteShape {
  int64_t segments = 0;
  int64_t bytes = 0;
  int64_t lo = INT64_MAX;  // first byte written (INT64_MAX: none)
  int64_t hi = 0;          // one past the last byte written
};
WriteShape shape_of(const std::vector<Segment>& segments);

// Whether segments of this shape are better staged than described to MPI-IO
// piece by piece: many of them, small on average.
bool many_small_pieces(int64_t segments, int64_t bytes);

// The largest per-rank payload (`bytes` + `segments`) the two-phase exchange
// takes for `nprocs` ranks: every count and displacement fits an int.
bool fits_two_phase(int64_t segments, int64_t bytes, int nprocs);

// Independent: segments in posting order (later ones win on overlap), staged
// in file order; each contiguous run one write_at, or -- past a few runs --
// one write through an hindexed view of the runs. `request_ends`: where each
// request's segments end (ascending), so that they are sorted a few whole
// requests at a time; empty: all at once.
Status write_coalesced(MpiFile& file, const std::vector<Segment>& segments,
                       const std::vector<size_t>& request_ends = {});

// Collective over `comm`; every rank calls it, with or without segments, with
// the same [lo, hi) (the union of every rank's extents). `own` is this rank's
// MPI_COMM_SELF handle of the same file (null: this rank could not open it; it
// still takes part in the exchange, writes nothing). A failed write is its
// domain owner's.
Status write_two_phase(MPI_Comm comm, MpiFile* own, std::vector<Segment> segments, int64_t lo,
                       int64_t hi);

}  // namespace exa::io
