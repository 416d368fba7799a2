// `exacdf query [-n N] [-v VAR] FILE 'EXPR'`: counts the elements where EXPR
// holds (exa_query_parse, exa_query_eval over all ranks) and prints the
// first N hits' coordinates (and VAR's values there).
#include <exacdf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "nc_error.hpp"
#include "subcommands.hpp"

namespace exa::tool {
namespace {

constexpr const char* kUsage =
    "usage: exacdf query [-n N] [-v VAR] FILE 'EXPR'\n"
    "  EXPR: comparisons (== != < <= > >=) of variables with numbers, and/or/not, ( )\n"
    "        e.g. 'energy > 1.9 and x < 0.5'\n"
    "  -n N    print the first N hits (default 10)\n"
    "  -v VAR  print VAR's value at each printed hit\n";

struct Options {
  long long first = 10;
  std::string var;
};

void run(int ncid, const char* text, const Options& o, int rank, int nprocs) {
  int qid = -1, ndims = 0;
  nc_check(exa_query_parse(ncid, text, &qid), "query");
  nc_check(exa_query_inq(qid, &ndims), "exa_query_inq");
  MPI_Offset nhits = 0;
  const double t0 = MPI_Wtime();
  nc_check(exa_query_eval(ncid, qid, nullptr, nullptr, &nhits), "exa_query_eval");
  const double t = MPI_Wtime() - t0;
  long long mine = nhits, total = 0;
  mpi_check(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  std::vector<double> values(static_cast<size_t>(nhits) + 1);
  if (!o.var.empty()) {
    int varid = -1;
    nc_check(ncmpi_inq_varid(ncid, o.var.c_str(), &varid), "variable " + o.var);
    nc_check(exa_query_get(ncid, qid, varid, values.data(), NC_DOUBLE), "exa_query_get");
  }
  // Each rank's first hits to rank 0, which prints the first N in rank
  // order (= row-major order: ranks hold consecutive rows).
  const int keep = static_cast<int>(std::min<long long>(nhits, o.first));
  const int width = ndims > 0 ? ndims : 1;
  std::vector<MPI_Offset> coords(static_cast<size_t>(keep) * static_cast<size_t>(width) + 1);
  nc_check(exa_query_hits(ncid, qid, keep, coords.data()), "exa_query_hits");
  std::vector<int> keeps(static_cast<size_t>(nprocs)), cdispl(static_cast<size_t>(nprocs)),
      ccount(static_cast<size_t>(nprocs)), vdispl(static_cast<size_t>(nprocs));
  mpi_check(MPI_Gather(&keep, 1, MPI_INT, keeps.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  int ctotal = 0, vtotal = 0;
  for (int r = 0; r < nprocs; ++r) {
    ccount[static_cast<size_t>(r)] = keeps[static_cast<size_t>(r)] * width;
    cdispl[static_cast<size_t>(r)] = ctotal;
    vdispl[static_cast<size_t>(r)] = vtotal;
    ctotal += ccount[static_cast<size_t>(r)];
    vtotal += keeps[static_cast<size_t>(r)];
  }
  std::vector<MPI_Offset> all_coords(static_cast<size_t>(ctotal) + 1);
  std::vector<double> all_values(static_cast<size_t>(vtotal) + 1);
  mpi_check(MPI_Gatherv(coords.data(), keep * width, MPI_OFFSET, all_coords.data(), ccount.data(),
                        cdispl.data(), MPI_OFFSET, 0, MPI_COMM_WORLD),
            "MPI_Gatherv");
  mpi_check(MPI_Gatherv(values.data(), keep, MPI_DOUBLE, all_values.data(), keeps.data(), vdispl.data(),
                        MPI_DOUBLE, 0, MPI_COMM_WORLD),
            "MPI_Gatherv");
  if (rank == 0) {
    std::printf("hits: %lld (%.3f s on %d rank%s)\n", total, t, nprocs, nprocs == 1 ? "" : "s");
    for (long long i = 0; i < std::min<long long>(vtotal, o.first); ++i) {
      std::printf("  (");
      for (int d = 0; d < ndims; ++d)
        std::printf("%s%lld", d ? ", " : "", static_cast<long long>(all_coords[static_cast<size_t>(i * width + d)]));
      if (o.var.empty())
        std::printf(")\n");
      else
        std::printf(")  %s = %.9g\n", o.var.c_str(), all_values[static_cast<size_t>(i)]);
    }
  }
  nc_check(exa_query_free(qid), "exa_query_free");
}

}  // namespace

int query_main(int argc, char** argv) {
  Options o;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt(argc, argv, "n:v:")) != -1;) {
    if (c == 'n') {
      char* end = nullptr;
      o.first = std::strtoll(optarg, &end, 10);
      if (*end != '\0' || o.first < 0) {
        std::fputs(kUsage, stderr);
        return 2;
      }
    } else if (c == 'v') {
      o.var = optarg;
    } else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (optind != argc - 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  int rank = 0, nprocs = 1, ncid = -1;
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");
  try {
    nc_check(ncmpi_open(MPI_COMM_WORLD, argv[optind], NC_NOWRITE, MPI_INFO_NULL, &ncid),
             std::string("ncmpi_open ") + argv[optind]);
    run(ncid, argv[optind + 1], o, rank, nprocs);
    nc_check(ncmpi_close(ncid), "ncmpi_close");
  } catch (const NcError& e) {
    if (ncid >= 0) static_cast<void>(ncmpi_close(ncid));  // the error above is what is reported
    std::fprintf(stderr, "exacdf query: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace exa::tool
