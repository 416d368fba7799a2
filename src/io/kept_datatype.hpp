// A request's own reference to the user's MPI datatype. The flexible API lets
// the caller free its buftype as soon as a nonblocking call returns, so a
// request that needs the layout later (an iget scatters at wait) keeps a
// duplicate, freed exactly once: when the request completes, is cancelled or
// is dropped at close. Predefined types and MPI_DATATYPE_NULL are kept as
// they are (they cannot be freed).
#pragma once

#include <mpi.h>

#include "util/status.hpp"

namespace exa::io {

class KeptDatatype {
 public:
  KeptDatatype() = default;
  KeptDatatype(const KeptDatatype&) = delete;
  KeptDatatype& operator=(const KeptDatatype&) = delete;
  KeptDatatype(KeptDatatype&& other) noexcept;
  KeptDatatype& operator=(KeptDatatype&& other) noexcept;
  // Frees a duplicate not released before (an error path); nothing to report to.
  ~KeptDatatype();

  // Keeps `t`: a duplicate when it is a derived type, else `t` itself.
  static Status keep(MPI_Datatype t, KeptDatatype* out);

  MPI_Datatype get() const { return type_; }
  bool owned() const { return owned_; }

  // Frees the duplicate (if any) once; later calls do nothing.
  Status release();

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  bool owned_ = false;
};

}  // namespace exa::io
