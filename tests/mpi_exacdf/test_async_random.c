/* The async connector against the native one: random sequences of overlapping
 * and disjoint blocking puts (collective and independent, several types) with
 * gets in between, written once through async{mem=...} (or the pool above the
 * cache connector) and once natively; the gets must see the same values and
 * the two files must be byte-identical.
 * Right after each put returns its buffer is overwritten (the connector must
 * have copied it), and the application runs its own MPI_Allreduce and
 * MPI_Barrier while the background thread writes. MPI_THREAD_MULTIPLE is
 * asked for, so the background thread really runs (the suite's stack.async
 * runs cover the library-call-progress fallback). */
#include <pnetcdf.h>
#include <exacdf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_test.h"

enum { kRows = 6, kCols = 24, kOps = 60, kSeeds = 12 };

static unsigned next_rand(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 8) & 0xffffff;
}

/* One random sequence on a new file; returns 0 on success. `values` (out)
 * collects what the gets read, for comparison between the two runs. */
static void run_sequence(const char* path, const char* connectors, unsigned seed, int* values,
                         int* nvalues) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (connectors) MPI_Info_set(info, "exa_connectors", connectors);
  int ncid, dims[2], vi, vf;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  MPI_Info_free(&info);
  CHECK_OK(ncmpi_def_dim(ncid, "row", kRows * mpi_test_nprocs, &dims[0]));
  CHECK_OK(ncmpi_def_dim(ncid, "col", kCols, &dims[1]));
  CHECK_OK(ncmpi_def_var(ncid, "i", NC_INT, 2, dims, &vi));
  CHECK_OK(ncmpi_def_var(ncid, "f", NC_FLOAT, 2, dims, &vf));
  CHECK_OK(ncmpi_enddef(ncid));
  unsigned s = seed;
  int buf[kCols * kRows];
  float fbuf[kCols * kRows];
  /* Every byte the gets can read is written first: without fill values, a get of bytes never
   * written (past the end of the file) returns undefined contents -- under Open MPI's
   * collective read, whatever its aggregation buffer held, in PnetCDF too -- which two runs
   * need not agree on. */
  memset(buf, 0, sizeof buf);
  memset(fbuf, 0, sizeof fbuf);
  MPI_Offset mine_start[2] = {(MPI_Offset)mpi_test_rank * kRows, 0}, mine_count[2] = {kRows, kCols};
  CHECK_OK(ncmpi_put_vara_int_all(ncid, vi, mine_start, mine_count, buf));
  CHECK_OK(ncmpi_put_vara_float_all(ncid, vf, mine_start, mine_count, fbuf));
  int indep = 0;
  *nvalues = 0;
  for (int op = 0; op < kOps; ++op) {
    /* Every rank draws the same kind (collective calls must match); the
     * region is per rank: its own rows, or rows of the neighbour (overlap
     * across ranks is avoided: which write lands last is not defined). */
    unsigned kind = next_rand(&s) % 10;
    unsigned mine = next_rand(&s) + (unsigned)mpi_test_rank * 7919u;
    MPI_Offset start[2], count[2];
    start[0] = (MPI_Offset)mpi_test_rank * kRows + mine % kRows;
    count[0] = 1 + (mine >> 4) % (MPI_Offset)(kRows - start[0] % kRows);
    start[1] = (mine >> 8) % kCols;
    count[1] = 1 + (mine >> 13) % (kCols - start[1]);
    int n = (int)(count[0] * count[1]);
    if (kind == 9) { /* switch between collective and independent data mode */
      CHECK_OK(indep ? ncmpi_end_indep_data(ncid) : ncmpi_begin_indep_data(ncid));
      indep = !indep;
    } else if (kind == 8) { /* get: sees every put before it */
      int got[kCols * kRows];
      CHECK_OK(indep ? ncmpi_get_vara_int(ncid, vi, start, count, got)
                     : ncmpi_get_vara_int_all(ncid, vi, start, count, got));
      memcpy(values + *nvalues, got, (size_t)n * sizeof(int));
      *nvalues += n;
    } else if (kind == 7) { /* the application's own collectives meanwhile */
      int one = 1, sum = 0;
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      CHECK(sum == mpi_test_nprocs);
      MPI_Barrier(MPI_COMM_WORLD);
    } else if (kind < 4) {
      for (int k = 0; k < n; ++k) buf[k] = (int)(seed * 1000003u + (unsigned)op * 1009u + (unsigned)k);
      CHECK_OK(indep ? ncmpi_put_vara_int(ncid, vi, start, count, buf)
                     : ncmpi_put_vara_int_all(ncid, vi, start, count, buf));
      memset(buf, 0xA5, sizeof buf); /* reused at once: the put must have copied it */
    } else {
      for (int k = 0; k < n; ++k) fbuf[k] = (float)(op * 100 + k) + 0.25f;
      CHECK_OK(indep ? ncmpi_put_vara_float(ncid, vf, start, count, fbuf)
                     : ncmpi_put_vara_float_all(ncid, vf, start, count, fbuf));
      memset(fbuf, 0x5A, sizeof fbuf);
    }
  }
  if (indep) CHECK_OK(ncmpi_end_indep_data(ncid));
  CHECK_OK(ncmpi_close(ncid));
}

static long file_bytes(const char* path, unsigned char** out) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *out = malloc((size_t)n + 1);
  if (fread(*out, 1, (size_t)n, f) != (size_t)n) n = -1;
  fclose(f);
  return n;
}

int main(int argc, char** argv) {
  setenv("MPI_TEST_THREAD_MULTIPLE", "1", 1); /* the background thread calls MPI */
  mpi_test_init(&argc, &argv);
  static int native_values[kOps * kRows * kCols], async_values[kOps * kRows * kCols];
  /* 512 bytes: back-pressure; threads=3: a bigger pool; the pool above the
   * cache connector (its mover drains beside the program's collective drains) */
  const char* settings[] = {"async", "async{mem=512}", "async{threads=3}", "async{threads=3},cache{size=64K}"};
  for (unsigned seed = 1; seed <= kSeeds; ++seed) {
    char native_path[1200], async_path[1200];
    snprintf(native_path, sizeof native_path, "%s", mpi_test_path("random_native.nc"));
    snprintf(async_path, sizeof async_path, "%s", mpi_test_path("random_async.nc"));
    int nn = 0, na = 0;
    run_sequence(native_path, NULL, seed, native_values, &nn);
    run_sequence(async_path, settings[seed % 4], seed, async_values, &na);
    CHECK(nn == na);
    CHECK(memcmp(native_values, async_values, (size_t)nn * sizeof(int)) == 0);
    if (mpi_test_rank == 0) {
      unsigned char *a = NULL, *b = NULL;
      long la = file_bytes(native_path, &a), lb = file_bytes(async_path, &b);
      CHECK(la > 0 && la == lb);
      if (la > 0 && la == lb) {
        int same = memcmp(a, b, (size_t)la) == 0;
        if (!same) fprintf(stderr, "seed %u: the files differ\n", seed);
        CHECK(same);
      }
      free(a);
      free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return mpi_test_finish();
}
