/*
 * workload.c -- deterministic Exa.TrkX / NuGraph sample descriptions (workload.h).
 *
 * Array lengths come from a counter-based generator keyed on (seed, base sample
 * index), so any sample can be produced in O(1) without the ones before it.
 *
 * Size model: a sample's data size T is a shifted log-normal, MIN + exp(mu +
 * sigma Z), redrawn when above MAX (skewed: median ~ 35 KiB, mean ~ 51.5 KiB,
 * long tail to 630 KiB); two seed-chosen samples are pinned to exactly MIN and
 * MAX so the range is the paper's. T is split over the three planes (collection
 * plane weights drawn per sample), hits N_p = w_p T / cost with N_p >= 20, edges
 * E_p ~ 2.2-2.9 N_p (Delaunay-like 2-D graphs) and E3_p ~ 0.3-1.2 N_p, and the
 * last edge array absorbs the remainder so the sample is within 16 bytes of T.
 */
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shifted log-normal parameters of the sample size; mu tuned so the mean over
 * dataset_98M is ~51.5 KiB (52,736 bytes) for the default seed. */
#define SIZE_MU 10.254
#define SIZE_SIGMA 1.0

static const char *const plane_name = "uvy";

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t mix64(uint64_t x)
{
    uint64_t s = x;
    return splitmix64(&s);
}

/* Uniform in (0, 1). */
static double uniform01(uint64_t *state)
{
    return ((double)(splitmix64(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double normal01(uint64_t *state)
{
    double u1 = uniform01(state), u2 = uniform01(state);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int exatrkx_dataset_init(exatrkx_dataset *ds, const char *spec, uint64_t seed)
{
    memset(ds, 0, sizeof *ds);
    ds->seed = seed;
    if (!strcmp(spec, "98M") || !strcmp(spec, "dataset_98M")) {
        ds->nsamples = EXATRKX_BASE_SAMPLES;
        ds->renamed = 0;
        snprintf(ds->label, sizeof ds->label, "dataset_98M");
    } else if (!strcmp(spec, "1G") || !strcmp(spec, "dataset_1G")) {
        ds->nsamples = (int64_t)EXATRKX_BASE_SAMPLES * EXATRKX_1G_COPIES;
        ds->renamed = 1;
        snprintf(ds->label, sizeof ds->label, "dataset_1G");
    } else {
        char *end = NULL;
        long long n = strtoll(spec, &end, 10);
        if (!end || *end != '\0' || n <= 0)
            return -1;
        ds->nsamples = n;
        ds->renamed = n > EXATRKX_BASE_SAMPLES;
        snprintf(ds->label, sizeof ds->label, "custom_%lld", n);
    }

    /* Seed-chosen special samples: distinct base indices. */
    uint64_t st = mix64(seed ^ 0x5A17E5EEDull);
    int64_t picked[EXATRKX_ZERO_AXES + 2];
    int npicked = 0;
    while (npicked < EXATRKX_ZERO_AXES + 2) {
        int64_t cand = (int64_t)(splitmix64(&st) % EXATRKX_BASE_SAMPLES);
        int dup = 0;
        for (int i = 0; i < npicked; i++)
            dup |= picked[i] == cand;
        if (!dup)
            picked[npicked++] = cand;
    }
    ds->min_sample = picked[0];
    ds->max_sample = picked[1];
    for (int i = 0; i < EXATRKX_ZERO_AXES; i++) {
        ds->zero_sample[i] = picked[2 + i];
        ds->zero_plane[i] = (int)(splitmix64(&st) % 3);
    }
    /* Sort the zero-axis samples (insertion sort of 5). */
    for (int i = 1; i < EXATRKX_ZERO_AXES; i++)
        for (int j = i; j > 0 && ds->zero_sample[j - 1] > ds->zero_sample[j]; j--) {
            int64_t t = ds->zero_sample[j];
            ds->zero_sample[j] = ds->zero_sample[j - 1];
            ds->zero_sample[j - 1] = t;
            int p = ds->zero_plane[j];
            ds->zero_plane[j] = ds->zero_plane[j - 1];
            ds->zero_plane[j - 1] = p;
        }
    return 0;
}

/* Plane whose edge_index_3d axis is empty in base sample b, or -1. */
static int zero_plane_of(const exatrkx_dataset *ds, int64_t b)
{
    for (int i = 0; i < EXATRKX_ZERO_AXES; i++)
        if (ds->zero_sample[i] == b)
            return ds->zero_plane[i];
    return -1;
}

static int64_t sample_bytes(const int64_t *n, const int64_t *e, const int64_t *e3)
{
    int64_t t = 8;
    for (int p = 0; p < 3; p++)
        t += 52 * n[p] + 16 * e[p] + 16 * e3[p];
    return t;
}

/* Array lengths of base sample b (identical in every copy). */
static void sample_shape(const exatrkx_dataset *ds, int64_t b, int64_t *n, int64_t *e, int64_t *e3)
{
    uint64_t st = mix64(ds->seed * 0x9E3779B97F4A7C15ull ^ mix64((uint64_t)b + 1));
    double target;
    if (b == ds->min_sample) {
        target = EXATRKX_MIN_SAMPLE_BYTES;
    } else if (b == ds->max_sample) {
        target = EXATRKX_MAX_SAMPLE_BYTES;
    } else {
        int tries = 0;
        do {
            target = EXATRKX_MIN_SAMPLE_BYTES + exp(SIZE_MU + SIZE_SIGMA * normal01(&st));
        } while (target > EXATRKX_MAX_SAMPLE_BYTES && ++tries < 64);
        if (target > EXATRKX_MAX_SAMPLE_BYTES)
            target = EXATRKX_MAX_SAMPLE_BYTES;
    }
    double w[3], a[3], c[3], wsum = 0, cost = 0;
    for (int p = 0; p < 3; p++) {
        w[p] = 0.75 + 0.5 * uniform01(&st);
        a[p] = 2.2 + 0.7 * uniform01(&st);
        c[p] = 0.3 + 0.9 * uniform01(&st);
        wsum += w[p];
    }
    for (int p = 0; p < 3; p++) {
        w[p] /= wsum;
        cost += w[p] * (52.0 + 16.0 * a[p] + 16.0 * c[p]);
    }
    int zp = zero_plane_of(ds, b);
    double ntot = (target - 8.0) / cost;
    for (int p = 0; p < 3; p++) {
        n[p] = llround(w[p] * ntot);
        if (n[p] < EXATRKX_MIN_HITS_PER_PLANE)
            n[p] = EXATRKX_MIN_HITS_PER_PLANE;
        e[p] = llround(a[p] * (double)n[p]);
        e3[p] = p == zp ? 0 : llround(c[p] * (double)n[p]);
        if (p != zp && e3[p] < 1)
            e3[p] = 1;
    }
    /* The remainder goes into the 3-D edges of the last plane that has any
     * (then the 2-D edges) so the size lands in (target - 16, target]. */
    int64_t diff = (int64_t)floor(target) - sample_bytes(n, e, e3);
    int64_t k = diff >= 0 ? diff / 16 : -((-diff + 15) / 16);
    int ap = zp == 2 ? 1 : 2;
    e3[ap] += k;
    if (e3[ap] < 1) {
        e[ap] += e3[ap] - 1;
        e3[ap] = 1;
        if (e[ap] < 1)
            e[ap] = 1;
    }
}

static size_t put_str(char *dst, size_t at, const char *src)
{
    size_t len = strlen(src);
    memcpy(dst + at, src, len + 1);
    return at + len;
}

static void set_array(exatrkx_array *arr, const char *prefix, size_t plen, const char *key, int type,
                      int rank, const int64_t *lens)
{
    size_t at = put_str(arr->name, 0, prefix);
    (void)plen;
    at = put_str(arr->name, at, key);
    arr->type = type;
    arr->ndims = 0;
    arr->nelems = 1;
    for (int i = 0; i < rank; i++) {
        arr->nelems *= lens[i];
        if (lens[i] == 0)
            continue; /* zero-length axis: dropped, no dimension */
        int d = arr->ndims++;
        arr->axis[d] = i;
        arr->dimlen[d] = lens[i];
        memcpy(arr->dimname[d], arr->name, at);
        snprintf(arr->dimname[d] + at, EXATRKX_NAME_MAX - at, "_dim_%d", i);
    }
    arr->nbytes = arr->nelems * (type == EXATRKX_FLOAT ? 4 : 8);
}

void exatrkx_sample_get(const exatrkx_dataset *ds, int64_t s, exatrkx_sample *out)
{
    int64_t b = s % EXATRKX_BASE_SAMPLES;
    out->index = s;
    out->base = b;
    out->copy = s / EXATRKX_BASE_SAMPLES;

    /* r{run}_sr{subrun}_evt{event}: 8 events per subrun, 100 subruns per run. */
    int64_t q = b / 8;
    long run = 5000 + (long)(q / 100), sub = 1 + (long)(q % 100);
    long evt = (sub - 1) * 40 + 1 + (long)(b % 8) * 5 + (long)(mix64((uint64_t)b ^ 0xE7E7ull) % 5);
    snprintf(out->name, sizeof out->name, "r%ld_sr%ld_evt%ld", run, sub, evt);

    char prefix[EXATRKX_NAME_MAX];
    int plen;
    if (ds->renamed)
        plen = snprintf(prefix, sizeof prefix, "nu_copy%lld_grp_%s_", (long long)out->copy, out->name);
    else
        plen = snprintf(prefix, sizeof prefix, "nu_grp_%s_", out->name);

    sample_shape(ds, b, out->hits, out->edges, out->edges3d);

    exatrkx_array *arr = out->arrays;
    set_array(arr++, prefix, (size_t)plen, "n_sp", EXATRKX_INT64, 0, NULL);
    for (int p = 0; p < 3; p++) {
        char key[24];
        int64_t lens[2];
        lens[0] = out->hits[p];
        lens[1] = 9;
        snprintf(key, sizeof key, "x_%c", plane_name[p]);
        set_array(arr++, prefix, (size_t)plen, key, EXATRKX_FLOAT, 2, lens);
        snprintf(key, sizeof key, "y_s_%c", plane_name[p]);
        set_array(arr++, prefix, (size_t)plen, key, EXATRKX_INT64, 1, lens);
        snprintf(key, sizeof key, "y_i_%c", plane_name[p]);
        set_array(arr++, prefix, (size_t)plen, key, EXATRKX_INT64, 1, lens);
        lens[0] = 2;
        lens[1] = out->edges[p];
        snprintf(key, sizeof key, "edge_index_%c", plane_name[p]);
        set_array(arr++, prefix, (size_t)plen, key, EXATRKX_INT64, 2, lens);
        lens[1] = out->edges3d[p];
        snprintf(key, sizeof key, "edge_index_3d_%c", plane_name[p]);
        set_array(arr++, prefix, (size_t)plen, key, EXATRKX_INT64, 2, lens);
    }
    out->ndims = 0;
    out->nbytes = 0;
    for (int i = 0; i < EXATRKX_ARRAYS_PER_SAMPLE; i++) {
        out->ndims += out->arrays[i].ndims;
        out->nbytes += out->arrays[i].nbytes;
    }
}

void exatrkx_partition(int64_t nsamples, int nranks, int rank, int64_t *first, int64_t *count)
{
    int64_t q = nsamples / nranks, rem = nsamples % nranks;
    *first = (int64_t)rank * q + (rank < rem ? rank : rem);
    *count = q + (rank < rem ? 1 : 0);
}

int exatrkx_owner(int64_t nsamples, int nranks, int64_t s)
{
    int64_t q = nsamples / nranks, rem = nsamples % nranks;
    if (s < rem * (q + 1))
        return (int)(s / (q + 1));
    return (int)(rem + (s - rem * (q + 1)) / q);
}

/* Global indices c * 35530 + z below x, over all copies c. */
static int64_t zeros_below(int64_t z, int64_t x)
{
    return x > z ? (x - z + EXATRKX_BASE_SAMPLES - 1) / EXATRKX_BASE_SAMPLES : 0;
}

void exatrkx_range_counts(const exatrkx_dataset *ds, int64_t first, int64_t count, int64_t *nvars,
                          int64_t *ndims)
{
    int64_t zeros = 0;
    for (int i = 0; i < EXATRKX_ZERO_AXES; i++)
        zeros += zeros_below(ds->zero_sample[i], first + count) - zeros_below(ds->zero_sample[i], first);
    *nvars = count * EXATRKX_ARRAYS_PER_SAMPLE;
    *ndims = count * EXATRKX_AXES_PER_SAMPLE - zeros;
}

static int64_t pad4(int64_t n)
{
    return (n + 3) & ~(int64_t)3;
}

int64_t exatrkx_sample_cdf5_bytes(const exatrkx_sample *smp)
{
    int64_t t = 0;
    for (int i = 0; i < EXATRKX_ARRAYS_PER_SAMPLE; i++) {
        const exatrkx_array *a = &smp->arrays[i];
        /* var: name (8 + padded), ndims 8, dimids 8 each, vatt ABSENT 12,
         * nc_type 4, vsize 8, begin 8 */
        t += 8 + pad4((int64_t)strlen(a->name)) + 8 + 8 * a->ndims + 12 + 4 + 8 + 8;
        /* dim: name (8 + padded), length 8 */
        for (int d = 0; d < a->ndims; d++)
            t += 8 + pad4((int64_t)strlen(a->dimname[d])) + 8;
    }
    return t;
}

int64_t exatrkx_cdf5_header_fixed(void)
{
    /* magic 4, numrecs 8, dim list tag+count 12, gatt ABSENT 12, var list tag+count 12 */
    return 4 + 8 + 12 + 12 + 12;
}
