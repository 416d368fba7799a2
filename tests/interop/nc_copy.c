/*
 * nc_copy IN OUT -- copy a netCDF classic file through the ncmpi_* API.
 *
 * Built twice from this one source: against exacdf and against the system
 * PnetCDF, so the interop tests can compare the files the two libraries write
 * for the same sequence of calls (byte for byte) and check that each library
 * reads the other's files.
 *
 * Uses only the public PnetCDF API:
 *   - the output has the input's format (CDF-1, CDF-2 or CDF-5);
 *   - dimensions, global attributes, variables and their attributes are copied
 *     in id order; global attributes with the typed ncmpi_get_att_<type> /
 *     ncmpi_put_att_<type> calls, variable attributes with the untyped
 *     ncmpi_get_att / ncmpi_put_att;
 *   - data moves with the typed collective ncmpi_get_vara_<type>_all /
 *     ncmpi_put_vara_<type>_all calls.  A fixed-size variable is split over
 *     the ranks along its first dimension (one contiguous slab per rank); a
 *     record variable is copied one record per call, records dealt round-robin
 *     to the ranks.  Ranks with nothing to do still make the collective call,
 *     with a zero count.
 *
 * Exits 0 on success; on any error prints it and calls MPI_Abort.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;
/* NC_MAX_VAR_DIMS is INT_MAX in PnetCDF 1.12: use our own bound for arrays. */
#define MAX_VAR_DIMS 32

#define CHECK(call)                                                                     \
  do {                                                                                  \
    int err_ = (call);                                                                  \
    if (err_ != NC_NOERR) {                                                             \
      fprintf(stderr, "nc_copy: rank %d: %s:%d: %s: %s\n", rank, __FILE__, __LINE__,   \
              #call, ncmpi_strerror(err_));                                             \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
    }                                                                                   \
  } while (0)

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "nc_copy: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

static size_t type_size(nc_type t) {
  switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_DOUBLE: case NC_INT64: case NC_UINT64: return 8;
    default:
      fprintf(stderr, "nc_copy: unknown type %d\n", (int)t);
      MPI_Abort(MPI_COMM_WORLD, 1);
      return 0;
  }
}

/* Copy one attribute with the typed get/put calls (the memory type matches the
 * external type, so there is no conversion). */
static void copy_att_typed(int in, int out, int varid, const char *name) {
  nc_type t;
  MPI_Offset len;
  CHECK(ncmpi_inq_att(in, varid, name, &t, &len));
  void *buf = xmalloc((size_t)len * type_size(t));
  switch (t) {
    case NC_CHAR:
      CHECK(ncmpi_get_att_text(in, varid, name, buf));
      CHECK(ncmpi_put_att_text(out, varid, name, len, buf));
      break;
#define TYPED_ATT(NCT, NAME, CTYPE)                                  \
  case NCT:                                                          \
    CHECK(ncmpi_get_att_##NAME(in, varid, name, (CTYPE *)buf));      \
    CHECK(ncmpi_put_att_##NAME(out, varid, name, t, len, (CTYPE *)buf)); \
    break;
    TYPED_ATT(NC_BYTE, schar, signed char)
    TYPED_ATT(NC_UBYTE, uchar, unsigned char)
    TYPED_ATT(NC_SHORT, short, short)
    TYPED_ATT(NC_USHORT, ushort, unsigned short)
    TYPED_ATT(NC_INT, int, int)
    TYPED_ATT(NC_UINT, uint, unsigned int)
    TYPED_ATT(NC_FLOAT, float, float)
    TYPED_ATT(NC_DOUBLE, double, double)
    TYPED_ATT(NC_INT64, longlong, long long)
    TYPED_ATT(NC_UINT64, ulonglong, unsigned long long)
#undef TYPED_ATT
    default:
      fprintf(stderr, "nc_copy: attribute %s has unknown type %d\n", name, (int)t);
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(buf);
}

/* Copy one attribute with the untyped ncmpi_get_att / ncmpi_put_att. */
static void copy_att_untyped(int in, int out, int varid, const char *name) {
  nc_type t;
  MPI_Offset len;
  CHECK(ncmpi_inq_att(in, varid, name, &t, &len));
  void *buf = xmalloc((size_t)len * type_size(t));
  CHECK(ncmpi_get_att(in, varid, name, buf));
  CHECK(ncmpi_put_att(out, varid, name, t, len, buf));
  free(buf);
}

/* With NC_COPY_NONBLOCKING=1 every slab of every variable is read with an
 * iget and written with an iput, all completed by one wait_all each: the
 * file must come out exactly as with blocking calls. */
static int nonblocking;
#define MAX_PENDING 65536
static struct {
  int varid;
  nc_type t;
  MPI_Offset start[MAX_VAR_DIMS], count[MAX_VAR_DIMS];
  void *buf;
  int req;
} pending[MAX_PENDING];
static int npending;

static void post_slab(int in, int varid, nc_type t, const MPI_Offset *start,
                      const MPI_Offset *count, int ndims, void *buf) {
  if (npending == MAX_PENDING) {
    fprintf(stderr, "nc_copy: too many requests\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  pending[npending].varid = varid;
  pending[npending].t = t;
  memcpy(pending[npending].start, start, sizeof(MPI_Offset) * (size_t)ndims);
  memcpy(pending[npending].count, count, sizeof(MPI_Offset) * (size_t)ndims);
  pending[npending].buf = buf;
  CHECK(ncmpi_iget_vara(in, varid, start, count, buf, -1, MPI_DATATYPE_NULL,
                        &pending[npending].req));
  npending++;
}

/* Completes the igets, posts the matching iputs, completes those. */
static void flush_pending(int in, int out) {
  int *reqs = xmalloc(sizeof(int) * (size_t)(npending + 1));
  int *sts = xmalloc(sizeof(int) * (size_t)(npending + 1));
  for (int i = 0; i < npending; i++) reqs[i] = pending[i].req;
  CHECK(ncmpi_wait_all(in, npending, reqs, sts));
  for (int i = 0; i < npending; i++) {
    CHECK(sts[i]);
    CHECK(ncmpi_iput_vara(out, pending[i].varid, pending[i].start, pending[i].count,
                          pending[i].buf, -1, MPI_DATATYPE_NULL, &reqs[i]));
  }
  CHECK(ncmpi_wait_all(out, npending, reqs, sts));
  for (int i = 0; i < npending; i++) {
    CHECK(sts[i]);
    free(pending[i].buf);
  }
  free(reqs);
  free(sts);
  npending = 0;
}

/* One collective get + put of the selection start/count of a variable. */
static void copy_slab(int in, int out, int varid, nc_type t, const MPI_Offset *start,
                      const MPI_Offset *count, int ndims) {
  MPI_Offset n = 1;
  for (int i = 0; i < ndims; i++) n *= count[i];
  void *buf = xmalloc((size_t)n * type_size(t) + 1);
  if (nonblocking) {
    post_slab(in, varid, t, start, count, ndims, buf);
    return;
  }
  switch (t) {
#define TYPED_VARA(NCT, NAME, CTYPE)                                             \
  case NCT:                                                                      \
    CHECK(ncmpi_get_vara_##NAME##_all(in, varid, start, count, (CTYPE *)buf));   \
    CHECK(ncmpi_put_vara_##NAME##_all(out, varid, start, count, (CTYPE *)buf));  \
    break;
    TYPED_VARA(NC_CHAR, text, char)
    TYPED_VARA(NC_BYTE, schar, signed char)
    TYPED_VARA(NC_UBYTE, uchar, unsigned char)
    TYPED_VARA(NC_SHORT, short, short)
    TYPED_VARA(NC_USHORT, ushort, unsigned short)
    TYPED_VARA(NC_INT, int, int)
    TYPED_VARA(NC_UINT, uint, unsigned int)
    TYPED_VARA(NC_FLOAT, float, float)
    TYPED_VARA(NC_DOUBLE, double, double)
    TYPED_VARA(NC_INT64, longlong, long long)
    TYPED_VARA(NC_UINT64, ulonglong, unsigned long long)
#undef TYPED_VARA
    default:
      fprintf(stderr, "nc_copy: variable %d has unknown type %d\n", varid, (int)t);
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(buf);
}

static void copy_var_data(int in, int out, int varid, int unlimdim, MPI_Offset numrecs) {
  char name[NC_MAX_NAME + 1];
  nc_type t;
  int ndims, natts;
  int dimids[MAX_VAR_DIMS];
  MPI_Offset start[MAX_VAR_DIMS], count[MAX_VAR_DIMS];
  CHECK(ncmpi_inq_var(in, varid, name, &t, &ndims, dimids, &natts));

  if (ndims == 0) { /* scalar: every rank reads it and writes the same value */
    copy_slab(in, out, varid, t, start, count, 0);
    return;
  }
  for (int i = 0; i < ndims; i++) {
    start[i] = 0;
    CHECK(ncmpi_inq_dimlen(in, dimids[i], &count[i]));
  }

  if (dimids[0] == unlimdim) {
    /* One record per call; round k gives record k*nprocs + rank to this rank. */
    MPI_Offset rounds = (numrecs + nprocs - 1) / nprocs;
    for (MPI_Offset k = 0; k < rounds; k++) {
      MPI_Offset rec = k * nprocs + rank;
      if (rec < numrecs) {
        start[0] = rec;
        count[0] = 1;
      } else {
        start[0] = 0;
        count[0] = 0;
      }
      copy_slab(in, out, varid, t, start, count, ndims);
    }
    return;
  }

  /* Fixed-size: block decomposition of the first dimension. */
  MPI_Offset len0 = count[0];
  MPI_Offset base = len0 / nprocs, extra = len0 % nprocs;
  MPI_Offset mine = base + (rank < extra ? 1 : 0);
  MPI_Offset first = rank * base + (rank < extra ? rank : extra);
  start[0] = mine ? first : 0;
  count[0] = mine;
  copy_slab(in, out, varid, t, start, count, ndims);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: nc_copy IN OUT\n");
    MPI_Finalize();
    return 2;
  }

  int in, out;
  CHECK(ncmpi_open(MPI_COMM_WORLD, argv[1], NC_NOWRITE, MPI_INFO_NULL, &in));

  int format, cmode = NC_CLOBBER;
  CHECK(ncmpi_inq_format(in, &format));
  switch (format) {
    case NC_FORMAT_CLASSIC: break;
    case NC_FORMAT_64BIT_OFFSET: cmode |= NC_64BIT_OFFSET; break;
    case NC_FORMAT_64BIT_DATA: cmode |= NC_64BIT_DATA; break;
    default:
      if (rank == 0) fprintf(stderr, "nc_copy: %s: unsupported format %d\n", argv[1], format);
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  CHECK(ncmpi_create(MPI_COMM_WORLD, argv[2], cmode, MPI_INFO_NULL, &out));

  int ndims, nvars, ngatts, unlimdim;
  CHECK(ncmpi_inq(in, &ndims, &nvars, &ngatts, &unlimdim));

  for (int d = 0; d < ndims; d++) {
    char name[NC_MAX_NAME + 1];
    MPI_Offset len;
    int id;
    CHECK(ncmpi_inq_dim(in, d, name, &len));
    CHECK(ncmpi_def_dim(out, name, d == unlimdim ? NC_UNLIMITED : len, &id));
    if (id != d) {
      fprintf(stderr, "nc_copy: dimension %s got id %d, expected %d\n", name, id, d);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  for (int a = 0; a < ngatts; a++) {
    char name[NC_MAX_NAME + 1];
    CHECK(ncmpi_inq_attname(in, NC_GLOBAL, a, name));
    copy_att_typed(in, out, NC_GLOBAL, name);
  }

  for (int v = 0; v < nvars; v++) {
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int vndims, natts, id;
    int dimids[MAX_VAR_DIMS];
    CHECK(ncmpi_inq_var(in, v, name, &t, &vndims, dimids, &natts));
    CHECK(ncmpi_def_var(out, name, t, vndims, dimids, &id));
    if (id != v) {
      fprintf(stderr, "nc_copy: variable %s got id %d, expected %d\n", name, id, v);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int a = 0; a < natts; a++) {
      char aname[NC_MAX_NAME + 1];
      CHECK(ncmpi_inq_attname(in, v, a, aname));
      copy_att_untyped(in, out, v, aname);
    }
  }
  CHECK(ncmpi_enddef(out));

  MPI_Offset numrecs = 0;
  if (unlimdim >= 0) CHECK(ncmpi_inq_dimlen(in, unlimdim, &numrecs));
  const char *nb = getenv("NC_COPY_NONBLOCKING");
  nonblocking = nb != NULL && strcmp(nb, "1") == 0;
  for (int v = 0; v < nvars; v++) copy_var_data(in, out, v, unlimdim, numrecs);
  if (nonblocking) flush_pending(in, out);

  CHECK(ncmpi_close(out));
  CHECK(ncmpi_close(in));
  MPI_Finalize();
  return 0;
}
