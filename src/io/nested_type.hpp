// One committed MPI datatype for a rectangular selection of equal-sized elements: an
// hvector per dimension around a contiguous element, the innermost dimension last. The
// file types of access plans and the memory types of varm imaps are both this shape.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "util/status.hpp"

namespace exa::io {

// One dimension: `count` elements `step` bytes apart (count <= INT_MAX).
struct TypeLevel {
  int count = 1;
  MPI_Aint step = 0;
};

// A committed type (the caller frees it) of `levels` (outermost first) around an element
// of `width` bytes. Every MPI call is checked; on failure nothing is left allocated.
Status nested_hvector(int64_t width, const std::vector<TypeLevel>& levels, MPI_Datatype* out);

}  // namespace exa::io
