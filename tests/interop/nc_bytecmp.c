/*
 * nc_bytecmp A B -- compare two netCDF classic files byte for byte, and when
 * they differ say whether any byte that carries information differs.
 *
 * The bytes that carry information are the header (0 .. header size) and
 * every variable's data: for a fixed-size variable [begin, begin + nelems *
 * xsz), for a record variable the same per record at begin + r * recsize.
 * Everything else (header padding up to the first variable, the padding of
 * each variable to a 4-byte boundary, bytes past the last variable) is not
 * read by any netCDF library.  When a library leaves such bytes unwritten
 * they are file holes, and collective MPI-IO writes fill holes inside an
 * aggregator's range with whatever its buffer held: PnetCDF 1.12.3 over Open
 * MPI writes different garbage into record padding from run to run at 4
 * ranks.  So a byte-identity check between two writers can only be strict on
 * the information-carrying bytes.
 *
 * The layout is taken from A (the reference, PnetCDF's file) through the
 * ncmpi_* API, MPI_COMM_SELF.
 *
 * Exit 0: identical.  Exit 3: sizes or bytes differ, but only outside the
 * information-carrying bytes (printed).  Exit 1: an information-carrying byte
 * differs (the first few printed, with the variable they belong to).
 * Exit 2: usage or I/O error.
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS_PER_VAR 32

static unsigned char *slurp(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)*size + 1);
  if (buf && fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

static int xsize(nc_type t) {
  switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    default: return 8;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    fprintf(stderr, "usage: nc_bytecmp A B\n");
    MPI_Finalize();
    return 2;
  }
  long na, nb;
  unsigned char *a = slurp(argv[1], &na), *b = slurp(argv[2], &nb);
  if (!a || !b) {
    fprintf(stderr, "nc_bytecmp: cannot read %s\n", !a ? argv[1] : argv[2]);
    MPI_Finalize();
    return 2;
  }
  if (na == nb && memcmp(a, b, (size_t)na) == 0) {
    MPI_Finalize();
    return 0;
  }

  /* owner[i]: -2 = no information, -1 = header, v = variable v */
  long n = na > nb ? na : nb;
  int *owner = malloc(sizeof(int) * (size_t)n);
  for (long i = 0; i < n; i++) owner[i] = -2;

  int ncid, err, ndims, nvars, natts, unlim;
  err = ncmpi_open(MPI_COMM_SELF, argv[1], NC_NOWRITE, MPI_INFO_NULL, &ncid);
  if (err != NC_NOERR) {
    fprintf(stderr, "nc_bytecmp: %s: %s\n", argv[1], ncmpi_strerror(err));
    MPI_Finalize();
    return 2;
  }
  MPI_Offset hsize, recsize = 0, numrecs = 0;
  ncmpi_inq(ncid, &ndims, &nvars, &natts, &unlim);
  ncmpi_inq_header_size(ncid, &hsize);
  ncmpi_inq_recsize(ncid, &recsize);
  if (unlim >= 0) ncmpi_inq_dimlen(ncid, unlim, &numrecs);
  for (long i = 0; i < hsize && i < n; i++) owner[i] = -1;
  char names[1024][NC_MAX_NAME + 1];
  for (int v = 0; v < nvars; v++) {
    nc_type t;
    int vnd, dimids[MAX_DIMS_PER_VAR];
    MPI_Offset begin, len = 1, dl;
    ncmpi_inq_var(ncid, v, v < 1024 ? names[v] : names[1023], &t, &vnd, dimids, NULL);
    ncmpi_inq_varoffset(ncid, v, &begin);
    int is_rec = vnd > 0 && dimids[0] == unlim;
    for (int d = is_rec ? 1 : 0; d < vnd; d++) {
      ncmpi_inq_dimlen(ncid, dimids[d], &dl);
      len *= dl;
    }
    len *= xsize(t);
    MPI_Offset nrec = is_rec ? numrecs : 1;
    for (MPI_Offset r = 0; r < nrec; r++) {
      MPI_Offset off = begin + (is_rec ? r * recsize : 0);
      for (MPI_Offset i = off; i < off + len && i < n; i++) owner[i] = v < 1024 ? v : 1023;
    }
  }
  ncmpi_close(ncid);

  long bad = 0, benign = 0;
  for (long i = 0; i < n; i++) {
    int differ = i >= na || i >= nb || a[i] != b[i];
    if (!differ) continue;
    /* Variable data past the end of one file and zero in the other was never
     * written: readers see zeros either way (PnetCDF 1.12.3's file length
     * after a redef move even depends on its number of ranks). */
    int unwritten = (i >= na && b[i] == 0) || (i >= nb && a[i] == 0);
    if (owner[i] == -2 || (owner[i] >= 0 && unwritten)) {
      if (benign < 5)
        printf("  byte %ld (no information: padding, hole or never-written data): %s vs %s\n", i,
               i < na ? "present" : "absent", i < nb ? "present" : "absent");
      benign++;
    } else {
      if (bad < 10)
        printf("  byte %ld (%s): %d vs %d\n", i, owner[i] == -1 ? "header" : names[owner[i]],
               i < na ? a[i] : -1, i < nb ? b[i] : -1);
      bad++;
    }
  }
  if (na != nb) printf("  sizes: %ld vs %ld\n", na, nb);
  printf("  %ld differing bytes that carry information, %ld that carry none\n", bad, benign);
  MPI_Finalize();
  return bad ? 1 : 3;
}
