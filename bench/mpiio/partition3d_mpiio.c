/*
 * partition3d_mpiio.c -- the ceiling for bench/partition3d.c: the same bytes
 * (tt(Z,Y,X) floats in big-endian, the netCDF external order) in the same
 * pattern, written and read with raw MPI-IO: a subarray file view and one
 * MPI_File_write_all / MPI_File_read_all per rank.  No header (the netCDF
 * header is a few hundred bytes written by rank 0).
 *
 * Timed, max over ranks: write = open + set_view + byte swap into a staging
 * buffer + write_all + close; read = open + set_view + read_all + swap in place
 * + close.  Every value read is checked (not timed).
 */
#include "../bench_common.h"

#define MCHECK(call)                                                           \
  do {                                                                         \
    int err_ = (call);                                                         \
    if (err_ != MPI_SUCCESS) {                                                 \
      char msg_[MPI_MAX_ERROR_STRING];                                         \
      int len_;                                                                \
      MPI_Error_string(err_, msg_, &len_);                                     \
      BENCH_DIE("%s: %s", #call, msg_);                                        \
    }                                                                          \
  } while (0)

static MPI_Datatype filetype_of(const long long gdims[3], const p3d_piece *pc) {
  int g[3], l[3], s[3];
  for (int a = 0; a < 3; a++) {
    g[a] = (int)gdims[a];
    l[a] = (int)pc->count[a];
    s[a] = (int)pc->start[a];
  }
  MPI_Datatype t;
  MPI_Type_create_subarray(3, g, l, s, MPI_ORDER_C, MPI_FLOAT, &t);
  MPI_Type_commit(&t);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  p3d_args a = p3d_parse(argc, argv);
  if (rank == 0) {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    printf("# mpiio: %.60s\n", v);
  }
  const char *names[P3D_NPATTERNS];
  int npat = p3d_select(a.patterns, names);
  char path[600];
  snprintf(path, sizeof path, "%s/partition3d_mpiio.dat", a.dir);
  for (int rep = 0; rep < a.reps; rep++)
    for (int p = 0; p < npat; p++) {
      p3d_piece pc = p3d_make_piece(names[p], a.gdims, rank, nprocs);
      size_t n = (size_t)pc.nelems;
      float *wbuf = (float *)bench_malloc(n * sizeof(float));
      float *stage = (float *)bench_malloc(n * sizeof(float));
      float *rbuf = (float *)bench_malloc(n * sizeof(float));
      p3d_fill(&pc, wbuf);
      memset(rbuf, 0xff, n * sizeof(float));
      /* The staging buffer is touched before the clock starts: its first-touch page
       * faults are the benchmark's allocation, not a cost of the write. */
      memset(stage, 0, n * sizeof(float));
      MPI_Datatype ft = filetype_of(a.gdims, &pc);
      MPI_File fh;
      MPI_Status st;

      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MCHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
      MCHECK(MPI_File_set_view(fh, 0, MPI_FLOAT, ft, "native", MPI_INFO_NULL));
      bench_to_be(stage, wbuf, n, 4);
      MCHECK(MPI_File_write_all(fh, stage, (int)n, MPI_FLOAT, &st));
      MCHECK(MPI_File_close(&fh));
      double tw = bench_max(MPI_Wtime() - t0);

      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      MCHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
      MCHECK(MPI_File_set_view(fh, 0, MPI_FLOAT, ft, "native", MPI_INFO_NULL));
      MCHECK(MPI_File_read_all(fh, rbuf, (int)n, MPI_FLOAT, &st));
      bench_to_be(rbuf, rbuf, n, 4);
      MCHECK(MPI_File_close(&fh));
      double tr = bench_max(MPI_Wtime() - t0);

      long long bad = p3d_verify(&pc, rbuf);
      p3d_report("mpiio", names[p], nprocs, &pc, a.gdims, rep, tw, tr, bad);
      MPI_Type_free(&ft);
      free(wbuf);
      free(stage);
      free(rbuf);
      bench_remove(path, a.keep);
      if (bad) BENCH_DIE("mpiio pattern %s: %lld values read back wrong", names[p], bad);
    }
  MPI_Finalize();
  return 0;
}
