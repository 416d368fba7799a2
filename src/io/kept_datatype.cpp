#include "io/kept_datatype.hpp"

#include <utility>

#include "io/mpi_errors.hpp"

namespace exa::io {

KeptDatatype::KeptDatatype(KeptDatatype&& other) noexcept
    : type_(std::exchange(other.type_, MPI_DATATYPE_NULL)),
      owned_(std::exchange(other.owned_, false)) {}

KeptDatatype& KeptDatatype::operator=(KeptDatatype&& other) noexcept {
  if (this != &other) {
    release().set_aside("replaced datatype: its free has no caller to report to");
    type_ = std::exchange(other.type_, MPI_DATATYPE_NULL);
    owned_ = std::exchange(other.owned_, false);
  }
  return *this;
}

KeptDatatype::~KeptDatatype() {
  // After MPI_Finalize no MPI call is allowed; the type went with MPI.
  int finalized = 0;
  if (owned_ && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized)
    release().set_aside("destructor: no caller to report to");
}

Status KeptDatatype::keep(MPI_Datatype t, KeptDatatype* out) {
  EXA_RETURN_IF_ERROR(out->release());
  out->type_ = t;
  if (t == MPI_DATATYPE_NULL) return Status::ok();
  int nints = 0, naddrs = 0, ntypes = 0, combiner = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &combiner)));
  if (combiner == MPI_COMBINER_NAMED) return Status::ok();
  MPI_Datatype dup = MPI_DATATYPE_NULL;
  out->type_ = MPI_DATATYPE_NULL;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_dup(t, &dup)));
  out->type_ = dup;
  out->owned_ = true;
  return Status::ok();
}

Status KeptDatatype::release() {
  if (!owned_) return Status::ok();
  owned_ = false;
  return EXA_MPI(MPI_Type_free(&type_));
}

}  // namespace exa::io
