/*
 * Independent define mode (EXA_INDEP_DEFINE, exa_define_mode=independent):
 * disjoint, shared and mixed definitions, local and global ids, inquiry of
 * objects other ranks defined, data written to them, redef, every conflict
 * kind (the same NC_* code on every rank, the file left absent or as it
 * was), and safe mode. exacdf only: PnetCDF has no such mode.
 */
#include <exacdf.h>
#include <unistd.h>

#include "mpi_test.h"

#define CMODE (NC_CLOBBER | NC_64BIT_DATA | EXA_INDEP_DEFINE)

static int rank, nprocs;

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* Each rank r defines dimension d_r (length r + 1), variable v_r over it with
 * attribute owner = r, and global attribute note_r. */
static void define_own(int ncid, int *dimid, int *varid) {
  char name[32];
  snprintf(name, sizeof name, "d_%d", rank);
  CHECK_OK(ncmpi_def_dim(ncid, name, rank + 1, dimid));
  snprintf(name, sizeof name, "v_%d", rank);
  CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, dimid, varid));
  CHECK_OK(ncmpi_put_att_int(ncid, *varid, "owner", NC_INT, 1, &rank));
  snprintf(name, sizeof name, "note_%d", rank);
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, name, 5, "hello"));
}

/* Checks the objects of define_own as seen after enddef or reopen. */
static void check_all_defined(int ncid) {
  int ndims = -1, nvars = -1, ngatts = -1;
  CHECK_OK(ncmpi_inq(ncid, &ndims, &nvars, &ngatts, NULL));
  CHECK(ndims == nprocs && nvars == nprocs && ngatts == nprocs);
  for (int k = 0; k < nprocs; k++) {
    char name[32], got[NC_MAX_NAME + 1];
    int varid = -1, dimid = -1, owner = -1;
    MPI_Offset len = -1;
    snprintf(name, sizeof name, "v_%d", k);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &varid));
    CHECK_OK(ncmpi_inq_vardimid(ncid, varid, &dimid));
    CHECK_OK(ncmpi_inq_dim(ncid, dimid, got, &len));
    snprintf(name, sizeof name, "d_%d", k);
    CHECK(strcmp(got, name) == 0);
    CHECK(len == k + 1);
    CHECK_OK(ncmpi_get_att_int(ncid, varid, "owner", &owner));
    CHECK(owner == k);
    snprintf(name, sizeof name, "note_%d", k);
    CHECK_OK(ncmpi_inq_attlen(ncid, NC_GLOBAL, name, &len));
    CHECK(len == 5);
  }
}

/* Disjoint definitions; ids before and after enddef; data written by one
 * rank into a variable another rank defined; reopen in the normal mode. */
static void test_disjoint(void) {
  const char *path = mpi_test_path("disjoint.nc");
  int ncid, dimid, varid, n = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  define_own(ncid, &dimid, &varid);
  CHECK(dimid == 0 && varid == 0); /* local ids */
  CHECK_OK(ncmpi_inq_nvars(ncid, &n));
  CHECK(n == 1); /* before enddef a rank sees its own objects */
  CHECK_OK(ncmpi_enddef(ncid));
  /* ids from before enddef still name this rank's objects */
  char name[NC_MAX_NAME + 1], want[32];
  CHECK_OK(ncmpi_inq_varname(ncid, varid, name));
  snprintf(want, sizeof want, "v_%d", rank);
  CHECK(strcmp(name, want) == 0);
  CHECK_OK(ncmpi_inq_dimname(ncid, dimid, name));
  snprintf(want, sizeof want, "d_%d", rank);
  CHECK(strcmp(name, want) == 0);
  check_all_defined(ncid);

  /* rank r writes variable v_{r+1}, defined by the next rank */
  int next = (rank + 1) % nprocs, target = -1;
  snprintf(want, sizeof want, "v_%d", next);
  CHECK_OK(ncmpi_inq_varid(ncid, want, &target));
  int values[8];
  for (int i = 0; i < next + 1; i++) values[i] = 100 * next + i;
  MPI_Offset start = 0, count = next + 1;
  CHECK_OK(ncmpi_put_vara_int_all(ncid, target, &start, &count, values));
  CHECK_OK(ncmpi_close(ncid));

  /* reopen without the flag: global ids follow rank order */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  check_all_defined(ncid);
  for (int k = 0; k < nprocs; k++) {
    CHECK_OK(ncmpi_inq_varname(ncid, k, name));
    snprintf(want, sizeof want, "v_%d", k);
    CHECK(strcmp(name, want) == 0);
    CHECK_OK(ncmpi_inq_dimname(ncid, k, name));
    snprintf(want, sizeof want, "d_%d", k);
    CHECK(strcmp(name, want) == 0);
    int got[8] = {0};
    MPI_Offset s0 = 0, c0 = k + 1;
    CHECK_OK(ncmpi_get_vara_int_all(ncid, k, &s0, &c0, got));
    for (int i = 0; i < k + 1; i++) CHECK(got[i] == 100 * k + i);
  }
  CHECK_OK(ncmpi_close(ncid));
}

/* Every rank defines the same objects: one copy of each, the same ids. */
static void test_fully_shared(void) {
  const char *path = mpi_test_path("shared.nc");
  int ncid, dims[2], varid, n = -1;
  float fill = -1.5f;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 4, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "temp", NC_FLOAT, 2, dims, &varid));
  CHECK_OK(ncmpi_put_att_text(ncid, varid, "units", 1, "K"));
  CHECK_OK(ncmpi_def_var_fill(ncid, varid, 0, &fill));
  CHECK_OK(ncmpi_put_att_text(ncid, NC_GLOBAL, "title", 6, "shared"));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_inq_nvars(ncid, &n));
  CHECK(n == 1);
  CHECK_OK(ncmpi_inq_ndims(ncid, &n));
  CHECK(n == 2);
  CHECK_OK(ncmpi_inq_natts(ncid, &n));
  CHECK(n == 1);
  CHECK_OK(ncmpi_inq_unlimdim(ncid, &n));
  CHECK(n == dims[0]);
  /* each rank writes its own record */
  float row[4] = {(float)rank, (float)rank, (float)rank, (float)rank};
  MPI_Offset start[2] = {rank, 0}, count[2] = {1, 4};
  CHECK_OK(ncmpi_put_vara_float_all(ncid, varid, start, count, row));
  CHECK_OK(ncmpi_close(ncid));

  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  MPI_Offset len = -1;
  CHECK_OK(ncmpi_inq_dimlen(ncid, 0, &len));
  CHECK(len == nprocs);
  float all[16];
  MPI_Offset s[2] = {0, 0}, c[2] = {nprocs, 4};
  CHECK_OK(ncmpi_get_vara_float_all(ncid, 0, s, c, all));
  for (int r = 0; r < nprocs; r++) CHECK(all[r * 4 + 3] == (float)r);
  float got_fill = 0;
  CHECK_OK(ncmpi_get_att_float(ncid, 0, "_FillValue", &got_fill));
  CHECK(got_fill == fill);
  CHECK_OK(ncmpi_close(ncid));
}

/* Shared and own objects mixed; a shared variable over a shared dimension
 * and an own one; the order in the file; redef adding more independently. */
static void test_mixed_and_redef(void) {
  const char *path = mpi_test_path("mixed.nc");
  int ncid, x, own_dim, shared_var, own_var, dims[2];
  char name[32];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  snprintf(name, sizeof name, "own_%d", rank);
  CHECK_OK(ncmpi_def_dim(ncid, name, 3, &own_dim)); /* own first: local id 0 */
  CHECK_OK(ncmpi_def_dim(ncid, "x", 2, &x));
  dims[0] = x;
  CHECK_OK(ncmpi_def_var(ncid, "shared", NC_SHORT, 1, dims, &shared_var));
  snprintf(name, sizeof name, "p_%d", rank);
  dims[0] = x;
  dims[1] = own_dim;
  CHECK_OK(ncmpi_def_var(ncid, name, NC_DOUBLE, 2, dims, &own_var));
  CHECK_OK(ncmpi_enddef(ncid));
  int nd = -1, nv = -1;
  CHECK_OK(ncmpi_inq(ncid, &nd, &nv, NULL, NULL));
  CHECK(nd == nprocs + 1 && nv == nprocs + 1);
  double vals[6];
  for (int i = 0; i < 6; i++) vals[i] = rank * 10 + i;
  CHECK_OK(ncmpi_put_var_double_all(ncid, own_var, vals));

  /* redef: each rank adds one more variable; the data already there stays */
  CHECK_OK(ncmpi_redef(ncid));
  int late;
  snprintf(name, sizeof name, "late_%d", rank);
  CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &own_dim, &late));
  CHECK(late == nprocs + 1); /* next local id after every known variable */
  CHECK_OK(ncmpi_put_att_text(ncid, late, "comment", 4, "late"));
  CHECK_OK(ncmpi_enddef(ncid));
  int ints[3] = {rank, rank, rank};
  CHECK_OK(ncmpi_put_var_int_all(ncid, late, ints));
  double back[6] = {0};
  CHECK_OK(ncmpi_get_var_double_all(ncid, own_var, back));
  for (int i = 0; i < 6; i++) CHECK(back[i] == rank * 10 + i);
  CHECK_OK(ncmpi_close(ncid));

  /* file order: rank 0's objects first (own_0, x; shared, p_0), then rank 1's ... */
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  char got[NC_MAX_NAME + 1];
  CHECK_OK(ncmpi_inq_dimname(ncid, 0, got));
  CHECK(strcmp(got, "own_0") == 0);
  CHECK_OK(ncmpi_inq_dimname(ncid, 1, got));
  CHECK(strcmp(got, "x") == 0);
  CHECK_OK(ncmpi_inq_varname(ncid, 0, got));
  CHECK(strcmp(got, "shared") == 0);
  CHECK_OK(ncmpi_inq_varname(ncid, 1, got));
  CHECK(strcmp(got, "p_0") == 0);
  if (nprocs > 1) {
    CHECK_OK(ncmpi_inq_dimname(ncid, 2, got));
    CHECK(strcmp(got, "own_1") == 0);
    CHECK_OK(ncmpi_inq_varname(ncid, 2, got));
    CHECK(strcmp(got, "p_1") == 0);
  }
  CHECK_OK(ncmpi_inq_varname(ncid, nprocs + 1, got));
  CHECK(strcmp(got, "late_0") == 0);
  for (int k = 0; k < nprocs; k++) {
    int varid = -1, ints_back[3] = {0};
    double d[6] = {0};
    snprintf(name, sizeof name, "late_%d", k);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &varid));
    CHECK_OK(ncmpi_get_var_int_all(ncid, varid, ints_back));
    CHECK(ints_back[0] == k && ints_back[2] == k);
    snprintf(name, sizeof name, "p_%d", k);
    CHECK_OK(ncmpi_inq_varid(ncid, name, &varid));
    CHECK_OK(ncmpi_get_var_double_all(ncid, varid, d));
    CHECK(d[0] == k * 10 && d[5] == k * 10 + 5);
  }
  CHECK_OK(ncmpi_close(ncid));
}

/* A conflict of the given kind between rank 0 and the last rank: enddef
 * returns `expected` on every rank and the rank stays in define mode; after
 * the last rank renames its conflicting object, enddef succeeds. */
enum conflict_kind {
  DIM_SIZE, VAR_TYPE, VAR_NDIMS, VAR_DIMS, VAR_ATT_VALUE, VAR_ATT_COUNT, VAR_FILL,
  GATT_VALUE, GATT_TYPE, GATT_LEN, TWO_UNLIMITED, NKINDS
};

static void make_conflict(int ncid, enum conflict_kind kind, int odd) {
  int d[2], v;
  int n = odd ? 2 : 1;
  switch (kind) {
    case DIM_SIZE:
      CHECK_OK(ncmpi_def_dim(ncid, "c", 5 + odd, &d[0]));
      break;
    case VAR_TYPE:
      CHECK_OK(ncmpi_def_dim(ncid, "a", 5, &d[0]));
      CHECK_OK(ncmpi_def_var(ncid, "c", odd ? NC_DOUBLE : NC_FLOAT, 1, d, &v));
      break;
    case VAR_NDIMS:
      CHECK_OK(ncmpi_def_dim(ncid, "a", 5, &d[0]));
      CHECK_OK(ncmpi_def_dim(ncid, "b", 5, &d[1]));
      CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, n, d, &v));
      break;
    case VAR_DIMS:
      CHECK_OK(ncmpi_def_dim(ncid, "a", 5, &d[0]));
      CHECK_OK(ncmpi_def_dim(ncid, "b", 5, &d[1]));
      CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 1, &d[odd], &v));
      break;
    case VAR_ATT_VALUE:
      CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 0, NULL, &v));
      CHECK_OK(ncmpi_put_att_int(ncid, v, "k", NC_INT, 1, &n));
      break;
    case VAR_ATT_COUNT:
      CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 0, NULL, &v));
      if (odd) CHECK_OK(ncmpi_put_att_int(ncid, v, "k", NC_INT, 1, &n));
      break;
    case VAR_FILL:
      CHECK_OK(ncmpi_def_var(ncid, "c", NC_INT, 0, NULL, &v));
      CHECK_OK(ncmpi_def_var_fill(ncid, v, odd, NULL));
      break;
    case GATT_VALUE:
      CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "c", NC_INT, 1, &n));
      break;
    case GATT_TYPE:
      CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "c", odd ? NC_SHORT : NC_INT, 1, &n));
      break;
    case GATT_LEN: {
      int two[2] = {1, 1};
      CHECK_OK(ncmpi_put_att_int(ncid, NC_GLOBAL, "c", NC_INT, n, two));
      break;
    }
    case TWO_UNLIMITED:
      CHECK_OK(ncmpi_def_dim(ncid, odd ? "c" : "t", NC_UNLIMITED, &d[0]));
      break;
    default:
      break;
  }
}

static const int expected_code[NKINDS] = {
    NC_EMULTIDEFINE_DIM_SIZE,  NC_EMULTIDEFINE_VAR_TYPE,      NC_EMULTIDEFINE_VAR_NDIMS,
    NC_EMULTIDEFINE_VAR_DIMIDS, NC_EMULTIDEFINE_ATTR_VAL,     NC_EMULTIDEFINE_ATTR_NUM,
    NC_EMULTIDEFINE_VAR_FILL_MODE, NC_EMULTIDEFINE_ATTR_VAL,  NC_EMULTIDEFINE_ATTR_TYPE,
    NC_EMULTIDEFINE_ATTR_LEN, NC_EUNLIMIT};

/* The conflicting object of the last rank, renamed or removed so the merge succeeds. */
static void resolve_conflict(int ncid, enum conflict_kind kind) {
  int id = -1;
  switch (kind) {
    case DIM_SIZE:
    case TWO_UNLIMITED:
      CHECK_OK(ncmpi_inq_dimid(ncid, "c", &id));
      if (kind == TWO_UNLIMITED) {
        /* one unlimited dimension only: this rank uses the other name */
        CHECK_OK(ncmpi_rename_dim(ncid, id, "t"));
      } else {
        CHECK_OK(ncmpi_rename_dim(ncid, id, "c_other"));
      }
      break;
    case GATT_VALUE:
    case GATT_TYPE:
    case GATT_LEN:
      CHECK_OK(ncmpi_rename_att(ncid, NC_GLOBAL, "c", "c_other"));
      break;
    default:
      CHECK_OK(ncmpi_inq_varid(ncid, "c", &id));
      CHECK_OK(ncmpi_rename_var(ncid, id, "c_other"));
      break;
  }
}

static void test_conflicts(void) {
  if (nprocs < 2) return; /* a conflict needs two ranks */
  int odd = rank == nprocs - 1;
  for (int kind = 0; kind < NKINDS; kind++) {
    char file[64];
    snprintf(file, sizeof file, "conflict_%d.nc", kind);
    const char *path = mpi_test_path(file);
    int ncid, n = -1;
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
    make_conflict(ncid, (enum conflict_kind)kind, odd);
    CHECK_ERR(ncmpi_enddef(ncid), expected_code[kind]);
    /* still in define mode, with only this rank's definitions */
    CHECK_ERR(ncmpi_redef(ncid), NC_EINDEFINE);
    CHECK_OK(ncmpi_inq_nvars(ncid, &n));
    CHECK(n <= 1);
    if (kind == 0) {
      /* the first enddef of a new file failed: close removes the file */
      CHECK_ERR(ncmpi_close(ncid), expected_code[kind]);
      MPI_Barrier(MPI_COMM_WORLD);
      CHECK(!file_exists(path));
      continue;
    }
    if (odd) resolve_conflict(ncid, (enum conflict_kind)kind);
    CHECK_OK(ncmpi_enddef(ncid));
    CHECK_OK(ncmpi_close(ncid));
  }
}

/* A conflict in a redef: the file on disk keeps its previous header. */
static void test_conflict_in_redef_keeps_file(void) {
  if (nprocs < 2) return;
  const char *path = mpi_test_path("redef_conflict.nc");
  int ncid, d, v, value = 7;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 1, &d));
  CHECK_OK(ncmpi_def_var(ncid, "kept", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_put_var_int_all(ncid, v, &value));
  CHECK_OK(ncmpi_redef(ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "y", rank == 0 ? 2 : 3, &d));
  CHECK_ERR(ncmpi_enddef(ncid), NC_EMULTIDEFINE_DIM_SIZE);
  /* abort: the define phase is abandoned, the file keeps its first state */
  CHECK_OK(ncmpi_abort(ncid));
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  int nd = -1, nv = -1, got = 0;
  CHECK_OK(ncmpi_inq(ncid, &nd, &nv, NULL, NULL));
  CHECK(nd == 1 && nv == 1);
  CHECK_OK(ncmpi_get_var_int_all(ncid, 0, &got));
  CHECK(got == 7);
  CHECK_OK(ncmpi_close(ncid));
}

/* One rank fails inside enddef (rank 0's header write, injected): every rank
 * returns NC_EWRITE, the file on disk keeps its previous state, and the
 * ranks keep their definitions, so a second enddef succeeds. */
static void test_rank_fails_inside_enddef(void) {
  const char *path = mpi_test_path("fail_inside.nc");
  int ncid, d, v, value = 11, n = -1;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 1, &d));
  CHECK_OK(ncmpi_def_var(ncid, "kept", NC_INT, 1, &d, &v));
  /* room in the header, so the redef below moves no data */
  CHECK_OK(ncmpi__enddef(ncid, 8192, 4, 0, 4));
  CHECK_OK(ncmpi_put_var_int_all(ncid, v, &value));
  CHECK_OK(ncmpi_redef(ncid));
  char name[32];
  snprintf(name, sizeof name, "new_%d", rank);
  CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 1, &d, &v));
  if (rank == 0) exa_debug_fail_write(1);
  CHECK_ERR(ncmpi_enddef(ncid), NC_EWRITE);
  exa_debug_fail_write(0);
  int other;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &other));
  CHECK_OK(ncmpi_inq_nvars(other, &n));
  CHECK(n == 1); /* the previous header */
  int got = 0;
  CHECK_OK(ncmpi_get_var_int_all(other, 0, &got));
  CHECK(got == 11);
  CHECK_OK(ncmpi_close(other));
  CHECK_OK(ncmpi_inq_nvars(ncid, &n));
  CHECK(n == 2); /* still in define mode: kept + this rank's own */
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_inq_nvars(ncid, &n));
  CHECK(n == 1 + nprocs);
  CHECK_OK(ncmpi_close(ncid));

  /* the first enddef of a new file fails: close removes the file */
  path = mpi_test_path("fail_first.nc");
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_var(ncid, name, NC_INT, 0, NULL, &v));
  if (rank == 0) exa_debug_fail_write(1);
  CHECK_ERR(ncmpi_close(ncid), NC_EWRITE);
  exa_debug_fail_write(0);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(!file_exists(path));
}

/* Changes to objects of an earlier define phase must be the same on every rank. */
static void test_old_objects_changed_differently(void) {
  if (nprocs < 2) return;
  const char *path = mpi_test_path("old_changed.nc");
  int ncid, d, v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "x", 1, &d));
  CHECK_OK(ncmpi_def_var(ncid, "v", NC_INT, 1, &d, &v));
  CHECK_OK(ncmpi_enddef(ncid));
  CHECK_OK(ncmpi_redef(ncid));
  if (rank == 0) CHECK_OK(ncmpi_put_att_text(ncid, v, "only_rank0", 1, "y"));
  CHECK_ERR(ncmpi_enddef(ncid), NC_EMULTIDEFINE);
  if (rank != 0) CHECK_OK(ncmpi_put_att_text(ncid, v, "only_rank0", 1, "y"));
  CHECK_OK(ncmpi_enddef(ncid)); /* now alike everywhere */
  MPI_Offset len = 0;
  CHECK_OK(ncmpi_inq_attlen(ncid, v, "only_rank0", &len));
  CHECK(len == 1);
  CHECK_OK(ncmpi_close(ncid));
}

/* A dimension id another rank got is not valid here before enddef. */
static void test_foreign_dimid_before_enddef(void) {
  if (nprocs < 2) return;
  const char *path = mpi_test_path("baddim.nc");
  int ncid, d = 0, v;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, CMODE, MPI_INFO_NULL, &ncid));
  if (rank == 0) CHECK_OK(ncmpi_def_dim(ncid, "only0", 4, &d));
  if (rank != 0) CHECK_ERR(ncmpi_def_var(ncid, "v", NC_INT, 1, &d, &v), NC_EBADDIM);
  CHECK_OK(ncmpi_enddef(ncid));
  int found = -1;
  CHECK_OK(ncmpi_inq_dimid(ncid, "only0", &found)); /* after enddef every rank has it */
  CHECK_ERR(ncmpi_inq_varid(ncid, "v", &v), NC_ENOTVAR);
  CHECK_OK(ncmpi_close(ncid));
}

/* The hint selects the mode too, reported by ncmpi_inq_file_info; safe mode
 * does not compare the local define calls. */
static void test_hint_and_safe_mode(void) {
  const char *path = mpi_test_path("hint.nc");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_define_mode", "independent");
  setenv("PNETCDF_SAFE_MODE", "1", 1);
  int ncid, dimid, varid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, info, &ncid));
  MPI_Info_free(&info);
  define_own(ncid, &dimid, &varid);
  CHECK_OK(ncmpi_enddef(ncid));
  check_all_defined(ncid);
  MPI_Info used;
  CHECK_OK(ncmpi_inq_file_info(ncid, &used));
  char value[64] = "";
  int flag = 0;
  MPI_Info_get(used, "exa_define_mode", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, "independent") == 0);
  MPI_Info_free(&used);
  CHECK_OK(ncmpi_close(ncid));
  unsetenv("PNETCDF_SAFE_MODE");
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  rank = mpi_test_rank;
  nprocs = mpi_test_nprocs;
  test_disjoint();
  test_fully_shared();
  test_mixed_and_redef();
  test_conflicts();
  test_conflict_in_redef_keeps_file();
  test_rank_fails_inside_enddef();
  test_old_objects_changed_differently();
  test_foreign_dimid_before_enddef();
  test_hint_and_safe_mode();
  return mpi_test_finish();
}
