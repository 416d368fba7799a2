#include "query/mpi/put_epoch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <limits>

#include <map>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "convert/value_range.hpp"
#include "pnetcdf.h"
#include "query/mpi/engine.hpp"
#include "query/mpi/index_store.hpp"
#include "query/types.hpp"

namespace exa::query {

namespace {

constexpr size_t kMaxRecords = 1024;  // per variable; past it neighbours merge pairwise (conservative)
constexpr uint64_t kToEnd = std::numeric_limits<uint64_t>::max();

std::mutex g_mutex;
std::map<std::pair<int, int>, std::vector<PutRecord>> g_puts;
std::map<int, uint64_t> g_put_total;  // per ncid: puts of any variable so far
// Whether puts into (ncid, varid) make a pass of their own over their values
// when their conversion did not take the range (a put through the cache or
// async connector, a nonblocking or varn put): the variable has a sidecar
// (an index or a min/max record), or this process made a query or index
// call on it. Looked up once per variable in g_sidecars, kept up to date by
// this process's loads, builds and drops.
std::map<std::pair<int, int>, bool> g_indexed;
// Per ncid: the varids with a sidecar, from one scan of the file's directory
// at its first lookup. (A stat per variable was a quarter of rank 0's samples
// in the put phase of 1,000,000 compact variables, docs/perf/compact_close.md.)
std::map<int, std::vector<int>> g_sidecars;
// Posted puts whose rows count as written whole once their wait succeeds:
// by (ncid, request id), the variable and the records to add then.
std::map<std::pair<int, int>, std::pair<int, std::vector<PutRecord>>> g_posted;
// Puts a stack deferred (async, cache: PutCall::request kDeferredPut) whose
// rows count as written whole once the file's deferred puts are settled
// (settle_deferred), by (ncid, varid), merged as g_puts (bounded).
std::map<std::pair<int, int>, std::vector<PutRecord>> g_deferred;

// EXACDF_QUERY_MINMAX: unset (or "put", the default): every put takes its
// values' range in the one pass it makes over them (native's conversion,
// async's copy, cache's log record), other puts as "queried"; "always":
// every put, with a pass of its own where none took it; "queried": only puts
// into variables g_indexed says (a sidecar, or a query or index call of this
// process), the default before the ninth period; "off": no put takes it
// (their chunks have no bounds: queries scan them). "put" became the default
// once the range cost <= 5% of a put's CPU in every measured cell (1 MiB
// puts, put/queried 0.986-1.045, medians of 20-40 paired runs under load
// 16-37; docs/perf/query_minmax.md, ninth period).
enum class MinmaxMode { kOff, kQueried, kPut, kAlways };
MinmaxMode minmax_mode() {
  static const MinmaxMode mode = [] {
    const char* v = std::getenv("EXACDF_QUERY_MINMAX");
    if (v != nullptr && std::strcmp(v, "always") == 0) return MinmaxMode::kAlways;
    if (v != nullptr && std::strcmp(v, "queried") == 0) return MinmaxMode::kQueried;
    if (v != nullptr && std::strcmp(v, "off") == 0) return MinmaxMode::kOff;
    return MinmaxMode::kPut;
  }();
  return mode;
}

bool minmax_always() { return minmax_mode() == MinmaxMode::kAlways; }

bool ranges_wanted(int ncid, int varid, const std::function<std::string()>& path_of) {
  if (minmax_always()) return true;
  if (minmax_mode() == MinmaxMode::kOff) return false;
  bool listed = false;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_indexed.find({ncid, varid});
    if (it != g_indexed.end()) return it->second;
    listed = g_sidecars.count(ncid) != 0;
  }
  std::vector<int> scanned;
  bool have_scan = false;
  if (!listed && path_of) {
    const std::string path = path_of();
    have_scan = !path.empty();
    if (have_scan) scanned = sidecar_varids(path);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_sidecars.find(ncid);
  if (it == g_sidecars.end() && have_scan) it = g_sidecars.emplace(ncid, std::move(scanned)).first;
  const bool found = it != g_sidecars.end() && std::binary_search(it->second.begin(), it->second.end(), varid);
  g_indexed[{ncid, varid}] = found;
  return found;
}

// Records of overlapping rows merge (rows written whole by both stay whole:
// their union has no gap). Records that only adjoin stay apart, so that a
// chunk's bounds come from the puts into it, not from its neighbours'. Past
// kMaxRecords, neighbours (in row order) merge pairwise: bounds widen, and
// a pair with a gap between is no longer written whole.
void add_to(std::vector<PutRecord>& v, PutRecord r) {
  if (!v.empty() && v.back().row0 < r.row1 && r.row0 < v.back().row1) {  // overlaps
    v.back().row0 = std::min(v.back().row0, r.row0);
    v.back().row1 = std::max(v.back().row1, r.row1);
    v.back().bounds = unite_bounds(v.back().bounds, r.bounds);
    // (A record that covers the other's rows, written whole, leaves them whole:
    // every value of the union is its -- a posted put's success after its post.)
    v.back().whole_rows = (v.back().whole_rows && r.whole_rows) ||
                          (r.whole_rows && r.row0 <= v.back().row0 && v.back().row1 <= r.row1);
    return;
  }
  v.push_back(r);
  if (v.size() <= kMaxRecords) return;
  std::sort(v.begin(), v.end(), [](const PutRecord& a, const PutRecord& b) { return a.row0 < b.row0; });
  std::vector<PutRecord> halved;
  for (size_t i = 0; i < v.size(); i += 2) {
    PutRecord m = v[i];
    if (i + 1 < v.size()) {
      const PutRecord& n = v[i + 1];
      m.whole_rows = m.whole_rows && n.whole_rows && n.row0 <= m.row1;
      m.row1 = std::max(m.row1, n.row1);
      m.bounds = unite_bounds(m.bounds, n.bounds);
    }
    halved.push_back(m);
  }
  v = std::move(halved);
}

void add(int ncid, int varid, PutRecord r) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_put_total[ncid];
  add_to(g_puts[{ncid, varid}], r);
}

// The bounds of n values of memtype as the variable of nc_type vtype stores
// them (converted: integers truncate, doubles round to float): the fallback
// when the put's conversion pass did not take them (a pass of its own).
PutBounds values_bounds(const void* buf, uint64_t n, int memtype, int vtype) {
  PutBounds b;
  if (buf == nullptr && n > 0) return b;
  convert::ValueRange r;
  convert::add_native_range(buf, memtype, static_cast<int64_t>(n), &r);
  if (!r.known) return b;
  long double lo = r.lo, hi = r.hi;
  b.bounded = true;
  b.any = r.any;
  b.nan = r.nan;
  if (!r.any) return b;
  bool fits = true;
  with_type(vtype, [&](auto t) {
    using V = decltype(t);
    const long double vlo = static_cast<long double>(std::numeric_limits<V>::lowest());
    const long double vhi = static_cast<long double>(std::numeric_limits<V>::max());
    if (std::isinf(lo) || std::isinf(hi)) fits = std::is_floating_point_v<V>;
    else fits = lo >= vlo && hi <= vhi;
    if (r.nan && !std::is_floating_point_v<V>) fits = false;
    if constexpr (std::is_integral_v<V>) {  // a fraction truncates toward zero
      lo = std::floor(lo);
      hi = std::ceil(hi);
    } else if constexpr (std::is_same_v<V, float>) {  // rounding to float can move a value outward
      lo = std::nextafter(static_cast<float>(lo), -std::numeric_limits<float>::infinity());
      hi = std::nextafter(static_cast<float>(hi), std::numeric_limits<float>::infinity());
    }
  });
  if (!fits) return {};  // out of range (NC_ERANGE): what is stored is not these values
  b.lo = round_down(lo);
  b.hi = round_up(hi);
  return b;
}

// The bounds of values the put's conversion pass saw as stored (exact:
// fill values of out-of-range elements included).
PutBounds stored_bounds(const convert::ValueRange& r) {
  PutBounds b;
  if (!r.known) return b;
  b.bounded = true;
  b.any = r.any;
  b.nan = r.nan;
  if (r.any) {
    b.lo = round_down(r.lo);
    b.hi = round_up(r.hi);
  }
  return b;
}

// Whether the call wrote every value of its rows of dimension 0: stride 1
// and the other dimensions whole.
bool writes_whole_rows(const PutCall& c, const std::vector<MPI_Offset>& dims) {
  if (c.whole) return true;
  const size_t nd = dims.size();
  for (size_t d = 0; d < nd; ++d) {
    if (c.stride != nullptr && c.stride[d] != 1) return false;
    if (d == 0) continue;
    const MPI_Offset cnt = c.one ? 1 : c.count[d];
    if (c.start[d] != 0 || cnt != dims[d]) return false;
  }
  return true;
}

// A put whose conversion took its values' ranges: one record per segment
// (the segments of a whole-row put are its min/max chunks' rows), else one.
void add_seen(PutRecord r, const convert::SegmentedRange& seen, const std::vector<MPI_Offset>& dims,
              std::vector<PutRecord>* out) {
  const std::vector<convert::ValueRange>& segs = seen.segments();
  uint64_t row = 1;
  for (size_t d = 1; d < dims.size(); ++d) row *= static_cast<uint64_t>(std::max<MPI_Offset>(dims[d], 0));
  if (segs.size() <= 1 || seen.every() <= 0 || row == 0 || r.row1 == kToEnd) {
    convert::ValueRange all;
    for (const convert::ValueRange& s : segs) all.unite(s);
    r.bounds = stored_bounds(all);
    out->push_back(r);
    return;
  }
  uint64_t at = r.row0;
  for (size_t k = 0; k < segs.size() && at < r.row1; ++k) {
    const uint64_t rows = static_cast<uint64_t>(k == 0 ? seen.first() : seen.every()) / row;
    PutRecord piece = r;
    piece.row0 = at;
    piece.row1 = std::min(r.row1, at + rows);
    piece.bounds = stored_bounds(segs[k]);
    out->push_back(piece);
    at = piece.row1;
  }
}

}  // namespace

void note_put(int ncid, int varid) { add(ncid, varid, {0, kToEnd, {}}); }

void note_put(int ncid, int varid, const PutCall& c, const PutVarShape& shape) {
  const int nd = shape.ndims, vtype = shape.vtype;
  const std::vector<MPI_Offset>& dims = shape.dims;
  if (nd == 0) return;  // a scalar has no index
  PutRecord r{0, kToEnd, {}};
  uint64_t n = 0;
  if (c.whole) {
    r.row1 = static_cast<uint64_t>(std::max<MPI_Offset>(dims[0], 0));  // the records there are now
    n = 1;
    for (MPI_Offset d : dims) n *= static_cast<uint64_t>(std::max<MPI_Offset>(d, 0));
  } else if (c.start != nullptr && (c.one || c.count != nullptr)) {
    if (c.start[0] < 0) return note_put(ncid, varid);  // an error: nothing written
    const MPI_Offset cnt = c.one ? 1 : c.count[0];
    const MPI_Offset step = c.stride != nullptr ? c.stride[0] : 1;
    if (cnt <= 0) return;  // nothing written
    if (step <= 0) return note_put(ncid, varid);
    r.row0 = static_cast<uint64_t>(c.start[0]);
    MPI_Offset last = 0;  // start + (count - 1) * stride: past INT64_MAX the call fails; note all
    if (__builtin_mul_overflow(cnt - 1, step, &last) || __builtin_add_overflow(last, c.start[0], &last) ||
        last == std::numeric_limits<MPI_Offset>::max())
      return note_put(ncid, varid);
    r.row1 = static_cast<uint64_t>(last) + 1;
    n = 1;
    for (int d = 0; d < nd && !c.one; ++d) n *= static_cast<uint64_t>(std::max<MPI_Offset>(c.count[d], 0));
  } else {
    return note_put(ncid, varid);
  }
  r.whole_rows = c.written && writes_whole_rows(c, dims);
  std::vector<PutRecord> records;
  if (c.seen != nullptr && c.seen->size() == static_cast<int64_t>(n)) {
    add_seen(r, *c.seen, dims, &records);
  } else {
    if (c.memtype != 0 && ranges_wanted(ncid, varid, shape.path)) r.bounds = values_bounds(c.buf, n, c.memtype, vtype);
    records.push_back(r);
  }
  for (const PutRecord& x : records) add(ncid, varid, x);
  if (c.request == -1 || !writes_whole_rows(c, dims)) return;
  for (PutRecord& x : records) x.whole_rows = true;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (c.request == kDeferredPut) {
    for (const PutRecord& x : records) add_to(g_deferred[{ncid, varid}], x);
    return;
  }
  if (c.request < 0) return;
  g_posted[{ncid, c.request}] = {varid, std::move(records)};
}

bool has_deferred(int ncid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_deferred.lower_bound({ncid, std::numeric_limits<int>::min()});
  return it != g_deferred.end() && it->first.first == ncid;
}

void settle_deferred(int ncid, bool settled) {
  std::vector<std::pair<int, std::vector<PutRecord>>> credited;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto it = g_deferred.begin(); it != g_deferred.end();) {
      if (it->first.first != ncid) {
        ++it;
        continue;
      }
      if (settled) credited.emplace_back(it->first.second, std::move(it->second));
      it = g_deferred.erase(it);
    }
  }
  for (const auto& [varid, records] : credited)
    for (const PutRecord& r : records) add(ncid, varid, r);
}

void note_request_done(int ncid, int request, bool succeeded) {
  std::pair<int, std::vector<PutRecord>> posted;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_posted.find({ncid, request});
    if (it == g_posted.end()) return;
    posted = std::move(it->second);
    g_posted.erase(it);
  }
  if (!succeeded) return;  // (its post widened the bounds already)
  for (const PutRecord& r : posted.second) add(ncid, posted.first, r);
}

void forget_requests(int ncid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::erase_if(g_posted, [&](const auto& kv) { return kv.first.first == ncid; });
}

convert::SegmentedRange put_segments(const PutCall& c, const PutVarShape& shape) {
  const std::vector<MPI_Offset>& dims = shape.dims;
  if (shape.ndims == 0 || dims.empty()) return convert::SegmentedRange();
  if (!c.whole && (c.start == nullptr || (!c.one && c.count == nullptr) || c.start[0] < 0)) return convert::SegmentedRange();
  if (!writes_whole_rows(c, dims)) return convert::SegmentedRange();
  uint64_t row = 1;
  for (size_t d = 1; d < dims.size(); ++d) row *= static_cast<uint64_t>(std::max<MPI_Offset>(dims[d], 0));
  const uint64_t chunk_rows = std::max<uint64_t>(1, minmax_chunk_elems() / std::max<uint64_t>(row, 1));
  if (row == 0 || chunk_rows > (uint64_t{1} << 62) / row) return convert::SegmentedRange();
  const uint64_t r0 = c.whole ? 0 : static_cast<uint64_t>(c.start[0]);
  return convert::SegmentedRange(static_cast<int64_t>((chunk_rows - r0 % chunk_rows) * row),
                                 static_cast<int64_t>(chunk_rows * row));
}

namespace {

// One segment of a varn put's values: they end after `end` values and lie
// in rows [row0, row1) of dimension 0.
struct VarnSegment {
  int64_t end = 0;
  uint64_t row0 = 0, row1 = 0;
  bool whole = false;  // every value of those rows
};

// The segments of a varn put (varn_segments); false when a piece is bad.
bool varn_pieces(int num, MPI_Offset* const* starts, MPI_Offset* const* counts, const PutVarShape& shape,
                 std::vector<VarnSegment>* out) {
  const int nd = shape.ndims;
  const std::vector<MPI_Offset>& dims = shape.dims;
  if (num < 0 || (num > 0 && starts == nullptr) || nd == 0 || dims.size() != static_cast<size_t>(nd)) return false;
  uint64_t row = 1;
  for (int d = 1; d < nd; ++d) row *= static_cast<uint64_t>(std::max<MPI_Offset>(dims[static_cast<size_t>(d)], 0));
  const uint64_t chunk_rows = std::max<uint64_t>(1, minmax_chunk_elems() / std::max<uint64_t>(row, 1));
  int64_t at = 0;
  for (int i = 0; i < num; ++i) {
    if (starts[i] == nullptr || starts[i][0] < 0) return false;
    uint64_t k = 1;
    MPI_Offset c0 = 1;
    bool whole = true;
    for (int d = 0; d < nd; ++d) {
      const MPI_Offset c = counts != nullptr && counts[i] != nullptr ? counts[i][d] : 1;
      if (c < 0) return false;
      k *= static_cast<uint64_t>(c);
      if (d == 0) c0 = c;
      else whole = whole && starts[i][d] == 0 && c == dims[static_cast<size_t>(d)];
    }
    if (k == 0) continue;
    MPI_Offset end = 0;
    if (__builtin_add_overflow(starts[i][0], c0, &end) || k > (uint64_t{1} << 62)) return false;
    const uint64_t r0 = static_cast<uint64_t>(starts[i][0]), r1 = static_cast<uint64_t>(end);
    if (!whole || row == 0 || chunk_rows > (uint64_t{1} << 62) / row) {
      at += static_cast<int64_t>(k);
      out->push_back({at, r0, r1, false});
      continue;
    }
    for (uint64_t r = r0; r < r1;) {  // whole rows: cut at the chunks' rows
      const uint64_t next = std::min(r1, (r / chunk_rows + 1) * chunk_rows);
      at += static_cast<int64_t>((next - r) * row);
      out->push_back({at, r, next, true});
      r = next;
    }
  }
  return true;
}

}  // namespace

bool varn_segments(int num, MPI_Offset* const* starts, MPI_Offset* const* counts, const PutVarShape& shape,
                   convert::SegmentedRange* out) {
  std::vector<VarnSegment> segs;
  if (!varn_pieces(num, starts, counts, shape, &segs) || segs.empty()) return false;
  std::vector<int64_t> ends;
  for (const VarnSegment& s : segs) ends.push_back(s.end);
  *out = convert::SegmentedRange::with_ends(std::move(ends));
  return true;
}

void note_put_varn(int ncid, int varid, int num, MPI_Offset* const* starts, MPI_Offset* const* counts,
                   const void* buf, int memtype, const PutVarShape& shape, const convert::SegmentedRange* seen,
                   int request) {
  const int nd = shape.ndims, vtype = shape.vtype;
  if (num < 0 || (num > 0 && starts == nullptr)) return note_put(ncid, varid);
  if (nd == 0 || num == 0) return;
  std::vector<VarnSegment> segs;
  if (seen != nullptr && varn_pieces(num, starts, counts, shape, &segs) && !segs.empty() &&
      seen->size() == segs.back().end && seen->segments().size() == segs.size()) {
    // The conversion took each segment's range: a record per segment; those
    // of whole rows count as written whole once the request's wait succeeds.
    std::vector<PutRecord> whole;
    for (size_t k = 0; k < segs.size(); ++k) {
      PutRecord r{segs[k].row0, segs[k].row1, stored_bounds(seen->segments()[k]), false};
      add(ncid, varid, r);
      r.whole_rows = true;
      if (segs[k].whole) whole.push_back(r);
    }
    if (request < 0 || whole.empty()) return;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_posted[{ncid, request}] = {varid, std::move(whole)};
    return;
  }
  uint64_t n = 0;
  std::vector<PutRecord> rows;
  for (int i = 0; i < num; ++i) {
    if (starts[i] == nullptr || starts[i][0] < 0) return note_put(ncid, varid);
    uint64_t k = 1;
    MPI_Offset c0 = 1;
    if (counts != nullptr && counts[i] != nullptr) {
      c0 = counts[i][0];
      for (int d = 0; d < nd; ++d) k *= static_cast<uint64_t>(std::max<MPI_Offset>(counts[i][d], 0));
    }
    n += k;
    MPI_Offset end = 0;  // past INT64_MAX the call fails; note all
    if (c0 > 0 && __builtin_add_overflow(starts[i][0], c0, &end)) return note_put(ncid, varid);
    if (c0 > 0) rows.push_back({static_cast<uint64_t>(starts[i][0]), static_cast<uint64_t>(end), {}});
  }
  const PutBounds b =
      memtype != 0 && ranges_wanted(ncid, varid, shape.path) ? values_bounds(buf, n, memtype, vtype) : PutBounds{};
  for (PutRecord& r : rows) {
    r.bounds = b;
    add(ncid, varid, r);
  }
}

bool range_wanted_at_put(int ncid, int varid, const std::function<std::string()>& path_of) {
  const MinmaxMode m = minmax_mode();
  return m == MinmaxMode::kPut || m == MinmaxMode::kAlways || ranges_wanted(ncid, varid, path_of);
}

std::vector<PutRecord> take_puts(int ncid, int varid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_puts.find({ncid, varid});
  if (it == g_puts.end()) return {};
  std::vector<PutRecord> out = std::move(it->second);
  g_puts.erase(it);
  return out;
}

uint64_t put_total(int ncid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_put_total.find(ncid);
  return it == g_put_total.end() ? 0 : it->second;
}

void note_indexed(int ncid, int varid, bool indexed) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_indexed[{ncid, varid}] = indexed;
}

std::vector<int> noted_varids(int ncid) {
  std::vector<int> out;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto it = g_puts.lower_bound({ncid, std::numeric_limits<int>::min()});
       it != g_puts.end() && it->first.first == ncid; ++it)
    for (const PutRecord& r : it->second)
      if (r.whole_rows && r.bounds.bounded) {
        out.push_back(it->first.second);
        break;
      }
  return out;
}

bool minmax_at_every_put() {
  const MinmaxMode m = minmax_mode();
  return m == MinmaxMode::kPut || m == MinmaxMode::kAlways;
}

bool minmax_requested() {
  const char* v = std::getenv("EXACDF_QUERY_MINMAX");
  return v != nullptr && (std::strcmp(v, "put") == 0 || std::strcmp(v, "always") == 0);
}

void forget_file(int ncid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto it = g_puts.begin(); it != g_puts.end();)
      it = it->first.first == ncid ? g_puts.erase(it) : std::next(it);
    g_put_total.erase(ncid);
    g_sidecars.erase(ncid);
    for (auto it = g_indexed.begin(); it != g_indexed.end();)
      it = it->first.first == ncid ? g_indexed.erase(it) : std::next(it);
    std::erase_if(g_posted, [&](const auto& kv) { return kv.first.first == ncid; });
    std::erase_if(g_deferred, [&](const auto& kv) { return kv.first.first == ncid; });
  }
  forget_trust(ncid);
}

}  // namespace exa::query
