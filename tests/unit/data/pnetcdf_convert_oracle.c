/*
 * pnetcdf_convert_oracle.c -- records how the real PnetCDF converts values
 * between memory types and external types, so exacdf's convert layer can be
 * checked against it (tests/unit/test_convert_oracle.cpp reads the table).
 *
 * Built against the SYSTEM PnetCDF, not exacdf:
 *   mpicc -O1 -o oracle pnetcdf_convert_oracle.c -I/usr/include -lpnetcdf
 *   mpiexec -n 1 ./oracle /tmp/oracle > pnetcdf_convert_oracle.txt
 *
 * One value per attribute, so each return code belongs to one element.
 * Lines (hex bytes in the order they sit in memory / in the file):
 *   P <cdf> <mem> <xtype> <native input> <rc> <external output, big-endian>
 *   G <cdf> <xtype> <mem> <external input, big-endian> <rc> <native output>
 * Where rc is NC_ERANGE the output is the fill value: Debian builds PnetCDF
 * with PNETCDF_ERANGE_FILL=1 (the destination type's default fill here).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    nc_type type;
    int size;
    int nvalues;
    const void *values;
} ValueSet;

static const signed char v_schar[] = {-128, -127, -1, 0, 1, 127};
static const unsigned char v_uchar[] = {0, 1, 127, 128, 255};
static const short v_short[] = {-32768, -129, -128, -1, 0, 127, 128, 255, 256, 32767};
static const unsigned short v_ushort[] = {0, 127, 128, 255, 256, 32767, 32768, 65535};
static const int v_int[] = {INT_MIN, -32769, -32768, -129, -128, -1, 0, 127, 128,
                            255, 256, 32767, 32768, 65535, 65536, INT_MAX};
static const unsigned int v_uint[] = {0, 127, 128, 255, 256, 32767, 32768, 65535,
                                      65536, 2147483647u, 2147483648u, 4294967295u};
static const long long v_int64[] = {LLONG_MIN, -2147483649LL, -2147483648LL, -32769, -32768,
                                    -129, -128, -1, 0, 127, 128, 255, 256, 32767, 32768,
                                    65535, 65536, 2147483647LL, 2147483648LL, 4294967295LL,
                                    4294967296LL, 9007199254740993LL, LLONG_MAX};
static const unsigned long long v_uint64[] = {
    0, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2147483647ULL, 2147483648ULL,
    4294967295ULL, 4294967296ULL, 9223372036854775807ULL, 9223372036854775808ULL,
    18446744073709551615ULL};
static float v_float[40];
static double v_double[60];
static int n_float, n_double;

static void init_floats(void) {
    const double common[] = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 127.0, 127.5, 128.0,
                             -128.0, -128.5, -129.0, 255.0, 255.5, 256.0, 32767.0,
                             32767.5, -32768.0, -32768.5, 65535.0, 65535.5, 65536.0,
                             2147483520.0, 2147483648.0, -2147483648.0, 4294967040.0,
                             4294967296.0, 9223372036854775808.0, -9223372036854775808.0,
                             18446744073709551616.0, 1e-45, 1.17549435e-38, 1e-40};
    int nc = (int)(sizeof common / sizeof common[0]);
    for (int i = 0; i < nc; i++) v_float[n_float++] = (float)common[i];
    v_float[n_float++] = FLT_MAX;
    v_float[n_float++] = -FLT_MAX;
    v_float[n_float++] = INFINITY;
    v_float[n_float++] = -INFINITY;
    v_float[n_float++] = NAN;
    for (int i = 0; i < nc; i++) v_double[n_double++] = common[i];
    const double extra[] = {2147483647.0, 2147483647.5, -2147483648.5, 4294967295.0,
                            4294967295.5, 9223372036854774784.0, 18446744073709549568.0,
                            FLT_MAX, -FLT_MAX, 3.4028235677973366e38, -3.4028235677973366e38,
                            3.4028236e38, 1e39, -1e39, DBL_MAX, -DBL_MAX, 5e-324, 1e-310,
                            1e-46, INFINITY, -INFINITY, NAN};
    for (int i = 0; i < (int)(sizeof extra / sizeof extra[0]); i++) v_double[n_double++] = extra[i];
}

static ValueSet sets[10];

static void init_sets(void) {
    init_floats();
    ValueSet s[10] = {
        {NC_BYTE, 1, sizeof v_schar / sizeof *v_schar, v_schar},
        {NC_UBYTE, 1, sizeof v_uchar / sizeof *v_uchar, v_uchar},
        {NC_SHORT, 2, sizeof v_short / sizeof *v_short, v_short},
        {NC_USHORT, 2, sizeof v_ushort / sizeof *v_ushort, v_ushort},
        {NC_INT, 4, sizeof v_int / sizeof *v_int, v_int},
        {NC_UINT, 4, sizeof v_uint / sizeof *v_uint, v_uint},
        {NC_FLOAT, 4, 0, v_float},
        {NC_DOUBLE, 8, 0, v_double},
        {NC_INT64, 8, sizeof v_int64 / sizeof *v_int64, v_int64},
        {NC_UINT64, 8, sizeof v_uint64 / sizeof *v_uint64, v_uint64},
    };
    s[6].nvalues = n_float;
    s[7].nvalues = n_double;
    memcpy(sets, s, sizeof s);
}

static int put_typed(int ncid, const char *name, nc_type mem, nc_type xtype, const void *v) {
    switch (mem) {
        case NC_BYTE: return ncmpi_put_att_schar(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_UBYTE: return ncmpi_put_att_uchar(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_SHORT: return ncmpi_put_att_short(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_USHORT: return ncmpi_put_att_ushort(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_INT: return ncmpi_put_att_int(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_UINT: return ncmpi_put_att_uint(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_FLOAT: return ncmpi_put_att_float(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_DOUBLE: return ncmpi_put_att_double(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_INT64: return ncmpi_put_att_longlong(ncid, NC_GLOBAL, name, xtype, 1, v);
        case NC_UINT64: return ncmpi_put_att_ulonglong(ncid, NC_GLOBAL, name, xtype, 1, v);
    }
    return NC_EBADTYPE;
}

static int get_typed(int ncid, const char *name, nc_type mem, void *v) {
    switch (mem) {
        case NC_BYTE: return ncmpi_get_att_schar(ncid, NC_GLOBAL, name, v);
        case NC_UBYTE: return ncmpi_get_att_uchar(ncid, NC_GLOBAL, name, v);
        case NC_SHORT: return ncmpi_get_att_short(ncid, NC_GLOBAL, name, v);
        case NC_USHORT: return ncmpi_get_att_ushort(ncid, NC_GLOBAL, name, v);
        case NC_INT: return ncmpi_get_att_int(ncid, NC_GLOBAL, name, v);
        case NC_UINT: return ncmpi_get_att_uint(ncid, NC_GLOBAL, name, v);
        case NC_FLOAT: return ncmpi_get_att_float(ncid, NC_GLOBAL, name, v);
        case NC_DOUBLE: return ncmpi_get_att_double(ncid, NC_GLOBAL, name, v);
        case NC_INT64: return ncmpi_get_att_longlong(ncid, NC_GLOBAL, name, v);
        case NC_UINT64: return ncmpi_get_att_ulonglong(ncid, NC_GLOBAL, name, v);
    }
    return NC_EBADTYPE;
}

static void hex(const void *p, int n, int reverse) {
    const unsigned char *b = p;
    for (int i = 0; i < n; i++) printf("%02x", b[reverse ? n - 1 - i : i]);
}

/* CDF-2 differs from CDF-5 only for NC_BYTE (the unsigned char rule), so the
 * CDF-2 pass records that external type alone. */
static int recorded(int cdf, nc_type xtype) { return cdf == 5 || xtype == NC_BYTE; }

/* Every memory type into every external type, one attribute per value. */
static void run_puts(const char *path, int cdf) {
    int ncid, mode = NC_CLOBBER | (cdf == 5 ? NC_64BIT_DATA : NC_64BIT_OFFSET);
    char name[64];
    unsigned char native[8];
    ncmpi_create(MPI_COMM_SELF, path, mode, MPI_INFO_NULL, &ncid);
    for (int m = 0; m < 10; m++)
        for (int x = 0; x < 10; x++) {
            if (!recorded(cdf, sets[x].type)) continue;
            for (int i = 0; i < sets[m].nvalues; i++) {
                const void *v = (const char *)sets[m].values + i * sets[m].size;
                snprintf(name, sizeof name, "p_%d_%d_%d", m, x, i);
                int rc = put_typed(ncid, name, sets[m].type, sets[x].type, v);
                memset(native, 0, sizeof native);
                ncmpi_get_att(ncid, NC_GLOBAL, name, native);
                printf("P %d %d %d ", cdf, sets[m].type, sets[x].type);
                hex(v, sets[m].size, 0);
                printf(" %d ", rc);
                hex(native, sets[x].size, 1);
                printf("\n");
            }
        }
    ncmpi_close(ncid);
}

/* Every external type read into every memory type. */
static void run_gets(const char *path, int cdf) {
    int ncid, mode = NC_CLOBBER | (cdf == 5 ? NC_64BIT_DATA : NC_64BIT_OFFSET);
    char name[64];
    unsigned char out[8];
    ncmpi_create(MPI_COMM_SELF, path, mode, MPI_INFO_NULL, &ncid);
    for (int x = 0; x < 10; x++) {
        if (!recorded(cdf, sets[x].type)) continue;
        for (int i = 0; i < sets[x].nvalues; i++) {
            snprintf(name, sizeof name, "g_%d_%d", x, i);
            ncmpi_put_att(ncid, NC_GLOBAL, name, sets[x].type, 1,
                          (const char *)sets[x].values + i * sets[x].size);
        }
    }
    for (int x = 0; x < 10; x++) {
        if (!recorded(cdf, sets[x].type)) continue;
        for (int m = 0; m < 10; m++)
            for (int i = 0; i < sets[x].nvalues; i++) {
                const void *v = (const char *)sets[x].values + i * sets[x].size;
                snprintf(name, sizeof name, "g_%d_%d", x, i);
                memset(out, 0, sizeof out);
                int rc = get_typed(ncid, name, sets[m].type, out);
                printf("G %d %d %d ", cdf, sets[x].type, sets[m].type);
                hex(v, sets[x].size, 1);
                printf(" %d ", rc);
                hex(out, sets[m].size, 0);
                printf("\n");
            }
    }
    ncmpi_close(ncid);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    init_sets();
    for (int cdf = 2; cdf <= 5; cdf += 3) {
        snprintf(path, sizeof path, "%s/oracle_put_cdf%d.nc", dir, cdf);
        run_puts(path, cdf);
        snprintf(path, sizeof path, "%s/oracle_get_cdf%d.nc", dir, cdf);
        run_gets(path, cdf);
    }
    MPI_Finalize();
    return 0;
}
