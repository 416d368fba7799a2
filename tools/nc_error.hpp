// Failure of an ncmpi_* call inside the exacdf tool: the NC_* code and what was being
// done.  Subcommands catch it at their top and turn it into a message and exit status.
#pragma once

#include <pnetcdf.h>

#include <stdexcept>
#include <string>

namespace exa::tool {

class NcError : public std::runtime_error {
 public:
  NcError(int code, const std::string& context)
      : std::runtime_error(context + ": " + ncmpi_strerror(code)), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/** Throws NcError when `status` is not NC_NOERR. */
inline void nc_check(int status, const std::string& context) {
  if (status != NC_NOERR) throw NcError(status, context);
}

}  // namespace exa::tool
