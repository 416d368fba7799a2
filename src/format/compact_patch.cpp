// Compact data written into an encoded metadata block (compact_patch.hpp):
// one pass over the block's fields, bounds-checked, copying the bytes
// between the compact data fields as they are.
#include "format/compact_patch.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "format/classic_header.hpp"
#include "format/classic_header_internal.hpp"
#include "format/xdr.hpp"
#include "util/crc32c.hpp"

namespace exa::format::partitioned {

namespace {

constexpr std::string_view kBlockMagic = "EXAPBLK1";

Status corrupt(const BlockEntry& e, const std::string& what) {
  return {NC_EFILEMETA, "block '" + e.path + "': " + what};
}

uint32_t be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// Walks the fields of a block body (after the magic, before the CRC).
class Walker {
 public:
  Walker(std::span<const uint8_t> body, const BlockEntry& e) : r_(body), e_(e) {}
  int64_t pos() const { return r_.pos(); }
  int64_t remaining() const { return r_.remaining(); }
  Status u32(uint32_t* v) { return r_.u32(v) ? Status::ok() : corrupt(e_, "ends inside a field"); }
  Status u64(uint64_t* v) { return r_.u64(v) ? Status::ok() : corrupt(e_, "ends inside a field"); }
  Status skip(uint64_t n, std::span<const uint8_t>* seen = nullptr) {
    std::span<const uint8_t> b;
    if (n > uint64_t(r_.remaining()) || !r_.view(int64_t(n), &b) || !r_.skip_pad(int64_t(n)))
      return corrupt(e_, "ends inside a field");
    if (seen) *seen = b;
    return Status::ok();
  }
  Status name(std::span<const uint8_t>* seen = nullptr) {
    uint64_t n = 0;
    EXA_RETURN_IF_ERROR(u64(&n));
    if (n > 4096) return corrupt(e_, "a name too long");
    return skip(n, seen);
  }
  Status list(uint32_t tag, uint64_t* count) {
    uint32_t got = 0;
    EXA_RETURN_IF_ERROR(u32(&got));
    if (got != tag) return corrupt(e_, "a bad list tag");
    EXA_RETURN_IF_ERROR(u64(count));
    if (*count > uint64_t(r_.remaining())) return corrupt(e_, "an absurd count");
    return Status::ok();
  }
  Status atts(uint64_t* count) {
    EXA_RETURN_IF_ERROR(list(kTagAttribute, count));
    for (uint64_t k = 0; k < *count; ++k) {
      EXA_RETURN_IF_ERROR(name());
      uint32_t type = 0;
      uint64_t nelems = 0;
      EXA_RETURN_IF_ERROR(u32(&type));
      if (type < uint32_t(NC_BYTE) || type > uint32_t(NC_UINT64)) return corrupt(e_, "a bad attribute type");
      EXA_RETURN_IF_ERROR(u64(&nelems));
      const uint64_t width = uint64_t(external_size(nc_type(type)));
      if (nelems > uint64_t(r_.remaining()) / width) return corrupt(e_, "an attribute longer than its block");
      EXA_RETURN_IF_ERROR(skip(nelems * width));
    }
    return Status::ok();
  }

 private:
  xdr::Reader r_;
  const BlockEntry& e_;
};

// Appends a big-endian u64.
void put_u64(std::vector<uint8_t>* out, uint64_t v) {
  const uint8_t b[8] = {uint8_t(v >> 56), uint8_t(v >> 48), uint8_t(v >> 40), uint8_t(v >> 32),
                        uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8),  uint8_t(v)};
  out->insert(out->end(), b, b + 8);
}

// The variable's data, `old` (empty: not written yet) with `patches` (all
// of this variable) applied, appended with its size and padding. `vsize`
// bounds a data size made from a patch's total.
Status append_patched_data(std::span<const uint8_t> old, uint64_t vsize, std::span<const CompactPatch> patches,
                           std::vector<uint8_t>* out) {
  uint64_t size = old.size();
  if (old.empty() && patches.front().total > 0) {
    size = patches.front().total;
    if (size > vsize) return {NC_EINTERNAL, "compact piece: bad size"};
  }
  put_u64(out, size);
  const size_t at = out->size();
  out->resize(at + size_t(xdr::round4(int64_t(size))), 0);
  uint8_t* data = out->data() + at;
  if (!old.empty()) {
    std::memcpy(data, old.data(), old.size());
  } else {
    const auto fill = patches.front().fill;
    for (size_t k = 0; !fill.empty() && k + fill.size() <= size; k += fill.size()) std::memcpy(data + k, fill.data(), fill.size());
  }
  for (const CompactPatch& p : patches) {
    if (p.offset > size || p.bytes.size() > size - p.offset) return {NC_EINTERNAL, "compact piece beyond its variable"};
    if (!p.bytes.empty()) std::memcpy(data + p.offset, p.bytes.data(), p.bytes.size());
  }
  return Status::ok();
}

}  // namespace

Status append_patched_block(std::span<const uint8_t> bytes, const BlockEntry& entry,
                            std::span<const CompactPatch> patches, std::vector<uint8_t>* out) {
  constexpr size_t kMinBlock = 8 + 12 + 3 * 12 + 4;
  if (bytes.size() != entry.size) return {NC_ETRUNC, "block '" + entry.path + "' truncated"};
  if (bytes.size() < kMinBlock) return corrupt(entry, "too small");
  const auto body_and_magic = bytes.first(bytes.size() - 4);
  // One pass: the CRC of the whole block continues that of all but its last 4 bytes.
  const uint32_t inner = crc32c(body_and_magic.data(), body_and_magic.size());
  if (crc32c(bytes.data() + body_and_magic.size(), 4, inner) != entry.crc ||
      be32(bytes.data() + body_and_magic.size()) != inner)
    return corrupt(entry, "checksum mismatch");
  if (!std::equal(kBlockMagic.begin(), kBlockMagic.end(), bytes.begin())) return corrupt(entry, "a bad magic");
  for (size_t k = 1; k < patches.size(); ++k)
    if (patches[k].var < patches[k - 1].var) return {NC_EINTERNAL, "compact pieces out of order"};
  const size_t start = out->size();
  const auto body = body_and_magic.subspan(kBlockMagic.size());
  Walker w(body, entry);
  size_t copied = 0;  // of body: bytes up to here are in *out
  out->insert(out->end(), kBlockMagic.begin(), kBlockMagic.end());
  std::span<const uint8_t> path;
  EXA_RETURN_IF_ERROR(w.name(&path));
  if (std::string_view(reinterpret_cast<const char*>(path.data()), path.size()) != entry.path)
    return corrupt(entry, "a different path");
  uint64_t n = 0, count = 0;
  EXA_RETURN_IF_ERROR(w.list(kTagDimension, &n));
  if (n != entry.ndims) return corrupt(entry, "the index disagrees on dimensions");
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t length = 0;
    EXA_RETURN_IF_ERROR(w.name());
    EXA_RETURN_IF_ERROR(w.u64(&length));
  }
  EXA_RETURN_IF_ERROR(w.atts(&count));
  if (count != entry.natts) return corrupt(entry, "the index disagrees on attributes");
  EXA_RETURN_IF_ERROR(w.list(kTagVariable, &n));
  if (n != entry.nvars) return corrupt(entry, "the index disagrees on variables");
  size_t next = 0;  // the first patch not applied yet
  for (uint64_t v = 0; v < n; ++v) {
    uint64_t ndims = 0, vsize = 0, begin = 0, id = 0;
    uint32_t type = 0, flags = 0;
    EXA_RETURN_IF_ERROR(w.name());
    EXA_RETURN_IF_ERROR(w.u64(&ndims));
    if (ndims > uint64_t(NC_MAX_VAR_DIMS)) return corrupt(entry, "a variable of too many dimensions");
    for (uint64_t d = 0; d < ndims; ++d) EXA_RETURN_IF_ERROR(w.u64(&id));
    EXA_RETURN_IF_ERROR(w.atts(&count));
    EXA_RETURN_IF_ERROR(w.u32(&type));
    EXA_RETURN_IF_ERROR(w.u64(&vsize));
    EXA_RETURN_IF_ERROR(w.u64(&begin));
    EXA_RETURN_IF_ERROR(w.u32(&flags));
    if (flags & ~kVarCompact) return corrupt(entry, "a variable of unknown flags");
    size_t last = next;
    while (last < patches.size() && patches[last].var == v) ++last;
    if (!(flags & kVarCompact)) {
      if (last != next) return {NC_EINTERNAL, "compact piece for a variable that is not compact"};
      continue;
    }
    const size_t field = size_t(w.pos());  // the data size, then the data
    uint64_t nbytes = 0;
    EXA_RETURN_IF_ERROR(w.u64(&nbytes));
    if (begin != 0 || (nbytes != 0 && (nbytes > vsize || vsize - nbytes > 3)))
      return corrupt(entry, "a compact variable's offset or data size disagrees with its size");
    std::span<const uint8_t> old;
    EXA_RETURN_IF_ERROR(w.skip(nbytes, &old));
    if (last == next) continue;
    out->insert(out->end(), body.begin() + ptrdiff_t(copied), body.begin() + ptrdiff_t(field));
    EXA_RETURN_IF_ERROR(append_patched_data(old, vsize, patches.subspan(next, last - next), out));
    copied = size_t(w.pos());
    next = last;
  }
  if (w.remaining() != 0) return corrupt(entry, "bytes after its variables");
  if (next != patches.size()) return {NC_EINTERNAL, "compact piece for no variable of its block"};
  out->insert(out->end(), body.begin() + ptrdiff_t(copied), body.end());
  const uint32_t crc = crc32c(out->data() + start, out->size() - start);
  const uint8_t b[4] = {uint8_t(crc >> 24), uint8_t(crc >> 16), uint8_t(crc >> 8), uint8_t(crc)};
  out->insert(out->end(), b, b + 4);
  return Status::ok();
}

}  // namespace exa::format::partitioned
