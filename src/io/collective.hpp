// Agreement of outcomes across the ranks of a collective call, so that an
// error on one rank is returned on every rank and no rank is left waiting.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "util/status.hpp"

namespace exa::io {

// Returns on every rank the most negative NC_* code any rank had (one
// allreduce); a rank whose own status is that code keeps its message.
Status agree(MPI_Comm comm, const Status& local);

// Rank `root`'s bytes on every rank (any size: pieces below INT_MAX). Collective.
Status broadcast_bytes(MPI_Comm comm, std::vector<uint8_t>* bytes, int root = 0);

}  // namespace exa::io
