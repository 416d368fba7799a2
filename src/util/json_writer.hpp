// A minimal streaming JSON writer (objects, arrays, numbers, strings) for
// reports; the caller nests calls correctly, the writer places the commas.
#pragma once

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace exa {

class JsonWriter {
 public:
  std::string& text() { return out_; }

  JsonWriter& begin_object() { open('{'); return *this; }
  JsonWriter& end_object() { close('}'); return *this; }
  JsonWriter& begin_array() { open('['); return *this; }
  JsonWriter& end_array() { close(']'); return *this; }
  // The next value is this member of the enclosing object.
  JsonWriter& key(std::string_view k) {
    separate();
    if (first_.size() <= kIndentDepth) indent();
    quoted(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(int64_t v) {
    separate();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%" PRId64, v);
    out_ += buf;
    return *this;
  }
  JsonWriter& value(double v) {
    separate();
    char buf[40];
    if (!std::isfinite(v)) v = 0;
    std::snprintf(buf, sizeof buf, "%.9g", v);
    out_ += buf;
    return *this;
  }
  // Nanoseconds as seconds with 9 decimals, formatted with integer
  // arithmetic (reports print thousands of times; printf of a double costs more).
  JsonWriter& seconds(int64_t ns) {
    separate();
    if (ns < 0) {
      out_ += '-';
      ns = -ns;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
    out_ += buf;
    return *this;
  }
  JsonWriter& value(std::string_view s) {
    separate();
    quoted(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  template <typename T>
  JsonWriter& member(std::string_view k, T v) { key(k); return value(v); }

 private:
  static constexpr size_t kIndentDepth = 3;  // members deeper than this stay on one line

  void open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty && c == '}' && first_.size() < kIndentDepth) indent();
    out_ += c;
  }
  void separate() {
    if (after_key_) { after_key_ = false; return; }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
  void indent() {
    out_ += '\n';
    out_.append(2 * (first_.empty() ? 0 : first_.size()), ' ');
  }
  void quoted(std::string_view s) {
    out_ += '"';
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') { out_ += '\\'; out_ += ch; }
      else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else out_ += ch;
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace exa
