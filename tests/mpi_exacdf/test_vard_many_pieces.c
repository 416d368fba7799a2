/*
 * put_vard/get_vard with file types of more pieces than fit a list, on a
 * record variable whose records a redef split into sections (issue 19;
 * before, a file type of more than 2^26 separate pieces was NC_ENOMEM
 * there). The file: a (1 MiB a record; 2 records written before a redef)
 * and b (4 bytes a record) that the redef added, so records 0-7 lie in
 * closed sections and the rest in the current one; every byte is
 * f(its offset in PnetCDF's unsplit layout from a's ncmpi_inq_varoffset,
 * record r at r * ncmpi_inq_recsize), written by put_vara.
 *   - rank 0's get_vard of an hvector of 2^26 + 64 one-byte blocks (2^21 +
 *     64 with several ranks or a sanitizer), every other byte, crossing
 *     both sections and b's bytes (one file type may cover two variables,
 *     as in PnetCDF): every byte f(its offset);
 *   - rank 0's put_vard of 2^20 + 64 one-byte blocks 3 bytes apart (two
 *     view batches; 2^16, one batch, with several ranks or a sanitizer: the
 *     get's batches test the rounds there; the other ranks put a few
 *     bytes), then every byte of the records they reach read
 *     by get_vara: the new values where the file types put them, f
 *     elsewhere.
 * exacdf only (a partitioned file).
 */
#include <exacdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

#define N (1 << 20) /* a's bytes per record */
#define OLD 2       /* records written before the redef */
/* The 2^26 + 64 pieces cost ~10 s of CPU: one rank alone, not under a
 * sanitizer; otherwise 2^21 + 64 (three view batches, and the collective
 * rounds of the ranks with one); 2^14 + 64 under a sanitizer (below). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
#define PUT_STRIDE 3
#define SMALL 1000 /* pieces other ranks put: odd bytes of record rank - 1 */

static int rank, nprocs;

/* differs between offsets a record, a section or 2^k bytes apart */
static signed char f(int64_t u) { return (signed char)(u ^ (u >> 7) ^ (u >> 17) ^ (u >> 23)); }
static signed char put0(int64_t i) { return (signed char)(i % 7 - 50); }
static signed char put_k(int k, int64_t i) { return (signed char)(k * 31 + i % 17); }

/* count one-byte blocks, `stride` bytes apart, from byte `first` */
static MPI_Datatype pieces(int64_t count, MPI_Aint stride, MPI_Aint first) {
  MPI_Datatype v, t;
  MPI_Type_create_hvector((int)count, 1, stride, MPI_SIGNED_CHAR, &v);
  int one = 1;
  MPI_Type_create_struct(1, &one, &first, &v, &t);
  MPI_Type_free(&v);
  MPI_Type_commit(&t);
  return t;
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  const char *path = mpi_test_path("vard_many_pieces.nc");
  int ncid, d[3], a, b;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "n", N, &d[1]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_BYTE, 2, d, &a));
  CHECK_OK(ncmpi_enddef(ncid));
  signed char *rec = calloc(N, 1);
  MPI_Offset start[2] = {OLD - 1, 0}, count[2] = {rank == 0, N};
  CHECK_OK(ncmpi_put_vara_schar_all(ncid, a, start, count, rec)); /* records 0..OLD-1 exist */
  CHECK_OK(ncmpi_redef(ncid));
  /* 4 bytes a record: no padding, so every byte of an old record has its section */
  CHECK_OK(ncmpi_def_dim(ncid, "m", 4, &d[2]));
  int bd[2] = {d[0], d[2]};
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_BYTE, 2, bd, &b));
  CHECK_OK(ncmpi_enddef(ncid)); /* the 8 records stay in place: sections */
  MPI_Offset a_at = 0, b_at = 0, recsize = 0;
  CHECK_OK(ncmpi_inq_varoffset(ncid, a, &a_at));
  CHECK_OK(ncmpi_inq_varoffset(ncid, b, &b_at));
  CHECK_OK(ncmpi_inq_recsize(ncid, &recsize));
  CHECK(b_at - a_at == N && recsize == N + 4);

  /* the records the file types reach, every byte f(u), by put_vara (rank 0) */
  /* Under a sanitizer, OMPIO's view decoding (a realloc per few pieces, each
   * through the sanitizer's quarantine) takes minutes for 2^21 pieces: there
   * the get reads 2^14 + 64 bytes 1 KiB apart (across both sections and b's
   * bytes, in one view batch); the batches are left to the build without one. */
  const int big = nprocs == 1 && !SANITIZED;
  const int64_t many = SANITIZED ? (1 << 14) + 64 : big ? (1 << 26) + 64 : (1 << 21) + 64;
  const MPI_Aint get_stride = SANITIZED ? 1024 : 2;
  const int64_t put_pieces = SANITIZED ? 1 << 12 : big ? (1 << 20) + 64 : 1 << 16; /* (OMPIO writes a piece a call) */
  int64_t nrec_all = (get_stride * many + recsize - 1) / recsize;
  if (nrec_all < (PUT_STRIDE * (int64_t)put_pieces + recsize - 1) / recsize)
    nrec_all = (PUT_STRIDE * (int64_t)put_pieces + recsize - 1) / recsize;
  if (nrec_all < nprocs) nrec_all = nprocs;
  signed char *bvals = malloc((size_t)nrec_all * 4);
  for (int64_t r = 0; r < nrec_all; r++) {
    for (int64_t w = 0; w < N; w++) rec[w] = f(r * recsize + w);
    for (int64_t j = 0; j < 4; j++) bvals[r * 4 + j] = f(r * recsize + N + j);
    start[0] = r;
    CHECK_OK(ncmpi_put_vara_schar_all(ncid, a, start, count, rec));
  }
  MPI_Offset bs[2] = {0, 0}, bc[2] = {rank == 0 ? nrec_all : 0, 4};
  CHECK_OK(ncmpi_put_vara_schar_all(ncid, b, bs, bc, bvals));

  /* get_vard of many bytes get_stride apart (rank 0; the others a few) */
  const int64_t gets = rank == 0 ? many : SMALL;
  MPI_Datatype gt = pieces(gets, get_stride, 0);
  signed char *got = malloc((size_t)gets);
  CHECK_OK(ncmpi_get_vard_all(ncid, a, gt, got, gets, MPI_SIGNED_CHAR));
  int64_t wrong = 0;
  for (int64_t i = 0; i < gets; i++) wrong += got[i] != f(get_stride * i);
  CHECK(wrong == 0);
  MPI_Type_free(&gt);
  free(got);

  /* put_vard: rank 0 put_pieces bytes PUT_STRIDE apart from byte 1; rank k SMALL odd bytes of record k - 1 */
  const int64_t puts = rank == 0 ? put_pieces : SMALL;
  MPI_Datatype pt = rank == 0 ? pieces(puts, PUT_STRIDE, 1) : pieces(puts, 2, (MPI_Aint)(rank - 1) * recsize + 1);
  signed char *buf = malloc((size_t)puts);
  for (int64_t i = 0; i < puts; i++) buf[i] = rank == 0 ? put0(i) : put_k(rank, i);
  CHECK_OK(ncmpi_put_vard_all(ncid, a, pt, buf, puts, MPI_SIGNED_CHAR));
  MPI_Offset nrec = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, d[0], &nrec));
  CHECK(nrec == nrec_all); /* the file types reach no further */
  CHECK_OK(ncmpi_close(ncid));

  /* every byte of a and b (rank 0 checks; the others take part) */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_get_vara_schar_all(ncid, b, bs, bc, bvals));
  int64_t checked = 0;
  wrong = 0;
  signed char *want = malloc(N + 4);
  char *skip = malloc(N + 4);
  /* the records the puts reach (the rest was read by get_vard above) */
  int64_t nput = (PUT_STRIDE * (int64_t)put_pieces + recsize - 1) / recsize;
  if (nput < nprocs) nput = nprocs;
  for (int64_t r = 0; r < nput; r++) {
    start[0] = r;
    CHECK_OK(ncmpi_get_vara_schar_all(ncid, a, start, count, rec));
    if (rank != 0) continue;
    const int64_t base = r * recsize;
    for (int64_t w = 0; w < N + 4; w++) want[w] = f(base + w);
    memset(skip, 0, N + 4);
    if (r + 1 < nprocs) /* rank r + 1's odd bytes */
      for (int64_t i = 0; i < SMALL; i++) want[2 * i + 1] = put_k((int)r + 1, i);
    /* rank 0's bytes; where rank r + 1's reach the same byte, the puts of one
     * collective call are not ordered: not checked */
    for (int64_t i = (base + PUT_STRIDE - 2) / PUT_STRIDE; i < put_pieces; i++) {
      const int64_t w = i * PUT_STRIDE + 1 - base;
      if (w >= N + 4) break;
      if (r + 1 < nprocs && w % 2 == 1 && (w - 1) / 2 < SMALL) skip[w] = 1;
      want[w] = put0(i);
    }
    for (int64_t w = 0; w < N + 4; w++) {
      if (skip[w]) continue;
      wrong += (w < N ? rec[w] : bvals[r * 4 + (w - N)]) != want[w];
      checked++;
    }
  }
  free(want);
  free(skip);
  if (rank == 0) {
    CHECK(wrong == 0);
    CHECK(checked >= nput * N - SMALL); /* (a few overlapping bytes skipped) */
    if (wrong) fprintf(stderr, "%lld of %lld bytes wrong\n", (long long)wrong, (long long)checked);
  }
  CHECK_OK(ncmpi_close(ncid));
  MPI_Type_free(&pt);
  free(buf);
  free(rec);
  free(bvals);
  return mpi_test_finish();
}
