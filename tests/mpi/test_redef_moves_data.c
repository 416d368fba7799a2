/* Redef that grows the header and adds variables: existing fixed and record
 * data move (in parallel) to their new offsets and read back intact; new
 * variables get fill values when fill mode is on. */
#include "mpi_test.h"

#define N 96     /* elements of the fixed variable, split over ranks */
#define NREC 3   /* records written before redef */
#define RX 8     /* elements per record */

static void my_part(MPI_Offset total, MPI_Offset *start, MPI_Offset *count) {
  *start = total * mpi_test_rank / mpi_test_nprocs;
  *count = total * (mpi_test_rank + 1) / mpi_test_nprocs - *start;
}

static void check_old_data(int ncid) {
  int vfix, vrec;
  CHECK_OK(ncmpi_inq_varid(ncid, "fixed", &vfix));
  CHECK_OK(ncmpi_inq_varid(ncid, "rec", &vrec));
  int buf[N];
  MPI_Offset start = 0, count = N;
  CHECK_OK(ncmpi_get_vara_int_all(ncid, vfix, &start, &count, buf));
  for (int i = 0; i < N; i++) CHECK(buf[i] == 1000 + i);
  double rbuf[NREC * RX];
  MPI_Offset rs[2] = {0, 0}, rc[2] = {NREC, RX};
  CHECK_OK(ncmpi_get_vara_double_all(ncid, vrec, rs, rc, rbuf));
  for (int i = 0; i < NREC * RX; i++) CHECK(rbuf[i] == 0.5 * i);
}

static void run(int cmode, const char *file, MPI_Info info) {
  const char *path = mpi_test_path(file);
  int ncid, dn, dt, dx, vfix, vrec, v2, vrec2, dims[2];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, cmode, info, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &dn));
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_dim(ncid, "x", RX, &dx));
  CHECK_OK(ncmpi_def_var(ncid, "fixed", NC_INT, 1, &dn, &vfix));
  dims[0] = dt; dims[1] = dx;
  CHECK_OK(ncmpi_def_var(ncid, "rec", NC_DOUBLE, 2, dims, &vrec));
  CHECK_OK(ncmpi_enddef(ncid));

  MPI_Offset start, count;
  my_part(N, &start, &count);
  int buf[N];
  for (MPI_Offset i = 0; i < count; i++) buf[i] = (int)(1000 + start + i);
  CHECK_OK(ncmpi_put_vara_int_all(ncid, vfix, &start, &count, buf));
  double rbuf[NREC * RX];
  MPI_Offset rs[2], rc[2] = {0, RX};
  my_part(NREC, &rs[0], &rc[0]);
  rs[1] = 0;
  for (MPI_Offset i = 0; i < rc[0] * RX; i++) rbuf[i] = 0.5 * (double)(rs[0] * RX + i);
  CHECK_OK(ncmpi_put_vara_double_all(ncid, vrec, rs, rc, rbuf));
  MPI_Offset nrec;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dt, &nrec));
  CHECK(nrec == NREC);

  MPI_Offset off_fix_before, off_rec_before;
  CHECK_OK(ncmpi_inq_varoffset(ncid, vfix, &off_fix_before));
  CHECK_OK(ncmpi_inq_varoffset(ncid, vrec, &off_rec_before));

  /* Grow the header well past its extent and add a fixed and a record variable. */
  CHECK_OK(ncmpi_redef(ncid));
  char history[3000];
  memset(history, 'h', sizeof history);
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "history", sizeof history, history));
  int old_mode;
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, &old_mode));
  CHECK(old_mode == NC_NOFILL);
  CHECK_OK(ncmpi_def_var(ncid, "added", NC_SHORT, 1, &dx, &v2));
  CHECK_OK(ncmpi_def_var(ncid, "rec2", NC_FLOAT, 2, dims, &vrec2));
  float fill = -7.5f;
  CHECK_OK(ncmpi_def_var_fill(ncid, vrec2, 0, &fill));
  CHECK_OK(ncmpi_enddef(ncid));

  MPI_Offset off_fix_after, off_rec_after;
  CHECK_OK(ncmpi_inq_varoffset(ncid, vfix, &off_fix_after));
  CHECK_OK(ncmpi_inq_varoffset(ncid, vrec, &off_rec_after));
  CHECK(off_fix_after > off_fix_before && off_fix_after >= 3000);
  CHECK(off_rec_after > off_rec_before);
  check_old_data(ncid);

  short sbuf[RX];
  MPI_Offset zs = 0, xs = RX;
  CHECK_OK(ncmpi_get_vara_short_all(ncid, v2, &zs, &xs, sbuf));
  for (int i = 0; i < RX; i++) CHECK(sbuf[i] == NC_FILL_SHORT);
  float fbuf[NREC * RX];
  MPI_Offset s2[2] = {0, 0}, c2[2] = {NREC, RX};
  CHECK_OK(ncmpi_get_vara_float_all(ncid, vrec2, s2, c2, fbuf));
  for (int i = 0; i < NREC * RX; i++) CHECK(fbuf[i] == -7.5f);
  int no_fill = -1;
  float got_fill = 0;
  CHECK_OK(ncmpi_inq_var_fill(ncid, vrec2, &no_fill, &got_fill));
  CHECK(no_fill == 0 && got_fill == -7.5f);
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_old_data(ncid);
  char h[3000];
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "history", h));
  CHECK(memcmp(h, history, sizeof h) == 0);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  run(NC_CLOBBER, "cdf1.nc", MPI_INFO_NULL);
  run(NC_CLOBBER | NC_64BIT_DATA, "cdf5.nc", MPI_INFO_NULL);
  /* Small alignment: the new header overlaps the old data, which must still survive. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_var_align_size", "4");
  MPI_Info_set(info, "nc_header_align_size", "4");
  run(NC_CLOBBER | NC_64BIT_OFFSET, "cdf2_small_align.nc", info);
  MPI_Info_free(&info);
  return mpi_test_finish();
}
