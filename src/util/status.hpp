// Status: an NC_* error code with a message, returned by internal code
// instead of throwing. The message is for EXACDF_VERBOSE diagnostics; the
// code is what reaches the C API. [[nodiscard]]: dropping one is a compile
// error (-Werror); set_aside() is the explicit, greppable exception.
#pragma once

#include <string>
#include <utility>

#include "exacdf_nc_constants.h"

namespace exa {

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(int code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }

  bool is_ok() const { return code_ == NC_NOERR; }
  explicit operator bool() const { return is_ok(); }
  int code() const { return code_; }
  const std::string& message() const { return message_; }

  // The one way to set a status aside: cleanup after an earlier failure (which is what the
  // caller reports) or a destructor, which cannot return one. `why` says which, for readers.
  void set_aside(const char* why) const { static_cast<void>(why); }

 private:
  int code_ = NC_NOERR;
  std::string message_;
};

// Returns early from the calling function when an expression yields a non-ok Status.
#define EXA_RETURN_IF_ERROR(expr)        \
  do {                                   \
    ::exa::Status exa_status_ = (expr);  \
    if (!exa_status_.is_ok()) return exa_status_; \
  } while (0)

}  // namespace exa
