#include "query/mpi/put_epoch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sys/stat.h>

#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

#include "pnetcdf.h"
#include "query/mpi/index_store.hpp"
#include "query/types.hpp"

namespace exa::query {

namespace {

constexpr size_t kMaxRecords = 1024;  // per variable; more are merged into one (conservative)
constexpr uint64_t kToEnd = std::numeric_limits<uint64_t>::max();

std::mutex g_mutex;
std::map<std::pair<int, int>, std::vector<PutRecord>> g_puts;
std::map<int, uint64_t> g_put_total;  // per ncid: puts of any variable so far
// Whether (ncid, varid) has an index sidecar: the values' range is computed
// only then (a pass over the buffer that writes of unindexed variables do
// not pay). Looked up once per variable, kept up to date by this
// process's builds and drops (an index another process builds meanwhile
// gets its chunks stale without bounds: still right, less skipping).
std::map<std::pair<int, int>, bool> g_indexed;

bool has_sidecar(int ncid, int varid, const std::function<std::string()>& path_of) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_indexed.find({ncid, varid});
    if (it != g_indexed.end()) return it->second;
  }
  bool found = false;
  if (path_of) {
    const std::string path = path_of();
    struct stat sb {};
    found = !path.empty() && ::stat(sidecar_path(path.c_str(), varid).c_str(), &sb) == 0;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_indexed[{ncid, varid}] = found;
  return found;
}

PutBounds unite(const PutBounds& a, const PutBounds& b) {
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

void add(int ncid, int varid, PutRecord r) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_put_total[ncid];
  std::vector<PutRecord>& v = g_puts[{ncid, varid}];
  if (!v.empty() && v.back().row0 <= r.row1 && r.row0 <= v.back().row1) {  // overlaps or adjoins
    v.back().row0 = std::min(v.back().row0, r.row0);
    v.back().row1 = std::max(v.back().row1, r.row1);
    v.back().bounds = unite(v.back().bounds, r.bounds);
    return;
  }
  v.push_back(r);
  if (v.size() <= kMaxRecords) return;
  PutRecord all = v.front();
  for (const PutRecord& x : v) {
    all.row0 = std::min(all.row0, x.row0);
    all.row1 = std::max(all.row1, x.row1);
    all.bounds = unite(all.bounds, x.bounds);
  }
  v.assign(1, all);
}

// The bounds of n values of C type M, as the variable of nc_type vtype
// stores them (converted: integers truncate, doubles round to float).
template <typename M>
PutBounds bounds_of(const M* v, uint64_t n, int vtype) {
  PutBounds b;
  long double lo = 0, hi = 0;
  bool any = false, nan = false;
  if constexpr (std::is_floating_point_v<M>) {
    M mn = std::numeric_limits<M>::infinity(), mx = -std::numeric_limits<M>::infinity();
    for (uint64_t i = 0; i < n; ++i) {
      if (std::isnan(v[i])) {
        nan = true;
        continue;
      }
      mn = std::min(mn, v[i]);
      mx = std::max(mx, v[i]);
      any = true;
    }
    lo = mn;
    hi = mx;
  } else {
    M mn = std::numeric_limits<M>::max(), mx = std::numeric_limits<M>::lowest();
    for (uint64_t i = 0; i < n; ++i) {
      mn = std::min(mn, v[i]);
      mx = std::max(mx, v[i]);
    }
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

}  // namespace

void note_put(int ncid, int varid) { add(ncid, varid, {0, kToEnd, {}}); }

void note_put(int ncid, int varid, const PutCall& c, const PutVarShape& shape) {
  const int nd = shape.ndims, vtype = shape.vtype;
  const std::vector<MPI_Offset>& dims = shape.dims;
  if (nd == 0) return;  // a scalar has no index
  PutRecord r{0, kToEnd, {}};
  uint64_t n = 0;
  if (c.whole) {
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
  if (c.memtype != 0 && has_sidecar(ncid, varid, shape.path)) r.bounds = values_bounds(c.buf, n, c.memtype, vtype);
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
  const PutBounds b = memtype != 0 && has_sidecar(ncid, varid, shape.path) ? values_bounds(buf, n, memtype, vtype) : PutBounds{};
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
