// Translation of MPI error codes into NC_* codes as PnetCDF reports them.
#pragma once

#include "util/status.hpp"

namespace exa::io {

// What the failing MPI call was doing; it picks the code for generic I/O errors.
enum class MpiOp { kOpen, kCreate, kRead, kWrite, kOther };

// NC_NOERR for MPI_SUCCESS; otherwise the NC_* code of the MPI error class
// (NC_ENOENT, NC_EACCESS, NC_EEXIST, NC_ENO_SPACE, ...), with MPI's message.
Status from_mpi(int mpi_err, MpiOp op, const char* what);

// The Status of an MPI call that moves no file bytes (communication, datatypes, info
// objects), named by its own text: every MPI return code goes through this or from_mpi.
#define EXA_MPI(call) ::exa::io::from_mpi((call), ::exa::io::MpiOp::kOther, #call)

}  // namespace exa::io
