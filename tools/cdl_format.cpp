// CDL formatting rules of netCDF-C's ncdump (4.9), reimplemented:
//  - attributes: float "%#.7g" + "f", double "%#.15g", both with trailing zeros of the
//    fraction removed but the point kept ("1.f", "0.1", "1.e+30"); integer suffixes
//    b, s, (none), UB, US, U, LL, ULL; NaN/Infinity spelled as CDL does.
//  - data: float "%.7g", double "%.15g", integers plain, or the C_format attribute.
//  - text: C escapes, octal for other control bytes, a string break after '\n'.
#include "cdl_format.hpp"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace exa::cdl {
namespace {

// The C locale's classification, which ncdump forces with setlocale(LC_ALL, "C").
bool is_c_cntrl(unsigned char c) { return c < 0x20 || c == 0x7f; }
bool is_c_print(unsigned char c) { return c >= 0x20 && c < 0x7f; }
bool is_c_digit(char c) { return c >= '0' && c <= '9'; }

template <typename... Args>
void append_printf(std::string& out, const char* fmt, Args... args) {
  char buf[128];
  int n = std::snprintf(buf, sizeof buf, fmt, args...);
  if (n < 0) return;
  out.append(buf, static_cast<std::size_t>(n) < sizeof buf ? static_cast<std::size_t>(n)
                                                            : sizeof buf - 1);
}

// Escapes shared by text attributes and text data; returns false if `c` is not one.
bool append_simple_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '\b': out += "\\b"; return true;
    case '\f': out += "\\f"; return true;
    case '\r': out += "\\r"; return true;
    case '\t': out += "\\t"; return true;
    case '\v': out += "\\v"; return true;
    case '\\': out += "\\\\"; return true;
    case '\'': out += "\\'"; return true;
    case '"': out += "\\\""; return true;
    default: return false;
  }
}

void append_octal(std::string& out, unsigned char c) { append_printf(out, "\\%03o", c); }

bool is_name_special(char c) {
  static constexpr std::string_view kSpecial = " !\"#$&'()*,:;<=>?[]\\^`{|}~";
  return kSpecial.find(c) != std::string_view::npos;
}

void append_float_att(std::string& out, float v) {
  if (std::isnan(v)) {
    out += "NaNf";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Infinityf" : "Infinityf";
  } else {
    std::string s;
    append_printf(s, "%#.7gf", static_cast<double>(v));
    trim_fraction_zeros(s);
    out += s;
  }
}

void append_double_att(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Infinity" : "Infinity";
  } else {
    std::string s;
    append_printf(s, "%#.15g", v);
    trim_fraction_zeros(s);
    out += s;
  }
}

template <typename T>
T load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

const char* default_data_format(nc_type type) {
  switch (type) {
    case NC_BYTE: case NC_SHORT: case NC_INT: return "%d";
    case NC_CHAR: return "%s";
    case NC_FLOAT: return "%.7g";
    case NC_DOUBLE: return "%.15g";
    case NC_UBYTE: case NC_USHORT: case NC_UINT: return "%u";
    case NC_INT64: return "%lld";
    case NC_UINT64: return "%llu";
    default: return "";
  }
}

// The printf length modifiers and conversions a value of `type` may use once
// promoted (char/byte/short/ubyte/ushort -> int, float -> double).
bool conversion_fits(nc_type type, std::string_view length, char conv) {
  if (conv == '\0') return false;
  const bool integer_conv = std::strchr("diouxX", conv) != nullptr;
  switch (type) {
    case NC_BYTE: case NC_CHAR: case NC_SHORT: case NC_INT: case NC_UBYTE: case NC_USHORT:
      return (length.empty() || length == "h" || length == "hh") && (integer_conv || conv == 'c');
    case NC_UINT:
      return length.empty() && integer_conv;
    case NC_INT64: case NC_UINT64:
      return (length == "ll" || (length == "l" && sizeof(long) == 8)) && integer_conv;
    case NC_FLOAT: case NC_DOUBLE:
      return (length.empty() || length == "l") && std::strchr("eEfFgGaA", conv) != nullptr;
    default:
      return false;
  }
}

}  // namespace

const char* type_name(nc_type type) {
  switch (type) {
    case NC_BYTE: return "byte";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "ubyte";
    case NC_USHORT: return "ushort";
    case NC_UINT: return "uint";
    case NC_INT64: return "int64";
    case NC_UINT64: return "uint64";
    default: return nullptr;
  }
}

std::size_t type_size(nc_type type) {
  switch (type) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_DOUBLE: case NC_INT64: case NC_UINT64: return 8;
    default: return 0;
  }
}

std::string escape_name(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 4);
  if (!name.empty() && is_c_digit(name[0])) out += '\\';
  for (char c : name) {
    const auto uc = static_cast<unsigned char>(c);
    if (uc >= 0x80) {
      out += c;  // a UTF-8 byte, copied as is
    } else if (is_c_cntrl(uc)) {
      // ncdump's snprintf of "\%xx" into 4 bytes leaves "\%" and one hex digit, then
      // the terminating NUL ends the name.  Such names are invalid netCDF anyway.
      char hex[4];
      std::snprintf(hex, sizeof hex, "%.2x", uc);
      out += "\\%";
      out += hex[0];
      return out;
    } else {
      if (is_name_special(c)) out += '\\';
      out += c;
    }
  }
  return out;
}

std::string dataset_name_from_path(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = base.rfind('.');
  if (dot != std::string_view::npos) base = base.substr(0, dot);
  return std::string(base);
}

void trim_fraction_zeros(std::string& number) {
  std::size_t i = (!number.empty() && number[0] == '-') ? 1 : 0;
  while (i < number.size() && (is_c_digit(number[i]) || number[i] == '.')) ++i;
  if (i == 0 || number[i - 1] == '.') return;
  const std::size_t end = i;
  std::size_t keep = i - 1;
  while (keep > 0 && number[keep] == '0') --keep;
  ++keep;
  if (keep == end) return;
  number.erase(keep, end - keep);
}

std::string format_att_text(std::string_view text) {
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  std::string out = "\"";
  out.reserve(text.size() + 8);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n\",\n\t\t\t\"";
    } else if (!append_simple_escape(out, c)) {
      if (is_c_cntrl(c)) {
        append_octal(out, c);
      } else {
        out += ch;
      }
    }
  }
  out += '"';
  return out;
}

std::string format_att_numbers(nc_type type, const void* values, std::size_t count) {
  std::string out;
  const auto* bytes = static_cast<const unsigned char*>(values);
  const std::size_t size = type_size(type);
  for (std::size_t i = 0; i < count; ++i) {
    const void* p = bytes + i * size;
    switch (type) {
      case NC_BYTE: append_printf(out, "%db", static_cast<int>(load<signed char>(p))); break;
      case NC_SHORT: append_printf(out, "%ds", static_cast<int>(load<short>(p))); break;
      case NC_INT: append_printf(out, "%d", load<int>(p)); break;
      case NC_FLOAT: append_float_att(out, load<float>(p)); break;
      case NC_DOUBLE: append_double_att(out, load<double>(p)); break;
      case NC_UBYTE: append_printf(out, "%uUB", static_cast<unsigned>(load<unsigned char>(p))); break;
      case NC_USHORT:
        append_printf(out, "%uUS", static_cast<unsigned>(load<unsigned short>(p)));
        break;
      case NC_UINT: append_printf(out, "%uU", load<unsigned>(p)); break;
      case NC_INT64: append_printf(out, "%lldLL", load<long long>(p)); break;
      case NC_UINT64: append_printf(out, "%lluULL", load<unsigned long long>(p)); break;
      default: break;
    }
    if (i + 1 < count) out += ", ";
  }
  return out;
}

void append_text_data_char(std::string& out, unsigned char c) {
  if (c == '\n') {
    out += "\\n\",\n    \"";
  } else if (!append_simple_escape(out, c)) {
    if (is_c_print(c)) {
      out += static_cast<char>(c);
    } else {
      append_octal(out, c);
    }
  }
}

bool is_safe_c_format(std::string_view fmt, nc_type type) {
  int conversions = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') continue;
    if (++i < fmt.size() && fmt[i] == '%') continue;  // literal percent
    while (i < fmt.size() && std::strchr("-+ #0", fmt[i]) != nullptr && fmt[i] != '\0') ++i;
    while (i < fmt.size() && is_c_digit(fmt[i])) ++i;
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      while (i < fmt.size() && is_c_digit(fmt[i])) ++i;
    }
    const std::size_t length_start = i;
    while (i < fmt.size() && (fmt[i] == 'h' || fmt[i] == 'l')) ++i;
    if (i >= fmt.size()) return false;
    if (!conversion_fits(type, fmt.substr(length_start, i - length_start), fmt[i])) return false;
    ++conversions;
  }
  return conversions == 1;
}

DataValueFormat::DataValueFormat(nc_type type, const std::optional<std::string>& c_format)
    : type_(type), fmt_(default_data_format(type)) {
  if (c_format && *c_format != fmt_) {
    if (type == NC_CHAR && c_format->empty()) {
      fmt_ = "";
    } else if (is_safe_c_format(*c_format, type)) {
      fmt_ = *c_format;
    }
  }
  text_as_strings_ = type == NC_CHAR && (fmt_ == "%s" || fmt_.empty());
}

void DataValueFormat::append(std::string& out, const void* value) const {
  const char* fmt = fmt_.c_str();
  switch (type_) {
    case NC_BYTE: append_printf(out, fmt, static_cast<int>(load<signed char>(value))); break;
    case NC_CHAR: append_printf(out, fmt, static_cast<int>(load<char>(value))); break;
    case NC_SHORT: append_printf(out, fmt, static_cast<int>(load<short>(value))); break;
    case NC_INT: append_printf(out, fmt, load<int>(value)); break;
    case NC_UBYTE: append_printf(out, fmt, static_cast<int>(load<unsigned char>(value))); break;
    case NC_USHORT: append_printf(out, fmt, static_cast<int>(load<unsigned short>(value))); break;
    case NC_UINT: append_printf(out, fmt, load<unsigned>(value)); break;
    case NC_INT64: append_printf(out, fmt, load<long long>(value)); break;
    case NC_UINT64: append_printf(out, fmt, load<unsigned long long>(value)); break;
    case NC_FLOAT: {
      const float v = load<float>(value);
      if (std::isnan(v)) {
        out += "NaNf";
      } else if (std::isinf(v)) {
        out += v < 0 ? "-Infinityf" : "Infinityf";
      } else {
        append_printf(out, fmt, static_cast<double>(v));
      }
      break;
    }
    case NC_DOUBLE: {
      const double v = load<double>(value);
      if (std::isnan(v)) {
        out += "NaN";
      } else if (std::isinf(v)) {
        out += v < 0 ? "-Infinity" : "Infinity";
      } else {
        append_printf(out, fmt, v);
      }
      break;
    }
    default: break;
  }
}

bool default_fill_for_dump(nc_type type, void* out) {
  switch (type) {
    case NC_CHAR: { char v = NC_FILL_CHAR; std::memcpy(out, &v, sizeof v); return true; }
    case NC_SHORT: { short v = NC_FILL_SHORT; std::memcpy(out, &v, sizeof v); return true; }
    case NC_INT: { int v = NC_FILL_INT; std::memcpy(out, &v, sizeof v); return true; }
    case NC_FLOAT: { float v = NC_FILL_FLOAT; std::memcpy(out, &v, sizeof v); return true; }
    case NC_DOUBLE: { double v = NC_FILL_DOUBLE; std::memcpy(out, &v, sizeof v); return true; }
    case NC_USHORT: { unsigned short v = NC_FILL_USHORT; std::memcpy(out, &v, sizeof v); return true; }
    case NC_UINT: { unsigned v = NC_FILL_UINT; std::memcpy(out, &v, sizeof v); return true; }
    case NC_INT64: { long long v = NC_FILL_INT64; std::memcpy(out, &v, sizeof v); return true; }
    case NC_UINT64: {
      unsigned long long v = NC_FILL_UINT64;
      std::memcpy(out, &v, sizeof v);
      return true;
    }
    default: return false;  // byte and ubyte: ncdump shows no default fill
  }
}

FillMatcher::FillMatcher(nc_type type, const void* fill) : type_(type), active_(fill != nullptr) {
  if (fill != nullptr) std::memcpy(fill_, fill, type_size(type));
}

bool FillMatcher::matches(const void* value) const {
  if (!active_) return false;
  switch (type_) {
    case NC_FLOAT: {
      const float v1 = load<float>(fill_);
      const float v2 = load<float>(value);
      if ((v1 > 0.0f) != (v2 > 0.0f)) return false;
      if (std::isfinite(v1) && std::isfinite(v2)) {
        return std::fabs(v1 - v2) <= std::fabs(FLT_EPSILON * v2);
      }
      return (std::isnan(v1) && std::isnan(v2)) || (std::isinf(v1) && std::isinf(v2));
    }
    case NC_DOUBLE: {
      const double v1 = load<double>(fill_);
      const double v2 = load<double>(value);
      if ((v1 > 0.0) != (v2 > 0.0)) return false;
      if (std::isfinite(v1) && std::isfinite(v2)) {
        return std::fabs(v1 - v2) <= std::fabs(DBL_EPSILON * v2);
      }
      return (std::isnan(v1) && std::isnan(v2)) || (std::isinf(v1) && std::isinf(v2));
    }
    default:
      return std::memcmp(fill_, value, type_size(type_)) == 0;
  }
}

}  // namespace exa::cdl
