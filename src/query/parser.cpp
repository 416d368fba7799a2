#include "query/parser.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace exa::query {

namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  Status run(Expr* out) {
    EXA_RETURN_IF_ERROR(parse_or(0));
    skip();
    if (pos_ != t_.size()) return error("unexpected text");
    if (e_.nodes.size() > kMaxNodes) return error("query too large");
    *out = std::move(e_);
    return Status::ok();
  }

 private:
  Status error(const char* what) const {
    return {NC_EINVAL, std::string("query text, offset ") + std::to_string(pos_) + ": " + what};
  }
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  static bool name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == '@';
  }
  static bool name_char(char c) {
    return name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
  }
  // Whether the next token is the keyword (a whole word) or symbol.
  bool accept(const char* word) {
    skip();
    const size_t n = std::strlen(word);
    if (t_.compare(pos_, n, word) != 0) return false;
    if (name_start(word[0]) && pos_ + n < t_.size() && name_char(t_[pos_ + n])) return false;
    pos_ += n;
    return true;
  }
  void push(NodeKind k) {
    Node n;
    n.kind = k;
    e_.nodes.push_back(std::move(n));
  }

  Status parse_or(int depth) {
    EXA_RETURN_IF_ERROR(parse_and(depth));
    while (accept("or") || accept("||")) {
      EXA_RETURN_IF_ERROR(parse_and(depth));
      push(NodeKind::kOr);
    }
    return Status::ok();
  }
  Status parse_and(int depth) {
    EXA_RETURN_IF_ERROR(parse_factor(depth));
    while (accept("and") || accept("&&")) {
      EXA_RETURN_IF_ERROR(parse_factor(depth));
      push(NodeKind::kAnd);
    }
    return Status::ok();
  }
  Status parse_factor(int depth) {
    if (depth > kMaxDepth) return error("nested too deeply");
    if (e_.nodes.size() > kMaxNodes) return error("query too large");
    skip();
    if (pos_ + 1 < t_.size() && t_[pos_] == '!' && t_[pos_ + 1] != '=') {
      ++pos_;
      EXA_RETURN_IF_ERROR(parse_factor(depth + 1));
      push(NodeKind::kNot);
      return Status::ok();
    }
    if (accept("not")) {
      EXA_RETURN_IF_ERROR(parse_factor(depth + 1));
      push(NodeKind::kNot);
      return Status::ok();
    }
    if (accept("(")) {
      EXA_RETURN_IF_ERROR(parse_or(depth + 1));
      if (!accept(")")) return error("')' expected");
      return Status::ok();
    }
    return parse_condition();
  }
  Status parse_condition() {
    skip();
    if (pos_ >= t_.size() || !name_start(t_[pos_])) return error("variable name expected");
    const size_t b = pos_;
    while (pos_ < t_.size() && name_char(t_[pos_])) ++pos_;
    Node n;
    n.var_name = t_.substr(b, pos_ - b);
    if (n.var_name == "and" || n.var_name == "or" || n.var_name == "not") return error("variable name expected");
    if (n.var_name.size() > kMaxNameLen) return error("name too long");
    if (accept("==") || accept("=")) n.op = Op::kEq;
    else if (accept("!=")) n.op = Op::kNe;
    else if (accept("<=")) n.op = Op::kLe;
    else if (accept(">=")) n.op = Op::kGe;
    else if (accept("<")) n.op = Op::kLt;
    else if (accept(">")) n.op = Op::kGt;
    else return error("comparison operator expected");
    EXA_RETURN_IF_ERROR(parse_number(&n.constant));
    e_.nodes.push_back(std::move(n));
    return Status::ok();
  }
  Status parse_number(Constant* c) {
    skip();
    const size_t b = pos_;
    while (pos_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '.' ||
                                t_[pos_] == '+' || t_[pos_] == '-'))
      ++pos_;
    // "1e-3" keeps its sign; a sign elsewhere would end the number.
    std::string s = t_.substr(b, pos_ - b);
    if (s.empty()) return error("number expected");
    if (s == "nan" || s == "inf" || s == "-inf" || s == "+inf") {
      const double d = s == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                  : (s[0] == '-' ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
      set(c, NC_DOUBLE, &d, 8);
      return Status::ok();
    }
    const bool integer = s.find_first_of(".eExXnNiI") == std::string::npos;
    char* end = nullptr;
    errno = 0;
    if (integer && s[0] != '-') {
      const unsigned long long u = std::strtoull(s.c_str(), &end, 10);
      if (errno == 0 && end == s.c_str() + s.size()) {
        if (u <= static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
          const long long v = static_cast<long long>(u);
          set(c, NC_INT64, &v, 8);
        } else {
          set(c, NC_UINT64, &u, 8);
        }
        return Status::ok();
      }
    } else if (integer) {
      const long long v = std::strtoll(s.c_str(), &end, 10);
      if (errno == 0 && end == s.c_str() + s.size()) {
        set(c, NC_INT64, &v, 8);
        return Status::ok();
      }
    }
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.find_first_of("xXnNiI") != std::string::npos || errno == ERANGE)
      return error("bad number");
    set(c, NC_DOUBLE, &d, 8);
    return Status::ok();
  }
  static void set(Constant* c, int type, const void* v, size_t n) {
    c->type = type;
    std::memset(c->bytes, 0, sizeof c->bytes);
    std::memcpy(c->bytes, v, n);
  }

  const std::string& t_;
  size_t pos_ = 0;
  Expr e_;
};

}  // namespace

Status parse(const std::string& text, Expr* out) { return Parser(text).run(out); }

}  // namespace exa::query
