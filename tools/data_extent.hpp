// What the header of an open file says its data needs, against the bytes the
// file has: the tools bound their work by what exists, so a crafted numrecs or
// dimension length cannot make them read (or print) without end.
#pragma once

#include <pnetcdf.h>

#include <string>

namespace exa::tool {

// The most data past the end of a file `dump` and `convert` read (as zeros or
// the fill value, like ncdump): a file written without fill may end before
// data never written; far more missing than that is a truncated or crafted
// file, and they stop.
// (fuzz_tools lowers it: tests/fuzz/CMakeLists.txt.)
#ifdef EXACDF_TOOL_MAX_MISSING_BYTES
constexpr MPI_Offset kMaxMissingDataBytes = EXACDF_TOOL_MAX_MISSING_BYTES;
#else
constexpr MPI_Offset kMaxMissingDataBytes = MPI_Offset{64} << 20;
#endif

struct DataExtent {
  MPI_Offset file_bytes = 0;  // the file's size
  MPI_Offset described = 0;   // one past the last data byte the header describes (saturates)
  // Whether the header describes data past the end of the file. A file
  // written without fill may end before data never written; a truncated one
  // looks the same.
  bool short_data() const { return described > file_bytes; }
  // More missing than kMaxMissingDataBytes.
  bool far_too_short() const { return short_data() && described - file_bytes > kMaxMissingDataBytes; }
  // "the file has N bytes, the header describes M"
  std::string describe() const;
};

/** Fills `out` for dataset `ncid` at `path`; throws NcError when a library call fails. */
DataExtent data_extent(int ncid, const std::string& path);

}  // namespace exa::tool
