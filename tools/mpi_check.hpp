// MPI calls of the exacdf command. main() makes MPI_COMM_WORLD return errors
// instead of aborting; every call is checked with mpi_check, and a failure
// becomes MpiError: a message naming the call and MPI's reason, and exit
// status 1 (subcommands report it like NcError; main catches the rest).
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace exa::tool {

class MpiError : public std::runtime_error {
 public:
  MpiError(int err, const char* call) : std::runtime_error(std::string(call) + " failed: " + reason(err)) {}

 private:
  static std::string reason(int err) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(err);
    return std::string(text, size_t(len));
  }
};

/** Throws MpiError when `err` (the return of MPI call `call`) is not MPI_SUCCESS. */
inline void mpi_check(int err, const char* call) {
  if (err != MPI_SUCCESS) throw MpiError(err, call);
}

}  // namespace exa::tool
