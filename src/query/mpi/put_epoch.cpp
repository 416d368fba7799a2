#include "query/mpi/put_epoch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <sys/stat.h>

#include <map>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <mutex>
#include <type_traits>
#include <utility>

#include "pnetcdf.h"
#include "query/mpi/index_store.hpp"
#include "query/types.hpp"

namespace exa::query {

namespace {

constexpr size_t kMaxRecords = 1024;  // per variable; past it neighbours merge pairwise (conservative)
constexpr uint64_t kToEnd = std::numeric_limits<uint64_t>::max();

std::mutex g_mutex;
std::map<std::pair<int, int>, std::vector<PutRecord>> g_puts;
std::map<int, uint64_t> g_put_total;  // per ncid: puts of any variable so far
// Whether puts into (ncid, varid) compute their values' range: the variable
// has a sidecar (an index or a min/max record), or this process made a query
// or index call on it (from then on its puts keep min/max, so the next query
// can write a record). The pass over the values costs a put about a tenth of
// its time (docs/perf/query_minmax.md), so variables nobody queries do not
// pay it; EXACDF_QUERY_MINMAX=always makes every put pay it. Looked up once
// per variable (a stat of the sidecar), kept up to date by this process's
// loads, builds and drops.
std::map<std::pair<int, int>, bool> g_indexed;

bool minmax_always() {
  static const bool always = [] {
    const char* v = std::getenv("EXACDF_QUERY_MINMAX");
    return v != nullptr && std::strcmp(v, "always") == 0;
  }();
  return always;
}

bool ranges_wanted(int ncid, int varid, const std::function<std::string()>& path_of) {
  if (minmax_always()) return true;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_indexed.find({ncid, varid});
    if (it != g_indexed.end()) return it->second;
  }
  bool found = false;
  if (path_of) {
    const std::string path = path_of();
    struct stat sb {};
    found = !path.empty() && ::stat(sidecar_path(path, varid).c_str(), &sb) == 0;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_indexed[{ncid, varid}] = found;
  return found;
}

// Records of overlapping rows merge (rows written whole by both stay whole:
// their union has no gap). Records that only adjoin stay apart, so that a
// chunk's bounds come from the puts into it, not from its neighbours'. Past
// kMaxRecords, neighbours (in row order) merge pairwise: bounds widen, and
// a pair with a gap between is no longer written whole.
void add(int ncid, int varid, PutRecord r) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_put_total[ncid];
  std::vector<PutRecord>& v = g_puts[{ncid, varid}];
  if (!v.empty() && v.back().row0 < r.row1 && r.row0 < v.back().row1) {  // overlaps
    v.back().row0 = std::min(v.back().row0, r.row0);
    v.back().row1 = std::max(v.back().row1, r.row1);
    v.back().bounds = unite_bounds(v.back().bounds, r.bounds);
    v.back().whole_rows = v.back().whole_rows && r.whole_rows;
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

// min and max of n values (NaN ignored) and whether one is NaN. Every put
// of every variable pays this pass: written in lanes without branches so
// that it vectorizes (a NaN fails both comparisons and marks its lane).
template <typename M>
void value_range(const M* v, uint64_t n, M* mn, M* mx, bool* nan) {
  using Mask = std::conditional_t<sizeof(M) == 8, int64_t, int32_t>;
  constexpr int kLanes = 16;
  M lo[kLanes], hi[kLanes];
  Mask bad[kLanes] = {};
  for (int k = 0; k < kLanes; ++k) {
    lo[k] = *mn;
    hi[k] = *mx;
  }
  auto step = [&](int k, M x) {
    lo[k] = x < lo[k] ? x : lo[k];
    hi[k] = x > hi[k] ? x : hi[k];
    if constexpr (std::is_floating_point_v<M>) bad[k] |= static_cast<Mask>(x != x);
  };
  uint64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) step(k, v[i + static_cast<uint64_t>(k)]);
  for (; i < n; ++i) step(0, v[i]);
  Mask any_bad = 0;
  for (int k = 0; k < kLanes; ++k) {
    *mn = std::min(*mn, lo[k]);
    *mx = std::max(*mx, hi[k]);
    any_bad |= bad[k];
  }
  *nan = any_bad != 0;
}

#if defined(__SSE2__)
// The same with SSE2 for float and double (the compiler does not vectorize
// the generic loop at -O2): minps/maxps return their second operand when
// the first is NaN, so a NaN leaves the accumulators alone; cmpunord marks it.
template <typename M, typename V, typename Load, typename Min, typename Max, typename Unord, typename Or, typename Mask>
void sse_range(const M* v, uint64_t n, M* mn, M* mx, bool* nan, Load load, Min vmin, Max vmax, Unord unord,
               Or vor, Mask mask, V lo0, V hi0, V zero) {
  constexpr uint64_t kStep = 4 * sizeof(V) / sizeof(M);  // four vectors per step
  constexpr uint64_t kPer = sizeof(V) / sizeof(M);
  V a0 = lo0, a1 = lo0, b0 = hi0, b1 = hi0, u0 = zero, u1 = zero;  // two chains for the latency
  uint64_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    const V x0 = load(v + i), x1 = load(v + i + kPer), x2 = load(v + i + 2 * kPer), x3 = load(v + i + 3 * kPer);
    a0 = vmin(x0, a0);
    a1 = vmin(x1, a1);
    b0 = vmax(x0, b0);
    b1 = vmax(x1, b1);
    u0 = vor(u0, vor(unord(x0, x0), unord(x2, x2)));
    u1 = vor(u1, vor(unord(x1, x1), unord(x3, x3)));
    a0 = vmin(x2, a0);
    a1 = vmin(x3, a1);
    b0 = vmax(x2, b0);
    b1 = vmax(x3, b1);
  }
  const V lo[4] = {a0, a1, a0, a1}, hi[4] = {b0, b1, b0, b1}, bad[4] = {u0, u1, u0, u1};
  bool any_bad = false;
  for (int k = 0; k < 4; ++k) {
    alignas(16) M l[kPer], h[kPer];
    std::memcpy(l, &lo[k], sizeof l);
    std::memcpy(h, &hi[k], sizeof h);
    for (uint64_t j = 0; j < kPer; ++j) {
      *mn = std::min(*mn, l[j]);
      *mx = std::max(*mx, h[j]);
    }
    any_bad = any_bad || mask(bad[k]) != 0;
  }
  for (; i < n; ++i) {
    if (v[i] != v[i]) {
      any_bad = true;
      continue;
    }
    *mn = std::min(*mn, v[i]);
    *mx = std::max(*mx, v[i]);
  }
  *nan = any_bad;
}

void value_range(const float* v, uint64_t n, float* mn, float* mx, bool* nan) {
  sse_range(v, n, mn, mx, nan, [](const float* p) { return _mm_loadu_ps(p); },
            [](__m128 a, __m128 b) { return _mm_min_ps(a, b); }, [](__m128 a, __m128 b) { return _mm_max_ps(a, b); },
            [](__m128 a, __m128 b) { return _mm_cmpunord_ps(a, b); }, [](__m128 a, __m128 b) { return _mm_or_ps(a, b); },
            [](__m128 a) { return _mm_movemask_ps(a); }, _mm_set1_ps(*mn), _mm_set1_ps(*mx), _mm_setzero_ps());
}

void value_range(const double* v, uint64_t n, double* mn, double* mx, bool* nan) {
  sse_range(v, n, mn, mx, nan, [](const double* p) { return _mm_loadu_pd(p); },
            [](__m128d a, __m128d b) { return _mm_min_pd(a, b); }, [](__m128d a, __m128d b) { return _mm_max_pd(a, b); },
            [](__m128d a, __m128d b) { return _mm_cmpunord_pd(a, b); }, [](__m128d a, __m128d b) { return _mm_or_pd(a, b); },
            [](__m128d a) { return _mm_movemask_pd(a); }, _mm_set1_pd(*mn), _mm_set1_pd(*mx), _mm_setzero_pd());
}
#endif

// The bounds of n values of C type M, as the variable of nc_type vtype
// stores them (converted: integers truncate, doubles round to float).
template <typename M>
PutBounds bounds_of(const M* v, uint64_t n, int vtype) {
  PutBounds b;
  long double lo = 0, hi = 0;
  bool any = false, nan = false;
  if constexpr (std::is_floating_point_v<M>) {
    M mn = std::numeric_limits<M>::infinity(), mx = -std::numeric_limits<M>::infinity();
    value_range(v, n, &mn, &mx, &nan);
    any = mn <= mx;  // some value is not NaN
    lo = mn;
    hi = mx;
  } else {
    M mn = std::numeric_limits<M>::max(), mx = std::numeric_limits<M>::lowest();
    value_range(v, n, &mn, &mx, &nan);
    any = n > 0;
    lo = static_cast<long double>(mn);
    hi = static_cast<long double>(mx);
  }
  b.bounded = true;
  b.any = any;
  b.nan = nan;
  if (!any) return b;
  bool fits = true;
  with_type(vtype, [&](auto t) {
    using V = decltype(t);
    const long double vlo = static_cast<long double>(std::numeric_limits<V>::lowest());
    const long double vhi = static_cast<long double>(std::numeric_limits<V>::max());
    if (std::isinf(lo) || std::isinf(hi)) fits = std::is_floating_point_v<V>;
    else fits = lo >= vlo && hi <= vhi;
    if (nan && !std::is_floating_point_v<V>) fits = false;
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

PutBounds values_bounds(const void* buf, uint64_t n, int memtype, int vtype) {
  PutBounds b;
  if (buf == nullptr && n > 0) return b;
  with_type(memtype, [&](auto t) {
    using M = decltype(t);
    b = bounds_of(static_cast<const M*>(buf), n, vtype);
  });
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
  if (c.memtype != 0 && ranges_wanted(ncid, varid, shape.path)) r.bounds = values_bounds(c.buf, n, c.memtype, vtype);
  r.whole_rows = c.written && writes_whole_rows(c, dims);
  add(ncid, varid, r);
}

void note_put_varn(int ncid, int varid, int num, MPI_Offset* const* starts, MPI_Offset* const* counts,
                   const void* buf, int memtype, const PutVarShape& shape) {
  const int nd = shape.ndims, vtype = shape.vtype;
  if (num < 0 || (num > 0 && starts == nullptr)) return note_put(ncid, varid);
  if (nd == 0 || num == 0) return;
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

void forget_file(int ncid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto it = g_puts.begin(); it != g_puts.end();)
      it = it->first.first == ncid ? g_puts.erase(it) : std::next(it);
    g_put_total.erase(ncid);
    for (auto it = g_indexed.begin(); it != g_indexed.end();)
      it = it->first.first == ncid ? g_indexed.erase(it) : std::next(it);
  }
  forget_trust(ncid);
}

}  // namespace exa::query
