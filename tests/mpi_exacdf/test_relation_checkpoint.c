/* Checkpoints of relations: a committed checkpoint restores the latest full
 * snapshot plus later deltas on any rank count; an aborted or uncommitted one
 * leaves the previous one current; a damaged manifest is NC_ENOTNC. */
#include <exacdf.h>
#include <stdint.h>

#include "mpi_test.h"

static unsigned long long mix(unsigned long long x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  return x;
}

/* Tuples (base + rank*1000 + i, i) for i < n, n depending on the rank. */
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

static void digest(MPI_Offset n, const unsigned long long *t, unsigned long long out[2]) {
  unsigned long long local[2] = {(unsigned long long)n, 0};
  for (MPI_Offset i = 0; i < n; i++) local[1] += mix(t[2 * i] * 1000003ULL + t[2 * i + 1]);
  MPI_Allreduce(local, out, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}

/* Every policy path (O1 gather, O2 two-phase create, O4 record dimension,
 * O7 phases on skewed data, library defaults) restores what it wrote. */
static void policies(void) {
  const char *policy[] = {"none", "all", "O2", "O2,O7", "O7", "O1,O4", "O2,O3,O5,O6"};
  MPI_Offset n = mpi_test_rank == 0 ? 300 : 1; /* max/min 300: 8 phases where O7 is on */
  unsigned long long *t = malloc(sizeof *t * 2 * (size_t)n), want[2], got[2];
  for (MPI_Offset i = 0; i < n; i++) {
    t[2 * i] = (unsigned long long)mpi_test_rank * 7919 + (unsigned long long)i;
    t[2 * i + 1] = (unsigned long long)i * 3;
  }
  digest(n, t, want);
  for (size_t k = 0; k < sizeof policy / sizeof *policy; k++) {
    char dir[1200];
    snprintf(dir, sizeof dir, "%s_%zu", mpi_test_path("policy"), k);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "exa_policy", policy[k]);
    int ck;
    CHECK_OK(exa_checkpoint_begin_info(MPI_COMM_WORLD, dir, 1, info, &ck));
    CHECK_OK(exa_checkpoint_write(ck, "R", EXA_CHECKPOINT_FULL, 2, n, t));
    CHECK_OK(exa_checkpoint_commit(ck));
    long long it;
    int nrel;
    CHECK_OK(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &it, &nrel, &ck));
    MPI_Offset m = 0;
    unsigned long long *back = NULL;
    CHECK_OK(exa_checkpoint_read(ck, "R", 0, &m, &back));
    digest(m, back, got);
    CHECK(got[0] == want[0] && got[1] == want[1]);
    if (got[1] != want[1] && mpi_test_rank == 0) fprintf(stderr, "policy %s: wrong rows\n", policy[k]);
    exa_relation_free(back);
    CHECK_OK(exa_checkpoint_close(ck));
    MPI_Info_set(info, "exa_policy", "O9");
    CHECK_ERR(exa_checkpoint_begin_info(MPI_COMM_WORLD, dir, 2, info, &ck), NC_EINVAL);
    MPI_Info_free(&info);
  }
  free(t);
}

int main(int argc, char **argv) {
  mpi_test_init(&argc, &argv);
  char dir[1200];
  snprintf(dir, sizeof dir, "%s", mpi_test_path("ckdir"));
  if (mpi_test_rank == 0) {
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  policies();

  long long iteration = -1;
  int nrel = -1, ck = -1;
  CHECK_ERR(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &iteration, &nrel, &ck), NC_ENOENT);

  unsigned long long *a, *b, *c, *g;
  MPI_Offset na = make(0, &a), nb = make(1000000, &b), nc = make(2000000, &c), ng = make(5000000, &g);
  unsigned long long da[2], db[2], dg[2];
  digest(na, a, da);
  digest(nb, b, db);
  digest(ng, g, dg);

  /* Checkpoint 5: T and G full. */
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, dir, 5, &ck));
  CHECK_OK(exa_checkpoint_write(ck, "T", EXA_CHECKPOINT_FULL, 2, na, a));
  CHECK_OK(exa_checkpoint_write(ck, "G", EXA_CHECKPOINT_FULL, 2, ng, g));
  CHECK_ERR(exa_checkpoint_write(ck, "G", EXA_CHECKPOINT_FULL, 2, ng, g), NC_ENAMEINUSE);
  CHECK_ERR(exa_checkpoint_write(ck, "a/b", EXA_CHECKPOINT_FULL, 2, ng, g), NC_EBADNAME);
  CHECK_ERR(exa_checkpoint_write(ck, "X", 7, 2, ng, g), NC_EINVAL);
  CHECK_OK(exa_checkpoint_commit(ck));
  CHECK_ERR(exa_checkpoint_commit(ck), NC_EBADID);

  /* Checkpoint 10: a delta of T. */
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, dir, 10, &ck));
  CHECK_OK(exa_checkpoint_write(ck, "T", EXA_CHECKPOINT_DELTA, 2, nb, b));
  CHECK_OK(exa_checkpoint_commit(ck));

  /* Checkpoint 15 aborted, checkpoint 20 never committed (as if the job died). */
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, dir, 15, &ck));
  CHECK_OK(exa_checkpoint_write(ck, "T", EXA_CHECKPOINT_DELTA, 2, nc, c));
  CHECK_OK(exa_checkpoint_abort(ck));
  int lost = -1;
  CHECK_OK(exa_checkpoint_begin(MPI_COMM_WORLD, dir, 20, &lost));
  CHECK_OK(exa_checkpoint_write(lost, "T", EXA_CHECKPOINT_FULL, 2, nc, c));

  /* Restore on a communicator of a different size when there are two or more ranks. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, mpi_test_nprocs > 1 && mpi_test_rank == mpi_test_nprocs - 1, 0, &half);
  CHECK_OK(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &iteration, &nrel, &ck));
  CHECK(iteration == 10);
  CHECK(nrel == 2);
  char name[NC_MAX_NAME + 1];
  int arity = 0, seen_t = 0, seen_g = 0;
  for (int i = 0; i < nrel; i++) {
    CHECK_OK(exa_checkpoint_inq_relation(ck, i, name, &arity));
    CHECK(arity == 2);
    seen_t += strcmp(name, "T") == 0;
    seen_g += strcmp(name, "G") == 0;
  }
  CHECK(seen_t == 1 && seen_g == 1);
  CHECK_ERR(exa_checkpoint_inq_relation(ck, 2, name, &arity), NC_EINVAL);
  MPI_Offset n = 0;
  unsigned long long *t = NULL, d[2];
  CHECK_OK(exa_checkpoint_read(ck, "T", 0, &n, &t));
  digest(n, t, d);
  CHECK(d[0] == da[0] + db[0]);
  CHECK(d[1] == da[1] + db[1]);
  for (MPI_Offset i = 0; i < n; i++) CHECK(exa_relation_owner(t[2 * i], mpi_test_nprocs) == mpi_test_rank);
  exa_relation_free(t);
  CHECK_OK(exa_checkpoint_read(ck, "G", 1, &n, &t));
  digest(n, t, d);
  CHECK(d[0] == dg[0] && d[1] == dg[1]);
  exa_relation_free(t);
  CHECK_ERR(exa_checkpoint_read(ck, "H", 0, &n, &t), NC_ENOTVAR);
  CHECK_OK(exa_checkpoint_close(ck));

  /* The same checkpoint on the smaller group (the other group restores alone). */
  int hsize;
  MPI_Comm_size(half, &hsize);
  CHECK_OK(exa_checkpoint_restore(half, dir, &iteration, &nrel, &ck));
  CHECK_OK(exa_checkpoint_read(ck, "T", 1, &n, &t));
  unsigned long long local[2] = {(unsigned long long)n, 0}, hd[2];
  for (MPI_Offset i = 0; i < n; i++) local[1] += mix(t[2 * i] * 1000003ULL + t[2 * i + 1]);
  MPI_Allreduce(local, hd, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, half);
  CHECK(hd[0] == da[0] + db[0] && hd[1] == da[1] + db[1]);
  for (MPI_Offset i = 0; i < n; i++) {
    int hrank;
    MPI_Comm_rank(half, &hrank);
    CHECK(exa_relation_owner(t[2 * i + 1], hsize) == hrank);
  }
  exa_relation_free(t);
  CHECK_OK(exa_checkpoint_close(ck));
  MPI_Comm_free(&half);
  /* Both groups have restored before rank 0 damages the manifest (without it
   * the other group could still be reading it: a race that made its restore
   * fail with NC_ENOTNC and then free `t` a second time). */
  MPI_Barrier(MPI_COMM_WORLD);

  /* A damaged checkpoint: one flipped byte at offset 22 of what MANIFEST
   * names (the header of the checkpoint file that holds the manifest). */
  if (mpi_test_rank == 0) {
    char path[1300];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
      fseek(f, 22, SEEK_SET);
      int ch = fgetc(f);
      fseek(f, 22, SEEK_SET);
      fputc(ch ^ 1, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_ERR(exa_checkpoint_restore(MPI_COMM_WORLD, dir, &iteration, &nrel, &ck), NC_ENOTNC);
  CHECK_ERR(exa_checkpoint_read(12345, "T", 0, &n, &t), NC_EBADID);
  free(a);
  free(b);
  free(c);
  free(g);
  return mpi_test_finish();
}
