// I/O hints: those of an MPI_Info given to create/open merged with the
// PNETCDF_HINTS environment variable ("key=value;key=value", which wins, as
// in PnetCDF), and the values exacdf reads from them.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>

#include "format/layout.hpp"
#include "util/status.hpp"

namespace exa::io {

inline constexpr int64_t kDefaultHeaderReadChunk = 256 * 1024;
inline constexpr int64_t kDefaultIbufSize = 16 * 1024 * 1024;  // PnetCDF's nc_ibuf_size
// nc_in_place_swap=auto swaps a put's buffer in place from this size up; a
// smaller one is copied into scratch (cheaper than two passes, and safe for
// constant data).
inline constexpr int64_t kInPlaceSwapMin = 64 * 1024;

struct Hints {
  format::LayoutHints layout;  // nc_header_align_size, nc_var_align_size, nc_record_align_size
  int64_t header_read_chunk = kDefaultHeaderReadChunk;  // nc_header_read_chunk_size
  // exa_bcast_read=auto|enable|disable: with enable, a collective read of the
  // same region on every rank is done by one rank and broadcast (one
  // allreduce per get compares the selections); auto and disable cost no MPI
  // call beyond the read. exa_bcast_read_max: kept for compatibility, unused.
  enum class BcastRead { kAuto, kEnable, kDisable } bcast_read = BcastRead::kAuto;
  int64_t bcast_read_max = int64_t{2} << 30;
  // nc_in_place_swap=auto|enable|disable (PnetCDF's hint).
  enum class InPlaceSwap { kAuto, kEnable, kDisable } in_place_swap = InPlaceSwap::kAuto;
  // nc_ibuf_size: PnetCDF's staging buffer of nonblocking requests. exacdf
  // needs none; the value is kept only to be reported, as PnetCDF reports it.
  int64_t ibuf_size = kDefaultIbufSize;
  // exa_define_mode=independent|collective: define calls are local to each
  // rank and enddef merges what the ranks defined (docs/architecture.md).
  bool independent_define = false;
  // exa_format=partitioned: create files in the partitioned format.
  bool partitioned = false;
  // exa_swmr=write|read: EXA_SWMR_WRITE / EXA_SWMR_READ (exacdf_swmr.h).
  std::string swmr;
  // exa_swmr_refresh_bound (seconds; 0: none): an SWMR reader whose view is
  // older than this fails data reads until it refreshes (the writer and its
  // readers agree on it; space an old generation used may be reused after twice it).
  double swmr_refresh_bound = 0;
  // exa_swmr_commit_interval (seconds; 0: none): an SWMR writer of a
  // partitioned file also commits at a collective put of a record variable
  // once this long has passed since its first put after the last commit.
  double swmr_commit_interval = 0;
  // exa_redef_records=split|copy: how a redef of a partitioned file that
  // changes the record layout treats the records already written: split
  // keeps them where they are (record sections, docs/format.md), copy lays
  // them out again. Empty: split (classic files never split).
  std::string redef_records;
  // exa_compact_max (bytes, 0 disables): in a partitioned file without
  // record variables, fixed-size variables of at most this size keep their
  // data in their metadata block (docs/format.md, compact).
  int64_t compact_max = 64 * 1024;
  // exa_erange_fill=enable|disable: an out-of-range element (NC_ERANGE) is
  // stored / read as the fill value, as Debian's PnetCDF (built with
  // erange-fill) does; disable keeps the converted value (the C cast).
  bool erange_fill = true;
  int64_t striping_unit = 0;    // of the open file, when MPI-IO reports it
  int64_t striping_factor = 0;
  std::map<std::string, std::string> all;  // every hint after merging, by key
};

// Merges `user` (may be MPI_INFO_NULL) and PNETCDF_HINTS into `out`.
// Malformed numeric values are ignored, as PnetCDF ignores them. Local.
Status gather_hints(MPI_Info user, Hints* out);

// Records the striping MPI-IO reports for an open file (it sets the default
// header alignment of large files, as in PnetCDF). Local.
void read_striping(MPI_File fh, Hints* hints);

// A new MPI_Info holding every merged hint (the caller frees it).
Status to_mpi_info(const Hints& hints, MPI_Info* out);

// Frees an info object made here or given by MPI (MPI_INFO_NULL: nothing to do).
Status free_info(MPI_Info* info);

// The info a file reports through ncmpi_inq_file_info (a new MPI_Info the
// caller frees): the MPI-IO hints of the open file, every merged hint, and
// the value in force of each hint PnetCDF 1.12.3 reports (nc_header_align_size,
// nc_var_align_size, nc_record_align_size, nc_header_read_chunk_size,
// nc_in_place_swap, nc_ibuf_size, pnetcdf_subfiling, nc_num_subfiles) and of
// exacdf's own (exa_*), defaults included.
Status file_info_used(const Hints& hints, MPI_File fh, MPI_Info* out);

}  // namespace exa::io
