// `exacdf verify FILE`: opens the file -- which checks the superblocks,
// index table, block checksums and structure of a partitioned file, or the
// header of a classic one -- then reads every value of every variable (each
// rank its share). Prints OK (with the generation checked, for a partitioned
// file), or what is wrong, and exits 1. A partitioned file whose newest
// generation is damaged or incomplete (a crash or a full disk while it was
// committed look the same as later damage) opens at the previous one: if
// that one is sound, verify prints a warning naming both and exits 3.
// A data section shorter than the header describes is wrong (checked
// before any data is read).
#include <exacdf.h>

#include <cstdio>
#include <exception>
#include <string>

#include "data_extent.hpp"
#include "mpi_check.hpp"
#include "nc_error.hpp"
#include "subcommands.hpp"
#include "var_slabs.hpp"

namespace exa::tool {

int verify_main(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    std::fputs("usage: exacdf verify FILE\n", stderr);
    return 2;
  }
  int rank = 0, nprocs = 1;
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
  const std::string path = argv[1];
  int ncid = -1, failed = 0, newer_damaged = 0;
  long long generation = 0;
  std::string what;
  // Collective calls stay matched across ranks whatever fails: a read error
  // is kept and the loop goes on to the collective end.
  int st = ncmpi_open(MPI_COMM_WORLD, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid);
  if (st != NC_NOERR) {
    failed = 1;
    what = std::string("metadata: ") + ncmpi_strerror(st);
    ncid = -1;
  } else {
    if (exa_inq_generation(ncid, &generation, &newer_damaged) != NC_NOERR) generation = -1;  // classic
    // The data the header describes must exist before it is read: bounded
    // work, and a truncated data section is reported instead of read as zeros.
    try {
      const DataExtent extent = data_extent(ncid, path);
      if (extent.short_data()) {
        failed = 1;
        what = "data section shorter than the header describes (" + extent.describe() +
               "): truncated, or data never written";
      }
    } catch (const NcError& e) {
      failed = 1;
      what = std::string("metadata: ") + e.what();
    }
    int nvars = 0;
    if (ncmpi_inq_nvars(ncid, &nvars) != NC_NOERR) nvars = 0;
    ncmpi_begin_indep_data(ncid);
    for (int v = 0; v < nvars && !failed; ++v) {
      char name[EXA_MAX_PATH + NC_MAX_NAME + 2] = "";
      ncmpi_inq_varname(ncid, v, name);
      try {
        VarShape vs = var_shape(ncid, v);
        st = for_each_slab(ncid, v, vs, size_t(64) << 20, rank, nprocs,
                           [](const MPI_Offset*, const MPI_Offset*, const void*) { return NC_NOERR; });
      } catch (const NcError& e) {
        st = e.code();
      } catch (const std::exception&) {  // e.g. no memory for a slab
        st = NC_ENOMEM;
      }
      if (st != NC_NOERR && st != NC_ERANGE) {
        failed = 1;
        what = std::string("data of '") + name + "': " + ncmpi_strerror(st);
      }
    }
    ncmpi_end_indep_data(ncid);
  }
  int any = 0;
  mpi_check(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  if (ncid >= 0) ncmpi_close(ncid);
  if (failed) std::fprintf(stderr, "exacdf verify: %s: %s\n", path.c_str(), what.c_str());
  if (any) return 1;
  if (rank == 0 && generation >= 0) std::printf("%s: OK (generation %lld)\n", path.c_str(), generation);
  if (rank == 0 && generation < 0) std::printf("%s: OK\n", path.c_str());
  if (newer_damaged && rank == 0)
    std::fprintf(stderr,
                 "exacdf verify: %s: warning: a newer generation than %lld is damaged or incomplete (a crash, "
                 "a full disk or damage); generation %lld was checked\n",
                 path.c_str(), generation, generation);
  return newer_damaged ? 3 : 0;
}

}  // namespace exa::tool
