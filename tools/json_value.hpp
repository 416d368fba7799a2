// A small JSON reader for the reports the tools read back (trace reports):
// a value tree, parsed whole; bad input is an error message, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace exa::tool {

struct JsonMember;

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<JsonMember> object;  // in document order

  // A member or element; a null value when absent (so lookups chain).
  const JsonValue& operator[](std::string_view key) const;
  const JsonValue& operator[](size_t index) const;
  size_t size() const;
  int64_t as_int() const { return type == Type::kNumber ? static_cast<int64_t>(number) : 0; }
  double as_double() const { return type == Type::kNumber ? number : 0; }
};

// One member of an object. (Not std::pair: a pair of an incomplete JsonValue
// inside JsonValue is rejected by clang's libstdc++ checks.)
struct JsonMember {
  std::string first;
  JsonValue second;
};

inline size_t JsonValue::size() const { return type == Type::kArray ? array.size() : object.size(); }

// Parses a whole document; false with *error set when it is not valid JSON.
bool parse_json(std::string_view text, JsonValue* out, std::string* error);

}  // namespace exa::tool
