/*
 * nfmpi_support.c -- helpers of the generated nfmpi_* shims, and the routines of PnetCDF's
 * Fortran 77 API that return characters or a logical (gfortran ABI: a CHARACTER*80 function
 * gets the result buffer and its length before its arguments).
 */
#include "nfmpi_support.h"

#include <stdlib.h>
#include <string.h>

void exa_f_arena_free(exa_f_arena *a) {
  for (int i = 0; i < a->n; ++i) free(a->blocks[i]);
  a->n = 0;
}

static void *arena_alloc(exa_f_arena *a, size_t bytes) {
  if (a->n == (int)(sizeof a->blocks / sizeof a->blocks[0])) return NULL;
  void *p = malloc(bytes ? bytes : 1);
  if (p != NULL) a->blocks[a->n++] = p;
  return p;
}

int exa_f_str_in(exa_f_arena *a, const char *f, size_t flen, char **out) {
  while (flen > 0 && f[flen - 1] == ' ') --flen;
  char *c = arena_alloc(a, flen + 1);
  if (c == NULL) return NC_ENOMEM;
  memcpy(c, f, flen);
  c[flen] = '\0';
  *out = c;
  return NC_NOERR;
}

void exa_f_str_out(const char *c, char *f, size_t flen) {
  size_t n = strlen(c);
  if (n > flen) n = flen;
  memcpy(f, c, n);
  memset(f + n, ' ', flen - n);
}

void exa_f_cstr_out(const char *c, char *f, size_t flen) {
  size_t n = strlen(c) + 1;
  memcpy(f, c, n < flen ? n : flen);
}

int exa_f_scratch(exa_f_arena *a, size_t n, char **out) {
  char *c = arena_alloc(a, n + 1);
  if (c == NULL) return NC_ENOMEM;
  c[0] = '\0';
  *out = c;
  return NC_NOERR;
}

int exa_f_ints(exa_f_arena *a, int n, int **out) {
  int *c = arena_alloc(a, sizeof(int) * (size_t)(n > 0 ? n : 0));
  if (c == NULL) return NC_ENOMEM;
  *out = c;
  return NC_NOERR;
}

int exa_f_var_ndims(int ncid, int varid, int *ndims) {
  return ncmpi_inq_varndims(ncid, varid, ndims);
}

int exa_f_offsets(exa_f_arena *a, const MPI_Offset *f, int ndims, MPI_Offset minus,
                  MPI_Offset **out) {
  MPI_Offset *c = arena_alloc(a, sizeof(MPI_Offset) * (size_t)ndims);
  if (c == NULL) return NC_ENOMEM;
  for (int d = 0; d < ndims; ++d) c[d] = f[ndims - 1 - d] - minus;
  *out = c;
  return NC_NOERR;
}

int exa_f_dimids_in(exa_f_arena *a, const int *f, int ndims, int **out) {
  if (ndims < 0) ndims = 0; /* the C call reports the bad ndims */
  int *c = arena_alloc(a, sizeof(int) * (size_t)ndims);
  if (c == NULL) return NC_ENOMEM;
  for (int d = 0; d < ndims; ++d) c[d] = f[ndims - 1 - d] - 1;
  *out = c;
  return NC_NOERR;
}

void exa_f_dimids_out(const int *c, int n, int *f) {
  for (int d = 0; d < n; ++d) f[d] = c[n - 1 - d] + 1;
}

int exa_f_varn(exa_f_arena *a, const MPI_Offset *f, int ndims, int num, MPI_Offset minus,
               MPI_Offset ***out) {
  if (num < 0) num = 0; /* the C call reports the bad num */
  MPI_Offset **rows = arena_alloc(a, sizeof(MPI_Offset *) * (size_t)num);
  MPI_Offset *all = arena_alloc(a, sizeof(MPI_Offset) * (size_t)num * (size_t)ndims);
  if (rows == NULL || all == NULL) return NC_ENOMEM;
  for (int i = 0; i < num; ++i) {
    rows[i] = all + (size_t)i * (size_t)ndims;
    for (int d = 0; d < ndims; ++d) rows[i][d] = f[(size_t)i * (size_t)ndims + (size_t)(ndims - 1 - d)] - minus;
  }
  *out = rows;
  return NC_NOERR;
}

/* --- character and logical functions ------------------------------------------------------ */

void nfmpi_inq_libvers_(char *result, size_t result_len);
void nfmpi_strerror_(char *result, size_t result_len, const int *err);
void nfmpi_strerrno_(char *result, size_t result_len, const int *err);
int nfmpi_issyserr_(const int *err);
int nfmpi_xstrerror_(const int *err, char *msg, size_t msg_len);
int nfmpi_xstrerrno_(const int *err, char *msg, size_t msg_len);
int nfmpi_xinq_libvers_(char *msg, size_t msg_len);

void nfmpi_inq_libvers_(char *result, size_t result_len) {
  exa_f_str_out(ncmpi_inq_libvers(), result, result_len);
}
void nfmpi_strerror_(char *result, size_t result_len, const int *err) {
  exa_f_str_out(ncmpi_strerror(*err), result, result_len);
}
void nfmpi_strerrno_(char *result, size_t result_len, const int *err) {
  exa_f_str_out(ncmpi_strerrno(*err), result, result_len);
}
int nfmpi_issyserr_(const int *err) { return *err > 0 ? 1 : 0; }
int nfmpi_xstrerror_(const int *err, char *msg, size_t msg_len) {
  exa_f_str_out(ncmpi_strerror(*err), msg, msg_len);
  return NC_NOERR;
}
int nfmpi_xstrerrno_(const int *err, char *msg, size_t msg_len) {
  exa_f_str_out(ncmpi_strerrno(*err), msg, msg_len);
  return NC_NOERR;
}
int nfmpi_xinq_libvers_(char *msg, size_t msg_len) {
  exa_f_str_out(ncmpi_inq_libvers(), msg, msg_len);
  return NC_NOERR;
}
