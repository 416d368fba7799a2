// The memory side of a data call: which native type the user's buffer holds
// and how its elements are laid out (contiguous, an MPI derived datatype of
// the flexible API, or the imap of a varm call). Non-contiguous layouts are
// described by one MPI datatype and moved with one MPI_Pack/MPI_Unpack.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "io/access_plan.hpp"
#include "util/byte_buffer.hpp"
#include "util/status.hpp"

namespace exa::io {

// The memory type (an nc_type naming a native C type) of a predefined MPI
// datatype, or NC_NAT.
nc_type memtype_of_predefined(MPI_Datatype t);

// The predefined MPI datatype of a memory type (the inverse of the above),
// or MPI_DATATYPE_NULL.
MPI_Datatype predefined_of_memtype(nc_type t);

// The one basic element type a (possibly derived) datatype is built from:
// NC_EMULTITYPES when it mixes types, NC_EUNSPTETYPE for a type the
// classic formats cannot hold. Also gives the element count of one datatype.
Status element_type_of(MPI_Datatype t, nc_type* memtype, int64_t* elements_per_type);

class MemoryPlan {
 public:
  MemoryPlan() = default;
  MemoryPlan(const MemoryPlan&) = delete;
  MemoryPlan& operator=(const MemoryPlan&) = delete;
  ~MemoryPlan();

  // Describes `buf`: `buftype`/`bufcount` from the flexible API (buftype
  // MPI_DATATYPE_NULL or predefined: contiguous elements), then `imap` (in
  // elements, may be null) over the selection's counts.
  Status build(void* buf, MPI_Datatype buftype, int64_t bufcount, nc_type memtype,
               const Selection& sel, const MPI_Offset* imap);

  // Whether the selected elements lie contiguously at buf().
  bool contiguous() const { return layers_.empty(); }
  void* buf() const { return buf_; }

  // Gathers the selected elements into `out` (contiguous native values).
  Status gather(ByteBuffer* out, int64_t nbytes) const;
  // Scatters contiguous native values back into the user's layout.
  Status scatter(const void* in, int64_t nbytes) const;

 private:
  struct Layer {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int64_t count = 0;
    bool owned = false;
  };
  void* buf_ = nullptr;
  std::vector<Layer> layers_;  // applied outermost first
};

}  // namespace exa::io
