#include "model/names.hpp"

#include <cstdint>

namespace exa::model {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is malformed.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t lead = byte(i);
  size_t len = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3
             : (lead >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if (len == 2 && lead < 0xC2) return 0;  // overlong encoding
  return len;
}

bool is_ascii_alnum_or_underscore(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

Status check_name(std::string_view name) {
  if (name.empty()) return {NC_EBADNAME, "empty name"};
  if (name.size() > NC_MAX_NAME) return {NC_EMAXNAME, "name longer than NC_MAX_NAME"};
  for (size_t i = 0; i < name.size();) {
    size_t len = utf8_sequence_length(name, i);
    if (len == 0) return {NC_EBADNAME, "name is not valid UTF-8"};
    auto c = static_cast<uint8_t>(name[i]);
    if (len == 1) {
      if (i == 0 && !is_ascii_alnum_or_underscore(c))
        return {NC_EBADNAME, "name must start with a letter, digit or '_'"};
      if (c < 0x20 || c == 0x7F || c == '/')
        return {NC_EBADNAME, "name contains a control character or '/'"};
    }
    i += len;
  }
  uint8_t last = static_cast<uint8_t>(name.back());
  if (last == ' ' || (last >= '\t' && last <= '\r'))
    return {NC_EBADNAME, "name ends in white space"};
  return Status::ok();
}

}  // namespace exa::model
