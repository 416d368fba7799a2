// A query as a postfix list of nodes (leaves `variable OP constant`, AND,
// OR, NOT) and its portable byte form (docs/format.md "Encoded queries").
// MPI-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "query/predicate.hpp"
#include "util/status.hpp"

namespace exa::query {

enum class NodeKind : uint8_t { kLeaf = 1, kAnd = 2, kOr = 3, kNot = 4 };

struct Node {
  NodeKind kind = NodeKind::kLeaf;
  // Leaves only:
  Op op = Op::kEq;
  Constant constant;
  std::string var_name;
  int varid = -1;  // bound by the API layer
};

// Postfix: a leaf pushes, NOT replaces the top, AND/OR combine the top two.
struct Expr {
  std::vector<Node> nodes;
};

// Largest number of nodes and longest variable name a decoder accepts.
constexpr size_t kMaxNodes = 4096;
constexpr size_t kMaxNameLen = 4096;

// Whether nodes form one well-formed postfix expression.
bool well_formed(const Expr& e);

Expr combine(const Expr& a, NodeKind how, const Expr& b);
Expr negate(const Expr& a);

std::vector<unsigned char> encode(const Expr& e);
// NC_EINVAL with a reason for anything but a well-formed encoded query.
Status decode(const unsigned char* data, size_t len, Expr* out);

}  // namespace exa::query
