// Query evaluation: each leaf from its variable's index when that index is
// current and the boxes span whole rows, else by scanning the values; the
// leaves' bitsets combined in postfix order. Every collective call is made
// the same number of times on every rank (round counts are agreed first).
#include <roaring/roaring.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pnetcdf.h"
#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
#include "query/mpi/nc_status.hpp"
#include "query/mpi/engine.hpp"
#include "query/mpi/index_store.hpp"
#include "query/mpi/typed_io.hpp"

namespace exa::query {

namespace {

constexpr uint64_t kSlabElems = uint64_t{1} << 22;  // values read per collective round
// Candidates closer than this are read as one run (reading 1 KiB more costs
// less than one more piece of a varn read).
constexpr uint64_t kRunGap = 256;
// Runs at least this long are read alone, by slabs.
constexpr uint64_t kLongRun = 65536;
// Candidates closer than this on average: the chunk's values are read whole.
// EXACDF_QUERY_DENSE_CANDIDATES overrides it (tests: 0 = always the bitmaps).
uint64_t dense_candidates() {
  const char* e = std::getenv("EXACDF_QUERY_DENSE_CANDIDATES");
  return e != nullptr ? std::strtoull(e, nullptr, 10) : 256;
}


std::atomic<uint64_t> g_values_tested{0};

// Tests n values read (and counts them: exa_debug_query_values_tested).
void test_values(const Normalized& nz, int type, const void* values, size_t n, Bitset* out, uint64_t at) {
  g_values_tested.fetch_add(n, std::memory_order_relaxed);
  apply(nz, type, values, n, out, at);
}

Status max_over(MPI_Comm comm, uint64_t mine, uint64_t* out) {
  unsigned long long v = mine, r = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&v, &r, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm)));
  *out = r;
  return Status::ok();
}

Status all_true(MPI_Comm comm, bool mine, bool* out) {
  int v = mine ? 1 : 0, r = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MIN, comm)));
  *out = r == 1;
  return Status::ok();
}

uint64_t inner_elems(const Box& b) {
  uint64_t n = 1;
  for (size_t d = 1; d < b.count.size(); ++d) n *= static_cast<uint64_t>(b.count[d]);
  return n;
}

Status check_box(const VarShape& v, const MPI_Offset* start, const MPI_Offset* count, Box* box) {
  const size_t nd = v.dims.size();
  box->start.assign(start, start + nd);
  box->count.assign(count, count + nd);
  box->scalar = nd == 0;
  for (size_t d = 0; d < nd; ++d) {
    if (start[d] < 0 || start[d] > v.dims[d]) return {NC_EINVALCOORDS, "start out of the variable"};
    if (count[d] < 0 || count[d] > v.dims[d] - start[d]) return {NC_EEDGE, "count beyond the variable"};
  }
  return Status::ok();
}

void default_box(const FileCtx& ctx, const VarShape& v, Box* box) {
  const size_t nd = v.dims.size();
  box->start.assign(nd, 0);
  box->count = v.dims;
  box->scalar = nd == 0 ? ctx.rank == 0 : false;
  if (nd == 0) return;
  const MPI_Offset n = v.dims[0];
  box->start[0] = n * ctx.rank / ctx.size;
  box->count[0] = n * (ctx.rank + 1) / ctx.size - box->start[0];
}

// Reads and tests rows of the box slab by slab.
Status scan_leaf(const FileCtx& ctx, const VarShape& v, const Normalized& nz, const Box& box,
                 Bitset* out) {
  const int tsize = type_size(v.type);
  if (v.dims.empty()) {  // a scalar: every rank reads it
    unsigned char value[8];
    Status st = get_vara_all(ctx.ncid, v.varid, v.type, nullptr, nullptr, value);
    if (st.is_ok() && box.scalar && passes(nz, v.type, value)) out->set(0);
    return st;
  }
  const uint64_t row = inner_elems(box);
  const uint64_t rows = static_cast<uint64_t>(box.count[0]);
  const uint64_t slab_rows = row == 0 ? rows : std::max<uint64_t>(1, kSlabElems / row);
  const uint64_t mine = (rows == 0 || row == 0) ? 0 : (rows + slab_rows - 1) / slab_rows;
  uint64_t rounds = 0;
  EXA_RETURN_IF_ERROR(max_over(ctx.comm, mine, &rounds));
  std::vector<unsigned char> buf(std::min(rows, slab_rows) * row * static_cast<uint64_t>(tsize) + 8);
  Status first;
  for (uint64_t r = 0; r < rounds; ++r) {
    std::vector<MPI_Offset> s = box.start, c = box.count;
    if (r < mine && first.is_ok()) {
      s[0] += static_cast<MPI_Offset>(r * slab_rows);
      c[0] = static_cast<MPI_Offset>(std::min(slab_rows, rows - r * slab_rows));
    } else {
      std::fill(c.begin(), c.end(), 0);
    }
    Status st = get_vara_all(ctx.ncid, v.varid, v.type, s.data(), c.data(), buf.data());
    if (!st.is_ok() && first.is_ok()) first = st;
    if (st.is_ok() && c[0] > 0)
      test_values(nz, v.type, buf.data(), static_cast<size_t>(c[0]) * row, out, r * slab_rows * row);
  }
  return first;
}

// A run of box positions to read: rows (ndims > 1) or elements (1-D).
struct Run {
  uint64_t box_pos;  // first box position
  uint64_t elems;
};

// Reads the runs (positions of a 1-D box or whole rows) in rounds and tests
// every value read.
// Short runs, many per collective varn read.
Status check_short_runs(const FileCtx& ctx, const VarShape& v, const Normalized& nz, const Box& box,
                        const std::vector<Run>& runs, Bitset* out) {
  const uint64_t row = inner_elems(box);
  const size_t nd = v.dims.size();
  // Split into rounds of at most kSlabElems values (a run longer than that alone).
  std::vector<size_t> round_begin{0};
  uint64_t acc = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (acc > 0 && acc + runs[i].elems > kSlabElems) {
      round_begin.push_back(i);
      acc = 0;
    }
    acc += runs[i].elems;
  }
  round_begin.push_back(runs.size());
  const uint64_t mine = runs.empty() ? 0 : round_begin.size() - 1;
  uint64_t rounds = 0;
  EXA_RETURN_IF_ERROR(max_over(ctx.comm, mine, &rounds));
  const int tsize = type_size(v.type);
  Status first;
  std::vector<unsigned char> buf;
  for (uint64_t r = 0; r < rounds; ++r) {
    const size_t b = r < mine ? round_begin[r] : 0, e = r < mine ? round_begin[r + 1] : 0;
    std::vector<MPI_Offset> coords;
    coords.reserve((e - b) * 2 * nd);
    uint64_t total = 0;
    for (size_t i = b; i < e; ++i) total += runs[i].elems;
    for (size_t i = b; i < e; ++i) {  // starts then counts, nd each
      const uint64_t first_row = runs[i].box_pos / row;
      for (size_t d = 0; d < nd; ++d) coords.push_back(box.start[d] + (d == 0 ? static_cast<MPI_Offset>(first_row) : 0));
      if (nd == 1) coords[coords.size() - 1] = box.start[0] + static_cast<MPI_Offset>(runs[i].box_pos);
      for (size_t d = 0; d < nd; ++d)
        coords.push_back(d == 0 ? static_cast<MPI_Offset>(runs[i].elems / row) : box.count[d]);
    }
    std::vector<MPI_Offset*> starts, counts;
    for (size_t i = 0; i < e - b; ++i) {
      starts.push_back(coords.data() + 2 * nd * i);
      counts.push_back(coords.data() + 2 * nd * i + nd);
    }
    buf.resize(total * static_cast<uint64_t>(tsize) + 8);
    Status st = get_varn_all(ctx.ncid, v.varid, v.type, static_cast<int>(e - b), starts.data(),
                             counts.data(), buf.data());
    if (!st.is_ok() && first.is_ok()) first = st;
    if (!st.is_ok()) continue;
    uint64_t at = 0;
    for (size_t i = b; i < e; ++i) {
      test_values(nz, v.type, buf.data() + at * static_cast<uint64_t>(tsize), runs[i].elems, out,
            runs[i].box_pos);
      at += runs[i].elems;
    }
  }
  return first;
}

// Long runs in slabs, one collective vara read each (a varn read of one
// long piece is several times slower), then the short runs.
Status check_runs(const FileCtx& ctx, const VarShape& v, const Normalized& nz, const Box& box,
                  const std::vector<Run>& runs, Bitset* out) {
  const uint64_t row = inner_elems(box);
  const uint64_t slab = std::max<uint64_t>(1, kSlabElems / row) * row;  // whole rows
  std::vector<Run> pieces, shorts;
  for (const Run& r : runs) {
    if (r.elems < kLongRun) {
      shorts.push_back(r);
      continue;
    }
    for (uint64_t at = 0; at < r.elems; at += slab) pieces.push_back({r.box_pos + at, std::min(slab, r.elems - at)});
  }
  uint64_t rounds = 0;
  EXA_RETURN_IF_ERROR(max_over(ctx.comm, pieces.size(), &rounds));
  const int tsize = type_size(v.type);
  std::vector<unsigned char> buf(pieces.empty() ? 8 : slab * static_cast<uint64_t>(tsize) + 8);
  Status first;
  for (uint64_t k = 0; k < rounds; ++k) {
    std::vector<MPI_Offset> s = box.start, c(v.dims.size(), 0);
    if (k < pieces.size()) {
      const Run& p = pieces[k];
      if (v.dims.size() == 1) {
        s[0] += static_cast<MPI_Offset>(p.box_pos);
        c[0] = static_cast<MPI_Offset>(p.elems);
      } else {
        s[0] += static_cast<MPI_Offset>(p.box_pos / row);
        c = box.count;
        c[0] = static_cast<MPI_Offset>(p.elems / row);
      }
    }
    Status st = get_vara_all(ctx.ncid, v.varid, v.type, s.data(), c.data(), buf.data());
    if (!st.is_ok() && first.is_ok()) first = st;
    if (st.is_ok() && k < pieces.size()) test_values(nz, v.type, buf.data(), pieces[k].elems, out, pieces[k].box_pos);
  }
  Status st = check_short_runs(ctx, v, nz, box, shorts, out);
  return first.is_ok() ? st : first;
}

// What the index does with one chunk's part of the box: nothing (no value
// can pass), every position (all pass), its values tested (stale chunk, or
// candidates too dense), or its bitmaps.
enum class ChunkUse { kSkip, kAll, kValues, kBitmaps };

struct ChunkStep {
  uint64_t chunk = 0;
  uint64_t lo = 0, hi = 0;  // chunk positions of the box's part
  uint64_t to_box = 0;      // box position = chunk position + to_box
  ChunkUse use = ChunkUse::kSkip;
  uint64_t candidates = 0;  // kBitmaps: values in edge bins (by the bins' counts)
};

// The bins' roles for a condition: inside (every value passes), edge
// (some may), and which to decode.
struct BinRoles {
  std::vector<bool> inside, edge, want;
};
BinRoles bin_roles(const Normalized& nz, const IndexHeader& h) {
  const uint32_t nbins = h.nbins();
  BinRoles r{std::vector<bool>(nbins), std::vector<bool>(nbins), std::vector<bool>(nbins)};
  for (uint32_t bin = 0; bin < nbins; ++bin) {
    if (bin + 1 == nbins) {
      r.inside[bin] = nan_passes(nz);
    } else {
      long double blo, bhi;
      bool closed;
      bin_interval(h.edges, bin, &blo, &bhi, &closed);
      r.inside[bin] = interval_all(nz, blo, bhi, closed);
      r.edge[bin] = !r.inside[bin] && !interval_none(nz, blo, bhi, closed);
    }
    r.want[bin] = r.inside[bin] || r.edge[bin];
  }
  return r;
}

// Decides every chunk from min/max (stale chunks too: their bounds were
// widened at put time) and, for fresh chunks, the bins' counts.
ChunkUse decide_chunk(const Normalized& nz, const IndexHeader& h, const BinRoles& roles, const LoadedIndex& idx,
                      uint64_t c, uint64_t dense, uint64_t* candidates) {
  const ChunkEntry& e = h.chunks[c];
  if (!(e.flags & kNoBounds)) {
    const bool has_v = e.flags & kHasValues, has_nan = e.flags & kHasNaN;
    if ((!has_v || interval_none(nz, e.min, e.max, true)) && (!has_nan || !nan_passes(nz))) return ChunkUse::kSkip;
    if ((!has_v || interval_all(nz, e.min, e.max, true)) && (!has_nan || nan_passes(nz))) return ChunkUse::kAll;
  }
  if (e.flags & kStale) return ChunkUse::kValues;
  const uint32_t nbins = h.nbins();
  std::vector<unsigned char> head;
  std::vector<uint32_t> counts;
  Status st = idx.load_block_head(c, 4 * uint64_t{nbins}, &head);
  if (st.is_ok()) st = ChunkBitmaps::cardinalities(head.data(), head.size(), nbins, h.chunk_elems(c), &counts);
  if (!st.is_ok()) return ChunkUse::kValues;  // a damaged piece: its rows by value
  uint64_t ncand = 0;
  for (uint32_t bin = 0; bin < nbins; ++bin) ncand += roles.edge[bin] ? counts[bin] : 0;
  // Candidates this dense are read with the whole chunk anyway: test its
  // values and leave the bitmaps alone (right whatever the counts say).
  if (ncand * dense > h.chunk_elems(c)) return ChunkUse::kValues;
  *candidates = ncand;
  return ChunkUse::kBitmaps;
}

// The cost of a plan in values read and tested (the scan's unit): values
// tested, bitmap bytes decoded (a 32-bit position costs about what a value
// does), a few values per candidate (read in runs), positions set.
double plan_cost(const std::vector<ChunkStep>& steps, const IndexHeader& h, uint64_t uncovered) {
  double cost = static_cast<double>(uncovered);
  for (const ChunkStep& s : steps) {
    const double n = static_cast<double>(s.hi - s.lo);
    switch (s.use) {
      case ChunkUse::kSkip: break;
      case ChunkUse::kAll: cost += n / 32; break;
      case ChunkUse::kValues: cost += n; break;
      case ChunkUse::kBitmaps:
        cost += static_cast<double>(h.chunks[s.chunk].length) / 4 + 8.0 * static_cast<double>(s.candidates);
        break;
    }
  }
  return cost;
}

// The index pays only when its plan costs at most this share of the scan
// (EXACDF_QUERY_INDEX_SHARE overrides it: tests force either path).
double index_share() {
  const char* e = std::getenv("EXACDF_QUERY_INDEX_SHARE");
  return e != nullptr ? std::strtod(e, nullptr) : 0.7;
}

// A leaf from the index: rows of the box the index covers, chunk by chunk
// (min/max first, then the bins); candidates, stale chunks and uncovered
// rows checked against the values. *scanned: the plan would not pay (on
// every rank's agreement) and the leaf was scanned instead.
Status index_leaf(const FileCtx& ctx, const VarShape& v, const Normalized& nz, const Box& box,
                  const LoadedIndex& idx, Bitset* out, bool* scanned) {
  const IndexHeader& h = idx.header;
  const uint64_t row = h.row_elems;
  const uint64_t b0 = static_cast<uint64_t>(box.start[0]);
  const uint64_t b1 = b0 + static_cast<uint64_t>(box.count[0]);
  const bool one_d = v.dims.size() == 1;
  const uint64_t dense = dense_candidates();
  const double t_start = MPI_Wtime();
  const BinRoles roles = bin_roles(nz, h);
  const uint64_t cover_end = std::min(b1, h.nrows);
  std::vector<ChunkStep> steps;
  if (b0 < cover_end && row > 0) {
    for (uint64_t c = b0 / h.chunk_rows; c * h.chunk_rows < cover_end; ++c) {
      const uint64_t c0 = c * h.chunk_rows;
      const uint64_t r0 = std::max(b0, c0), r1 = std::min(cover_end, c0 + h.chunk_rows);
      ChunkStep s{c, (r0 - c0) * row, (r1 - c0) * row, (c0 - b0) * row, ChunkUse::kSkip, 0};
      s.use = decide_chunk(nz, h, roles, idx, c, dense, &s.candidates);
      steps.push_back(s);
    }
  }
  const uint64_t uncovered = cover_end < b1 && row > 0 ? (b1 - std::max(b0, cover_end)) * row : 0;
  // Never slower than the scan: the index only when its plan is cheaper on
  // the slowest rank.
  double costs[2] = {plan_cost(steps, h, uncovered), static_cast<double>(box.elems())}, worst[2] = {0, 0};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(costs, worst, 2, MPI_DOUBLE, MPI_MAX, ctx.comm)));
  *scanned = worst[0] > index_share() * worst[1];
  if (*scanned) return scan_leaf(ctx, v, nz, box, out);
  std::vector<Run> runs;
  auto add_run = [&](uint64_t box_pos, uint64_t elems) {
    if (!runs.empty() && runs.back().box_pos + runs.back().elems + (one_d ? kRunGap : 0) >= box_pos &&
        (one_d || runs.back().box_pos + runs.back().elems == box_pos)) {
      runs.back().elems = box_pos + elems - runs.back().box_pos;
    } else {
      runs.push_back({box_pos, elems});
    }
  };
  for (const ChunkStep& s : steps) {
    if (s.use == ChunkUse::kSkip) continue;
    if (s.use == ChunkUse::kAll) {
      for (uint64_t p = s.lo; p < s.hi; ++p) out->set(p + s.to_box);
      continue;
    }
    if (s.use == ChunkUse::kValues) {
      add_run(s.lo + s.to_box, s.hi - s.lo);
      continue;
    }
    std::vector<unsigned char> block;
    ChunkBitmaps bm;
    Status st = idx.load_block(s.chunk, &block);
    if (st.is_ok()) st = ChunkBitmaps::decode(block.data(), block.size(), h.nbins(), h.chunk_elems(s.chunk), &bm, roles.want);
    if (!st.is_ok()) {  // a damaged piece: check its rows against the values
      add_run(s.lo + s.to_box, s.hi - s.lo);
      continue;
    }
    std::vector<uint32_t> cand;
    for (uint32_t bin = 0; bin < h.nbins(); ++bin) {
      if (!roles.want[bin]) continue;
      roaring_uint32_iterator_t it;
      roaring_init_iterator(bm.bin(bin), &it);
      roaring_move_uint32_iterator_equalorlarger(&it, static_cast<uint32_t>(s.lo));
      for (; it.has_value && it.current_value < s.hi; roaring_advance_uint32_iterator(&it)) {
        if (roles.inside[bin])
          out->set(it.current_value + s.to_box);
        else
          cand.push_back(it.current_value);
      }
    }
    if (cand.empty()) continue;
    std::sort(cand.begin(), cand.end());
    if (!one_d || cand.size() * dense > s.hi - s.lo) {
      add_run(s.lo + s.to_box, s.hi - s.lo);  // dense or multi-dimensional: the rows in one piece
      continue;
    }
    for (uint32_t p : cand) add_run(p + s.to_box, 1);
  }
  if (uncovered > 0) {  // rows appended after the index was built
    const uint64_t from = std::max(b0, cover_end);
    add_run((from - b0) * row, (b1 - from) * row);
  }
  const double t_runs = MPI_Wtime();
  Status st = check_runs(ctx, v, nz, box, runs, out);
  if (ctx.rank == 0 && std::getenv("EXACDF_QUERY_TRACE") != nullptr)
    std::fprintf(stderr, "exacdf query: %s: bitmaps %.4f s, %zu runs checked by value %.4f s\n",
                 v.name.c_str(), t_runs - t_start, runs.size(), MPI_Wtime() - t_runs);
  return st;
}

struct Leaf {
  VarShape var;
  Normalized nz;
};

Status eval_leaf(const FileCtx& ctx, const Leaf& leaf, const Box& box, Bitset* out) {
  if (leaf.nz.test == Test::kNone) return Status::ok();
  if (leaf.nz.test == Test::kAll) {
    out->set_all();
    return Status::ok();
  }
  // The index only for boxes of whole rows, on every rank.
  bool rows_only = !leaf.var.dims.empty();
  for (size_t d = 1; d < box.count.size(); ++d)
    rows_only = rows_only && box.start[d] == 0 && box.count[d] == leaf.var.dims[d];
  bool use = false;
  EXA_RETURN_IF_ERROR(all_true(ctx.comm, rows_only, &use));
  LoadedIndex idx;
  IndexState state;
  if (use) EXA_RETURN_IF_ERROR(load_index(ctx, leaf.var, &idx, &state));
  use = use && state.usable;
  bool scanned = !use;
  Status st = use ? index_leaf(ctx, leaf.var, leaf.nz, box, idx, out, &scanned)
                  : scan_leaf(ctx, leaf.var, leaf.nz, box, out);
  if (ctx.rank == 0 && std::getenv("EXACDF_QUERY_TRACE") != nullptr)
    std::fprintf(stderr, "exacdf query: %s by %s (%llu of %zu chunks stale)\n", leaf.var.name.c_str(),
                 !use ? "scan" : scanned ? "scan (the index would not pay)" : state.minmax ? "min/max record" : "index",
                 static_cast<unsigned long long>(use ? idx.header.stale_chunks() : 0), idx.header.chunks.size());
  return st;
}

}  // namespace

uint64_t values_tested() { return g_values_tested.load(std::memory_order_relaxed); }

uint64_t Box::elems() const {
  if (count.empty()) return scalar ? 1 : 0;
  uint64_t n = 1;
  for (MPI_Offset c : count) n *= static_cast<uint64_t>(c);
  return n;
}

Status var_shape(int ncid, int varid, VarShape* out) {
  VarShape v;
  v.varid = varid;
  char name[NC_MAX_NAME + 1] = {};
  nc_type type = 0;
  int ndims = 0;
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_varname(ncid, varid, name), "inq_varname"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_vartype(ncid, varid, &type), "inq_vartype"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_varndims(ncid, varid, &ndims), "inq_varndims"));
  std::vector<int> dimids(static_cast<size_t>(ndims));
  if (ndims > 0) EXA_RETURN_IF_ERROR(nc(ncmpi_inq_vardimid(ncid, varid, dimids.data()), "inq_vardimid"));
  for (int d : dimids) {
    MPI_Offset len = 0;
    EXA_RETURN_IF_ERROR(nc(ncmpi_inq_dimlen(ncid, d, &len), "inq_dimlen"));
    v.dims.push_back(len);
  }
  v.type = type;
  v.name = name;
  if (type == NC_CHAR) return {NC_ECHAR, "NC_CHAR variables cannot be queried"};
  if (!numeric_type(type)) return {NC_EBADTYPE, "not a numeric variable"};
  *out = std::move(v);
  return Status::ok();
}

Status evaluate(const FileCtx& ctx, const Expr& e, const MPI_Offset* start, const MPI_Offset* count,
                Box* box_out, Bitset* hits) {
  // Local checks first, agreed before any collective read.
  std::vector<Leaf> leaves;
  Box box;
  Status st = [&]() -> Status {
    if (!well_formed(e)) return {NC_EINVAL, "malformed query"};
    if ((start == nullptr) != (count == nullptr)) return {NC_EINVAL, "start and count: both or neither"};
    for (const Node& n : e.nodes) {
      if (n.kind != NodeKind::kLeaf) continue;
      Leaf leaf;
      EXA_RETURN_IF_ERROR(var_shape(ctx.ncid, n.varid, &leaf.var));
      if (!leaves.empty() && leaf.var.dims != leaves.front().var.dims)
        return {NC_EINVALCOORDS, "the variables of a query differ in shape"};
      leaf.nz = normalize(n.op, n.constant, leaf.var.type);
      leaves.push_back(std::move(leaf));
    }
    const VarShape& v = leaves.front().var;
    if (start == nullptr) {
      default_box(ctx, v, &box);
      return Status::ok();
    }
    if (v.dims.empty()) {
      box.scalar = true;
      return Status::ok();
    }
    return check_box(v, start, count, &box);
  }();
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  std::vector<Bitset> stack;
  size_t next_leaf = 0;
  Status first;
  for (const Node& n : e.nodes) {
    switch (n.kind) {
      case NodeKind::kLeaf: {
        Bitset b(box.elems());
        Status ls = eval_leaf(ctx, leaves[next_leaf++], box, &b);
        if (!ls.is_ok() && first.is_ok()) first = ls;
        stack.push_back(std::move(b));
        break;
      }
      case NodeKind::kNot: stack.back().flip(); break;
      case NodeKind::kAnd:
      case NodeKind::kOr: {
        Bitset b = std::move(stack.back());
        stack.pop_back();
        if (n.kind == NodeKind::kAnd)
          stack.back().and_with(b);
        else
          stack.back().or_with(b);
        break;
      }
    }
  }
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, first));
  *hits = std::move(stack.back());
  *box_out = std::move(box);
  return Status::ok();
}

Status fetch(const FileCtx& ctx, const Box& box, const Bitset& hits, int varid, void* buf,
             int memtype) {
  VarShape v;
  Status st = var_shape(ctx.ncid, varid, &v);
  if (st.is_ok() && v.dims.size() != box.count.size()) st = {NC_EINVALCOORDS, "shape differs"};
  if (st.is_ok() && !numeric_type(memtype)) st = {NC_EBADTYPE, "memtype is not numeric"};
  if (st.is_ok() && hits.count() > 0 && buf == nullptr) st = {NC_EINVAL, "null buffer"};
  EXA_RETURN_IF_ERROR(io::agree(ctx.comm, st));
  const size_t nd = v.dims.size();
  if (nd == 0) {
    unsigned char value[8];
    Status gs = get_vara_all(ctx.ncid, varid, memtype, nullptr, nullptr, value);
    if ((gs.is_ok() || gs.code() == NC_ERANGE) && hits.count() == 1)
      std::memcpy(buf, value, static_cast<size_t>(type_size(memtype)));
    return gs;
  }
  // Runs of consecutive hits within one row of the box's last dimension.
  const uint64_t last = static_cast<uint64_t>(box.count[nd - 1]);
  std::vector<MPI_Offset> coords;  // start then count per run
  uint64_t prev = 0, first_pos = 0, nhits = 0;
  hits.for_each([&](uint64_t p) {
    if (nhits > 0 && p == prev + 1 && p % last != 0) {
      ++coords.back();
    } else {
      uint64_t rest = p;
      std::vector<MPI_Offset> s(nd);
      for (size_t d = nd; d-- > 0;) {
        const uint64_t n = static_cast<uint64_t>(box.count[d]);
        s[d] = box.start[d] + static_cast<MPI_Offset>(rest % n);
        rest /= n;
      }
      coords.insert(coords.end(), s.begin(), s.end());
      coords.insert(coords.end(), nd, 1);
    }
    if (nhits == 0) first_pos = p;
    ++nhits;
    prev = p;
    return true;
  });
  // Many short runs: read the rows holding the hits in slabs instead (one
  // piece per slab costs less than a piece per run).
  uint64_t row = 1;
  for (size_t d = 1; d < nd; ++d) row *= static_cast<uint64_t>(box.count[d]);
  const size_t nruns = coords.size() / (2 * nd);
  const uint64_t row0 = nhits ? first_pos / row : 0, row1 = nhits ? prev / row + 1 : 0;
  const bool dense = nhits > 0 && row > 0 && nruns * 256 > (row1 - row0) * row;
  const size_t nvarn = dense ? 0 : nruns;
  std::vector<MPI_Offset*> starts(nvarn), counts(nvarn);
  for (size_t i = 0; i < nvarn; ++i) {
    starts[i] = coords.data() + 2 * nd * i;
    counts[i] = coords.data() + 2 * nd * i + nd;
  }
  if (nvarn > static_cast<size_t>(INT32_MAX)) return {NC_EINVAL, "too many runs"};
  Status first = get_varn_all(ctx.ncid, varid, memtype, static_cast<int>(nvarn), starts.data(),
                              counts.data(), buf);
  const uint64_t slab_rows = std::max<uint64_t>(1, kSlabElems / std::max<uint64_t>(row, 1));
  const uint64_t mine = dense ? (row1 - row0 + slab_rows - 1) / slab_rows : 0;
  uint64_t rounds = 0;
  EXA_RETURN_IF_ERROR(max_over(ctx.comm, mine, &rounds));
  const size_t tsize = static_cast<size_t>(type_size(memtype));
  std::vector<unsigned char> slab(dense ? std::min(slab_rows, row1 - row0) * row * tsize + 8 : 8);
  unsigned char* out = static_cast<unsigned char*>(buf);
  for (uint64_t r = 0; r < rounds; ++r) {
    std::vector<MPI_Offset> s = box.start, c(nd, 0);
    uint64_t r0 = 0, r1 = 0;
    if (r < mine) {
      r0 = row0 + r * slab_rows;
      r1 = std::min(row1, r0 + slab_rows);
      s[0] += static_cast<MPI_Offset>(r0);
      c = box.count;
      c[0] = static_cast<MPI_Offset>(r1 - r0);
    }
    Status rs = get_vara_all(ctx.ncid, varid, memtype, s.data(), c.data(), slab.data());
    if (!rs.is_ok() && (first.is_ok() || first.code() == NC_ERANGE)) first = rs;
    if ((!rs.is_ok() && rs.code() != NC_ERANGE) || r >= mine) continue;
    hits.for_each_in(r0 * row, r1 * row, [&](uint64_t p) {
      std::memcpy(out, slab.data() + (p - r0 * row) * tsize, tsize);
      out += tsize;
    });
  }
  return first;
}

}  // namespace exa::query
