// The file view of a put_vard/get_vard file type over a record variable of a
// partitioned file whose records lie in sections (a redef left them in
// place, docs/format.md "Record sections"). PnetCDF defines a vard file type
// over the unsplit layout: from the variable's offset (ncmpi_inq_varoffset),
// record r at r * recsize. The type is flattened into byte runs, each mapped
// to where its record's bytes are, and the view is those runs sorted by file
// offset; when sorting reorders them, the packed buffer is reordered too.
//
// Memory stays bounded whatever the number of runs: the view comes in
// batches of at most kBatchRuns runs and kBatchBytes bytes (each one MPI
// transfer), made while the file type is walked (io::for_each_type_run).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "format/record_sections.hpp"
#include "util/status.hpp"

namespace exa::io {

class RecordView {
 public:
  static constexpr size_t kBatchRuns = size_t(1) << 20;
  static constexpr int64_t kBatchBytes = int64_t(1) << 30;  // an int count per transfer

  // One batch: a committed view type (displacement 0, sorted runs, valid
  // during the callback), the bytes of the packed buffer (file-type order)
  // it moves, from packed_at, and, when the view's order differs, for each
  // view run in order where its bytes are among those (empty: in order).
  struct Batch {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int64_t packed_at = 0;
    int64_t bytes = 0;
    const std::vector<format::ByteRun>* moves = nullptr;
  };

  // var_at: the variable's bytes before it within a record (its begin
  // minus the current section's offset); record_begin/record_size the
  // superblock's. Walks the file type once to check every byte and count
  // the batches: NC_EINVALCOORDS for bytes no section holds, NC_ENOTSUPPORT
  // for a file type constructor type_runs does not handle.
  Status build(MPI_Datatype filetype, const format::RecordSections& sections, int64_t record_begin,
               int64_t record_size, int64_t var_at);

  int64_t batches() const { return batches_; }

  // Calls fn for each batch in order (a second walk, unless one batch held
  // everything). fn's error stops the walk and is returned.
  Status for_each_batch(const std::function<Status(const Batch&)>& fn) const;

  // A batch's bytes (from its packed_at) to the view's order, and back.
  static void to_view_order(const Batch& b, const uint8_t* packed, uint8_t* out);
  static void from_view_order(const Batch& b, const uint8_t* in, uint8_t* packed);

 private:
  Status walk(const std::function<Status(const std::vector<format::ByteRun>&, int64_t packed_at, int64_t bytes)>& flush)
      const;
  static Status emit(const std::vector<format::ByteRun>& runs, int64_t packed_at, int64_t bytes,
                     const std::function<Status(const Batch&)>& fn);

  MPI_Datatype filetype_ = MPI_DATATYPE_NULL;
  format::RecordSections sections_;
  int64_t record_begin_ = 0, record_size_ = 0, var_at_ = 0;
  int64_t batches_ = 0;
  std::vector<format::ByteRun> single_;  // the only batch's runs, when there is one
};

}  // namespace exa::io
