/* The C twin of bench/python_slabs.py --lib exacdf: each rank writes, then reads, its block of
 * z-planes of a [nz, ny, nx] float32 field in one collective call. Prints one JSON line.
 *   mpiexec -n N python_slabs_c NZ NY NX PATH */
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                         \
  do {                                                                      \
    int err_ = (call);                                                      \
    if (err_ != NC_NOERR) {                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncmpi_strerror(err_)); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                         \
    }                                                                       \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 5) {
    fprintf(stderr, "usage: python_slabs_c NZ NY NX PATH\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Offset shape[3] = {atoll(argv[1]), atoll(argv[2]), atoll(argv[3])};
  MPI_Offset lo = shape[0] * rank / size, hi = shape[0] * (rank + 1) / size;
  MPI_Offset start[3] = {lo, 0, 0}, count[3] = {hi - lo, shape[1], shape[2]};
  size_t n = (size_t)(count[0] * count[1] * count[2]);
  float *data = malloc(n * sizeof(float) + 1), *back = malloc(n * sizeof(float) + 1);
  size_t plane = (size_t)(shape[1] * shape[2]);
  for (size_t i = 0; i < n; i++) data[i] = (float)(lo + (MPI_Offset)(i / plane));
  int ncid, dims[3], varid;
  double t0 = 0, t1 = 0, t2 = 0;
  /* Twice in the process, the second timed (as python_slabs.py): the first pays the page
   * faults of the library's first large buffers. */
  for (int rep = 0; rep < 2; rep++) {
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  CHECK(ncmpi_create(MPI_COMM_WORLD, argv[4], NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "z", shape[0], &dims[0]));
  CHECK(ncmpi_def_dim(ncid, "y", shape[1], &dims[1]));
  CHECK(ncmpi_def_dim(ncid, "x", shape[2], &dims[2]));
  CHECK(ncmpi_def_var(ncid, "field", NC_FLOAT, 3, dims, &varid));
  CHECK(ncmpi_enddef(ncid));
  CHECK(ncmpi_put_vara_float_all(ncid, varid, start, count, data));
  CHECK(ncmpi_close(ncid));
  MPI_Barrier(MPI_COMM_WORLD);
  t1 = MPI_Wtime();
  /* A new array for every read, as a slice read from Python returns one: its first-touch
   * page faults are part of both reads. */
  free(back);
  back = malloc(n * sizeof(float) + 1);
  if (!back) MPI_Abort(MPI_COMM_WORLD, 2);
  CHECK(ncmpi_open(MPI_COMM_WORLD, argv[4], NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_inq_varid(ncid, "field", &varid));
  CHECK(ncmpi_get_vara_float_all(ncid, varid, start, count, back));
  CHECK(ncmpi_close(ncid));
  MPI_Barrier(MPI_COMM_WORLD);
  t2 = MPI_Wtime();
  }
  for (size_t i = 0; i < n; i++)
    if (back[i] != data[i]) {
      fprintf(stderr, "rank %d: wrong value at %zu\n", rank, i);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  double gib = (double)shape[0] * (double)shape[1] * (double)shape[2] * 4.0 / (1 << 30);
  if (rank == 0)
    printf("{\"lib\": \"c-exacdf\", \"ranks\": %d, \"shape\": [%lld, %lld, %lld], \"write_s\": %.4f, "
           "\"read_s\": %.4f, \"write_gib_s\": %.3f, \"read_gib_s\": %.3f}\n",
           size, (long long)shape[0], (long long)shape[1], (long long)shape[2], t1 - t0, t2 - t1,
           gib / (t1 - t0), gib / (t2 - t1));
  free(data);
  free(back);
  MPI_Finalize();
  return 0;
}
