#include "io/aggregate.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>

#include "io/mpi_errors.hpp"
#include "util/byte_buffer.hpp"

namespace exa::io {

// Sorting is all it takes when nothing overlaps (the usual case); only then
// is an interval map built.
std::vector<Segment> resolve_overlaps(std::vector<Segment> posted) {
  // Already in file order and disjoint (one request's runs, a rank's unpacked
  // domain): nothing to sort, nothing to copy.
  bool in_order = true;
  for (size_t i = 1; i < posted.size() && in_order; ++i)
    in_order = posted[i - 1].offset + posted[i - 1].length <= posted[i].offset;
  if (in_order) return posted;
  std::vector<Segment> sorted = posted;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Segment& x, const Segment& y) { return x.offset < y.offset; });
  bool overlap = false;
  for (size_t i = 1; i < sorted.size() && !overlap; ++i)
    overlap = sorted[i - 1].offset + sorted[i - 1].length > sorted[i].offset;
  if (!overlap) return sorted;
  std::map<int64_t, Segment> live;  // by offset, disjoint
  for (const Segment& seg : posted) {
    int64_t lo = seg.offset, hi = seg.offset + seg.length;
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
    live[lo] = seg;
  }
  std::vector<Segment> out;
  out.reserve(live.size());
  for (auto& [off, seg] : live) out.push_back(seg);
  return out;
}

namespace {

// The bytes a read moved, by its status; 0 when MPI cannot tell (all of
// them are then zeroed: the safe side).
int64_t bytes_read(const MPI_Status& status) {
  MPI_Count got = 0;
  MPI_Status copy = status;
  if (MPI_Get_elements_x(&copy, MPI_BYTE, &got) != MPI_SUCCESS || got == MPI_UNDEFINED || got < 0) return 0;
  return static_cast<int64_t>(got);
}

// (start, length) runs of bytes, merged where one ends where the next begins
// and split below INT_MAX, as an hindexed datatype; `base` is subtracted from
// every start (0 for file offsets; memory uses absolute addresses).
struct Runs {
  MPI_Datatype type = MPI_BYTE;
  int64_t bytes = 0;
  int64_t end = 0;  // one past the highest byte (of file runs: offsets)
  bool owned = false;
};

// Fails only if MPI cannot make the type; *out then describes nothing.
Status make_runs(const std::vector<std::pair<int64_t, int64_t>>& runs, Runs* out) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> displs;
  Runs r;
  *out = Runs{};
  for (const auto& [start, len] : runs) {
    r.bytes += len;
    r.end = std::max(r.end, start + len);
    if (!lengths.empty() && displs.back() + lengths.back() == start &&
        static_cast<int64_t>(lengths.back()) + len <= INT_MAX) {
      lengths.back() += static_cast<int>(len);
      continue;
    }
    for (int64_t done = 0; done < len;) {
      int piece = static_cast<int>(std::min<int64_t>(len - done, INT_MAX));
      lengths.push_back(piece);
      displs.push_back(static_cast<MPI_Aint>(start + done));
      done += piece;
    }
  }
  if (lengths.empty()) {
    *out = r;
    return Status::ok();
  }
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_create_hindexed(static_cast<int>(lengths.size()),
                                                       lengths.data(), displs.data(), MPI_BYTE,
                                                       &r.type)));
  Status st = EXA_MPI(MPI_Type_commit(&r.type));
  if (!st.is_ok()) {
    EXA_MPI(MPI_Type_free(&r.type)).set_aside("the commit's failure is reported");
    return st;
  }
  r.owned = true;
  *out = r;
  return Status::ok();
}

Status free_runs(Runs* r) {
  Status st = r->owned ? EXA_MPI(MPI_Type_free(&r->type)) : Status::ok();
  *r = Runs{};
  return st;
}

// The file runs and the memory runs (absolute addresses) of sorted segments. On
// failure both describe nothing (a collective transfer still takes part, empty).
Status describe(const std::vector<Segment>& segs, Runs* file, Runs* memory) {
  std::vector<std::pair<int64_t, int64_t>> f, m;
  f.reserve(segs.size());
  m.reserve(segs.size());
  Status st;
  for (const Segment& s : segs) {
    f.emplace_back(s.offset, s.length);
    MPI_Aint addr = 0;
    if (st.is_ok()) st = EXA_MPI(MPI_Get_address(s.data, &addr));
    m.emplace_back(static_cast<int64_t>(addr), s.length);
  }
  if (st.is_ok()) st = make_runs(f, file);
  if (st.is_ok()) st = make_runs(m, memory);
  if (!st.is_ok()) {
    free_runs(file).set_aside("describing the transfer failed: that is reported");
    free_runs(memory).set_aside("describing the transfer failed: that is reported");
  }
  return st;
}

// The single MPI-IO call of an aggregated transfer: file view `file`,
// memory `memory` (absolute addresses, so the buffer is MPI_BOTTOM) of the
// sorted `segments` they describe.
// `described` is describe()'s outcome: a rank that failed it takes part with nothing.
// `all_end` (a collective write; 0: not known): one past the last byte any
// rank writes, agreed before the call.
Status transfer_runs(MpiFile& file, Runs& fruns, Runs& mruns, bool write, bool collective,
                     const Status& described, const std::vector<Segment>& segments, int64_t all_end = 0) {
  MPI_File fh = file.handle();
  Status view = file.set_view(0, fruns.type);
  // An injected failure (exa_debug_fail_write): this rank's part never lands,
  // as if it crashed; it still takes part in a collective call.
  const bool fail = write && take_injected_write_failure();
  int count = mruns.bytes > 0 && !fail && view.is_ok() ? 1 : 0;
  // A write past the end of the file this rank knows: its last byte first
  // (MpiFile::extend_before_write), unless nothing can sieve it:
  //  - a write without gaps that no other rank's data joins (independent, or
  //    a file of one rank) is written as it is, with no read first;
  //  - in a collective write whose end over all ranks is known, the ranks
  //    that reach it extend the file for everyone: the others' data lies
  //    below it (each extension lands before its rank enters the call, so
  //    before any aggregator reads).
  Status extended;
  const bool gapless = !segments.empty() && fruns.bytes == fruns.end - segments.front().offset;
  const bool sievable = !(gapless && (!collective || file.nprocs() == 1));
  const bool others_reach_further = collective && all_end > fruns.end;
  if (write && count > 0 && described.is_ok() && !segments.empty() && sievable && !others_reach_further) {
    const Segment& last = segments.back();
    extended = file.extend_before_write(fruns.end, fruns.bytes, last.data + last.length - 1);
    if (!extended.is_ok()) count = 0;
  }
  void* buf = mruns.bytes > 0 ? MPI_BOTTOM : nullptr;
  // A late write (exa_debug_late_writes): independent ones wait first; in a
  // collective one this rank's part is written alone after the call.
  const bool late = write && count > 0 && late_writes_ms() > 0;
  if (late && !collective) wait_late_write();
  MPI_Status status;
  int err = write ? (collective ? MPI_File_write_at_all(fh, 0, buf, late ? 0 : count, mruns.type, &status)
                                : MPI_File_write_at(fh, 0, buf, count, mruns.type, &status))
                  : (collective ? MPI_File_read_at_all(fh, 0, buf, count, mruns.type, &status)
                                : MPI_File_read_at(fh, 0, buf, count, mruns.type, &status));
  if (late && collective && err == MPI_SUCCESS) {
    wait_late_write();
    err = MPI_File_write_at(fh, 0, buf, count, mruns.type, &status);
  }
  const int64_t file_bytes = fruns.bytes, memory_bytes = mruns.bytes, file_end = fruns.end;
  Status freed = free_runs(&fruns);
  Status freed_memory = free_runs(&mruns);
  if (!described.is_ok()) return described;
  if (!view.is_ok()) return view;
  if (fail) return {NC_EWRITE, "write failed (injected by exa_debug_fail_write)"};
  if (!extended.is_ok()) return extended;
  Status st = write ? check_written(err, status, count > 0 ? file_bytes : 0, "aggregated MPI-IO write")
                    : from_mpi(err, MpiOp::kRead, "aggregated MPI-IO read");
  if (st.is_ok()) write ? file.count_written(file_bytes) : file.count_read(file_bytes);
  if (st.is_ok() && write && count > 0) file.note_extent(file_end);
  if (st.is_ok() && !write && count > 0) {
    // Bytes at or past the end of the file read as zeros, whatever the
    // status's count says (a collective read counts them as read); so do
    // bytes a short read left unfilled (the memory runs are the segments in
    // order). Nothing is zeroed before the read: a complete read within the
    // file's size fills every byte.
    const int64_t got = bytes_read(status);
    const bool complete = got >= memory_bytes;
    if (!complete) zero_segments_unread(segments, got);
    int64_t size = 0;
    st = file.size_for_read(file_end, &size);
    if (st.is_ok() && size < file_end) zero_segments_past(segments, size);
    if (st.is_ok() && (!complete || size < file_end)) st = file.check_short_read(file_end);
  }
  for (const Status* s : {&freed, &freed_memory})
    if (st.is_ok() && !s->is_ok()) st = *s;
  return st;
}

}  // namespace

void zero_segments_past(const std::vector<Segment>& segments, int64_t size) {
  for (const Segment& s : segments) zero_past_size(size, s.offset, s.data, s.length);
}

void zero_segments_unread(const std::vector<Segment>& segments, int64_t got) {
  for (const Segment& s : segments) {
    const int64_t keep = std::clamp<int64_t>(got, 0, s.length);
    if (keep < s.length) std::memset(s.data + keep, 0, static_cast<size_t>(s.length - keep));
    got -= keep;
  }
}

void flatten(const VarGeometry& var, const Selection& sel, uint8_t* packed,
             std::vector<Segment>* out) {
  size_t n = var.shape.size();
  int64_t total = 1;
  for (int64_t c : sel.count) total *= c;
  if (total == 0) return;
  if (!var.pieces.empty()) {
    for (const SelectionPart& part : split_by_pieces(var, sel))
      flatten(part.geo, part.sel, packed + part.skip * var.xsize, out);
    return;
  }
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

int64_t flat_segments(const VarGeometry& var, const Selection& sel) {
  if (selected_elements(sel) == 0) return 0;
  if (!var.pieces.empty()) {
    int64_t n = 0;
    for (const SelectionPart& part : split_by_pieces(var, sel)) n += flat_segments(part.geo, part.sel);
    return n;
  }
  const size_t n = var.shape.size();
  if (n == 0) return 1;
  // As flatten: one run per index of the outer dimensions (all of them when
  // the innermost one is strided).
  const size_t outer = stride_of(sel, n - 1) == 1 ? n - 1 : n;
  int64_t runs = 1;
  for (size_t k = 0; k < outer; ++k) runs *= sel.count[k];
  return runs;
}

Status write_segments(MpiFile& file, std::vector<Segment> segments, bool collective, int64_t all_end) {
  std::vector<Segment> disjoint = resolve_overlaps(std::move(segments));
  Runs fruns, mruns;
  Status described = describe(disjoint, &fruns, &mruns);
  return transfer_runs(file, fruns, mruns, true, collective, described, disjoint, all_end);
}

Status read_segments(MpiFile& file, std::vector<Segment> segments, bool collective) {
  std::sort(segments.begin(), segments.end(),
            [](const Segment& a, const Segment& b) { return a.offset < b.offset; });
  bool overlap = false;
  for (size_t i = 1; i < segments.size() && !overlap; ++i)
    overlap = segments[i - 1].offset + segments[i - 1].length > segments[i].offset;
  if (!overlap) {  // straight into the requests' buffers
    Runs fruns, mruns;
    Status described = describe(segments, &fruns, &mruns);
    // (No zeroing first: transfer_runs zeroes what the read did not fill.)
    return transfer_runs(file, fruns, mruns, false, collective, described, segments);
  }
  // Overlapping reads: read the union once into staging, then copy out.
  std::vector<Segment> runs;
  for (const Segment& s : segments) {
    if (!runs.empty() && runs.back().offset + runs.back().length >= s.offset) {
      int64_t end = std::max(runs.back().offset + runs.back().length, s.offset + s.length);
      runs.back().length = end - runs.back().offset;
    } else {
      runs.push_back({s.offset, s.length, nullptr});
    }
  }
  int64_t total = 0;
  for (const Segment& r : runs) total += r.length;
  ByteBuffer staging(static_cast<size_t>(total));  // (transfer_runs zeroes what the read did not fill)
  int64_t at = 0;
  for (Segment& r : runs) {
    r.data = staging.data() + at;
    at += r.length;
  }
  Runs fruns, mruns;
  Status described = describe(runs, &fruns, &mruns);
  EXA_RETURN_IF_ERROR(transfer_runs(file, fruns, mruns, false, collective, described, runs));
  size_t r = 0;
  for (const Segment& s : segments) {
    while (runs[r].offset + runs[r].length < s.offset + s.length) ++r;
    std::memcpy(s.data, runs[r].data + (s.offset - runs[r].offset), static_cast<size_t>(s.length));
  }
  return Status::ok();
}

}  // namespace exa::io
