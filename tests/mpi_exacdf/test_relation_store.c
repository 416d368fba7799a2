/* Relations (include/exacdf_relation.h): exa_relation_write places each
 * rank's rows at its prefix-sum offset with an id column; exa_relation_read
 * returns every row once, on the rank its hash column owns, in CDF-5 and the
 * partitioned format, with and without the policy's gather (O1) and phases
 * (O7). */
#include <exacdf.h>
#include <stdint.h>

#include "mpi_test.h"

static unsigned long long mix(unsigned long long x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  return x;
}

/* This rank's tuples: skewed when asked (rank 0 holds many more). */
static MPI_Offset make_tuples(int skewed, unsigned long long **out) {
  MPI_Offset n = skewed ? (mpi_test_rank == 0 ? 500 : 2) : 3 * mpi_test_rank + 2;
  unsigned long long *t = malloc(sizeof *t * 2 * (size_t)n);
  for (MPI_Offset i = 0; i < n; i++) {
    t[2 * i] = (unsigned long long)mpi_test_rank * 100000 + (unsigned long long)i;
    t[2 * i + 1] = (unsigned long long)i * 7 + 1;
  }
  *out = t;
  return n;
}

/* Count and order-free digest over all ranks. */
static void digest(MPI_Offset n, const unsigned long long *t, unsigned long long *count, unsigned long long *sum) {
  unsigned long long local[2] = {(unsigned long long)n, 0};
  for (MPI_Offset i = 0; i < n; i++) local[1] += mix(t[2 * i] * 1000003ULL + t[2 * i + 1]);
  unsigned long long all[2];
  MPI_Allreduce(local, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  *count = all[0];
  *sum = all[1];
}

static void round_trip(const char *file, int partitioned, int skewed, const char *policy) {
  setenv("EXACDF_POLICY", policy, 1);
  MPI_Info info = MPI_INFO_NULL;
  if (partitioned) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_format", "partitioned");
  }
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(file), NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  unsigned long long *t;
  MPI_Offset n = make_tuples(skewed, &t);
  unsigned long long want_count, want_sum;
  digest(n, t, &want_count, &want_sum);
  CHECK_OK(exa_relation_write(ncid, "edge", 2, n, t));  /* from define mode */
  CHECK_ERR(exa_relation_write(ncid, "edge", 2, n, t), NC_ENAMEINUSE);
  CHECK_OK(exa_relation_write(ncid, "path", 2, n, t));  /* from data mode */
  CHECK_ERR(exa_relation_write(ncid, "bad", 0, n, t), NC_EINVAL);

  int arity = 0;
  MPI_Offset rows = 0;
  CHECK_OK(exa_relation_inq(ncid, "edge", &arity, &rows));
  CHECK(arity == 2);
  CHECK((unsigned long long)rows == want_count);
  CHECK_ERR(exa_relation_inq(ncid, "nothing", &arity, &rows), NC_ENOTVAR);

  /* The id column is the global row index; the values are each rank's rows in rank order. */
  unsigned long long *all = malloc(sizeof *all * 3 * (size_t)rows);
  int varid;
  CHECK_OK(ncmpi_inq_varid(ncid, "edge", &varid));
  CHECK_OK(ncmpi_get_var_ulonglong_all(ncid, varid, all));
  MPI_Offset first = 0;
  MPI_Exscan(&n, &first, 1, MPI_OFFSET, MPI_SUM, MPI_COMM_WORLD);
  if (mpi_test_rank == 0) first = 0;
  for (MPI_Offset r = 0; r < rows; r++) CHECK(all[3 * r + 2] == (unsigned long long)r);
  for (MPI_Offset i = 0; i < n; i++) {
    CHECK(all[3 * (first + i)] == t[2 * i]);
    CHECK(all[3 * (first + i) + 1] == t[2 * i + 1]);
  }
  char columns[64] = {0};
  CHECK_OK(ncmpi_get_att_text(ncid, varid, "columns", columns));
  CHECK(strcmp(columns, "c0,c1,id") == 0);
  free(all);

  /* Other ranks' rows are visible after a sync (MPI-IO consistency). */
  CHECK_OK(ncmpi_sync(ncid));
  for (int col = -1; col <= 1; col++) {
    MPI_Offset got = -1;
    unsigned long long *back = NULL;
    CHECK_OK(exa_relation_read(ncid, "path", col, &got, &back));
    unsigned long long c, s;
    digest(got, back, &c, &s);
    CHECK(c == want_count);
    CHECK(s == want_sum);
    if (s != want_sum && mpi_test_rank == 0) fprintf(stderr, "%s col %d: sum %llx want %llx\n", file, col, s, want_sum);
    if (col >= 0)
      for (MPI_Offset i = 0; i < got; i++) CHECK(exa_relation_owner(back[2 * i + col], mpi_test_nprocs) == mpi_test_rank);
    exa_relation_free(back);
  }
  MPI_Offset got;
  unsigned long long *back;
  CHECK_ERR(exa_relation_read(ncid, "path", 2, &got, &back), NC_EINVAL);
  CHECK_OK(ncmpi_close(ncid));
  free(t);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  round_trip("rel_cdf5.nc", 0, 0, "all");
  round_trip("rel_cdf5_none.nc", 0, 0, "none");
  round_trip("rel_cdf5_phases.nc", 0, 1, "O7");
  round_trip("rel_part.nc", 1, 1, "all");

  /* CDF-2 cannot hold NC_UINT64. */
  int ncid;
  unsigned long long one[2] = {1, 2};
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("rel_cdf2.nc"), NC_CLOBBER | NC_64BIT_OFFSET, MPI_INFO_NULL, &ncid));
  CHECK_ERR(exa_relation_write(ncid, "edge", 2, 1, one), NC_ESTRICTCDF2);
  CHECK_OK(ncmpi_close(ncid));

  /* A bad policy value is refused. */
  setenv("EXACDF_POLICY", "O9", 1);
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path("rel_bad_policy.nc"), NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_ERR(exa_relation_write(ncid, "edge", 2, 1, one), NC_EINVAL);
  CHECK_OK(ncmpi_close(ncid));
  unsetenv("EXACDF_POLICY");
  return mpi_test_finish();
}
