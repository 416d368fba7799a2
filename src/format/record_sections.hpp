// Record sections of a partitioned file (docs/format.md, "Record sections"):
// a redef that changes the record layout of a file that already has records
// does not copy them. The records written so far keep their place and their
// old record size (a closed section); a new record variable's bytes for
// those records go into a section of their own; records from the redef on
// use the new record size (the current section, at the superblock's record
// offset). Pure: no MPI, no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "util/status.hpp"

namespace exa::format {

// A closed section: bytes [lo, hi) of each record of [first, first + count)
// lie back to back from `offset`, hi - lo bytes per record. A record
// variable whose bytes within a record (its begin minus the superblock's
// record offset, then vsize bytes) lie inside [lo, hi) has those records
// here.
struct RecordSection {
  uint64_t first = 0;
  uint64_t count = 0;
  uint64_t offset = 0;
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool operator==(const RecordSection&) const = default;
};

struct RecordSections {
  bool present = false;        // superblock flag 2: the index head carries this table
  uint64_t current_first = 0;  // the record stored first at the superblock's record offset
  std::vector<RecordSection> closed;
  bool operator==(const RecordSections&) const = default;
};

// Encoded size of the table in the index head: 16 + 40 per closed section.
inline constexpr int64_t kRecordSectionsFixedSize = 16;
inline constexpr int64_t kRecordSectionSize = 40;

// Records [first, end) of one variable: record r at base + (r - first) * stride.
struct RecordPiece {
  int64_t first = 0;
  int64_t end = 0;  // INT64_MAX for the current section
  int64_t base = 0;
  int64_t stride = 0;
  bool operator==(const RecordPiece&) const = default;
};

// Where a record variable's records are: its pieces in record order, from
// record 0, the last one the current section (begin is the offset of record
// sections.current_first; record_begin/record_size the superblock's). An
// empty *out: no sections, record r at begin + r * record_size.
// NC_EFILEMETA when the closed sections do not give each record below
// current_first exactly one place.
Status record_pieces(const RecordSections& sections, int64_t record_begin, int64_t record_size, int64_t begin,
                     int64_t vsize, std::vector<RecordPiece>* out);

// Offset of record r of a variable by its pieces (empty: begin + r * record_size).
int64_t record_offset(const std::vector<RecordPiece>& pieces, int64_t begin, int64_t record_size, int64_t r);

// End of the current section's bytes for numrecs records (the end of the
// space records use), overflow-checked: false when beyond 2^63 - 1.
bool current_records_end(const RecordSections& sections, int64_t record_begin, int64_t record_size,
                         int64_t numrecs, int64_t* end);

// `length` bytes from `offset`.
struct ByteRun {
  int64_t offset = 0;
  int64_t length = 0;
  bool operator==(const ByteRun&) const = default;
};

// Byte runs given in the records' unsplit layout -- byte u is byte u %
// record_size of record u / record_size, u = 0 the first byte of record 0
// -- at the file offsets where the sections keep them (record_begin and
// record_size the superblock's, as for record_pieces), in the same order,
// adjacent results merged. This is how put_vard/get_vard file types, which
// PnetCDF defines over that layout, reach records a redef left in place.
// NC_EINVALCOORDS for a byte before record 0, one no section holds (bytes
// of a record no closed section covers), or an offset past 2^63 - 1.
Status map_record_runs(const RecordSections& sections, int64_t record_begin, int64_t record_size,
                       const std::vector<ByteRun>& in, std::vector<ByteRun>* out);

// One run of the same, appended to *out (merged with its last run when
// adjacent): map_record_runs one run at a time, for file types too large
// to hold as a list.
Status map_record_run(const RecordSections& sections, int64_t record_begin, int64_t record_size, const ByteRun& run,
                      std::vector<ByteRun>* out);

}  // namespace exa::format
