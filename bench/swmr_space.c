/*
 * SWMR space over many commits (issue 19, refresh bound): one writer job
 * rewrites compact variables and commits COMMITS times (ncmpi_sync), with a
 * refresh bound BOUND seconds (exa_swmr_refresh_bound; 0: none, nothing is
 * reused), while this program's other ranks follow as SWMR readers with
 * the same bound (refresh, read every variable, check it). Every STEP commits rank 0
 * prints one JSON line: the file's size and the live size (4096 + the
 * blocks the current generation references, from exa_inq_block; the index
 * table, a few hundred bytes, is not counted).
 * Usage: mpiexec -n 1+R swmr_space FILE COMMITS BOUND [STEP]
 */
#include <exacdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define NV 8     /* compact variables /gK/v, in blocks of their own */
#define N 2048   /* ints each: 8 KiB */

static int rank;
#define ERR(call)                                                                     \
  do {                                                                                \
    int e_ = (call);                                                                  \
    if (e_ != NC_NOERR) {                                                             \
      fprintf(stderr, "rank %d line %d: %s\n", rank, __LINE__, ncmpi_strerror(e_));   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
    }                                                                                 \
  } while (0)

static int f(int var, int commit, int i) { return 1000000 * var + 100 * commit + i % 100; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 4) {
    if (rank == 0) fputs("usage: swmr_space FILE COMMITS BOUND [STEP]\n", stderr);
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1];
  const int commits = atoi(argv[2]), step = argc > 4 ? atoi(argv[4]) : 1000;
  MPI_Info info;
  MPI_Info_create(&info);
  if (atof(argv[3]) > 0) MPI_Info_set(info, "exa_swmr_refresh_bound", argv[3]);
  static int vals[N];
  int varid[NV];
  if (rank == 0) {
    int w, d;
    ERR(ncmpi_create(MPI_COMM_SELF, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | EXA_SWMR_WRITE, info, &w));
    ERR(ncmpi_def_dim(w, "n", N, &d));
    for (int k = 0; k < NV; k++) {
      char name[16];
      snprintf(name, sizeof name, "/g%d/v", k);
      ERR(ncmpi_def_var(w, name, NC_INT, 1, &d, &varid[k]));
    }
    ERR(ncmpi_enddef(w));
    MPI_Barrier(MPI_COMM_WORLD); /* the readers may open */
    double t0 = MPI_Wtime();
    for (int c = 1; c <= commits; c++) {
      /* one to three variables change per commit */
      for (int k = 0; k < NV; k++) {
        if ((c + k) % 3 != 0 && k != c % NV) continue;
        for (int i = 0; i < N; i++) vals[i] = f(k, c, i);
        ERR(ncmpi_put_var_int_all(w, varid[k], vals));
      }
      ERR(ncmpi_sync(w));
      if (c % step == 0 || c == 1) {
        struct stat st;
        MPI_Offset nblocks = 0, live = 4096;
        ERR(exa_inq_blocks(w, &nblocks));
        for (MPI_Offset b = 0; b < nblocks; b++) {
          MPI_Offset nd, nv, na, off, size;
          char bpath[1024];
          ERR(exa_inq_block(w, b, bpath, &nd, &nv, &na, &off, &size));
          live += size;
        }
        stat(path, &st);
        printf("{\"commit\": %d, \"bound_s\": %s, \"file_bytes\": %lld, \"live_bytes\": %lld, \"ratio\": %.3f, "
               "\"elapsed_s\": %.2f}\n",
               c, argv[3], (long long)st.st_size, (long long)live, (double)st.st_size / (double)live,
               MPI_Wtime() - t0);
        fflush(stdout);
      }
    }
    ERR(ncmpi_close(w));
    int done = 1;
    MPI_Request req; /* matches the readers' MPI_Ibcast (a blocking MPI_Bcast would not) */
    MPI_Ibcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    int r, done = 0, flag = 0;
    long long refreshes = 0, gen = 0, last = 0, expired = 0;
    MPI_Request req;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Ibcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    ERR(ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE | EXA_SWMR_READ, info, &r));
    while (!flag) {
      ERR(exa_refresh(r));
      ERR(exa_inq_generation(r, &gen, NULL));
      if (gen < last) {
        fprintf(stderr, "rank %d: generation went back\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      last = gen;
      /* every variable holds one commit's values, whole */
      for (int k = 0; k < NV; k++) {
        char name[16];
        int v;
        snprintf(name, sizeof name, "/g%d/v", k);
        /* a view older than the bound (this reader was descheduled): refresh */
        int e = ncmpi_inq_varid(r, name, &v);
        if (e == NC_NOERR) e = ncmpi_get_var_int_all(r, v, vals);
        if (e == NC_ECANTREAD) {
          expired++;
          break;
        }
        ERR(e);
        const int c = (vals[0] - 1000000 * k) / 100;
        for (int i = 0; i < N; i++)
          if (vals[i] != (vals[0] == NC_FILL_INT ? NC_FILL_INT : f(k, c, i))) {
            fprintf(stderr, "rank %d: torn value in /g%d/v[%d]\n", rank, k, i);
            MPI_Abort(MPI_COMM_WORLD, 4);
          }
      }
      refreshes++;
      usleep(1000);
      MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    }
    ERR(ncmpi_close(r));
    printf("{\"reader\": %d, \"refreshes\": %lld, \"expired_views\": %lld, \"last_generation\": %lld, \"torn\": 0}\n",
           rank, refreshes, expired, last);
  }
  MPI_Info_free(&info);
  MPI_Finalize();
  return 0;
}
