/*
 * demo.c -- write a small climate-style dataset in parallel, then read it back and verify it.
 *
 * Written against the PnetCDF API only (pnetcdf.h, ncmpi_*), so the same source builds against
 * exacdf and against PnetCDF:
 *
 *   mpicc demo.c -o demo $(pkg-config --cflags --libs exacdf)     # exacdf
 *   mpicc demo.c -o demo -lpnetcdf                                  # PnetCDF
 *   mpiexec -n 4 ./demo demo.nc [nsteps]
 *
 * The file (CDF-5, NC_64BIT_DATA) holds
 *   dimensions: time (unlimited), y = 12, x = 16
 *   y(y), x(x)                   coordinates (double), written by rank 0
 *   elevation(y, x)              float field, rows split in blocks over the ranks
 *   time(time)                   double, hours since the start
 *   step(time)                   int64 (a CDF-5 type), the step number
 *   temperature(time, y, x)      float record variable, nsteps time steps, rows split over ranks
 * with global and per-variable attributes. Every rank reads its block back with collective
 * reads and checks each value; rank 0 prints a summary. Exit status 0 means every value matched.
 */
#include <math.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NY 12
#define NX 16

/* Report a failed ncmpi_* call with its location and stop all ranks. */
#define CHECK(call)                                                                              \
  do {                                                                                           \
    int err_ = (call);                                                                           \
    if (err_ != NC_NOERR) {                                                                      \
      fprintf(stderr, "demo: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    }                                                                                            \
  } while (0)

/* Put a text attribute of length strlen(text) (no trailing NUL, as netCDF convention has it). */
static int put_text(int ncid, int varid, const char* name, const char* text) {
  return ncmpi_put_att_text(ncid, varid, name, (MPI_Offset)strlen(text), text);
}

static float elevation_at(int y, int x) {
  return (float)(100.0 * sin(0.3 * y) * cos(0.2 * x));
}
static float temperature_at(int t, int y, int x) {
  return 280.0f + (float)t + 0.5f * (float)y - 0.25f * (float)x;
}

/* Rows [*start, *start + *count) of NY owned by `rank` of `nprocs` (block, remainder first). */
static void my_rows(int rank, int nprocs, MPI_Offset* start, MPI_Offset* count) {
  int base = NY / nprocs, extra = NY % nprocs;
  *count = base + (rank < extra ? 1 : 0);
  *start = (MPI_Offset)rank * base + (rank < extra ? rank : extra);
}

static void write_dataset(const char* path, int nsteps, int rank, int nprocs) {
  int ncid, dim_time, dim_y, dim_x, v_y, v_x, v_elev, v_time, v_step, v_temp, dims[3];
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));

  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dim_time));
  CHECK(ncmpi_def_dim(ncid, "y", NY, &dim_y));
  CHECK(ncmpi_def_dim(ncid, "x", NX, &dim_x));

  CHECK(ncmpi_def_var(ncid, "y", NC_DOUBLE, 1, &dim_y, &v_y));
  CHECK(put_text(ncid, v_y, "units", "km"));
  CHECK(ncmpi_def_var(ncid, "x", NC_DOUBLE, 1, &dim_x, &v_x));
  CHECK(put_text(ncid, v_x, "units", "km"));

  dims[0] = dim_y;
  dims[1] = dim_x;
  CHECK(ncmpi_def_var(ncid, "elevation", NC_FLOAT, 2, dims, &v_elev));
  CHECK(put_text(ncid, v_elev, "long_name", "surface altitude"));
  CHECK(put_text(ncid, v_elev, "units", "m"));

  CHECK(ncmpi_def_var(ncid, "time", NC_DOUBLE, 1, &dim_time, &v_time));
  CHECK(put_text(ncid, v_time, "units", "hours since 2026-01-01 00:00:00"));
  CHECK(ncmpi_def_var(ncid, "step", NC_INT64, 1, &dim_time, &v_step));

  dims[0] = dim_time;
  dims[1] = dim_y;
  dims[2] = dim_x;
  CHECK(ncmpi_def_var(ncid, "temperature", NC_FLOAT, 3, dims, &v_temp));
  CHECK(put_text(ncid, v_temp, "long_name", "air temperature"));
  CHECK(put_text(ncid, v_temp, "units", "K"));
  double valid_range[2] = {150.0, 350.0};
  CHECK(ncmpi_put_att_double(ncid, v_temp, "valid_range", NC_DOUBLE, 2, valid_range));

  CHECK(put_text(ncid, NC_GLOBAL, "title", "exacdf demo: a field decomposed over MPI ranks"));
  CHECK(put_text(ncid, NC_GLOBAL, "Conventions", "CF-1.8"));
  int nranks_att = nprocs;
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "mpi_ranks", NC_INT, 1, &nranks_att));
  CHECK(ncmpi_enddef(ncid));

  /* Coordinates: rank 0 writes them all, the others join the collective with nothing. */
  double ys[NY], xs[NX];
  for (int i = 0; i < NY; i++) ys[i] = 2.5 * i;
  for (int i = 0; i < NX; i++) xs[i] = 2.5 * i;
  MPI_Offset start[3] = {0, 0, 0}, count[3] = {0, 0, 0};
  count[0] = rank == 0 ? NY : 0;
  CHECK(ncmpi_put_vara_double_all(ncid, v_y, start, count, ys));
  count[0] = rank == 0 ? NX : 0;
  CHECK(ncmpi_put_vara_double_all(ncid, v_x, start, count, xs));

  /* The 2-D field: each rank its block of rows. */
  MPI_Offset y0, ny;
  my_rows(rank, nprocs, &y0, &ny);
  float* block = malloc(sizeof(float) * (size_t)(ny > 0 ? ny : 1) * NX);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < NX; i++) block[j * NX + i] = elevation_at((int)y0 + j, i);
  start[0] = y0;
  start[1] = 0;
  count[0] = ny;
  count[1] = NX;
  CHECK(ncmpi_put_vara_float_all(ncid, v_elev, start, count, block));

  /* Time steps: one record per step; each rank writes its rows, rank 0 the scalars. */
  for (int t = 0; t < nsteps; t++) {
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < NX; i++) block[j * NX + i] = temperature_at(t, (int)y0 + j, i);
    MPI_Offset s3[3] = {t, y0, 0}, c3[3] = {1, ny, NX};
    CHECK(ncmpi_put_vara_float_all(ncid, v_temp, s3, c3, block));
    double hours = 6.0 * t;
    long long stepno = t;
    MPI_Offset s1 = t, c1 = rank == 0 ? 1 : 0;
    CHECK(ncmpi_put_vara_double_all(ncid, v_time, &s1, &c1, &hours));
    CHECK(ncmpi_put_vara_longlong_all(ncid, v_step, &s1, &c1, &stepno));
  }
  free(block);
  CHECK(ncmpi_close(ncid));
}

/* Read everything back, each rank its own rows, and count the values that differ. */
static long verify_dataset(const char* path, int nsteps, int rank, int nprocs) {
  int ncid, ndims, nvars, natts, unlimdim, varid;
  long bad = 0;
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_inq(ncid, &ndims, &nvars, &natts, &unlimdim));
  MPI_Offset nrecs;
  CHECK(ncmpi_inq_dimlen(ncid, unlimdim, &nrecs));
  if (ndims != 3 || nvars != 6 || natts != 3 || nrecs != nsteps) {
    fprintf(stderr, "demo: rank %d: header has %d dims, %d vars, %d atts, %lld records\n", rank,
            ndims, nvars, natts, (long long)nrecs);
    bad++;
  }

  MPI_Offset y0, ny;
  my_rows(rank, nprocs, &y0, &ny);
  float* block = malloc(sizeof(float) * (size_t)(ny > 0 ? ny : 1) * NX);
  MPI_Offset start[3] = {y0, 0, 0}, count[3] = {ny, NX, 0};
  CHECK(ncmpi_inq_varid(ncid, "elevation", &varid));
  CHECK(ncmpi_get_vara_float_all(ncid, varid, start, count, block));
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < NX; i++) bad += block[j * NX + i] != elevation_at((int)y0 + j, i);

  CHECK(ncmpi_inq_varid(ncid, "temperature", &varid));
  for (int t = 0; t < nsteps; t++) {
    MPI_Offset s3[3] = {t, y0, 0}, c3[3] = {1, ny, NX};
    CHECK(ncmpi_get_vara_float_all(ncid, varid, s3, c3, block));
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < NX; i++) bad += block[j * NX + i] != temperature_at(t, (int)y0 + j, i);
  }
  free(block);

  /* Every rank reads the whole time axis and the coordinates. */
  double* hours = malloc(sizeof(double) * (size_t)(nsteps > 0 ? nsteps : 1));
  long long* steps = malloc(sizeof(long long) * (size_t)(nsteps > 0 ? nsteps : 1));
  MPI_Offset s1 = 0, c1 = nsteps;
  CHECK(ncmpi_inq_varid(ncid, "time", &varid));
  CHECK(ncmpi_get_vara_double_all(ncid, varid, &s1, &c1, hours));
  CHECK(ncmpi_inq_varid(ncid, "step", &varid));
  CHECK(ncmpi_get_vara_longlong_all(ncid, varid, &s1, &c1, steps));
  for (int t = 0; t < nsteps; t++) bad += hours[t] != 6.0 * t || steps[t] != t;
  free(hours);
  free(steps);

  double xs[NX];
  c1 = NX;
  CHECK(ncmpi_inq_varid(ncid, "x", &varid));
  CHECK(ncmpi_get_vara_double_all(ncid, varid, &s1, &c1, xs));
  for (int i = 0; i < NX; i++) bad += xs[i] != 2.5 * i;

  char units[8] = {0};
  MPI_Offset len;
  CHECK(ncmpi_inq_varid(ncid, "temperature", &varid));
  CHECK(ncmpi_inq_attlen(ncid, varid, "units", &len));
  CHECK(ncmpi_get_att_text(ncid, varid, "units", units));
  bad += len != 1 || strcmp(units, "K") != 0;

  CHECK(ncmpi_close(ncid));
  return bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const char* path = argc > 1 ? argv[1] : "demo.nc";
  int nsteps = argc > 2 ? atoi(argv[2]) : 8;
  if (nsteps < 0) nsteps = 0;

  if (rank == 0) printf("demo: %s, %d ranks, writing %s\n", ncmpi_inq_libvers(), nprocs, path);
  double t0 = MPI_Wtime();
  write_dataset(path, nsteps, rank, nprocs);
  double t1 = MPI_Wtime();
  long bad = verify_dataset(path, nsteps, rank, nprocs), total_bad = 0;
  double t2 = MPI_Wtime();
  MPI_Allreduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

  if (rank == 0) {
    long values = (long)NY * NX * (1 + nsteps) + 2L * nsteps + NY + NX;
    printf("demo: wrote %d x %d field + %d time steps in %.3f s, read back in %.3f s\n", NY, NX,
           nsteps, t1 - t0, t2 - t1);
    if (total_bad == 0)
      printf("demo: verified: all %ld values match on every rank\n", values);
    else
      printf("demo: FAILED: %ld values differ\n", total_bad);
  }
  MPI_Finalize();
  return total_bad == 0 ? 0 : 1;
}
