/*
 * nfmpi_support.h -- what the generated nfmpi_* shims (gen_fortran.py) share: Fortran strings,
 * 1-based reversed index arrays, and an arena that frees the converted arguments of one call.
 */
#ifndef EXACDF_NFMPI_SUPPORT_H
#define EXACDF_NFMPI_SUPPORT_H

#include <stddef.h>

#include <pnetcdf.h>

/* The converted arguments of one call; exa_f_arena_free releases them all. */
typedef struct exa_f_arena {
  void *blocks[16];
  int n;
} exa_f_arena;

void exa_f_arena_free(exa_f_arena *a);

/* A Fortran input string (blank padded, not terminated) as a C string without the trailing
 * blanks. NC_ENOMEM when the arena is full or malloc fails. */
int exa_f_str_in(exa_f_arena *a, const char *f, size_t flen, char **out);
/* A C string into a Fortran output string: copied (truncated to flen) and blank padded. */
void exa_f_str_out(const char *c, char *f, size_t flen);
/* A C string into a Fortran output string with its NUL byte, not padded (PnetCDF's
 * nfmpi_inq_path): min(strlen + 1, flen) bytes written. */
void exa_f_cstr_out(const char *c, char *f, size_t flen);
/* A scratch C buffer for an output name or path of up to n characters. */
int exa_f_scratch(exa_f_arena *a, size_t n, char **out);

/* An int array of n elements. */
int exa_f_ints(exa_f_arena *a, int n, int **out);
/* The number of dimensions of variable varid (0-based). */
int exa_f_var_ndims(int ncid, int varid, int *ndims);
/* A per-dimension Fortran array (fastest dimension first) as C order, minus `minus`. */
int exa_f_offsets(exa_f_arena *a, const MPI_Offset *f, int ndims, MPI_Offset minus,
                  MPI_Offset **out);
/* Fortran dimension ids (1-based, fastest first) as C ids. */
int exa_f_dimids_in(exa_f_arena *a, const int *f, int ndims, int **out);
/* C dimension ids into Fortran order and 1-based, n of them. */
void exa_f_dimids_out(const int *c, int n, int *f);
/* A varn (ndims, num) Fortran array as num C arrays, minus `minus`. */
int exa_f_varn(exa_f_arena *a, const MPI_Offset *f, int ndims, int num, MPI_Offset minus,
               MPI_Offset ***out);

#endif /* EXACDF_NFMPI_SUPPORT_H */
