#include <cstdlib>
#include <cstring>
#include <mutex>

#include "layer/connector.hpp"
#include "layer/native_connector.hpp"
#include "layer/safe_mode_connector.hpp"
#include "layer/trace_connector.hpp"

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
  Connector* below = safe_mode_requested() ? static_cast<Connector*>(&safe) : &native;
  // TEMPORARY (trace branch, replaced by the registry at merge): EXACDF_TRACE_DIR=DIR stacks trace{dir=DIR} on top.
  if (const char* dir = std::getenv("EXACDF_TRACE_DIR"); dir != nullptr && *dir != '\0') {
    static std::unique_ptr<Connector> traced;
    static std::once_flag once;
    std::call_once(once, [&] { if (!make_trace_connector(below, {{"dir", dir}}, &traced).is_ok()) traced.reset(); });
    if (traced) return traced.get();
  }
  return below;
}

bool safe_mode_requested() { return env_enabled("PNETCDF_SAFE_MODE"); }

}  // namespace exa::layer
