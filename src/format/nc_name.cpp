#include "format/nc_name.hpp"

#include <cstdint>

#include "exacdf_nc_constants.h"

namespace exa::format {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 if it is not a valid,
// shortest-form encoding of a scalar value (no surrogates, <= U+10FFFF).
size_t utf8_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return uint8_t(s[k]); };
  const auto cont = [&](size_t k) { return k < s.size() && (byte(k) & 0xC0) == 0x80; };
  uint8_t b = byte(i);
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    uint8_t b1 = byte(i + 1);
    if (b == 0xE0 && b1 < 0xA0) return 0;  // overlong
    if (b == 0xED && b1 > 0x9F) return 0;  // surrogate
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    uint8_t b1 = byte(i + 1);
    if (b == 0xF0 && b1 < 0x90) return 0;  // overlong
    if (b == 0xF4 && b1 > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

bool is_alnum_ascii(uint8_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

}  // namespace

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > NC_MAX_NAME) return false;
  uint8_t first = uint8_t(name[0]);
  if (first < 0x80 && !is_alnum_ascii(first) && first != '_') return false;
  for (size_t i = 0; i < name.size();) {
    size_t n = utf8_length(name, i);
    if (n == 0) return false;
    uint8_t c = uint8_t(name[i]);
    if (n == 1 && (c < 0x20 || c == 0x7F || c == '/')) return false;
    i += n;
  }
  // netCDF rejects trailing white space; the only ASCII space left is ' '.
  return name.back() != ' ';
}

}  // namespace exa::format
