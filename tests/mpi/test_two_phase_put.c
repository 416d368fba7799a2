/* Collective puts and gets whose pieces are many small runs interleaved
 * between the ranks (each rank a slab of x columns of every row, as
 * partition3d's pattern X), moved by exacdf's own two-phase (hint
 * exa_two_phase=enable, in rounds of 4 KiB windows, and the default for "xa":
 * 1 MiB per rank in runs of 512 bytes, one round) against OMPIO's collective call (disable). Checked: the values
 * read back by gets of the same path (each rank's own slab, a strided slab,
 * and the whole variable on every rank), the bytes of every variable in the
 * file against the big-endian encoding of the values the test computes
 * itself, and the three files byte for byte. Types: float, int converted to
 * double, short (strided between the ranks), byte (no conversion) and a
 * record variable; one rank with an empty piece (rank 1 writes its columns)
 * and one with a bad start (its
 * error alone, the others' columns land). PnetCDF ignores the hint: the
 * oracle run checks that its bytes are the same encoding. */
#include <pnetcdf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define NZ 4
#define NY 8
#define XPER 16                      /* x columns per rank (small variables) */
#define AZ 16                        /* "xa": 16 x 128 x (128 per rank) floats */
#define AY 128
#define APER 128
#define NREC 3

enum { V_A, V_F, V_D, V_S, V_B, V_R, V_E, NVARS };
static const char *names[NVARS] = {"xa", "xf", "xd", "xs", "xb", "xr", "xe"};
static const nc_type types[NVARS] = {NC_FLOAT, NC_FLOAT, NC_DOUBLE, NC_SHORT, NC_BYTE, NC_FLOAT, NC_FLOAT};

static void shape(int v, MPI_Offset dims[3]) {
  dims[0] = v == V_A ? AZ : v == V_R ? NREC : NZ;
  dims[1] = v == V_A ? AY : NY;
  dims[2] = (MPI_Offset)(v == V_A ? APER : XPER) * mpi_test_nprocs;
}

/* The value at (z, y, x) of variable v, exactly representable in its type. */
static double value(int v, MPI_Offset z, MPI_Offset y, MPI_Offset x) {
  long k = (long)(z * 7919 + y * 131 + x * 3 + v * 17);
  switch (types[v]) {
    case NC_SHORT: return (double)(k % 30011 - 15000);
    case NC_BYTE: return (double)(k % 251 - 125);
    case NC_DOUBLE: return (double)(k % 1000003 - 500000); /* put as int */
    default: return (double)(k % 1000003) + 0.25;
  }
}

/* This rank's piece of v: its slab of x columns of every row; "xs" every
 * nprocs-th column from x = rank (strided); "xe" nothing on rank 0. */
static void piece(int v, MPI_Offset st[3], MPI_Offset ct[3], MPI_Offset sd[3]) {
  MPI_Offset dims[3];
  shape(v, dims);
  const MPI_Offset per = dims[2] / mpi_test_nprocs;
  st[0] = st[1] = 0;
  ct[0] = dims[0];
  ct[1] = dims[1];
  sd[0] = sd[1] = sd[2] = 1;
  st[2] = per * mpi_test_rank;
  ct[2] = per;
  if (v == V_S) {
    st[2] = mpi_test_rank;
    sd[2] = mpi_test_nprocs;
  }
  if (v == V_E && mpi_test_nprocs > 1 && mpi_test_rank < 2) { /* rank 1 writes rank 0's columns too */
    ct[0] = mpi_test_rank == 0 ? 0 : ct[0];
    st[2] = 0;
    ct[2] = 2 * per;
  }
}

static MPI_Offset count_of(const MPI_Offset ct[3]) { return ct[0] * ct[1] * ct[2]; }

static void box(int v, const MPI_Offset st[3], const MPI_Offset ct[3], const MPI_Offset sd[3], double *out) {
  MPI_Offset k = 0;
  for (MPI_Offset z = 0; z < ct[0]; ++z)
    for (MPI_Offset y = 0; y < ct[1]; ++y)
      for (MPI_Offset x = 0; x < ct[2]; ++x) out[k++] = value(v, st[0] + z * sd[0], st[1] + y * sd[1], st[2] + x * sd[2]);
}

static int put(int ncid, int varid, int v, const MPI_Offset st[3], const MPI_Offset ct[3], const MPI_Offset sd[3]) {
  const MPI_Offset n = count_of(ct);
  double *d = malloc(sizeof(double) * (n > 0 ? n : 1));
  box(v, st, ct, sd, d);
  int err;
  if (types[v] == NC_DOUBLE) { /* ints converted to double */
    int *iv = malloc(sizeof(int) * (n > 0 ? n : 1));
    for (MPI_Offset i = 0; i < n; ++i) iv[i] = (int)d[i];
    err = ncmpi_put_vars_int_all(ncid, varid, st, ct, sd, iv);
    free(iv);
  } else if (types[v] == NC_SHORT) {
    short *s = malloc(sizeof(short) * (n > 0 ? n : 1));
    for (MPI_Offset i = 0; i < n; ++i) s[i] = (short)d[i];
    err = ncmpi_put_vars_short_all(ncid, varid, st, ct, sd, s);
    free(s);
  } else if (types[v] == NC_BYTE) {
    signed char *b = malloc(n > 0 ? n : 1);
    for (MPI_Offset i = 0; i < n; ++i) b[i] = (signed char)d[i];
    err = ncmpi_put_vars_schar_all(ncid, varid, st, ct, sd, b);
    free(b);
  } else {
    float *f = malloc(sizeof(float) * (n > 0 ? n : 1));
    for (MPI_Offset i = 0; i < n; ++i) f[i] = (float)d[i];
    err = ncmpi_put_vars_float_all(ncid, varid, st, ct, sd, f);
    free(f);
  }
  free(d);
  return err;
}

static void set_mode(MPI_Info *info, const char *mode) {
  *info = MPI_INFO_NULL;
  if (!mode) return;
  MPI_Info_create(info);
  MPI_Info_set(*info, "exa_two_phase", mode);
  /* enable: windows of 4 KiB, so the pieces move in many rounds */
  if (strcmp(mode, "enable") == 0) MPI_Info_set(*info, "exa_two_phase_round", "4096");
}

static void write_file(const char *path, const char *mode) {
  MPI_Info info;
  set_mode(&info, mode);
  int ncid, ids[NVARS], dimids[NVARS][3];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  if (mode) MPI_Info_free(&info);
  for (int v = 0; v < NVARS; ++v) {
    MPI_Offset dims[3];
    shape(v, dims);
    char dn[3][16];
    for (int a = 0; a < 3; ++a) {
      snprintf(dn[a], sizeof dn[a], "%s_%c", names[v], "zyx"[a]);
      CHECK_OK(ncmpi_def_dim(ncid, dn[a], v == V_R && a == 0 ? NC_UNLIMITED : dims[a], &dimids[v][a]));
    }
    CHECK_OK(ncmpi_def_var(ncid, names[v], types[v], 3, dimids[v], &ids[v]));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  for (int v = 0; v < NVARS; ++v) {
    MPI_Offset st[3], ct[3], sd[3];
    piece(v, st, ct, sd);
    CHECK_OK(put(ncid, ids[v], v, st, ct, sd));
  }
  /* A bad start on the last rank (2 ranks or more): its error alone; the
   * others rewrite their columns of "xf" with the same values. */
  if (mpi_test_nprocs > 1) {
    const int bad = mpi_test_rank == mpi_test_nprocs - 1;
    MPI_Offset st[3], ct[3], sd[3];
    piece(V_F, st, ct, sd);
    if (bad) st[0] = NZ + 1;
    CHECK_ERR(put(ncid, ids[V_F], V_F, st, ct, sd), bad ? NC_EINVALCOORDS : NC_NOERR);
  }
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, dimids[V_R][0], &nrec));
  CHECK(nrec == NREC);
  CHECK_OK(ncmpi_close(ncid));
}

/* Reads `ct` values at (st, sd) of v as double and compares them with the expected ones. */
static MPI_Offset wrong(int ncid, int varid, int v, const MPI_Offset st[3], const MPI_Offset ct[3],
                        const MPI_Offset sd[3]) {
  const MPI_Offset n = count_of(ct);
  double *want = malloc(sizeof(double) * (n > 0 ? n : 1)), *got = malloc(sizeof(double) * (n > 0 ? n : 1));
  box(v, st, ct, sd, want);
  for (MPI_Offset i = 0; i < n; ++i) got[i] = -1e300;
  CHECK_OK(ncmpi_get_vars_double_all(ncid, varid, st, ct, sd, got));
  MPI_Offset bad = 0;
  for (MPI_Offset i = 0; i < n; ++i) bad += got[i] != (types[v] == NC_FLOAT ? (double)(float)want[i] : want[i]);
  free(want);
  free(got);
  return bad;
}

static void check_file(const char *path, const char *mode) {
  MPI_Info info;
  set_mode(&info, mode);
  int ncid, varid;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  if (mode) MPI_Info_free(&info);
  for (int v = 0; v < NVARS; ++v) {
    CHECK_OK(ncmpi_inq_varid(ncid, names[v], &varid));
    MPI_Offset st[3], ct[3], sd[3], dims[3];
    piece(v, st, ct, sd);
    MPI_Offset bad = wrong(ncid, varid, v, st, ct, sd);
    /* The neighbour's columns (a different owner mix), then the whole variable on every rank. */
    if (v != V_S && v != V_E) st[2] = (st[2] + ct[2]) % (ct[2] * mpi_test_nprocs);
    bad += wrong(ncid, varid, v, st, ct, sd);
    shape(v, dims);
    const MPI_Offset zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    bad += wrong(ncid, varid, v, zero, dims, one);
    if (bad) fprintf(stderr, "[rank %d] %s (%s): %lld values wrong\n", mpi_test_rank, names[v], mode ? mode : "auto",
                     (long long)bad);
    CHECK(bad == 0);
  }
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

/* Big-endian bytes of value x of type t into out; returns their size. */
static int encode(nc_type t, double x, unsigned char *out) {
  unsigned char raw[8];
  int size;
  if (t == NC_FLOAT) {
    float f = (float)x;
    memcpy(raw, &f, 4);
    size = 4;
  } else if (t == NC_DOUBLE) {
    memcpy(raw, &x, 8);
    size = 8;
  } else if (t == NC_SHORT) {
    int16_t s = (int16_t)x;
    memcpy(raw, &s, 2);
    size = 2;
  } else {
    raw[0] = (unsigned char)(signed char)x;
    size = 1;
  }
  const uint16_t probe = 1;
  const int little = *(const unsigned char *)&probe == 1;
  for (int i = 0; i < size; ++i) out[i] = little ? raw[size - 1 - i] : raw[i];
  return size;
}

/* Every variable's bytes in the file (rank 0) against the encoding of its values. */
static void check_bytes(const char *path) {
  int ncid, varid;
  MPI_Offset offset[NVARS], recsize = 0;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  for (int v = 0; v < NVARS; ++v) {
    CHECK_OK(ncmpi_inq_varid(ncid, names[v], &varid));
    CHECK_OK(ncmpi_inq_varoffset(ncid, varid, &offset[v]));
  }
  MPI_Offset dims[3];
  shape(V_R, dims);
  recsize = dims[1] * dims[2] * 4; /* the only record variable */
  CHECK_OK(ncmpi_close(ncid));
  if (mpi_test_rank != 0) return;
  long size = 0;
  unsigned char *bytes = slurp(path, &size), enc[8];
  if (!bytes) return;
  for (int v = 0; v < NVARS; ++v) {
    shape(v, dims);
    MPI_Offset bad = 0, at = offset[v];
    for (MPI_Offset z = 0; z < dims[0]; ++z) {
      if (v == V_R) at = offset[v] + z * recsize;
      for (MPI_Offset y = 0; y < dims[1]; ++y)
        for (MPI_Offset x = 0; x < dims[2]; ++x) {
          const int n = encode(types[v], value(v, z, y, x), enc);
          if (at + n > size || memcmp(bytes + at, enc, n) != 0) ++bad;
          at += n;
        }
    }
    if (bad) fprintf(stderr, "%s: %lld values with wrong bytes in %s\n", names[v], (long long)bad, path);
    CHECK(bad == 0);
  }
  free(bytes);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char paths[3][1200];
  const char *modes[3] = {"disable", "enable", NULL};
  const char *files[3] = {"two_phase_disable.nc", "two_phase_enable.nc", "two_phase_auto.nc"};
  for (int m = 0; m < 3; ++m) {
    snprintf(paths[m], sizeof paths[m], "%s", mpi_test_path(files[m]));
    write_file(paths[m], modes[m]);
    check_file(paths[m], modes[m]);
    check_bytes(paths[m]);
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
