// `exacdf verify FILE`: opens the file -- which checks the superblocks,
// index table, block checksums and structure of a partitioned file, or the
// header of a classic one -- then reads every value of every variable (each
// rank its share). Prints OK, or what is wrong, and exits 1.
#include <exacdf.h>

#include <cstdio>
#include <string>

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
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const std::string path = argv[1];
  int ncid = -1, failed = 0;
  std::string what;
  // Collective calls stay matched across ranks whatever fails: a read error
  // is kept and the loop goes on to the collective end.
  int st = ncmpi_open(MPI_COMM_WORLD, path.c_str(), NC_NOWRITE, MPI_INFO_NULL, &ncid);
  if (st != NC_NOERR) {
    failed = 1;
    what = std::string("metadata: ") + ncmpi_strerror(st);
    ncid = -1;
  } else {
    int nvars = 0;
    ncmpi_inq_nvars(ncid, &nvars);
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
      }
      if (st != NC_NOERR && st != NC_ERANGE) {
        failed = 1;
        what = std::string("data of '") + name + "': " + ncmpi_strerror(st);
      }
    }
    ncmpi_end_indep_data(ncid);
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (ncid >= 0) ncmpi_close(ncid);
  if (failed) std::fprintf(stderr, "exacdf verify: %s: %s\n", path.c_str(), what.c_str());
  if (!any && rank == 0) std::printf("%s: OK\n", path.c_str());
  return any ? 1 : 0;
}

}  // namespace exa::tool
