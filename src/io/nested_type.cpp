#include "io/nested_type.hpp"

#include "io/mpi_errors.hpp"

namespace exa::io {

Status nested_hvector(int64_t width, const std::vector<TypeLevel>& levels, MPI_Datatype* out) {
  MPI_Datatype t;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_contiguous(static_cast<int>(width), MPI_BYTE, &t)));
  Status st;
  for (size_t k = levels.size(); k-- > 0 && st.is_ok();) {
    MPI_Datatype next;
    st = EXA_MPI(MPI_Type_create_hvector(levels[k].count, 1, levels[k].step, t, &next));
    Status freed = EXA_MPI(MPI_Type_free(&t));
    if (st.is_ok()) st = freed;
    t = st.is_ok() ? next : MPI_DATATYPE_NULL;
  }
  if (st.is_ok()) st = EXA_MPI(MPI_Type_commit(&t));
  if (!st.is_ok()) {
    if (t != MPI_DATATYPE_NULL)
      EXA_MPI(MPI_Type_free(&t)).set_aside("building the type failed: that is reported");
    return st;
  }
  *out = t;
  return Status::ok();
}

}  // namespace exa::io
