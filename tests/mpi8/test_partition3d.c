/* The seed-003 pattern: a 3-D array tt(Z,Y,X) partitioned over the ranks
 * along Z, Y, X, ZY, ZX, YX and ZYX, written and read collectively, every
 * value verified, also through a different partition than the writer's. */
#include "mpi_test.h"

#define NZ 8
#define NY 12
#define NX 10

static float value_at(MPI_Offset z, MPI_Offset y, MPI_Offset x) {
  return (float)(z * 10000 + y * 100 + x);
}

/* Splits the ranks over the axes flagged in `axes` (bit 0 Z, 1 Y, 2 X). */
static void block_of(int axes, int rank, int nprocs, MPI_Offset start[3], MPI_Offset count[3]) {
  int dims[3] = {0, 0, 0}, n = 0, which[3];
  for (int a = 0; a < 3; a++)
    if (axes & (1 << a)) which[n++] = a;
  int grid[3] = {0, 0, 0};
  MPI_Dims_create(nprocs, n, grid);
  for (int a = 0; a < 3; a++) dims[a] = 1;
  for (int i = 0; i < n; i++) dims[which[i]] = grid[i];
  int coords[3] = {rank / (dims[1] * dims[2]), (rank / dims[2]) % dims[1], rank % dims[2]};
  const MPI_Offset len[3] = {NZ, NY, NX};
  for (int a = 0; a < 3; a++) {
    start[a] = len[a] * coords[a] / dims[a];
    count[a] = len[a] * (coords[a] + 1) / dims[a] - start[a];
  }
}

static void fill(const MPI_Offset s[3], const MPI_Offset c[3], float *buf) {
  MPI_Offset i = 0;
  for (MPI_Offset z = 0; z < c[0]; z++)
    for (MPI_Offset y = 0; y < c[1]; y++)
      for (MPI_Offset x = 0; x < c[2]; x++) buf[i++] = value_at(s[0] + z, s[1] + y, s[2] + x);
}

static void verify(const MPI_Offset s[3], const MPI_Offset c[3], const float *buf) {
  MPI_Offset i = 0;
  int bad = 0;
  for (MPI_Offset z = 0; z < c[0]; z++)
    for (MPI_Offset y = 0; y < c[1]; y++)
      for (MPI_Offset x = 0; x < c[2]; x++) bad += buf[i++] != value_at(s[0] + z, s[1] + y, s[2] + x);
  CHECK(bad == 0);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  static const int patterns[] = {1, 2, 4, 3, 5, 6, 7};  /* Z Y X ZY ZX YX ZYX */
  static const char *names[] = {"Z", "Y", "X", "ZY", "ZX", "YX", "ZYX"};
  float buf[NZ * NY * NX];
  for (int p = 0; p < 7; p++) {
    char file[64];
    snprintf(file, sizeof file, "tt_%s.nc", names[p]);
    int ncid, dims[3], var;
    CHECK_OK(ncmpi_create(MPI_COMM_WORLD, mpi_test_path(file), NC_CLOBBER, MPI_INFO_NULL, &ncid));
    CHECK_OK(ncmpi_def_dim(ncid, "Z", NZ, &dims[0]));
    CHECK_OK(ncmpi_def_dim(ncid, "Y", NY, &dims[1]));
    CHECK_OK(ncmpi_def_dim(ncid, "X", NX, &dims[2]));
    CHECK_OK(ncmpi_def_var(ncid, "tt", NC_FLOAT, 3, dims, &var));
    CHECK_OK(ncmpi_enddef(ncid));
    MPI_Offset s[3], c[3];
    block_of(patterns[p], mpi_test_rank, mpi_test_nprocs, s, c);
    fill(s, c, buf);
    CHECK_OK(ncmpi_put_vara_float_all(ncid, var, s, c, buf));
    memset(buf, 0, sizeof buf);
    CHECK_OK(ncmpi_get_vara_float_all(ncid, var, s, c, buf));
    verify(s, c, buf);
    /* Read through the next pattern's partition: data written by other ranks. */
    block_of(patterns[(p + 1) % 7], mpi_test_rank, mpi_test_nprocs, s, c);
    memset(buf, 0, sizeof buf);
    CHECK_OK(ncmpi_get_vara_float_all(ncid, var, s, c, buf));
    verify(s, c, buf);
    CHECK_OK(ncmpi_close(ncid));
  }
  return mpi_test_finish();
}
