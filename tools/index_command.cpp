// `exacdf index build|drop|info FILE VAR [SPEC]`: the bitmap index of a
// variable (exa_index_create/_drop/_inq), kept in the sidecar FILE.exaidx.<varid>, or
// inside a partitioned file without records (opened for writing to build or drop it).
#include <exacdf.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "mpi_check.hpp"
#include "nc_error.hpp"
#include "subcommands.hpp"

namespace exa::tool {
namespace {

constexpr const char* kUsage =
    "usage: exacdf index build FILE VAR [SPEC]   build VAR's index (without SPEC: update it --\n"
    "                                            rebuild only stale, changed and new chunks --\n"
    "                                            or build it with bins=64 if there is none)\n"
    "       exacdf index drop FILE VAR           remove it\n"
    "       exacdf index info FILE VAR           whether it exists and is current, stale chunks\n"
    "  SPEC: bins=N (equal-weight, default 64) or edges=a,b,c; optionally ;chunk=ROWS\n";

void print_info(int ncid, int varid, const char* var, int rank) {
  int present = 0, current = 0, nbins = 0;
  MPI_Offset bytes = 0, nchunks = 0, nstale = 0, rebuilt = 0, kept = 0;
  nc_check(exa_index_inq(ncid, varid, &present, &current, &nbins, &bytes), "exa_index_inq");
  nc_check(exa_index_inq_chunks(ncid, varid, &nchunks, &nstale, &rebuilt, &kept), "exa_index_inq_chunks");
  if (rank != 0) return;
  if (!present) {
    std::printf("%s: no index\n", var);
    return;
  }
  std::printf("%s: index of %d bins, %lld bytes, %lld chunks, %s\n", var, nbins, static_cast<long long>(bytes),
              static_cast<long long>(nchunks),
              current ? (nstale ? "current but for stale chunks (queries test their values)" : "current")
                      : "stale (the file changed since it was built: queries scan; `index build` updates it)");
  if (current && nstale) std::printf("%s: %lld stale chunks\n", var, static_cast<long long>(nstale));
  if (rebuilt + kept > 0)
    std::printf("%s: this build made %lld chunks and kept %lld\n", var, static_cast<long long>(rebuilt),
                static_cast<long long>(kept));
}

}  // namespace

int index_main(int argc, char** argv) {
  if (argc < 4 || argc > 5 || (std::strcmp(argv[1], "build") != 0 && argc == 5)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string action = argv[1], path = argv[2], var = argv[3];
  const char* spec = argc == 5 ? argv[4] : "update";
  if (action != "build" && action != "drop" && action != "info") {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int rank = 0, ncid = -1;
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  try {
    nc_check(ncmpi_open(MPI_COMM_WORLD, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid), "ncmpi_open " + path);
    // A partitioned file keeps its indexes inside: opened for writing to build or drop one.
    int format = 0;
    nc_check(ncmpi_inq_format(ncid, &format), "ncmpi_inq_format");
    if (format == EXA_FORMAT_PARTITIONED_V1 && action != "info") {
      nc_check(ncmpi_close(ncid), "ncmpi_close");
      nc_check(ncmpi_open(MPI_COMM_WORLD, path.c_str(), NC_WRITE, MPI_INFO_NULL, &ncid), "ncmpi_open " + path);
    }
    int varid = -1;
    nc_check(ncmpi_inq_varid(ncid, var.c_str(), &varid), "variable " + var);
    if (action == "build") {
      const double t0 = MPI_Wtime();
      nc_check(exa_index_create(ncid, varid, spec), "exa_index_create");
      if (rank == 0) std::printf("built in %.3f s\n", MPI_Wtime() - t0);
      print_info(ncid, varid, var.c_str(), rank);
    } else if (action == "drop") {
      nc_check(exa_index_drop(ncid, varid), "exa_index_drop");
    } else {
      print_info(ncid, varid, var.c_str(), rank);
    }
    nc_check(ncmpi_close(ncid), "ncmpi_close");
  } catch (const NcError& e) {
    if (ncid >= 0) static_cast<void>(ncmpi_close(ncid));  // the error above is what is reported
    std::fprintf(stderr, "exacdf index: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace exa::tool
