/*
 * indep_exacdf -- the Exa.TrkX data sets created in exacdf's independent
 * define mode (EXA_INDEP_DEFINE, issue 5): each rank defines only the
 * samples it holds; ncmpi_enddef merges (seed 000's library-level approach,
 * with the hashed-record check instead of all-to-all name comparison).
 *
 *   mpiexec -n R indep_exacdf [--dataset 98M|1G|N] [--samples N] [--seed S]
 *                             [--out PATH] [--keep] [--json]
 *
 * Phases (times are the maximum over ranks):
 *   define   ncmpi_create (CDF-5, NC_NOFILL) and this rank's def_dim/def_var calls, local
 *   enddef   ncmpi_enddef, split by exa_inq_enddef_stats into
 *              check     fixed-size records to the checking ranks, the check, drops back
 *              exchange  the owners' metadata to every rank, merged
 *              layout    file layout
 *              header    header write by rank 0
 *   close    ncmpi_close
 * Peak RSS (ru_maxrss) per rank after each phase. The header size exacdf
 * reports is checked against the generator's CDF-5 count.
 */
#include "workload.h"

#include <exacdf.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exatrkx_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *spec = "98M", *out = "exatrkx_indep.nc";
    long long nsamples = -1;
    uint64_t seed = EXATRKX_DEFAULT_SEED;
    int keep = 0, json = 0, partitioned = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dataset") && i + 1 < argc)
            spec = argv[++i];
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            nsamples = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--keep"))
            keep = 1;
        else if (!strcmp(argv[i], "--format") && i + 1 < argc)
            partitioned = !strcmp(argv[++i], "partitioned");
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: indep_exacdf [--dataset 98M|1G|N] [--samples N] "
                                "[--seed S] [--format cdf5|partitioned] [--out PATH] [--keep] [--json]\n");
            MPI_Finalize();
            return 2;
        }
    }
    exatrkx_dataset ds;
    if (exatrkx_dataset_init(&ds, spec, seed) != 0) {
        if (rank == 0)
            fprintf(stderr, "indep_exacdf: bad --dataset %s\n", spec);
        MPI_Finalize();
        return 2;
    }
    if (nsamples > 0 && nsamples < ds.nsamples)
        ds.nsamples = nsamples;
    int64_t first, count;
    exatrkx_partition(ds.nsamples, nranks, rank, &first, &count);
    long rss_start = peak_rss_kib();

    /* define: create + this rank's samples, generated one at a time */
    MPI_Barrier(MPI_COMM_WORLD);
    double t_start = MPI_Wtime(), t = t_start;
    int ncid;
    CHECK(ncmpi_create(MPI_COMM_WORLD, out,
                       NC_CLOBBER | EXA_INDEP_DEFINE | (partitioned ? EXA_FORMAT_PARTITIONED : NC_64BIT_DATA),
                       MPI_INFO_NULL, &ncid));
    CHECK(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
    exatrkx_sample smp;
    char name[2 * EXATRKX_NAME_MAX];
    int64_t hdr_expect = 0, nvars_mine = 0, ndims_mine = 0;
    for (int64_t s = first; s < first + count; s++) {
        exatrkx_sample_get(&ds, s, &smp);
        hdr_expect += exatrkx_sample_cdf5_bytes(&smp);
        for (int i = 0; i < EXATRKX_ARRAYS_PER_SAMPLE; i++) {
            const exatrkx_array *a = &smp.arrays[i];
            int dimids[2], varid;
            for (int d = 0; d < a->ndims; d++) {
                CHECK(ncmpi_def_dim(ncid, object_name(a->dimname[d], smp.name, partitioned, name, sizeof name),
                                    (MPI_Offset)a->dimlen[d], &dimids[d]));
                ndims_mine++;
            }
            CHECK(ncmpi_def_var(ncid, object_name(a->name, smp.name, partitioned, name, sizeof name),
                                (nc_type)a->type, a->ndims, dimids, &varid));
            nvars_mine++;
        }
    }
    double t_define = MPI_Wtime() - t;
    long rss_define = peak_rss_kib();

    t = MPI_Wtime();
    CHECK(ncmpi_enddef(ncid));
    double t_enddef = MPI_Wtime() - t;
    long rss_enddef = peak_rss_kib();
    exa_enddef_stats st;
    CHECK(exa_inq_enddef_stats(ncid, &st));
    MPI_Offset hdr_size = -1;
    int nvars = -1, ndims = -1;
    CHECK(ncmpi_inq_header_size(ncid, &hdr_size));
    CHECK(ncmpi_inq_nvars(ncid, &nvars));
    CHECK(ncmpi_inq_ndims(ncid, &ndims));

    t = MPI_Wtime();
    CHECK(ncmpi_close(ncid));
    double t_close = MPI_Wtime() - t;
    double t_total = MPI_Wtime() - t_start;
    long rss_close = peak_rss_kib();

    long long hdr_sum = 0, hdr_mine = (long long)hdr_expect;
    MPI_Allreduce(&hdr_mine, &hdr_sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    hdr_sum += exatrkx_cdf5_header_fixed();
    double m_define = max_over_ranks(t_define), m_enddef = max_over_ranks(t_enddef),
           m_check = max_over_ranks(st.merge_check), m_exchange = max_over_ranks(st.merge_exchange),
           m_layout = max_over_ranks(st.layout), m_header = max_over_ranks(st.header_io),
           m_close = max_over_ranks(t_close), m_total = max_over_ranks(t_total);
    long rss[4] = {rss_start, rss_define, rss_enddef, rss_close};
    long *rss_all = rank == 0 ? malloc(sizeof(long) * 4 * (size_t)nranks) : NULL;
    MPI_Gather(rss, 4, MPI_LONG, rss_all, 4, MPI_LONG, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        /* the generator predicts the CDF-5 header; a partitioned file's metadata differs */
        int ok = partitioned || (long long)hdr_size == hdr_sum;
        if (json) {
            printf("{\"bench\":\"exatrkx_indep\",\"lib\":\"exacdf\",\"format\":\"%s\",\"dataset\":\"%s\",\"seed\":%llu,"
                   "\"samples\":%lld,\"ranks\":%d,\"variables\":%d,\"dimensions\":%d,"
                   "\"header_bytes\":%lld,\"header_bytes_expected\":%lld,\"t_define\":%.6f,"
                   "\"t_enddef\":%.6f,\"t_check\":%.6f,\"t_exchange\":%.6f,\"t_layout\":%.6f,"
                   "\"t_header_io\":%.6f,\"t_close\":%.6f,\"t_total\":%.6f,\"peak_rss_kib\":[",
                   partitioned ? "partitioned" : "cdf5", ds.label, (unsigned long long)seed,
                   (long long)ds.nsamples, nranks, nvars, ndims, (long long)hdr_size, hdr_sum, m_define, m_enddef, m_check, m_exchange, m_layout,
                   m_header, m_close, m_total);
            for (int r = 0; r < nranks; r++)
                printf("%s%ld", r ? "," : "", rss_all[4 * r + 3]);
            printf("],\"peak_rss_define_kib\":[");
            for (int r = 0; r < nranks; r++)
                printf("%s%ld", r ? "," : "", rss_all[4 * r + 1]);
            printf("]}\n");
        } else {
            printf("exatrkx independent define (exacdf, %s), %s (first %lld samples), %d ranks\n",
                   partitioned ? "partitioned" : "CDF-5", ds.label, (long long)ds.nsamples, nranks);
            printf("  variables %d, dimensions %d (rank 0 defined %lld and %lld)\n", nvars, ndims,
                   (long long)nvars_mine, (long long)ndims_mine);
            printf("  CDF-5 header: library %lld bytes, generator %lld bytes  %s\n",
                   (long long)hdr_size, hdr_sum, ok ? "OK" : "MISMATCH");
            printf("  phase times, max over ranks (s):\n");
            printf("    define (create + own objects) %10.4f\n", m_define);
            printf("    enddef                        %10.4f\n", m_enddef);
            printf("      check (records)             %10.4f\n", m_check);
            printf("      metadata exchange           %10.4f\n", m_exchange);
            printf("      layout                      %10.4f\n", m_layout);
            printf("      header I/O                  %10.4f\n", m_header);
            printf("    close                         %10.4f\n", m_close);
            printf("    total                         %10.4f\n", m_total);
            printf("  peak RSS per rank (MiB) after: start define enddef close\n");
            for (int r = 0; r < nranks; r++)
                printf("    rank %3d  %8.1f %8.1f %8.1f %8.1f\n", r, rss_all[4 * r] / 1024.0,
                       rss_all[4 * r + 1] / 1024.0, rss_all[4 * r + 2] / 1024.0,
                       rss_all[4 * r + 3] / 1024.0);
        }
        free(rss_all);
        if (!keep)
            unlink(out);
        if (!ok)
            fprintf(stderr, "indep_exacdf: header size mismatch\n");
    }
    MPI_Finalize();
    return 0;
}
