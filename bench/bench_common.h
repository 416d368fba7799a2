/*
 * bench_common.h -- shared by every data-path benchmark in bench/ (ncmpi, HDF5,
 * MPI-IO variants), so that all four libraries run the very same decomposition,
 * values, timing and result format.  Plain C + MPI; includes no I/O library
 * header (pnetcdf.h / hdf5.h are included by the variant sources only).
 *
 * Result lines, one per measurement, parsed by bench/aggregate.py:
 *   RESULT bench=<b> lib=<l> pattern=<p> ranks=<n> bytes=<B> key=value ...
 */
#ifndef EXACDF_BENCH_COMMON_H
#define EXACDF_BENCH_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---------------------------------------------------------------- errors */

#define BENCH_DIE(...)                                                  \
  do {                                                                  \
    fprintf(stderr, "bench error (%s:%d): ", __FILE__, __LINE__);       \
    fprintf(stderr, __VA_ARGS__);                                       \
    fprintf(stderr, "\n");                                              \
    MPI_Abort(MPI_COMM_WORLD, 1);                                       \
  } while (0)

static inline void *bench_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) BENCH_DIE("out of memory allocating %zu bytes", n);
  return p;
}

/* Max over ranks of a local duration: the time the slowest rank saw. */
static inline double bench_max(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static inline long long bench_sum_ll(long long v) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* Removes a file the benchmark wrote (rank 0), so the next run starts from an
 * empty file and its dirty pages are dropped instead of written back. */
static inline void bench_remove(const char *path, int keep) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && !keep) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* ---------------------------------------------------- byte order (BE) */

static inline int bench_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

/* Copies n elements of size 4 or 8 from src to dst in big-endian order (the
 * netCDF external order); dst may equal src.  SSE2 (every x86-64) 16 bytes at
 * a time, as fast as the libraries' own swaps, so the MPI-IO and pwrite
 * variants stay ceilings: a scalar loop (GCC does not vectorize bswap without
 * SSSE3) made them slower than the libraries they bound. */
static inline void bench_to_be(void *dst, const void *src, size_t n, int size) {
  if (!bench_little_endian()) {
    if (dst != src) memcpy(dst, src, n * (size_t)size);
    return;
  }
  size_t i = 0;
#if defined(__SSE2__)
  const size_t per = 16 / (size_t)size;
  for (; i + per <= n; i += per) {
    __m128i v = _mm_loadu_si128((const __m128i *)((const char *)src + i * (size_t)size));
    v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8)); /* bytes within 16-bit words */
    if (size == 4) {
      v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
      v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(2, 3, 0, 1));
    } else {
      v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
      v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
    }
    _mm_storeu_si128((__m128i *)((char *)dst + i * (size_t)size), v);
  }
#endif
  if (size == 4) {
    const uint32_t *s = (const uint32_t *)src;
    uint32_t *d = (uint32_t *)dst;
    for (; i < n; i++) d[i] = __builtin_bswap32(s[i]);
  } else {
    const uint64_t *s = (const uint64_t *)src;
    uint64_t *d = (uint64_t *)dst;
    for (; i < n; i++) d[i] = __builtin_bswap64(s[i]);
  }
}

/* --------------------------------------------- seed-003 3-D partitions */

#define P3D_NPATTERNS 7
static const char *const p3d_pattern_names[P3D_NPATTERNS] = {"Z", "Y", "X", "ZY", "ZX", "YX", "ZYX"};

/* One rank's piece of tt(Z,Y,X) under one partition pattern. */
typedef struct {
  int grid[3];          /* process grid along Z, Y, X */
  int coord[3];         /* this rank's position in it */
  long long start[3];   /* global start, Z Y X */
  long long count[3];   /* local extent, Z Y X */
  long long nelems;     /* count[0]*count[1]*count[2] */
} p3d_piece;

static inline int p3d_pattern_index(const char *name) {
  for (int i = 0; i < P3D_NPATTERNS; i++)
    if (strcmp(name, p3d_pattern_names[i]) == 0) return i;
  return -1;
}

/* Block decomposition of n over p parts; the first n%p parts get one more. */
static inline void p3d_split(long long n, int p, int c, long long *start, long long *count) {
  long long base = n / p, rem = n % p;
  *count = base + (c < rem ? 1 : 0);
  *start = c * base + (c < rem ? c : rem);
}

/* The process grid of MPI_Dims_create restricted to the pattern's axes, the
 * rank's coordinates in row-major (Z slowest) order, and its piece. */
static inline p3d_piece p3d_make_piece(const char *pattern, const long long gdims[3], int rank,
                                       int nprocs) {
  p3d_piece pc;
  int use[3] = {strchr(pattern, 'Z') != NULL, strchr(pattern, 'Y') != NULL,
                strchr(pattern, 'X') != NULL};
  int nd = use[0] + use[1] + use[2];
  int d[3] = {0, 0, 0};
  MPI_Dims_create(nprocs, nd, d);
  for (int a = 0, k = 0; a < 3; a++) pc.grid[a] = use[a] ? d[k++] : 1;
  int r = rank;
  pc.coord[2] = r % pc.grid[2];
  r /= pc.grid[2];
  pc.coord[1] = r % pc.grid[1];
  r /= pc.grid[1];
  pc.coord[0] = r;
  pc.nelems = 1;
  for (int a = 0; a < 3; a++) {
    p3d_split(gdims[a], pc.grid[a], pc.coord[a], &pc.start[a], &pc.count[a]);
    pc.nelems *= pc.count[a];
  }
  return pc;
}

/* The value stored at (z,y,x): exact in float, different for neighbours. */
static inline float p3d_value(long long z, long long y, long long x) {
  return (float)((z * 131 + y * 31 + x * 7) % 65521);
}

static inline void p3d_fill(const p3d_piece *pc, float *buf) {
  size_t i = 0;
  for (long long z = 0; z < pc->count[0]; z++)
    for (long long y = 0; y < pc->count[1]; y++)
      for (long long x = 0; x < pc->count[2]; x++)
        buf[i++] = p3d_value(pc->start[0] + z, pc->start[1] + y, pc->start[2] + x);
}

/* Number of wrong values (all ranks summed). */
static inline long long p3d_verify(const p3d_piece *pc, const float *buf) {
  long long bad = 0;
  size_t i = 0;
  for (long long z = 0; z < pc->count[0]; z++)
    for (long long y = 0; y < pc->count[1]; y++)
      for (long long x = 0; x < pc->count[2]; x++, i++)
        if (buf[i] != p3d_value(pc->start[0] + z, pc->start[1] + y, pc->start[2] + x)) bad++;
  return bench_sum_ll(bad);
}

typedef struct {
  long long gdims[3];
  char patterns[64];   /* comma-separated list or "all" */
  char dir[512];
  int reps;
  int keep;
} p3d_args;

static inline void p3d_usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [-z Z -y Y -x X] [-p all|Z,Y,X,ZY,ZX,YX,ZYX] [-r reps] [-d dir] [-k]\n"
          "  tt(Z,Y,X) floats, default 256x256x256 (64 MiB); -k keeps the files\n",
          prog);
}

static inline p3d_args p3d_parse(int argc, char **argv) {
  p3d_args a;
  a.gdims[0] = a.gdims[1] = a.gdims[2] = 256;
  snprintf(a.patterns, sizeof a.patterns, "all");
  snprintf(a.dir, sizeof a.dir, "%s", getenv("EXACDF_BENCH_DIR") ? getenv("EXACDF_BENCH_DIR") : ".");
  a.reps = 1;
  a.keep = 0;
  int c;
  while ((c = getopt(argc, argv, "z:y:x:p:r:d:kh")) != -1) {
    switch (c) {
      case 'z': a.gdims[0] = atoll(optarg); break;
      case 'y': a.gdims[1] = atoll(optarg); break;
      case 'x': a.gdims[2] = atoll(optarg); break;
      case 'p': snprintf(a.patterns, sizeof a.patterns, "%s", optarg); break;
      case 'r': a.reps = atoi(optarg); break;
      case 'd': snprintf(a.dir, sizeof a.dir, "%s", optarg); break;
      case 'k': a.keep = 1; break;
      default: p3d_usage(argv[0]); MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  return a;
}

/* Fills names[] with the selected pattern names, returns how many. */
static inline int p3d_select(const char *list, const char *names[P3D_NPATTERNS]) {
  if (strcmp(list, "all") == 0) {
    for (int i = 0; i < P3D_NPATTERNS; i++) names[i] = p3d_pattern_names[i];
    return P3D_NPATTERNS;
  }
  int n = 0;
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%s", list);
  for (char *tok = strtok(tmp, ","); tok && n < P3D_NPATTERNS; tok = strtok(NULL, ",")) {
    int i = p3d_pattern_index(tok);
    if (i < 0) BENCH_DIE("unknown pattern %s", tok);
    names[n++] = p3d_pattern_names[i];
  }
  return n;
}

static inline void p3d_report(const char *lib, const char *pattern, int nprocs, const p3d_piece *pc,
                              const long long gdims[3], int rep, double tw, double tr,
                              long long bad) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  long long bytes = gdims[0] * gdims[1] * gdims[2] * 4LL;
  printf("RESULT bench=partition3d lib=%s pattern=%s ranks=%d bytes=%lld grid=%dx%dx%d "
         "dims=%lldx%lldx%lld rep=%d write_s=%.6f read_s=%.6f write_mibs=%.2f read_mibs=%.2f "
         "bad=%lld\n",
         lib, pattern, nprocs, bytes, pc->grid[0], pc->grid[1], pc->grid[2], gdims[0], gdims[1],
         gdims[2], rep, tw, tr, bytes / 1048576.0 / tw, bytes / 1048576.0 / tr, bad);
  fflush(stdout);
}

/* ------------------------------------------------------------ FLASH-IO */

#define FL_NVARS 24
#define FL_NPLOT 4
#define FL_NGUARD 4
#define FL_NGID 15 /* 6 faces + parent + 8 children */
#define FL_NDIM 3

static const char *const fl_var_names[FL_NVARS] = {
    "dens", "velx", "vely", "velz", "pres", "ener", "temp", "gamc", "game", "enuc", "gpot", "f1  ",
    "f2  ", "f3  ", "f4  ", "f5  ", "f6  ", "f7  ", "f8  ", "f9  ", "f10 ", "f11 ", "f12 ", "f13 "};
/* Plotfile variables: indices into fl_var_names. */
static const int fl_plot_vars[FL_NPLOT] = {0, 4, 6, 11};

/* One rank's share of the AMR mesh and where it goes in the files. */
typedef struct {
  int nxb;              /* interior cells per side */
  int nb;               /* guarded cells per side, nxb + 2*FL_NGUARD */
  int lnblocks;         /* local blocks: base + rank % 3 */
  long long first;      /* global index of this rank's first block */
  long long tot_blocks; /* all ranks */
  double *unk;          /* unk[blk][k][j][i][var], guard cells included (FLASH order) */
  float *corner;        /* corner[var4][blk][k][j][i], (nxb+1)^3, precomputed */
  int *lrefine, *nodetype, *gid;             /* per block: 1, 1, FL_NGID */
  double *coord, *bsize, *bnd_box;           /* per block: 3, 3, 3*2 */
} fl_mesh;

/* Bytes one block adds over the three files (data only, headers excluded). */
static inline long long fl_block_bytes(int nxb) {
  long long c = (long long)nxb * nxb * nxb, k = (long long)(nxb + 1) * (nxb + 1) * (nxb + 1);
  long long meta = 4 + 4 + 4 * FL_NGID + 8 * 3 + 8 * 3 + 8 * 6;
  return FL_NVARS * c * 8 + FL_NPLOT * c * 4 + FL_NPLOT * k * 4 + 3 * meta;
}

static inline long long fl_meta_bytes(void) { return 4 + 4 + 4 * FL_NGID + 8 * 3 + 8 * 3 + 8 * 6; }

static inline size_t fl_unk_index(const fl_mesh *m, int b, int k, int j, int i, int v) {
  size_t nb = (size_t)m->nb;
  return ((((size_t)b * nb + k) * nb + j) * nb + i) * FL_NVARS + v;
}

static inline double fl_value(long long blk, int k, int j, int i, int v) {
  return (double)(blk * 1000003 + (k * 10007 + j * 101 + i) * 29 + v) * 0.5;
}

/* Builds the local mesh: base + rank%3 blocks (FLASH-IO's 80 + rank%3 when
 * base = 80), with data everywhere including the guard cells. */
static inline fl_mesh fl_make_mesh(int nxb, int base) {
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  fl_mesh m;
  memset(&m, 0, sizeof m);
  m.nxb = nxb;
  m.nb = nxb + 2 * FL_NGUARD;
  m.lnblocks = base + rank % 3;
  long long mine = m.lnblocks, before = 0;
  MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  m.first = rank == 0 ? 0 : before;
  m.tot_blocks = bench_sum_ll(mine);
  size_t per = (size_t)m.nb * m.nb * m.nb * FL_NVARS;
  m.unk = (double *)bench_malloc(per * m.lnblocks * sizeof(double));
  for (int b = 0; b < m.lnblocks; b++)
    for (int k = 0; k < m.nb; k++)
      for (int j = 0; j < m.nb; j++)
        for (int i = 0; i < m.nb; i++)
          for (int v = 0; v < FL_NVARS; v++)
            m.unk[fl_unk_index(&m, b, k, j, i, v)] = fl_value(m.first + b, k, j, i, v);
  size_t nc = (size_t)(nxb + 1) * (nxb + 1) * (nxb + 1);
  m.corner = (float *)bench_malloc(FL_NPLOT * nc * m.lnblocks * sizeof(float));
  /* corner value: mean of the 8 cells around the corner (guards give the outer ones) */
  for (int p = 0; p < FL_NPLOT; p++)
    for (int b = 0; b < m.lnblocks; b++) {
      float *dst = m.corner + ((size_t)p * m.lnblocks + b) * nc;
      size_t n = 0;
      for (int k = 0; k <= nxb; k++)
        for (int j = 0; j <= nxb; j++)
          for (int i = 0; i <= nxb; i++) {
            double s = 0;
            for (int dk = 0; dk < 2; dk++)
              for (int dj = 0; dj < 2; dj++)
                for (int di = 0; di < 2; di++)
                  s += m.unk[fl_unk_index(&m, b, FL_NGUARD - 1 + k + dk, FL_NGUARD - 1 + j + dj,
                                          FL_NGUARD - 1 + i + di, fl_plot_vars[p])];
            dst[n++] = (float)(s / 8);
          }
    }
  m.lrefine = (int *)bench_malloc(sizeof(int) * m.lnblocks);
  m.nodetype = (int *)bench_malloc(sizeof(int) * m.lnblocks);
  m.gid = (int *)bench_malloc(sizeof(int) * m.lnblocks * FL_NGID);
  m.coord = (double *)bench_malloc(sizeof(double) * m.lnblocks * 3);
  m.bsize = (double *)bench_malloc(sizeof(double) * m.lnblocks * 3);
  m.bnd_box = (double *)bench_malloc(sizeof(double) * m.lnblocks * 6);
  for (int b = 0; b < m.lnblocks; b++) {
    long long g = m.first + b;
    m.lrefine[b] = 1 + (int)(g % 5);
    m.nodetype[b] = 1 + (int)(g % 3);
    for (int n = 0; n < FL_NGID; n++) m.gid[b * FL_NGID + n] = (int)((g + n) % m.tot_blocks) + 1;
    for (int d = 0; d < 3; d++) {
      m.coord[b * 3 + d] = 0.25 * g + d;
      m.bsize[b * 3 + d] = 1.0 / (1 + g % 7);
      m.bnd_box[b * 6 + d * 2] = m.coord[b * 3 + d] - m.bsize[b * 3 + d] / 2;
      m.bnd_box[b * 6 + d * 2 + 1] = m.coord[b * 3 + d] + m.bsize[b * 3 + d] / 2;
    }
  }
  return m;
}

static inline void fl_free_mesh(fl_mesh *m) {
  free(m->unk);
  free(m->corner);
  free(m->lrefine);
  free(m->nodetype);
  free(m->gid);
  free(m->coord);
  free(m->bsize);
  free(m->bnd_box);
}

/* Packs the interior cells of variable v of every local block into out
 * (double), as FLASH's checkpoint routine does before each write. */
static inline void fl_pack_double(const fl_mesh *m, int v, double *out) {
  size_t n = 0;
  for (int b = 0; b < m->lnblocks; b++)
    for (int k = FL_NGUARD; k < FL_NGUARD + m->nxb; k++)
      for (int j = FL_NGUARD; j < FL_NGUARD + m->nxb; j++)
        for (int i = FL_NGUARD; i < FL_NGUARD + m->nxb; i++) out[n++] = m->unk[fl_unk_index(m, b, k, j, i, v)];
}

static inline void fl_pack_float(const fl_mesh *m, int v, float *out) {
  size_t n = 0;
  for (int b = 0; b < m->lnblocks; b++)
    for (int k = FL_NGUARD; k < FL_NGUARD + m->nxb; k++)
      for (int j = FL_NGUARD; j < FL_NGUARD + m->nxb; j++)
        for (int i = FL_NGUARD; i < FL_NGUARD + m->nxb; i++)
          out[n++] = (float)m->unk[fl_unk_index(m, b, k, j, i, v)];
}

typedef struct {
  int nxb;
  int base;               /* blocks per rank before + rank%3; 0 = from target */
  long long target_bytes; /* total over the three files; 0 = use base */
  char dir[512];
  int reps;
  int keep;
} fl_args;

static inline fl_args fl_parse(int argc, char **argv) {
  fl_args a;
  a.nxb = 8;
  a.base = 80;
  a.target_bytes = 0;
  snprintf(a.dir, sizeof a.dir, "%s", getenv("EXACDF_BENCH_DIR") ? getenv("EXACDF_BENCH_DIR") : ".");
  a.reps = 1;
  a.keep = 0;
  int c;
  while ((c = getopt(argc, argv, "n:b:t:d:r:kh")) != -1) {
    switch (c) {
      case 'n': a.nxb = atoi(optarg); break;
      case 'b': a.base = atoi(optarg); break;
      case 't': a.target_bytes = atoll(optarg); break;
      case 'd': snprintf(a.dir, sizeof a.dir, "%s", optarg); break;
      case 'r': a.reps = atoi(optarg); break;
      case 'k': a.keep = 1; break;
      default:
        fprintf(stderr,
                "usage: %s [-n nxb] [-b blocks_per_rank_base | -t total_bytes] [-d dir] [-r reps] [-k]\n"
                "  each rank holds base + rank%%3 blocks (FLASH-IO: base 80); -t picks base so the\n"
                "  three files hold about total_bytes of data\n",
                argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (a.target_bytes > 0) {
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    long long extra = 0; /* sum of rank%3 */
    for (int r = 0; r < nprocs; r++) extra += r % 3;
    long long blocks = (a.target_bytes + fl_block_bytes(a.nxb) / 2) / fl_block_bytes(a.nxb);
    long long base = (blocks - extra + nprocs / 2) / nprocs;
    a.base = base < 1 ? 1 : (int)base;
  }
  return a;
}

static inline void fl_report(const char *lib, int nprocs, const fl_mesh *m, int rep,
                             const double t[3], const double pack[3]) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  long long c = (long long)m->nxb * m->nxb * m->nxb;
  long long k = (long long)(m->nxb + 1) * (m->nxb + 1) * (m->nxb + 1);
  long long T = m->tot_blocks;
  long long b_ck = T * (FL_NVARS * c * 8 + fl_meta_bytes());
  long long b_pc = T * (FL_NPLOT * c * 4 + fl_meta_bytes());
  long long b_pk = T * (FL_NPLOT * k * 4 + fl_meta_bytes());
  long long bytes = b_ck + b_pc + b_pk;
  double tt = t[0] + t[1] + t[2];
  printf("RESULT bench=flash lib=%s pattern=nxb%d ranks=%d bytes=%lld tot_blocks=%lld rep=%d "
         "ckpt_s=%.6f plot_centered_s=%.6f plot_corner_s=%.6f pack_s=%.6f write_s=%.6f "
         "write_mibs=%.2f ckpt_bytes=%lld plotc_bytes=%lld plotk_bytes=%lld\n",
         lib, m->nxb, nprocs, bytes, T, rep, t[0], t[1], t[2], pack[0] + pack[1] + pack[2], tt,
         bytes / 1048576.0 / tt, b_ck, b_pc, b_pk);
  fflush(stdout);
}

#endif
