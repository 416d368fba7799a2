// The bytes an MPI datatype's type map touches, as byte runs in type-map
// order: what one instance of the type as a file view reads or writes, in
// the order the transferred buffer holds them. put_vard/get_vard of a record
// variable whose records lie in sections map these runs to where each
// record is (format::map_record_runs).
#pragma once

#include <mpi.h>

#include <functional>
#include <vector>

#include "format/record_sections.hpp"
#include "util/status.hpp"

namespace exa::io {

// The runs, relative to the type's displacement 0 and adjacent runs merged,
// handed one by one to `sink` in type-map order (a sink's error stops the
// walk and is returned). Memory stays bounded whatever the number of runs: a
// child type of many runs is walked again for each copy. Constructors: named,
// dup, resized, contiguous, (h)vector, (h)indexed, (h)indexed_block, struct,
// subarray, darray; any other (the deprecated Fortran-integer forms, f90
// parameterized types) is NC_ENOTSUPPORT.
using RunSink = std::function<Status(const format::ByteRun&)>;
Status for_each_type_run(MPI_Datatype type, const RunSink& sink);

// The same runs in a vector (tests and small types).
Status type_runs(MPI_Datatype type, std::vector<format::ByteRun>* out);

// A committed hindexed type of bytes over runs sorted by offset (runs
// longer than INT_MAX split), for a file view.
Status byte_runs_type(const std::vector<format::ByteRun>& sorted, MPI_Datatype* type);

}  // namespace exa::io
