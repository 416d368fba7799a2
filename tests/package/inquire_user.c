/* Inquiries through a C connector (run_connector_test.sh, with
 * inquire_counter_connector.c): the program makes exactly 6 inquiries on its
 * file and checks every answer. argv[2]:
 *   "forward"  every inquiry answered (by the layer below);
 *   "refused"  the connector answers ncmpi_inq_varid itself with NC_ENOTSUPPORT;
 *   "dropped"  the connector drops ncmpi_inq_varid: NC_EINTERNAL. */
#include <stdio.h>
#include <string.h>

#include <pnetcdf.h>

static int failures = 0;
#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
      failures++;                                                                \
    }                                                                            \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: inquire_user FILE forward|refused|dropped\n");
    MPI_Finalize();
    return 2;
  }
  const char *mode = argv[2];
  int ncid, dimid, varid;
  CHECK(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER, MPI_INFO_NULL, &ncid) == NC_NOERR);
  CHECK(ncmpi_def_dim(ncid, "x", 12, &dimid) == NC_NOERR);
  CHECK(ncmpi_def_var(ncid, "v", NC_SHORT, 1, &dimid, &varid) == NC_NOERR);
  CHECK(ncmpi_put_att_text(ncid, varid, "units", 5, "metre") == NC_NOERR);
  CHECK(ncmpi_enddef(ncid) == NC_NOERR);

  /* What ncmpi_inq_varid returns through the connector when the layer below says `below`. */
  const int refused = strcmp(mode, "refused") == 0, dropped = strcmp(mode, "dropped") == 0;
#define INQ_VARID_CODE(below) (refused ? NC_ENOTSUPPORT : dropped ? NC_EINTERNAL : (below))
  /* 1 */
  int found = -1;
  CHECK(ncmpi_inq_varid(ncid, "v", &found) == INQ_VARID_CODE(NC_NOERR));
  if (!refused && !dropped) CHECK(found == varid);
  /* 2 */
  MPI_Offset len = 0;
  CHECK(ncmpi_inq_dimlen(ncid, dimid, &len) == NC_NOERR && len == 12);
  /* 3 */
  nc_type type = NC_NAT;
  CHECK(ncmpi_inq_vartype(ncid, varid, &type) == NC_NOERR && type == NC_SHORT);
  /* 4 */
  MPI_Offset attlen = 0;
  CHECK(ncmpi_inq_att(ncid, varid, "units", &type, &attlen) == NC_NOERR && type == NC_CHAR && attlen == 5);
  /* 5: an inquiry's own error comes back through the connector */
  CHECK(ncmpi_inq_varid(ncid, "no_such_variable", &found) == INQ_VARID_CODE(NC_ENOTVAR));
  /* 6 */
  int nvars = -1;
  CHECK(ncmpi_inq_nvars(ncid, &nvars) == NC_NOERR && nvars == 1);
  CHECK(ncmpi_close(ncid) == NC_NOERR);

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
