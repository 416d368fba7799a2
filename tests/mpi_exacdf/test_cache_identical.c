/* The cache connector writes files byte for byte as native does: the same
 * program (collective and independent puts, overlapping writes, strides,
 * records that grow, write-through of calls the log does not take and of a
 * put larger than the ring, NC_ERANGE, flexible API, nonblocking requests,
 * reads of data still in the log) writes one file through native and one
 * through cache with a small ring (wraps and back-pressure), under several
 * settings; the files must be equal and no log may remain after close.
 * test_cache_mover.c runs the same with MPI_THREAD_MULTIPLE (the mover thread). */
#include <dirent.h>

#include "mpi_test.h"

#ifndef CACHE_TEST_THREADS
#define CACHE_TEST_THREADS 0
#endif

enum { NX = 8, NY = 300, NSTEPS = 3 };

static void write_dataset(const char *path, const char *connectors) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_connectors", connectors);
  int ncid, dx, dy, drec, va, vb, vr, vs, vt, vbig;
  const int nx = NX * mpi_test_nprocs, me = mpi_test_rank;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "rec", NC_UNLIMITED, &drec));
  CHECK_OK(ncmpi_def_dim(ncid, "x", nx, &dx));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dy));
  int d2[2] = {dx, dy}, dr[2] = {drec, dx};
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dx, &va));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_DOUBLE, 2, d2, &vb));
  CHECK_OK(ncmpi_def_var(ncid, "r", NC_FLOAT, 2, dr, &vr));
  CHECK_OK(ncmpi_def_var(ncid, "s", NC_SHORT, 1, &dx, &vs));
  CHECK_OK(ncmpi_def_var(ncid, "t", NC_CHAR, 1, &dx, &vt));
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_DOUBLE, 2, d2, &vbig));
  CHECK_OK(ncmpi_enddef(ncid));

  MPI_Offset start[2] = {(MPI_Offset)me * NX, 0}, count[2] = {NX, NY};
  int ia[NX];
  for (int i = 0; i < NX; ++i) ia[i] = 100 * me + i;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, va, start, count, ia));
  /* b row by row (2.4 KB each): many records, the ring wraps. */
  double row[NY];
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < NX; ++i) {
      MPI_Offset s2[2] = {(MPI_Offset)me * NX + i, 0}, c2[2] = {1, NY};
      for (int j = 0; j < NY; ++j) row[j] = rep * 1e6 + me * 1e4 + i * 1e3 + j;
      CHECK_OK(ncmpi_put_vara_double_all(ncid, vb, s2, c2, row));
    }
  }
  /* Overlap: the later put wins; a stride over a's even elements. */
  int over[NX / 2], ones[NX / 2];
  for (int i = 0; i < NX / 2; ++i) over[i] = -1 - i, ones[i] = 7;
  MPI_Offset s1 = (MPI_Offset)me * NX, c1 = NX / 2, st1 = 2;
  CHECK_OK(ncmpi_put_vars_int_all(ncid, va, &s1, &c1, &st1, ones));
  CHECK_OK(ncmpi_put_vara_int_all(ncid, va, &s1, &c1, over));
  /* A put larger than the ring: written through, in order. */
  double *bigbuf = malloc(sizeof(double) * NX * NY);
  for (int i = 0; i < NX * NY; ++i) bigbuf[i] = me + i * 0.5;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, vbig, start, count, bigbuf));
  /* Records: each step grows the record count (agreed by every rank). */
  for (int step = 0; step < NSTEPS; ++step) {
    float fr[NX];
    for (int i = 0; i < NX; ++i) fr[i] = (float)(step * 10 + me + i * 0.25);
    MPI_Offset rs[2] = {step, (MPI_Offset)me * NX}, rc[2] = {1, NX};
    CHECK_OK(ncmpi_put_vara_float_all(ncid, vr, rs, rc, fr));
    MPI_Offset nrec = -1;
    CHECK_OK(ncmpi_inq_dimlen(ncid, drec, &nrec));
    CHECK(nrec == step + 1);
  }
  /* NC_ERANGE told at the put; the fill value is written. */
  int wide[NX];
  for (int i = 0; i < NX; ++i) wide[i] = i == 3 ? 40000 : i - me;
  CHECK_ERR(ncmpi_put_vara_int_all(ncid, vs, start, count, wide), NC_ERANGE);
  /* Flexible API, and a var1 (written through). */
  char text[NX];
  for (int i = 0; i < NX; ++i) text[i] = (char)('a' + (me + i) % 26);
  CHECK_OK(ncmpi_put_vara_all(ncid, vt, start, count, text, NX, MPI_CHAR));
  short one = 12;
  MPI_Offset pos = (MPI_Offset)me * NX + 1;
  CHECK_OK(ncmpi_put_var1_short_all(ncid, vs, &pos, &one));
  /* A program reads its own writes (still in the log). */
  double back[NX * NY];
  CHECK_OK(ncmpi_get_vara_double_all(ncid, vb, start, count, back));
  int wrong = 0;
  for (int i = 0; i < NX; ++i)
    for (int j = 0; j < NY; ++j) wrong += back[i * NY + j] != 2e6 + me * 1e4 + i * 1e3 + j;
  CHECK(wrong == 0);
  /* Independent mode, then nonblocking requests. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  int ind = 5000 + me;
  MPI_Offset p2 = (MPI_Offset)me * NX + NX - 1, c2 = 1;
  CHECK_OK(ncmpi_put_vara_int(ncid, va, &p2, &c2, &ind));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  int req, status;
  double nb[NY];
  for (int j = 0; j < NY; ++j) nb[j] = -j;
  MPI_Offset s3[2] = {(MPI_Offset)me * NX + 2, 0}, c3[2] = {1, NY};
  CHECK_OK(ncmpi_iput_vara_double(ncid, vb, s3, c3, nb, &req));
  CHECK_OK(ncmpi_wait_all(ncid, 1, &req, &status));
  CHECK_OK(status);
  free(bigbuf);
  CHECK_OK(ncmpi_close(ncid));
}

static long file_size(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static int same_bytes(const char *p, const char *q) {
  FILE *a = fopen(p, "rb"), *b = fopen(q, "rb");
  int same = a && b;
  while (same) {
    int ca = fgetc(a), cb = fgetc(b);
    if (ca != cb) same = 0;
    if (ca == EOF || cb == EOF) break;
  }
  if (a) fclose(a);
  if (b) fclose(b);
  return same;
}

static int count_logs(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += strstr(e->d_name, ".log") != NULL;
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
#if CACHE_TEST_THREADS
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_test_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_test_nprocs);
  if (argc > 1) snprintf(mpi_test_dir, sizeof mpi_test_dir, "%s", argv[1]);
  if (mpi_test_rank == 0) mkdir(mpi_test_dir, 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  (void)mpi_test_init;
#else
  mpi_test_init(&argc, &argv);
#endif
  char dir[1200], native[1200];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("tier"));
  snprintf(native, sizeof native, "%s", mpi_test_path("native.nc"));
  write_dataset(native, "native");
  const char *settings[] = {"size=40K", "size=40K;drain=close", "size=64K;durable=node;drain=manual",
                            "size=1M"};
  for (int k = 0; k < 4; ++k) {
    char spec[1400], path[1200];
    snprintf(spec, sizeof spec, "cache{dir=%s;%s}", dir, settings[k]);
    snprintf(path, sizeof path, "%s", mpi_test_path("cached.nc"));
    write_dataset(path, spec);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mpi_test_rank == 0) {
      CHECK(file_size(path) == file_size(native));
      if (!same_bytes(path, native)) {
        fprintf(stderr, "cache{%s} wrote a file unlike native's\n", settings[k]);
        mpi_test_failures++;
      }
      CHECK(count_logs(dir) == 0);
    }
  }
  return mpi_test_finish();
}
