/* The flags of a partitioned file's current superblock, read from the raw
 * bytes (docs/format.md "Superblock": slots at offsets 0 and 512, each with
 * the magic at byte 0, the flags at byte 12 and the generation at byte 16,
 * big-endian). Shared by the tests that check which layout a commit chose
 * (record sections: flag 2; kept pages: flag 16). Header-only, like
 * mpi_test.h; include after it. */
#ifndef EXACDF_TESTS_SUPERBLOCK_PROBE_H
#define EXACDF_TESTS_SUPERBLOCK_PROBE_H

#include <stdio.h>

#include <mpi.h>

static inline unsigned long long superblock_probe_be(const unsigned char *p, int n) {
  unsigned long long v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | p[i];
  return v;
}

/* The flags of the slot with the larger generation among those that carry
 * the magic, read on rank 0 and broadcast to every rank of MPI_COMM_WORLD;
 * -1 if the file or both slots cannot be read. Collective. */
static inline long long superblock_current_flags(const char *path) {
  long long flags = -1;
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    unsigned char slots[1024];
    FILE *fp = fopen(path, "rb");
    if (fp && fread(slots, 1, sizeof slots, fp) == sizeof slots) {
      unsigned long long best = 0;
      for (int s = 0; s < 2; s++) {
        const unsigned char *slot = slots + 512 * s;
        const unsigned long long gen = superblock_probe_be(slot + 16, 8);
        if (slot[0] == 0x89 && (flags < 0 || gen > best)) {
          best = gen;
          flags = (long long)superblock_probe_be(slot + 12, 4);
        }
      }
    }
    if (fp) fclose(fp);
  }
  MPI_Bcast(&flags, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return flags;
}

/* Whether the current superblock has `flag`; an unreadable superblock fails
 * the test (CHECK) and counts as not set. Collective. */
static inline int superblock_flag_set(const char *path, unsigned flag) {
  const long long flags = superblock_current_flags(path);
  CHECK(flags >= 0);
  return flags >= 0 && (flags & (long long)flag) != 0;
}

#endif
