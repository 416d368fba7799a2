/*
 * The partitioned format (EXA_FORMAT_PARTITIONED, docs/format.md): create
 * with paths in names, write, reopen and read back; the hint and the default
 * format; independent definitions; records committed by a new superblock;
 * a torn newest superblock falls back to the previous state; what is not
 * supported yet says so. exacdf only.
 */
#include <exacdf.h>
#include <unistd.h>

#include "mpi_test.h"

static int rank, nprocs;

/* Each rank r owns block /sample_r: dimension n (r + 2), variable x over it;
 * the root block holds time (unlimited), a record variable t and a title. */
static void define_samples(int ncid, int independent) {
  int lo = independent ? rank : 0, hi = independent ? rank + 1 : nprocs;
  for (int r = lo; r < hi; r++) {
    char name[64];
    int d, v;
    snprintf(name, sizeof name, "/sample_%d/n", r);
    CHECK_OK(ncmpi_def_dim(ncid, name, r + 2, &d));
    snprintf(name, sizeof name, "/sample_%d/x", r);
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT64, 1, &d, &v));
    CHECK_OK(ncmpi_put_att_int(ncid, v, "rank", NC_INT, 1, &r));
  }
  int t, tv;
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  CHECK_OK(ncmpi_def_var(ncid, "t", NC_DOUBLE, 1, &t, &tv));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 11, "partitioned"));
}

static void write_data(int ncid) {
  char name[64];
  int v, tv;
  snprintf(name, sizeof name, "/sample_%d/x", rank);
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  long long vals[8];
  for (int i = 0; i < rank + 2; i++) vals[i] = 100LL * rank + i;
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_put_var_longlong(ncid, v, vals));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "t", &tv));
  MPI_Offset start = rank, count = 1;
  double d = rank + 0.5;
  CHECK_OK(ncmpi_put_vara_double_all(ncid, tv, &start, &count, &d));
}

static void check_file(const char *path, MPI_Offset want_recs) {
  int ncid, format = -1, nd = -1, nv = -1, ng = -1, unlim = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_format(ncid, &format));
  CHECK(format == EXA_FORMAT_PARTITIONED_V1);
  CHECK_OK(ncmpi_inq(ncid, &nd, &nv, &ng, &unlim));
  CHECK(nd == nprocs + 1 && nv == nprocs + 1 && ng == 1);
  /* file order: the root block "/" first, then /sample_0, /sample_1, ... */
  char name[NC_MAX_NAME + 1];
  CHECK_OK(ncmpi_inq_dimname(ncid, 0, name));
  CHECK(strcmp(name, "time") == 0);
  CHECK(unlim == 0);
  CHECK_OK(ncmpi_inq_varname(ncid, 1, name));
  CHECK(strcmp(name, "/sample_0/x") == 0);
  MPI_Offset len = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &len));
  CHECK(len == want_recs);
  for (int r = 0; r < nprocs; r++) {
    char vname[64];
    int v, owner = -1;
    snprintf(vname, sizeof vname, "/sample_%d/x", r);
    CHECK_OK(ncmpi_inq_varid(ncid, vname, &v));
    CHECK_OK(ncmpi_get_att_int(ncid, v, "rank", &owner));
    CHECK(owner == r);
    long long got[8] = {0};
    CHECK_OK(ncmpi_get_var_longlong_all(ncid, v, got));
    for (int i = 0; i < r + 2; i++) CHECK(got[i] == 100LL * r + i);
  }
  if (want_recs > 0) {
    double t[8] = {0};
    int tv;
    CHECK_OK(ncmpi_inq_varid(ncid, "t", &tv));
    CHECK_OK(ncmpi_get_var_double_all(ncid, tv, t));
    for (int r = 0; r < nprocs; r++) CHECK(t[r] == r + 0.5);
  }
  char title[32] = "";
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "title", title));
  CHECK(strncmp(title, "partitioned", 11) == 0);
  CHECK_OK(ncmpi_close(ncid));
}

static void test_create_write_reopen(void) {
  const char *path = mpi_test_path("part.nc");
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, MPI_INFO_NULL, &ncid));
  CHECK_ERR(ncmpi_def_dim(ncid, "/bad//path", 1, NULL), NC_EBADNAME);
  define_samples(ncid, 0);
  CHECK_OK(ncmpi_enddef(ncid));
  write_data(ncid);
  CHECK_OK(ncmpi_close(ncid));
  check_file(path, nprocs);
  /* a classic reader sees no CDF magic */
  if (rank == 0) {
    FILE *f = fopen(path, "rb");
    unsigned char magic[8] = {0};
    CHECK(f && fread(magic, 1, 8, f) == 8);
    if (f) fclose(f);
    CHECK(magic[0] == 0x89 && memcmp(magic + 1, "EXACDF\n", 7) == 0);
  }
  int format = -1;
  CHECK_OK(ncmpi_inq_file_format(path, &format));
  CHECK(format == EXA_FORMAT_PARTITIONED_V1);
}

/* Independent definitions (each rank its own block), selected by hints. */
static void test_independent_with_hints(void) {
  const char *path = mpi_test_path("part_indep.nc");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_format", "partitioned");
  MPI_Info_set(info, "exa_define_mode", "independent");
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  define_samples(ncid, 1);
  MPI_Offset none = -1;
  CHECK_OK(exa_inq_blocks(ncid, &none)); /* no index table before the first enddef */
  CHECK(none == 0);
  CHECK_ERR(exa_inq_block(ncid, 0, NULL, NULL, NULL, NULL, NULL, NULL), NC_EINVAL);
  CHECK_OK(ncmpi_enddef(ncid));
  /* Each block is written by a rank that defined it: /sample_r by rank r.
   * Rank r > 0 wrote exactly its block; rank 0 also the root block (every
   * rank defined time, t and title: the lowest writes), index and superblock. */
  MPI_Offset put = -1, nblocks = 0, size = -1, root = -1;
  CHECK_OK(ncmpi_inq_put_size(ncid, &put));
  CHECK_OK(exa_inq_blocks(ncid, &nblocks));
  CHECK(nblocks == nprocs + 1);
  CHECK_OK(exa_inq_block(ncid, 1 + rank, NULL, NULL, NULL, NULL, NULL, &size));
  CHECK_OK(exa_inq_block(ncid, 0, NULL, NULL, NULL, NULL, NULL, &root));
  if (rank > 0) CHECK(put == size);
  else CHECK(put > size + root);
  write_data(ncid);
  CHECK_OK(ncmpi_close(ncid));
  check_file(path, nprocs);
}

/* Records are committed by a superblock of the next generation in the
 * other slot; if that one is torn, the file opens in its previous state. */
static void test_torn_superblock_falls_back(void) {
  const char *path = mpi_test_path("part_torn.nc");
  int ncid, old = 0;
  CHECK_OK(ncmpi_set_default_format(EXA_FORMAT_PARTITIONED_V1, &old));
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_set_default_format(old, NULL));
  define_samples(ncid, 0);
  CHECK_OK(ncmpi_enddef(ncid)); /* generation 1, slot 0: no records */
  write_data(ncid);             /* records: generation 2, slot 1 */
  CHECK_OK(ncmpi_close(ncid));
  check_file(path, nprocs);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) { /* tear the newest superblock (slot 1, at 512) */
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
      fseek(f, 512 + 20, SEEK_SET);
      fputc(0x5A, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(path, 0); /* generation 1: the metadata, no records yet */
}

/* Opening reads the superblocks, the index table and the root block only;
 * a block is read the first time one of its objects is used, once. A
 * damaged block fails the objects in it, with NC_EFILEMETA, and nothing else. */
static void test_lazy_blocks(void) {
  const char *path = mpi_test_path("part.nc"); /* written by test_create_write_reopen */
  int ncid, nvars = -1;
  MPI_Offset calls0 = -1, calls = -1, nblocks = -1;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_inq_io_calls(ncid, &calls0));
  CHECK_OK(ncmpi_inq_nvars(ncid, &nvars));
  CHECK(nvars == nprocs + 1);
  CHECK_OK(exa_inq_blocks(ncid, &nblocks));
  CHECK(nblocks == nprocs + 1);
  char bpath[EXA_MAX_PATH + 1];
  MPI_Offset bvars = -1;
  CHECK_OK(exa_inq_block(ncid, nblocks - 1, bpath, NULL, &bvars, NULL, NULL, NULL));
  char want[64];
  snprintf(want, sizeof want, "/sample_%d", nprocs - 1);
  CHECK(strcmp(bpath, want) == 0 && bvars == 1);
  CHECK_OK(exa_inq_io_calls(ncid, &calls));
  CHECK(calls == calls0); /* counts come from the index table */
  int v = -1, v2 = -1;
  snprintf(want, sizeof want, "/sample_%d/x", rank);
  CHECK_OK(ncmpi_inq_varid(ncid, want, &v));
  CHECK_OK(exa_inq_io_calls(ncid, &calls));
  CHECK(calls == calls0 + 1); /* one block read, by this rank */
  CHECK_OK(ncmpi_inq_varid(ncid, want, &v2));
  int natts = -1;
  CHECK_OK(ncmpi_inq_varnatts(ncid, v, &natts));
  CHECK_OK(exa_inq_io_calls(ncid, &calls));
  CHECK(calls == calls0 + 1 && v2 == v && natts == 1); /* read once */
  CHECK_OK(ncmpi_close(ncid));

  /* A collective call that needs a block on every rank reads it once: the
   * block of /sample_0/x (id 1) by one rank, shared; its data by rank 0,
   * broadcast (hint exa_bcast_read=enable: auto costs no allreduce and
   * does not broadcast). Two reads in all, at any number of ranks. */
  MPI_Info bcast;
  MPI_Info_create(&bcast);
  MPI_Info_set(bcast, "exa_bcast_read", "enable");
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, bcast, &ncid));
  MPI_Info_free(&bcast);
  CHECK_OK(exa_inq_io_calls(ncid, &calls0));
  long long x0[2] = {-1, -1};
  CHECK_OK(ncmpi_get_var_longlong_all(ncid, 1, x0));
  CHECK(x0[0] == 0 && x0[1] == 1);
  CHECK_OK(exa_inq_io_calls(ncid, &calls));
  long long mine = (long long)(calls - calls0), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == 2);
  CHECK_OK(ncmpi_close(ncid));

  /* damage the last block (rank 0, after everyone is done with the file) */
  MPI_Offset off = 0;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_inq_block(ncid, nblocks - 1, NULL, NULL, NULL, NULL, &off, NULL));
  CHECK_OK(ncmpi_close(ncid));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
      fseek(f, (long)off + 40, SEEK_SET);
      fputc(0x5A, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  snprintf(want, sizeof want, "/sample_%d/x", nprocs - 1);
  CHECK_ERR(ncmpi_inq_varid(ncid, want, &v), NC_EFILEMETA);
  if (nprocs > 1) CHECK_OK(ncmpi_inq_varid(ncid, "/sample_0/x", &v));
  CHECK_OK(ncmpi_close(ncid));
}

/* One block defined on every rank, each rank adding its own variable to it:
 * within the block, every rank must place the objects alike (the merge's
 * file order, not each rank's own ids, which put its own variable first).
 * Each rank writes its variable independently (compact: the write goes to
 * the block's slot of that variable); a redef on one rank adds one more. */
static void test_block_shared_by_ranks(void) {
  const char *path = mpi_test_path("part_shared_block.nc");
  int ncid, d, v, w;
  char name[64];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_INDEP_DEFINE | EXA_FORMAT_PARTITIONED,
                        MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "/s/n", 4, &d));
  snprintf(name, sizeof name, "/s/v%d", rank);
  CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
  CHECK(v == 0); /* a rank's own ids */
  CHECK_OK(ncmpi_enddef(ncid));
  int vals[4];
  for (int i = 0; i < 4; i++) vals[i] = 100 * rank + i;
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  CHECK_OK(ncmpi_put_var_int(ncid, v, vals));
  CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_redef(ncid));
  if (rank == nprocs - 1) CHECK_OK(ncmpi_def_var(ncid, "/s/w", NC_INT, 1, &d, &w));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "/s/w", &w));
  int wvals[4] = {7000, 7001, 7002, 7003};
  CHECK_OK(ncmpi_put_var_int_all(ncid, w, wvals)); /* every rank the same values */
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int nv = -1;
  CHECK_OK(ncmpi_inq_nvars(ncid, &nv));
  CHECK(nv == nprocs + 1);
  for (int r = 0; r <= nprocs; r++) {
    int got[4] = {0};
    if (r < nprocs) snprintf(name, sizeof name, "/s/v%d", r);
    else snprintf(name, sizeof name, "/s/w");
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_var_int_all(ncid, v, got));
    for (int i = 0; i < 4; i++) CHECK(got[i] == (r < nprocs ? 100 * r : 7000) + i);
  }
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  test_create_write_reopen();
  test_lazy_blocks();
  test_independent_with_hints();
  test_torn_superblock_falls_back();
  test_block_shared_by_ranks();
  return mpi_test_finish();
}
