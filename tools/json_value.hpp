// A small JSON reader for the reports the tools read back (trace reports):
// a value tree, parsed whole; bad input is an error message, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace exa::tool {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;

  // A member or element; a null value when absent (so lookups chain).
  const JsonValue& operator[](std::string_view key) const;
  const JsonValue& operator[](size_t index) const;
  size_t size() const { return type == Type::kArray ? array.size() : object.size(); }
  int64_t as_int() const { return type == Type::kNumber ? static_cast<int64_t>(number) : 0; }
  double as_double() const { return type == Type::kNumber ? number : 0; }
};

// Parses a whole document; false with *error set when it is not valid JSON.
bool parse_json(std::string_view text, JsonValue* out, std::string* error);

}  // namespace exa::tool
