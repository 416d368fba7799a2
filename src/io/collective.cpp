#include "io/collective.hpp"

namespace exa::io {

Status agree(MPI_Comm comm, const Status& local) {
  int mine = local.code();
  int worst = mine;
  if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return {NC_EMPI, "MPI_Allreduce failed while agreeing on an error"};
  if (worst == mine) return local;
  return {worst, "error reported by another rank"};
}

}  // namespace exa::io
