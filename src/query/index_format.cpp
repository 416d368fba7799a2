#include "query/index_format.hpp"

#include <roaring/roaring.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <utility>

#include "util/crc32c.hpp"

namespace exa::query {

namespace {

constexpr unsigned char kMagic[8] = {'E', 'X', 'A', 'I', 'D', 'X', '\r', '\n'};
constexpr size_t kFixedBytes = 88;
constexpr size_t kChunkEntryBytesV1 = 40;
constexpr size_t kChunkEntryBytes = 48;  // version 2: + data CRC, reserved u32
size_t entry_bytes(uint32_t version) { return version == kIndexVersionV1 ? kChunkEntryBytesV1 : kChunkEntryBytes; }
constexpr uint64_t kMaxChunks = uint64_t{1} << 32;

void put_le(std::vector<unsigned char>* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<unsigned char>(v >> (8 * i)));
}
uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}
uint64_t bits_of(double d) {
  uint64_t v;
  std::memcpy(&v, &d, 8);
  return v;
}
double double_of(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
Status bad(const std::string& why) { return {NC_EINVAL, "index sidecar: " + why}; }

}  // namespace

uint64_t IndexHeader::chunk_elems(uint64_t c) const {
  const uint64_t first = c * chunk_rows;
  const uint64_t rows = std::min(chunk_rows, nrows - first);
  return rows * row_elems;
}

uint64_t IndexHeader::stale_chunks() const {
  uint64_t n = 0;
  for (const ChunkEntry& c : chunks) n += (c.flags & kStale) ? 1 : 0;
  return n;
}

bool IndexHeader::minmax_only() const {
  if (!edges.empty() || chunks.empty()) return false;
  for (const ChunkEntry& c : chunks)
    if (!(c.flags & kNoBitmaps)) return false;
  return true;
}

uint64_t IndexHeader::bounded_chunks() const {
  uint64_t n = 0;
  for (const ChunkEntry& c : chunks) n += (c.flags & kNoBounds) ? 0 : 1;
  return n;
}

PutBounds unite_bounds(const PutBounds& a, const PutBounds& b) {
  if (!a.bounded || !b.bounded) return {};
  PutBounds u = a;
  if (b.any) {
    u.lo = a.any ? std::min(a.lo, b.lo) : b.lo;
    u.hi = a.any ? std::max(a.hi, b.hi) : b.hi;
    u.any = true;
  }
  u.nan = a.nan || b.nan;
  return u;
}

namespace {

constexpr uint32_t kUnknownMinmax = kStale | kNoBounds | kNoBitmaps;

// Chunks every row of which the whole-row records wrote get the union of
// the bounds of every record touching them.
bool apply_cover(const std::vector<PutRecord>& puts, IndexHeader* h) {
  struct Touch {
    std::vector<std::pair<uint64_t, uint64_t>> rows;  // whole-row records, clipped
    PutBounds bounds{true, false, false, 0, 0};
  };
  std::map<uint64_t, Touch> touched;
  for (const PutRecord& r : puts) {
    const uint64_t row1 = std::min(r.row1, h->nrows);
    if (r.row0 >= row1) continue;
    for (uint64_t c = r.row0 / h->chunk_rows; c * h->chunk_rows < row1 && c < h->chunks.size(); ++c) {
      Touch& t = touched[c];
      t.bounds = unite_bounds(t.bounds, r.bounds);
      const uint64_t c0 = c * h->chunk_rows;
      if (r.whole_rows && r.bounds.bounded)
        t.rows.emplace_back(std::max(r.row0, c0), std::min(row1, c0 + h->chunk_rows));
    }
  }
  bool changed = false;
  for (auto& [c, t] : touched) {
    if (!t.bounds.bounded) continue;
    const uint64_t c0 = c * h->chunk_rows, c1 = std::min(h->nrows, c0 + h->chunk_rows);
    std::sort(t.rows.begin(), t.rows.end());
    uint64_t at = c0;
    for (const auto& [a, b] : t.rows)
      if (a <= at) at = std::max(at, b);
    if (at < c1) continue;  // a row no whole-row put wrote: its old values are unknown
    ChunkEntry& e = h->chunks[c];
    const ChunkEntry before = e;
    e.flags = (e.flags & (kHasDataCrc | kNoBitmaps)) | kStale | (t.bounds.any ? kHasValues : 0) |
              (t.bounds.nan ? kHasNaN : 0);
    e.min = t.bounds.any ? t.bounds.lo : 0;
    e.max = t.bounds.any ? t.bounds.hi : 0;
    changed = changed || before.flags != e.flags || before.min != e.min || before.max != e.max;
  }
  return changed;
}

}  // namespace

bool apply_puts(const std::vector<PutRecord>& puts, IndexHeader* h) {
  bool changed = false;
  for (const PutRecord& r : puts) {
    const uint64_t row1 = std::min(r.row1, h->nrows);
    if (r.row0 >= row1) continue;  // rows the index does not cover: scanned anyway
    for (uint64_t c = r.row0 / h->chunk_rows; c * h->chunk_rows < row1 && c < h->chunks.size(); ++c) {
      const ChunkEntry before = h->chunks[c];
      mark_stale(&h->chunks[c], r.bounds);
      const ChunkEntry& after = h->chunks[c];
      changed = changed || before.flags != after.flags || before.min != after.min || before.max != after.max;
    }
  }
  const bool covered = apply_cover(puts, h);
  return changed || covered;
}

IndexHeader minmax_header(uint32_t varid, uint32_t var_type, uint32_t ndims, const std::string& name,
                          uint64_t nrows, uint64_t row_elems, uint64_t chunk_rows) {
  IndexHeader h;
  h.varid = varid;
  h.var_type = var_type;
  h.ndims = ndims;
  h.var_name = name;
  h.nrows = 0;
  h.row_elems = row_elems;
  h.chunk_rows = chunk_rows;
  grow_minmax(&h, nrows);
  return h;
}

void grow_minmax(IndexHeader* h, uint64_t nrows) {
  if (nrows <= h->nrows) return;
  if (h->nrows % h->chunk_rows != 0 && !h->chunks.empty()) h->chunks.back().flags = kUnknownMinmax;  // grew
  h->nrows = nrows;
  ChunkEntry unknown;
  unknown.flags = kUnknownMinmax;
  h->chunks.resize((nrows + h->chunk_rows - 1) / h->chunk_rows, unknown);
}

void mark_stale(ChunkEntry* e, const PutBounds& put) {
  if (!put.bounded || (e->flags & kNoBounds)) {
    e->flags = (e->flags & (kHasDataCrc | kNoBitmaps)) | kStale | kNoBounds;
    return;
  }
  if (put.any) {
    if (e->flags & kHasValues) {
      e->min = std::min(e->min, put.lo);
      e->max = std::max(e->max, put.hi);
    } else {
      e->min = put.lo;
      e->max = put.hi;
    }
    e->flags |= kHasValues;
  }
  if (put.nan) e->flags |= kHasNaN;
  e->flags |= kStale;
}

uint32_t bin_of(const std::vector<double>& edges, long double v) {
  if (std::isnan(v)) return static_cast<uint32_t>(edges.size()) + 1;
  auto it = std::upper_bound(edges.begin(), edges.end(), v,
                             [](long double x, double e) { return x < static_cast<long double>(e); });
  return static_cast<uint32_t>(it - edges.begin());
}

void bin_interval(const std::vector<double>& edges, uint32_t b, long double* lo, long double* hi,
                  bool* hi_closed) {
  const long double inf = std::numeric_limits<long double>::infinity();
  *lo = b == 0 ? -inf : static_cast<long double>(edges[b - 1]);
  *hi = b >= edges.size() ? inf : static_cast<long double>(edges[b]);
  *hi_closed = b >= edges.size();
}

std::vector<unsigned char> encode_header(const IndexHeader& h) {
  std::vector<unsigned char> out(kMagic, kMagic + 8);
  const size_t eb = entry_bytes(h.version);
  const uint64_t len = kFixedBytes + h.var_name.size() + 8 * h.edges.size() + eb * h.chunks.size() + 4;
  put_le(&out, h.version, 4);
  put_le(&out, len, 4);
  put_le(&out, h.data_size, 8);
  put_le(&out, static_cast<uint64_t>(h.data_mtime_ns), 8);
  put_le(&out, h.data_digest, 4);
  put_le(&out, h.varid, 4);
  put_le(&out, h.var_type, 4);
  put_le(&out, h.ndims, 4);
  put_le(&out, h.nrows, 8);
  put_le(&out, h.row_elems, 8);
  put_le(&out, h.chunk_rows, 8);
  put_le(&out, h.chunks.size(), 8);
  put_le(&out, h.edges.size(), 4);
  put_le(&out, h.var_name.size(), 4);
  out.insert(out.end(), h.var_name.begin(), h.var_name.end());
  for (double e : h.edges) put_le(&out, bits_of(e), 8);
  for (const ChunkEntry& c : h.chunks) {
    put_le(&out, c.offset, 8);
    put_le(&out, c.length, 8);
    put_le(&out, bits_of(c.min), 8);
    put_le(&out, bits_of(c.max), 8);
    put_le(&out, c.crc, 4);
    put_le(&out, c.flags, 4);
    if (eb == kChunkEntryBytes) {
      put_le(&out, c.data_crc, 4);
      put_le(&out, 0, 4);
    }
  }
  put_le(&out, crc32c(out.data(), out.size()), 4);
  return out;
}

Status header_length(const unsigned char* prefix, size_t len, uint64_t* header_len) {
  if (len < kIndexPrefixBytes) return bad("too short");
  if (std::memcmp(prefix, kMagic, 8) != 0) return bad("not an exacdf index sidecar");
  const uint64_t version = get_le(prefix + 8, 4);
  if (version != kIndexVersion && version != kIndexVersionV1) return bad("unknown version");
  *header_len = get_le(prefix + 12, 4);
  if (*header_len < kFixedBytes + 4) return bad("header too short");
  return Status::ok();
}

Status decode_header(const unsigned char* data, size_t len, IndexHeader* out) {
  uint64_t hlen = 0;
  EXA_RETURN_IF_ERROR(header_length(data, len, &hlen));
  if (hlen != len) return bad("header length mismatch");
  if (get_le(data + len - 4, 4) != crc32c(data, len - 4)) return bad("header checksum mismatch");
  IndexHeader h;
  h.version = static_cast<uint32_t>(get_le(data + 8, 4));
  const size_t eb = entry_bytes(h.version);
  const uint32_t known = h.version == kIndexVersionV1 ? kKnownFlagsV1 : kKnownFlags;
  const unsigned char* p = data + 16;
  h.data_size = get_le(p, 8);
  h.data_mtime_ns = static_cast<int64_t>(get_le(p + 8, 8));
  h.data_digest = static_cast<uint32_t>(get_le(p + 16, 4));
  h.varid = static_cast<uint32_t>(get_le(p + 20, 4));
  h.var_type = static_cast<uint32_t>(get_le(p + 24, 4));
  h.ndims = static_cast<uint32_t>(get_le(p + 28, 4));
  h.nrows = get_le(p + 32, 8);
  h.row_elems = get_le(p + 40, 8);
  h.chunk_rows = get_le(p + 48, 8);
  const uint64_t nchunks = get_le(p + 56, 8);
  const uint64_t nedges = get_le(p + 64, 4);
  const uint64_t name_len = get_le(p + 68, 4);
  if (nedges > kMaxEdges) return bad("too many edges");
  if (nchunks > kMaxChunks || name_len > 4096) return bad("field out of range");
  if (kFixedBytes + name_len + 8 * nedges + eb * nchunks + 4 != len)
    return bad("sizes disagree with header length");
  if (h.chunk_rows == 0 || h.row_elems == 0) return bad("empty chunk shape");
  if (h.chunk_rows > kMaxChunkElems / h.row_elems) return bad("chunk too large");
  if (nchunks != (h.nrows + h.chunk_rows - 1) / h.chunk_rows) return bad("chunk count mismatch");
  p = data + kFixedBytes;
  h.var_name.assign(reinterpret_cast<const char*>(p), name_len);
  p += name_len;
  for (uint64_t i = 0; i < nedges; ++i, p += 8) {
    double e = double_of(get_le(p, 8));
    if (!std::isfinite(e) || (!h.edges.empty() && !(e > h.edges.back()))) return bad("bad edges");
    h.edges.push_back(e);
  }
  for (uint64_t i = 0; i < nchunks; ++i, p += eb) {
    ChunkEntry c;
    c.offset = get_le(p, 8);
    c.length = get_le(p + 8, 8);
    c.min = double_of(get_le(p + 16, 8));
    c.max = double_of(get_le(p + 24, 8));
    c.crc = static_cast<uint32_t>(get_le(p + 32, 4));
    c.flags = static_cast<uint32_t>(get_le(p + 36, 4));
    if (eb == kChunkEntryBytes) {
      c.data_crc = static_cast<uint32_t>(get_le(p + 40, 4));
      if (get_le(p + 44, 4) != 0) return bad("reserved chunk entry field");
    }
    const bool bounds_ok = !(c.flags & kNoBounds) || (c.flags & kStale);
    const bool minmax_ok = !(c.flags & kHasValues) || (c.flags & kNoBounds) || !(c.min > c.max);
    // A min/max-only chunk: stale, no block, and only in a header without edges.
    const bool no_block = c.flags & kNoBitmaps;
    const bool block_ok = no_block ? (c.flags & kStale) && c.offset == 0 && c.length == 0 && nedges == 0
                                   : c.offset >= hlen && c.length <= (uint64_t{1} << 40) && c.offset <= (uint64_t{1} << 62);
    if ((c.flags & ~known) != 0 || !bounds_ok || !minmax_ok || !block_ok) return bad("bad chunk entry");
    if (!h.chunks.empty() && ((h.chunks.back().flags ^ c.flags) & kNoBitmaps) != 0)
      return bad("chunks with and without bitmaps");
    h.chunks.push_back(c);
  }
  *out = std::move(h);
  return Status::ok();
}

ChunkBitmaps::ChunkBitmaps(uint32_t nbins) {
  bins_.reserve(nbins);
  for (uint32_t b = 0; b < nbins; ++b) bins_.push_back(roaring_bitmap_create());
}
ChunkBitmaps::~ChunkBitmaps() { clear(); }
ChunkBitmaps::ChunkBitmaps(ChunkBitmaps&& o) noexcept : bins_(std::move(o.bins_)) { o.bins_.clear(); }
ChunkBitmaps& ChunkBitmaps::operator=(ChunkBitmaps&& o) noexcept {
  if (this != &o) {
    clear();
    bins_ = std::move(o.bins_);
    o.bins_.clear();
  }
  return *this;
}
void ChunkBitmaps::clear() {
  for (roaring_bitmap_t* r : bins_) roaring_bitmap_free(r);
  bins_.clear();
}
void ChunkBitmaps::add(uint32_t b, uint32_t pos) { roaring_bitmap_add(bins_[b], pos); }
void ChunkBitmaps::optimize() {
  for (roaring_bitmap_t* r : bins_) roaring_bitmap_run_optimize(r);
}

std::vector<unsigned char> ChunkBitmaps::encode() const {
  std::vector<unsigned char> out;
  for (roaring_bitmap_t* r : bins_) put_le(&out, roaring_bitmap_get_cardinality(r), 4);
  for (roaring_bitmap_t* r : bins_) {
    const size_t n = roaring_bitmap_portable_size_in_bytes(r);
    put_le(&out, n, 4);
    const size_t at = out.size();
    out.resize(at + n);
    const size_t written = roaring_bitmap_portable_serialize(r, reinterpret_cast<char*>(out.data() + at));
    out.resize(at + written);
  }
  return out;
}

Status ChunkBitmaps::cardinalities(const unsigned char* data, size_t len, uint32_t nbins,
                                   uint64_t chunk_elems, std::vector<uint32_t>* out) {
  if (len / 4 < nbins) return bad("truncated chunk block");
  out->resize(nbins);
  uint64_t total = 0;
  for (uint32_t b = 0; b < nbins; ++b) {
    (*out)[b] = static_cast<uint32_t>(get_le(data + 4 * b, 4));
    total += (*out)[b];
  }
  if (total != chunk_elems) return bad("bin counts disagree with the chunk");
  return Status::ok();
}

Status ChunkBitmaps::decode(const unsigned char* data, size_t len, uint32_t nbins,
                            uint64_t chunk_elems, ChunkBitmaps* out, const std::vector<bool>& want) {
  std::vector<uint32_t> counts;
  EXA_RETURN_IF_ERROR(cardinalities(data, len, nbins, chunk_elems, &counts));
  ChunkBitmaps result(0);
  size_t at = 4 * static_cast<size_t>(nbins);
  for (uint32_t b = 0; b < nbins; ++b) {
    if (len - at < 4) return bad("truncated chunk block");
    const uint64_t n = get_le(data + at, 4);
    at += 4;
    if (n > len - at) return bad("truncated bitmap");
    if (!want.empty() && !want[b]) {
      result.bins_.push_back(roaring_bitmap_create());
      at += n;
      continue;
    }
    const char* p = reinterpret_cast<const char*>(data + at);
    if (roaring_bitmap_portable_deserialize_size(p, n) != n) return bad("malformed bitmap");
    roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(p, n);
    if (r == nullptr) return bad("malformed bitmap");
    result.bins_.push_back(r);
    if (roaring_bitmap_get_cardinality(r) != counts[b]) return bad("bitmap disagrees with its count");
    if (!roaring_bitmap_is_empty(r) && roaring_bitmap_maximum(r) >= chunk_elems)
      return bad("bitmap position beyond its chunk");
    at += n;
  }
  if (at != len) return bad("trailing bytes in chunk block");
  *out = std::move(result);
  return Status::ok();
}

namespace {

Status parse_double(const std::string& s, double* out) {
  if (s.empty()) return bad("empty number in spec");
  errno = 0;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(*out))
    return bad("bad number '" + s + "' in spec");
  return Status::ok();
}

Status parse_count(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
    return bad("bad count '" + s + "' in spec");
  *out = std::strtoull(s.c_str(), nullptr, 10);
  if (*out == 0 || *out > max) return bad("count '" + s + "' out of range in spec");
  return Status::ok();
}

}  // namespace

Status parse_spec(const char* text, IndexSpec* out) {
  IndexSpec spec;
  std::string s = text ? text : "";
  size_t pos = 0;
  while (pos < s.size()) {
    size_t semi = s.find(';', pos);
    if (semi == std::string::npos) semi = s.size();
    const std::string item = s.substr(pos, semi - pos);
    pos = semi + 1;
    if (item == "update") {
      if (s != "update") return bad("'update' goes alone in a spec");
      spec.update = true;
      continue;
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return bad("spec item '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "bins") {
      uint64_t n = 0;
      EXA_RETURN_IF_ERROR(parse_count(value, kMaxEdges + 1, &n));
      spec.bins = static_cast<uint32_t>(n);
    } else if (key == "edges") {
      size_t at = 0;
      while (at <= value.size()) {
        size_t comma = value.find(',', at);
        if (comma == std::string::npos) comma = value.size();
        double e = 0;
        EXA_RETURN_IF_ERROR(parse_double(value.substr(at, comma - at), &e));
        if (!spec.edges.empty() && !(e > spec.edges.back())) return bad("edges not increasing");
        spec.edges.push_back(e);
        if (spec.edges.size() > kMaxEdges) return bad("too many edges");
        at = comma + 1;
      }
    } else if (key == "chunk") {
      EXA_RETURN_IF_ERROR(parse_count(value, kMaxChunkElems, &spec.chunk_rows));
    } else {
      return bad("unknown spec key '" + key + "'");
    }
  }
  *out = std::move(spec);
  return Status::ok();
}

std::vector<double> equal_weight_edges(const std::vector<double>& sorted, uint32_t bins) {
  std::vector<double> edges;
  if (sorted.empty() || bins <= 1) return edges;
  for (uint32_t k = 1; k < bins; ++k) {
    const double e = sorted[static_cast<size_t>(static_cast<double>(sorted.size()) * k / bins)];
    if (!std::isfinite(e)) continue;
    if (edges.empty() || e > edges.back()) edges.push_back(e);
  }
  return edges;
}

double round_down(long double v) {
  double d = static_cast<double>(v);
  if (static_cast<long double>(d) > v) d = std::nextafter(d, -std::numeric_limits<double>::infinity());
  return d;
}
double round_up(long double v) {
  double d = static_cast<double>(v);
  if (static_cast<long double>(d) < v) d = std::nextafter(d, std::numeric_limits<double>::infinity());
  return d;
}

}  // namespace exa::query
