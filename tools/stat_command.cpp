// `exacdf stat [-b] FILE`: what a file holds, from its header or, for a
// partitioned file, its index table (exa_inq_blocks/exa_inq_block).
#include <exacdf.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "nc_error.hpp"
#include "subcommands.hpp"

namespace exa::tool {
namespace {

constexpr const char* kUsage =
    "usage: exacdf stat [-b] FILE\n"
    "  -b   list every metadata block of a partitioned file\n";

const char* format_name(int format) {
  switch (format) {
    case NC_FORMAT_CLASSIC: return "classic (CDF-1)";
    case NC_FORMAT_CDF2: return "64-bit offset (CDF-2)";
    case NC_FORMAT_CDF5: return "64-bit data (CDF-5)";
    case EXA_FORMAT_PARTITIONED_V1: return "exacdf partitioned, version 1";
    default: return "unknown";
  }
}

void print_stats(int ncid, const std::string& path, bool list_blocks, int rank) {
  int format = 0, ndims = 0, nvars = 0, ngatts = 0, unlimdim = -1;
  MPI_Offset header = 0, extent = 0, numrecs = 0;
  nc_check(ncmpi_inq_format(ncid, &format), "ncmpi_inq_format");
  nc_check(ncmpi_inq(ncid, &ndims, &nvars, &ngatts, &unlimdim), "ncmpi_inq");
  nc_check(ncmpi_inq_header_size(ncid, &header), "ncmpi_inq_header_size");
  nc_check(ncmpi_inq_header_extent(ncid, &extent), "ncmpi_inq_header_extent");
  if (unlimdim >= 0) nc_check(ncmpi_inq_dimlen(ncid, unlimdim, &numrecs), "ncmpi_inq_dimlen");
  MPI_Offset nblocks = -1;
  if (format == EXA_FORMAT_PARTITIONED_V1) nc_check(exa_inq_blocks(ncid, &nblocks), "exa_inq_blocks");
  if (rank != 0) return;
  std::printf("file:              %s\n", path.c_str());
  std::printf("format:            %s\n", format_name(format));
  std::printf("dimensions:        %d\n", ndims);
  std::printf("variables:         %d\n", nvars);
  std::printf("global attributes: %d\n", ngatts);
  std::printf("records:           %lld\n", static_cast<long long>(numrecs));
  std::printf("metadata bytes:    %lld (data from offset %lld)\n", static_cast<long long>(header),
              static_cast<long long>(extent));
  if (nblocks < 0) return;
  std::printf("metadata blocks:   %lld\n", static_cast<long long>(nblocks));
  if (!list_blocks) return;
  std::printf("%-40s %10s %10s %6s %14s %10s\n", "block", "dims", "vars", "atts", "offset", "bytes");
  std::vector<char> name(EXA_MAX_PATH + 1);
  for (MPI_Offset i = 0; i < nblocks; ++i) {
    MPI_Offset bd = 0, bv = 0, ba = 0, off = 0, size = 0;
    nc_check(exa_inq_block(ncid, i, name.data(), &bd, &bv, &ba, &off, &size), "exa_inq_block");
    std::printf("%-40s %10lld %10lld %6lld %14lld %10lld\n", name.data(), static_cast<long long>(bd),
                static_cast<long long>(bv), static_cast<long long>(ba), static_cast<long long>(off),
                static_cast<long long>(size));
  }
}

}  // namespace

int stat_main(int argc, char** argv) {
  bool list = false;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt(argc, argv, "b")) != -1;) {
    if (c == 'b') {
      list = true;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (optind != argc - 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int rank = 0;
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  const std::string path = argv[optind];
  int ncid = -1;
  try {
    nc_check(ncmpi_open(MPI_COMM_WORLD, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid), path);
    print_stats(ncid, path, list, rank);
    nc_check(ncmpi_close(ncid), "ncmpi_close");
  } catch (const NcError& e) {
    if (rank == 0) std::fprintf(stderr, "exacdf stat: %s\n", e.what());
    if (ncid >= 0) ncmpi_close(ncid);
    return 1;
  } catch (const std::exception& e) {  // e.g. no memory: an error, never a crash
    std::fprintf(stderr, "exacdf stat: %s: %s\n", path.c_str(), e.what());
    if (ncid >= 0) ncmpi_close(ncid);
    return 1;
  }
  return 0;
}

}  // namespace exa::tool
