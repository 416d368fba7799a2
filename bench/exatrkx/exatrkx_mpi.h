/*
 * exatrkx_mpi.h -- what the Exa.TrkX MPI benchmarks share (one translation
 * unit each): this process's rank and the rank count, CHECK() of an ncmpi_*
 * call (message and MPI_Abort on error), peak RSS, and the max over ranks.
 * Include after <mpi.h> and <pnetcdf.h>.
 */
#ifndef EXATRKX_MPI_H
#define EXATRKX_MPI_H

#include <stdio.h>
#include <sys/resource.h>

static int rank, nranks; /* set by main */

#define CHECK(call)                                                                            \
    do {                                                                                       \
        int err_ = (call);                                                                     \
        if (err_ != NC_NOERR) {                                                                \
            fprintf(stderr, "rank %d: %s:%d %s: %s\n", rank, __FILE__, __LINE__, #call,        \
                    ncmpi_strerror(err_));                                                     \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

static double max_over_ranks(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

#endif
