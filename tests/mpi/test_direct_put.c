/* Collective puts and gets moved directly from a staging buffer (exacdf hint
 * exa_direct_put=enable) against the usual path (disable): the same file,
 * byte for byte, and the same values read back (by gets of the same path:
 * halves of rows and whole variables, as double: converted from float, short
 * and int64, swapped for double; "big" as float). Several external types
 * (float, double, short, int64 and int converted to double), a fixed-size and
 * a record variable, pieces that are one run of the file, several runs, strided
 * elements, empty on some ranks, independent puts and gets, and a bad start
 * on one rank (that rank alone
 * returns NC_EINVALCOORDS, the others' data lands). The default (auto) file
 * has large contiguous pieces too and is compared with the others. PnetCDF
 * ignores the hint: the oracle writes three equal files by its one path. */
#include <pnetcdf.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define NY 8
#define NX 16
#define ROWS_PER_RANK 2            /* z planes per rank */
#define BIG ((MPI_Offset)1 << 18) /* floats per rank in "big": 1 MiB */

static double value(int var, MPI_Offset z, MPI_Offset y, MPI_Offset x) {
  return var * 100000.0 + z * 1000.0 + y * 50.0 + x - 7.0;
}

/* Values of one box of a variable, in packed order, as double. */
static void box(int var, const MPI_Offset st[3], const MPI_Offset ct[3], const MPI_Offset sd[3], double *out) {
  MPI_Offset k = 0;
  for (MPI_Offset z = 0; z < ct[0]; ++z)
    for (MPI_Offset y = 0; y < ct[1]; ++y)
      for (MPI_Offset x = 0; x < ct[2]; ++x)
        out[k++] = value(var, st[0] + z * sd[0], st[1] + y * sd[1], st[2] + x * sd[2]);
}

enum { V_F, V_D, V_S, V_L, V_C, V_R, NVARS };

/* Puts box (st, ct, sd) of variable `var` in the memory type that goes with it. */
static int put_box(int ncid, int varid, int var, const MPI_Offset st[3], const MPI_Offset ct[3],
                   const MPI_Offset sd[3]) {
  const MPI_Offset n = ct[0] * ct[1] * ct[2];
  double *d = malloc(sizeof(double) * (n > 0 ? n : 1));
  box(var, st, ct, sd, d);
  int err = NC_NOERR;
  if (var == V_F || var == V_R) {
    float *f = malloc(sizeof(float) * (n > 0 ? n : 1));
    for (MPI_Offset i = 0; i < n; ++i) f[i] = (float)d[i];
    err = ncmpi_put_vars_float_all(ncid, varid, st, ct, sd, f);
    free(f);
  } else if (var == V_D) {
    err = ncmpi_put_vars_double_all(ncid, varid, st, ct, sd, d);
  } else if (var == V_S) {
    short *s = malloc(sizeof(short) * (n > 0 ? n : 1));
    for (MPI_Offset i = 0; i < n; ++i) s[i] = (short)((long)d[i] % 30000);
    err = ncmpi_put_vars_short_all(ncid, varid, st, ct, sd, s);
    free(s);
  } else if (var == V_L) {
    long long *l = malloc(sizeof(long long) * (n > 0 ? n : 1));
    for (MPI_Offset i = 0; i < n; ++i) l[i] = (long long)d[i] * 1000003LL;
    err = ncmpi_put_vars_longlong_all(ncid, varid, st, ct, sd, l);
    free(l);
  } else { /* V_C: ints into an NC_DOUBLE variable */
    int *v = malloc(sizeof(int) * (n > 0 ? n : 1));
    for (MPI_Offset i = 0; i < n; ++i) v[i] = (int)d[i];
    err = ncmpi_put_vars_int_all(ncid, varid, st, ct, sd, v);
    free(v);
  }
  free(d);
  return err;
}

/* Reads the whole of variable `var` (nz planes) back as double and checks it. */
static void check_var(int ncid, int varid, int var, MPI_Offset nz) {
  const MPI_Offset st[3] = {0, 0, 0}, ct[3] = {nz, NY, NX}, sd[3] = {1, 1, 1};
  const MPI_Offset n = nz * NY * NX;
  double *want = malloc(sizeof(double) * n), *got = malloc(sizeof(double) * n);
  box(var, st, ct, sd, want);
  for (MPI_Offset i = 0; i < n; ++i) {
    if (var == V_F || var == V_R) want[i] = (float)want[i];
    if (var == V_S) want[i] = (short)((long)want[i] % 30000);
    if (var == V_L) want[i] = (double)((long long)want[i] * 1000003LL);
    if (var == V_C) want[i] = (int)want[i];
  }
  /* Two gets: the first half of every row (several runs), then the rest. */
  const MPI_Offset c1[3] = {nz, NY, NX / 2}, s2[3] = {0, 0, NX / 2};
  double *half = malloc(sizeof(double) * n / 2);
  CHECK_OK(ncmpi_get_vara_double_all(ncid, varid, st, c1, half));
  MPI_Offset bad = 0;
  for (MPI_Offset i = 0; i < n / 2; ++i) bad += half[i] != want[(i / (NX / 2)) * NX + i % (NX / 2)];
  CHECK_OK(ncmpi_get_vara_double_all(ncid, varid, s2, c1, half));
  for (MPI_Offset i = 0; i < n / 2; ++i) bad += half[i] != want[(i / (NX / 2)) * NX + NX / 2 + i % (NX / 2)];
  CHECK_OK(ncmpi_get_vara_double_all(ncid, varid, st, ct, got));
  for (MPI_Offset i = 0; i < n; ++i) bad += got[i] != want[i];
  if (bad) fprintf(stderr, "[rank %d] variable %d: %lld values wrong\n", mpi_test_rank, var, (long long)bad);
  CHECK(bad == 0);
  free(half);
  free(want);
  free(got);
}

/* Writes the file with hint exa_direct_put = mode (NULL: no hint). */
static void write_file(const char *path, const char *mode) {
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  const MPI_Offset nz = (MPI_Offset)ROWS_PER_RANK * nprocs;
  MPI_Info info = MPI_INFO_NULL;
  if (mode) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_direct_put", mode);
  }
  int ncid, dt, dz, dy, dx, db, ids[NVARS], big;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  if (mode) MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt));
  CHECK_OK(ncmpi_def_dim(ncid, "z", nz, &dz));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dy));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dx));
  CHECK_OK(ncmpi_def_dim(ncid, "b", BIG * nprocs, &db));
  const int fixed[3] = {dz, dy, dx}, rec[3] = {dt, dy, dx};
  const nc_type types[NVARS] = {NC_FLOAT, NC_DOUBLE, NC_SHORT, NC_INT64, NC_DOUBLE, NC_FLOAT};
  const char *names[NVARS] = {"f", "d", "s", "l", "c", "r"};
  for (int v = 0; v < NVARS; ++v)
    CHECK_OK(ncmpi_def_var(ncid, names[v], types[v], 3, v == V_R ? rec : fixed, &ids[v]));
  CHECK_OK(ncmpi_def_var(ncid, "big", NC_FLOAT, 1, &db, &big));
  CHECK_OK(ncmpi_enddef(ncid));

  const MPI_Offset one[3] = {1, 1, 1}, two[3] = {1, 1, 2};
  const MPI_Offset z0 = (MPI_Offset)ROWS_PER_RANK * rank;
  for (int v = 0; v < NVARS; ++v) {
    const int id = ids[v];
    if (v == V_F || v == V_R) {
      /* Each rank's planes whole: one run of the file (records: one per plane). */
      const MPI_Offset st[3] = {z0, 0, 0}, ct[3] = {ROWS_PER_RANK, NY, NX};
      CHECK_OK(put_box(ncid, id, v, st, ct, one));
    } else if (v == V_D || v == V_C) {
      /* Left halves of rows (runs of NX/2), then the odd, then the even x (strided). */
      const MPI_Offset st[3] = {z0, 0, 0}, ct[3] = {ROWS_PER_RANK, NY, NX / 2};
      CHECK_OK(put_box(ncid, id, v, st, ct, one));
      const MPI_Offset so[3] = {z0, 0, NX / 2 + 1}, se[3] = {z0, 0, NX / 2}, cs[3] = {ROWS_PER_RANK, NY, NX / 4};
      CHECK_OK(put_box(ncid, id, v, so, cs, two));
      CHECK_OK(put_box(ncid, id, v, se, cs, two));
    } else {
      /* Rank 0 writes every plane in one call; the others take part with nothing. */
      const MPI_Offset st[3] = {0, 0, 0}, ct[3] = {rank == 0 ? nz : 0, NY, NX};
      CHECK_OK(put_box(ncid, id, v, st, ct, one));
    }
  }
  /* A bad start on the last rank: its error alone, the others' planes land. */
  {
    const int bad = rank == nprocs - 1;
    const MPI_Offset st[3] = {bad ? nz + 1 : z0, 0, 0}, ct[3] = {ROWS_PER_RANK, NY, NX};
    CHECK_ERR(put_box(ncid, ids[V_F], V_F, st, ct, one), bad ? NC_EINVALCOORDS : NC_NOERR);
  }
  /* Independent puts: each rank rewrites its planes of "d" (same type) and "c" (converted). */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int v = V_D; v <= V_C; v += V_C - V_D) {
    const MPI_Offset st[3] = {z0, 0, 0}, ct[3] = {ROWS_PER_RANK, NY, NX};
    const MPI_Offset n = ROWS_PER_RANK * NY * NX;
    double *d = malloc(sizeof(double) * n);
    int *iv = malloc(sizeof(int) * n);
    box(v, st, ct, one, d);
    for (MPI_Offset i = 0; i < n; ++i) iv[i] = (int)d[i];
    CHECK_OK(v == V_D ? ncmpi_put_vara_double(ncid, ids[v], st, ct, d) : ncmpi_put_vara_int(ncid, ids[v], st, ct, iv));
    free(d);
    free(iv);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dt, &nrec));
  CHECK(nrec == nz);
  /* big: 1 MiB contiguous per rank (direct under auto too). */
  float *b = malloc(sizeof(float) * BIG);
  for (MPI_Offset i = 0; i < BIG; ++i) b[i] = (float)(rank * BIG + i);
  const MPI_Offset bs = rank * BIG, bc = BIG;
  CHECK_OK(ncmpi_put_vara_float_all(ncid, big, &bs, &bc, b));
  MPI_Offset changed = 0; /* the caller's values are unchanged */
  for (MPI_Offset i = 0; i < BIG; ++i) changed += b[i] != (float)(rank * BIG + i);
  CHECK(changed == 0);
  free(b);
  CHECK_OK(ncmpi_close(ncid));
}

/* Reads the file back with the same hint (gets take the direct path too). */
static void check_file(const char *path, const char *mode) {
  const MPI_Offset nz = (MPI_Offset)ROWS_PER_RANK * mpi_test_nprocs;
  int ncid, varid;
  MPI_Info info = MPI_INFO_NULL;
  if (mode) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_direct_put", mode);
  }
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  if (mode) MPI_Info_free(&info);
  const char *names[NVARS] = {"f", "d", "s", "l", "c", "r"};
  for (int v = 0; v < NVARS; ++v) {
    CHECK_OK(ncmpi_inq_varid(ncid, names[v], &varid));
    check_var(ncid, varid, v, nz);
  }
  /* Independent gets of "f" (converted to double) and "d" (same type), whole. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int v = V_F; v <= V_D; ++v) {
    const MPI_Offset st[3] = {0, 0, 0}, ct[3] = {nz, NY, NX}, sd[3] = {1, 1, 1};
    const MPI_Offset n = nz * NY * NX;
    double *want = malloc(sizeof(double) * n), *got = malloc(sizeof(double) * n);
    box(v, st, ct, sd, want);
    CHECK_OK(ncmpi_inq_varid(ncid, names[v], &varid));
    CHECK_OK(ncmpi_get_vara_double(ncid, varid, st, ct, got));
    MPI_Offset bad = 0;
    for (MPI_Offset i = 0; i < n; ++i) bad += got[i] != (v == V_F ? (double)(float)want[i] : want[i]);
    CHECK(bad == 0);
    free(want);
    free(got);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "big", &varid));
  const MPI_Offset n = BIG * mpi_test_nprocs, zero = 0;
  float *b = malloc(sizeof(float) * n);
  CHECK_OK(ncmpi_get_vara_float_all(ncid, varid, &zero, &n, b));
  MPI_Offset bad = 0;
  for (MPI_Offset i = 0; i < n; ++i) bad += b[i] != (float)i;
  CHECK(bad == 0);
  free(b);
  CHECK_OK(ncmpi_close(ncid));
}

/* The whole file's bytes (rank 0), *size set. */
static unsigned char *slurp(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *bytes = malloc(*size > 0 ? *size : 1);
  CHECK(fread(bytes, 1, *size, f) == (size_t)*size);
  fclose(f);
  return bytes;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char paths[3][1200];
  const char *modes[3] = {"disable", "enable", NULL};
  const char *names[3] = {"direct_put_disable.nc", "direct_put_enable.nc", "direct_put_auto.nc"};
  for (int m = 0; m < 3; ++m) {
    snprintf(paths[m], sizeof paths[m], "%s", mpi_test_path(names[m]));
    write_file(paths[m], modes[m]);
    check_file(paths[m], modes[m]);
  }
  if (mpi_test_rank == 0) {
    long size[3] = {0, 0, 0};
    unsigned char *bytes[3];
    for (int m = 0; m < 3; ++m) bytes[m] = slurp(paths[m], &size[m]);
    for (int m = 1; m < 3; ++m) {
      CHECK(size[m] == size[0]);
      if (bytes[0] && bytes[m] && size[m] == size[0]) CHECK(memcmp(bytes[0], bytes[m], size[0]) == 0);
    }
    for (int m = 0; m < 3; ++m) free(bytes[m]);
  }
  return mpi_test_finish();
}
