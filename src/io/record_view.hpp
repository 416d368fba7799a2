// The file view of a put_vard/get_vard file type over a record variable of a
// partitioned file whose records lie in sections (a redef left them in
// place, docs/format.md "Record sections"). PnetCDF defines a vard file type
// over the unsplit layout: from the variable's offset (ncmpi_inq_varoffset),
// record r at r * recsize. The type is flattened into byte runs, each mapped
// to where its record's bytes are, and the view is those runs sorted by file
// offset; when sorting reorders them, the packed buffer is reordered too.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "format/record_sections.hpp"
#include "util/status.hpp"

namespace exa::io {

class RecordView {
 public:
  RecordView() = default;
  RecordView(const RecordView&) = delete;
  RecordView& operator=(const RecordView&) = delete;
  ~RecordView();

  // var_at: the variable's bytes before it within a record (its begin
  // minus the current section's offset); record_begin/record_size the
  // superblock's. NC_EINVALCOORDS for bytes no section holds, NC_ENOTSUPPORT
  // for a file type constructor type_runs does not handle.
  Status build(MPI_Datatype filetype, const format::RecordSections& sections, int64_t record_begin,
               int64_t record_size, int64_t var_at);

  // The view's file type, displacement 0 (built, else MPI_BYTE).
  MPI_Datatype type() const { return type_ == MPI_DATATYPE_NULL ? MPI_BYTE : type_; }

  // The packed buffer (file-type order) to the view's order, and back.
  void to_view_order(const uint8_t* packed, uint8_t* out) const;
  void from_view_order(const uint8_t* in, uint8_t* packed) const;
  bool reorders() const { return !moves_.empty(); }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  // When the view's order differs: for each view run in order, where its bytes are in the packed buffer.
  std::vector<format::ByteRun> moves_;
};

}  // namespace exa::io
