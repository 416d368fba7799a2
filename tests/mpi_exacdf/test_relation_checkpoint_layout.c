/* The on-disk layout of checkpoints (docs/relations.md, "Checkpoints"):
 * - one netCDF file per checkpoint holding every relation written into it
 *   (full: variable <rel>, delta: <rel>.delta) and its manifest (global
 *   attribute exa_checkpoint_manifest), MANIFEST a symbolic link to it;
 * - a checkpoint directory of the layout before it (a directory of
 *   one-relation files per checkpoint, a text MANIFEST), made here exactly as
 *   that code wrote it, restores on any rank count, and new checkpoints
 *   committed on top of it keep the old files they still need and collect
 *   the rest. */
#include <dirent.h>
#include <exacdf.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_test.h"

static unsigned long long mix(unsigned long long x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  return x;
}

/* Tuples (base + rank*1000 + i, i) for i < 4 + rank. */
static MPI_Offset make(unsigned long long base, unsigned long long **out) {
  MPI_Offset n = 4 + mpi_test_rank;
  unsigned long long *t = malloc(sizeof *t * 2 * (size_t)n);
  for (MPI_Offset i = 0; i < n; i++) {
    t[2 * i] = base + (unsigned long long)mpi_test_rank * 1000 + (unsigned long long)i;
    t[2 * i + 1] = (unsigned long long)i;
  }
  *out = t;
  return n;
}

static unsigned long long total_rows(MPI_Offset n) {
  unsigned long long mine = (unsigned long long)n, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Count and order-free digest over all ranks. */
static void digest(MPI_Offset n, const unsigned long long *t, unsigned long long out[2]) {
  unsigned long long local[2] = {(unsigned long long)n, 0};
  for (MPI_Offset i = 0; i < n; i++) local[1] += mix(t[2 * i] * 1000003ULL + t[2 * i + 1]);
  MPI_Allreduce(local, out, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static void add(unsigned long long acc[2], const unsigned long long d[2]) {
  acc[0] += d[0];
  acc[1] += d[1];
}

/* CRC-32C (Castagnoli, reflected 0x82F63B78), as the manifest's last line. */
static uint32_t crc32c(const char *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    c ^= (unsigned char)p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
  }
  return ~c;
}

/* One relation file of the old layout: the relation alone, in a CDF-5 file. */
static void old_file(const char *dir, const char *sub, const char *file, const char *rel,
                     MPI_Offset n, const unsigned long long *t) {
  char path[1400];
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  if (mpi_test_rank == 0) mkdir(path, 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
  int ncid;
  CHECK_OK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  CHECK_OK(exa_relation_write(ncid, rel, 2, n, t));
  CHECK_OK(ncmpi_close(ncid));
}

/* Rank 0: whether DIR/name exists (lstat: a dangling link exists too). */
static int exists(const char *dir, const char *name) {
  char path[1400];
  struct stat sb;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return lstat(path, &sb) == 0;
}

/* Rank 0: the number of ck-* entries in dir, and the current file (MANIFEST's target). */
static int ck_entries(const char *dir, char *target, size_t size) {
  int n = 0;
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) n += strncmp(e->d_name, "ck-", 3) == 0;
  if (d) closedir(d);
  char path[1400];
  snprintf(path, sizeof path, "%s/MANIFEST", dir);
  ssize_t len = readlink(path, target, size - 1);
  target[len > 0 ? len : 0] = '\0';
  return n;
}

/* Restores dir and checks its iteration, relations and T's and G's rows. */
static void restore_and_check(const char *dir, long long want_it, const unsigned long long want_t[2],
                              const unsigned long long want_g[2]) {
  long long it = -1;
  int nrel = -1, ck = -1;
  CHECK_OK(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &it, &nrel, &ck));
  CHECK(it == want_it);
  CHECK(nrel == 2);
  MPI_Offset n = 0;
  unsigned long long *t = NULL, d[2];
  CHECK_OK(exa_checkpoint_read(ck, "T", 0, &n, &t));
  digest(n, t, d);
  CHECK(d[0] == want_t[0] && d[1] == want_t[1]);
  for (MPI_Offset i = 0; i < n; i++) CHECK(exa_relation_owner(t[2 * i], mpi_test_nprocs) == mpi_test_rank);
  exa_relation_free(t);
  CHECK_OK(exa_checkpoint_read(ck, "G", 1, &n, &t));
  digest(n, t, d);
  CHECK(d[0] == want_g[0] && d[1] == want_g[1]);
  exa_relation_free(t);
  CHECK_OK(exa_checkpoint_close(ck));
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char dir[1200];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("oldlayout"));
  if (mpi_test_rank == 0) {
    char cmd[2600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    CHECK(system(cmd) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  unsigned long long *t3, *g3, *t6, *t9, *t12, *t12d, *h;
  MPI_Offset nt3 = make(0, &t3), ng3 = make(5000000, &g3), nt6 = make(1000000, &t6);
  MPI_Offset nt9 = make(2000000, &t9), nt12 = make(7000000, &t12), nt12d = make(8000000, &t12d);
  MPI_Offset nh = make(9000000, &h);
  unsigned long long dt3[2], dg3[2], dt6[2], dt9[2], dt12[2];
  digest(nt3, t3, dt3);
  digest(ng3, g3, dg3);
  digest(nt6, t6, dt6);
  digest(nt9, t9, dt9);
  digest(nt12, t12, dt12);

  /* The old layout: checkpoint 3 (T and G full), checkpoint 6 (a delta of T),
   * and a directory a crash left half written. */
  old_file(dir, "ck-3.a1", "T_full.nc", "T", nt3, t3);
  old_file(dir, "ck-3.a1", "G_full.nc", "G", ng3, g3);
  old_file(dir, "ck-6.b2", "T_delta.nc", "T", nt6, t6);
  old_file(dir, "ck-9.c3", "T_full.nc", "T", nh, h);
  const unsigned long long rows_t3 = total_rows(nt3), rows_g3 = total_rows(ng3), rows_t6 = total_rows(nt6);
  if (mpi_test_rank == 0) {
    char text[2048], path[1400];
    int len = snprintf(text, sizeof text,
                       "exacdf-checkpoint 1\niteration 6\nnranks %d\n"
                       "relation T 2 full 3 %llu ck-3.a1/T_full.nc\n"
                       "relation T 2 delta 6 %llu ck-6.b2/T_delta.nc\n"
                       "relation G 2 full 3 %llu ck-3.a1/G_full.nc\n",
                       mpi_test_nprocs, rows_t3, rows_t6, rows_g3);
    len += snprintf(text + len, sizeof text - (size_t)len, "crc32c %08x\n", (unsigned)crc32c(text, (size_t)len));
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
      CHECK(fwrite(text, 1, (size_t)len, f) == (size_t)len);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* It restores as it is. */
  unsigned long long want_t[2] = {0, 0};
  add(want_t, dt3);
  add(want_t, dt6);
  restore_and_check(dir, 6, want_t, dg3);

  /* Checkpoint 9 on top of it (a delta of T): one file, MANIFEST a link to
   * it; the old files still needed stay, the half-written directory goes. */
  int ck = -1;
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, dir, 9, &ck));
  CHECK_OK(exa_checkpoint_write(ck, "T", EXA_CHECKPOINT_DELTA, 2, nt9, t9));
  CHECK_OK(exa_checkpoint_commit(ck));
  /* Superseded entries are removed on a thread of rank 0 after the commit;
   * the next checkpoint call (here the restore) waits for it. */
  add(want_t, dt9);
  restore_and_check(dir, 9, want_t, dg3);
  char target[256];
  if (mpi_test_rank == 0) {
    CHECK(ck_entries(dir, target, sizeof target) == 3);
    CHECK(strncmp(target, "ck-9.", 5) == 0 && strstr(target, ".nc") != NULL);
    CHECK(exists(dir, "ck-3.a1") && exists(dir, "ck-6.b2") && !exists(dir, "ck-9.c3"));
    CHECK(!exists(dir, "MANIFEST.tmp"));
  }

  /* Checkpoint 12: a full of T with its delta beside it, in one file as
   * variables T and T.delta; T's old entries (and their files) go, G's stay. */
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, dir, 12, &ck));
  CHECK_OK(exa_checkpoint_write(ck, "T", EXA_CHECKPOINT_FULL, 2, nt12, t12));
  CHECK_OK(exa_checkpoint_write(ck, "T", EXA_CHECKPOINT_DELTA, 2, nt12d, t12d));
  CHECK_OK(exa_checkpoint_commit(ck));
  restore_and_check(dir, 12, dt12, dg3);
  if (mpi_test_rank == 0) {
    CHECK(ck_entries(dir, target, sizeof target) == 2);
    CHECK(strncmp(target, "ck-12.", 6) == 0);
    CHECK(exists(dir, "ck-3.a1") && !exists(dir, "ck-6.b2"));
  }
  MPI_Bcast(target, sizeof target, MPI_CHAR, 0, MPI_COMM_WORLD);

  /* The checkpoint file, read as any netCDF file. */
  char path[1500];
  snprintf(path, sizeof path, "%s/%s", dir, target);
  int ncid, varid, v2;
  CHECK_OK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  CHECK_OK(ncmpi_inq_varid(ncid, "T", &varid));
  CHECK_OK(ncmpi_inq_varid(ncid, "T.delta", &v2));
  MPI_Offset len = 0, nrows = 0;
  CHECK_OK(exa_relation_inq(ncid, "T", NULL, &nrows));
  CHECK(nrows == (MPI_Offset)total_rows(nt12));
  CHECK_OK(ncmpi_inq_attlen(ncid, NC_GLOBAL, "exa_checkpoint_manifest", &len));
  char *text = calloc((size_t)len + 1, 1);
  CHECK_OK(ncmpi_get_att_text(ncid, NC_GLOBAL, "exa_checkpoint_manifest", text));
  CHECK(strncmp(text, "exacdf-checkpoint 1\niteration 12\n", 33) == 0);
  CHECK(strstr(text, "ck-3.a1/G_full.nc") != NULL);
  free(text);
  CHECK_OK(ncmpi_close(ncid));

  /* A manifest attribute with one byte changed, then a link to nothing: NC_ENOTNC. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (mpi_test_rank == 0) {
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    char buf[8192];
    size_t got = f ? fread(buf, 1, sizeof buf, f) : 0;
    char *at = NULL;
    for (size_t i = 0; i + 7 < got && !at; i++)
      if (memcmp(buf + i, "nranks ", 7) == 0) at = buf + i;
    CHECK(at != NULL);
    if (f && at) {
      fseek(f, (long)(at - buf), SEEK_SET);
      fputc('N', f);
    }
    if (f) fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  long long it;
  int nrel;
  CHECK_ERR(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &it, &nrel, &ck), NC_ENOTNC);
  if (mpi_test_rank == 0) CHECK(unlink(path) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_ERR(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &it, &nrel, &ck), NC_ENOTNC);

  free(t3);
  free(g3);
  free(t6);
  free(t9);
  free(t12);
  free(t12d);
  free(h);
  return mpi_test_finish();
}
