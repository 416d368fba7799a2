// `exacdf export-hdf5 SOURCE OUT.h5 [RELATION...]`: relations into an HDF5
// file for HDF5 users (libexacdf_hdf5, include/exacdf_hdf5.h). SOURCE is a
// netCDF file (every relation in it, or the ones named) or a checkpoint
// directory (every relation of its current checkpoint: latest full plus
// later deltas). Collective over the ranks of mpiexec. Exits 1 on an error,
// 2 on bad usage, and 1 with a message when exacdf was built without
// parallel HDF5.
#include <exacdf.h>
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "subcommands.hpp"

#if EXACDF_HAVE_HDF5_EXPORT
#include <exacdf_hdf5.h>
#endif

namespace exa::tool {
namespace {

#if EXACDF_HAVE_HDF5_EXPORT
bool is_directory(const char* path) {
  struct stat sb;
  return ::stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

// The relations of ncid (variables exa_relation_inq accepts), or those named.
std::vector<std::string> relations_of(int ncid, int argc, char** argv) {
  std::vector<std::string> names;
  for (int i = 3; i < argc; ++i) names.emplace_back(argv[i]);
  if (!names.empty()) return names;
  int nvars = 0;
  if (ncmpi_inq_nvars(ncid, &nvars) != NC_NOERR) return names;
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1] = {0};
    int arity = 0;
    MPI_Offset rows = 0;
    if (ncmpi_inq_varname(ncid, v, name) == NC_NOERR && exa_relation_inq(ncid, name, &arity, &rows) == NC_NOERR)
      names.emplace_back(name);
  }
  return names;
}

int export_file(const char* source, const char* out, int argc, char** argv, int rank) {
  int ncid = -1;
  int st = ncmpi_open(MPI_COMM_WORLD, source, NC_NOWRITE, MPI_INFO_NULL, &ncid);
  if (st != NC_NOERR) {
    if (rank == 0) std::fprintf(stderr, "exacdf export-hdf5: %s: %s\n", source, ncmpi_strerror(st));
    return 1;
  }
  const std::vector<std::string> names = relations_of(ncid, argc, argv);
  int append = 0;
  for (const std::string& name : names) {
    st = exa_relation_export_hdf5(ncid, name.c_str(), out, append);
    if (st != NC_NOERR) {
      if (rank == 0) std::fprintf(stderr, "exacdf export-hdf5: %s: %s\n", name.c_str(), ncmpi_strerror(st));
      break;
    }
    append = 1;
    if (rank == 0) std::printf("%s -> %s:/%s\n", name.c_str(), out, name.c_str());
  }
  const int closed = ncmpi_close(ncid);
  if (st == NC_NOERR && names.empty() && rank == 0) std::fprintf(stderr, "exacdf export-hdf5: no relation in %s\n", source);
  return st == NC_NOERR && closed == NC_NOERR && !names.empty() ? 0 : 1;
}
#endif

}  // namespace

int export_hdf5_main(int argc, char** argv) {
  if (argc < 3 || argv[1][0] == '-') {
    std::fputs("usage: exacdf export-hdf5 FILE.nc|CHECKPOINT_DIR OUT.h5 [RELATION...]\n", stderr);
    return 2;
  }
#if EXACDF_HAVE_HDF5_EXPORT
  int rank = 0;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) return 1;
  if (!is_directory(argv[1])) return export_file(argv[1], argv[2], argc, argv, rank);
  if (argc > 3) {
    if (rank == 0) std::fputs("exacdf export-hdf5: a checkpoint is exported whole\n", stderr);
    return 2;
  }
  const int st = exa_checkpoint_export_hdf5(MPI_COMM_WORLD, argv[1], argv[2]);
  if (st != NC_NOERR) {
    if (rank == 0) std::fprintf(stderr, "exacdf export-hdf5: %s: %s\n", argv[1], ncmpi_strerror(st));
    return 1;
  }
  if (rank == 0) std::printf("checkpoint %s -> %s\n", argv[1], argv[2]);
  return 0;
#else
  std::fputs("exacdf export-hdf5: this exacdf was built without parallel HDF5 (libexacdf_hdf5)\n", stderr);
  return 1;
#endif
}

}  // namespace exa::tool
