/*
 * The user's MPI datatype of a flexible nonblocking call may be freed as soon
 * as the call returns (PnetCDF keeps what it needs: iput/bput data packed at
 * post, a reference to the type of an iget). iput/iget/bput and their varn
 * forms with derived buftypes with gaps, freed right after posting -- in
 * define mode too -- then waited for (collectively and independently),
 * cancelled, or left pending at close; every value read back.
 */
#include "mpi_test.h"

#define NX 8 /* elements per row; each rank owns row `rank` */

static int rank, nprocs;

/* NX ints, every other int of a 2*NX buffer. */
static MPI_Datatype every_other(MPI_Datatype base, int n) {
  MPI_Datatype t;
  MPI_Type_vector(n, 1, 2, base, &t);
  MPI_Type_commit(&t);
  return t;
}

/* NX ints in three blocks with gaps: [0,1] [4,5,6] [10,11,12]. */
static MPI_Datatype three_blocks(void) {
  int lens[3] = {2, 3, 3}, disps[3] = {0, 4, 10};
  MPI_Datatype t;
  MPI_Type_indexed(3, lens, disps, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}
static const int kBlockAt[NX] = {0, 1, 4, 5, 6, 10, 11, 12};

static int value(int var, int row, int i) { return 1000 * var + 100 * row + i; }

/* Checks row `rank` of variable `varid` (numbered `var` in value()). */
static void check_row(int ncid, int varid, int var) {
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, NX};
  int got[NX];
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, start, count, got));
  for (int i = 0; i < NX; i++) CHECK(got[i] == value(var, rank, i));
}

/* Posting in define mode: iput (vector of doubles into NC_INT), iput_varn
 * (indexed), bput_varn (vector), each type freed at once; wait after enddef. */
static void posted_in_define_mode(const char *path) {
  int ncid, dims[2], v[3], req[3], st[3];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "y", nprocs, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 2, dims, &v[0]));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 2, dims, &v[1]));
  CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 2, dims, &v[2]));

  double dbuf[2 * NX];
  int ibuf[13], cbuf[2 * NX];
  for (int i = 0; i < 2 * NX; i++) dbuf[i] = -1.0, cbuf[i] = -1;
  for (int i = 0; i < 13; i++) ibuf[i] = -1;
  for (int i = 0; i < NX; i++) {
    dbuf[2 * i] = value(0, rank, i);
    ibuf[kBlockAt[i]] = value(1, rank, i);
    cbuf[2 * i] = value(2, rank, i);
  }
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, NX};
  MPI_Datatype t = every_other(MPI_DOUBLE, NX);
  CHECK_OK(ncmpi_iput_vara(ncid, v[0], start, count, dbuf, (MPI_Offset)1, t, &req[0]));
  MPI_Type_free(&t);

  /* Two subarrays of the row: [0,3) and [3,8). */
  MPI_Offset s0[2] = {rank, 0}, c0[2] = {1, 3}, s1[2] = {rank, 3}, c1[2] = {1, NX - 3};
  MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
  t = three_blocks();
  CHECK_OK(ncmpi_iput_varn(ncid, v[1], 2, starts, counts, ibuf, (MPI_Offset)1, t, &req[1]));
  MPI_Type_free(&t);

  CHECK_OK(ncmpi_buffer_attach(ncid, NX * sizeof(int)));
  /* Two vectors of 4 elements each: bufcount 2. */
  MPI_Datatype four;
  MPI_Type_vector(4, 1, 2, MPI_INT, &four);
  MPI_Type_create_resized(four, 0, 8 * sizeof(int), &t);
  MPI_Type_free(&four);
  MPI_Type_commit(&t);
  CHECK_OK(ncmpi_bput_varn(ncid, v[2], 2, starts, counts, cbuf, (MPI_Offset)2, t, &req[2]));
  MPI_Type_free(&t);
  for (int i = 0; i < 2 * NX; i++) cbuf[i] = -7; /* a bput's buffer is free at once */

  int n = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &n));
  CHECK(n == 3);
  CHECK_ERR(ncmpi_wait_all(ncid, 3, req, st), NC_EINDEFINE);
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_wait_all(ncid, 3, req, st));
  for (int i = 0; i < 3; i++) CHECK(st[i] == NC_NOERR);
  CHECK_OK(ncmpi_buffer_detach(ncid));
  for (int k = 0; k < 3; k++) check_row(ncid, v[k], k);
  CHECK_OK(ncmpi_close(ncid));
}

/* Gets with freed types, posted in define mode (after a redef) and in data
 * mode; waited collectively and independently. The gaps keep their values. */
static void gets(const char *path) {
  int ncid, v[3], req[3], st[3];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  for (int k = 0; k < 3; k++) {
    char name[2] = {(char)('a' + k), 0};
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v[k]));
  }
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, NX};
  MPI_Offset s0[2] = {rank, 0}, c0[2] = {1, 5}, s1[2] = {rank, 5}, c1[2] = {1, NX - 5};
  MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
  double dbuf[2 * NX];
  int ibuf[13], jbuf[2 * NX];

  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 2 * NX; i++) dbuf[i] = -1.0, jbuf[i] = -1;
    for (int i = 0; i < 13; i++) ibuf[i] = -1;
    if (round == 0) CHECK_OK(ncmpi_redef(ncid)); /* first round: posted in define mode */
    MPI_Datatype t = every_other(MPI_DOUBLE, NX);
    CHECK_OK(ncmpi_iget_vara(ncid, v[0], start, count, dbuf, (MPI_Offset)1, t, &req[0]));
    MPI_Type_free(&t);
    t = three_blocks();
    CHECK_OK(ncmpi_iget_varn(ncid, v[1], 2, starts, counts, ibuf, (MPI_Offset)1, t, &req[1]));
    MPI_Type_free(&t);
    t = every_other(MPI_INT, NX);
    CHECK_OK(ncmpi_iget_vara(ncid, v[2], start, count, jbuf, (MPI_Offset)1, t, &req[2]));
    MPI_Type_free(&t);
    if (round == 0) {
      CHECK_OK(ncmpi_enddef(ncid));
      CHECK_OK(ncmpi_wait_all(ncid, 3, req, st));
    } else {
      CHECK_OK(ncmpi_begin_indep_data(ncid));
      CHECK_OK(ncmpi_wait(ncid, 3, req, st));
      CHECK_OK(ncmpi_end_indep_data(ncid));
    }
    for (int i = 0; i < 3; i++) CHECK(st[i] == NC_NOERR && req[i] == NC_REQ_NULL);
    for (int i = 0; i < NX; i++) {
      CHECK(dbuf[2 * i] == value(0, rank, i) && dbuf[2 * i + 1] == -1.0);
      CHECK(ibuf[kBlockAt[i]] == value(1, rank, i));
      CHECK(jbuf[2 * i] == value(2, rank, i) && jbuf[2 * i + 1] == -1);
    }
    CHECK(ibuf[2] == -1 && ibuf[3] == -1 && ibuf[7] == -1 && ibuf[8] == -1 && ibuf[9] == -1);
  }
  CHECK_OK(ncmpi_close(ncid));
}

/* Requests whose type was freed, then cancelled or left pending at close. */
static void cancelled_and_dropped(const char *path) {
  int ncid, v, req[2], st[2];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &v));
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, NX};
  int buf[2 * NX];
  for (int i = 0; i < 2 * NX; i++) buf[i] = -3;
  MPI_Datatype t = every_other(MPI_INT, NX);
  CHECK_OK(ncmpi_iget_vara(ncid, v, start, count, buf, (MPI_Offset)1, t, &req[0]));
  CHECK_OK(ncmpi_iput_vara(ncid, v, start, count, buf, (MPI_Offset)1, t, &req[1]));
  MPI_Type_free(&t);
  CHECK_OK(ncmpi_cancel(ncid, 2, req, st));
  CHECK(st[0] == NC_NOERR && st[1] == NC_NOERR);
  int n = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &n));
  CHECK(n == 0);
  for (int i = 0; i < 2 * NX; i++) CHECK(buf[i] == -3); /* nothing read */
  check_row(ncid, v, 0);                                  /* nothing written */

  t = every_other(MPI_INT, NX);
  CHECK_OK(ncmpi_iget_vara(ncid, v, start, count, buf, (MPI_Offset)1, t, &req[0]));
  MPI_Type_free(&t);
  CHECK_ERR(ncmpi_close(ncid), NC_EPENDING);
}

/* Blocking varn (collective and independent) with derived types freed after
 * the call; the values went through. */
static void blocking_varn(const char *path) {
  int ncid, v;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "b", &v));
  MPI_Offset s0[2] = {rank, 0}, c0[2] = {1, 4}, s1[2] = {rank, 4}, c1[2] = {1, NX - 4};
  MPI_Offset *starts[2] = {s0, s1}, *counts[2] = {c0, c1};
  int ibuf[13], got[13];
  for (int i = 0; i < 13; i++) ibuf[i] = -1, got[i] = -2;
  for (int i = 0; i < NX; i++) ibuf[kBlockAt[i]] = value(5, rank, i);
  MPI_Datatype t = three_blocks();
  CHECK_OK(ncmpi_put_varn_all(ncid, v, 2, starts, counts, ibuf, (MPI_Offset)1, t));
  MPI_Type_free(&t);
  t = three_blocks();
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_get_varn(ncid, v, 2, starts, counts, got, (MPI_Offset)1, t));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  MPI_Type_free(&t);
  for (int i = 0; i < NX; i++) CHECK(got[kBlockAt[i]] == value(5, rank, i));
  CHECK(got[2] == -2 && got[9] == -2);
  check_row(ncid, v, 5);
  CHECK_OK(ncmpi_close(ncid));
}

/* Out-of-range values: NC_ERANGE from the post (iput, bput, a vector type
 * freed at once), the request stands, completes without error and writes
 * the values that fit; blocking varn says NC_ERANGE too. */
static void out_of_range(const char *path) {
  int ncid, dims[2], v, req[2] = {NC_REQ_NULL, NC_REQ_NULL}, st[2] = {-1, -1};
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "y", nprocs, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_BYTE, 2, dims, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_buffer_attach(ncid, NX));
  int buf[2 * NX];
  for (int i = 0; i < 2 * NX; i++) buf[i] = i == 6 ? 300 : i;
  MPI_Offset s0[2] = {rank, 0}, c0[2] = {1, NX / 2}, s1[2] = {rank, NX / 2};
  MPI_Datatype t = every_other(MPI_INT, NX / 2);
  CHECK_ERR(ncmpi_iput_vara(ncid, v, s0, c0, buf, (MPI_Offset)1, t, &req[0]), NC_ERANGE);
  MPI_Type_free(&t);
  CHECK_ERR(ncmpi_bput_vara_int(ncid, v, s1, c0, buf + 3, &req[1]), NC_ERANGE);
  CHECK(req[0] != NC_REQ_NULL && req[1] != NC_REQ_NULL);
  CHECK_OK(ncmpi_wait_all(ncid, 2, req, st));
  CHECK(st[0] == NC_NOERR && st[1] == NC_NOERR);
  signed char got[NX];
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, NX};
  CHECK_OK(ncmpi_get_vara_schar_all(ncid, v, start, count, got));
  CHECK(got[0] == 0 && got[1] == 2 && got[2] == 4); /* got[3]: out of range */
  CHECK(got[4] == 3 && got[5] == 4 && got[6] == 5); /* got[7]: out of range */
  MPI_Offset *starts[1] = {s0}, *counts[1] = {c0};
  CHECK_ERR(ncmpi_put_varn_int_all(ncid, v, 1, starts, counts, buf + 3), NC_ERANGE);
  CHECK_OK(ncmpi_get_vara_schar_all(ncid, v, start, count, got));
  CHECK(got[0] == 3 && got[1] == 4 && got[2] == 5);
  int n = -1;
  CHECK_OK(ncmpi_inq_nreqs(ncid, &n));
  CHECK(n == 0);
  CHECK_OK(ncmpi_buffer_detach(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("nonblocking_types.nc"));
  posted_in_define_mode(path);
  gets(path);
  cancelled_and_dropped(path);
  blocking_varn(path);
  out_of_range(mpi_test_path("nonblocking_range.nc"));
  return mpi_test_finish();
}
