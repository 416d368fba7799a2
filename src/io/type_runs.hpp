// The bytes an MPI datatype's type map touches, as byte runs in type-map
// order: what one instance of the type as a file view reads or writes, in
// the order the transferred buffer holds them. put_vard/get_vard of a record
// variable whose records lie in sections map these runs to where each
// record is (format::map_record_runs).
#pragma once

#include <mpi.h>

#include <vector>

#include "format/record_sections.hpp"
#include "util/status.hpp"

namespace exa::io {

// Runs relative to the type's displacement 0, adjacent runs merged.
// Constructors: named, dup, resized, contiguous, (h)vector, (h)indexed,
// (h)indexed_block, struct, subarray, darray; any other (the deprecated
// Fortran-integer forms, f90 parameterized types) is NC_ENOTSUPPORT. More than kMaxTypeRuns runs is NC_ENOMEM.
inline constexpr size_t kMaxTypeRuns = size_t(1) << 26;
Status type_runs(MPI_Datatype type, std::vector<format::ByteRun>* out);

// A committed hindexed type of bytes over runs sorted by offset (runs
// longer than INT_MAX split), for a file view.
Status byte_runs_type(const std::vector<format::ByteRun>& sorted, MPI_Datatype* type);

}  // namespace exa::io
