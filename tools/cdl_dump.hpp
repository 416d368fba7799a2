// The CDL printer of `exacdf dump`: header (dimensions, variables, attributes) and
// data section of an open dataset, in the exact layout of netCDF-C's ncdump.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace exa::cdl {

struct DumpOptions {
  bool header_only = false;        // -h: no data section
  bool coordinates_only = false;   // -c: data of coordinate variables only
  std::vector<std::string> vars;   // -v: data of these variables only (empty: all)
  std::string dataset_name;        // name after "netcdf" (ncdump derives it from the path)
  int max_line_len = 80;           // -l: wrap column of the data section
  std::size_t read_chunk_bytes = std::size_t{4} << 20;  // most data read by one call
};

/**
 * Prints dataset `ncid` (opened with ncmpi_open) as CDL to `out`.  Reads data with
 * collective calls, so every rank of the file's communicator must call it.  Variables
 * in `options.vars` must exist.  Throws tool::NcError when a library call fails.
 */
void dump_cdl(int ncid, const DumpOptions& options, std::FILE* out);

}  // namespace exa::cdl
