#include "query/expr.hpp"

#include <cstring>

#include "util/crc32c.hpp"

namespace exa::query {

namespace {

constexpr unsigned char kMagic[4] = {'E', 'X', 'Q', 'Y'};
constexpr uint16_t kVersion = 1;
constexpr size_t kHeaderBytes = 16;  // magic, version, reserved, node count, body length

void put_le(std::vector<unsigned char>* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<unsigned char>(v >> (8 * i)));
}
uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

// The constant's value bytes in little-endian order, 8 bytes.
uint64_t constant_bits(const Constant& c) {
  uint64_t v = 0;
  int size = type_size(c.type);
  unsigned char tmp[8] = {};
  std::memcpy(tmp, c.bytes, static_cast<size_t>(size));
  // native -> integer of `size` bytes
  if (size == 1) v = tmp[0];
  if (size == 2) { uint16_t x; std::memcpy(&x, tmp, 2); v = x; }
  if (size == 4) { uint32_t x; std::memcpy(&x, tmp, 4); v = x; }
  if (size == 8) { std::memcpy(&v, tmp, 8); }
  return v;
}
void set_constant_bits(Constant* c, uint64_t v) {
  int size = type_size(c->type);
  std::memset(c->bytes, 0, sizeof c->bytes);
  if (size == 1) c->bytes[0] = static_cast<unsigned char>(v);
  if (size == 2) { uint16_t x = static_cast<uint16_t>(v); std::memcpy(c->bytes, &x, 2); }
  if (size == 4) { uint32_t x = static_cast<uint32_t>(v); std::memcpy(c->bytes, &x, 4); }
  if (size == 8) std::memcpy(c->bytes, &v, 8);
}

Status bad(const char* why) { return {NC_EINVAL, std::string("encoded query: ") + why}; }

}  // namespace

bool well_formed(const Expr& e) {
  size_t depth = 0;
  for (const Node& n : e.nodes) {
    switch (n.kind) {
      case NodeKind::kLeaf: ++depth; break;
      case NodeKind::kNot: if (depth < 1) return false; break;
      case NodeKind::kAnd:
      case NodeKind::kOr: if (depth < 2) return false; --depth; break;
      default: return false;
    }
  }
  return depth == 1;
}

Expr combine(const Expr& a, NodeKind how, const Expr& b) {
  Expr e = a;
  e.nodes.insert(e.nodes.end(), b.nodes.begin(), b.nodes.end());
  Node n;
  n.kind = how;
  e.nodes.push_back(n);
  return e;
}

Expr negate(const Expr& a) {
  Expr e = a;
  Node n;
  n.kind = NodeKind::kNot;
  e.nodes.push_back(n);
  return e;
}

std::vector<unsigned char> encode(const Expr& e) {
  std::vector<unsigned char> body;
  for (const Node& n : e.nodes) {
    body.push_back(static_cast<unsigned char>(n.kind));
    if (n.kind != NodeKind::kLeaf) continue;
    body.push_back(static_cast<unsigned char>(n.op));
    body.push_back(static_cast<unsigned char>(n.constant.type));
    put_le(&body, constant_bits(n.constant), 8);
    put_le(&body, n.var_name.size(), 4);
    body.insert(body.end(), n.var_name.begin(), n.var_name.end());
  }
  std::vector<unsigned char> out(kMagic, kMagic + 4);
  put_le(&out, kVersion, 2);
  put_le(&out, 0, 2);
  put_le(&out, e.nodes.size(), 4);
  put_le(&out, body.size(), 4);
  out.insert(out.end(), body.begin(), body.end());
  put_le(&out, crc32c(out.data(), out.size()), 4);
  return out;
}

Status decode(const unsigned char* data, size_t len, Expr* out) {
  if (data == nullptr || len < kHeaderBytes + 4) return bad("too short");
  if (std::memcmp(data, kMagic, 4) != 0) return bad("bad magic");
  if (get_le(data + 4, 2) != kVersion) return bad("unknown version");
  if (get_le(data + 6, 2) != 0) return bad("reserved bits set");
  const uint64_t nnodes = get_le(data + 8, 4);
  const uint64_t body_len = get_le(data + 12, 4);
  if (body_len != len - kHeaderBytes - 4) return bad("length mismatch");
  if (get_le(data + len - 4, 4) != crc32c(data, len - 4)) return bad("checksum mismatch");
  if (nnodes == 0 || nnodes > kMaxNodes) return bad("node count out of range");
  Expr e;
  const unsigned char* p = data + kHeaderBytes;
  const unsigned char* end = p + body_len;
  for (uint64_t i = 0; i < nnodes; ++i) {
    if (p >= end) return bad("truncated node");
    Node n;
    const unsigned kind = *p++;
    if (kind < 1 || kind > 4) return bad("bad node kind");
    n.kind = static_cast<NodeKind>(kind);
    if (n.kind == NodeKind::kLeaf) {
      if (end - p < 14) return bad("truncated leaf");
      const int op = p[0];
      const int type = p[1];
      if (!valid_op(op)) return bad("bad operator");
      if (!numeric_type(type)) return bad("bad constant type");
      n.op = static_cast<Op>(op);
      n.constant.type = type;
      const uint64_t bits = get_le(p + 2, 8);
      if (type_size(type) < 8 && (bits >> (8 * type_size(type))) != 0) return bad("constant padding not zero");
      set_constant_bits(&n.constant, bits);
      const uint64_t name_len = get_le(p + 10, 4);
      p += 14;
      if (name_len == 0 || name_len > kMaxNameLen) return bad("bad name length");
      if (static_cast<uint64_t>(end - p) < name_len) return bad("truncated name");
      n.var_name.assign(reinterpret_cast<const char*>(p), name_len);
      if (n.var_name.find('\0') != std::string::npos) return bad("NUL in name");
      p += name_len;
    }
    e.nodes.push_back(std::move(n));
  }
  if (p != end) return bad("trailing bytes");
  if (!well_formed(e)) return bad("not one expression");
  *out = std::move(e);
  return Status::ok();
}

}  // namespace exa::query
