#include "format/classic_names.hpp"

#include "format/nc_name.hpp"
#include "format/partitioned_image.hpp"

namespace exa::format {

bool is_valid_path_name(std::string_view full) {
  return partitioned::is_valid_full_name(full);
}

std::string to_classic_name(std::string_view full) {
  if (!is_valid_path_name(full)) return {};
  if (full.front() == '/') full.remove_prefix(1);
  std::string out;
  out.reserve(full.size() + 8);
  for (size_t i = 0; i < full.size(); ++i) {
    const char c = full[i];
    const char next = i + 1 < full.size() ? full[i + 1] : '\0';
    if (c == '/') {
      out += "__";
    } else if (c == '_' && (next == '_' || next == '-' || next == '/')) {
      out += "_-";  // a lone '_' is never followed by '_' or '-' in a classic name
    } else {
      out += c;
    }
  }
  return is_valid_name(out) ? out : std::string();
}

std::string from_classic_name(std::string_view classic) {
  std::string full;
  bool has_path = false;
  for (size_t i = 0; i < classic.size(); ++i) {
    const char c = classic[i];
    const char next = i + 1 < classic.size() ? classic[i + 1] : '\0';
    if (c == '_' && next == '_') {
      full += '/';
      has_path = true;
      ++i;
    } else if (c == '_' && next == '-') {
      full += '_';
      ++i;
    } else {
      full += c;
    }
  }
  if (has_path) full.insert(full.begin(), '/');
  // Only a name that some full name maps to is read as one: the rest (made
  // by other programs, e.g. "a__" or "x_-y") keep their names.
  if (to_classic_name(full) != classic) return std::string(classic);
  return full;
}

}  // namespace exa::format
