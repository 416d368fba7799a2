/* Writes at byte offsets (the numrecs field, the header after a redef, data
 * moved by a growing header, fill of a new record) after collective data
 * calls that leave a non-trivial file view (strided subarrays, varn, vard,
 * a nonblocking aggregate): every byte lands where it belongs. Checked by
 * reading back after reopening and by the numrecs field's bytes on disk. */
#include <stdio.h>

#include "mpi_test.h"

#define PER 6

/* The numrecs field (big-endian, 4 bytes in CDF-1/2) as on disk. */
static long long numrecs_on_disk(const char *path) {
  unsigned char b[8] = {0};
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  size_t got = fread(b, 1, 8, f);
  fclose(f);
  if (got != 8) return -1;
  return ((long long)b[4] << 24) | ((long long)b[5] << 16) | ((long long)b[6] << 8) | (long long)b[7];
}

static int value_of(int rec, int i) { return 1000 * rec + i; }

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("view_then_bytes.nc");
  const MPI_Offset n = (MPI_Offset)PER * nprocs;
  int ncid, dims[2], fixed, rec, extra;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", n, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "fixed", NC_INT, 1, &dims[1], &fixed));
  CHECK_OK(ncmpi_def_var(ncid, "rec", NC_INT, 2, dims, &rec));
  CHECK_OK(ncmpi_enddef(ncid));

  /* Rank r owns every nprocs-th element of x from r: a strided view. */
  int buf[PER];
  MPI_Offset start = rank, count = PER, stride = nprocs;
  for (int i = 0; i < PER; ++i) buf[i] = value_of(0, rank + i * nprocs);
  CHECK_OK(ncmpi_put_vars_int_all(ncid, fixed, &start, &count, &stride, buf));

  /* Record 0 by strided put (grows numrecs: rank 0 writes the field). */
  MPI_Offset rs[2] = {0, rank}, rc[2] = {1, PER}, rst[2] = {1, nprocs};
  for (int i = 0; i < PER; ++i) buf[i] = value_of(1, rank + i * nprocs);
  CHECK_OK(ncmpi_put_vars_int_all(ncid, rec, rs, rc, rst, buf));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK(numrecs_on_disk(path) == 1);

  /* Record 1 by varn (two pieces per rank), record 2 by vard. */
  MPI_Offset s0[2] = {1, (MPI_Offset)PER * rank}, s1[2] = {1, (MPI_Offset)PER * rank + 2};
  MPI_Offset c0[2] = {1, 2}, c1[2] = {1, PER - 2};
  MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
  for (int i = 0; i < PER; ++i) buf[i] = value_of(2, PER * rank + i);
  CHECK_OK(ncmpi_put_varn_int_all(ncid, rec, 2, starts, counts, buf));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK(numrecs_on_disk(path) == 2);

  /* vard: the filetype is relative to the variable's begin; record 2 starts
   * two record sizes later (one record holds x of rec only: recsize = n ints). */
  MPI_Datatype ftype;
  int sizes[1] = {(int)(3 * n)}, subs[1] = {PER}, offs[1] = {(int)(2 * n + PER * rank)};
  MPI_Type_create_subarray(1, sizes, subs, offs, MPI_ORDER_C, MPI_INT, &ftype);
  MPI_Type_commit(&ftype);
  for (int i = 0; i < PER; ++i) buf[i] = value_of(3, PER * rank + i);
  CHECK_OK(ncmpi_put_vard_all(ncid, rec, ftype, buf, PER, MPI_INT));
  MPI_Type_free(&ftype);
  CHECK_OK(ncmpi_sync(ncid));
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == 3);

  /* Record 3 by a nonblocking aggregate (two iputs per rank), then a
   * record left to the fill value (record 4 grows numrecs by put of record 5). */
  int req[2], st[2];
  MPI_Offset a0[2] = {3, rank}, a1[2] = {3, rank + nprocs * 3}, ac[2] = {1, 3}, as[2] = {1, nprocs};
  int lo[3], hi[3];
  for (int i = 0; i < 3; ++i) {
    lo[i] = value_of(4, rank + i * nprocs);
    hi[i] = value_of(4, rank + (i + 3) * nprocs);
  }
  CHECK_OK(ncmpi_iput_vars_int(ncid, rec, a0, ac, as, lo, &req[0]));
  CHECK_OK(ncmpi_iput_vars_int(ncid, rec, a1, ac, as, hi, &req[1]));
  CHECK_OK(ncmpi_wait_all(ncid, 2, req, st));
  CHECK(st[0] == NC_NOERR && st[1] == NC_NOERR);
  MPI_Offset r5[2] = {5, rank}, r5c[2] = {1, PER};
  for (int i = 0; i < PER; ++i) buf[i] = value_of(6, rank + i * nprocs);
  CHECK_OK(ncmpi_put_vars_int_all(ncid, rec, r5, r5c, rst, buf));
  CHECK_OK(ncmpi_fill_var_rec(ncid, rec, 4));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK(numrecs_on_disk(path) == 6);

  /* Independent mode after all that: a strided put, then back. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  if (rank == 0) {
    MPI_Offset is[2] = {6, 0}, ic[2] = {1, n / 2}, ist[2] = {1, 2};
    int *ib = malloc(sizeof(int) * (size_t)(n / 2));
    for (int i = 0; i < n / 2; ++i) ib[i] = value_of(7, 2 * i);
    CHECK_OK(ncmpi_put_vars_int(ncid, rec, is, ic, ist, ib));
    free(ib);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));

  /* A strided get leaves its view too; then redef grows the header past the
   * data, which moves, and enddef writes the new header. */
  CHECK_OK(ncmpi_get_vars_int_all(ncid, fixed, &start, &count, &stride, buf));
  for (int i = 0; i < PER; ++i) CHECK(buf[i] == value_of(0, rank + i * nprocs));
  /* A collective get in which the last rank selects nothing: its view is
   * plain bytes while the others' is not, and the redef below must still
   * restore the byte view on every rank alike. */
  MPI_Offset none = rank == nprocs - 1 ? 0 : PER;
  for (int i = 0; i < PER; ++i) buf[i] = -1;
  CHECK_OK(ncmpi_get_vars_int_all(ncid, fixed, &start, &none, &stride, buf));
  for (int i = 0; i < PER; ++i) CHECK(buf[i] == (none ? value_of(0, rank + i * nprocs) : -1));
  for (int i = 0; i < PER; ++i) buf[i] = value_of(0, rank + i * nprocs);
  CHECK_OK(ncmpi_redef(ncid));
  char text[2048];
  memset(text, 'a', sizeof text);
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "padding", sizeof text, text));
  CHECK_OK(ncmpi_def_var(ncid, "extra", NC_INT, 1, &dims[1], &extra));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_put_vars_int_all(ncid, extra, &start, &count, &stride, buf));
  CHECK_OK(ncmpi_close(ncid));

  /* Everything where it belongs. */
  if (rank == 0) CHECK(numrecs_on_disk(path) == 7);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_dimlen(ncid, dims[0], &nrec));
  CHECK(nrec == 7);
  int *all = malloc(sizeof(int) * (size_t)(7 * n));
  MPI_Offset zero = 0, zz[2] = {0, 0}, whole[2] = {7, n};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, fixed, &zero, &n, all));
  for (int i = 0; i < n; ++i) CHECK(all[i] == value_of(0, i));
  CHECK_OK(ncmpi_get_vara_int_all(ncid, extra, &zero, &n, all));
  for (int i = 0; i < n; ++i) CHECK(all[i] == value_of(0, i));
  CHECK_OK(ncmpi_get_vara_int_all(ncid, rec, zz, whole, all));
  for (int r = 0; r < 7; ++r)
    for (int i = 0; i < n; ++i) {
      if (r == 6 && i % 2) continue;  /* never written: records are not filled on growth */
      const int want = r == 4 ? NC_FILL_INT : r == 5 ? value_of(6, i) : r == 6 ? value_of(7, i) : value_of(r + 1, i);
      CHECK(all[r * n + i] == want);
    }
  free(all);
  char got[2048];
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "padding", got));
  CHECK(memcmp(got, text, sizeof got) == 0);
  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
