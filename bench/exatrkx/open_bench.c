/*
 * open_bench -- issue 6's open-side measurements on the Exa.TrkX data sets:
 * the same objects in CDF-5 and in the partitioned format (one metadata
 * block per sample: "/<parent>_grp_<sample>/<key>"), created in independent
 * define mode, then
 *   open      ncmpi_open + ncmpi_inq_nvars
 *   one       ncmpi_open + ncmpi_inq_varid/ncmpi_inq_var of one variable of the last sample
 *   all       ncmpi_open + every variable's name, type, dimensions and their names and lengths
 *             (seed 000's Table 2: the time to read every object's metadata), on every rank
 * Times are the maximum over ranks, best of --reps; peak RSS per rank after each.
 *
 *   mpiexec -n R open_bench --dataset N|98M|1G --format cdf5|partitioned [--out PATH]
 *                           [--reps K] [--keep] [--json]
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

static void create(const exatrkx_dataset *ds, const char *path, int partitioned)
{
    int64_t first, count;
    exatrkx_partition(ds->nsamples, nranks, rank, &first, &count);
    int ncid;
    int cmode = NC_CLOBBER | EXA_INDEP_DEFINE | (partitioned ? EXA_FORMAT_PARTITIONED : NC_64BIT_DATA);
    CHECK(ncmpi_create(MPI_COMM_WORLD, path, cmode, MPI_INFO_NULL, &ncid));
    CHECK(ncmpi_set_fill(ncid, NC_NOFILL, NULL));
    exatrkx_sample smp;
    char name[2 * EXATRKX_NAME_MAX];
    for (int64_t s = first; s < first + count; s++) {
        exatrkx_sample_get(ds, s, &smp);
        for (int i = 0; i < EXATRKX_ARRAYS_PER_SAMPLE; i++) {
            const exatrkx_array *a = &smp.arrays[i];
            int dimids[2], varid;
            for (int d = 0; d < a->ndims; d++)
                CHECK(ncmpi_def_dim(ncid, object_name(a->dimname[d], smp.name, partitioned, name, sizeof name),
                                    (MPI_Offset)a->dimlen[d], &dimids[d]));
            CHECK(ncmpi_def_var(ncid, object_name(a->name, smp.name, partitioned, name, sizeof name),
                                (nc_type)a->type, a->ndims, dimids, &varid));
        }
    }
    CHECK(ncmpi_close(ncid));
}

/* what: 0 open, 1 one object, 2 every object. Returns this rank's seconds. */
static double measure(const char *path, int what, const char *one_name, long long *checksum)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    int ncid, nvars = 0;
    CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    CHECK(ncmpi_inq_nvars(ncid, &nvars));
    long long sum = nvars;
    char name[EXA_MAX_PATH + NC_MAX_NAME + 2];
    if (what == 1) {
        int v, nd, dims[8];
        nc_type type;
        CHECK(ncmpi_inq_varid(ncid, one_name, &v));
        CHECK(ncmpi_inq_var(ncid, v, name, &type, &nd, dims, NULL));
        sum += nd + type;
    } else if (what == 2) {
        for (int v = 0; v < nvars; v++) {
            int nd, dims[8];
            nc_type type;
            CHECK(ncmpi_inq_var(ncid, v, name, &type, &nd, dims, NULL));
            for (int d = 0; d < nd; d++) {
                MPI_Offset len;
                CHECK(ncmpi_inq_dim(ncid, dims[d], name, &len));
                sum += len;
            }
        }
    }
    double mine = MPI_Wtime() - t;
    CHECK(ncmpi_close(ncid));
    *checksum = sum;
    return mine;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *spec = "98M", *format = "partitioned", *out = "open_bench.nc";
    int keep = 0, json = 0, reps = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dataset") && i + 1 < argc) spec = argv[++i];
        else if (!strcmp(argv[i], "--format") && i + 1 < argc) format = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--keep")) keep = 1;
        else if (!strcmp(argv[i], "--json")) json = 1;
        else {
            if (rank == 0) fprintf(stderr, "usage: open_bench --dataset N|98M|1G --format cdf5|partitioned "
                                           "[--out PATH] [--reps K] [--keep] [--json]\n");
            MPI_Finalize();
            return 2;
        }
    }
    exatrkx_dataset ds;
    if (exatrkx_dataset_init(&ds, spec, EXATRKX_DEFAULT_SEED) != 0 || reps < 1) {
        if (rank == 0) fprintf(stderr, "open_bench: bad arguments\n");
        MPI_Finalize();
        return 2;
    }
    const int partitioned = !strcmp(format, "partitioned");
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    create(&ds, out, partitioned);
    double t_create = max_over_ranks(MPI_Wtime() - t);
    long rss_create = peak_rss_kib();

    exatrkx_sample last;
    exatrkx_sample_get(&ds, ds.nsamples - 1, &last);
    char one[2 * EXATRKX_NAME_MAX];
    if (partitioned)
        block_name(last.arrays[1].name, last.name, one, sizeof one);
    else
        snprintf(one, sizeof one, "%s", last.arrays[1].name);
    double best[3] = {1e30, 1e30, 1e30};
    long rss[3];
    long long objects = 0;
    for (int what = 0; what < 3; what++) {
        /* a partitioned open takes well under a millisecond: more repetitions */
        const int n = partitioned && what < 2 && reps < 20 ? 20 : reps;
        for (int r = 0; r < n; r++) {
            double s = max_over_ranks(measure(out, what, one, &objects));
            if (s < best[what]) best[what] = s;
        }
        rss[what] = peak_rss_kib();
    }
    int nvars = 0, ncid;
    MPI_Offset nblocks = 0;
    CHECK(ncmpi_open(MPI_COMM_WORLD, out, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    CHECK(ncmpi_inq_nvars(ncid, &nvars));
    int ndims = 0;
    CHECK(ncmpi_inq_ndims(ncid, &ndims));
    if (partitioned) CHECK(exa_inq_blocks(ncid, &nblocks));
    CHECK(ncmpi_close(ncid));
    long mine[4] = {rss_create, rss[0], rss[1], rss[2]}, most[4];
    MPI_Reduce(mine, most, 4, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (json)
            printf("{\"bench\":\"exatrkx_open\",\"format\":\"%s\",\"dataset\":\"%s\",\"samples\":%lld,"
                   "\"ranks\":%d,\"objects\":%d,\"variables\":%d,\"dimensions\":%d,\"blocks\":%lld,"
                   "\"t_create\":%.6f,\"t_open\":%.6f,\"t_open_one\":%.6f,\"t_open_all\":%.6f,"
                   "\"peak_rss_kib\":[%ld,%ld,%ld,%ld]}\n",
                   format, ds.label, (long long)ds.nsamples, nranks, nvars + ndims, nvars, ndims,
                   (long long)nblocks, t_create, best[0], best[1], best[2], most[0], most[1], most[2],
                   most[3]);
        else
            printf("%s %s, %d ranks: %d objects (%lld blocks); create %.3f s; open %.4f s, one object "
                   "%.4f s, every object %.4f s; peak RSS %.0f MiB\n",
                   format, ds.label, nranks, nvars + ndims, (long long)nblocks, t_create, best[0],
                   best[1], best[2], most[3] / 1024.0);
        if (!keep) unlink(out);
    }
    MPI_Finalize();
    return 0;
}
