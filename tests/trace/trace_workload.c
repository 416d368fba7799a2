/*
 * trace_workload.c DIR NAME -- a known sequence of data calls for the trace
 * connector test (tests/trace/run_trace_test.py counts them in the report).
 * Per rank r of N, on int a(n), double b(n), int c(n), n = 100 N:
 *   put_vara_int_all  a[100r .. +100)                 400 B
 *   10 x put_var1_double (independent) b[100r+i]         8 B each
 *   3 x iput_vara_double b[100r+10+20i .. +5), wait_all  40 B each
 *   put_vars_int_all  c[100r ..] count 50 stride 2       200 B
 *   bput_var1_int c[100r+1], wait_all(NC_REQ_ALL)          4 B
 *   put_varn_int_all  c[100r+3], c[100r+5 .. +2)          12 B
 *   get_vara_int_all  a[100r .. +100)                    400 B (checked)
 *   iget_vara_int a[100r .. +50), wait_all               200 B (checked)
 */
#include "mpi_test.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: trace_workload DIR NAME\n");
    return 2;
  }
  mpi_test_init(&argc, &argv);
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const char* path = mpi_test_path(argv[2]);
  const MPI_Offset base = 100 * (MPI_Offset)rank;
  int ncid, dim, a, b, c;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", 100 * (MPI_Offset)nprocs, &dim));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 1, &dim, &a));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_DOUBLE, 1, &dim, &b));
  CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 1, &dim, &c));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 5, "trace"));
  CHECK_OK(ncmpi_enddef(ncid));

  int ints[100];
  for (int i = 0; i < 100; ++i) ints[i] = (int)(base + i);
  MPI_Offset start = base, count = 100, stride = 2;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, a, &start, &count, ints));

  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int i = 0; i < 10; ++i) {
    MPI_Offset at = base + i;
    double v = 0.5 * (double)(base + i);
    CHECK_OK(ncmpi_put_var1_double(ncid, b, &at, &v));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));

  double doubles[3][5];
  int reqs[3], statuses[3];
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 5; ++k) doubles[i][k] = (double)(base + 10 + 20 * i + k);
    MPI_Offset s = base + 10 + 20 * i, n = 5;
    CHECK_OK(ncmpi_iput_vara_double(ncid, b, &s, &n, doubles[i], &reqs[i]));
  }
  CHECK_OK(ncmpi_wait_all(ncid, 3, reqs, statuses));

  count = 50;
  CHECK_OK(ncmpi_put_vars_int_all(ncid, c, &start, &count, &stride, ints));

  CHECK_OK(ncmpi_buffer_attach(ncid, 1000));
  MPI_Offset one = base + 1;
  int bval = -1, breq;
  CHECK_OK(ncmpi_bput_var1_int(ncid, c, &one, &bval, &breq));
  CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  CHECK_OK(ncmpi_buffer_detach(ncid));

  MPI_Offset s0 = base + 3, n0 = 1, s1 = base + 5, n1 = 2;
  MPI_Offset* starts[2] = {&s0, &s1};
  MPI_Offset* counts[2] = {&n0, &n1};
  int three[3] = {-3, -5, -6};
  CHECK_OK(ncmpi_put_varn_int_all(ncid, c, 2, starts, counts, three));

  int back[100];
  count = 100;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, a, &start, &count, back));
  for (int i = 0; i < 100; ++i) CHECK(back[i] == ints[i]);
  int half[50], greq, gstatus;
  count = 50;
  CHECK_OK(ncmpi_iget_vara_int(ncid, a, &start, &count, half, &greq));
  CHECK_OK(ncmpi_wait_all(ncid, 1, &greq, &gstatus));
  for (int i = 0; i < 50; ++i) CHECK(half[i] == ints[i]);

  CHECK_OK(ncmpi_close(ncid));
  return mpi_test_finish();
}
