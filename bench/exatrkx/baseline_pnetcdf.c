/*
 * baseline_pnetcdf -- the seed paper's application-level baseline (section 3.1)
 * on the Exa.TrkX data sets, written against the ncmpi API only, so the same
 * source builds against exacdf and against Debian's PnetCDF.
 *
 *   mpiexec -n R baseline_pnetcdf [--dataset 98M|1G|N] [--samples N] [--seed S]
 *                                 [--out PATH] [--hash H] [--keep] [--json]
 *
 * Samples are split evenly and contiguously over the ranks (exatrkx_partition).
 * Phase 0, metadata exchange: each rank serializes the metadata of its samples,
 *   MPI_Allgather of the serialized sizes, MPI_Allgatherv of the metadata.
 * Phase 1, define: ncmpi_create (CDF-5, hints nc_hash_size_dim/var = H), then
 *   every rank defines every dimension and variable, in rank then sample order.
 * Phase 2, enddef: ncmpi_enddef (rank 0 writes the header).
 * Close: ncmpi_close.
 * Times are the maximum over ranks of each phase; peak RSS (ru_maxrss) is
 * reported per rank after each phase. The header size PnetCDF reports
 * (ncmpi_inq_header_size) is checked against the generator's CDF-5 count.
 */
#include "workload.h"

#include <limits.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exatrkx_mpi.h"

#ifdef EXACDF_FOR_EACH_DATA_TYPE
#define BASELINE_LIB "exacdf"
#define BASELINE_IS_EXACDF 1
#else
#define BASELINE_LIB "pnetcdf"
#define BASELINE_IS_EXACDF 0
#endif
#if defined(BENCH_EXPECT_EXACDF) && BENCH_EXPECT_EXACDF != BASELINE_IS_EXACDF
#error "baseline_pnetcdf: compiled against the other library's pnetcdf.h"
#endif

/* Serialized variable: u8 type, u8 ndims, u16 name length, name, then per
 * dimension u16 name length, name, i64 length (native byte order: all ranks
 * run the same binary on the same kind of machine). */
typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_put(buf *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 20;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) {
            fprintf(stderr, "rank %d: out of memory serializing metadata\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_name(buf *b, const char *name)
{
    uint16_t n = (uint16_t)strlen(name);
    buf_put(b, &n, 2);
    buf_put(b, name, n);
}

static void serialize_sample(buf *b, const exatrkx_sample *smp)
{
    for (int i = 0; i < EXATRKX_ARRAYS_PER_SAMPLE; i++) {
        const exatrkx_array *a = &smp->arrays[i];
        uint8_t hdr[2] = {(uint8_t)a->type, (uint8_t)a->ndims};
        buf_put(b, hdr, 2);
        put_name(b, a->name);
        for (int d = 0; d < a->ndims; d++) {
            put_name(b, a->dimname[d]);
            int64_t len = a->dimlen[d];
            buf_put(b, &len, 8);
        }
    }
}

static const char *get_name(const char **pp, char *out)
{
    uint16_t n;
    memcpy(&n, *pp, 2);
    memcpy(out, *pp + 2, n);
    out[n] = '\0';
    *pp += 2 + n;
    return out;
}

/* Defines every object in [p, end); returns the number of variables. */
static int64_t define_all(int ncid, const char *p, const char *end, int64_t *ndims_out)
{
    char name[EXATRKX_NAME_MAX], dname[EXATRKX_NAME_MAX];
    int64_t nvars = 0, ndims = 0;
    while (p < end) {
        int type = (uint8_t)p[0], nd = (uint8_t)p[1];
        p += 2;
        get_name(&p, name);
        int dimids[2];
        for (int d = 0; d < nd; d++) {
            int64_t len;
            get_name(&p, dname);
            memcpy(&len, p, 8);
            p += 8;
            CHECK(ncmpi_def_dim(ncid, dname, (MPI_Offset)len, &dimids[d]));
            ndims++;
        }
        int varid;
        CHECK(ncmpi_def_var(ncid, name, (nc_type)type, nd, dimids, &varid));
        nvars++;
    }
    *ndims_out = ndims;
    return nvars;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: baseline_pnetcdf [--dataset 98M|1G|N] [--samples N] [--seed S] "
                        "[--out PATH] [--hash H] [--keep] [--json]\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    const char *spec = "98M", *out = "exatrkx_baseline.nc";
    long long nsamples = -1, hash = 1048576;
    uint64_t seed = EXATRKX_DEFAULT_SEED;
    int keep = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dataset") && i + 1 < argc)
            spec = argv[++i];
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            nsamples = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--hash") && i + 1 < argc)
            hash = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--keep"))
            keep = 1;
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else {
            usage();
            MPI_Finalize();
            return 2;
        }
    }
    exatrkx_dataset ds;
    if (exatrkx_dataset_init(&ds, spec, seed) != 0) {
        usage();
        MPI_Finalize();
        return 2;
    }
    if (nsamples > 0 && nsamples < ds.nsamples)
        ds.nsamples = nsamples; /* the first N samples of the set */

    int64_t first, count;
    exatrkx_partition(ds.nsamples, nranks, rank, &first, &count);

    /* Generate and serialize this rank's samples (the application's own data;
     * not part of the paper's phases, reported separately). */
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    buf local = {0};
    exatrkx_sample smp;
    int64_t hdr_expect = 0;
    for (int64_t s = first; s < first + count; s++) {
        exatrkx_sample_get(&ds, s, &smp);
        serialize_sample(&local, &smp);
        hdr_expect += exatrkx_sample_cdf5_bytes(&smp);
    }
    double t_gen = MPI_Wtime() - t;
    long rss_gen = peak_rss_kib();

    /* Phase 0: metadata exchange. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t_start = MPI_Wtime();
    t = t_start;
    long long mylen = (long long)local.len;
    long long *lens = malloc(sizeof(long long) * (size_t)nranks);
    MPI_Allgather(&mylen, 1, MPI_LONG_LONG, lens, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    int *counts = malloc(sizeof(int) * (size_t)nranks), *displs = malloc(sizeof(int) * (size_t)nranks);
    long long total = 0;
    for (int r = 0; r < nranks; r++) {
        if (total + lens[r] > INT_MAX) {
            if (rank == 0)
                fprintf(stderr, "serialized metadata exceeds 2 GiB: MPI_Allgatherv int counts overflow\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        counts[r] = (int)lens[r];
        displs[r] = (int)total;
        total += lens[r];
    }
    char *all = malloc(total ? (size_t)total : 1);
    if (!all) {
        fprintf(stderr, "rank %d: cannot allocate %lld bytes of metadata\n", rank, total);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgatherv(local.p, counts[rank], MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    free(local.p);
    double t_exchange = MPI_Wtime() - t;
    long rss_exchange = peak_rss_kib();

    /* Phase 1: create + define everything collectively. */
    t = MPI_Wtime();
    MPI_Info info;
    MPI_Info_create(&info);
    if (hash > 0) {
        char v[32];
        snprintf(v, sizeof v, "%lld", hash);
        MPI_Info_set(info, "nc_hash_size_dim", v);
        MPI_Info_set(info, "nc_hash_size_var", v);
    }
    int ncid;
    CHECK(ncmpi_create(MPI_COMM_WORLD, out, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
    MPI_Info_free(&info);
    CHECK(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
    double t_create = MPI_Wtime() - t;
    t = MPI_Wtime();
    int64_t ndefdims = 0;
    int64_t ndefvars = define_all(ncid, all, all + total, &ndefdims);
    double t_define = MPI_Wtime() - t;
    free(all);
    long rss_define = peak_rss_kib();

    /* Phase 2: enddef. */
    t = MPI_Wtime();
    CHECK(ncmpi_enddef(ncid));
    double t_enddef = MPI_Wtime() - t;
    long rss_enddef = peak_rss_kib();
    MPI_Offset hdr_size = -1;
    CHECK(ncmpi_inq_header_size(ncid, &hdr_size));

    t = MPI_Wtime();
    CHECK(ncmpi_close(ncid));
    double t_close = MPI_Wtime() - t;
    double t_total = MPI_Wtime() - t_start;
    long rss_close = peak_rss_kib();

    long long hdr_sum = 0, hdr_mine = (long long)hdr_expect;
    MPI_Allreduce(&hdr_mine, &hdr_sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    hdr_sum += exatrkx_cdf5_header_fixed();

    double m_gen = max_over_ranks(t_gen), m_exchange = max_over_ranks(t_exchange),
           m_create = max_over_ranks(t_create), m_define = max_over_ranks(t_define),
           m_enddef = max_over_ranks(t_enddef), m_close = max_over_ranks(t_close),
           m_total = max_over_ranks(t_total);
    long rss[5] = {rss_gen, rss_exchange, rss_define, rss_enddef, rss_close};
    long *rss_all = rank == 0 ? malloc(sizeof(long) * 5 * (size_t)nranks) : NULL;
    MPI_Gather(rss, 5, MPI_LONG, rss_all, 5, MPI_LONG, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        if (json) {
            printf("{\"bench\":\"exatrkx_baseline\",\"lib\":\"%s\",\"dataset\":\"%s\",\"seed\":%llu,"
                   "\"samples\":%lld,\"ranks\":%d,\"variables\":%lld,\"dimensions\":%lld,"
                   "\"metadata_bytes\":%lld,\"hash\":%lld,\"header_bytes\":%lld,"
                   "\"header_bytes_expected\":%lld,\"t_generate\":%.6f,\"t_exchange\":%.6f,"
                   "\"t_create\":%.6f,\"t_define\":%.6f,\"t_enddef\":%.6f,\"t_close\":%.6f,"
                   "\"t_total\":%.6f,\"peak_rss_kib\":[",
                   BASELINE_LIB, ds.label, (unsigned long long)seed, (long long)ds.nsamples, nranks,
                   (long long)ndefvars, (long long)ndefdims, total, hash, (long long)hdr_size, hdr_sum,
                   m_gen, m_exchange, m_create, m_define, m_enddef, m_close, m_total);
            for (int r = 0; r < nranks; r++)
                printf("%s%ld", r ? "," : "", rss_all[5 * r + 4]);
            printf("]}\n");
        } else {
            printf("exatrkx application-level baseline, %s, %s (first %lld samples), %d ranks\n",
                   BASELINE_LIB, ds.label, (long long)ds.nsamples, nranks);
            printf("  variables %lld, dimensions %lld, serialized metadata %.2f MB, hash hints %lld\n",
                   (long long)ndefvars, (long long)ndefdims, total / 1e6, hash);
            printf("  CDF-5 header: library %lld bytes, generator %lld bytes  %s\n", (long long)hdr_size,
                   hdr_sum, (long long)hdr_size == hdr_sum ? "OK" : "MISMATCH");
            printf("  phase times, max over ranks (s):\n");
            printf("    generate+serialize (app) %10.4f\n", m_gen);
            printf("    0 metadata exchange      %10.4f\n", m_exchange);
            printf("    1 create                 %10.4f\n", m_create);
            printf("    1 define (all objects)   %10.4f\n", m_define);
            printf("    2 enddef                 %10.4f\n", m_enddef);
            printf("    close                    %10.4f\n", m_close);
            printf("    total (exchange..close)  %10.4f\n", m_total);
            printf("  peak RSS per rank (MiB) after: generate exchange define enddef close\n");
            for (int r = 0; r < nranks; r++)
                printf("    rank %3d  %8.1f %8.1f %8.1f %8.1f %8.1f\n", r, rss_all[5 * r] / 1024.0,
                       rss_all[5 * r + 1] / 1024.0, rss_all[5 * r + 2] / 1024.0,
                       rss_all[5 * r + 3] / 1024.0, rss_all[5 * r + 4] / 1024.0);
        }
        free(rss_all);
        if (!keep)
            unlink(out);
    }
    free(lens);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
