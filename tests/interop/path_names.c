/*
 * path_names -- a partitioned file whose dimension and variable names carry
 * paths, some holding "__" or "_-" (the separator and the escape of the
 * classic names, docs/format.md "Converting to classic formats"), and
 * attributes with such names; for run_partitioned_names.sh.
 *
 *   path_names PATH [long]
 *
 * "long": one more variable whose classic name is longer than NC_MAX_NAME.
 * Rank 0 writes every value; the other ranks take part with nothing.
 */
#include <exacdf.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    int err_ = (call);                                                                       \
    if (err_ != NC_NOERR) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
    }                                                                                        \
  } while (0)

static int rank;

/* Writes all of a variable from rank 0 (count[0] 0 elsewhere). */
static void put_all(int ncid, int var, int ndims, const MPI_Offset *count, const void *buf,
                    MPI_Datatype type) {
  MPI_Offset start[2] = {0, 0}, cnt[2] = {count[0], ndims > 1 ? count[1] : 1};
  MPI_Offset n = cnt[0] * cnt[1];
  if (rank != 0) cnt[0] = n = 0;
  CHECK(ncmpi_put_vara_all(ncid, var, start, cnt, buf, n, type));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2) {
    fprintf(stderr, "usage: path_names PATH [long]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int long_name = argc > 2 && strcmp(argv[2], "long") == 0;
  int nc, time, n, m, k, xy, p, x, v, c, plain, w, t, lv;
  CHECK(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL,
                     &nc));
  CHECK(ncmpi_def_dim(nc, "time", NC_UNLIMITED, &time));
  CHECK(ncmpi_def_dim(nc, "/g00000/n", 3, &n));
  CHECK(ncmpi_def_dim(nc, "/g00000/sub/m", 2, &m));
  CHECK(ncmpi_def_dim(nc, "/a__b/k", 2, &k));
  CHECK(ncmpi_def_dim(nc, "x__y", 2, &xy));
  CHECK(ncmpi_def_dim(nc, "/g_-h/_p_", 1, &p));
  int d2[2] = {time, m};
  CHECK(ncmpi_def_var(nc, "/g00000/x", NC_INT, 1, &n, &x));
  CHECK(ncmpi_def_var(nc, "/g00000/sub/v", NC_DOUBLE, 2, d2, &v));
  CHECK(ncmpi_def_var(nc, "/a__b/_c_", NC_FLOAT, 1, &k, &c));
  CHECK(ncmpi_def_var(nc, "plain", NC_INT, 1, &xy, &plain));
  CHECK(ncmpi_def_var(nc, "/g_-h/w", NC_SHORT, 1, &p, &w));
  CHECK(ncmpi_def_var(nc, "t", NC_INT, 1, &time, &t));
  if (long_name) {
    char name[300];
    snprintf(name, sizeof name, "/%0200d/%070d", 0, 1);
    CHECK(ncmpi_def_var(nc, name, NC_INT, 1, &n, &lv));
  }
  const int seven = 7, fortytwo = 42;
  CHECK(ncmpi_put_att_text(nc, NC_GLOBAL, "title", 10, "path names"));
  CHECK(ncmpi_put_att_int(nc, NC_GLOBAL, "a__b", NC_INT, 1, &fortytwo));
  CHECK(ncmpi_put_att_text(nc, NC_GLOBAL, "x_-y", 3, "esc"));
  CHECK(ncmpi_put_att_text(nc, x, "units", 1, "m"));
  CHECK(ncmpi_put_att_int(nc, x, "x__att", NC_INT, 1, &seven));
  CHECK(ncmpi_enddef(nc));
  const int xs[3] = {1, 2, 3}, ps[2] = {10, 20}, ts[2] = {100, 200};
  const double vs[4] = {0.5, 1.5, 2.5, 3.5};
  const float cs[2] = {-1.0f, -2.0f};
  const short ws[1] = {5};
  const MPI_Offset c3[1] = {3}, c22[2] = {2, 2}, c2[1] = {2}, c1[1] = {1};
  put_all(nc, x, 1, c3, xs, MPI_INT);
  put_all(nc, v, 2, c22, vs, MPI_DOUBLE);
  put_all(nc, c, 1, c2, cs, MPI_FLOAT);
  put_all(nc, plain, 1, c2, ps, MPI_INT);
  put_all(nc, w, 1, c1, ws, MPI_SHORT);
  put_all(nc, t, 1, c2, ts, MPI_INT);
  if (long_name) put_all(nc, lv, 1, c3, xs, MPI_INT);
  CHECK(ncmpi_close(nc));
  MPI_Finalize();
  return 0;
}
