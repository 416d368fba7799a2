/*
 * e3sm_io.c -- an E3SM F-case-like output step (issue 4 benchmark).
 *
 * ncmpi_* API only: the same source builds against exacdf and against the
 * system PnetCDF (bench/run_e3sm_io.sh builds both).
 *
 * The file (CDF-5) looks like an E3SM atmosphere h0 history file, scaled down:
 *   dims   time (UNLIMITED), ncol, lev = 72, ilev = 73, nbnd = 2, chars = 8
 *   3 decompositions of the columns, each an irregular block-cyclic map:
 *     D1  (ncol)        -- 2-D fields  (time, ncol)       and lat/lon/area (ncol)
 *     D2  (lev x ncol)  -- 3-D fields  (time, lev, ncol)
 *     D3  (ilev x ncol) -- 3-D fields  (time, ilev, ncol)
 *   388 decomposed variables: 3 fixed (lat, lon, area: double, D1) and 385
 *   record float variables (321 on D1, 62 on D2, 2 on D3), interleaved in
 *   definition order; 26 non-decomposed variables (lev, hyam, time, date,
 *   time_bnds, date_written, co2vmr, ...) written by rank 0 only; 414 in all.
 *   Each variable carries units/long_name/cell_methods attributes.
 * Each rank owns, per decomposition, a deterministic set of column runs of
 * 1..maxlen columns (lengths and a quarter of the owners drawn from an LCG, the
 * rest round-robin): the many small noncontiguous pieces of E3SM's maps.  A
 * piece of a D2 variable is start (t, 0, c0) count (1, 72, len).
 *
 * Modes:
 *   nb        per variable one ncmpi_iput_varn_<type> (all of this rank's
 *             pieces; non-decomposed: ncmpi_iput_vara on rank 0), then ONE
 *             ncmpi_wait_all per step.
 *   blocking  the same bytes, per variable one ncmpi_put_varn_<type>_all
 *             (non-decomposed: ncmpi_put_vara_<type>_all, count 0 off rank 0).
 * The fixed variables are written first in their own timed phase, in the same
 * mode; then `steps` record steps are timed each (barrier, post + wait,
 * max over ranks).  Afterwards the file is reopened and sampled variables are
 * read back whole on every rank (get_vara_all) and every value checked.
 *
 * Each run also times the physical ceiling: every rank's share of a step's bytes
 * written with one plain pwrite per step (pwrite_step_s), into PATH.pwrite.
 *
 * MPI-IO calls are counted by bench/mpiio_count.c when it is LD_PRELOADed
 * (found here with dlsym); exacdf's own count comes from exa_inq_io_calls.
 *
 * Usage: e3sm_io nb|blocking PATH [ncol=N] [steps=S] [maxlen=L] [label=X]
 *                 [keep=0|1] [verify=0|1]
 * Prints one line:  RESULT bench=e3sm_io lib=... mode=... ranks=... key=value ...
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(BENCH_EXPECT_EXACDF)
#if BENCH_EXPECT_EXACDF && !defined(EXACDF_NC_CONSTANTS_H)
#error "exacdf build compiled against a pnetcdf.h that is not exacdf's"
#endif
#if !BENCH_EXPECT_EXACDF && defined(EXACDF_NC_CONSTANTS_H)
#error "PnetCDF build compiled against exacdf's pnetcdf.h"
#endif
#if BENCH_EXPECT_EXACDF
#include <exacdf.h>
#endif
#endif
#ifndef BENCH_LIB
#define BENCH_LIB "ncmpi"
#endif

#define DIE(...)                                                      \
  do {                                                                \
    fprintf(stderr, "e3sm_io error (%s:%d): ", __FILE__, __LINE__);   \
    fprintf(stderr, __VA_ARGS__);                                     \
    fprintf(stderr, "\n");                                            \
    MPI_Abort(MPI_COMM_WORLD, 1);                                     \
  } while (0)
#define CHECK(call)                                                    \
  do {                                                                 \
    int err_ = (call);                                                 \
    if (err_ != NC_NOERR) DIE("%s: %s (%d)", #call, ncmpi_strerror(err_), err_); \
  } while (0)

enum { NLEV = 72, NILEV = 73, NBND = 2, NCHARS = 8 };
enum { N_D1_REC = 321, N_D2_REC = 62, N_D3_REC = 2, N_FIXED_DEC = 3, N_NONDEC = 26 };
enum { N_REC_DEC = N_D1_REC + N_D2_REC + N_D3_REC };

static int rank, nprocs;

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) DIE("out of memory (%zu bytes)", n);
  return p;
}

static double dmax(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}
static long long llmax(long long v) {
  long long m;
  MPI_Allreduce(&v, &m, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return m;
}
static long long llmin(long long v) {
  long long m;
  MPI_Allreduce(&v, &m, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  return m;
}
static long long llsum(long long v) {
  long long m;
  MPI_Allreduce(&v, &m, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return m;
}

/* ------------------------------------------------------------ MPI-IO counts */
typedef int (*count_fn)(long long *);
static count_fn mpiio_count_fn;
static long long mpiio_calls(int *ok) { /* write + read calls, all kinds */
  long long c[8] = {0};
  if (!mpiio_count_fn) {
    *ok = 0;
    return 0;
  }
  mpiio_count_fn(c);
  *ok = 1;
  return c[0] + c[1] + c[2] + c[3];
}
static long long exa_calls(int ncid) {
#if defined(BENCH_EXPECT_EXACDF) && BENCH_EXPECT_EXACDF
  MPI_Offset n = -1;
  if (exa_inq_io_calls(ncid, &n) != NC_NOERR) return -1;
  return (long long)n;
#else
  (void)ncid;
  return -1;
#endif
}

/* ------------------------------------------------------------ decompositions */
typedef struct {
  int nlev;            /* 0 for a 2-D decomposition */
  int npieces;         /* this rank's column runs */
  MPI_Offset *c0, *len;
  MPI_Offset nelems;   /* this rank's values per variable per step */
} decomp_t;

static uint64_t lcg_state;
static uint32_t lcg(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(lcg_state >> 33);
}

/* The same map on every rank: the columns 0..ncol-1 cut into runs of 1..maxlen;
 * run i goes to rank i % nprocs, or (one in four) to a random rank. */
static void decomp_make(decomp_t *d, unsigned seed, MPI_Offset ncol, int maxlen, int nlev) {
  d->nlev = nlev;
  d->npieces = 0;
  int cap = 1024;
  d->c0 = xmalloc(sizeof(MPI_Offset) * cap);
  d->len = xmalloc(sizeof(MPI_Offset) * cap);
  lcg_state = 0x9e3779b97f4a7c15ULL * (seed + 1);
  MPI_Offset c = 0;
  long i = 0;
  while (c < ncol) {
    MPI_Offset l = 1 + (MPI_Offset)(lcg() % (uint32_t)maxlen);
    if (c + l > ncol) l = ncol - c;
    int owner = (lcg() % 4 == 0) ? (int)(lcg() % (uint32_t)nprocs) : (int)(i % nprocs);
    if (owner == rank) {
      if (d->npieces == cap) {
        cap *= 2;
        d->c0 = realloc(d->c0, sizeof(MPI_Offset) * cap);
        d->len = realloc(d->len, sizeof(MPI_Offset) * cap);
        if (!d->c0 || !d->len) DIE("out of memory");
      }
      d->c0[d->npieces] = c;
      d->len[d->npieces] = l;
      d->npieces++;
    }
    c += l;
    i++;
  }
  d->nelems = 0;
  for (int p = 0; p < d->npieces; p++) d->nelems += d->len[p] * (nlev ? nlev : 1);
}

/* starts/counts for ncmpi_*_varn: ndims = (record ? 1 : 0) + (nlev ? 1 : 0) + 1. */
typedef struct {
  int num, ndims;
  MPI_Offset **starts, **counts;
} varn_t;

static void varn_make(varn_t *v, const decomp_t *d, int record) {
  v->num = d->npieces;
  v->ndims = (record ? 1 : 0) + (d->nlev ? 1 : 0) + 1;
  v->starts = xmalloc(sizeof(MPI_Offset *) * (d->npieces ? d->npieces : 1));
  v->counts = xmalloc(sizeof(MPI_Offset *) * (d->npieces ? d->npieces : 1));
  MPI_Offset *s = xmalloc(sizeof(MPI_Offset) * v->ndims * (d->npieces ? d->npieces : 1));
  MPI_Offset *c = xmalloc(sizeof(MPI_Offset) * v->ndims * (d->npieces ? d->npieces : 1));
  for (int p = 0; p < d->npieces; p++) {
    MPI_Offset *sp = s + p * v->ndims, *cp = c + p * v->ndims;
    int k = 0;
    if (record) { sp[k] = 0; cp[k] = 1; k++; }
    if (d->nlev) { sp[k] = 0; cp[k] = d->nlev; k++; }
    sp[k] = d->c0[p];
    cp[k] = d->len[p];
    v->starts[p] = sp;
    v->counts[p] = cp;
  }
}
static void varn_set_time(varn_t *v, MPI_Offset t) {
  for (int p = 0; p < v->num; p++) v->starts[p][0] = t;
}

/* ------------------------------------------------------------ values */
/* Exact in float: an integer below 2^24. */
static inline float fval(int varid, int t, int k, MPI_Offset c) {
  return (float)((uint32_t)(varid * 7919u + (unsigned)t * 104729u + (unsigned)k * 131u +
                            (uint32_t)c) % 16777213u);
}
static inline double dval(int varid, MPI_Offset c) { return varid * 1.0e6 + (double)c * 0.25; }

/* Fills buf with this rank's values of a variable, in varn order. */
static void fill_float(float *buf, const decomp_t *d, int varid, int t) {
  size_t n = 0;
  int nl = d->nlev ? d->nlev : 1;
  for (int p = 0; p < d->npieces; p++)
    for (int k = 0; k < nl; k++)
      for (MPI_Offset j = 0; j < d->len[p]; j++) buf[n++] = fval(varid, t, k, d->c0[p] + j);
}
static void fill_double(double *buf, const decomp_t *d, int varid) {
  size_t n = 0;
  for (int p = 0; p < d->npieces; p++)
    for (MPI_Offset j = 0; j < d->len[p]; j++) buf[n++] = dval(varid, d->c0[p] + j);
}

/* ------------------------------------------------------------ the file */
typedef struct {
  int varid, decomp; /* decomp 0..2; -1 for non-decomposed */
} dvar_t;

/* Non-decomposed variables: name, type, shape code. */
enum { S_SCALAR, S_LEV, S_ILEV, S_T, S_T_BND, S_T_CHR };
static const struct {
  const char *name;
  nc_type type;
  int shape;
} nondec[N_NONDEC] = {
    {"lev", NC_DOUBLE, S_LEV},         {"hyam", NC_DOUBLE, S_LEV},
    {"hybm", NC_DOUBLE, S_LEV},        {"P0", NC_DOUBLE, S_SCALAR},
    {"ilev", NC_DOUBLE, S_ILEV},       {"hyai", NC_DOUBLE, S_ILEV},
    {"hybi", NC_DOUBLE, S_ILEV},       {"ndbase", NC_INT, S_SCALAR},
    {"nsbase", NC_INT, S_SCALAR},      {"nbdate", NC_INT, S_SCALAR},
    {"nbsec", NC_INT, S_SCALAR},       {"mdt", NC_INT, S_SCALAR},
    {"time", NC_DOUBLE, S_T},          {"date", NC_INT, S_T},
    {"datesec", NC_INT, S_T},          {"time_bnds", NC_DOUBLE, S_T_BND},
    {"date_written", NC_CHAR, S_T_CHR}, {"time_written", NC_CHAR, S_T_CHR},
    {"ndcur", NC_INT, S_T},            {"nscur", NC_INT, S_T},
    {"co2vmr", NC_DOUBLE, S_T},        {"ch4vmr", NC_DOUBLE, S_T},
    {"n2ovmr", NC_DOUBLE, S_T},        {"f11vmr", NC_DOUBLE, S_T},
    {"f12vmr", NC_DOUBLE, S_T},        {"sol_tsi", NC_DOUBLE, S_T},
};

typedef struct {
  int dim_time, dim_ncol, dim_lev, dim_ilev, dim_nbnd, dim_chars;
  int nondec_id[N_NONDEC];
  dvar_t fixed[N_FIXED_DEC];   /* lat, lon, area */
  dvar_t rec[N_REC_DEC];
} layout_t;

static void put_text_att(int ncid, int varid, const char *name, const char *val) {
  CHECK(ncmpi_put_att_text(ncid, varid, name, (MPI_Offset)strlen(val), val));
}

/* Which decomposition record variable i uses: D3 at 10 and 200, D2 every 6th
 * from 3 until 62 are placed, D1 otherwise (321). */
static int rec_decomp(int i) {
  static int table[N_REC_DEC];
  static int made = 0;
  if (!made) {
    int n2 = 0;
    for (int j = 0; j < N_REC_DEC; j++) {
      if (j == 10 || j == 200) table[j] = 2;
      else if (j % 6 == 3 && n2 < N_D2_REC) { table[j] = 1; n2++; }
      else table[j] = 0;
    }
    made = 1;
  }
  return table[i];
}

static void define_file(int ncid, layout_t *L, MPI_Offset ncol) {
  CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &L->dim_time));
  CHECK(ncmpi_def_dim(ncid, "ncol", ncol, &L->dim_ncol));
  CHECK(ncmpi_def_dim(ncid, "lev", NLEV, &L->dim_lev));
  CHECK(ncmpi_def_dim(ncid, "ilev", NILEV, &L->dim_ilev));
  CHECK(ncmpi_def_dim(ncid, "nbnd", NBND, &L->dim_nbnd));
  CHECK(ncmpi_def_dim(ncid, "chars", NCHARS, &L->dim_chars));
  put_text_att(ncid, NC_GLOBAL, "title", "E3SM F-case-like history (exacdf bench/e3sm_io.c)");
  put_text_att(ncid, NC_GLOBAL, "source", "CAM");
  put_text_att(ncid, NC_GLOBAL, "case", "F2010-like, scaled down");
  int one = 1;
  CHECK(ncmpi_put_att_int(ncid, NC_GLOBAL, "ne", NC_INT, 1, &one));

  for (int i = 0; i < N_NONDEC; i++) {
    int dims[2], nd = 0;
    switch (nondec[i].shape) {
      case S_SCALAR: break;
      case S_LEV: dims[nd++] = L->dim_lev; break;
      case S_ILEV: dims[nd++] = L->dim_ilev; break;
      case S_T: dims[nd++] = L->dim_time; break;
      case S_T_BND: dims[nd++] = L->dim_time; dims[nd++] = L->dim_nbnd; break;
      case S_T_CHR: dims[nd++] = L->dim_time; dims[nd++] = L->dim_chars; break;
    }
    CHECK(ncmpi_def_var(ncid, nondec[i].name, nondec[i].type, nd, dims, &L->nondec_id[i]));
    put_text_att(ncid, L->nondec_id[i], "long_name", nondec[i].name);
  }
  static const char *fixed_names[N_FIXED_DEC] = {"lat", "lon", "area"};
  for (int i = 0; i < N_FIXED_DEC; i++) {
    L->fixed[i].decomp = 0;
    CHECK(ncmpi_def_var(ncid, fixed_names[i], NC_DOUBLE, 1, &L->dim_ncol, &L->fixed[i].varid));
    put_text_att(ncid, L->fixed[i].varid, "long_name", fixed_names[i]);
    put_text_att(ncid, L->fixed[i].varid, "units", i < 2 ? "degrees" : "radians^2");
  }
  int n_of[3] = {0, 0, 0};
  for (int i = 0; i < N_REC_DEC; i++) {
    int dc = rec_decomp(i);
    char name[32];
    static const char *prefix[3] = {"F2D", "F3D", "F3I"};
    snprintf(name, sizeof name, "%s_%03d", prefix[dc], n_of[dc]++);
    int dims[3], nd = 0;
    dims[nd++] = L->dim_time;
    if (dc == 1) dims[nd++] = L->dim_lev;
    if (dc == 2) dims[nd++] = L->dim_ilev;
    dims[nd++] = L->dim_ncol;
    L->rec[i].decomp = dc;
    CHECK(ncmpi_def_var(ncid, name, NC_FLOAT, nd, dims, &L->rec[i].varid));
    put_text_att(ncid, L->rec[i].varid, "units", "kg/kg");
    put_text_att(ncid, L->rec[i].varid, "long_name", name);
    put_text_att(ncid, L->rec[i].varid, "cell_methods", "time: mean");
  }
}

/* Rank 0's values of a non-decomposed variable at step t (fixed: t = 0).
 * buf big enough for 73 doubles. Returns the number of elements. */
static MPI_Offset nondec_values(int i, int t, void *buf, MPI_Offset *start, MPI_Offset *count) {
  MPI_Offset n = 1;
  start[0] = start[1] = 0;
  count[0] = count[1] = 1;
  switch (nondec[i].shape) {
    case S_SCALAR: n = 1; break;
    case S_LEV: n = count[0] = NLEV; break;
    case S_ILEV: n = count[0] = NILEV; break;
    case S_T: start[0] = t; n = 1; break;
    case S_T_BND: start[0] = t; count[1] = NBND; n = NBND; break;
    case S_T_CHR: start[0] = t; count[1] = NCHARS; n = NCHARS; break;
  }
  for (MPI_Offset j = 0; j < n; j++) {
    if (nondec[i].type == NC_DOUBLE) ((double *)buf)[j] = 1000.0 * i + 10.0 * t + 0.5 * j;
    else if (nondec[i].type == NC_INT) ((int *)buf)[j] = 1000 * i + 10 * t + (int)j;
    else ((char *)buf)[j] = (char)('a' + (i + t + j) % 26);
  }
  return n;
}
static int nondec_is_record(int i) { return nondec[i].shape >= S_T; }

/* Posts (nb) or writes (blocking) the non-decomposed variables of one kind. */
static void write_nondec(int ncid, const layout_t *L, int record, int t, int nb, int *reqs,
                         int *nreq, double *store) {
  for (int i = 0; i < N_NONDEC; i++) {
    if (nondec_is_record(i) != record) continue;
    double *buf = store + i * NILEV; /* alive until the wait */
    MPI_Offset start[2], count[2];
    nondec_values(i, t, buf, start, count);
    int vid = L->nondec_id[i];
    if (nb) {
      if (rank != 0) continue;
      int r;
      if (nondec[i].type == NC_DOUBLE) CHECK(ncmpi_iput_vara_double(ncid, vid, start, count, buf, &r));
      else if (nondec[i].type == NC_INT) CHECK(ncmpi_iput_vara_int(ncid, vid, start, count, (int *)buf, &r));
      else CHECK(ncmpi_iput_vara_text(ncid, vid, start, count, (char *)buf, &r));
      reqs[(*nreq)++] = r;
    } else {
      /* other ranks take part with nothing to write; a scalar has no count to
       * zero, so every rank writes the same value (the same bytes) */
      if (rank != 0 && nondec[i].shape != S_SCALAR) count[0] = count[1] = 0;
      if (nondec[i].type == NC_DOUBLE) CHECK(ncmpi_put_vara_double_all(ncid, vid, start, count, buf));
      else if (nondec[i].type == NC_INT) CHECK(ncmpi_put_vara_int_all(ncid, vid, start, count, (int *)buf));
      else CHECK(ncmpi_put_vara_text_all(ncid, vid, start, count, (char *)buf));
    }
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------ verification */
static long long verify(const char *path, const layout_t *L, MPI_Offset ncol, int steps,
                        long long *nchecked) {
  int ncid;
  CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  long long bad = 0, checked = 0;
  MPI_Offset nrec = 0;
  CHECK(ncmpi_inq_dimlen(ncid, L->dim_time, &nrec));
  if (nrec != steps) {
    if (rank == 0) fprintf(stderr, "verify: time length %lld, expected %d\n", (long long)nrec, steps);
    bad++;
  }
  float *fb = xmalloc(sizeof(float) * (size_t)ncol * NILEV);
  double *db = xmalloc(sizeof(double) * (size_t)ncol);
  /* fixed decomposed: all three, whole */
  for (int i = 0; i < N_FIXED_DEC; i++) {
    MPI_Offset st[1] = {0}, ct[1] = {ncol};
    CHECK(ncmpi_get_vara_double_all(ncid, L->fixed[i].varid, st, ct, db));
    for (MPI_Offset c = 0; c < ncol; c++, checked++)
      if (db[c] != dval(L->fixed[i].varid, c)) {
        if (bad++ < 5)
          fprintf(stderr, "verify rank %d: fixed var %d col %lld: got %g expected %g\n", rank,
                  L->fixed[i].varid, (long long)c, db[c], dval(L->fixed[i].varid, c));
      }
  }
  /* record decomposed: every 13th plus every D3 variable, all steps, whole slice */
  for (int i = 0; i < N_REC_DEC; i++) {
    int dc = L->rec[i].decomp;
    if (i % 13 != 0 && dc != 2 && i != N_REC_DEC - 1) continue;
    int nl = dc == 0 ? 1 : (dc == 1 ? NLEV : NILEV);
    for (int t = 0; t < steps; t++) {
      MPI_Offset st[3] = {t, 0, 0}, ct[3] = {1, nl, ncol};
      if (dc == 0) ct[1] = ncol;
      CHECK(ncmpi_get_vara_float_all(ncid, L->rec[i].varid, st, ct, fb));
      for (int k = 0; k < nl; k++)
        for (MPI_Offset c = 0; c < ncol; c++, checked++) {
          float want = fval(L->rec[i].varid, t, k, c), got = fb[(size_t)k * ncol + c];
          if (got != want && bad++ < 5)
            fprintf(stderr, "verify rank %d: var %d t %d k %d col %lld: got %.1f expected %.1f\n",
                    rank, L->rec[i].varid, t, k, (long long)c, got, want);
        }
    }
  }
  /* non-decomposed: all, all steps */
  for (int i = 0; i < N_NONDEC; i++) {
    for (int t = 0; t < (nondec_is_record(i) ? steps : 1); t++) {
      double want[NILEV], got[NILEV];
      MPI_Offset st[2], ct[2];
      MPI_Offset n = nondec_values(i, t, want, st, ct);
      int vid = L->nondec_id[i];
      if (nondec[i].type == NC_DOUBLE) CHECK(ncmpi_get_vara_double_all(ncid, vid, st, ct, got));
      else if (nondec[i].type == NC_INT) CHECK(ncmpi_get_vara_int_all(ncid, vid, st, ct, (int *)got));
      else CHECK(ncmpi_get_vara_text_all(ncid, vid, st, ct, (char *)got));
      size_t sz = nondec[i].type == NC_DOUBLE ? 8 : (nondec[i].type == NC_INT ? 4 : 1);
      checked += n;
      if (memcmp(want, got, sz * (size_t)n) != 0 && bad++ < 5)
        fprintf(stderr, "verify rank %d: non-decomposed %s t %d differs\n", rank, nondec[i].name, t);
    }
  }
  CHECK(ncmpi_close(ncid));
  free(fb);
  free(db);
  *nchecked = llsum(checked);
  return llsum(bad);
}

/* ------------------------------------------------------------ pwrite ceiling */
static double median_of(double *x, int n) {
  qsort(x, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Median over `steps` of the time (max over ranks) for every rank to pwrite its
 * `bytes` from `buf` once, contiguously, rank after rank in the file. */
static double pwrite_ceiling(const char *path, const char *buf, long long bytes, int steps) {
  char side[4096];
  snprintf(side, sizeof side, "%s.pwrite", path);
  long long before = 0, all = 0;
  MPI_Exscan(&bytes, &before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) before = 0;
  MPI_Allreduce(&bytes, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    int fd = open(side, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) DIE("cannot create %s", side);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int fd = open(side, O_WRONLY);
  if (fd < 0) DIE("cannot open %s", side);
  double t[64];
  int n = steps < 64 ? steps : 64;
  for (int s = 0; s < n; s++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long long done = 0; done < bytes;) {
      ssize_t w = pwrite(fd, buf + done, (size_t)(bytes - done), (off_t)(s * all + before + done));
      if (w <= 0) DIE("pwrite to %s failed", side);
      done += w;
    }
    t[s] = dmax(MPI_Wtime() - t0);
  }
  close(fd);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(side);
  return median_of(t, n);
}

/* ------------------------------------------------------------ main */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 3 || (strcmp(argv[1], "nb") && strcmp(argv[1], "blocking"))) {
    if (rank == 0)
      fprintf(stderr, "usage: %s nb|blocking PATH [ncol=N] [steps=S] [maxlen=L] [label=X] "
                      "[keep=0|1] [verify=0|1]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int nb = strcmp(argv[1], "nb") == 0;
  const char *path = argv[2];
  MPI_Offset ncol = 4096;
  int steps = 3, maxlen = 16, keep = 0, do_verify = 1;
  const char *label = BENCH_LIB;
  for (int i = 3; i < argc; i++) {
    if (!strncmp(argv[i], "ncol=", 5)) ncol = atoll(argv[i] + 5);
    else if (!strncmp(argv[i], "steps=", 6)) steps = atoi(argv[i] + 6);
    else if (!strncmp(argv[i], "maxlen=", 7)) maxlen = atoi(argv[i] + 7);
    else if (!strncmp(argv[i], "label=", 6)) label = argv[i] + 6;
    else if (!strncmp(argv[i], "keep=", 5)) keep = atoi(argv[i] + 5);
    else if (!strncmp(argv[i], "verify=", 7)) do_verify = atoi(argv[i] + 7);
    else DIE("unknown argument %s", argv[i]);
  }
  if (ncol < 1 || steps < 1 || maxlen < 1) DIE("bad arguments");
  mpiio_count_fn = (count_fn)dlsym(RTLD_DEFAULT, "mpiio_count_get");

  decomp_t D[3];
  decomp_make(&D[0], 1, ncol, maxlen, 0);
  decomp_make(&D[1], 2, ncol, maxlen, NLEV);
  decomp_make(&D[2], 3, ncol, maxlen, NILEV);
  varn_t Vrec[3], Vfix;
  for (int d = 0; d < 3; d++) varn_make(&Vrec[d], &D[d], 1);
  varn_make(&Vfix, &D[0], 0);

  /* per-step buffers: every record decomposed variable's values, in order */
  size_t *off = xmalloc(sizeof(size_t) * N_REC_DEC);
  size_t total = 0;
  for (int i = 0; i < N_REC_DEC; i++) {
    off[i] = total;
    total += (size_t)D[rec_decomp(i)].nelems;
  }
  float *sbuf = xmalloc(sizeof(float) * total);
  double *fixbuf = xmalloc(sizeof(double) * (size_t)D[0].nelems * N_FIXED_DEC);
  double *ndstore = xmalloc(sizeof(double) * NILEV * N_NONDEC);
  int *reqs = xmalloc(sizeof(int) * (N_REC_DEC + N_FIXED_DEC + N_NONDEC));
  int *stat = xmalloc(sizeof(int) * (N_REC_DEC + N_FIXED_DEC + N_NONDEC));
  long long my_bytes = (long long)total * 4;
  long long step_bytes = llsum(my_bytes) + (long long)(N_NONDEC) * 8; /* approx nondec */

  int cnt_ok = 0;
  (void)mpiio_calls(&cnt_ok);
  layout_t L;
  memset(&L, 0, sizeof L);

  /* ---- create + define */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int ncid;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  define_file(ncid, &L, ncol);
  CHECK(ncmpi_enddef(ncid));
  double create_s = dmax(MPI_Wtime() - t0);

  /* ---- fixed variables (lat, lon, area + non-decomposed fixed), same mode */
  for (int i = 0; i < N_FIXED_DEC; i++) fill_double(fixbuf + i * D[0].nelems, &D[0], L.fixed[i].varid);
  long long c_a = mpiio_calls(&cnt_ok), e_a = exa_calls(ncid);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  int nreq = 0;
  for (int i = 0; i < N_FIXED_DEC; i++) {
    double *b = fixbuf + i * D[0].nelems;
    if (nb) {
      if (Vfix.num > 0)
        CHECK(ncmpi_iput_varn_double(ncid, L.fixed[i].varid, Vfix.num, Vfix.starts, Vfix.counts, b, &reqs[nreq++]));
    } else {
      CHECK(ncmpi_put_varn_double_all(ncid, L.fixed[i].varid, Vfix.num, Vfix.starts, Vfix.counts, b));
    }
  }
  write_nondec(ncid, &L, 0, 0, nb, reqs, &nreq, ndstore);
  if (nb) {
    CHECK(ncmpi_wait_all(ncid, nreq, reqs, stat));
    for (int i = 0; i < nreq; i++)
      if (stat[i] != NC_NOERR) DIE("fixed request %d: %s", i, ncmpi_strerror(stat[i]));
  }
  double fixed_s = dmax(MPI_Wtime() - t0);
  long long c_b = mpiio_calls(&cnt_ok), e_b = exa_calls(ncid);
  long long fixed_calls = c_b - c_a, fixed_exa = e_b - e_a;

  /* ---- record steps */
  double *step_s = xmalloc(sizeof(double) * steps);
  double post_sum = 0, wait_sum = 0;
  long long step_calls = 0, step_exa = 0;
  int max_reqs = 0;
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < N_REC_DEC; i++) fill_float(sbuf + off[i], &D[rec_decomp(i)], L.rec[i].varid, t);
    for (int d = 0; d < 3; d++) varn_set_time(&Vrec[d], t);
    c_a = mpiio_calls(&cnt_ok);
    e_a = exa_calls(ncid);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    nreq = 0;
    for (int i = 0; i < N_REC_DEC; i++) {
      varn_t *v = &Vrec[rec_decomp(i)];
      if (nb) {
        if (v->num > 0)
          CHECK(ncmpi_iput_varn_float(ncid, L.rec[i].varid, v->num, v->starts, v->counts, sbuf + off[i], &reqs[nreq++]));
      } else {
        CHECK(ncmpi_put_varn_float_all(ncid, L.rec[i].varid, v->num, v->starts, v->counts, sbuf + off[i]));
      }
    }
    write_nondec(ncid, &L, 1, t, nb, reqs, &nreq, ndstore);
    double t1 = MPI_Wtime();
    if (nb) {
      CHECK(ncmpi_wait_all(ncid, nreq, reqs, stat));
      for (int i = 0; i < nreq; i++)
        if (stat[i] != NC_NOERR) DIE("step %d request %d: %s", t, i, ncmpi_strerror(stat[i]));
    }
    double t2 = MPI_Wtime();
    step_s[t] = dmax(t2 - t0);
    post_sum += dmax(t1 - t0);
    wait_sum += dmax(t2 - t1);
    if (nreq > max_reqs) max_reqs = nreq;
    step_calls += mpiio_calls(&cnt_ok) - c_a;
    step_exa += exa_calls(ncid) - e_a;
  }

  /* ---- close */
  MPI_Offset put_size = 0;
  CHECK(ncmpi_inq_put_size(ncid, &put_size));
  long long before_close = mpiio_calls(&cnt_ok);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  CHECK(ncmpi_close(ncid));
  double close_s = dmax(MPI_Wtime() - t0);
  long long close_calls = mpiio_calls(&cnt_ok) - before_close;
  long long write_phase_calls = mpiio_calls(&cnt_ok); /* create .. close, this rank */

  /* ---- physical ceiling (issue 16 item 2): the same bytes per rank (this rank's
   * share of a step) as ONE plain pwrite per step into PATH.pwrite on the same file
   * system, ranks side by side, timed like a step (barrier, max over ranks). */
  double pwrite_med = pwrite_ceiling(path, (const char *)sbuf, my_bytes, steps);

  /* ---- verify */
  long long bad = -1, nchecked = 0;
  if (do_verify) bad = verify(path, &L, ncol, steps, &nchecked);

  /* ---- report */
  double sorted[64];
  int ns = steps < 64 ? steps : 64;
  memcpy(sorted, step_s, sizeof(double) * ns);
  qsort(sorted, ns, sizeof(double), cmp_double);
  double med = ns % 2 ? sorted[ns / 2] : 0.5 * (sorted[ns / 2 - 1] + sorted[ns / 2]);
  long long pieces[3], pmax[3];
  for (int d = 0; d < 3; d++) {
    pieces[d] = llsum(D[d].npieces);
    pmax[d] = llmax(D[d].npieces);
  }
  long long sc_min = llmin(step_calls), sc_max = llmax(step_calls), sc_sum = llsum(step_calls);
  long long se_min = llmin(step_exa), se_max = llmax(step_exa);
  long long fc_max = llmax(fixed_calls), fe_max = llmax(fixed_exa);
  long long cc_max = llmax(close_calls), wp_max = llmax(write_phase_calls);
  long long mreq = llmax(max_reqs);
  long long psz_max = llmax((long long)put_size);
  int all_cnt_ok = (int)llmin(cnt_ok);
  int nvars_file = 0;
  {
    int nc2;
    CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &nc2));
    CHECK(ncmpi_inq_nvars(nc2, &nvars_file));
    CHECK(ncmpi_close(nc2));
  }
  MPI_Offset fsize = 0;
  if (rank == 0) {
    FILE *f = fopen(path, "rb");
    if (f) {
      fseek(f, 0, SEEK_END);
      fsize = ftell(f);
      fclose(f);
    }
  }
  if (rank == 0) {
    char steps_list[1024] = "";
    for (int t = 0; t < steps && strlen(steps_list) < 900; t++)
      snprintf(steps_list + strlen(steps_list), sizeof steps_list - strlen(steps_list), "%s%.4f",
               t ? "," : "", step_s[t]);
    printf("RESULT bench=e3sm_io lib=%s label=%s mode=%s ranks=%d ncol=%lld lev=%d steps=%d "
           "maxlen=%d nvars=%d ndecomp_vars=%d step_bytes=%lld file_bytes=%lld "
           "pieces_d1=%lld pieces_d2=%lld pieces_d3=%lld pieces_d1_rank_max=%lld "
           "pieces_d2_rank_max=%lld reqs_per_step_rank_max=%lld put_size_rank_max=%lld "
           "create_s=%.4f fixed_s=%.4f step_s=%.4f step_min_s=%.4f step_max_s=%.4f "
           "steps_s=%s post_s=%.4f wait_s=%.4f close_s=%.4f pwrite_step_s=%.4f "
           "counter=%s mpiio_calls_step_rank_min=%.2f mpiio_calls_step_rank_max=%.2f "
           "mpiio_calls_step_sum=%.2f mpiio_calls_fixed_rank_max=%lld "
           "mpiio_calls_close_rank_max=%lld mpiio_calls_write_phase_rank_max=%lld "
           "exa_io_calls_step_rank_min=%.2f exa_io_calls_step_rank_max=%.2f "
           "exa_io_calls_fixed_rank_max=%lld verify=%s values_checked=%lld bad=%lld\n",
           BENCH_LIB, label, nb ? "nb" : "blocking", nprocs, (long long)ncol, NLEV, steps, maxlen,
           nvars_file, N_FIXED_DEC + N_REC_DEC, step_bytes, (long long)fsize, pieces[0],
           pieces[1], pieces[2], pmax[0], pmax[1], mreq, psz_max, create_s, fixed_s, med,
           sorted[0], sorted[ns - 1], steps_list, post_sum / steps, wait_sum / steps, close_s, pwrite_med,
           all_cnt_ok ? "pmpi" : "none", (double)sc_min / steps, (double)sc_max / steps,
           (double)sc_sum / steps, fc_max, cc_max, wp_max, se_min < 0 ? -1.0 : (double)se_min / steps,
           se_max < 0 ? -1.0 : (double)se_max / steps, fe_max,
           !do_verify ? "skipped" : (bad == 0 ? "ok" : "FAILED"), nchecked, bad);
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && !keep) unlink(path);
  MPI_Finalize();
  return bad > 0 ? 1 : 0;
}
