// The all-to-all of rows exa_relation_read ends with, for any counts: one
// MPI_Alltoallv when every count and displacement fits an int; else, on MPI-4,
// one MPI_Alltoallv_c; else (MPI-3.1, Open MPI 4.1) rounds of MPI_Alltoallv,
// each moving at most `limit / nranks` rows per peer through bounded buffers.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "util/status.hpp"

namespace exa::relation {

// Sends send_rows[p] rows (row_values uint64 each, grouped by destination in
// rank order in send) to each rank p; appends what arrives, grouped by source
// in rank order, to *out. Collective.
Status exchange_rows(MPI_Comm comm, int row_values, const std::vector<uint64_t>& send,
                     const std::vector<uint64_t>& send_rows, std::vector<uint64_t>* out);

// The most rows one MPI_Alltoallv may move per rank (counts and displacements
// in rows are ints): INT_MAX by default. Testing hook: a lower limit forces the
// rounds (on MPI-4 too) with small data; 0 restores the default.
void set_exchange_limit(uint64_t rows);

// Rows of a peer's count moved in round `round` of rounds of at most `per_round`.
inline uint64_t round_share(uint64_t count, uint64_t per_round, uint64_t round) {
  const uint64_t done = per_round * round;
  if (count <= done) return 0;
  return count - done < per_round ? count - done : per_round;
}

}  // namespace exa::relation
