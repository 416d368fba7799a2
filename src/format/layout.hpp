// Layout of a classic file: where the header ends, where each variable
// begins, the record size. Computed as PnetCDF 1.12.3 computes it, so a file
// defined the same way has the same bytes.
#pragma once

#include <cstdint>

#include "format/classic_header.hpp"

namespace exa::format {

// Alignment settings: the hints nc_header_align_size, nc_var_align_size,
// nc_record_align_size, and the arguments of ncmpi__enddef. 0 means default.
struct LayoutHints {
  int64_t header_align = 0;    // nc_header_align_size
  int64_t var_align = 0;       // nc_var_align_size / v_align
  int64_t record_align = 0;    // nc_record_align_size / r_align
  int64_t header_minfree = 0;  // h_minfree of ncmpi__enddef
  int64_t var_minfree = 0;     // v_minfree of ncmpi__enddef
};

// The computed layout, besides begin/vsize stored in each Variable.
struct Layout {
  int64_t header_size = 0;    // encoded header bytes
  int64_t header_extent = 0;  // space reserved for the header (= first variable's begin)
  int64_t begin_rec = 0;      // offset of the first record
  int64_t recsize = 0;        // bytes of one record (all record variables)
};

// Number of elements of one record of a variable (product of its
// non-record dimension lengths), 1 for a scalar.
int64_t record_elements(const Header& header, const Variable& var);

// Whether a variable's first dimension is the unlimited one.
bool is_record_var(const Header& header, const Variable& var);

// Fills in vsize and begin of every variable and returns the layout.
// `previous` is the layout the file had before redef (nullptr for a new
// file); like PnetCDF, existing variables keep their offsets when the
// header still fits and nothing forces a move. Returns NC_EVARSIZE when a
// variable is too large for the version (CDF-1/CDF-2 limits).
Status compute_layout(Header& header, const LayoutHints& hints, const Layout* previous,
                      Layout* out);

}  // namespace exa::format
