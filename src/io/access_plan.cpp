#include "io/access_plan.hpp"

#include <algorithm>
#include <climits>

#include "io/aggregate.hpp"
#include "io/mpi_errors.hpp"
#include "io/nested_type.hpp"

namespace exa::io {

int64_t stride_of(const Selection& sel, size_t k) { return sel.stride.empty() ? 1 : sel.stride[k]; }

// Saturating at INT64_MAX: a stride that large only meets index 0 in a
// selection selection_extent accepted.
std::vector<int64_t> byte_strides(const VarGeometry& var) {
  size_t n = var.shape.size();
  std::vector<int64_t> out(n);
  int64_t step = var.xsize;
  for (size_t k = n; k-- > 0;) {
    out[k] = (k == 0 && var.record) ? var.recsize : step;
    if (__builtin_mul_overflow(step, var.shape[k], &step)) step = INT64_MAX;
  }
  return out;
}

namespace {

// a + i * b for non-negative operands, false on overflow.
bool add_product(int64_t a, int64_t i, int64_t b, int64_t* out) {
  int64_t p = 0;
  return !__builtin_mul_overflow(i, b, &p) && !__builtin_add_overflow(a, p, out);
}

}  // namespace

std::vector<SelectionPart> split_by_pieces(const VarGeometry& var, const Selection& sel) {
  std::vector<SelectionPart> parts;
  for (int64_t c : sel.count)
    if (c <= 0) return parts;
  if (var.shape.empty() || sel.start.empty()) return parts;
  int64_t inner = 1;  // elements per index of the record dimension
  for (size_t k = 1; k < sel.count.size(); ++k)
    if (__builtin_mul_overflow(inner, sel.count[k], &inner)) inner = INT64_MAX;
  const int64_t s = sel.start[0], c = sel.count[0], t = std::max<int64_t>(1, stride_of(sel, 0));
  auto ceil_div = [](int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); };  // a >= 0, b > 0
  for (const format::RecordPiece& p : var.pieces) {
    // The indices i in [0, c) whose record s + i t lies in [p.first, p.end).
    const int64_t i0 = s >= p.first ? 0 : ceil_div(p.first - s, t);
    if (i0 >= c) continue;
    int64_t rec0 = 0;
    if (__builtin_mul_overflow(i0, t, &rec0) || __builtin_add_overflow(rec0, s, &rec0) || rec0 >= p.end) continue;
    const int64_t i1 = p.end == INT64_MAX ? c : std::min(c, ceil_div(p.end - s, t));
    SelectionPart part;
    part.geo = var;
    part.geo.pieces.clear();
    part.geo.begin = p.base;
    part.geo.recsize = p.stride;
    part.sel = sel;
    part.sel.start[0] = rec0 - p.first;
    part.sel.count[0] = i1 - i0;
    if (__builtin_mul_overflow(i0, inner, &part.skip)) part.skip = INT64_MAX;
    parts.push_back(std::move(part));
  }
  return parts;
}

Status selection_extent(const VarGeometry& var, const Selection& sel, int64_t* first, int64_t* end) {
  *first = *end = var.begin;
  for (int64_t c : sel.count)
    if (c == 0) return Status::ok();
  if (!var.pieces.empty()) {
    const std::vector<SelectionPart> parts = split_by_pieces(var, sel);
    if (parts.empty()) return {NC_EINVALCOORDS, "selection outside the record sections"};
    int64_t lo = 0, hi = 0, unused = 0;
    EXA_RETURN_IF_ERROR(selection_extent(parts.front().geo, parts.front().sel, &lo, &unused));
    EXA_RETURN_IF_ERROR(selection_extent(parts.back().geo, parts.back().sel, &unused, &hi));
    for (size_t k = 1; k + 1 < parts.size(); ++k)
      EXA_RETURN_IF_ERROR(selection_extent(parts[k].geo, parts[k].sel, &unused, &unused));
    *first = lo;
    *end = hi;
    return Status::ok();
  }
  const std::vector<int64_t> bs = byte_strides(var);
  int64_t lo = var.begin;
  for (size_t k = 0; k < bs.size(); ++k)
    if (!add_product(lo, sel.start[k], bs[k], &lo))
      return {NC_EINVALCOORDS, "start is beyond the largest offset a file can have"};
  int64_t hi = lo;
  for (size_t k = 0; k < bs.size(); ++k) {
    int64_t span = 0;  // index distance from the first to the last element
    if (sel.count[k] > 1 && !add_product(0, sel.count[k] - 1, stride_of(sel, k), &span))
      return {NC_EEDGE, "selection extends beyond the largest offset a file can have"};
    if (!add_product(hi, span, bs[k], &hi))
      return {NC_EEDGE, "selection extends beyond the largest offset a file can have"};
  }
  if (__builtin_add_overflow(hi, var.xsize, &hi))
    return {NC_EEDGE, "selection extends beyond the largest offset a file can have"};
  *first = lo;
  *end = hi;
  return Status::ok();
}

namespace {

// The file type: hvector of hvectors, innermost run contiguous when stride is 1.
// Counts above INT_MAX are split into an outer level.
Status build_file_type(const VarGeometry& var, const Selection& sel, MPI_Datatype* type,
                       int64_t* offset);

// Records in several pieces: one nested type per piece, placed by a struct
// (pieces are in file order, so the displacements increase).
Status build_pieces_type(const VarGeometry& var, const Selection& sel, MPI_Datatype* type, int64_t* offset) {
  const std::vector<SelectionPart> parts = split_by_pieces(var, sel);
  if (parts.empty()) return {NC_EINVALCOORDS, "selection outside the record sections"};
  std::vector<MPI_Datatype> types;
  std::vector<MPI_Aint> displs;
  Status st;
  for (const SelectionPart& part : parts) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int64_t at = 0;
    st = build_file_type(part.geo, part.sel, &t, &at);
    if (!st.is_ok()) break;
    types.push_back(t);
    displs.push_back(MPI_Aint(at));
  }
  if (st.is_ok()) {
    *offset = displs.front();
    for (MPI_Aint& d : displs) d -= MPI_Aint(*offset);
    std::vector<int> ones(types.size(), 1);
    st = EXA_MPI(MPI_Type_create_struct(int(types.size()), ones.data(), displs.data(), types.data(), type));
    if (st.is_ok()) {
      st = EXA_MPI(MPI_Type_commit(type));
      if (!st.is_ok()) EXA_MPI(MPI_Type_free(type)).set_aside("the commit's failure is reported");
    }
  }
  for (MPI_Datatype& t : types) {
    Status freed = EXA_MPI(MPI_Type_free(&t));
    if (st.is_ok()) st = freed;
  }
  return st;
}

Status build_file_type(const VarGeometry& var, const Selection& sel, MPI_Datatype* type,
                       int64_t* offset) {
  if (!var.pieces.empty()) return build_pieces_type(var, sel, type, offset);
  size_t n = var.shape.size();
  std::vector<int64_t> bs = byte_strides(var);
  int64_t end = 0;
  EXA_RETURN_IF_ERROR(selection_extent(var, sel, offset, &end));
  for (size_t k = 0; k < n; ++k)
    if (sel.count[k] > INT_MAX)
      return {NC_EINTOVERFLOW, "selection count exceeds INT_MAX along one dimension"};
  std::vector<TypeLevel> levels(n);
  for (size_t k = 0; k < n; ++k) {
    const int64_t cnt = sel.count[k];
    // One element needs no stride (and an unchecked product could overflow).
    levels[k] = {static_cast<int>(cnt), cnt > 1 ? MPI_Aint(stride_of(sel, k) * bs[k]) : 0};
  }
  return nested_hvector(var.xsize, levels, type);
}

// The memory side of one transfer of nbytes contiguous bytes as (count,
// type) with count an int: whole 1 MiB blocks plus the remainder, so one
// MPI-IO call moves requests beyond 2 GiB.
}  // namespace

Status memory_run(int64_t nbytes, MemoryRun* out) {
  *out = MemoryRun{};
  if (nbytes <= INT_MAX) {
    out->count = static_cast<int>(nbytes);
    return Status::ok();
  }
  constexpr int64_t kBlock = int64_t{1} << 20;
  MPI_Datatype block;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &block)));
  int lengths[2] = {static_cast<int>(nbytes / kBlock), static_cast<int>(nbytes % kBlock)};
  MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(nbytes / kBlock * kBlock)};
  MPI_Datatype types[2] = {block, MPI_BYTE};
  MPI_Datatype run;
  Status st = EXA_MPI(MPI_Type_create_struct(2, lengths, displs, types, &run));
  if (st.is_ok()) {
    st = EXA_MPI(MPI_Type_commit(&run));
    if (!st.is_ok()) EXA_MPI(MPI_Type_free(&run)).set_aside("the commit's failure is reported");
  }
  Status freed = EXA_MPI(MPI_Type_free(&block));
  if (st.is_ok()) st = freed;
  if (st.is_ok()) *out = {1, run, true};
  return st;
}

int64_t selected_elements(const Selection& sel) {
  int64_t n = 1;
  for (int64_t c : sel.count)
    if (__builtin_mul_overflow(n, c, &n)) return INT64_MAX;
  return n;
}

// In PnetCDF's order: every start first, then every count, then every stride.
Status check_selection(const VarGeometry& var, const Selection& sel, int64_t numrecs, bool write) {
  const size_t n = var.shape.size();
  auto unbounded = [&](size_t k) { return k == 0 && var.record && write; };
  auto length = [&](size_t k) { return (k == 0 && var.record) ? numrecs : var.shape[k]; };
  for (size_t k = 0; k < n; ++k) {
    int64_t start = sel.start[k];
    if (start < 0 || (!unbounded(k) && start > length(k)))
      return {NC_EINVALCOORDS, "start out of range"};
    if (unbounded(k) && start >= var.max_records && sel.count[k] > 0)
      return {NC_EINVALCOORDS, "start is a record number no file of this format can hold"};
    if (!unbounded(k) && start == length(k) && sel.count[k] > 0)
      return {NC_EINVALCOORDS, "start at the end with a non-zero count"};
  }
  bool beyond_records = false;
  for (size_t k = 0; k < n; ++k) {
    int64_t start = sel.start[k], count = sel.count[k], stride = stride_of(sel, k);
    if (count < 0) return {NC_ENEGATIVECNT, "negative count"};
    if (count == 0) continue;
    // The index of the last element, saturating: beyond every limit either way.
    int64_t last = 0;
    if (!add_product(start, count - 1, stride >= 1 ? stride : 1, &last)) last = INT64_MAX;
    if (unbounded(k)) {
      beyond_records = beyond_records || last >= var.max_records;
      continue;
    }
    if (last >= length(k)) return {NC_EEDGE, "start + count exceeds the dimension"};
  }
  for (size_t k = 0; k < n; ++k)
    if (stride_of(sel, k) < 1) return {NC_ESTRIDE, "stride must be positive"};
  // PnetCDF's own answer comes before exacdf's limits: a selection whose byte count
  // does not fit in 64 bits is NC_EINTOVERFLOW.
  int64_t bytes = 0;
  const int64_t elements = selected_elements(sel);
  if (elements == INT64_MAX || __builtin_mul_overflow(elements, var.xsize, &bytes))
    return {NC_EINTOVERFLOW, "selection too large"};
  if (beyond_records)
    return {NC_EEDGE, "start + count reaches a record number no file of this format can hold"};
  int64_t first = 0, end = 0;
  return selection_extent(var, sel, &first, &end);
}

namespace {

// Whether a selection is one contiguous run of the file.
bool contiguous_in_file(const VarGeometry& var, const Selection& sel) {
  if (!var.pieces.empty()) {
    const std::vector<SelectionPart> parts = split_by_pieces(var, sel);
    return parts.size() == 1 && contiguous_in_file(parts[0].geo, parts[0].sel);
  }
  size_t n = var.shape.size();
  bool inner_full = true;  // every dimension inside the current one is whole
  for (size_t k = n; k-- > 0;) {
    if (stride_of(sel, k) != 1 && sel.count[k] > 1) return false;
    if (k == 0 && var.record && sel.count[0] > 1) {
      int64_t inner = var.xsize;
      for (size_t j = 1; j < n; ++j) inner *= var.shape[j];
      return inner_full && inner == var.recsize;  // records follow one another directly
    }
    if (!inner_full && sel.count[k] > 1) return false;
    if (sel.count[k] != var.shape[k]) inner_full = false;
  }
  return true;
}

// An independent transfer of one contiguous run: no file view to set.
Status transfer_run(MpiFile& file, const VarGeometry& var, const Selection& sel, bool write,
                    void* buf, int64_t nbytes) {
  int64_t offset = 0, end = 0;
  EXA_RETURN_IF_ERROR(selection_extent(var, sel, &offset, &end));
  return write ? file.write_at(offset, buf, nbytes) : file.read_at(offset, buf, nbytes);
}

}  // namespace

Status transfer(MpiFile& file, const VarGeometry& var, const Selection& sel, bool write,
                bool collective, void* buf, int64_t nbytes) {
  // Collective calls always set a view: set_view is collective, and another
  // rank's selection may need one.
  if (!collective && nbytes > 0 && contiguous_in_file(var, sel))
    return transfer_run(file, var, sel, write, buf, nbytes);
  MPI_File fh = file.handle();
  MPI_Datatype ftype = MPI_BYTE;
  int64_t offset = 0;
  Status st;
  if (nbytes > 0) st = build_file_type(var, sel, &ftype, &offset);
  if (!st.is_ok()) nbytes = 0;  // a collective call still takes part, with nothing
  // An injected failure (exa_debug_fail_write): this rank's part never lands.
  if (write && st.is_ok() && take_injected_write_failure()) {
    st = {NC_EWRITE, "write failed (injected by exa_debug_fail_write)"};
    nbytes = 0;
  }
  MemoryRun mem;
  Status described = memory_run(nbytes, &mem);
  if (st.is_ok()) st = described;
  if (!st.is_ok()) nbytes = 0;
  Status view = file.set_view(nbytes > 0 ? offset : 0, nbytes > 0 ? ftype : MPI_BYTE);
  if (!view.is_ok()) mem.count = 0;  // a collective call still takes part, with nothing
  if (st.is_ok()) st = view;
  int64_t first = 0, end = 0;  // the selection's file extent
  if (nbytes > 0 && mem.count > 0) {
    Status extent = selection_extent(var, sel, &first, &end);
    // A write that reaches past the end of the file this rank knows first
    // writes its last byte alone (MpiFile::extend_before_write).
    // (Not where nothing can sieve it: a run without gaps on a file of one
    // rank.)
    const bool gapless_alone = file.nprocs() == 1 && end - first == nbytes;
    if (extent.is_ok() && write && !gapless_alone)
      extent = file.extend_before_write(end, nbytes, static_cast<const char*>(buf) + nbytes - 1);
    if (!extent.is_ok()) {
      mem.count = 0;  // a collective call still takes part, with nothing
      end = 0;
      if (st.is_ok()) st = extent;
    }
  }
  MPI_Status status;
  int err;
  if (write)
    err = collective ? MPI_File_write_at_all(fh, 0, buf, mem.count, mem.type, &status)
                     : MPI_File_write_at(fh, 0, buf, mem.count, mem.type, &status);
  else
    err = collective ? MPI_File_read_at_all(fh, 0, buf, mem.count, mem.type, &status)
                     : MPI_File_read_at(fh, 0, buf, mem.count, mem.type, &status);
  Status freed = mem.owned ? EXA_MPI(MPI_Type_free(&mem.type)) : Status::ok();
  Status short_read;
  if (!write && err == MPI_SUCCESS && nbytes > 0 && end > 0) {
    const bool complete = read_complete(status, nbytes);
    if (!complete) zero_unread(status, buf, nbytes);
    // Bytes at or past the end of the file read as zeros, whatever the
    // status's count says (a collective read counts them as read).
    int64_t size = 0;
    short_read = file.size_for_read(end, &size);
    if (short_read.is_ok() && size < end) {
      std::vector<Segment> runs;
      flatten(var, sel, static_cast<uint8_t*>(buf), &runs);
      zero_segments_past(runs, size);
    }
    if (short_read.is_ok() && (!complete || size < end)) short_read = file.check_short_read(end);
  }
  Status moved = write ? check_written(err, status, mem.count > 0 ? nbytes : 0, "MPI-IO data write")
                       : from_mpi(err, MpiOp::kRead, "MPI-IO data read");
  if (moved.is_ok()) write ? file.count_written(nbytes) : file.count_read(nbytes);
  if (moved.is_ok() && write && mem.count > 0) file.note_extent(end);
  Status freed_file = ftype != MPI_BYTE ? EXA_MPI(MPI_Type_free(&ftype)) : Status::ok();
  for (const Status* s : {&st, &moved, &short_read, &freed, &freed_file})
    if (!s->is_ok()) return *s;
  return Status::ok();
}

}  // namespace exa::io
