#include "io/access_plan.hpp"

#include <climits>

#include "io/mpi_errors.hpp"

namespace exa::io {

int64_t stride_of(const Selection& sel, size_t k) { return sel.stride.empty() ? 1 : sel.stride[k]; }

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

namespace {

// The file type: hvector of hvectors, innermost run contiguous when stride is 1.
// Counts above INT_MAX are split into an outer level.
Status build_file_type(const VarGeometry& var, const Selection& sel, MPI_Datatype* type,
                       int64_t* offset) {
  size_t n = var.shape.size();
  std::vector<int64_t> bs = byte_strides(var);
  *offset = var.begin;
  for (size_t k = 0; k < n; ++k) *offset += sel.start[k] * bs[k];
  MPI_Datatype t;
  MPI_Type_contiguous(static_cast<int>(var.xsize), MPI_BYTE, &t);
  for (size_t k = n; k-- > 0;) {
    int64_t cnt = sel.count[k];
    if (cnt > INT_MAX) {
      MPI_Type_free(&t);
      return {NC_EINTOVERFLOW, "selection count exceeds INT_MAX along one dimension"};
    }
    MPI_Datatype next;
    MPI_Type_create_hvector(static_cast<int>(cnt), 1, stride_of(sel, k) * bs[k], t, &next);
    MPI_Type_free(&t);
    t = next;
  }
  MPI_Type_commit(&t);
  *type = t;
  return Status::ok();
}

// The memory side of one transfer of nbytes contiguous bytes as (count,
// type) with count an int: whole 1 MiB blocks plus the remainder, so one
// MPI-IO call moves requests beyond 2 GiB.
struct MemoryRun {
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  bool owned = false;
};

MemoryRun memory_run(int64_t nbytes) {
  if (nbytes <= INT_MAX) return {static_cast<int>(nbytes), MPI_BYTE, false};
  constexpr int64_t kBlock = int64_t{1} << 20;
  MPI_Datatype block;
  MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &block);
  int lengths[2] = {static_cast<int>(nbytes / kBlock), static_cast<int>(nbytes % kBlock)};
  MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(nbytes / kBlock * kBlock)};
  MPI_Datatype types[2] = {block, MPI_BYTE};
  MPI_Datatype run;
  MPI_Type_create_struct(2, lengths, displs, types, &run);
  MPI_Type_commit(&run);
  MPI_Type_free(&block);
  return {1, run, true};
}

}  // namespace

int64_t selected_elements(const Selection& sel) {
  int64_t n = 1;
  for (int64_t c : sel.count) n *= c;
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
    if (!unbounded(k) && start == length(k) && sel.count[k] > 0)
      return {NC_EINVALCOORDS, "start at the end with a non-zero count"};
  }
  for (size_t k = 0; k < n; ++k) {
    int64_t start = sel.start[k], count = sel.count[k], stride = stride_of(sel, k);
    if (count < 0) return {NC_ENEGATIVECNT, "negative count"};
    if (count == 0 || unbounded(k)) continue;
    int64_t last = stride >= 1 ? start + (count - 1) * stride : start + count - 1;
    if (last >= length(k)) return {NC_EEDGE, "start + count exceeds the dimension"};
  }
  for (size_t k = 0; k < n; ++k)
    if (stride_of(sel, k) < 1) return {NC_ESTRIDE, "stride must be positive"};
  return Status::ok();
}

namespace {

// Whether a selection is one contiguous run of the file.
bool contiguous_in_file(const VarGeometry& var, const Selection& sel) {
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

// An independent transfer of one contiguous run: no file view to set and reset.
Status transfer_run(MpiFile& file, const VarGeometry& var, const Selection& sel, bool write,
                    void* buf, int64_t nbytes) {
  int64_t offset = var.begin;
  size_t n = var.shape.size();
  int64_t step = var.xsize;
  for (size_t k = n; k-- > 0;) {
    offset += sel.start[k] * ((k == 0 && var.record) ? var.recsize : step);
    step *= var.shape[k];
  }
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
  MemoryRun mem = memory_run(nbytes);
  MPI_File_set_view(fh, nbytes > 0 ? offset : 0, MPI_BYTE, nbytes > 0 ? ftype : MPI_BYTE,
                    "native", MPI_INFO_NULL);
  MPI_Status status;
  int err;
  if (write)
    err = collective ? MPI_File_write_at_all(fh, 0, buf, mem.count, mem.type, &status)
                     : MPI_File_write_at(fh, 0, buf, mem.count, mem.type, &status);
  else
    err = collective ? MPI_File_read_at_all(fh, 0, buf, mem.count, mem.type, &status)
                     : MPI_File_read_at(fh, 0, buf, mem.count, mem.type, &status);
  if (mem.owned) MPI_Type_free(&mem.type);
  if (!write && err == MPI_SUCCESS && nbytes > 0) zero_unread(status, buf, nbytes);
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  Status moved = write ? check_written(err, status, nbytes, "MPI-IO data write")
                       : from_mpi(err, MpiOp::kRead, "MPI-IO data read");
  if (moved.is_ok()) write ? file.count_written(nbytes) : file.count_read(nbytes);
  if (ftype != MPI_BYTE) MPI_Type_free(&ftype);
  if (!st.is_ok()) return st;
  return moved;
}

}  // namespace exa::io
