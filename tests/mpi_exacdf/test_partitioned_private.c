/*
 * The first enddef of a new partitioned file in independent define mode
 * when every block was defined by one rank only (layer/native_private_blocks.cpp):
 * no merge; each rank writes its own blocks, rank 0 the index table from
 * their summaries, and each rank then keeps only its own objects under the
 * ids its define calls returned, reading other ranks' objects from the file
 * on first use. Checked: ids, counts, names and dimensions of other ranks'
 * objects through local ids, which lookups read the file, global attributes
 * merged (and a conflict refused on every rank), compact and non-compact
 * data, fill values, a collective read of another rank's variable, reopen,
 * a later redef, and a crash test (the n-th write of one rank fails at every
 * step; the retried enddef then succeeds). At 1 rank the same checks run
 * through the ordinary enddef (one rank holds everything anyway). exacdf only.
 */
#include <exacdf.h>

#include "mpi_test.h"

static int rank, nprocs;

#define PER_RANK 3
#define MLEN 40 /* big: 40 doubles, 320 bytes > exa_compact_max (64): not compact */

/* Samples 0 .. nsamples()-1; sample k is defined by rank owner(k), so the
 * ranks' paths interleave; with several ranks the last one defines none. */
static int definers(void) { return nprocs > 1 ? nprocs - 1 : 1; }
static int nsamples(void) { return PER_RANK * definers(); }
static int owner(int k) { return k % definers(); }

static void name_of(char *out, size_t n, int k, const char *obj) { snprintf(out, n, "/p%02d/%s", k, obj); }

static double big_value(int k, int i) { return k + i / 100.0; }
static int written_big(int k) { return k % 3 != 2; } /* the others read as the fill value */

/* A new partitioned file (exa_compact_max 64, fill mode on), in independent
 * define mode unless `collective`. */
static int create_file(const char *path, int collective) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_compact_max", "64");
  int ncid = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED | (collective ? 0 : EXA_INDEP_DEFINE),
                        info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_set_fill(ncid, NC_FILL, NULL));
  return ncid;
}

/* Sample k: dimensions n (k + 2) and m (MLEN); small(n) int, compact; big(m)
 * double with attribute "sample" = k. The last rank that defines samples also
 * defines dimension "nsamples" in the root block. Every rank: global
 * attribute "title"; rank 0 also "first". Returns this rank's variable ids
 * (small, big per sample). */
static int define_mine(int ncid, int *ids) {
  int nids = 0;
  char name[64];
  for (int k = 0; k < nsamples(); k++) {
    if (owner(k) != rank || (nprocs > 1 && rank == nprocs - 1)) continue;
    int n, m, v;
    name_of(name, sizeof name, k, "n");
    CHECK_OK(ncmpi_def_dim(ncid, name, k + 2, &n));
    name_of(name, sizeof name, k, "m");
    CHECK_OK(ncmpi_def_dim(ncid, name, MLEN, &m));
    name_of(name, sizeof name, k, "small");
    CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &n, &ids[nids++]));
    name_of(name, sizeof name, k, "big");
    CHECK_OK(ncmpi_def_var(ncid, name, NC_DOUBLE, 1, &m, &v));
    ids[nids++] = v;
    CHECK_OK(ncmpi_put_att_int(ncid, v, "sample", NC_INT, 1, &k));
  }
  if (rank == definers() - 1) { /* the root block: this rank's (with 4 ranks, not rank 0's) */
    int n;
    CHECK_OK(ncmpi_def_dim(ncid, "nsamples", nsamples(), &n));
  }
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 7, "private"));
  if (rank == 0) CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "first", 1, "0"));
  return nids;
}

/* Own data: small independently, big by nonblocking puts waited for collectively. */
static void write_mine(int ncid) {
  char name[64];
  int req[3 * PER_RANK], nreq = 0;
  CHECK_OK(ncmpi_begin_indep_data(ncid));
  for (int k = 0; k < nsamples(); k++) {
    if (owner(k) != rank || (nprocs > 1 && rank == nprocs - 1)) continue;
    int v, small[64];
    for (int i = 0; i < k + 2; i++) small[i] = 1000 * k + i;
    name_of(name, sizeof name, k, "small");
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_put_var_int(ncid, v, small));
  }
  CHECK_OK(ncmpi_end_indep_data(ncid));
  static double big[3 * PER_RANK][MLEN];
  for (int k = 0; k < nsamples(); k++) {
    if (owner(k) != rank || (nprocs > 1 && rank == nprocs - 1) || !written_big(k)) continue;
    int v;
    for (int i = 0; i < MLEN; i++) big[nreq][i] = big_value(k, i);
    name_of(name, sizeof name, k, "big");
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_iput_var_double(ncid, v, big[nreq], &req[nreq]));
    nreq++;
  }
  int st[3 * PER_RANK];
  CHECK_OK(ncmpi_wait_all(ncid, nreq, req, st));
  for (int i = 0; i < nreq; i++) CHECK(st[i] == NC_NOERR);
}

/* Every object and value, as any rank sees them (any open of the file). */
static void check_contents(int ncid, int extra) {
  int nd = -1, nv = -1, ng = -1, unlim = -2;
  CHECK_OK(ncmpi_inq(ncid, &nd, &nv, &ng, &unlim));
  CHECK(nd == 2 * nsamples() + 1 && nv == 2 * nsamples() + extra && ng == 2 && unlim == -1);
  int root_dim = -1;
  MPI_Offset nsamp = -1;
  CHECK_OK(ncmpi_inq_dimid(ncid, "nsamples", &root_dim));
  CHECK_OK(ncmpi_inq_dimlen(ncid, root_dim, &nsamp));
  CHECK(nsamp == nsamples());
  char text[16] = "";
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "title", text));
  CHECK(strncmp(text, "private", 7) == 0);
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "first", text));
  CHECK(text[0] == '0');
  char name[64];
  for (int k = 0; k < nsamples(); k++) {
    int v, d, sample = -1, small[64] = {0};
    double big[MLEN];
    MPI_Offset len = -1;
    name_of(name, sizeof name, k, "small");
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_var_int_all(ncid, v, small));
    for (int i = 0; i < k + 2; i++) CHECK(small[i] == 1000 * k + i);
    name_of(name, sizeof name, k, "big");
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK_OK(ncmpi_get_att_int(ncid, v, "sample", &sample));
    CHECK(sample == k);
    CHECK_OK(ncmpi_inq_vardimid(ncid, v, &d));
    CHECK_OK(ncmpi_inq_dimlen(ncid, d, &len));
    CHECK(len == MLEN);
    CHECK_OK(ncmpi_get_var_double_all(ncid, v, big));
    for (int i = 0; i < MLEN; i++) CHECK(big[i] == (written_big(k) ? big_value(k, i) : NC_FILL_DOUBLE));
  }
}

static void test_create_write_reopen(void) {
  const char *path = mpi_test_path("part_private.nc");
  int ids[4 * PER_RANK];
  int ncid = create_file(path, 0);
  const int nids = define_mine(ncid, ids);
  CHECK_OK(ncmpi_enddef(ncid));

  /* This rank's ids are the ones its define calls returned: 0 .. nids-1. */
  char name[64], got[NC_MAX_NAME + 1];
  int j = 0;
  for (int k = 0; k < nsamples(); k++) {
    if (owner(k) != rank || (nprocs > 1 && rank == nprocs - 1)) continue;
    int v = -1;
    name_of(name, sizeof name, k, "small");
    CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
    CHECK(v == ids[j] && v == j);
    CHECK_OK(ncmpi_inq_varname(ncid, ids[j + 1], got));
    name_of(name, sizeof name, k, "big");
    CHECK(strcmp(got, name) == 0);
    j += 2;
  }
  exa_enddef_stats stats;
  CHECK_OK(exa_inq_enddef_stats(ncid, &stats));
  CHECK(stats.new_objects == 2 * nids + 1 + (rank == 0) + (rank == definers() - 1) && stats.merge_exchange == 0.0);
  MPI_Offset nblocks = -1;
  CHECK_OK(exa_inq_blocks(ncid, &nblocks));
  CHECK(nblocks == nsamples() + 1);
  MPI_Offset root_ndims = -1;
  CHECK_OK(exa_inq_block(ncid, 0, NULL, &root_ndims, NULL, NULL, NULL, NULL));
  CHECK(root_ndims == 1);

  /* Another rank's sample: read from the file on first use only, under the
   * next free local ids; its variable's dimension id is local too. */
  MPI_Offset c0 = -1, c1 = -1, c2 = -1;
  const int k = nsamples() - 1 - (rank % definers()); /* of rank owner(k) */
  CHECK_OK(exa_inq_io_calls(ncid, &c0));
  int v = -1, d = -1;
  name_of(name, sizeof name, k, "big");
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  CHECK_OK(exa_inq_io_calls(ncid, &c1));
  if (owner(k) == rank) {
    CHECK(c1 == c0 && v < nids); /* own: nothing read */
  } else {
    CHECK(c1 > c0 && v >= nids && v < 2 * nsamples());
  }
  CHECK_OK(ncmpi_inq_varname(ncid, v, got));
  CHECK(strcmp(got, name) == 0);
  CHECK_OK(ncmpi_inq_vardimid(ncid, v, &d));
  CHECK_OK(ncmpi_inq_dimname(ncid, d, got));
  name_of(name, sizeof name, k, "m");
  CHECK(strcmp(got, name) == 0);
  int v2 = -1;
  name_of(name, sizeof name, k, "small");
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v2)); /* same block: no read */
  CHECK_OK(exa_inq_io_calls(ncid, &c2));
  CHECK(c2 == c1 && v2 != v);

  write_mine(ncid);
  /* Every rank reads sample 0's big (rank 0's) collectively, each by its own id. */
  double big[MLEN];
  name_of(name, sizeof name, 0, "big");
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  CHECK_OK(ncmpi_get_var_double_all(ncid, v, big));
  for (int i = 0; i < MLEN; i++) CHECK(big[i] == big_value(0, i));
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_contents(ncid, 0);
  CHECK_OK(ncmpi_close(ncid));

  /* A later define phase: rank 0 adds a variable to sample 0's block. */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE | EXA_INDEP_DEFINE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_redef(ncid));
  name_of(name, sizeof name, 0, "n");
  CHECK_OK(ncmpi_inq_dimid(ncid, name, &d));
  if (rank == 0) {
    name_of(name, sizeof name, 0, "extra");
    CHECK_OK(ncmpi_def_var(ncid, name, NC_SHORT, 1, &d, &v));
  }
  CHECK_OK(ncmpi_enddef(ncid));
  name_of(name, sizeof name, 0, "extra");
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  short extra[2] = {7, 8};
  CHECK_OK(ncmpi_put_var_short_all(ncid, v, extra));
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_contents(ncid, 1);
  extra[0] = extra[1] = 0;
  CHECK_OK(ncmpi_inq_varid(ncid, name, &v));
  CHECK_OK(ncmpi_get_var_short_all(ncid, v, extra));
  CHECK(extra[0] == 7 && extra[1] == 8);
  CHECK_OK(ncmpi_close(ncid));
}

/* The same objects defined collectively (every rank everything, in the
 * order the ranks' own definitions merge in) go through the merge; the
 * file must be the same, byte for byte. */
static void test_same_bytes_as_the_merge(void) {
  const char *private_path = mpi_test_path("part_private_bytes.nc");
  const char *merged_path = mpi_test_path("part_merged_bytes.nc");
  int ncid, ids[4 * PER_RANK];
  for (int collective = 0; collective < 2; collective++) {
    ncid = create_file(collective ? merged_path : private_path, collective);
    if (collective) { /* each rank's samples in turn, as the merge orders them */
      const int me = rank;
      for (rank = 0; rank < nprocs; rank++) define_mine(ncid, ids);
      rank = me;
    } else {
      define_mine(ncid, ids);
    }
    CHECK_OK(ncmpi_enddef(ncid));
    CHECK_OK(ncmpi_close(ncid));
  }
  if (rank == 0) {
    FILE *a = fopen(private_path, "rb"), *b = fopen(merged_path, "rb");
    CHECK(a && b);
    long n = 0, differ = 0;
    for (int ca = 0, cb = 0; a && b && (ca != EOF || cb != EOF); n++) {
      ca = fgetc(a);
      cb = fgetc(b);
      differ += ca != cb;
    }
    CHECK(differ == 0 && n > 4096);
    if (a) fclose(a);
    if (b) fclose(b);
  }
}

/* A global attribute two ranks define differently fails the enddef on every
 * rank, which stays in define mode with its definitions; fixed, it succeeds. */
static void test_conflicting_global_attribute(void) {
  if (nprocs < 2) return;
  const char *path = mpi_test_path("part_private_conflict.nc");
  int ids[4 * PER_RANK];
  int ncid = create_file(path, 0);
  define_mine(ncid, ids);
  if (rank == 1) CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 7, "PRIVATE"));
  CHECK_ERR(ncmpi_enddef(ncid), NC_EMULTIDEFINE_ATTR_VAL);
  int ng = -1;
  CHECK_OK(ncmpi_inq_natts(ncid, &ng));
  CHECK(ng == 1 + (rank == 0)); /* this rank's own, as before */
  if (rank == 1) CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 7, "private"));
  CHECK_OK(ncmpi_enddef(ncid));
  write_mine(ncid);
  CHECK_OK(ncmpi_close(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_contents(ncid, 0);
  CHECK_OK(ncmpi_close(ncid));
}

/* The n-th write of one rank (`victim`) fails, for n = 1, 2, ... until the enddef
 * succeeds: every rank gets NC_EWRITE, the file does not open (no superblock
 * yet), and the enddef retried at once succeeds and gives the whole file.
 * A victim that writes nothing in the enddef (no blocks, not rank 0: ranks
 * write their blocks independently) succeeds at step 1. */
static void crash_at_every_step(int victim, int writes) {
  const char *path = mpi_test_path("part_private_crash.nc");
  int steps = 0;
  for (int n = 1; n <= 32; n++) {
    int ids[4 * PER_RANK], other;
    int ncid = create_file(path, 0);
    define_mine(ncid, ids);
    exa_debug_fail_write(rank == victim ? n : 0);
    int st = ncmpi_enddef(ncid);
    exa_debug_fail_write(0);
    if (st == NC_NOERR) {
      steps = n;
    } else {
      CHECK(st == NC_EWRITE);
      int opened = ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &other);
      CHECK(opened != NC_NOERR);
      if (opened == NC_NOERR) ncmpi_close(other);
      CHECK_OK(ncmpi_enddef(ncid));
    }
    write_mine(ncid);
    CHECK_OK(ncmpi_close(ncid));
    CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &other));
    check_contents(other, 0);
    CHECK_OK(ncmpi_close(other));
    if (steps) break;
  }
  CHECK(writes ? steps > 1 : steps == 1);
  if (rank == 0) printf("crash test (private blocks, victim rank %d): enddef succeeded at step %d\n", victim, steps);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  test_create_write_reopen();
  test_same_bytes_as_the_merge();
  test_conflicting_global_attribute();
  crash_at_every_step(0, 1);
  if (definers() > 1) crash_at_every_step(definers() - 1, 1); /* another rank with blocks (the root's) */
  if (nprocs > 1) crash_at_every_step(nprocs - 1, 0);          /* a rank without blocks */
  return mpi_test_finish();
}
