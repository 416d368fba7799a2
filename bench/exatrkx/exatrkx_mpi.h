/*
 * exatrkx_mpi.h -- what the Exa.TrkX MPI benchmarks share (one translation
 * unit each): this process's rank and the rank count, CHECK() of an ncmpi_*
 * call (message and MPI_Abort on error), peak RSS, the max over ranks, and
 * the partitioned-format name of an object.
 * Include after <mpi.h> and <pnetcdf.h>.
 */
#ifndef EXATRKX_MPI_H
#define EXATRKX_MPI_H

#include <stdio.h>
#include <string.h>
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

/* The partitioned-format name of a generator name: "<parent>_grp_<sample>_<key>"
 * -> "/<parent>_grp_<sample>/<key>" (one metadata block per sample);
 * dimension names likewise. Needs <string.h>. */
static inline void block_name(const char *classic, const char *sample, char *out, size_t n)
{
    const char *at = strstr(classic, sample);
    size_t group = at ? (size_t)(at - classic) + strlen(sample) : 0;
    if (!at || classic[group] != '_') {
        snprintf(out, n, "%s", classic);
        return;
    }
    snprintf(out, n, "/%.*s/%s", (int)group, classic, classic + group + 1);
}

/* The name to define an object by: the generator's, or its partitioned form
 * (written into buf). */
static inline const char *object_name(const char *classic, const char *sample, int partitioned, char *buf,
                                      size_t n)
{
    if (!partitioned)
        return classic;
    block_name(classic, sample, buf, n);
    return buf;
}

static double max_over_ranks(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

#endif
