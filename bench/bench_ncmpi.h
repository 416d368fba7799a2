/*
 * bench_ncmpi.h -- what the benchmarks written against the ncmpi API share:
 * the check that each build compiled against the pnetcdf.h it meant to (a
 * mixed include order stops the build), the library label, and CHECK().
 * Include after <pnetcdf.h> and bench_common.h.
 */
#ifndef EXACDF_BENCH_NCMPI_H
#define EXACDF_BENCH_NCMPI_H

#if defined(BENCH_EXPECT_EXACDF)
#if BENCH_EXPECT_EXACDF && !defined(EXACDF_NC_CONSTANTS_H)
#error "exacdf build compiled against a pnetcdf.h that is not exacdf's"
#endif
#if !BENCH_EXPECT_EXACDF && defined(EXACDF_NC_CONSTANTS_H)
#error "PnetCDF build compiled against exacdf's pnetcdf.h"
#endif
#endif
#ifndef BENCH_LIB
#define BENCH_LIB "ncmpi"
#endif

#define CHECK(call)                                                              \
  do {                                                                           \
    int err_ = (call);                                                           \
    if (err_ != NC_NOERR) BENCH_DIE("%s: %s", #call, ncmpi_strerror(err_));      \
  } while (0)

#endif
