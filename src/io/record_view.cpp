#include "io/record_view.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "io/mpi_errors.hpp"
#include "io/type_runs.hpp"

namespace exa::io {

RecordView::~RecordView() {
  int finalized = 0;
  if (type_ != MPI_DATATYPE_NULL && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized)
    EXA_MPI(MPI_Type_free(&type_)).set_aside("destructor: a type of its own, no caller to report to");
}

Status RecordView::build(MPI_Datatype filetype, const format::RecordSections& sections, int64_t record_begin,
                         int64_t record_size, int64_t var_at) {
  std::vector<format::ByteRun> runs;
  EXA_RETURN_IF_ERROR(type_runs(filetype, &runs));
  for (format::ByteRun& r : runs)
    if (__builtin_add_overflow(r.offset, var_at, &r.offset))
      return {NC_EINVALCOORDS, "vard file type reaches beyond the largest offset a file can have"};
  std::vector<format::ByteRun> file;
  EXA_RETURN_IF_ERROR(format::map_record_runs(sections, record_begin, record_size, runs, &file));
  bool sorted = true;
  for (size_t i = 1; i < file.size() && sorted; ++i) sorted = file[i - 1].offset <= file[i].offset;
  moves_.clear();
  if (!sorted) {
    // (Runs of several variables of one record, or a file type not in
    // file order: MPI-IO wants a view's displacements nondecreasing.)
    std::vector<int64_t> packed_at(file.size());
    int64_t at = 0;
    for (size_t i = 0; i < file.size(); ++i) {
      packed_at[i] = at;
      at += file[i].length;
    }
    std::vector<size_t> order(file.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return file[a].offset < file[b].offset; });
    std::vector<format::ByteRun> in_order;
    in_order.reserve(file.size());
    moves_.reserve(file.size());
    for (size_t i : order) {
      in_order.push_back(file[i]);
      moves_.push_back({packed_at[i], file[i].length});
    }
    file = std::move(in_order);
  }
  return byte_runs_type(file, &type_);
}

void RecordView::to_view_order(const uint8_t* packed, uint8_t* out) const {
  for (const format::ByteRun& m : moves_) {
    std::memcpy(out, packed + m.offset, size_t(m.length));
    out += m.length;
  }
}

void RecordView::from_view_order(const uint8_t* in, uint8_t* packed) const {
  for (const format::ByteRun& m : moves_) {
    std::memcpy(packed + m.offset, in, size_t(m.length));
    in += m.length;
  }
}

}  // namespace exa::io
