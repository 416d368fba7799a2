/*
 * indep_define -- the same definitions made two ways, for comparing files:
 *
 *   indep_define PATH cdf1|cdf2|cdf5 independent|collective
 *
 * Each rank r owns some objects (dimension s_r, variables own_r and rec_r,
 * global attribute note_r) and shares others (dimensions time and x,
 * variable temp, global attribute title). "independent" (exacdf only,
 * EXA_INDEP_DEFINE): each rank defines just its own and the shared objects.
 * "collective": every rank defines everything, rank 0's objects first, then
 * rank 1's, skipping shared objects already defined, as an application
 * would with plain PnetCDF. Both then write the same data. exacdf places
 * objects defined independently in exactly that order, so the two files
 * must be byte-identical. Built against exacdf and against PnetCDF.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef EXACDF_FOR_EACH_MEMTYPE
#include <exacdf.h>
#endif

#define CHECK(call)                                                                  \
  do {                                                                               \
    int err_ = (call);                                                               \
    if (err_ != NC_NOERR) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
    }                                                                                \
  } while (0)

static int cdf5;

static int dim(int ncid, const char *name, MPI_Offset len) {
  int id;
  if (ncmpi_inq_dimid(ncid, name, &id) == NC_NOERR) return id; /* shared, already there */
  CHECK(ncmpi_def_dim(ncid, name, len, &id));
  return id;
}

static int var(int ncid, const char *name, nc_type type, int ndims, const int *dimids, int *fresh) {
  int id;
  *fresh = ncmpi_inq_varid(ncid, name, &id) != NC_NOERR;
  if (*fresh) CHECK(ncmpi_def_var(ncid, name, type, ndims, dimids, &id));
  return id;
}

/* The objects rank r defines, in its definition order. */
static void define_rank(int ncid, int r) {
  char name[64], note[64];
  int fresh, d[2];
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 13, "shared header"));
  snprintf(name, sizeof name, "note_%d", r);
  snprintf(note, sizeof note, "written by rank %d", r);
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, name, strlen(note), note));
  int time = dim(ncid, "time", NC_UNLIMITED);
  snprintf(name, sizeof name, "s_%d", r);
  int s = dim(ncid, name, r + 2);
  int x = dim(ncid, "x", 4);
  d[0] = time;
  d[1] = x;
  int temp = var(ncid, "temp", NC_FLOAT, 2, d, &fresh);
  if (fresh) {
    CHECK(ncmpi_put_att_text(ncid, temp, "units", 1, "K"));
    float range[2] = {-50.f, 50.f};
    CHECK(ncmpi_put_att_float(ncid, temp, "valid_range", NC_FLOAT, 2, range));
  }
  snprintf(name, sizeof name, "own_%d", r);
  int own = var(ncid, name, cdf5 ? NC_INT64 : NC_INT, 1, &s, &fresh);
  CHECK(ncmpi_put_att_int(ncid, own, "rank", NC_INT, 1, &r));
  if (cdf5) {
    unsigned int u = 4000000000u - (unsigned)r;
    CHECK(ncmpi_put_att_uint(ncid, own, "big", NC_UINT, 1, &u));
  }
  snprintf(name, sizeof name, "rec_%d", r);
  var(ncid, name, NC_DOUBLE, 1, &time, &fresh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: indep_define PATH cdf1|cdf2|cdf5 independent|collective\n");
    MPI_Finalize();
    return 2;
  }
  int cmode = NC_CLOBBER;
  if (!strcmp(argv[2], "cdf2")) cmode |= NC_64BIT_OFFSET;
  if (!strcmp(argv[2], "cdf5")) cmode |= NC_64BIT_DATA;
  cdf5 = (cmode & NC_64BIT_DATA) != 0;
  int independent = !strcmp(argv[3], "independent");
  if (independent) {
#ifdef EXACDF_FOR_EACH_MEMTYPE
    cmode |= EXA_INDEP_DEFINE;
#else
    if (rank == 0) fprintf(stderr, "independent define mode needs exacdf\n");
    MPI_Finalize();
    return 2;
#endif
  }
  int ncid;
  CHECK(ncmpi_create(MPI_COMM_WORLD, argv[1], cmode, MPI_INFO_NULL, &ncid));
  if (independent) {
    define_rank(ncid, rank);
  } else {
    for (int r = 0; r < nprocs; r++) define_rank(ncid, r);
  }
  CHECK(ncmpi_enddef(ncid));

  /* Data: rank r writes its own variables and record r of temp and rec_r. */
  char name[64];
  int own, rec, temp;
  snprintf(name, sizeof name, "own_%d", rank);
  CHECK(ncmpi_inq_varid(ncid, name, &own));
  snprintf(name, sizeof name, "rec_%d", rank);
  CHECK(ncmpi_inq_varid(ncid, name, &rec));
  CHECK(ncmpi_inq_varid(ncid, "temp", &temp));
  CHECK(ncmpi_begin_indep_data(ncid));
  long long vals[16];
  for (int i = 0; i < rank + 2; i++) vals[i] = 1000LL * rank + i;
  CHECK(ncmpi_put_var_longlong(ncid, own, vals));
  float row[4] = {rank + 0.25f, rank + 0.5f, rank + 0.75f, rank + 1.0f};
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, 4};
  CHECK(ncmpi_put_vara_float(ncid, temp, start, count, row));
  double d = rank * 1.5;
  CHECK(ncmpi_put_var1_double(ncid, rec, start, &d));
  CHECK(ncmpi_end_indep_data(ncid));
  CHECK(ncmpi_close(ncid));
  MPI_Finalize();
  return 0;
}
