#include "io/direct_write.hpp"

#include <algorithm>

#include "io/mpi_errors.hpp"

namespace exa::io {

DirectPut direct_put_hint(const Hints& hints) {
  auto it = hints.all.find("exa_direct_put");
  if (it == hints.all.end()) return DirectPut::kAuto;
  if (it->second == "enable") return DirectPut::kEnable;
  if (it->second == "disable") return DirectPut::kDisable;
  return DirectPut::kAuto;
}

bool plan_direct_runs(const VarGeometry& var, const Selection& sel, int64_t xbytes, DirectPut mode,
                      std::vector<Segment>* out) {
  out->clear();
  if (mode == DirectPut::kDisable || xbytes <= 0 || !var.pieces.empty()) return false;
  if (mode == DirectPut::kAuto && xbytes < kDirectMinBytes) return false;
  const size_t n = var.shape.size();
  const std::vector<int64_t> bs = byte_strides(var);
  // The run: the innermost dimensions whose consecutive selected indices lie
  // next to each other in the file (byte adjacency, so a whole record of a
  // variable that is the only one per record joins the records too). No
  // product overflows: the selection's extent was checked (selection_extent).
  int64_t run = var.xsize;
  size_t outer = n;  // dimensions [0, outer) are iterated index by index
  while (outer > 0) {
    const size_t j = outer - 1;
    if (sel.count[j] != 1) {
      if (stride_of(sel, j) * bs[j] != run) break;
      run *= sel.count[j];
    }
    --outer;
  }
  int64_t runs = 1;
  for (size_t k = 0; k < outer; ++k) runs *= sel.count[k];
  if (runs > kDirectMaxRuns) return false;
  if (mode == DirectPut::kAuto && runs > xbytes / kDirectMinRun) return false;
  out->reserve(static_cast<size_t>(runs));
  std::vector<int64_t> idx(outer, 0);
  for (;;) {
    int64_t off = var.begin;
    for (size_t k = 0; k < n; ++k) off += (sel.start[k] + (k < outer ? idx[k] : 0) * stride_of(sel, k)) * bs[k];
    out->push_back({off, run, nullptr});
    size_t k = outer;
    while (k > 0) {
      --k;
      if (++idx[k] < sel.count[k]) break;
      idx[k] = 0;
      if (k == 0) return true;
    }
    if (outer == 0) return true;
  }
}

Status write_runs_staged(MpiFile& file, const std::vector<Segment>& runs, int64_t xsize,
                         const ProduceExternal& produce, uint8_t* stage) {
  const int64_t slice_max = std::max<int64_t>(1, kDirectStageBytes / xsize) * xsize;
  int64_t at = 0;  // position in the packed piece
  for (const Segment& run : runs) {
    for (int64_t done = 0; done < run.length;) {
      const int64_t n = std::min(slice_max, run.length - done);
      EXA_RETURN_IF_ERROR(produce(at, n, stage));
      MPI_Status status;
      const int err =
          MPI_File_write_at(file.handle(), run.offset + done, stage, static_cast<int>(n), MPI_BYTE, &status);
      EXA_RETURN_IF_ERROR(check_written(err, status, n, "MPI_File_write_at (direct put)"));
      file.count_written(n);
      file.note_extent(run.offset + done + n);
      done += n;
      at += n;
    }
  }
  return Status::ok();
}

Status read_runs_staged(MpiFile& file, const std::vector<Segment>& runs, int64_t xsize,
                        const ConsumeExternal& consume, uint8_t* stage, uint8_t* packed) {
  const int64_t bytes = packed != nullptr ? kDirectInPlaceReadBytes : kDirectStageBytes;
  const int64_t slice_max = std::max<int64_t>(1, bytes / xsize) * xsize;
  int64_t at = 0;  // position in the packed piece
  for (const Segment& run : runs) {
    for (int64_t done = 0; done < run.length;) {
      const int64_t n = std::min(slice_max, run.length - done);
      uint8_t* slice = packed != nullptr ? packed + at : stage;
      MPI_Status status;
      const int err =
          MPI_File_read_at(file.handle(), run.offset + done, slice, static_cast<int>(n), MPI_BYTE, &status);
      EXA_RETURN_IF_ERROR(from_mpi(err, MpiOp::kRead, "MPI_File_read_at (direct get)"));
      file.count_read(n);
      // Bytes at or past the end of the file read as zeros.
      const bool complete = read_complete(status, n);
      if (!complete) zero_unread(status, slice, n);
      int64_t size = 0;
      EXA_RETURN_IF_ERROR(file.size_for_read(run.offset + done + n, &size));
      if (size < run.offset + done + n) zero_past_size(size, run.offset + done, slice, n);
      if (!complete || size < run.offset + done + n) EXA_RETURN_IF_ERROR(file.check_short_read(run.offset + done + n));
      EXA_RETURN_IF_ERROR(consume(at, n, slice));
      done += n;
      at += n;
    }
  }
  return Status::ok();
}

}  // namespace exa::io
