#include "io/aggregate.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>

#include "io/mpi_errors.hpp"

namespace exa::io {

namespace {

int64_t stride_of(const Selection& sel, size_t k) { return sel.stride.empty() ? 1 : sel.stride[k]; }

// Bytes between consecutive indices of each dimension (as access_plan does).
std::vector<int64_t> byte_strides(const VarGeometry& var) {
  size_t n = var.shape.size();
  std::vector<int64_t> out(n);
  int64_t step = var.xsize;
  for (size_t k = n; k-- > 0;) {
    out[k] = (k == 0 && var.record) ? var.recsize : step;
    step *= var.shape[k];
  }
  return out;
}

// Segments in posting order -> disjoint segments sorted by offset, later ones winning.
std::vector<Segment> resolve_overlaps(const std::vector<Segment>& posted) {
  std::map<int64_t, Segment> live;  // by offset, disjoint
  for (const Segment& s : posted) {
    int64_t lo = s.offset, hi = s.offset + s.length;
    auto it = live.lower_bound(lo);
    if (it != live.begin()) --it;
    while (it != live.end() && it->first < hi) {
      Segment old = it->second;
      int64_t olo = old.offset, ohi = old.offset + old.length;
      if (ohi <= lo) { ++it; continue; }
      it = live.erase(it);
      if (olo < lo) live[olo] = {olo, lo - olo, old.data};
      if (ohi > hi) live[hi] = {hi, ohi - hi, old.data + (hi - olo)};
    }
    live[lo] = s;
  }
  std::vector<Segment> out;
  out.reserve(live.size());
  for (auto& [off, seg] : live) out.push_back(seg);
  return out;
}

// One hindexed file type over sorted, disjoint runs; file-adjacent runs merged.
// Returns the total bytes and the merged runs.
struct View {
  MPI_Datatype type = MPI_BYTE;
  int64_t bytes = 0;
};

View make_view(std::vector<std::pair<int64_t, int64_t>> runs) {
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& r : runs) {
    if (!merged.empty() && merged.back().first + merged.back().second == r.first &&
        merged.back().second + r.second <= INT_MAX)
      merged.back().second += r.second;
    else
      merged.push_back(r);
  }
  View v;
  if (merged.empty()) return v;
  std::vector<int> lengths;
  std::vector<MPI_Aint> displs;
  for (const auto& [off, len] : merged) {
    for (int64_t done = 0; done < len;) {  // split runs above INT_MAX
      int piece = static_cast<int>(std::min<int64_t>(len - done, INT_MAX));
      lengths.push_back(piece);
      displs.push_back(static_cast<MPI_Aint>(off + done));
      done += piece;
    }
    v.bytes += len;
  }
  MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), displs.data(),
                           MPI_BYTE, &v.type);
  MPI_Type_commit(&v.type);
  return v;
}

// The single MPI-IO call of an aggregated transfer, through `view`.
Status transfer_view(MpiFile& file, const View& view, void* buf, bool write, bool collective) {
  MPI_File fh = file.handle();
  MPI_File_set_view(fh, 0, MPI_BYTE, view.type, "native", MPI_INFO_NULL);
  // Memory side as whole 1 MiB blocks + remainder, so counts stay int.
  constexpr int64_t kBlock = int64_t{1} << 20;
  MPI_Datatype mem = MPI_BYTE;
  int count = static_cast<int>(view.bytes);
  if (view.bytes > INT_MAX) {
    MPI_Datatype block;
    MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &block);
    int lens[2] = {static_cast<int>(view.bytes / kBlock), static_cast<int>(view.bytes % kBlock)};
    MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(view.bytes / kBlock * kBlock)};
    MPI_Datatype types[2] = {block, MPI_BYTE};
    MPI_Type_create_struct(2, lens, displs, types, &mem);
    MPI_Type_commit(&mem);
    MPI_Type_free(&block);
    count = 1;
  }
  MPI_Status status;
  int err = write ? (collective ? MPI_File_write_at_all(fh, 0, buf, count, mem, &status)
                                : MPI_File_write_at(fh, 0, buf, count, mem, &status))
                  : (collective ? MPI_File_read_at_all(fh, 0, buf, count, mem, &status)
                                : MPI_File_read_at(fh, 0, buf, count, mem, &status));
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  if (mem != MPI_BYTE) MPI_Type_free(&mem);
  if (err == MPI_SUCCESS) write ? file.count_written(view.bytes) : file.count_read(view.bytes);
  return from_mpi(err, write ? MpiOp::kWrite : MpiOp::kRead, "aggregated MPI-IO transfer");
}

}  // namespace

void flatten(const VarGeometry& var, const Selection& sel, uint8_t* packed,
             std::vector<Segment>* out) {
  size_t n = var.shape.size();
  int64_t total = 1;
  for (int64_t c : sel.count) total *= c;
  if (total == 0) return;
  std::vector<int64_t> bs = byte_strides(var);
  if (n == 0) {
    out->push_back({var.begin, var.xsize, packed});
    return;
  }
  // The innermost dimension is one run when its stride is 1, else one run per element.
  bool inner_run = stride_of(sel, n - 1) == 1;
  int64_t run_len = inner_run ? sel.count[n - 1] * var.xsize : var.xsize;
  size_t outer = inner_run ? n - 1 : n;  // dimensions iterated element by element
  std::vector<int64_t> idx(outer, 0);
  for (;;) {
    int64_t off = var.begin;
    for (size_t k = 0; k < n; ++k) {
      int64_t i = k < outer ? idx[k] : 0;
      off += (sel.start[k] + i * stride_of(sel, k)) * bs[k];
    }
    out->push_back({off, run_len, packed});
    packed += run_len;
    size_t k = outer;
    while (k > 0) {
      --k;
      if (++idx[k] < sel.count[k]) break;
      idx[k] = 0;
      if (k == 0) return;
    }
    if (outer == 0) return;
  }
}

Status write_segments(MpiFile& file, std::vector<Segment> segments, bool collective) {
  std::vector<Segment> disjoint = resolve_overlaps(segments);
  std::vector<std::pair<int64_t, int64_t>> runs;
  int64_t total = 0;
  for (const Segment& s : disjoint) {
    runs.emplace_back(s.offset, s.length);
    total += s.length;
  }
  std::vector<uint8_t> staging(static_cast<size_t>(total));
  int64_t at = 0;
  for (const Segment& s : disjoint) {
    std::memcpy(staging.data() + at, s.data, static_cast<size_t>(s.length));
    at += s.length;
  }
  View view = make_view(std::move(runs));
  Status st = transfer_view(file, view, staging.data(), true, collective);
  if (view.type != MPI_BYTE) MPI_Type_free(&view.type);
  return st;
}

Status read_segments(MpiFile& file, std::vector<Segment> segments, bool collective) {
  std::sort(segments.begin(), segments.end(),
            [](const Segment& a, const Segment& b) { return a.offset < b.offset; });
  // The union of the requested bytes, as sorted disjoint runs.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (const Segment& s : segments) {
    if (!runs.empty() && runs.back().first + runs.back().second >= s.offset) {
      int64_t end = std::max(runs.back().first + runs.back().second, s.offset + s.length);
      runs.back().second = end - runs.back().first;
    } else {
      runs.emplace_back(s.offset, s.length);
    }
  }
  std::vector<int64_t> run_start_in_staging;
  int64_t total = 0;
  for (const auto& r : runs) {
    run_start_in_staging.push_back(total);
    total += r.second;
  }
  std::vector<uint8_t> staging(static_cast<size_t>(total), 0);
  View view = make_view(runs);
  Status st = transfer_view(file, view, staging.data(), false, collective);
  if (view.type != MPI_BYTE) MPI_Type_free(&view.type);
  EXA_RETURN_IF_ERROR(st);
  size_t r = 0;
  for (const Segment& s : segments) {
    while (runs[r].first + runs[r].second < s.offset + s.length) ++r;
    int64_t from = run_start_in_staging[r] + (s.offset - runs[r].first);
    std::memcpy(s.data, staging.data() + from, static_cast<size_t>(s.length));
  }
  return Status::ok();
}

}  // namespace exa::io
