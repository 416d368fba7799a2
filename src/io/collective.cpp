#include "io/collective.hpp"

#include <climits>

#include <algorithm>

#include "io/mpi_errors.hpp"

namespace exa::io {

Status agree(MPI_Comm comm, const Status& local) {
  int nprocs = 1;
  if (MPI_Comm_size(comm, &nprocs) != MPI_SUCCESS) return {NC_EMPI, "MPI_Comm_size failed while agreeing on an error"};
  if (nprocs == 1) return local;  // nobody else to tell
  int mine = local.code();
  int worst = mine;
  if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return {NC_EMPI, "MPI_Allreduce failed while agreeing on an error"};
  if (worst == mine) return local;
  return {worst, "error reported by another rank"};
}

Status broadcast_bytes(MPI_Comm comm, std::vector<uint8_t>* bytes, int root) {
  int64_t n = static_cast<int64_t>(bytes->size());
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm)));
  bytes->resize(static_cast<size_t>(n));
  for (int64_t off = 0; off < n; off += INT_MAX) {
    const int piece = static_cast<int>(std::min<int64_t>(n - off, INT_MAX));
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(bytes->data() + off, piece, MPI_BYTE, root, comm)));
  }
  return Status::ok();
}

}  // namespace exa::io
