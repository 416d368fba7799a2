/*
 * shared_reads_h5.c -- the HDF5 equivalent of bench/shared_reads.c: the
 * CGNS cgp_open pattern of seed 004 as the paper describes it for HDF5.
 *
 *   shared_reads_h5 gen  FILE
 *       (rank 0, serial sec2 driver) 128 groups /BaseNNN, each with a dataset
 *       "data" int[2] and 32 subgroups ZoneNN, each with datasets "size"
 *       int64[3][3] and "type" char[10] ("Structured"), plus a scalar float
 *       dataset /CGNSLibraryVersion; 4-5 small attributes on every dataset
 *       and group (CGNS' ADFH keeps label/name/type/flags as attributes).
 *       Default (contiguous) layout: the layout whose parallel read the paper
 *       shows does not scale (its fix was compact storage or proc0-bcast).
 *   shared_reads_h5 read FILE [label=NAME] [coll_md=1] [indep=1]
 *       every rank: H5Fopen with the MPI-IO driver, then walk every group and
 *       H5Dread every dataset whole with a collective transfer property (all
 *       ranks the same selection), value check, H5Fclose.  coll_md=1 turns on
 *       H5Pset_all_coll_metadata_ops/H5Pset_coll_metadata_write (off by
 *       default, as in CGNS at the time of the paper); indep=1 uses
 *       independent H5Dread.
 *       Prints one RESULT line like shared_reads.c: open/read/close seconds
 *       (max over ranks), MPI-IO read calls (PMPI wrappers) and read syscalls.
 */
#include <hdf5.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NBASES = 128, NZONES = 32 };

#define DIE(...)                                                            \
  do {                                                                      \
    fprintf(stderr, "shared_reads_h5 error (%s:%d): ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                           \
    fprintf(stderr, "\n");                                                  \
    MPI_Abort(MPI_COMM_WORLD, 1);                                           \
  } while (0)
#define H5_OK(expr)                                 \
  do {                                                \
    if ((expr) < 0) DIE("HDF5 call failed: %s", #expr); \
  } while (0)

/* ---------------------------------------------- PMPI read-call counting */
static long long g_read_calls = 0;
static long long g_set_view_calls = 0;
static int g_counting = 0;

int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,
                     MPI_Status *st) {
  if (g_counting) g_read_calls++;
  return PMPI_File_read_at(fh, off, buf, count, t, st);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,
                         MPI_Status *st) {
  if (g_counting) g_read_calls++;
  return PMPI_File_read_at_all(fh, off, buf, count, t, st);
}
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype t, MPI_Status *st) {
  if (g_counting) g_read_calls++;
  return PMPI_File_read(fh, buf, count, t, st);
}
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype t, MPI_Status *st) {
  if (g_counting) g_read_calls++;
  return PMPI_File_read_all(fh, buf, count, t, st);
}
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
  if (g_counting) g_set_view_calls++;
  return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
}

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

/* ------------------------------------------------- values (as shared_reads.c) */
static void base_values(int b, int v[2]) {
  v[0] = 3 + b;
  v[1] = 1000 + b;
}
static void zone_values(int b, int z, long long v[9]) {
  for (int k = 0; k < 9; k++) v[k] = (1LL << 33) + (long long)(b * NZONES + z) * 100 + k;
}
static const char kZoneType[10] = {'S', 't', 'r', 'u', 'c', 't', 'u', 'r', 'e', 'd'};
static const float kVersion = 4.2f;

static void put_str_att(hid_t obj, const char *name, const char *value) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(value) + 1);
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  H5_OK(H5Awrite(a, t, value));
  H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
}

static void put_attrs(hid_t obj, const char *label, int id) {
  put_str_att(obj, "label", label);
  put_str_att(obj, "type", "I4");
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, "id", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
  H5_OK(H5Awrite(a, H5T_NATIVE_INT, &id));
  H5Aclose(a);
  H5Sclose(s);
  hsize_t two = 2;
  const double scale[2] = {1.0, 0.5};
  s = H5Screate_simple(1, &two, NULL);
  a = H5Acreate2(obj, "scale", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT);
  H5_OK(H5Awrite(a, H5T_NATIVE_DOUBLE, scale));
  H5Aclose(a);
  H5Sclose(s);
  put_str_att(obj, "flags", "MT");
}

static void write_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const void *buf, const char *label, int id) {
  hid_t s = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
  hid_t d = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0) DIE("H5Dcreate2 %s", name);
  H5_OK(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
  put_attrs(d, label, id);
  H5Dclose(d);
  H5Sclose(s);
}

static void generate(const char *path) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) DIE("H5Fcreate %s", path);
    write_dataset(f, "CGNSLibraryVersion", H5T_NATIVE_FLOAT, 0, NULL, &kVersion,
                  "CGNSLibraryVersion_t", -1);
    int ndatasets = 1;
    char name[64];
    for (int b = 0; b < NBASES; b++) {
      snprintf(name, sizeof name, "Base%03d", b);
      hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      put_attrs(g, "CGNSBase_t", b);
      int bv[2];
      base_values(b, bv);
      hsize_t two = 2, three[2] = {3, 3}, ten = 10;
      write_dataset(g, "data", H5T_NATIVE_INT, 1, &two, bv, "CGNSBase_t", b);
      ndatasets++;
      for (int z = 0; z < NZONES; z++) {
        snprintf(name, sizeof name, "Zone%02d", z);
        hid_t zg = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        put_attrs(zg, "Zone_t", b * NZONES + z);
        long long zv[9];
        zone_values(b, z, zv);
        write_dataset(zg, "size", H5T_NATIVE_LLONG, 2, three, zv, "Zone_t", b * NZONES + z);
        write_dataset(zg, "type", H5T_NATIVE_CHAR, 1, &ten, kZoneType, "ZoneType_t",
                      b * NZONES + z);
        ndatasets += 2;
        H5Gclose(zg);
      }
      H5Gclose(g);
    }
    H5Fclose(f);
    printf("generated %s: %d datasets\n", path, ndatasets);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Opens and reads one dataset whole, collectively or independently. */
static void read_dataset(hid_t loc, const char *name, hid_t memtype, void *buf, hid_t dxpl) {
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0) DIE("H5Dopen2 %s", name);
  H5_OK(H5Dread(d, memtype, H5S_ALL, H5S_ALL, dxpl, buf));
  H5Dclose(d);
}

static int read_all(hid_t f, hid_t dxpl, long long *payload) {
  int bad = 0, n = 0;
  char name[64];
  float ver = 0;
  read_dataset(f, "CGNSLibraryVersion", H5T_NATIVE_FLOAT, &ver, dxpl);
  bad += ver != kVersion;
  *payload += 4;
  n++;
  for (int b = 0; b < NBASES; b++) {
    snprintf(name, sizeof name, "Base%03d", b);
    hid_t g = H5Gopen2(f, name, H5P_DEFAULT);
    if (g < 0) DIE("H5Gopen2 %s", name);
    int bv[2] = {0, 0}, bw[2];
    read_dataset(g, "data", H5T_NATIVE_INT, bv, dxpl);
    base_values(b, bw);
    bad += bv[0] != bw[0] || bv[1] != bw[1];
    *payload += 8;
    n++;
    for (int z = 0; z < NZONES; z++) {
      snprintf(name, sizeof name, "Zone%02d", z);
      hid_t zg = H5Gopen2(g, name, H5P_DEFAULT);
      if (zg < 0) DIE("H5Gopen2 %s", name);
      long long zv[9] = {0}, zw[9];
      read_dataset(zg, "size", H5T_NATIVE_LLONG, zv, dxpl);
      zone_values(b, z, zw);
      bad += memcmp(zv, zw, sizeof zv) != 0;
      char t[10] = {0};
      read_dataset(zg, "type", H5T_NATIVE_CHAR, t, dxpl);
      bad += memcmp(t, kZoneType, 10) != 0;
      *payload += 82;
      n += 2;
      H5Gclose(zg);
    }
    H5Gclose(g);
  }
  if (bad) DIE("%d datasets read back wrong values", bad);
  return n;
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

static void reader(const char *path, const char *label, int coll_md, int indep) {
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5_OK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
  if (coll_md) {
    H5_OK(H5Pset_all_coll_metadata_ops(fapl, 1));
    H5_OK(H5Pset_coll_metadata_write(fapl, 1));
  }
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5_OK(H5Pset_dxpl_mpio(dxpl, indep ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE));

  MPI_Barrier(MPI_COMM_WORLD);
  g_counting = 1;
  long long c0 = g_read_calls, s0 = syscr_now();
  double t0 = MPI_Wtime();
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (f < 0) DIE("H5Fopen %s", path);
  double t_open = MPI_Wtime() - t0;
  long long calls_open = g_read_calls - c0;

  MPI_Barrier(MPI_COMM_WORLD);
  long long c1 = g_read_calls, s1 = syscr_now(), v1 = g_set_view_calls, payload = 0;
  t0 = MPI_Wtime();
  int n = read_all(f, dxpl, &payload);
  double t_read = MPI_Wtime() - t0;
  long long calls_read = g_read_calls - c1, sys_read = syscr_now() - s1;
  long long views_read = g_set_view_calls - v1;

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  H5_OK(H5Fclose(f));
  double t_close = MPI_Wtime() - t0;
  long long sys_all = syscr_now() - s0;
  g_counting = 0;
  H5Pclose(dxpl);
  H5Pclose(fapl);

  double open_s = maxd(t_open), read_s = maxd(t_read), close_s = maxd(t_close);
  long long co[3], cr[3], sr[3], sa[3], sv[3];
  minmaxsum(calls_open, co);
  minmaxsum(calls_read, cr);
  minmaxsum(sys_read, sr);
  minmaxsum(sys_all, sa);
  minmaxsum(views_read, sv);
  if (rank == 0)
    printf("RESULT bench=shared_reads lib=hdf5 label=%s ranks=%d nvars=%d payload_bytes=%lld "
           "open_s=%.6f read_s=%.6f close_s=%.6f total_s=%.6f bcast_hint_used=n/a "
           "get_bytes_min=-1 get_bytes_max=-1 get_bytes_sum=-1 "
           "open_read_calls_max=%lld open_read_calls_sum=%lld "
           "read_calls_min=%lld read_calls_max=%lld read_calls_sum=%lld "
           "read_syscalls_min=%lld read_syscalls_max=%lld read_syscalls_sum=%lld "
           "all_syscalls_sum=%lld set_view_calls_max=%lld\n",
           label, nprocs, n, payload, open_s, read_s, close_s, open_s + read_s + close_s, co[1],
           co[2], cr[0], cr[1], cr[2], sr[0], sr[1], sr[2], sa[2], sv[1]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: %s gen FILE | read FILE [label=NAME] [coll_md=1] [indep=1]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(argv[1], "gen") == 0) {
    generate(argv[2]);
  } else if (strcmp(argv[1], "read") == 0) {
    const char *label = "hdf5";
    int coll_md = 0, indep = 0;
    for (int i = 3; i < argc; i++) {
      if (strncmp(argv[i], "label=", 6) == 0) label = argv[i] + 6;
      else if (strcmp(argv[i], "coll_md=1") == 0) coll_md = 1;
      else if (strcmp(argv[i], "indep=1") == 0) indep = 1;
      else DIE("unknown argument %s", argv[i]);
    }
    reader(argv[2], label, coll_md, indep);
  } else {
    DIE("unknown mode %s", argv[1]);
  }
  MPI_Finalize();
  return 0;
}
