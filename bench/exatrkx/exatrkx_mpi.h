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
 * dimension names likewise; cut to n-1 bytes. Built with memcpy: it runs once
 * per object in the timed define loop, where snprintf cost ~8% of a 1-rank
 * partitioned run (more than some library calls). Needs <string.h>. */
static inline void block_name(const char *classic, const char *sample, char *out, size_t n)
{
    const char *at = strstr(classic, sample);
    size_t group = at ? (size_t)(at - classic) + strlen(sample) : 0;
    size_t len = strlen(classic), k = 0;
    if (n == 0)
        return;
    if (!at || classic[group] != '_') {
        k = len < n - 1 ? len : n - 1;
        memcpy(out, classic, k);
        out[k] = '\0';
        return;
    }
    /* "/" + classic[0, group) + "/" + classic[group+1, len) */
    const char *parts[3] = {"/", classic, classic + group + 1};
    size_t sizes[3] = {1, group, len - group - 1};
    for (int i = 0; i < 3; ++i) {
        size_t m = sizes[i] < n - 1 - k ? sizes[i] : n - 1 - k;
        memcpy(out + k, parts[i], m);
        k += m;
        if (i == 1 && k < n - 1)
            out[k++] = '/';
    }
    out[k] = '\0';
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
