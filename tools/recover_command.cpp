// `exacdf recover [--dir DIR] FILE...`: replays the cache connector's logs
// of each FILE into it (exa_cache_recover: manifests checked against the
// file, committed records in order, torn tails dropped, sync, logs removed;
// a log of another file or generation refused and kept). Rank 0 does the
// work; exit status 0 when every file was recovered (or had no logs).
#include <getopt.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "exacdf.h"
#include "subcommands.hpp"

namespace exa::tool {
namespace {

constexpr const char* kUsage =
    "usage: exacdf recover [--dir DIR] FILE...\n"
    "  replays the undrained cache logs of FILE (EXACDF_CONNECTORS=cache{...}) into it\n"
    "  --dir DIR   the cache tier (default /dev/shm/exacdf-cache-<uid>; cache{dir=...})\n";

}  // namespace

int recover_main(int argc, char** argv) {
  std::string dir;
  const option options[] = {{"dir", required_argument, nullptr, 'd'}, {nullptr, 0, nullptr, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "", options, nullptr)) != -1;) {
    if (c != 'd') {
      std::fputs(kUsage, stderr);
      return 2;
    }
    dir = optarg;
  }
  if (optind >= argc) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failed = 0;
  if (rank == 0) {
    for (int i = optind; i < argc; ++i) {
      std::vector<char> report(64 * 1024);
      const int err = exa_cache_recover(argv[i], dir.empty() ? nullptr : dir.c_str(), report.data(), report.size());
      if (err == NC_NOERR) {
        std::fputs(report.data(), stdout);
      } else {
        std::fprintf(stderr, "exacdf recover: %s: %s (%s)\n", argv[i], report.data(), ncmpi_strerror(err));
        failed = 1;
      }
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return failed;
}

}  // namespace exa::tool
