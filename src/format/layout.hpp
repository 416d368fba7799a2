// Layout of a classic file: where the header ends, where each variable
// begins, the record size. Computed as PnetCDF 1.12.3 computes it, so a file
// defined the same way has the same bytes (docs/format-classic.md).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "format/classic_header.hpp"
#include "format/record_sections.hpp"

namespace exa::format {

// Alignment settings. 0 means "not set" everywhere. The MPI_Info hints and the
// ncmpi__enddef arguments are kept apart because PnetCDF 1.12.3 uses them
// differently: the info hint nc_var_align_size aligns every fixed-size
// variable, while v_align of ncmpi__enddef only aligns the header extent.
struct LayoutHints {
  int64_t header_align = 0;    // info nc_header_align_size: aligns the header extent
  int64_t var_align = 0;       // info nc_var_align_size: aligns each fixed-size variable
  int64_t record_align = 0;    // info nc_record_align_size: aligns the record section
  int64_t header_minfree = 0;  // h_minfree of ncmpi__enddef
  int64_t var_minfree = 0;     // v_minfree of ncmpi__enddef
  int64_t enddef_v_align = 0;  // v_align of ncmpi__enddef (header extent, if no info hint)
  int64_t enddef_r_align = 0;  // r_align of ncmpi__enddef (record section, if no info hint)
  int64_t striping_unit = 0;   // MPI-IO hint striping_unit of the open file, if known
};

// The computed layout, besides begin/vsize stored in each Variable.
struct Layout {
  int64_t header_size = 0;    // encoded header bytes
  int64_t header_extent = 0;  // space reserved for the header (= first variable's begin)
  int64_t begin_rec = 0;      // offset of the first record
  int64_t recsize = 0;        // bytes of one record (all record variables)
  // Partitioned files only: the records before sections.current_first are
  // in closed sections, begin_rec holds record current_first on.
  RecordSections sections{};
  int nvars = 0;              // number of variables this layout placed
  // Alignments in effect (each a multiple of 4), as PnetCDF reports them
  // back in the info hints nc_header_align_size, nc_var_align_size and
  // nc_record_align_size.
  int64_t header_align = 0;
  int64_t var_align = 0;
  int64_t record_align = 0;
};

// Number of elements of one record of a variable (product of its
// non-record dimension lengths), 1 for a scalar. Saturates at INT64_MAX.
int64_t record_elements(const Header& header, const Variable& var);

// Whether a variable's first dimension is the unlimited one.
bool is_record_var(const Header& header, const Variable& var);
// Id of the header's unlimited dimension, or -1 (one scan of the dimensions),
// and the same test given it: for loops over many variables.
int record_dim(const Header& header);
inline bool is_record_var(const Variable& var, int record_dim) {
  return record_dim >= 0 && !var.dimids.empty() && var.dimids[0] == record_dim;
}

// Bytes of the variable (of one record for a record variable), without
// padding: record_elements * external_size. Saturates at INT64_MAX.
int64_t var_bytes(const Header& header, const Variable& var);
int64_t var_bytes(const Header& header, const Variable& var, bool record);
// The same given whether it is a record variable and its dimensions'
// lengths by id (a negative length: no such dimension, skipped).
int64_t record_elements(const Variable& var, bool record, const std::function<int64_t(int)>& length);
int64_t var_bytes(const Variable& var, bool record, const std::function<int64_t(int)>& length);

// PnetCDF's size limits (ncmpio_NC_check_vlens): one record of a variable, or
// a fixed-size variable, may hold at most 2^31-4 bytes in CDF-1 and 2^32-4 in
// CDF-2, except the last fixed-size variable when there are no record
// variables, or else the last record variable. Returns NC_EVARSIZE.
// var_order: the file order of the variables (empty: as in header.vars).
Status check_var_sizes(const Header& header, std::span<const int> var_order = {});

// The offset checks PnetCDF applies when it opens a file: fixed-size
// variables begin at or after the header (header_size) in increasing,
// non-overlapping order, the record section begins after them, record
// variables in increasing, non-overlapping order. Returns NC_ENOTNC.
Status check_var_offsets(const Header& header, int64_t header_size);

// The most records a file of this format can hold: CDF-1/2 store numrecs in
// 32 bits, all ones meaning streaming, so 2^32-2; CDF-5 and the partitioned
// format 2^63-1 (their bound is the offset of the record, see
// check_record_section and io::selection_extent).
int64_t max_numrecs(Version version, bool partitioned);

// Whether numrecs records fit a file of this format: numrecs at most
// max_numrecs, and the record section [begin_rec, begin_rec + numrecs *
// recsize) inside 2^63 bytes. Streaming numrecs passes. Returns NC_ENOTNC.
Status check_record_section(Version version, bool partitioned, int64_t numrecs, const Layout& layout);

// The layout a decoded file has, derived as PnetCDF derives it at open:
// header_extent is the first variable's begin (fixed-size first), begin_rec
// the first record variable's begin, or the end of the last fixed-size
// variable when there is none; both 0 when there are no variables. Alignments
// are left 0 (PnetCDF recomputes them at the next enddef). Pass it as
// `previous` to compute_layout after redef.
Layout existing_layout(const Header& header);

// Fills in vsize and begin of every variable and returns the layout.
// `previous` is the layout the file had before redef (nullptr for a new
// file or a first enddef); then the first previous->nvars variables must be
// the old ones, still holding their old begin, and, like PnetCDF, no variable
// moves to a lower offset, the header extent and record section never shrink.
// Returns NC_EVARSIZE when a variable is too large for the version or an
// offset does not fit (CDF-1).
// var_order: the order of the variables in the file, position -> index into
// header.vars (empty: as they are); `previous` then counts positions.
Status compute_layout(Header& header, const LayoutHints& hints, const Layout* previous,
                      Layout* out, std::span<const int> var_order = {});

}  // namespace exa::format
