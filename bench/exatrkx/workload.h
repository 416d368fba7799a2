/*
 * workload.h -- the Exa.TrkX / NuGraph graph-sample data sets of seed paper 000
 * (dataset_98M, dataset_1G), described deterministically from (dataset, seed).
 *
 * Plain C99, no MPI, no netCDF: the description is generated on the fly, one
 * sample at a time, so a description of 5.7 million variables costs no memory.
 *
 * Shape (../../../shared/workloads.md):
 *   one graph sample per detector event, sample name r{run}_sr{subrun}_evt{event};
 *   16 arrays per sample over the wire planes p in {u, v, y}:
 *     n_sp               scalar     int64
 *     x_p                (N_p, 9)   float32
 *     y_s_p, y_i_p       (N_p)      int64
 *     edge_index_p       (2, E_p)   int64
 *     edge_index_3d_p    (2, E3_p)  int64
 *   24 axes per sample, each axis its own dimension (never shared); an axis of
 *   length 0 is dropped from the variable's shape and gets no dimension.
 *   Variable name:  <parent>_grp_<samplename>_<key>
 *   Dimension name: <varname>_dim_<i>   (i = the axis index in the full shape)
 *
 * dataset_98M: 35,530 samples, 568,480 variables, 852,715 dimensions (exactly 5
 *   zero-length axes over the set, at samples chosen by the seed), parent "nu".
 * dataset_1G:  ten renamed copies of dataset_98M (copy c has parent "nu_copy<c>",
 *   same array lengths): 355,300 samples, 5,684,800 variables, 8,527,150 dims.
 * custom N:    the first N samples of dataset_98M (N <= 35,530), or of the
 *   copy sequence of dataset_1G (N > 35,530; copies beyond 9 keep counting).
 *
 * Names depend only on the sample index; the seed sets the array lengths and
 * which samples carry the 5 zero-length axes.
 */
#ifndef EXATRKX_WORKLOAD_H
#define EXATRKX_WORKLOAD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Samples in dataset_98M, and the copies in dataset_1G. */
#define EXATRKX_BASE_SAMPLES 35530
#define EXATRKX_1G_COPIES 10
/* Zero-length axes in one copy of the base set: 35,530 x 24 - 852,715. */
#define EXATRKX_ZERO_AXES 5
#define EXATRKX_ARRAYS_PER_SAMPLE 16
#define EXATRKX_AXES_PER_SAMPLE 24
/* Longest variable or dimension name the generator makes, plus the NUL. */
#define EXATRKX_NAME_MAX 96
#define EXATRKX_DEFAULT_SEED 20250101u

/* Element types, with the nc_type values of netcdf.h / pnetcdf.h. */
#define EXATRKX_FLOAT 5  /* NC_FLOAT */
#define EXATRKX_INT64 10 /* NC_INT64 */

/* Sample sizes (bytes of array data), per workloads.md. */
#define EXATRKX_MIN_SAMPLE_BYTES 6451   /* 6.3 KiB */
#define EXATRKX_MAX_SAMPLE_BYTES 645120 /* 630 KiB */
#define EXATRKX_MIN_HITS_PER_PLANE 20

typedef struct exatrkx_dataset {
    char label[32];   /* "dataset_98M", "dataset_1G", "custom_<N>" */
    int64_t nsamples; /* samples in the set */
    int renamed;      /* 1: every copy has parent "nu_copy<c>"; 0: parent "nu" */
    uint64_t seed;
    /* Base-sample indices (in [0, 35530)) carrying a zero-length axis, and the
     * plane (0..2) whose edge_index_3d axis is empty there. Sorted by sample. */
    int64_t zero_sample[EXATRKX_ZERO_AXES];
    int zero_plane[EXATRKX_ZERO_AXES];
    /* Base-sample indices forced to exactly the minimum and maximum size. */
    int64_t min_sample, max_sample;
} exatrkx_dataset;

typedef struct exatrkx_array {
    char name[EXATRKX_NAME_MAX];
    int type;  /* EXATRKX_FLOAT or EXATRKX_INT64 */
    int ndims; /* 0..2, after dropping zero-length axes */
    int axis[2];                           /* original axis index of each dim */
    char dimname[2][EXATRKX_NAME_MAX];     /* <name>_dim_<axis> */
    int64_t dimlen[2];
    int64_t nelems; /* elements of data (0 if an axis was zero-length) */
    int64_t nbytes; /* nelems x element size */
} exatrkx_array;

typedef struct exatrkx_sample {
    int64_t index; /* global sample index in the set */
    int64_t base;  /* index in the base set (index mod 35530) */
    int64_t copy;  /* index / 35530 */
    char name[48]; /* r{run}_sr{subrun}_evt{event} */
    int64_t hits[3], edges[3], edges3d[3]; /* N_p, E_p, E3_p for u, v, y */
    int ndims;      /* dimensions this sample defines (24 minus zero axes) */
    int64_t nbytes; /* data bytes of the sample */
    exatrkx_array arrays[EXATRKX_ARRAYS_PER_SAMPLE];
} exatrkx_sample;

/* Sets up a data set from a spec: "98M", "1G" (also "dataset_98M",
 * "dataset_1G") or a positive sample count. Returns 0, or -1 on a bad spec. */
int exatrkx_dataset_init(exatrkx_dataset *ds, const char *spec, uint64_t seed);

/* Fills *out with sample s (0 <= s < ds->nsamples): names, types, shapes. */
void exatrkx_sample_get(const exatrkx_dataset *ds, int64_t s, exatrkx_sample *out);

/* Contiguous even split of nsamples over nranks, as the seed's Table 1:
 * rank r gets [*first, *first + *count); the first nsamples % nranks ranks get
 * one sample more. */
void exatrkx_partition(int64_t nsamples, int nranks, int rank, int64_t *first, int64_t *count);

/* Rank owning sample s under exatrkx_partition. */
int exatrkx_owner(int64_t nsamples, int nranks, int64_t s);

/* Variables and dimensions in samples [first, first + count), without
 * generating them (O(zero axes)). */
void exatrkx_range_counts(const exatrkx_dataset *ds, int64_t first, int64_t count,
                          int64_t *nvars, int64_t *ndims);

/* Bytes that sample s's variables and dimensions add to a CDF-5 header
 * (dimension list entries + variable list entries, names padded to 4). */
int64_t exatrkx_sample_cdf5_bytes(const exatrkx_sample *smp);

/* CDF-5 header size of a file holding exactly these objects and no attributes:
 * magic 4 + numrecs 8 + dim list 12 + gatt ABSENT 12 + var list 12, plus the
 * per-object bytes (sum of exatrkx_sample_cdf5_bytes). */
int64_t exatrkx_cdf5_header_fixed(void);

#ifdef __cplusplus
}
#endif

#endif /* EXATRKX_WORKLOAD_H */
