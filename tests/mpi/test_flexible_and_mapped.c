/* The flexible API with derived memory datatypes, varm with imap (a
 * transposed memory layout), and collective reads of one region that every
 * rank makes (read once and broadcast in exacdf). */
#include "mpi_test.h"

#define NY 4
#define NX 6

static void mapped(int ncid, int var) {
  /* Memory holds the transpose: element (y, x) at mem[x * NY + y]. */
  MPI_Offset start[2] = {0, 0}, count[2] = {NY, mpi_test_rank == 0 ? NX : 0}, imap[2] = {1, NY};
  int mem[NX * NY];
  for (int x = 0; x < NX; x++)
    for (int y = 0; y < NY; y++) mem[x * NY + y] = 10 * y + x;
  CHECK_OK(ncmpi_put_varm_int_all(ncid, var, start, count, NULL, imap, mem));
  count[1] = NX;
  int rows[NY * NX];
  CHECK_OK(ncmpi_get_vara_int_all(ncid, var, start, count, rows));
  for (int y = 0; y < NY; y++)
    for (int x = 0; x < NX; x++) CHECK(rows[y * NX + x] == 10 * y + x);
  int back[NX * NY];
  memset(back, 0, sizeof back);
  CHECK_OK(ncmpi_get_varm_int_all(ncid, var, start, count, NULL, imap, back));
  for (int i = 0; i < NX * NY; i++) CHECK(back[i] == mem[i]);
  /* varm with a stride: every other column, transposed. */
  MPI_Offset stride[2] = {1, 2}, scount[2] = {NY, NX / 2}, simap[2] = {1, NY};
  int half[NX / 2 * NY];
  CHECK_OK(ncmpi_get_varm_int_all(ncid, var, start, scount, stride, simap, half));
  for (int x = 0; x < NX / 2; x++)
    for (int y = 0; y < NY; y++) CHECK(half[x * NY + y] == 10 * y + 2 * x);
}

static void derived(int ncid, int var) {
  /* One row per rank (rows beyond NY: nothing), taken from every other int of the buffer. */
  MPI_Datatype every_other;
  MPI_Type_vector(NX, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int row = mpi_test_rank < NY ? mpi_test_rank : 0;
  MPI_Offset start[2] = {row, 0}, count[2] = {mpi_test_rank < NY ? 1 : 0, NX};
  int src[2 * NX];
  for (int i = 0; i < 2 * NX; i++) src[i] = i % 2 ? -99 : 1000 * row + i / 2;
  CHECK_OK(ncmpi_put_vara_all(ncid, var, start, count, src, count[0] ? 1 : 0, every_other));
  int dst[2 * NX];
  for (int i = 0; i < 2 * NX; i++) dst[i] = -1;
  count[0] = 1;
  CHECK_OK(ncmpi_get_vara_all(ncid, var, start, count, dst, 1, every_other));
  for (int i = 0; i < 2 * NX; i++) CHECK(dst[i] == (i % 2 ? -1 : 1000 * row + i / 2));
  /* As doubles, through a predefined type: converted on the way. */
  double d[NX];
  CHECK_OK(ncmpi_get_vara_all(ncid, var, start, count, d, NX, MPI_DOUBLE));
  for (int i = 0; i < NX; i++) CHECK(d[i] == 1000.0 * row + i);
  CHECK_ERR(ncmpi_get_vara_all(ncid, var, start, count, d, NX - 1, MPI_DOUBLE), NC_EIOMISMATCH);
  MPI_Type_free(&every_other);
}

static void shared_read(const char *path, const char *mode) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_bcast_read", mode);
  int ncid, var;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_inq_varid(ncid, "mapped", &var));
  MPI_Offset before = 0, after = 0;
  CHECK_OK(ncmpi_inq_get_size(ncid, &before));
  int all[NY * NX];
  CHECK_OK(ncmpi_get_var_int_all(ncid, var, all));
  for (int y = 0; y < NY; y++)
    for (int x = 0; x < NX; x++) CHECK(all[y * NX + x] == 10 * y + x);
  CHECK_OK(ncmpi_inq_get_size(ncid, &after));
  /* Read once and broadcast: only rank 0 touches the file. */
  if (MPI_TEST_IS_EXACDF && mpi_test_nprocs > 1 && strcmp(mode, "enable") == 0)
    CHECK(after - before == (mpi_test_rank == 0 ? (MPI_Offset)sizeof all : 0));
  if (MPI_TEST_IS_EXACDF && strcmp(mode, "disable") == 0)
    CHECK(after - before == (MPI_Offset)sizeof all);
  /* Different regions on different ranks: every rank reads its own. */
  MPI_Offset start[2] = {mpi_test_rank % NY, 0}, count[2] = {1, NX};
  int row[NX];
  CHECK_OK(ncmpi_get_vara_int_all(ncid, var, start, count, row));
  for (int x = 0; x < NX; x++) CHECK(row[x] == 10 * (mpi_test_rank % NY) + x);
  CHECK_OK(ncmpi_close(ncid));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char path[1200];
  snprintf(path, sizeof path, "%s", mpi_test_path("flex.nc"));
  int ncid, dy, dx, vm, vd, dims[2];
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_def_dim(ncid, "y", NY, &dy));
  CHECK_OK(ncmpi_def_dim(ncid, "x", NX, &dx));
  dims[0] = dy; dims[1] = dx;
  CHECK_OK(ncmpi_def_var(ncid, "mapped", NC_INT, 2, dims, &vm));
  CHECK_OK(ncmpi_def_var(ncid, "derived", NC_INT64, 2, dims, &vd));
  CHECK_OK(ncmpi_enddef(ncid));
  mapped(ncid, vm);
  derived(ncid, vd);
  CHECK_OK(ncmpi_close(ncid));
  shared_read(path, "enable");
  shared_read(path, "disable");
  shared_read(path, "auto");
  return mpi_test_finish();
}
