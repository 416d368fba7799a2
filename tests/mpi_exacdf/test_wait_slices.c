/* An independent wait whose puts flatten to more segments than exacdf sorts
 * at once (its staged write sorts a few whole requests at a time, 65,536
 * segments or more): requests that overlap inside one slice and across
 * slices still end as the later posting says (exacdf's rule for overlapping
 * puts of one wait), every rank on its own variable. Request A writes every
 * element, in reverse order (so its segments must be sorted); B, posted
 * next, the even ones; C, posted last and sorted in a slice of its own, every
 * third. */
#include <stdlib.h>

#include "mpi_test.h"

#define N 50000

static int expected(int i) { return i % 3 == 0 ? 2000000 + i : i % 2 == 0 ? 1000000 + i : i; }

/* One varn put of the elements `idx[0..n)` of var `v`, values `val(idx)`. */
static void post(int ncid, int v, const int *idx, int n, int base, MPI_Offset *offs, MPI_Offset **starts,
                 MPI_Offset **counts, MPI_Offset *one, int *vals, int *req) {
  for (int k = 0; k < n; ++k) {
    offs[k] = idx[k];
    starts[k] = &offs[k];
    counts[k] = one;
    vals[k] = base + idx[k];
  }
  CHECK_OK(ncmpi_iput_varn_int(ncid, v, n, starts, counts, vals, req));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("wait_slices.nc");
  int *idx = malloc(sizeof(int) * N), *got = malloc(sizeof(int) * N);
  int *vals[3] = {malloc(sizeof(int) * N), malloc(sizeof(int) * N), malloc(sizeof(int) * N)};
  MPI_Offset *offs[3] = {malloc(sizeof(MPI_Offset) * N), malloc(sizeof(MPI_Offset) * N),
                         malloc(sizeof(MPI_Offset) * N)};
  MPI_Offset **starts[3], **counts[3], one = 1;
  for (int r = 0; r < 3; ++r) {
    starts[r] = malloc(sizeof(MPI_Offset *) * N);
    counts[r] = malloc(sizeof(MPI_Offset *) * N);
  }

  int ncid, dim, var[64];
  CHECK(nprocs <= 64);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", N, &dim));
  for (int r = 0; r < nprocs; ++r) {
    char name[16];
    snprintf(name, sizeof name, "v%d", r);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &dim, &var[r]));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  const int v = var[rank];
  int req[3], st[3], n = 0;
  for (int i = N - 1; i >= 0; --i) idx[n++] = i;
  post(ncid, v, idx, n, 0, offs[0], starts[0], counts[0], &one, vals[0], &req[0]);
  n = 0;
  for (int i = 0; i < N; i += 2) idx[n++] = i;
  post(ncid, v, idx, n, 1000000, offs[1], starts[1], counts[1], &one, vals[1], &req[1]);
  n = 0;
  for (int i = 0; i < N; i += 3) idx[n++] = i;
  post(ncid, v, idx, n, 2000000, offs[2], starts[2], counts[2], &one, vals[2], &req[2]);
  CHECK_OK(ncmpi_wait(ncid, 3, req, st));
  for (int r = 0; r < 3; ++r) CHECK(st[r] == NC_NOERR);
  MPI_Offset start = 0, count = N;
  CHECK_OK(ncmpi_get_vara_int(ncid, v, &start, &count, got));
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += got[i] != expected(i);
  CHECK(bad == 0);
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));

  /* Every rank's variable, as another process reads it. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  for (int r = 0; r < nprocs; ++r) {
    CHECK_OK(ncmpi_get_vara_int_all(ncid, var[r], &start, &count, got));
    bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != expected(i);
    CHECK(bad == 0);
  }
  CHECK_OK(ncmpi_close(ncid));
  for (int r = 0; r < 3; ++r) {
    free(vals[r]);
    free(offs[r]);
    free(starts[r]);
    free(counts[r]);
  }
  free(idx);
  free(got);
  return mpi_test_finish();
}
