/* Nonblocking puts of many small pieces (the E3SM-like shape: every rank holds
 * runs of 1..3 columns dealt round-robin) give the same file, byte for byte,
 * as the same data written with blocking calls. With several hundred pieces per
 * rank exacdf's wait_all leaves MPI-IO's view of pieces for a path of its own
 * (staged and coalesced at one rank or in independent mode, its own two-phase
 * over ranks at 2 and 4); the mixes below reach each: fixed and record
 * variables, varn and one request per piece, bput, zero-length requests,
 * requests overlapping with the same bytes, a wait where only rank 0 has puts,
 * an independent-mode wait, and type conversion (short, float, double). */
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define NCOL 4096
#define NLEV 4
#define NREC 3
#define NBIG 40 /* levels of `big`: over 1 MiB, more than one staging chunk */

/* A value every variable can hold exactly (short included). */
static int value(int var, int rec, int lev, int col) {
  return (var * 7919 + rec * 104729 + lev * 4099 + col * 13) % 32000;
}

/* The column runs of `rank`: runs of 1..3 columns, dealt round-robin. */
static int pieces_of(int rank, int nprocs, int *start, int *len) {
  int n = 0, k = 0;
  for (int s = 0; s < NCOL; ++k) {
    int l = 1 + (s * 7 + 3) % 3;
    if (s + l > NCOL) l = NCOL - s;
    if (k % nprocs == rank) {
      start[n] = s;
      len[n] = l;
      ++n;
    }
    s += l;
  }
  return n;
}

typedef struct {
  int n;            /* pieces */
  int cols;         /* columns in all of them */
  int start[NCOL];
  int len[NCOL];
} Pieces;

static void make_pieces(Pieces *p, int rank, int nprocs) {
  p->n = pieces_of(rank, nprocs, p->start, p->len);
  p->cols = 0;
  for (int i = 0; i < p->n; ++i) p->cols += p->len[i];
}

/* varn arrays for a variable of rank `ndims` (1: col; 2: rec, col -- or with
 * `nlev` > 0 lev, col; 3: rec, lev, col). */
typedef struct {
  MPI_Offset **starts, **counts;
} Varn;

static Varn make_varn(const Pieces *p, int ndims, int rec, int nlev) {
  Varn v;
  v.starts = malloc(sizeof(MPI_Offset *) * (size_t)p->n);
  v.counts = malloc(sizeof(MPI_Offset *) * (size_t)p->n);
  for (int i = 0; i < p->n; ++i) {
    v.starts[i] = calloc(3, sizeof(MPI_Offset));
    v.counts[i] = calloc(3, sizeof(MPI_Offset));
    MPI_Offset *s = v.starts[i], *c = v.counts[i];
    if (ndims == 1) { s[0] = p->start[i]; c[0] = p->len[i]; }
    if (ndims == 2) { s[0] = nlev ? 0 : rec; c[0] = nlev ? nlev : 1; s[1] = p->start[i]; c[1] = p->len[i]; }
    if (ndims == 3) { s[0] = rec; c[0] = 1; s[1] = 0; c[1] = NLEV; s[2] = p->start[i]; c[2] = p->len[i]; }
  }
  return v;
}

static void free_varn(Varn *v, int n) {
  for (int i = 0; i < n; ++i) { free(v->starts[i]); free(v->counts[i]); }
  free(v->starts);
  free(v->counts);
}

/* The values of the pieces in varn order (levels outer, columns inner per piece). */
static void fill_values(const Pieces *p, int var, int rec, int nlev, double *out) {
  int at = 0;
  for (int i = 0; i < p->n; ++i)
    for (int l = 0; l < nlev; ++l)
      for (int c = 0; c < p->len[i]; ++c) out[at++] = value(var, rec, l, p->start[i] + c);
}

enum { V_FIX_I, V_FIX_D, V_REC_F, V_REC_S, V_BIG, NVARS };

static int define(const char *path, int *ncid, int *var) {
  int dims[4];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, ncid));
  CHECK_OK(ncmpi_def_dim(*ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(*ncid, "lev", NLEV, &dims[1]));
  CHECK_OK(ncmpi_def_dim(*ncid, "ncol", NCOL, &dims[2]));
  int d_fix_d[2] = {dims[1], dims[2]}, d_rec_f[2] = {dims[0], dims[2]};
  CHECK_OK(ncmpi_def_var(*ncid, "fix_i", NC_INT, 1, &dims[2], &var[V_FIX_I]));
  CHECK_OK(ncmpi_def_var(*ncid, "fix_d", NC_DOUBLE, 2, d_fix_d, &var[V_FIX_D]));
  CHECK_OK(ncmpi_def_var(*ncid, "rec_f", NC_FLOAT, 2, d_rec_f, &var[V_REC_F]));
  CHECK_OK(ncmpi_def_var(*ncid, "rec_s", NC_SHORT, 3, dims, &var[V_REC_S]));
  CHECK_OK(ncmpi_def_dim(*ncid, "big_lev", NBIG, &dims[3]));
  int d_big[2] = {dims[3], dims[2]};
  CHECK_OK(ncmpi_def_var(*ncid, "big", NC_DOUBLE, 2, d_big, &var[V_BIG]));
  return ncmpi_enddef(*ncid);
}

/* Values as each memory type. */
static int *as_int(const double *v, int n) {
  int *o = malloc(sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; ++i) o[i] = (int)v[i];
  return o;
}
static float *as_float(const double *v, int n) {
  float *o = malloc(sizeof(float) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; ++i) o[i] = (float)v[i];
  return o;
}
static short *as_short(const double *v, int n) {
  short *o = malloc(sizeof(short) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; ++i) o[i] = (short)v[i];
  return o;
}

/* The nonblocking file. */
static void write_nonblocking(const char *path, const Pieces *mine, const Pieces *all_pieces) {
  const int rank = mpi_test_rank, nprocs = mpi_test_nprocs;
  int ncid, var[NVARS];
  CHECK_OK(define(path, &ncid, var));
  double *vals = malloc(sizeof(double) * NCOL * NLEV);

  /* Wait 1, fixed variables: fix_i as one varn, plus its first 16 pieces once more
   * (overlapping with the same bytes), plus a zero-length request; fix_d as one
   * request per piece (NLEV x len each). The last rank posts its fix_d later. */
  Varn vn = make_varn(mine, 1, 0, 0);
  fill_values(mine, V_FIX_I, 0, 1, vals);
  int *ivals = as_int(vals, mine->cols);
  int req;
#if MPI_TEST_IS_EXACDF
  /* exacdf: of overlapping puts in one wait the later one wins (PnetCDF leaves it undefined). */
  int wrong[4] = {-1, -1, -1, -1};
  MPI_Offset ws = mine->start[0], wc = mine->len[0];
  CHECK_OK(ncmpi_iput_vara_int(ncid, var[V_FIX_I], &ws, &wc, wrong, &req));
#endif
  CHECK_OK(ncmpi_iput_varn_int(ncid, var[V_FIX_I], mine->n, vn.starts, vn.counts, ivals, &req));
  int at = 0;
  for (int i = 0; i < mine->n && i < 16; ++i) {
    CHECK_OK(ncmpi_iput_vara_int(ncid, var[V_FIX_I], vn.starts[i], vn.counts[i], ivals + at, &req));
    at += mine->len[i];
  }
  MPI_Offset zs = 0, zc = 0;
  CHECK_OK(ncmpi_iput_vara_int(ncid, var[V_FIX_I], &zs, &zc, ivals, &req));
  free_varn(&vn, mine->n);
  const int late = nprocs > 1 && rank == nprocs - 1;
  double *dvals = malloc(sizeof(double) * NCOL * NLEV);
  for (int i = 0, off = 0; i < mine->n; ++i) {
    MPI_Offset s[2] = {0, mine->start[i]}, c[2] = {NLEV, mine->len[i]};
    for (int l = 0; l < NLEV; ++l)
      for (int k = 0; k < mine->len[i]; ++k) dvals[off + l * mine->len[i] + k] = value(V_FIX_D, 0, l, mine->start[i] + k);
    if (!late) CHECK_OK(ncmpi_iput_vara_double(ncid, var[V_FIX_D], s, c, dvals + off, &req));
    off += NLEV * mine->len[i];
  }
  Varn vb = make_varn(mine, 2, 0, NBIG);
  double *bvals = malloc(sizeof(double) * NCOL * NBIG);
  fill_values(mine, V_BIG, 0, NBIG, bvals);
  CHECK_OK(ncmpi_iput_varn_double(ncid, var[V_BIG], mine->n, vb.starts, vb.counts, bvals, &req));
  free_varn(&vb, mine->n);
  CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  free(bvals);
  free(ivals);

  /* Wait 2, records 0 and 1: rec_f by bput_varn (the buffer reused at once), rec_s by
   * iput_varn; the last rank's fix_d as one request per piece. Statuses checked. */
  CHECK_OK(ncmpi_buffer_attach(ncid, (MPI_Offset)(2 * mine->cols * sizeof(float) + 64)));
  int reqs[NCOL + 8], nreq = 0;
  float *fvals = malloc(sizeof(float) * NCOL);
  short *svals[2];
  for (int rec = 0; rec < 2; ++rec) {
    Varn rf = make_varn(mine, 2, rec, 0);
    fill_values(mine, V_REC_F, rec, 1, vals);
    for (int i = 0; i < mine->cols; ++i) fvals[i] = (float)vals[i];
    CHECK_OK(ncmpi_bput_varn_float(ncid, var[V_REC_F], mine->n, rf.starts, rf.counts, fvals, &reqs[nreq++]));
    memset(fvals, 0, sizeof(float) * NCOL); /* a bput's buffer may be reused at once */
    free_varn(&rf, mine->n);
    Varn rs = make_varn(mine, 3, rec, 0);
    fill_values(mine, V_REC_S, rec, NLEV, vals);
    svals[rec] = as_short(vals, mine->cols * NLEV);
    CHECK_OK(ncmpi_iput_varn_short(ncid, var[V_REC_S], mine->n, rs.starts, rs.counts, svals[rec], &reqs[nreq++]));
    free_varn(&rs, mine->n);
  }
  for (int i = 0, off = 0; late && i < mine->n; ++i) {
    MPI_Offset s[2] = {0, mine->start[i]}, c[2] = {NLEV, mine->len[i]};
    CHECK_OK(ncmpi_iput_vara_double(ncid, var[V_FIX_D], s, c, dvals + off, &reqs[nreq++]));
    off += NLEV * mine->len[i];
  }
  int *statuses = malloc(sizeof(int) * (size_t)nreq);
  for (int i = 0; i < nreq; ++i) statuses[i] = -1;
  CHECK_OK(ncmpi_wait_all(ncid, nreq, reqs, statuses));
  for (int i = 0; i < nreq; ++i) CHECK(statuses[i] == NC_NOERR && reqs[i] == NC_REQ_NULL);
  free(statuses);
  CHECK_OK(ncmpi_buffer_detach(ncid));
  free(svals[0]);
  free(svals[1]);
  free(dvals);

  /* Record 2 of rec_f in independent mode: one request per piece, ncmpi_wait. */
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  fill_values(mine, V_REC_F, 2, 1, vals);
  float *f2 = as_float(vals, mine->cols);
  for (int i = 0, off = 0; i < mine->n; ++i) {
    MPI_Offset s[2] = {2, mine->start[i]}, c[2] = {1, mine->len[i]};
    CHECK_OK(ncmpi_iput_vara_float(ncid, var[V_REC_F], s, c, f2 + off, &req));
    off += mine->len[i];
  }
  CHECK_OK(ncmpi_wait(ncid, NC_REQ_ALL, NULL, NULL));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  free(f2);

  /* Record 2 of rec_s: rank 0 posts every rank's pieces, the others nothing. */
  short *s2[64] = {0};
  for (int r = 0; rank == 0 && r < nprocs && r < 64; ++r) {
    Varn rs = make_varn(&all_pieces[r], 3, 2, 0);
    fill_values(&all_pieces[r], V_REC_S, 2, NLEV, vals);
    s2[r] = as_short(vals, all_pieces[r].cols * NLEV);
    CHECK_OK(ncmpi_iput_varn_short(ncid, var[V_REC_S], all_pieces[r].n, rs.starts, rs.counts, s2[r], &req));
    free_varn(&rs, all_pieces[r].n);
  }
  CHECK_OK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  for (int r = 0; r < 64; ++r) free(s2[r]);
  free(fvals);
  free(vals);
  CHECK_OK(ncmpi_close(ncid));
}

/* The blocking file: the same bytes, by independent put_vara calls, one per piece
 * (a path that shares nothing with the nonblocking requests; record 2 of rec_s
 * by rank 0 alone). */
static void put_pieces(int ncid, int varid, int var, const Pieces *p, int ndims, int rec, int nlev) {
  double *vals = malloc(sizeof(double) * NCOL * NBIG);
  fill_values(p, var, rec, nlev, vals);
  Varn v = make_varn(p, ndims, rec, ndims == 2 && nlev > 1 ? nlev : 0);
  for (int i = 0, off = 0; i < p->n; ++i) {
    CHECK_OK(ncmpi_put_vara_double(ncid, varid, v.starts[i], v.counts[i], vals + off));
    off += nlev * p->len[i];
  }
  free_varn(&v, p->n);
  free(vals);
}

static void write_blocking(const char *path, const Pieces *mine, const Pieces *all_pieces) {
  int ncid, var[NVARS];
  CHECK_OK(define(path, &ncid, var));
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  put_pieces(ncid, var[V_FIX_I], V_FIX_I, mine, 1, 0, 1);
  put_pieces(ncid, var[V_FIX_D], V_FIX_D, mine, 2, 0, NLEV);
  put_pieces(ncid, var[V_BIG], V_BIG, mine, 2, 0, NBIG);
  for (int rec = 0; rec < NREC; ++rec) {
    put_pieces(ncid, var[V_REC_F], V_REC_F, mine, 2, rec, 1);
    if (rec < 2) put_pieces(ncid, var[V_REC_S], V_REC_S, mine, 3, rec, NLEV);
    for (int r = 0; rec == 2 && mpi_test_rank == 0 && r < mpi_test_nprocs; ++r)
      put_pieces(ncid, var[V_REC_S], V_REC_S, &all_pieces[r], 3, rec, NLEV);
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

/* Every value of every variable, read back on every rank. */
static void check_values(const char *path) {
  int ncid, var[NVARS];
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  const char *names[NVARS] = {"fix_i", "fix_d", "rec_f", "rec_s", "big"};
  for (int k = 0; k < NVARS; ++k) CHECK_OK(ncmpi_inq_varid(ncid, names[k], &var[k]));
  MPI_Offset nrec = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &nrec));
  CHECK(nrec == NREC);
  double *got = malloc(sizeof(double) * NBIG * NCOL);
  MPI_Offset s[3] = {0, 0, 0}, c1[1] = {NCOL}, c2[2] = {NLEV, NCOL}, c2r[2] = {NREC, NCOL},
             c3[3] = {NREC, NLEV, NCOL};
  int bad = 0;
  CHECK_OK(ncmpi_get_vara_double_all(ncid, var[V_FIX_I], s, c1, got));
  for (int i = 0; i < NCOL; ++i) bad += got[i] != value(V_FIX_I, 0, 0, i);
  CHECK_OK(ncmpi_get_vara_double_all(ncid, var[V_FIX_D], s, c2, got));
  for (int l = 0; l < NLEV; ++l)
    for (int i = 0; i < NCOL; ++i) bad += got[l * NCOL + i] != value(V_FIX_D, 0, l, i);
  CHECK_OK(ncmpi_get_vara_double_all(ncid, var[V_REC_F], s, c2r, got));
  for (int r = 0; r < NREC; ++r)
    for (int i = 0; i < NCOL; ++i) bad += got[r * NCOL + i] != value(V_REC_F, r, 0, i);
  CHECK_OK(ncmpi_get_vara_double_all(ncid, var[V_REC_S], s, c3, got));
  for (int r = 0; r < NREC; ++r)
    for (int l = 0; l < NLEV; ++l)
      for (int i = 0; i < NCOL; ++i) bad += got[(r * NLEV + l) * NCOL + i] != value(V_REC_S, r, l, i);
  MPI_Offset cb[2] = {NBIG, NCOL};
  CHECK_OK(ncmpi_get_vara_double_all(ncid, var[V_BIG], s, cb, got));
  for (int l = 0; l < NBIG; ++l)
    for (int i = 0; i < NCOL; ++i) bad += got[l * NCOL + i] != value(V_BIG, 0, l, i);
  CHECK(bad == 0);
  free(got);
  CHECK_OK(ncmpi_close(ncid));
}

/* Rank 0 compares the two files byte for byte. */
static int same_bytes(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa && fb;
  while (same) {
    int ca = fgetc(fa), cb = fgetc(fb);
    if (ca != cb) same = 0;
    if (ca == EOF || cb == EOF) break;
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  static Pieces all_pieces[64], mine;
  if (mpi_test_nprocs > 64) return mpi_test_finish();
  for (int r = 0; r < mpi_test_nprocs; ++r) make_pieces(&all_pieces[r], r, mpi_test_nprocs);
  mine = all_pieces[mpi_test_rank];
  char nb[1200], bl[1200];
  snprintf(nb, sizeof nb, "%s", mpi_test_path("nonblocking_paths_nb.nc"));
  snprintf(bl, sizeof bl, "%s", mpi_test_path("nonblocking_paths_blocking.nc"));
  write_nonblocking(nb, &mine, all_pieces);
  write_blocking(bl, &mine, all_pieces);
  check_values(nb);
  check_values(bl);
  if (mpi_test_rank == 0) CHECK(same_bytes(nb, bl));
  return mpi_test_finish();
}
