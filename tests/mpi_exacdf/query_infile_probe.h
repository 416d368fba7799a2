/* Probes shared by the tests of index blocks inside partitioned files
 * (test_query_infile*.c): the scan's comparison, where an index block and a
 * chunk piece lie in the file, and damaging one byte of it. Header-only, like
 * mpi_test.h; include after it. */
#ifndef EXACDF_TESTS_QUERY_INFILE_PROBE_H
#define EXACDF_TESTS_QUERY_INFILE_PROBE_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <exacdf.h>

static int test_op(int op, double v, double c) {
  switch (op) {
    case EXA_QUERY_EQ: return v == c;
    case EXA_QUERY_NE: return v != c;
    case EXA_QUERY_LT: return v < c;
    case EXA_QUERY_LE: return v <= c;
    case EXA_QUERY_GT: return v > c;
    default: return v >= c;
  }
}

/* The index block of varid: its entry in the index table. */
static int find_index_block(int ncid, int varid, MPI_Offset *offset, MPI_Offset *size) {
  MPI_Offset nblocks = 0;
  CHECK_OK(exa_inq_blocks(ncid, &nblocks));
  char want[64], path[EXA_MAX_PATH + 1];
  snprintf(want, sizeof want, "/\xff" "exaidx/%d", varid);
  for (MPI_Offset b = 0; b < nblocks; ++b) {
    MPI_Offset nd = -1, nv = -1, na = -1;
    CHECK_OK(exa_inq_block(ncid, b, path, &nd, &nv, &na, offset, size));
    if (strcmp(path, want) == 0) {
      CHECK(nd == 0 && nv == 0 && na == 0);
      return 1;
    }
  }
  return 0;
}

static int sidecar_exists(const char *path, int varid) {
  char side[1300];
  snprintf(side, sizeof side, "%s.exaidx.%d", path, varid);
  return access(side, F_OK) == 0;
}

static uint64_t le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

/* Rank 0 flips a byte of the file at `at`. */
static void flip_byte(const char *path, MPI_Offset at) {
  CHECK(at >= 4096);
  if (mpi_test_rank == 0 && at >= 4096) {
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    unsigned char b = 0;
    CHECK(pread(fd, &b, 1, at) == 1);
    b ^= 0x5a;
    CHECK(pwrite(fd, &b, 1, at) == 1);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Where chunk c's piece lies, from the index block's header (docs/format.md
 * "Query index sidecar": entries of 48 bytes after the name and edges). */
static MPI_Offset chunk_offset(const char *path, MPI_Offset hoff, MPI_Offset hsize, int c) {
  MPI_Offset at = -1;
  if (mpi_test_rank == 0 && hsize >= 92) {
    unsigned char *h = malloc((size_t)hsize);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && pread(fd, h, (size_t)hsize, hoff) == hsize);
    close(fd);
    uint64_t edges = le(h + 80, 4), name = le(h + 84, 4);
    at = (MPI_Offset)le(h + 88 + name + 8 * edges + 48 * (uint64_t)c, 8);
    free(h);
  }
  MPI_Bcast(&at, 1, MPI_OFFSET, 0, MPI_COMM_WORLD);
  return at;
}

#endif
