// The text form of queries used by `exacdf query`:
//   expr := term { ("or" | "||") term }
//   term := factor { ("and" | "&&") factor }
//   factor := ("not" | "!") factor | "(" expr ")" | NAME OP NUMBER
//   OP := "==" | "=" | "!=" | "<" | "<=" | ">" | ">="
// NUMBER: an integer (NC_INT64, or NC_UINT64 above INT64_MAX), a decimal or
// exponent form (NC_DOUBLE), nan, inf, -inf. NAME: letters, digits, '_',
// '.', '/', '-', '+', '@' not starting with a digit; keywords excluded.
// MPI-free.
#pragma once

#include <string>

#include "query/expr.hpp"

namespace exa::query {

// NC_EINVAL naming the offset of the problem; nesting deeper than 64 refused.
Status parse(const std::string& text, Expr* out);

}  // namespace exa::query
