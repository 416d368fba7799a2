#include "api/api_support.hpp"

#include <cstring>

namespace exa::api {

namespace {

bool verbose() {
  static const bool on = [] {
    const char* v = std::getenv("EXACDF_VERBOSE");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

}  // namespace

void report(const char* function, const Status& st) {
  if (verbose()) std::fprintf(stderr, "exacdf: %s: %s (%d)\n", function, st.message().c_str(), st.code());
}

void warn(const char* function, const std::string& what) {
  if (verbose()) std::fprintf(stderr, "exacdf: %s: warning: %s\n", function, what.c_str());
}

}  // namespace exa::api
