/*
 * exatrkx_gen -- describe the Exa.TrkX / NuGraph data sets of seed paper 000.
 *
 *   exatrkx_gen --dataset 98M|1G|N [--seed S] [--stats] [--table] [--list K] [--json]
 *
 * --stats  (default) counts, name bytes, exact CDF-5 header size, data sizes,
 *          checked against the paper's numbers for the two named sets
 * --table  per-process counts for 4..4096 processes vs the seed's Table 1
 * --list K print the first K samples (arrays, types, dimension names and lengths)
 * --json   one JSON object with the statistics instead of text
 * Exit status 1 if a named set's counts differ from the paper's.
 */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct stats {
    int64_t samples, vars, dims, zero_axes;
    int64_t var_name_bytes, dim_name_bytes;
    int var_name_min, var_name_max, dim_name_min, dim_name_max;
    int64_t header_bytes;
    int64_t payload_bytes, file_data_bytes;
    int64_t size_min, size_max;
    int64_t hits_min;
    int64_t size_hist[8]; /* < 16, 32, 64, 128, 256, 512, 640 KiB, above */
} stats;

static int64_t pad4(int64_t n)
{
    return (n + 3) & ~(int64_t)3;
}

static void collect(const exatrkx_dataset *ds, stats *st)
{
    memset(st, 0, sizeof *st);
    st->var_name_min = st->dim_name_min = 1 << 30;
    st->size_min = INT64_MAX;
    st->hits_min = INT64_MAX;
    st->header_bytes = exatrkx_cdf5_header_fixed();
    static const int64_t edges_kib[7] = {16, 32, 64, 128, 256, 512, 640};
    exatrkx_sample smp;
    for (int64_t s = 0; s < ds->nsamples; s++) {
        exatrkx_sample_get(ds, s, &smp);
        st->samples++;
        st->header_bytes += exatrkx_sample_cdf5_bytes(&smp);
        st->payload_bytes += smp.nbytes;
        if (smp.nbytes < st->size_min)
            st->size_min = smp.nbytes;
        if (smp.nbytes > st->size_max)
            st->size_max = smp.nbytes;
        int h = 0;
        while (h < 7 && smp.nbytes >= edges_kib[h] * 1024)
            h++;
        st->size_hist[h]++;
        for (int p = 0; p < 3; p++)
            if (smp.hits[p] < st->hits_min)
                st->hits_min = smp.hits[p];
        st->zero_axes += EXATRKX_AXES_PER_SAMPLE - smp.ndims;
        for (int i = 0; i < EXATRKX_ARRAYS_PER_SAMPLE; i++) {
            const exatrkx_array *a = &smp.arrays[i];
            int len = (int)strlen(a->name);
            st->vars++;
            st->var_name_bytes += len;
            if (len < st->var_name_min)
                st->var_name_min = len;
            if (len > st->var_name_max)
                st->var_name_max = len;
            /* CDF-5 vsize: product of the defined dims x element size, padded to 4 */
            int64_t n = 1;
            for (int d = 0; d < a->ndims; d++) {
                int dl = (int)strlen(a->dimname[d]);
                st->dims++;
                st->dim_name_bytes += dl;
                if (dl < st->dim_name_min)
                    st->dim_name_min = dl;
                if (dl > st->dim_name_max)
                    st->dim_name_max = dl;
                n *= a->dimlen[d];
            }
            st->file_data_bytes += pad4(n * (a->type == EXATRKX_FLOAT ? 4 : 8));
        }
    }
}

static int check(const char *what, int64_t got, int64_t want)
{
    printf("  check %-28s %12lld  paper %12lld  %s\n", what, (long long)got, (long long)want,
           got == want ? "OK" : "MISMATCH");
    return got == want ? 0 : 1;
}

static void print_stats(const exatrkx_dataset *ds, const stats *st)
{
    const double MB = 1e6, MiB = 1048576.0, KiB = 1024.0;
    printf("%s  seed %llu\n", ds->label, (unsigned long long)ds->seed);
    printf("  samples                 %lld\n", (long long)st->samples);
    printf("  variables               %lld\n", (long long)st->vars);
    printf("  dimensions              %lld  (%lld zero-length axes dropped)\n", (long long)st->dims,
           (long long)st->zero_axes);
    printf("  zero-length axes at     base samples");
    for (int i = 0; i < EXATRKX_ZERO_AXES; i++)
        printf(" %lld(edge_index_3d_%c)", (long long)ds->zero_sample[i], "uvy"[ds->zero_plane[i]]);
    printf("; min-size sample %lld, max-size sample %lld\n", (long long)ds->min_sample,
           (long long)ds->max_sample);
    printf("  variable names          %lld bytes, length %d..%d, mean %.2f\n",
           (long long)st->var_name_bytes, st->var_name_min, st->var_name_max,
           (double)st->var_name_bytes / (double)st->vars);
    printf("  dimension names         %lld bytes, length %d..%d, mean %.2f\n",
           (long long)st->dim_name_bytes, st->dim_name_min, st->dim_name_max,
           (double)st->dim_name_bytes / (double)st->dims);
    printf("  all names               %lld bytes, mean %.2f\n",
           (long long)(st->var_name_bytes + st->dim_name_bytes),
           (double)(st->var_name_bytes + st->dim_name_bytes) / (double)(st->vars + st->dims));
    printf("  CDF-5 header            %lld bytes = %.2f MB = %.2f MiB\n", (long long)st->header_bytes,
           st->header_bytes / MB, st->header_bytes / MiB);
    printf("  sample data             %lld bytes = %.2f MiB; per sample min %.2f KiB, max %.2f KiB, "
           "mean %.2f KiB\n",
           (long long)st->payload_bytes, st->payload_bytes / MiB, st->size_min / KiB, st->size_max / KiB,
           (double)st->payload_bytes / (double)st->samples / KiB);
    printf("  variable data (vsize)   %lld bytes = %.2f MiB (a dropped axis leaves its other axes)\n",
           (long long)st->file_data_bytes, st->file_data_bytes / MiB);
    printf("  min hits per plane      %lld\n", (long long)st->hits_min);
    printf("  sample size histogram   <16K %lld | <32K %lld | <64K %lld | <128K %lld | <256K %lld | "
           "<512K %lld | <=630K %lld\n",
           (long long)st->size_hist[0], (long long)st->size_hist[1], (long long)st->size_hist[2],
           (long long)st->size_hist[3], (long long)st->size_hist[4], (long long)st->size_hist[5],
           (long long)(st->size_hist[6] + st->size_hist[7]));
}

static void print_json(const exatrkx_dataset *ds, const stats *st)
{
    printf("{\"dataset\":\"%s\",\"seed\":%llu,\"samples\":%lld,\"variables\":%lld,\"dimensions\":%lld,"
           "\"zero_axes\":%lld,\"var_name_bytes\":%lld,\"dim_name_bytes\":%lld,"
           "\"var_name_len\":[%d,%d],\"dim_name_len\":[%d,%d],\"cdf5_header_bytes\":%lld,"
           "\"sample_data_bytes\":%lld,\"vsize_bytes\":%lld,\"sample_bytes_min\":%lld,"
           "\"sample_bytes_max\":%lld,\"min_hits_per_plane\":%lld}\n",
           ds->label, (unsigned long long)ds->seed, (long long)st->samples, (long long)st->vars,
           (long long)st->dims, (long long)st->zero_axes, (long long)st->var_name_bytes,
           (long long)st->dim_name_bytes, st->var_name_min, st->var_name_max, st->dim_name_min,
           st->dim_name_max, (long long)st->header_bytes, (long long)st->payload_bytes,
           (long long)st->file_data_bytes, (long long)st->size_min, (long long)st->size_max,
           (long long)st->hits_min);
}

/* The seed's Table 1: per-process variables and dimensions (max over ranks). */
static const int table_procs[6] = {4, 16, 64, 256, 1024, 4096};
static const int64_t paper_vars_98M[6] = {142120, 35530, 8883, 2221, 555, 139};
static const int64_t paper_dims_98M[6] = {213179, 53295, 13324, 3331, 833, 208};
static const int64_t paper_vars_1G[6] = {1421200, 355300, 88825, 22206, 5552, 1388};
static const int64_t paper_dims_1G[6] = {2131788, 532947, 133237, 33309, 8327, 2082};

static void print_table(const exatrkx_dataset *ds)
{
    int named98 = !strcmp(ds->label, "dataset_98M"), named1G = !strcmp(ds->label, "dataset_1G");
    /* CDF-5 header bytes per rank: one pass, each sample charged to its owner at every P. */
    int64_t *share[6];
    for (int k = 0; k < 6; k++)
        share[k] = calloc((size_t)table_procs[k], sizeof(int64_t));
    exatrkx_sample smp;
    for (int64_t s = 0; s < ds->nsamples; s++) {
        exatrkx_sample_get(ds, s, &smp);
        int64_t b = exatrkx_sample_cdf5_bytes(&smp);
        for (int k = 0; k < 6; k++)
            if (table_procs[k] <= ds->nsamples)
                share[k][exatrkx_owner(ds->nsamples, table_procs[k], s)] += b;
    }
    printf("%s: samples split contiguously and evenly over P processes (max over ranks)\n", ds->label);
    printf("  %6s %8s %8s %8s %8s %8s %8s %8s %6s %7s\n", "P", "samples", "max V", "max D", "mean V",
           "mean D", "paper V", "paper D", "match", "hdr MB");
    int64_t tv, td;
    exatrkx_range_counts(ds, 0, ds->nsamples, &tv, &td);
    for (int k = 0; k < 6; k++) {
        int P = table_procs[k];
        if (P > ds->nsamples)
            break;
        int64_t maxv = 0, maxd = 0, maxs = 0, maxh = 0;
        for (int r = 0; r < P; r++) {
            int64_t first, count, v, d;
            exatrkx_partition(ds->nsamples, P, r, &first, &count);
            exatrkx_range_counts(ds, first, count, &v, &d);
            if (count > maxs)
                maxs = count;
            if (v > maxv)
                maxv = v;
            if (d > maxd)
                maxd = d;
            if (share[k][r] > maxh)
                maxh = share[k][r];
        }
        long long pv = named98 ? paper_vars_98M[k] : named1G ? paper_vars_1G[k] : -1;
        long long pd = named98 ? paper_dims_98M[k] : named1G ? paper_dims_1G[k] : -1;
        long long mv = (long long)((2 * tv + P) / (2 * P)), md = (long long)((2 * td + P) / (2 * P));
        const char *match = pv < 0 ? "-" : (mv == pv && md == pd) ? "OK" : "DIFF";
        printf("  %6d %8lld %8lld %8lld %8lld %8lld %8lld %8lld %6s %7.2f\n", P, (long long)maxs,
               (long long)maxv, (long long)maxd, mv, md, pv, pd, match, maxh / 1e6);
    }
    printf("  (the paper's per-process counts are the mean, total/P rounded to nearest; with whole\n"
           "   samples per rank the largest rank holds up to 16 vars / 24 dims more than the mean;\n"
           "   hdr MB = that rank's share of the CDF-5 header, 1e6 bytes)\n");
    for (int k = 0; k < 6; k++)
        free(share[k]);
}

static const char *type_name(int t)
{
    return t == EXATRKX_FLOAT ? "float" : "int64";
}

static void print_list(const exatrkx_dataset *ds, int64_t k)
{
    exatrkx_sample smp;
    for (int64_t s = 0; s < k && s < ds->nsamples; s++) {
        exatrkx_sample_get(ds, s, &smp);
        printf("sample %lld %s  bytes %lld  dims %d  N=(%lld,%lld,%lld) E=(%lld,%lld,%lld) "
               "E3=(%lld,%lld,%lld)\n",
               (long long)s, smp.name, (long long)smp.nbytes, smp.ndims, (long long)smp.hits[0],
               (long long)smp.hits[1], (long long)smp.hits[2], (long long)smp.edges[0],
               (long long)smp.edges[1], (long long)smp.edges[2], (long long)smp.edges3d[0],
               (long long)smp.edges3d[1], (long long)smp.edges3d[2]);
        for (int i = 0; i < EXATRKX_ARRAYS_PER_SAMPLE; i++) {
            const exatrkx_array *a = &smp.arrays[i];
            printf("  %s %s(", type_name(a->type), a->name);
            for (int d = 0; d < a->ndims; d++)
                printf("%s%s=%lld", d ? ", " : "", a->dimname[d], (long long)a->dimlen[d]);
            printf(")\n");
        }
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: exatrkx_gen --dataset 98M|1G|N [--seed S] [--stats] [--table] [--list K] "
                    "[--json]\n");
}

int main(int argc, char **argv)
{
    const char *spec = "98M";
    uint64_t seed = EXATRKX_DEFAULT_SEED;
    int do_stats = 0, do_table = 0, do_json = 0;
    long long list = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dataset") && i + 1 < argc)
            spec = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--stats"))
            do_stats = 1;
        else if (!strcmp(argv[i], "--table"))
            do_table = 1;
        else if (!strcmp(argv[i], "--json"))
            do_json = 1;
        else if (!strcmp(argv[i], "--list") && i + 1 < argc)
            list = atoll(argv[++i]);
        else {
            usage();
            return 2;
        }
    }
    exatrkx_dataset ds;
    if (exatrkx_dataset_init(&ds, spec, seed) != 0) {
        usage();
        return 2;
    }
    if (!do_table && !list && !do_json)
        do_stats = 1;
    int bad = 0;
    if (do_stats || do_json) {
        stats st;
        collect(&ds, &st);
        if (do_json)
            print_json(&ds, &st);
        if (do_stats) {
            print_stats(&ds, &st);
            if (!strcmp(ds.label, "dataset_98M")) {
                bad |= check("samples", st.samples, 35530);
                bad |= check("variables", st.vars, 568480);
                bad |= check("dimensions", st.dims, 852715);
                printf("  paper: metadata \"98 MB\"; CDF-5 header here %.2f MiB\n",
                       st.header_bytes / 1048576.0);
            } else if (!strcmp(ds.label, "dataset_1G")) {
                bad |= check("samples", st.samples, 355300);
                bad |= check("variables", st.vars, 5684800);
                bad |= check("dimensions", st.dims, 8527150);
                printf("  paper: metadata \"1071 MB\"; CDF-5 header here %.2f MiB\n",
                       st.header_bytes / 1048576.0);
            }
        }
    }
    if (do_table)
        print_table(&ds);
    if (list)
        print_list(&ds, list);
    return bad;
}
