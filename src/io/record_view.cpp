#include "io/record_view.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "io/mpi_errors.hpp"
#include "io/type_runs.hpp"

namespace exa::io {

namespace {

void append_run(int64_t offset, int64_t length, std::vector<format::ByteRun>* out) {
  if (!out->empty() && out->back().offset + out->back().length == offset)
    out->back().length += length;
  else
    out->push_back({offset, length});
}

}  // namespace

Status RecordView::walk(
    const std::function<Status(const std::vector<format::ByteRun>&, int64_t packed_at, int64_t bytes)>& flush) const {
  std::vector<format::ByteRun> batch, mapped;
  int64_t packed_at = 0, bytes = 0;
  auto cut = [&]() -> Status {
    EXA_RETURN_IF_ERROR(flush(batch, packed_at, bytes));
    packed_at += bytes;
    bytes = 0;
    batch.clear();
    return Status::ok();
  };
  // A source run is mapped in pieces of at most 4096 records, so that what
  // one piece maps to stays small whatever the run's length.
  const int64_t piece = std::min<int64_t>(kBatchBytes, record_size_ > 0 ? record_size_ * 4096 : kBatchBytes);
  const RunSink place = [&](const format::ByteRun& r) -> Status {
    format::ByteRun u = r;
    if (__builtin_add_overflow(u.offset, var_at_, &u.offset))
      return {NC_EINVALCOORDS, "vard file type reaches beyond the largest offset a file can have"};
    for (int64_t done = 0; done < r.length;) {
      const format::ByteRun part{u.offset + done, std::min(piece, r.length - done)};
      done += part.length;
      mapped.clear();
      EXA_RETURN_IF_ERROR(format::map_record_run(sections_, record_begin_, record_size_, part, &mapped));
      for (format::ByteRun m : mapped)
        while (m.length > 0) {
          const int64_t take = std::min(m.length, kBatchBytes - bytes);
          append_run(m.offset, take, &batch);
          bytes += take;
          m.offset += take;
          m.length -= take;
          if (batch.size() >= kBatchRuns || bytes >= kBatchBytes) EXA_RETURN_IF_ERROR(cut());
        }
    }
    return Status::ok();
  };
  EXA_RETURN_IF_ERROR(for_each_type_run(filetype_, place));
  if (!batch.empty()) EXA_RETURN_IF_ERROR(cut());
  return Status::ok();
}

Status RecordView::build(MPI_Datatype filetype, const format::RecordSections& sections, int64_t record_begin,
                         int64_t record_size, int64_t var_at) {
  filetype_ = filetype;
  sections_ = sections;
  record_begin_ = record_begin;
  record_size_ = record_size;
  var_at_ = var_at;
  batches_ = 0;
  single_.clear();
  return walk([&](const std::vector<format::ByteRun>& runs, int64_t, int64_t) {
    // The first batch is kept: when it is the only one, no second walk.
    if (batches_++ == 0)
      single_ = runs;
    else
      single_.clear();
    return Status::ok();
  });
}

Status RecordView::emit(const std::vector<format::ByteRun>& runs, int64_t packed_at, int64_t bytes,
                        const std::function<Status(const Batch&)>& fn) {
  bool sorted = true;
  for (size_t i = 1; i < runs.size() && sorted; ++i) sorted = runs[i - 1].offset <= runs[i].offset;
  std::vector<format::ByteRun> moves, in_order;
  const std::vector<format::ByteRun>* view = &runs;
  if (!sorted) {
    // (Runs of several variables of one record, or a file type not in
    // file order: MPI-IO wants a view's displacements nondecreasing.)
    std::vector<int64_t> at(runs.size());
    int64_t next = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      at[i] = next;
      next += runs[i].length;
    }
    std::vector<size_t> order(runs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return runs[a].offset < runs[b].offset; });
    in_order.reserve(runs.size());
    moves.reserve(runs.size());
    for (size_t i : order) {
      in_order.push_back(runs[i]);
      moves.push_back({at[i], runs[i].length});
    }
    view = &in_order;
  }
  Batch b;
  b.packed_at = packed_at;
  b.bytes = bytes;
  b.moves = &moves;
  EXA_RETURN_IF_ERROR(byte_runs_type(*view, &b.type));
  Status st = fn(b);
  Status freed = EXA_MPI(MPI_Type_free(&b.type));
  return st.is_ok() ? freed : st;
}

Status RecordView::for_each_batch(const std::function<Status(const Batch&)>& fn) const {
  if (batches_ == 1) {
    int64_t bytes = 0;
    for (const format::ByteRun& r : single_) bytes += r.length;
    return emit(single_, 0, bytes, fn);
  }
  return walk([&](const std::vector<format::ByteRun>& runs, int64_t packed_at, int64_t bytes) {
    return emit(runs, packed_at, bytes, fn);
  });
}

void RecordView::to_view_order(const Batch& b, const uint8_t* packed, uint8_t* out) {
  for (const format::ByteRun& m : *b.moves) {
    std::memcpy(out, packed + m.offset, size_t(m.length));
    out += m.length;
  }
}

void RecordView::from_view_order(const Batch& b, const uint8_t* in, uint8_t* packed) {
  for (const format::ByteRun& m : *b.moves) {
    std::memcpy(packed + m.offset, in, size_t(m.length));
    in += m.length;
  }
}

}  // namespace exa::io
