#include <cstdlib>
#include <cstring>

#include "layer/connector.hpp"
#include "layer/native_connector.hpp"
#include "layer/safe_mode_connector.hpp"

namespace exa::layer {

namespace {

bool env_enabled(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

Connector* connector_stack(MPI_Info /*info*/) {
  // Function-local statics: built once, thread-safe, live for the program.
  static NativeConnector native;
  static SafeModeConnector safe(&native);
  if (safe_mode_requested()) return &safe;
  return &native;
}

bool safe_mode_requested() { return env_enabled("PNETCDF_SAFE_MODE"); }

}  // namespace exa::layer
