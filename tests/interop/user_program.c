/*
 * user_program.c -- an ordinary PnetCDF program, written as PnetCDF's users write them, that
 * prints what it observes: every return code, every value read back, every inquiry. It is
 * built unchanged against exacdf and against the system PnetCDF; run_differential.sh runs
 * both at 1, 2 and 4 ranks in CDF-1, CDF-2 and CDF-5 and requires the same standard output
 * and the same ncdump of the files they write.
 *
 *   user_program OUT.nc FORMAT     FORMAT: 1 (CDF-1), 2 (CDF-2) or 5 (CDF-5)
 *
 * Every rank's lines are gathered to rank 0 and printed in rank order, so the output does
 * not depend on scheduling. Nothing here is exacdf-specific.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;
static char out[1 << 16];
static size_t used;

/* One line of this rank's output. */
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out + used, sizeof out - used, fmt, ap);
  va_end(ap);
  if (n > 0 && used + (size_t)n < sizeof out - 1) used += (size_t)n;
  out[used++] = '\n';
  out[used] = '\0';
}

#define RC(call) say("%-44s -> %d", #call, (call))

/* Prints every rank's lines on rank 0, in rank order, and starts a new section. */
static void flush_lines(const char *section) {
  int len = (int)used;
  int *lens = NULL, *displs = NULL;
  char *all = NULL;
  if (rank == 0) lens = calloc((size_t)nprocs, sizeof *lens), displs = calloc((size_t)nprocs, sizeof *displs);
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  if (rank == 0) {
    for (int r = 0; r < nprocs; ++r) displs[r] = total, total += lens[r];
    all = malloc((size_t)total + 1);
  }
  MPI_Gatherv(out, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("== %s\n", section);
    for (int r = 0; r < nprocs; ++r) {
      printf("-- rank %d\n", r);
      fwrite(all + displs[r], 1, (size_t)lens[r], stdout);
    }
    fflush(stdout);
    free(all), free(lens), free(displs);
  }
  used = 0;
  out[0] = '\0';
}

static void say_ints(const char *what, const int *v, int n) {
  char line[2048];
  size_t at = (size_t)snprintf(line, sizeof line, "%s:", what);
  for (int i = 0; i < n && at < sizeof line - 16; ++i) at += (size_t)snprintf(line + at, sizeof line - at, " %d", v[i]);
  say("%s", line);
}

static void say_doubles(const char *what, const double *v, int n) {
  char line[4096];
  size_t at = (size_t)snprintf(line, sizeof line, "%s:", what);
  for (int i = 0; i < n && at < sizeof line - 32; ++i) at += (size_t)snprintf(line + at, sizeof line - at, " %g", v[i]);
  say("%s", line);
}

enum { NX = 6 };

/* Defines the dataset: dimensions, variables of every type the format has, attributes. */
static void define(int ncid, int format, int *dim, int *var) {
  RC(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dim[0]));
  RC(ncmpi_def_dim(ncid, "y", 2 * nprocs, &dim[1]));
  RC(ncmpi_def_dim(ncid, "x", NX, &dim[2]));
  RC(ncmpi_def_dim(ncid, "x", 3, &dim[3]));          /* NC_ENAMEINUSE */
  RC(ncmpi_def_dim(ncid, "bad name", 3, &dim[3]));   /* NC_EBADNAME */
  RC(ncmpi_def_dim(ncid, "t2", NC_UNLIMITED, &dim[3]));  /* NC_EUNLIMIT */
  RC(ncmpi_def_var(ncid, "s", NC_SHORT, 2, dim + 1, &var[0]));
  RC(ncmpi_def_var(ncid, "i", NC_INT, 2, dim + 1, &var[1]));
  RC(ncmpi_def_var(ncid, "f", NC_FLOAT, 3, dim, &var[2]));
  int td[2] = {dim[0], dim[2]};
  RC(ncmpi_def_var(ncid, "d", NC_DOUBLE, 2, td, &var[3]));
  RC(ncmpi_def_var(ncid, "b", NC_BYTE, 1, dim + 2, &var[4]));
  RC(ncmpi_def_var(ncid, "c", NC_CHAR, 1, dim + 2, &var[5]));
  RC(ncmpi_def_var(ncid, "u", format == 5 ? NC_USHORT : NC_SHORT, 1, dim + 2, &var[6]));
  RC(ncmpi_def_var(ncid, "bad", NC_INT + 100, 1, dim + 2, &var[7]));  /* NC_EBADTYPE */
  RC(ncmpi_def_var(ncid, "s", NC_INT, 1, dim + 2, &var[7]));          /* NC_ENAMEINUSE */
  short sfill = -99;
  RC(ncmpi_put_att_short(ncid, var[0], "_FillValue", NC_SHORT, 1, &sfill));
  RC(ncmpi_put_att_text(ncid, var[2], "units", 1, "K"));
  double range[2] = {-1.5, 1e6};
  RC(ncmpi_put_att_double(ncid, var[3], "valid_range", NC_DOUBLE, 2, range));
  RC(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 12, "user program"));
  int ints[3] = {1, -2, 300};
  RC(ncmpi_put_att_int(ncid, NC_GLOBAL, "ints", NC_INT, 3, ints));
  RC(ncmpi_put_att_int(ncid, NC_GLOBAL, "as_bytes", NC_BYTE, 3, ints));  /* 300: NC_ERANGE */
  float fl = 2.5f;
  RC(ncmpi_put_att_float(ncid, NC_GLOBAL, "a_float", NC_FLOAT, 1, &fl));
  if (format == 5) {
    long long big = 1LL << 40;
    RC(ncmpi_put_att_longlong(ncid, NC_GLOBAL, "big", NC_INT64, 1, &big));
  }
  RC(ncmpi_put_att_int(ncid, 99, "x", NC_INT, 1, ints));  /* NC_ENOTVAR */
  RC(ncmpi_set_fill(ncid, NC_FILL, NULL));
  RC(ncmpi_put_var_int_all(ncid, var[1], ints));  /* NC_EINDEFINE */
}

/* Collective, independent, strided, mapped and flexible puts of every rank's rows. */
static void put_blocking(int ncid, const int *var) {
  MPI_Offset start[3] = {0, 2 * rank, 0}, count[3] = {1, 2, NX};
  int iv[2 * NX];
  for (int k = 0; k < 2 * NX; ++k) iv[k] = 1000 * rank + k;
  RC(ncmpi_put_vara_int_all(ncid, var[1], start + 1, count + 1, iv));
  iv[3] = 70000;  /* does not fit a short: NC_ERANGE for this element */
  RC(ncmpi_put_vara_int_all(ncid, var[0], start + 1, count + 1, iv));
  float fv[2 * NX];
  for (int k = 0; k < 2 * NX; ++k) fv[k] = (float)rank + 0.25f * (float)k;
  RC(ncmpi_put_vara_float_all(ncid, var[2], start, count, fv));
  MPI_Offset sstart[3] = {1, 2 * rank, 0}, scount[3] = {1, 2, NX / 2}, stride[3] = {1, 1, 2};
  float zeros[2 * NX] = {0};  /* record 1 whole first: the strided put leaves holes */
  RC(ncmpi_put_vara_float_all(ncid, var[2], sstart, count, zeros));
  RC(ncmpi_put_vars_float_all(ncid, var[2], sstart, scount, stride, fv));
  /* A mapped put: memory holds x-major ("transposed") values of record 2 of d. */
  /* d is shared by all ranks: each writes the same values (overlapping writes of different
   * values would leave whichever landed last). Records 0 and 1 plainly, record 2 mapped. */
  double d01[2 * NX];
  for (int k = 0; k < 2 * NX; ++k) d01[k] = 0.5 * k - 1;
  MPI_Offset d01s[2] = {0, 0}, d01c[2] = {2, NX};
  RC(ncmpi_put_vara_double_all(ncid, var[3], d01s, d01c, d01));
  double dv[2 * NX];  /* every other element is record 2's */
  for (int k = 0; k < 2 * NX; ++k) dv[k] = k % 2 ? -1.0 : 10.0 + k / 2;
  MPI_Offset dstart[2] = {2, 0}, dcount[2] = {1, NX}, imap[2] = {2 * NX, 2};
  RC(ncmpi_put_varm_double_all(ncid, var[3], dstart, dcount, NULL, imap, dv));
  /* Independent mode: rank 0 writes the 1-D variables. */
  RC(ncmpi_begin_indep_data(ncid));
  if (rank == 0) {
    MPI_Offset s0 = 0, n = NX;
    signed char bv[NX] = {1, -2, 3, -4, 5, 127};
    RC(ncmpi_put_vara_schar(ncid, var[4], &s0, &n, bv));
    RC(ncmpi_put_vara_text(ncid, var[5], &s0, &n, "abcdef"));
    MPI_Offset one = 2;
    char ch = 'Z';
    RC(ncmpi_put_var1_text(ncid, var[5], &one, &ch));
    unsigned short us[NX] = {0, 1, 2, 65535, 4, 5};
    RC(ncmpi_put_vara_ushort(ncid, var[6], &s0, &n, us));
  }
  RC(ncmpi_end_indep_data(ncid));
  /* The last rank passes a start beyond the dimension: the error is that rank's alone, the
   * others' rows are written (without safe mode). */
  MPI_Offset mine_or_bad[2] = {rank == nprocs - 1 ? 2 * nprocs + 3 : 2 * rank, 0};
  RC(ncmpi_put_vara_int_all(ncid, var[1], mine_or_bad, count + 1, iv));
  /* Flexible API: every other int of a strided memory buffer. */
  int wide[4 * NX];
  for (int k = 0; k < 4 * NX; ++k) wide[k] = k % 2 ? -1 : 5000 + k / 2 + 100 * rank;
  MPI_Datatype every_other;
  MPI_Type_vector(2 * NX, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  RC(ncmpi_put_vara_all(ncid, var[1], start + 1, count + 1, wide, 1, every_other));
  MPI_Type_free(&every_other);
}

/* Nonblocking iput/bput/iget, varn and the codes of a request that fails at post time. */
static void nonblocking(int ncid, const int *var) {
  int req[5], st[5];
  double dv[NX];
  for (int k = 0; k < NX; ++k) dv[k] = -0.5 * k;
  MPI_Offset start[2] = {3, 0}, count[2] = {1, NX};
  RC(ncmpi_iput_vara_double(ncid, var[3], start, count, dv, &req[0]));
  RC(ncmpi_buffer_attach(ncid, 4096));
  MPI_Offset s1[3] = {2, 2 * rank, 0}, c1[3] = {1, 2, NX};
  float fv[2 * NX];
  for (int k = 0; k < 2 * NX; ++k) fv[k] = 100.0f + (float)(rank * 2 * NX + k);
  RC(ncmpi_bput_vara_float(ncid, var[2], s1, c1, fv, &req[1]));
  /* Every record of every record variable is written: an unwritten one holds whatever the
   * MPI-IO layer left there (NC_NOFILL semantics; Open MPI's ompio leaves garbage in holes a
   * collective write spans past the end of the file, for both libraries). */
  MPI_Offset s3[3] = {3, 2 * rank, 0};
  RC(ncmpi_iput_vara_float(ncid, var[2], s3, c1, fv, &req[3]));
  int got[2 * NX];
  MPI_Offset gs[2] = {2 * rank, 0}, gc[2] = {2, NX};
  RC(ncmpi_iget_vara_int(ncid, var[1], gs, gc, got, &req[2]));
  MPI_Offset bad[2] = {2 * nprocs + 5, 0};
  RC(ncmpi_iget_vara_int(ncid, var[1], bad, gc, got, &req[4]));  /* NC_EINVALCOORDS */
  int n = 0;
  RC(ncmpi_inq_nreqs(ncid, &n));
  say("nreqs: %d", n);
  RC(ncmpi_wait_all(ncid, 4, req, st));
  say_ints("statuses", st, 4);
  say_ints("iget", got, 2 * NX);
  MPI_Offset usage = 0;
  RC(ncmpi_inq_buffer_usage(ncid, &usage));
  RC(ncmpi_buffer_detach(ncid));
  /* varn: two single elements and a row piece of i, in one call. */
  MPI_Offset p0[2] = {2 * rank, 0}, p1[2] = {2 * rank + 1, NX - 1}, p2[2] = {2 * rank, 2};
  MPI_Offset n0[2] = {1, 1}, n1[2] = {1, 1}, n2[2] = {1, 3};
  MPI_Offset *starts[3] = {p0, p1, p2}, *counts[3] = {n0, n1, n2};
  int vals[5] = {-7, -8, -9, -10, -11};
  RC(ncmpi_put_varn_int_all(ncid, var[1], 3, starts, counts, vals));
}

/* Reads everything back through several memory types and prints it. */
static void read_back(int ncid, const int *var) {
  int iv[2 * NX];
  MPI_Offset start[2] = {2 * rank, 0}, count[2] = {2, NX};
  RC(ncmpi_get_vara_int_all(ncid, var[1], start, count, iv));
  say_ints("i", iv, 2 * NX);
  RC(ncmpi_get_vara_int_all(ncid, var[0], start, count, iv));
  say_ints("s as int", iv, 2 * NX);
  signed char sc[2 * NX];
  RC(ncmpi_get_vara_schar_all(ncid, var[1], start, count, sc));  /* NC_ERANGE */
  MPI_Offset nrec = 0;
  RC(ncmpi_inq_dimlen(ncid, 0, &nrec));
  say("numrecs: %lld", (long long)nrec);
  double fd[4 * 2 * NX];
  MPI_Offset fs[3] = {0, 2 * rank, 0}, fc[3] = {4, 2, NX};
  RC(ncmpi_get_vara_double_all(ncid, var[2], fs, fc, fd));
  say_doubles("f", fd, 4 * 2 * NX);
  double dd[4 * NX];
  RC(ncmpi_get_var_double_all(ncid, var[3], dd));
  say_doubles("d", dd, 4 * NX);
  char text[NX + 1] = {0};
  RC(ncmpi_get_var_text_all(ncid, var[5], text));
  say("c: %s", text);
  int b[NX];
  RC(ncmpi_get_var_int_all(ncid, var[4], b));
  say_ints("b", b, NX);
  MPI_Offset over[2] = {0, 0}, too_many[2] = {2 * nprocs + 1, NX};
  RC(ncmpi_get_vara_int_all(ncid, var[1], over, too_many, iv));  /* NC_EEDGE */
  RC(ncmpi_get_vara_int_all(ncid, 42, start, count, iv));        /* NC_ENOTVAR */
}

/* Inquiries a program makes of a file it did not write. */
static void inquire(int ncid) {
  int ndims = 0, nvars = 0, natts = 0, unlim = -2, fmt = 0;
  RC(ncmpi_inq(ncid, &ndims, &nvars, &natts, &unlim));
  say("ndims %d nvars %d natts %d unlimdim %d", ndims, nvars, natts, unlim);
  RC(ncmpi_inq_format(ncid, &fmt));
  say("format %d", fmt);
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int nd = 0, dims[8], na = 0; /* (NC_MAX_VAR_DIMS is INT_MAX in PnetCDF) */
    RC(ncmpi_inq_var(ncid, v, name, &type, &nd, dims, &na));
    say("var %d %s type %d ndims %d natts %d", v, name, (int)type, nd, na);
  }
  MPI_Offset len = 0;
  nc_type type;
  RC(ncmpi_inq_att(ncid, NC_GLOBAL, "ints", &type, &len));
  say("ints: type %d len %lld", (int)type, (long long)len);
  signed char bytes[3];
  RC(ncmpi_get_att_schar(ncid, NC_GLOBAL, "as_bytes", bytes));
  say("as_bytes: %d %d %d", bytes[0], bytes[1], bytes[2]);
  RC(ncmpi_inq_attlen(ncid, NC_GLOBAL, "missing", &len));  /* NC_ENOTATT */
  int varid = -1;
  RC(ncmpi_inq_varid(ncid, "later", &varid));
  say("later is %d", varid);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: user_program OUT.nc 1|2|5\n");
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1];
  const int format = atoi(argv[2]);
  const int cmode = NC_CLOBBER | (format == 2 ? NC_64BIT_OFFSET : format == 5 ? NC_64BIT_DATA : 0);
  int ncid = -1, dim[4], var[8];
  RC(ncmpi_create(MPI_COMM_WORLD, path, cmode, MPI_INFO_NULL, &ncid));
  define(ncid, format, dim, var);
  RC(ncmpi_enddef(ncid));
  flush_lines("define");
  put_blocking(ncid, var);
  flush_lines("blocking puts");
  nonblocking(ncid, var);
  flush_lines("nonblocking");
  RC(ncmpi_redef(ncid));
  int later = -1;
  RC(ncmpi_def_var(ncid, "later", NC_INT, 1, dim + 2, &later));
  RC(ncmpi_put_att_text(ncid, later, "note", 10, "after data"));
  RC(ncmpi_enddef(ncid));
  int lv[NX] = {9, 8, 7, 6, 5, 4};
  RC(ncmpi_put_var_int_all(ncid, later, lv));
  read_back(ncid, var);
  flush_lines("redef and read back");
  RC(ncmpi_close(ncid));
  RC(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  inquire(ncid);
  read_back(ncid, var);
  RC(ncmpi_put_var_int_all(ncid, later, lv));  /* NC_EPERM */
  RC(ncmpi_close(ncid));
  flush_lines("reopened");
  MPI_Finalize();
  return 0;
}
