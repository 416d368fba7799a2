/*
 * consumer.c -- a program that uses an installed exacdf the way a PnetCDF user would.
 * Built twice by run_consumer_test.sh: through find_package(exacdf) and through pkg-config.
 * Usage: consumer OUTPUT.nc   (run at 1 rank; exit status 0 on success)
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <exacdf.h> /* every header exacdf.h includes must be installed */
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                       \
  do {                                                                    \
    int err_ = (call);                                                    \
    if (err_ != NC_NOERR) {                                               \
      fprintf(stderr, "consumer: %s: %s\n", #call, ncmpi_strerror(err_)); \
      MPI_Finalize();                                                     \
      return 1;                                                           \
    }                                                                     \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* path = argc > 1 ? argv[1] : "consumer.nc";
  const char* version = ncmpi_inq_libvers();
  const char* msg = ncmpi_strerror(NC_EBADID);
  if (version == NULL || version[0] == '\0' || msg == NULL || msg[0] == '\0') {
    fprintf(stderr, "consumer: empty version or error text\n");
    MPI_Finalize();
    return 1;
  }

  int ncid, dimid;
  CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid));
  CHECK(ncmpi_def_dim(ncid, "x", 10, &dimid));
  CHECK(ncmpi_enddef(ncid));
  CHECK(ncmpi_close(ncid));

  /* A CDF-1 file starts with "CDF\001". */
  unsigned char magic[4] = {0};
  FILE* f = fopen(path, "rb");
  size_t got = f ? fread(magic, 1, 4, f) : 0;
  if (f) fclose(f);
  if (got != 4 || memcmp(magic, "CDF\001", 4) != 0) {
    fprintf(stderr, "consumer: %s is not a CDF-1 file\n", path);
    MPI_Finalize();
    return 1;
  }
  printf("consumer: exacdf %s wrote %s\n", version, path);
  MPI_Finalize();
  return 0;
}
