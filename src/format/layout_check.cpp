// Variable sizes and the size/offset checks PnetCDF 1.12.3 applies at enddef
// (sizes) and at open (sizes and offsets).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "format/layout.hpp"
#include "format/xdr.hpp"

namespace exa::format {

namespace {
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

const Dimension* dim_of(const Header& header, int id) {
  if (id < 0 || size_t(id) >= header.dims.size()) return nullptr;
  return &header.dims[size_t(id)];
}

// Largest one-variable (one-record) size in bytes: the "- 3" leaves room to
// round up to 4 (PnetCDF's vlen_max).
int64_t max_var_bytes(Version version) {
  switch (version) {
    case Version::kCdf1: return std::numeric_limits<int32_t>::max() - 3;
    case Version::kCdf2: return int64_t(std::numeric_limits<uint32_t>::max()) - 3;
    case Version::kCdf5: break;
  }
  return kInt64Max - 3;
}

// Counts the too-large variables of one kind (record or fixed) and whether
// the last of that kind is one of them.
struct LargeCount {
  int count = 0;
  bool last_is_large = false;
};

LargeCount count_large(const Header& header, bool record, std::span<const int> order) {
  LargeCount lc;
  const int64_t limit = max_var_bytes(header.version);
  for (size_t pos = 0; pos < header.vars.size(); ++pos) {
    const Variable& v = header.vars[order.empty() ? pos : size_t(order[pos])];
    if (is_record_var(header, v) != record) continue;
    lc.last_is_large = var_bytes(header, v) > limit;
    lc.count += lc.last_is_large ? 1 : 0;
  }
  return lc;
}
}  // namespace

bool is_record_var(const Header& header, const Variable& var) {
  if (var.dimids.empty()) return false;
  const Dimension* d = dim_of(header, var.dimids[0]);
  return d != nullptr && d->length == 0;
}

int64_t record_elements(const Variable& var, bool record, const std::function<int64_t(int)>& length) {
  int64_t product = 1;
  for (size_t i = record ? 1 : 0; i < var.dimids.size(); ++i) {
    const int64_t n = length(var.dimids[i]);
    if (n < 0) continue;
    if (__builtin_mul_overflow(product, n, &product)) return kInt64Max;
  }
  return product;
}

int64_t var_bytes(const Variable& var, bool record, const std::function<int64_t(int)>& length) {
  int64_t bytes = 0;
  if (__builtin_mul_overflow(record_elements(var, record, length), external_size(var.type), &bytes))
    return kInt64Max;
  return bytes;
}

namespace {
std::function<int64_t(int)> lengths_of(const Header& header) {
  return [&header](int id) -> int64_t {
    const Dimension* d = dim_of(header, id);
    return d ? d->length : -1;
  };
}
}  // namespace

int64_t record_elements(const Header& header, const Variable& var) {
  return record_elements(var, is_record_var(header, var), lengths_of(header));
}

int64_t var_bytes(const Header& header, const Variable& var) {
  return var_bytes(header, var, is_record_var(header, var));
}

int64_t var_bytes(const Header& header, const Variable& var, bool record) {
  // record_elements without the std::function: this runs for every variable
  // at enddef, more than once.
  int64_t product = 1;
  for (size_t i = record ? 1 : 0; i < var.dimids.size(); ++i) {
    const Dimension* d = dim_of(header, var.dimids[i]);
    if (d == nullptr) continue;
    if (__builtin_mul_overflow(product, d->length, &product)) {
      product = kInt64Max;  // saturated, as record_elements
      break;
    }
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(product, external_size(var.type), &bytes)) return kInt64Max;
  return bytes;
}

int record_dim(const Header& header) {
  for (size_t i = 0; i < header.dims.size(); ++i)
    if (header.dims[i].length == 0) return int(i);
  return -1;
}

Status check_var_sizes(const Header& header, std::span<const int> var_order) {
  const LargeCount fixed = count_large(header, false, var_order);
  const LargeCount rec = count_large(header, true, var_order);
  const bool has_rec = std::any_of(header.vars.begin(), header.vars.end(),
                                   [&](const Variable& v) { return is_record_var(header, v); });
  // CDF-5 has no exception; CDF-1/2 allow one large variable, if it is the
  // last one, since nothing after it needs an offset computed past it.
  const bool cdf5 = header.version == Version::kCdf5;
  bool ok = fixed.count == 0 || (!cdf5 && fixed.count == 1 && fixed.last_is_large && !has_rec);
  ok = ok && (rec.count == 0 || (!cdf5 && rec.count == 1 && rec.last_is_large));
  if (!ok) return {NC_EVARSIZE, "variable too large for the file format version"};
  return Status::ok();
}

Status check_var_offsets(const Header& header, int64_t header_size) {
  int64_t end = header_size;
  for (int pass = 0; pass < 2; ++pass) {
    const bool record = pass == 1;
    for (const Variable& v : header.vars) {
      if (is_record_var(header, v) != record) continue;
      if (v.begin < end)
        return {NC_ENOTNC, "variable '" + v.name + "' begins inside the header or another variable"};
      const int64_t len = var_bytes(header, v);
      if (len > kInt64Max - 3 || __builtin_add_overflow(v.begin, xdr::round4(len), &end))
        return {NC_ENOTNC, "variable '" + v.name + "' ends beyond 2^63 bytes"};
    }
  }
  return Status::ok();
}

int64_t max_numrecs(Version version, bool partitioned) {
  if (!partitioned && version != Version::kCdf5) return int64_t(std::numeric_limits<uint32_t>::max()) - 1;
  return kInt64Max;
}

Status check_record_section(Version version, bool partitioned, int64_t numrecs, const Layout& layout) {
  if (numrecs == kStreamingNumrecs) return Status::ok();
  if (numrecs < 0 || numrecs > max_numrecs(version, partitioned))
    return {NC_ENOTNC, "numrecs " + std::to_string(numrecs) + " is more records than a file of this format holds"};
  int64_t bytes = 0, end = 0;
  if (__builtin_mul_overflow(numrecs, layout.recsize, &bytes) ||
      __builtin_add_overflow(layout.begin_rec, bytes, &end))
    return {NC_ENOTNC, "numrecs " + std::to_string(numrecs) + " puts the record section beyond 2^63 bytes"};
  return Status::ok();
}

}  // namespace exa::format
