/*
 * What put_vard/get_vard cost on a record variable whose records a redef
 * left in sections (the file type flattened and mapped section by section)
 * against the same calls on a file whose redef copied the records into one
 * section (exa_redef_records=copy: the file type is the MPI-IO view as is).
 * NREC records of a (W ints, 1 KiB), then a redef adding a record variable.
 * File types: every record's row (NREC runs), every other int of every
 * record (NREC * W / 2 runs). Paired: each repetition runs the split file,
 * then the copied one; process CPU time (CLOCK_PROCESS_CPUTIME_ID) per call,
 * rank 0's. Build and run (docs/perf/vard_sections.md):
 *   mpicc -O2 bench/vard_sections_cost.c -Iinclude -Lbuild -lexacdf -Wl,-rpath,$PWD/build -o vard_cost
 *   mpiexec -n 1 ./vard_cost DIR
 */
#include <exacdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define W 256
#define NREC 2000
#define REPS 20

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void die(int err, const char *what) {
  if (err == NC_NOERR) return;
  fprintf(stderr, "%s: %s\n", what, ncmpi_strerror(err));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int make(const char *path, const char *records) {
  int ncid, d[2], a, c, rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "exa_redef_records", records);
  die(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | EXA_FORMAT_PARTITIONED, info, &ncid), "create");
  die(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]), "dim");
  die(ncmpi_def_dim(ncid, "w", W, &d[1]), "dim");
  die(ncmpi_def_var(ncid, "a", NC_INT, 2, d, &a), "var");
  die(ncmpi_enddef(ncid), "enddef");
  int *vals = malloc(sizeof(int) * W * NREC);
  for (int i = 0; i < W * NREC; i++) vals[i] = i;
  MPI_Offset start[2] = {0, 0}, count[2] = {rank == 0 ? NREC : 0, W};
  die(ncmpi_put_vara_int_all(ncid, a, start, count, vals), "put");
  free(vals);
  die(ncmpi_redef(ncid), "redef");
  die(ncmpi_def_var(ncid, "c", NC_INT, 2, d, &c), "var");
  die(ncmpi_enddef(ncid), "enddef");
  MPI_Info_free(&info);
  return ncid;
}

/* every record's row, or every other int of it */
static MPI_Datatype file_type(int ncid, int every_other) {
  MPI_Offset recsize;
  die(ncmpi_inq_recsize(ncid, &recsize), "recsize");
  MPI_Datatype row, all;
  if (every_other)
    MPI_Type_vector(W / 2, 1, 2, MPI_INT, &row);
  else
    MPI_Type_contiguous(W, MPI_INT, &row);
  MPI_Type_create_hvector(NREC, 1, (MPI_Aint)recsize, row, &all);
  MPI_Type_commit(&all);
  MPI_Type_free(&row);
  return all;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *dir = argc > 1 ? argv[1] : ".";
  char p_split[1024], p_copy[1024];
  snprintf(p_split, sizeof p_split, "%s/vard_cost_split.nc", dir);
  snprintf(p_copy, sizeof p_copy, "%s/vard_cost_copy.nc", dir);
  int files[2] = {make(p_split, "split"), make(p_copy, "copy")};
  int *buf = malloc(sizeof(int) * W * NREC);
  const char *kinds[2] = {"rows", "every other int"};
  for (int k = 0; k < 2; k++) {
    double get[2] = {0, 0}, put[2] = {0, 0};
    MPI_Datatype ft[2] = {file_type(files[0], k), file_type(files[1], k)};
    int n = k ? W / 2 * NREC : W * NREC;
    for (int r = 0; r < REPS; r++)
      for (int f = 0; f < 2; f++) {
        double t0 = cpu();
        die(ncmpi_get_vard_all(files[f], 0, ft[f], buf, n, MPI_INT), "get_vard");
        double t1 = cpu();
        die(ncmpi_put_vard_all(files[f], 0, ft[f], buf, n, MPI_INT), "put_vard");
        double t2 = cpu();
        get[f] += t1 - t0;
        put[f] += t2 - t1;
      }
    if (rank == 0)
      printf("%-16s get_vard %.3f ms (split) %.3f ms (copy) ratio %.2f | put_vard %.3f ms %.3f ms ratio %.2f\n",
             kinds[k], 1e3 * get[0] / REPS, 1e3 * get[1] / REPS, get[0] / get[1], 1e3 * put[0] / REPS,
             1e3 * put[1] / REPS, put[0] / put[1]);
    MPI_Type_free(&ft[0]);
    MPI_Type_free(&ft[1]);
  }
  free(buf);
  die(ncmpi_close(files[0]), "close");
  die(ncmpi_close(files[1]), "close");
  MPI_Finalize();
  return 0;
}
