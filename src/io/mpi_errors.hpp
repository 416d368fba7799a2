// Translation of MPI error codes into NC_* codes as PnetCDF reports them.
#pragma once

#include "util/status.hpp"

namespace exa::io {

// What the failing MPI call was doing; it picks the code for generic I/O errors.
enum class MpiOp { kOpen, kCreate, kRead, kWrite, kOther };

// NC_NOERR for MPI_SUCCESS; otherwise the NC_* code of the MPI error class
// (NC_ENOENT, NC_EACCESS, NC_EEXIST, NC_ENO_SPACE, ...), with MPI's message.
Status from_mpi(int mpi_err, MpiOp op, const char* what);

}  // namespace exa::io
