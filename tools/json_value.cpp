#include "json_value.hpp"

#include <cstdlib>

namespace exa::tool {

namespace {

const JsonValue kNull;

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  bool document(JsonValue* out, std::string* error) {
    bool ok = value(out, 0);
    skip_space();
    if (ok && pos_ != s_.size()) ok = fail("trailing characters");
    if (!ok) *error = error_ + " at byte " + std::to_string(pos_);
    return ok;
  }

 private:
  static constexpr int kMaxDepth = 64;

  bool fail(const char* what) {
    if (error_.empty()) error_ = what;
    return false;
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return fail("bad literal");
    pos_ += word.size();
    return true;
  }
  bool value(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    skip_space();
    if (pos_ >= s_.size()) return fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out->type = JsonValue::Type::kString;
      return string(&out->string);
    }
    if (c == 't' || c == 'f') {
      out->type = JsonValue::Type::kBool;
      out->boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') return literal("null");
    return number(out);
  }
  bool number(JsonValue* out) {
    const size_t begin = pos_;
    while (pos_ < s_.size() && std::string_view("+-0123456789.eE").find(s_[pos_]) != std::string_view::npos) ++pos_;
    if (pos_ == begin) return fail("unexpected character");
    const std::string digits(s_.substr(begin, pos_ - begin));
    char* end = nullptr;
    out->type = JsonValue::Type::kNumber;
    out->number = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) return fail("bad number");
    return true;
  }
  bool string(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
      c = s_[pos_++];
      switch (c) {
        case 'n': out->push_back('\n'); break;
        case 't': out->push_back('\t'); break;
        case 'r': out->push_back('\r'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return fail("bad escape");
          const unsigned code = static_cast<unsigned>(std::strtoul(std::string(s_.substr(pos_, 4)).c_str(), nullptr, 16));
          pos_ += 4;
          out->push_back(code < 0x80 ? static_cast<char>(code) : '?');  // reports escape only control characters
          break;
        }
        default: out->push_back(c);
      }
    }
    if (pos_ >= s_.size()) return fail("unterminated string");
    ++pos_;
    return true;
  }
  bool array(JsonValue* out, int depth) {
    out->type = JsonValue::Type::kArray;
    ++pos_;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
    while (true) {
      out->array.emplace_back();
      if (!value(&out->array.back(), depth + 1)) return false;
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      return fail("expected , or ]");
    }
  }
  bool object(JsonValue* out, int depth) {
    out->type = JsonValue::Type::kObject;
    ++pos_;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
    while (true) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a member name");
      out->object.emplace_back();
      if (!string(&out->object.back().first)) return false;
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected :");
      ++pos_;
      if (!value(&out->object.back().second, depth + 1)) return false;
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      return fail("expected , or }");
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

const JsonValue& JsonValue::operator[](std::string_view key) const {
  for (const auto& [k, v] : object)
    if (k == key) return v;
  return kNull;
}

const JsonValue& JsonValue::operator[](size_t index) const {
  return type == Type::kArray && index < array.size() ? array[index] : kNull;
}

bool parse_json(std::string_view text, JsonValue* out, std::string* error) {
  *out = JsonValue();
  return Parser(text).document(out, error);
}

}  // namespace exa::tool
