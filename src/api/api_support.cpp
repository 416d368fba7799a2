#include "api/api_support.hpp"

#include <cstring>

namespace exa::api {

void report(const char* function, const Status& st) {
  static const bool verbose = [] {
    const char* v = std::getenv("EXACDF_VERBOSE");
    return v && std::strcmp(v, "1") == 0;
  }();
  if (verbose) std::fprintf(stderr, "exacdf: %s: %s (%d)\n", function, st.message().c_str(), st.code());
}

}  // namespace exa::api
