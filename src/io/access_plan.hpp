// Access plans: a selection (start/count/stride) of a variable becomes one
// MPI file datatype (nested hvectors, no per-element work) and one MPI-IO call.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <climits>
#include <vector>

#include "format/record_sections.hpp"
#include "io/mpi_file.hpp"
#include "util/status.hpp"

namespace exa::io {

// Where a variable's elements are in the file.
struct VarGeometry {
  int64_t begin = 0;           // offset of element 0
  int64_t xsize = 1;           // bytes per external element
  std::vector<int64_t> shape;  // dimension lengths (shape[0] ignored for record variables)
  bool record = false;
  int64_t recsize = 0;         // bytes between consecutive records
  // Records a file of this format can hold (numrecs at most this): CDF-1/2
  // store numrecs in 32 bits (all ones means streaming); CDF-5 and the
  // partitioned format are bounded by the 2^63-byte offsets (selection_extent).
  int64_t max_records = INT64_MAX;
  // A partitioned file with record sections: where each range of records is
  // (format::record_pieces; begin and recsize are then unused). Empty:
  // record r at begin + r * recsize.
  std::vector<format::RecordPiece> pieces{};
};

struct Selection {
  std::vector<int64_t> start;
  std::vector<int64_t> count;
  std::vector<int64_t> stride;  // all 1 when empty
};

// The stride of dimension k (1 when the selection has none).
int64_t stride_of(const Selection& sel, size_t k);

// Bytes between consecutive indices of each dimension of a variable
// (recsize along the record dimension).
std::vector<int64_t> byte_strides(const VarGeometry& var);

// Checks a selection as PnetCDF does: NC_EINVALCOORDS for a start outside
// the variable (a start equal to the length is allowed with a zero count),
// NC_ENEGATIVECNT, NC_EEDGE when start+count runs past the end, NC_ESTRIDE
// for a stride < 1. Record variables: reads are bounded by numrecs, writes
// are not.
Status check_selection(const VarGeometry& var, const Selection& sel, int64_t numrecs, bool write);

// A selection of a variable with record pieces, split by piece (in record
// order, which is file order): each part a uniform geometry and its
// selection, `skip` the elements of the packed buffer before it. Empty
// when nothing is selected.
struct SelectionPart {
  VarGeometry geo;
  Selection sel;
  int64_t skip = 0;
};
std::vector<SelectionPart> split_by_pieces(const VarGeometry& var, const Selection& sel);

// Number of elements selected (saturates at INT64_MAX).
// `nbytes` contiguous bytes as (count, type) for one MPI transfer: MPI_BYTE
// up to INT_MAX, else one committed type of 1 MiB blocks and a tail
// (owned: the caller frees it).
struct MemoryRun {
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  bool owned = false;
};
Status memory_run(int64_t nbytes, MemoryRun* out);

int64_t selected_elements(const Selection& sel);

// The one place a selection becomes byte offsets: the range [*first, *end)
// of the file it touches, every product and sum overflow-checked. A first
// byte beyond 2^63-1 is NC_EINVALCOORDS, a last one NC_EEDGE. A selection of
// no elements touches nothing (*first == *end == var.begin). Everything
// downstream (file types, flattened segments, independent runs) computes
// offsets inside this range, so it cannot overflow once this succeeded.
Status selection_extent(const VarGeometry& var, const Selection& sel, int64_t* first, int64_t* end);

// One transfer of packed external bytes between memory and a selection.
// Collective calls must be made by every rank of the file (nbytes may be 0).
Status transfer(MpiFile& file, const VarGeometry& var, const Selection& sel, bool write,
                bool collective, void* buf, int64_t nbytes);

}  // namespace exa::io
