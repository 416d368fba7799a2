/*
 * Record sections by default (issue 19): a redef of a plain (non-SWMR)
 * partitioned file that has records keeps them where they are instead of
 * copying the record section; the hint exa_redef_records=copy still lays
 * them out again. A file written without sections reads as it is and gets
 * superblock flag 2 only at the first redef that needs it (records present
 * and something changed): not at an open, not at a redef that changes
 * nothing, not at a redef of a file without records. Values of every
 * record read back across the sections, before and after a reopen.
 * exacdf only.
 */
#include <exacdf.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "mpi_test.h"
#include "superblock_probe.h"

#define W 256  /* ints of a's record: 1 KiB */
#define NREC 200
#define FLAG_SECTIONS 2u

static int rank, nprocs;

static int fa(int rec, int i) { return rec * 1000 + i; }
static int fb(int rec) { return -rec - 1; }

static long long file_size(const char *path) {
  long long size = 0;
  if (rank == 0) {
    struct stat st;
    size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
  }
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return size;
}

/* Records [from, to) of a, each rank its share of the records. */
static void put_a(int ncid, int from, int to) {
  int varid, vals[W];
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &varid));
  for (int rec = from; rec < to; rec++) {
    const int mine = rec % nprocs == rank;
    for (int i = 0; i < W; i++) vals[i] = fa(rec, i);
    MPI_Offset start[2] = {rec, 0}, count[2] = {mine ? 1 : 0, W};
    CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, vals));
  }
}

static void put_b(int ncid, int rec) {
  int varid, v = fb(rec);
  CHECK_OK(ncmpi_inq_varid(ncid, "b", &varid));
  MPI_Offset start[1] = {rec}, count[1] = {rank == 0 ? 1 : 0};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, varid, start, count, &v));
}

/* a holds fa for records [0, nrec) (one read across every section); b, if
 * there, fb where `b_written` says so and the fill value elsewhere. */
static void check_values(int ncid, int nrec, int with_b, const unsigned char *b_written) {
  static int got[(NREC + 8) * W];
  int varid;
  MPI_Offset len = 0;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &len));
  CHECK(len == nrec);
  CHECK_OK(ncmpi_inq_varid(ncid, "a", &varid));
  MPI_Offset start[2] = {0, 0}, count[2] = {nrec, W};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, start, count, got));
  int bad = 0;
  for (int rec = 0; rec < nrec; rec++)
    for (int i = 0; i < W; i++) bad += got[rec * W + i] != fa(rec, i);
  CHECK(bad == 0);
  if (!with_b) return;
  CHECK_OK(ncmpi_inq_varid(ncid, "b", &varid));
  MPI_Offset bstart[1] = {0}, bcount[1] = {nrec};
  CHECK_OK(ncmpi_get_vara_int_all(ncid, varid, bstart, bcount, got));
  bad = 0;
  for (int rec = 0; rec < nrec; rec++) bad += got[rec] != (b_written[rec] ? fb(rec) : NC_FILL_INT);
  CHECK(bad == 0);
}

/* A file of NREC records of a, written without sections; then a redef
 * adding the record variable b (fill on). Returns the bytes the redef
 * added to the file. */
static long long add_record_var(const char *path, const char *hint, unsigned char *b_written) {
  MPI_Info info = MPI_INFO_NULL;
  int ncid, d[2], b;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "w", W, &d[1]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 2, d, &b));
  CHECK_OK(ncmpi_enddef(ncid));
  put_a(ncid, 0, NREC);
  CHECK_OK(ncmpi_close(ncid));
  /* no redef yet: no sections, also after an open for writing and a redef that changes nothing */
  CHECK(superblock_current_flags(path) == 0);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &ncid));
  check_values(ncid, NREC, 0, b_written);
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_close(ncid));
  CHECK(superblock_current_flags(path) == 0);
  const long long before = file_size(path);
  if (hint) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_redef_records", hint);
  }
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, info, &ncid));
  if (hint) MPI_Info_free(&info);
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 1, d, &b));
  CHECK_OK(ncmpi_def_var_fill(ncid, b, 0, NULL));
  CHECK_OK(ncmpi_enddef(ncid));
  const long long added = file_size(path) - before;
  check_values(ncid, NREC, 1, b_written);
  /* an old record of b, then new records of both */
  put_b(ncid, 7);
  b_written[7] = 1;
  put_a(ncid, NREC, NREC + 3);
  for (int rec = NREC; rec < NREC + 3; rec++) {
    put_b(ncid, rec);
    b_written[rec] = 1;
  }
  check_values(ncid, NREC + 3, 1, b_written);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_values(ncid, NREC + 3, 1, b_written);
  CHECK_OK(ncmpi_close(ncid));
  return added;
}

/* A redef of a file without records adds a record variable: nothing to
 * keep, so no sections. */
static void no_records_no_sections(const char *path) {
  int ncid, d[2], v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "w", W, &d[1]));
  CHECK_OK(ncmpi_def_var(ncid, "a", NC_INT, 2, d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_var(ncid, "b", NC_INT, 1, d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  put_a(ncid, 0, 2);
  CHECK_OK(ncmpi_close(ncid));
  CHECK(superblock_current_flags(path) == 0);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  static unsigned char written_split[NREC + 8], written_copy[NREC + 8];
  const char *split_path = mpi_test_path("redef_split_default.nc");
  const long long split = add_record_var(split_path, NULL, written_split);
  CHECK(superblock_current_flags(split_path) == FLAG_SECTIONS);
  const char *copy_path = mpi_test_path("redef_split_copy.nc");
  const long long copy = add_record_var(copy_path, "copy", written_copy);
  CHECK(superblock_current_flags(copy_path) == 0);
  if (rank == 0)
    printf("redef adding a record variable to %d records of %d bytes: the file grew by %lld bytes (default), "
           "%lld (exa_redef_records=copy)\n", NREC, W * 4, split, copy);
  /* split: b's fill values and the metadata; copy: every record once more */
  CHECK(split > 0 && split < NREC * W * 4 / 4);
  CHECK(copy >= (long long)NREC * W * 4);
  no_records_no_sections(mpi_test_path("redef_split_norecs.nc"));
  return mpi_test_finish();
}
