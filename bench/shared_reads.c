/*
 * shared_reads.c -- open + read of many tiny arrays that every rank reads
 * whole (the CGNS cgp_open pattern, seed 004, workloads.md "CGNS cgp_open").
 *
 * ncmpi_* API only: built against exacdf (BENCH_EXPECT_EXACDF=1) and against
 * the system PnetCDF (BENCH_EXPECT_EXACDF=0) from this one source.
 * Self-contained (no bench_common.h) so it does not depend on files other
 * benchmarks are changing.
 *
 *   shared_reads gen  FILE
 *       one CDF-5 file: 128 bases x 32 zones; per base a 2-element int array,
 *       per zone a 3x3 int64 array and a 10-char "Structured" char array, one
 *       scalar float (the CGNS library version), 4-5 attributes on each
 *       (8,321 variables).  Written collectively; values are a function of
 *       (base, zone) so the reader can check them.
 *   shared_reads read FILE [key=value ...]
 *       every rank: ncmpi_open (the key=value pairs go into the MPI_Info, e.g.
 *       exa_bcast_read=enable|disable; PnetCDF ignores keys it does not know),
 *       then for every variable a collective ncmpi_get_var_<type>_all of the
 *       whole array (every rank the same region), value check, ncmpi_close.
 *       Prints one RESULT line: open/read/close seconds (max over ranks), bytes
 *       from ncmpi_inq_get_size (min/max/sum over ranks), MPI-IO read calls
 *       made by the library (counted by PMPI wrappers below: min/max/sum over
 *       ranks) and read-type system calls (/proc/self/io syscr delta).
 */
#include <mpi.h>
#include <pnetcdf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_LIB
#define BENCH_LIB "unknown"
#endif
#if defined(BENCH_EXPECT_EXACDF)
#if BENCH_EXPECT_EXACDF && !defined(EXACDF_FOR_EACH_MEMTYPE)
#error "shared_reads_exacdf compiled against a pnetcdf.h that is not exacdf's"
#elif !BENCH_EXPECT_EXACDF && defined(EXACDF_FOR_EACH_MEMTYPE)
#error "shared_reads_pnetcdf compiled against exacdf's pnetcdf.h"
#endif
#endif

enum { NBASES = 128, NZONES = 32 };

#define DIE(...)                                                        \
  do {                                                                  \
    fprintf(stderr, "shared_reads error (%s:%d): ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                       \
    fprintf(stderr, "\n");                                              \
    MPI_Abort(MPI_COMM_WORLD, 1);                                       \
  } while (0)

#define CHECK(call)                                                     \
  do {                                                                  \
    int err_ = (call);                                                  \
    if (err_ != NC_NOERR) DIE("%s: %s", #call, ncmpi_strerror(err_));   \
  } while (0)

/* ---------------------------------------------- PMPI read-call counting */
/* The executable's definitions take precedence over libmpi's for every
 * shared library loaded after it (libexacdf, libpnetcdf), so these count the
 * MPI-IO read calls the I/O library makes.  Enabled only around the timed
 * phases (counting is two increments; it costs nothing measurable). */
static long long g_read_calls = 0;
static long long g_read_bytes = 0;
static long long g_set_view_calls = 0;
static int g_counting = 0;

static void count_read(MPI_Datatype t, int count) {
  if (!g_counting) return;
  int size = 0;
  PMPI_Type_size(t, &size);
  g_read_calls++;
  g_read_bytes += (long long)size * count;
}

int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,
                     MPI_Status *st) {
  count_read(t, count);
  return PMPI_File_read_at(fh, off, buf, count, t, st);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,
                         MPI_Status *st) {
  count_read(t, count);
  return PMPI_File_read_at_all(fh, off, buf, count, t, st);
}
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype t, MPI_Status *st) {
  count_read(t, count);
  return PMPI_File_read(fh, buf, count, t, st);
}
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype t, MPI_Status *st) {
  count_read(t, count);
  return PMPI_File_read_all(fh, buf, count, t, st);
}
int MPI_File_iread_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,
                      MPI_Request *req) {
  count_read(t, count);
  return PMPI_File_iread_at(fh, off, buf, count, t, req);
}
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
  if (g_counting) g_set_view_calls++;
  return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
}
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype t, MPI_Request *req) {
  count_read(t, count);
  return PMPI_File_iread(fh, buf, count, t, req);
}

/* Read-type system calls this process made so far (Linux /proc/self/io). */
static long long syscr_now(void) {
  FILE *f = fopen("/proc/self/io", "r");
  if (!f) return -1;
  char key[64];
  long long v, out = -1;
  while (fscanf(f, "%63s %lld", key, &v) == 2)
    if (strcmp(key, "syscr:") == 0) out = v;
  fclose(f);
  return out;
}

/* ---------------------------------------------------------- the values */
static void base_values(int b, int v[2]) {
  v[0] = 3 + b;        /* cell dimension-like, distinct per base */
  v[1] = 1000 + b;
}
static void zone_values(int b, int z, long long v[9]) {
  for (int k = 0; k < 9; k++) v[k] = (1LL << 33) + (long long)(b * NZONES + z) * 100 + k;
}
static const char kZoneType[10] = {'S', 't', 'r', 'u', 'c', 't', 'u', 'r', 'e', 'd'};
static const float kVersion = 4.2f;

/* ------------------------------------------------------------ generator */
static void put_attrs(int ncid, int varid, const char *label, int id) {
  const double scale[2] = {1.0, 0.5};
  CHECK(ncmpi_put_att_text(ncid, varid, "label", strlen(label), label));
  CHECK(ncmpi_put_att_text(ncid, varid, "data_type", 2, "I4"));
  CHECK(ncmpi_put_att_int(ncid, varid, "id", NC_INT, 1, &id));
  CHECK(ncmpi_put_att_double(ncid, varid, "scale", NC_DOUBLE, 2, scale));
  CHECK(ncmpi_put_att_text(ncid, varid, "flags", 4, "MT  "));
}

static void generate(const char *path) {
  int rank, ncid, d2, d3, d10;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  const char *title = "CGNS-like cgp_open test (seed 004)";
  CHECK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", strlen(title), title));
  CHECK(ncmpi_def_dim(ncid, "two", 2, &d2));
  CHECK(ncmpi_def_dim(ncid, "three", 3, &d3));
  CHECK(ncmpi_def_dim(ncid, "ten", 10, &d10));
  int *bvar = malloc(sizeof(int) * NBASES);
  int *svar = malloc(sizeof(int) * NBASES * NZONES);
  int *tvar = malloc(sizeof(int) * NBASES * NZONES);
  int vvar;
  char name[64];
  CHECK(ncmpi_def_var(ncid, "CGNSLibraryVersion", NC_FLOAT, 0, NULL, &vvar));
  put_attrs(ncid, vvar, "CGNSLibraryVersion_t", -1);
  for (int b = 0; b < NBASES; b++) {
    snprintf(name, sizeof name, "Base%03d", b);
    CHECK(ncmpi_def_var(ncid, name, NC_INT, 1, &d2, &bvar[b]));
    put_attrs(ncid, bvar[b], "CGNSBase_t", b);
    for (int z = 0; z < NZONES; z++) {
      int dims[2] = {d3, d3};
      snprintf(name, sizeof name, "Base%03d_Zone%02d", b, z);
      CHECK(ncmpi_def_var(ncid, name, NC_INT64, 2, dims, &svar[b * NZONES + z]));
      put_attrs(ncid, svar[b * NZONES + z], "Zone_t", b * NZONES + z);
      snprintf(name, sizeof name, "Base%03d_Zone%02d_ZoneType", b, z);
      CHECK(ncmpi_def_var(ncid, name, NC_CHAR, 1, &d10, &tvar[b * NZONES + z]));
      put_attrs(ncid, tvar[b * NZONES + z], "ZoneType_t", b * NZONES + z);
    }
  }
  CHECK(ncmpi_enddef(ncid));
  /* Rank 0 writes everything (independent mode); the data are tiny. */
  CHECK(ncmpi_begin_indep_data(ncid));
  if (rank == 0) {
    CHECK(ncmpi_put_var_float(ncid, vvar, &kVersion));
    for (int b = 0; b < NBASES; b++) {
      int bv[2];
      base_values(b, bv);
      CHECK(ncmpi_put_var_int(ncid, bvar[b], bv));
      for (int z = 0; z < NZONES; z++) {
        long long zv[9];
        zone_values(b, z, zv);
        CHECK(ncmpi_put_var_longlong(ncid, svar[b * NZONES + z], zv));
        CHECK(ncmpi_put_var_text(ncid, tvar[b * NZONES + z], kZoneType));
      }
    }
  }
  CHECK(ncmpi_end_indep_data(ncid));
  int nvars = 0;
  CHECK(ncmpi_inq_nvars(ncid, &nvars));
  CHECK(ncmpi_close(ncid));
  if (rank == 0) printf("generated %s: %d variables\n", path, nvars);
  free(bvar);
  free(svar);
  free(tvar);
}

/* --------------------------------------------------------------- reader */
static int read_all(int ncid, long long *nbytes) {
  int nvars = 0, bad = 0;
  CHECK(ncmpi_inq_nvars(ncid, &nvars));
  for (int varid = 0; varid < nvars; varid++) {
    char name[NC_MAX_NAME + 1];
    nc_type xtype;
    int ndims, b = -1, z = -1;
    CHECK(ncmpi_inq_var(ncid, varid, name, &xtype, &ndims, NULL, NULL));
    if (xtype == NC_FLOAT) {
      float v = 0;
      CHECK(ncmpi_get_var_float_all(ncid, varid, &v));
      bad += v != kVersion;
      *nbytes += 4;
    } else if (xtype == NC_INT) {
      int v[2] = {0, 0}, want[2];
      sscanf(name, "Base%3d", &b);
      CHECK(ncmpi_get_var_int_all(ncid, varid, v));
      base_values(b, want);
      bad += v[0] != want[0] || v[1] != want[1];
      *nbytes += 8;
    } else if (xtype == NC_INT64) {
      long long v[9] = {0}, want[9];
      sscanf(name, "Base%3d_Zone%2d", &b, &z);
      CHECK(ncmpi_get_var_longlong_all(ncid, varid, v));
      zone_values(b, z, want);
      bad += memcmp(v, want, sizeof v) != 0;
      *nbytes += 72;
    } else if (xtype == NC_CHAR) {
      char v[10] = {0};
      CHECK(ncmpi_get_var_text_all(ncid, varid, v));
      bad += memcmp(v, kZoneType, 10) != 0;
      *nbytes += 10;
    } else {
      DIE("unexpected type %d of variable %s", (int)xtype, name);
    }
  }
  if (bad) DIE("%d variables read back wrong values", bad);
  return nvars;
}

static void minmaxsum(long long v, long long out[3]) {
  MPI_Allreduce(&v, &out[0], 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &out[1], 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &out[2], 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static double maxd(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static void reader(const char *path, int nhints, char **hints, const char *label) {
  int rank, nprocs, ncid;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Info info;
  MPI_Info_create(&info);
  for (int i = 0; i < nhints; i++) {
    char kv[256];
    snprintf(kv, sizeof kv, "%s", hints[i]);
    char *eq = strchr(kv, '=');
    if (!eq) DIE("hint '%s' is not key=value", hints[i]);
    *eq = '\0';
    MPI_Info_set(info, kv, eq + 1);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  g_counting = 1;
  long long calls0 = g_read_calls, sys0 = syscr_now();
  double t0 = MPI_Wtime();
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  double t_open = MPI_Wtime() - t0;
  long long calls_open = g_read_calls - calls0;
  MPI_Offset got0 = 0;
  CHECK(ncmpi_inq_get_size(ncid, &got0));

  MPI_Barrier(MPI_COMM_WORLD);
  long long views1 = g_set_view_calls;
  long long calls1 = g_read_calls, sys1 = syscr_now(), payload = 0;
  t0 = MPI_Wtime();
  int nvars = read_all(ncid, &payload);
  double t_read = MPI_Wtime() - t0;
  long long views_read = g_set_view_calls - views1;
  long long calls_read = g_read_calls - calls1, sys_read = syscr_now() - sys1;
  MPI_Offset got1 = 0;
  CHECK(ncmpi_inq_get_size(ncid, &got1));

  /* What the library says it used for the broadcast hint (exacdf reports it;
   * PnetCDF does not know the key). */
  char bcast_used[64] = "n/a";
  MPI_Info used;
  if (ncmpi_inq_file_info(ncid, &used) == NC_NOERR) {
    int flag = 0;
    MPI_Info_get(used, "exa_bcast_read", sizeof bcast_used - 1, bcast_used, &flag);
    if (!flag) strcpy(bcast_used, "n/a");
    MPI_Info_free(&used);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  CHECK(ncmpi_close(ncid));
  double t_close = MPI_Wtime() - t0;
  long long sys_all = syscr_now() - sys0;
  g_counting = 0;
  MPI_Info_free(&info);

  double open_s = maxd(t_open), read_s = maxd(t_read), close_s = maxd(t_close);
  long long gs[3], co[3], cr[3], sr[3], sa[3], sv[3];
  minmaxsum(views_read, sv);
  minmaxsum((long long)(got1 - got0), gs);
  minmaxsum(calls_open, co);
  minmaxsum(calls_read, cr);
  minmaxsum(sys_read, sr);
  minmaxsum(sys_all, sa);
  if (rank == 0)
    printf("RESULT bench=shared_reads lib=%s label=%s ranks=%d nvars=%d payload_bytes=%lld "
           "open_s=%.6f read_s=%.6f close_s=%.6f total_s=%.6f bcast_hint_used=%s "
           "get_bytes_min=%lld get_bytes_max=%lld get_bytes_sum=%lld "
           "open_read_calls_max=%lld open_read_calls_sum=%lld "
           "read_calls_min=%lld read_calls_max=%lld read_calls_sum=%lld "
           "read_syscalls_min=%lld read_syscalls_max=%lld read_syscalls_sum=%lld "
           "all_syscalls_sum=%lld set_view_calls_max=%lld\n",
           BENCH_LIB, label, nprocs, nvars, payload, open_s, read_s, close_s,
           open_s + read_s + close_s, bcast_used, gs[0], gs[1], gs[2], co[1], co[2], cr[0], cr[1],
           cr[2], sr[0], sr[1], sr[2], sa[2], sv[1]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: %s gen FILE | read FILE [label=NAME] [key=value ...]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(argv[1], "gen") == 0) {
    generate(argv[2]);
  } else if (strcmp(argv[1], "read") == 0) {
    const char *label = BENCH_LIB;
    char *hints[32];
    int nhints = 0;
    for (int i = 3; i < argc; i++) {
      if (strncmp(argv[i], "label=", 6) == 0)
        label = argv[i] + 6;
      else if (nhints < 32)
        hints[nhints++] = argv[i];
    }
    reader(argv[2], nhints, hints, label);
  } else {
    DIE("unknown mode %s", argv[1]);
  }
  MPI_Finalize();
  return 0;
}
