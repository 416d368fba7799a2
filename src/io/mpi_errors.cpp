#include "io/mpi_errors.hpp"

#include <mpi.h>

#include <string>

namespace exa::io {

namespace {

int code_for_class(int error_class, MpiOp op) {
  switch (error_class) {
    case MPI_ERR_NO_SUCH_FILE: return NC_ENOENT;
    case MPI_ERR_ACCESS: return NC_EACCESS;
    case MPI_ERR_FILE_EXISTS: return NC_EEXIST;
    case MPI_ERR_NO_SPACE: return NC_ENO_SPACE;
    case MPI_ERR_QUOTA: return NC_EQUOTA;
    case MPI_ERR_READ_ONLY: return NC_EPERM;
    case MPI_ERR_BAD_FILE: return NC_EBAD_FILE;
    case MPI_ERR_AMODE: return NC_EINVAL_OMODE;
    case MPI_ERR_FILE_IN_USE: return NC_EFILE;
    default: break;
  }
  switch (op) {
    case MpiOp::kRead: return NC_EREAD;
    case MpiOp::kWrite: return NC_EWRITE;
    case MpiOp::kOpen:
    case MpiOp::kCreate: return NC_EFILE;
    case MpiOp::kOther: break;
  }
  return NC_EMPI;
}

}  // namespace

Status from_mpi(int mpi_err, MpiOp op, const char* what) {
  if (mpi_err == MPI_SUCCESS) return Status::ok();
  int error_class = MPI_ERR_OTHER;
  if (MPI_Error_class(mpi_err, &error_class) != MPI_SUCCESS) error_class = MPI_ERR_OTHER;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_err, text, &len) != MPI_SUCCESS) len = 0;
  return {code_for_class(error_class, op), std::string(what) + ": " + std::string(text, static_cast<size_t>(len))};
}

}  // namespace exa::io
