// The Status of an ncmpi_* call the query engine makes through the public API.
#pragma once

#include <string>

#include "pnetcdf.h"
#include "util/status.hpp"

namespace exa::query {

inline Status nc(int code, const char* what) {
  if (code == NC_NOERR) return Status::ok();
  return {code, std::string(what) + ": " + ncmpi_strerror(code)};
}

}  // namespace exa::query
