/*
 * cache_reads.c -- the three analysis read kernels of issue 18 (seed 001, Data Elevator's
 * read prefetch), with the ncmpi_* API only: the same binary reads directly or through
 * `cache{prefetch=..;ghost=..}` (EXACDF_CONNECTORS).
 *
 *   cache_reads KERNEL PATH write
 *   cache_reads KERNEL PATH read [COMPUTE_MS_PER_MIB=0]
 *
 * KERNEL:
 *   conv  a float field [31][768][1152] read in [31][768][32] chunks along x; a 3x3
 *         convolution in (y, x) of every plane of the chunk;
 *   grad  a float field [400][400][160] read in [50][50][20] chunks, each with its ghost
 *         zone of 1 (clipped at the edges: a [52][52][22] read inside); the 7-point
 *         gradient magnitude of the chunk;
 *   vort  u and v [NT=10][1100][1080], one [1100][1080] slice of each per step; the 2-D
 *         vorticity dv/dx - du/dy from the 4 neighbours.
 * Chunks go round-robin to the ranks (chunk c to rank c % ranks; chunk order: z, y, x
 * with x fastest), read in independent data mode with ncmpi_get_vara_float.
 * "write" makes the file (collective puts, values a function of the index). "read"
 * first drops the file from the page cache (rank 0: fdatasync + posix_fadvise
 * POSIX_FADV_DONTNEED), then runs the kernel; COMPUTE_MS_PER_MIB adds busy work after each
 * chunk, that many milliseconds per MiB the chunk read (the application's own computation,
 * which prefetch overlaps with reading; per MiB so that the kernels' chunk sizes compare).
 * MPI_Init_thread asks for MPI_THREAD_MULTIPLE (the cache connector's fetcher thread).
 *
 * Rank 0 prints one line (times: max over ranks):
 *   RESULT kernel=K ranks=R chunks=C bytes=B compute_ms=.. t_read=.. t_total=.. checksum=..
 *          served=.. direct=.. fetched=.. fetched_bytes=..
 * t_read: the time the application spent in its gets; t_total: open to close;
 * served/direct/fetched: exa_cache_read_stats summed over ranks (0 without cache).
 */
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exacdf.h"

#define CHECK(call)                                                                       \
  do {                                                                                    \
    int err_ = (call);                                                                    \
    if (err_ != NC_NOERR) {                                                               \
      fprintf(stderr, "cache_reads %s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                       \
    }                                                                                     \
  } while (0)

typedef struct {
  const char *name;
  int nvars;                /* 1, or 2 (u, v) */
  MPI_Offset dims[3];       /* the variable's shape */
  MPI_Offset chunk[3];      /* the chunk's */
  int ghost;                /* the kernel reads its chunk with this ghost zone (y, x; and z for grad) */
} kernel_spec;

static const kernel_spec kKernels[] = {
    {"conv", 1, {31, 768, 1152}, {31, 768, 32}, 0},
    {"grad", 1, {400, 400, 160}, {50, 50, 20}, 1},
    {"vort", 2, {10, 1100, 1080}, {1, 1100, 1080}, 1},
};

static int rank = 0, nprocs = 1;

static float value_at(MPI_Offset z, MPI_Offset y, MPI_Offset x, int var) {
  return (float)(sin(0.01 * (double)x + 0.5 * var) + cos(0.013 * (double)y) + 0.001 * (double)z);
}

static double now(void) { return MPI_Wtime(); }

static void write_file(const kernel_spec *k, const char *path) {
  int ncid, dims[3], vars[2];
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  const char *dn[3] = {"z", "y", "x"};
  for (int d = 0; d < 3; ++d) CHECK(ncmpi_def_dim(ncid, dn[d], k->dims[d], &dims[d]));
  const char *vn[2] = {"u", "v"};
  for (int v = 0; v < k->nvars; ++v) CHECK(ncmpi_def_var(ncid, vn[v], NC_FLOAT, 3, dims, &vars[v]));
  CHECK(ncmpi_enddef(ncid));
  /* Planes of z round-robin, all ranks the same number of collective calls. */
  const MPI_Offset plane = k->dims[1] * k->dims[2];
  float *buf = malloc(sizeof(float) * (size_t)plane);
  for (int v = 0; v < k->nvars; ++v)
    for (MPI_Offset z0 = 0; z0 < k->dims[0]; z0 += nprocs) {
      const MPI_Offset z = z0 + rank;
      MPI_Offset start[3] = {z < k->dims[0] ? z : 0, 0, 0}, count[3] = {z < k->dims[0] ? 1 : 0, k->dims[1], k->dims[2]};
      if (count[0])
        for (MPI_Offset y = 0; y < k->dims[1]; ++y)
          for (MPI_Offset x = 0; x < k->dims[2]; ++x) buf[y * k->dims[2] + x] = value_at(z, y, x, v);
      CHECK(ncmpi_put_vara_float_all(ncid, vars[v], start, count, buf));
    }
  free(buf);
  CHECK(ncmpi_close(ncid));
}

/* The file leaves the page cache: reads come from the target, not memory. */
static void drop_cache(const char *path) {
  if (rank == 0) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
      fdatasync(fd);
      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      close(fd);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void busy(double ms) {
  if (ms <= 0) return;
  const double until = now() + ms * 1e-3;
  volatile double x = 1.0;
  while (now() < until)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
}

/* The kernels: real arithmetic over the chunk read (with its ghost zone). */
static double conv(const float *a, MPI_Offset nz, MPI_Offset ny, MPI_Offset nx) {
  double s = 0;
  for (MPI_Offset z = 0; z < nz; ++z)
    for (MPI_Offset y = 1; y + 1 < ny; ++y)
      for (MPI_Offset x = 1; x + 1 < nx; ++x) {
        const float *p = a + (z * ny + y) * nx + x;
        s += 0.25 * p[0] + 0.125 * (p[-1] + p[1] + p[-nx] + p[nx]) +
             0.0625 * (p[-nx - 1] + p[-nx + 1] + p[nx - 1] + p[nx + 1]);
      }
  return s;
}

static double grad(const float *a, MPI_Offset nz, MPI_Offset ny, MPI_Offset nx) {
  double s = 0;
  for (MPI_Offset z = 1; z + 1 < nz; ++z)
    for (MPI_Offset y = 1; y + 1 < ny; ++y)
      for (MPI_Offset x = 1; x + 1 < nx; ++x) {
        const float *p = a + (z * ny + y) * nx + x;
        const double gx = p[1] - p[-1], gy = p[nx] - p[-nx], gz = p[nx * ny] - p[-nx * ny];
        s += sqrt(gx * gx + gy * gy + gz * gz);
      }
  return s;
}

static double vort(const float *u, const float *v, MPI_Offset ny, MPI_Offset nx) {
  double s = 0;
  for (MPI_Offset y = 1; y + 1 < ny; ++y)
    for (MPI_Offset x = 1; x + 1 < nx; ++x) {
      const MPI_Offset i = y * nx + x;
      s += fabs(0.5 * (v[i + 1] - v[i - 1]) - 0.5 * (u[i + nx] - u[i - nx]));
    }
  return s;
}

static void read_kernel(const kernel_spec *k, const char *path, double compute_ms) {
  drop_cache(path);
  const double t0 = now();
  int ncid, vars[2];
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  const char *vn[2] = {"u", "v"};
  for (int v = 0; v < k->nvars; ++v) CHECK(ncmpi_inq_varid(ncid, vn[v], &vars[v]));
  CHECK(ncmpi_begin_indep_data(ncid));
  MPI_Offset nch[3], nchunks = 1;
  for (int d = 0; d < 3; ++d) {
    nch[d] = (k->dims[d] + k->chunk[d] - 1) / k->chunk[d];
    nchunks *= nch[d];
  }
  MPI_Offset most = 1;
  for (int d = 0; d < 3; ++d) most *= k->chunk[d] + 2 * k->ghost;
  float *buf[2] = {malloc(sizeof(float) * (size_t)most), malloc(sizeof(float) * (size_t)most)};
  double t_read = 0, sum = 0;
  long long bytes = 0;
  for (MPI_Offset c = rank; c < nchunks; c += nprocs) {
    const MPI_Offset idx[3] = {c / (nch[1] * nch[2]), (c / nch[2]) % nch[1], c % nch[2]};
    MPI_Offset start[3], count[3];
    for (int d = 0; d < 3; ++d) {
      const int g = (k->nvars == 2 && d == 0) ? 0 : k->ghost;  /* vort: no ghost in time */
      MPI_Offset lo = idx[d] * k->chunk[d] - g, hi = (idx[d] + 1) * k->chunk[d] + g;
      if (lo < 0) lo = 0;
      if (hi > k->dims[d]) hi = k->dims[d];
      start[d] = lo;
      count[d] = hi - lo;
    }
    const double r0 = now();
    for (int v = 0; v < k->nvars; ++v) CHECK(ncmpi_get_vara_float(ncid, vars[v], start, count, buf[v]));
    t_read += now() - r0;
    bytes += (long long)(count[0] * count[1] * count[2]) * 4 * k->nvars;
    if (k->nvars == 2) sum += vort(buf[0], buf[1], count[1], count[2]);
    else if (k->ghost) sum += grad(buf[0], count[0], count[1], count[2]);
    else sum += conv(buf[0], count[0], count[1], count[2]);
    busy(compute_ms * (double)(count[0] * count[1] * count[2]) * 4 * k->nvars / 1048576.0);
  }
  exa_cache_read_info info;
  CHECK(exa_cache_read_stats(ncid, &info));
  CHECK(ncmpi_end_indep_data(ncid));
  CHECK(ncmpi_close(ncid));
  const double t_total = now() - t0;
  double times[2] = {t_read, t_total}, tmax[2];
  MPI_Reduce(times, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  long long counts[5] = {info.served_reads, info.direct_reads, info.fetched_chunks, info.fetched_bytes, bytes}, csum[5];
  MPI_Reduce(counts, csum, 5, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double total_sum = 0;
  MPI_Reduce(&sum, &total_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("RESULT kernel=%s ranks=%d chunks=%lld bytes=%lld compute_ms=%g t_read=%.3f t_total=%.3f checksum=%.6e "
           "served=%lld direct=%lld fetched=%lld fetched_bytes=%lld\n",
           k->name, nprocs, (long long)nchunks, csum[4], compute_ms, tmax[0], tmax[1], total_sum, csum[0], csum[1],
           csum[2], csum[3]);
  free(buf[0]);
  free(buf[1]);
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: %s conv|grad|vort PATH write|read [COMPUTE_MS_PER_MIB]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const kernel_spec *k = NULL;
  for (size_t i = 0; i < sizeof kKernels / sizeof kKernels[0]; ++i)
    if (strcmp(argv[1], kKernels[i].name) == 0) k = &kKernels[i];
  if (!k) {
    if (rank == 0) fprintf(stderr, "unknown kernel %s\n", argv[1]);
    MPI_Finalize();
    return 2;
  }
  if (strcmp(argv[3], "write") == 0) write_file(k, argv[2]);
  else read_kernel(k, argv[2], argc > 4 ? atof(argv[4]) : 0.0);
  MPI_Finalize();
  return 0;
}
