// Decoder of the classic header (grammar in classic_header.cpp). Reads with
// bounds checks only, grows containers only as bytes are actually consumed,
// and then checks what PnetCDF checks when it opens a file.
#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_set>

#include "format/classic_header.hpp"
#include "format/classic_header_internal.hpp"
#include "format/layout.hpp"
#include "format/nc_name.hpp"
#include "format/xdr.hpp"

namespace exa::format {

namespace {

constexpr uint64_t kIntMax = uint64_t(std::numeric_limits<int>::max());
constexpr uint64_t kInt64Max = uint64_t(std::numeric_limits<int64_t>::max());

// Parses one header. Every parse step returns a Status; running out of bytes
// is NC_ENOTNC with truncated() true.
class Decoder {
 public:
  explicit Decoder(std::span<const uint8_t> bytes) : r_(bytes) {}

  Status run(Header* h);
  bool truncated() const { return r_.need() > 0; }
  int64_t need() const { return r_.need(); }
  int64_t pos() const { return r_.pos(); }

 private:
  Status short_input() const { return {NC_ENOTNC, "header truncated"}; }
  Status magic(Header* h);
  Status nonneg(uint64_t* v);
  Status list_head(uint32_t expected_tag, int max_code, const char* what, uint64_t* count);
  Status name(std::string* out);
  Status type(nc_type* out);
  Status dims(Header* h);
  Status attrs(std::vector<Attribute>* out);
  Status attr_values(Attribute* a);
  Status vars(Header* h);
  Status var(const Header& h, Variable* v);

  // Reserve no more items than the remaining bytes could hold.
  template <class T>
  void reserve_bounded(std::vector<T>* v, uint64_t count, int64_t min_item_bytes) const {
    v->reserve(size_t(std::min<uint64_t>(count, uint64_t(r_.remaining() / min_item_bytes))));
  }

  xdr::Reader r_;
  Version version_ = Version::kCdf1;
  int width_ = 4;
};

Status Decoder::magic(Header* h) {
  std::span<const uint8_t> m;
  if (!r_.view(4, &m)) return short_input();
  if (m[0] != 'C' || m[1] != 'D' || m[2] != 'F') return {NC_ENOTNC, "not a netCDF classic file"};
  if (m[3] != 1 && m[3] != 2 && m[3] != 5) return {NC_ENOTNC, "unknown classic format version"};
  version_ = Version(m[3]);
  width_ = nonneg_width(version_);
  h->version = version_;
  uint64_t numrecs = 0;
  if (!r_.uint(&numrecs, width_)) return short_input();
  const uint64_t streaming = width_ == 8 ? ~uint64_t{0} : 0xFFFFFFFFu;
  if (numrecs == streaming) h->numrecs = kStreamingNumrecs;
  else if (numrecs > kInt64Max) return {NC_EINVAL, "negative numrecs"};
  else h->numrecs = int64_t(numrecs);
  return Status::ok();
}

// A NON_NEG field; the sign bit of a 64-bit one makes it negative.
Status Decoder::nonneg(uint64_t* v) {
  if (!r_.uint(v, width_)) return short_input();
  if (*v > kInt64Max) return {NC_EINVAL, "negative size in header"};
  return Status::ok();
}

// tag nelems. As netCDF and PnetCDF, any tag goes with a zero count.
Status Decoder::list_head(uint32_t expected_tag, int max_code, const char* what,
                          uint64_t* count) {
  uint32_t tag = 0;
  if (!r_.u32(&tag) || !r_.uint(count, width_)) return short_input();
  if (*count > kIntMax) return {max_code, std::string("too many ") + what};
  if (*count > 0 && tag != expected_tag) return {NC_ENOTNC, std::string("bad tag for ") + what};
  return Status::ok();
}

Status Decoder::name(std::string* out) {
  uint64_t n = 0;
  if (!r_.uint(&n, width_)) return short_input();
  if (n > NC_MAX_NAME) return {NC_EMAXNAME, "name longer than NC_MAX_NAME"};
  std::span<const uint8_t> chars;
  if (!r_.view(int64_t(n), &chars) || !r_.skip_pad(int64_t(n))) return short_input();
  out->assign(chars.begin(), chars.end());
  if (!is_valid_name(*out)) return {NC_EBADNAME, "illegal name in header"};
  return Status::ok();
}

Status Decoder::type(nc_type* out) {
  uint32_t t = 0;
  if (!r_.u32(&t)) return short_input();
  if (t > uint32_t(NC_UINT64) || !type_valid_for(nc_type(t), version_))
    return {NC_EBADTYPE, "bad external type in header"};
  *out = nc_type(t);
  return Status::ok();
}

Status Decoder::dims(Header* h) {
  uint64_t count = 0;
  EXA_RETURN_IF_ERROR(list_head(kTagDimension, NC_EMAXDIMS, "dimensions", &count));
  reserve_bounded(&h->dims, count, 2 * width_);
  bool have_unlimited = false;
  for (uint64_t i = 0; i < count; ++i) {
    Dimension d;
    EXA_RETURN_IF_ERROR(name(&d.name));
    uint64_t length = 0;
    EXA_RETURN_IF_ERROR(nonneg(&length));
    d.length = int64_t(length);
    if (d.length == 0 && have_unlimited) return {NC_EUNLIMIT, "two unlimited dimensions"};
    have_unlimited = have_unlimited || d.length == 0;
    h->dims.push_back(std::move(d));
  }
  return Status::ok();
}

Status Decoder::attr_values(Attribute* a) {
  const int64_t size = external_size(a->type);
  if (uint64_t(a->nelems) > (kInt64Max - 3) / uint64_t(size))
    return {NC_EINVAL, "attribute too large"};
  const int64_t nbytes = a->nelems * size;
  std::span<const uint8_t> values;
  if (!r_.view(nbytes, &values) || !r_.skip_pad(nbytes)) return short_input();
  a->xvalues.assign(values.begin(), values.end());
  return Status::ok();
}

Status Decoder::attrs(std::vector<Attribute>* out) {
  uint64_t count = 0;
  EXA_RETURN_IF_ERROR(list_head(kTagAttribute, NC_EMAXATTS, "attributes", &count));
  reserve_bounded(out, count, 4 + 2 * width_);
  for (uint64_t i = 0; i < count; ++i) {
    Attribute a;
    EXA_RETURN_IF_ERROR(name(&a.name));
    EXA_RETURN_IF_ERROR(type(&a.type));
    uint64_t nelems = 0;
    EXA_RETURN_IF_ERROR(nonneg(&nelems));
    a.nelems = int64_t(nelems);
    EXA_RETURN_IF_ERROR(attr_values(&a));
    out->push_back(std::move(a));
  }
  return Status::ok();
}

Status Decoder::var(const Header& h, Variable* v) {
  EXA_RETURN_IF_ERROR(name(&v->name));
  uint64_t ndims = 0;
  if (!r_.uint(&ndims, width_)) return short_input();
  if (ndims > kIntMax) return {NC_EMAXDIMS, "too many dimensions for a variable"};
  reserve_bounded(&v->dimids, ndims, width_);
  for (uint64_t i = 0; i < ndims; ++i) {
    uint64_t id = 0;
    if (!r_.uint(&id, width_)) return short_input();
    if (id >= h.dims.size()) return {NC_EBADDIM, "dimension id out of range"};
    if (i > 0 && h.dims[size_t(id)].length == 0)
      return {NC_EUNLIMPOS, "unlimited dimension is not the first one"};
    v->dimids.push_back(int(id));
  }
  EXA_RETURN_IF_ERROR(attrs(&v->atts));
  EXA_RETURN_IF_ERROR(type(&v->type));
  uint64_t vsize = 0, begin = 0;
  EXA_RETURN_IF_ERROR(nonneg(&vsize));
  if (!r_.uint(&begin, version_ == Version::kCdf1 ? 4 : 8)) return short_input();
  if (begin > kInt64Max) return {NC_ENOTNC, "negative variable offset"};
  v->vsize = int64_t(vsize);
  v->begin = int64_t(begin);
  return Status::ok();
}

Status Decoder::vars(Header* h) {
  uint64_t count = 0;
  EXA_RETURN_IF_ERROR(list_head(kTagVariable, NC_EMAXVARS, "variables", &count));
  // name + ndims + att list + type + vsize + begin: at least 5 widths + 8.
  reserve_bounded(&h->vars, count, 5 * width_ + 8);
  for (uint64_t i = 0; i < count; ++i) {
    Variable v;
    EXA_RETURN_IF_ERROR(var(*h, &v));
    h->vars.push_back(std::move(v));
  }
  return Status::ok();
}

Status Decoder::run(Header* h) {
  EXA_RETURN_IF_ERROR(magic(h));
  EXA_RETURN_IF_ERROR(dims(h));
  EXA_RETURN_IF_ERROR(attrs(&h->gatts));
  return vars(h);
}

template <class T>
Status check_unique(const std::vector<T>& items, const char* what) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(items.size());
  for (const T& item : items)
    if (!seen.insert(item.name).second)
      return {NC_ENAMEINUSE, std::string("duplicate ") + what + " name '" + item.name + "'"};
  return Status::ok();
}

// What a complete header must satisfy beyond its grammar.
Status check_semantics(const Header& h, int64_t header_size) {
  EXA_RETURN_IF_ERROR(check_unique(h.dims, "dimension"));
  EXA_RETURN_IF_ERROR(check_unique(h.gatts, "attribute"));
  EXA_RETURN_IF_ERROR(check_unique(h.vars, "variable"));
  for (const Variable& v : h.vars) EXA_RETURN_IF_ERROR(check_unique(v.atts, "attribute"));
  EXA_RETURN_IF_ERROR(check_var_sizes(h));
  EXA_RETURN_IF_ERROR(check_var_offsets(h, header_size));
  return check_record_section(h.version, /*partitioned=*/false, h.numrecs, existing_layout(h));
}

}  // namespace

DecodeResult decode(std::span<const uint8_t> bytes) {
  DecodeResult result;
  Decoder d(bytes);
  result.status = d.run(&result.header);
  if (!result.status.is_ok()) {
    if (d.truncated())
      result.need_bytes = std::max(d.need(), int64_t(bytes.size()) + 1);
    result.header = Header{};
    return result;
  }
  result.consumed = d.pos();
  result.status = check_semantics(result.header, result.consumed);
  if (!result.status.is_ok()) {
    result.header = Header{};
    result.consumed = 0;
  }
  return result;
}

}  // namespace exa::format
