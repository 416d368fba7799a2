/* Semi-naive transitive closure over MPI with exacdf checkpoints (seed 002):
 *   T(x, y) <- G(x, y);   T(x, z) <- T(x, y), G(y, z)
 * G(y, z) is hash-partitioned on y, T(x, y) and its frontier dT on y
 * (exa_relation_owner), so the join is local; its output (x, z) goes to the
 * owner of z in one all-to-all per iteration, is deduplicated against T, and
 * what is new is the next frontier; the fixed point is an empty frontier
 * everywhere. Every K iterations a checkpoint holds G (once), T (full, or the
 * tuples added since the previous checkpoint) and dT; --restart DIR resumes
 * from DIR's current checkpoint on any number of ranks.
 *
 *   mpiexec -n 4 tc --graph usroad --vertices 4000 --every 20 --dir ck [--restart ck]
 * prints one line: iterations, closure size and an order-free digest. */
#include <exacdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ckpt_io.h"
#include "graphs.h"
#include "pairset.h"

typedef struct {
  uint64_t *v;
  uint64_t n, cap; /* in pairs */
} pairs;

static void push(pairs *p, uint64_t a, uint64_t b) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 1024;
    p->v = realloc(p->v, sizeof *p->v * 2 * p->cap);
  }
  p->v[2 * p->n] = a;
  p->v[2 * p->n + 1] = b;
  p->n++;
}

static int cmp_pair(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int rank_, size_;

/* The first G edge with source y (G sorted), or g->n. */
static uint64_t first_edge(const pairs *g, uint64_t y) {
  uint64_t lo = 0, hi = g->n;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    if (g->v[2 * mid] < y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Sends each pair to the owner of its column `col`; replaces *p by what arrives. */
static void exchange(pairs *p, int col) {
  int *scount = calloc(size_, sizeof *scount), *rcount = malloc(sizeof *rcount * size_);
  int *sdispl = malloc(sizeof *sdispl * size_), *rdispl = malloc(sizeof *rdispl * size_);
  int *dest = malloc(sizeof *dest * (p->n + 1));
  for (uint64_t i = 0; i < p->n; i++) scount[dest[i] = exa_relation_owner(p->v[2 * i + col], size_)]++;
  for (int r = 0, at = 0; r < size_; r++) sdispl[r] = at, at += scount[r];
  uint64_t *send = malloc(sizeof *send * 2 * (p->n + 1));
  int *fill = malloc(sizeof *fill * size_);
  memcpy(fill, sdispl, sizeof *fill * size_);
  for (uint64_t i = 0; i < p->n; i++) {
    int at = fill[dest[i]]++;
    send[2 * at] = p->v[2 * i];
    send[2 * at + 1] = p->v[2 * i + 1];
  }
  MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t got = 0;
  for (int r = 0; r < size_; r++) rdispl[r] = (int)got, got += (uint64_t)rcount[r];
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_UINT64_T, &pair);
  MPI_Type_commit(&pair);
  uint64_t *recv = malloc(sizeof *recv * 2 * (got + 1));
  MPI_Alltoallv(send, scount, sdispl, pair, recv, rcount, rdispl, pair, MPI_COMM_WORLD);
  MPI_Type_free(&pair);
  free(p->v);
  p->v = recv;
  p->n = p->cap = got;
  free(send), free(fill), free(dest), free(scount), free(rcount), free(sdispl), free(rdispl);
}

typedef struct {
  const char *graph, *dir, *restart, *io;
  uint64_t vertices, seed;
  int every, full_every;
  int json;
} options;

static void usage(void) {
  if (rank_ == 0)
    fprintf(stderr, "usage: tc [--graph usroad|fe_ocean|vsp_finan] [--vertices N] [--seed S] [--every K]\n"
                    "          [--full-every F] [--dir DIR] [--restart DIR] [--io exacdf|posix|mpiio|mpiio-opt"
#ifdef TC_HAVE_HDF5
                    "|hdf5|hdf5-opt"
#endif
                    "] [--json]\n");
}

static int parse(int argc, char **argv, options *o) {
  *o = (options){"usroad", NULL, NULL, "exacdf", 2000, 1, 0, 1, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--json") == 0) { o->json = 1; continue; }
    if (v == NULL) return -1;
    if (strcmp(a, "--graph") == 0) o->graph = v;
    else if (strcmp(a, "--vertices") == 0) o->vertices = strtoull(v, NULL, 10);
    else if (strcmp(a, "--seed") == 0) o->seed = strtoull(v, NULL, 10);
    else if (strcmp(a, "--every") == 0) o->every = atoi(v);
    else if (strcmp(a, "--full-every") == 0) o->full_every = atoi(v);
    else if (strcmp(a, "--dir") == 0) o->dir = v;
    else if (strcmp(a, "--restart") == 0) o->restart = v;
    else if (strcmp(a, "--io") == 0) o->io = v;
    else return -1;
    i++;
  }
  if (o->restart && !o->dir) o->dir = o->restart;
  if (o->every < 0 || o->full_every < 1 || !tc_ckpt_known(o->io)) return -1;
  if (o->every > 0 && !o->dir) return -1;
  if (o->restart && strcmp(o->io, "exacdf") != 0) return -1; /* only exacdf's checkpoints restart */
  return 0;
}

/* Reads relation name of a restored checkpoint into *p (hash-partitioned on col). */
static int restore_relation(int ckid, const char *name, int col, pairs *p) {
  MPI_Offset n = 0;
  unsigned long long *t = NULL;
  int e = exa_checkpoint_read(ckid, name, col, &n, &t);
  if (e != NC_NOERR) {
    fprintf(stderr, "tc[%d]: restore %s: %s\n", rank_, name, ncmpi_strerror(e));
    return -1;
  }
  for (MPI_Offset i = 0; i < n; i++) push(p, t[2 * i], t[2 * i + 1]);
  exa_relation_free(t);
  return 0;
}

/* Rank 0's process CPU time (user and system, every thread of it): a load-robust figure beside
 * the wall times at 1 rank, where no MPI wait spins. */
static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  options o;
  if (parse(argc, argv, &o) != 0) {
    usage();
    MPI_Finalize();
    return 2;
  }
  const double t0 = MPI_Wtime(), cpu0 = cpu_seconds();
  pairs g = {0}, dt = {0}, since = {0};
  pairset t;
  long long iteration = 0;
  int g_saved = 0, nck = 0;
  uint64_t nvertices = 0, nedges = 0;

  if (o.restart) {
    int ckid, nrel;
    int e = exa_checkpoint_restore(MPI_COMM_WORLD, o.restart, &iteration, &nrel, &ckid);
    if (e != NC_NOERR) {
      if (rank_ == 0) fprintf(stderr, "tc: no checkpoint to restart from in %s: %s\n", o.restart, ncmpi_strerror(e));
      MPI_Finalize();
      return 1;
    }
    pairs tl = {0};
    if (restore_relation(ckid, "G", 0, &g) || restore_relation(ckid, "T", 1, &tl) || restore_relation(ckid, "dT", 1, &dt))
      MPI_Abort(MPI_COMM_WORLD, 1);
    exa_checkpoint_close(ckid);
    pairset_init(&t, tl.n);
    for (uint64_t i = 0; i < tl.n; i++) pairset_insert(&t, tl.v[2 * i], tl.v[2 * i + 1]);
    free(tl.v);
    g_saved = 1;
    nck = o.every > 0 ? (int)(iteration / o.every) : 0;
    uint64_t local = g.n;
    MPI_Allreduce(&local, &nedges, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  } else {
    tc_graph full;
    if (tc_graph_make(o.graph, o.vertices, o.seed, &full) != 0) {
      usage();
      MPI_Finalize();
      return 2;
    }
    nvertices = full.nvertices;
    nedges = full.nedges;
    pairset_init(&t, full.nedges / size_);
    for (uint64_t i = 0; i < full.nedges; i++) {
      const uint64_t x = full.edges[2 * i], y = full.edges[2 * i + 1];
      if (exa_relation_owner(x, size_) == rank_) push(&g, x, y);               /* G on its source */
      if (exa_relation_owner(y, size_) == rank_ && pairset_insert(&t, x, y)) { /* T = G, on y */
        push(&dt, x, y);
        push(&since, x, y);
      }
    }
    tc_graph_free(&full);
  }
  qsort(g.v, g.n, 2 * sizeof(uint64_t), cmp_pair);

  tc_ckpt ck = {o.io, o.dir, MPI_COMM_WORLD, -1, "", 0};
  double ck_time = 0, ck_cpu = 0, ck_each[16] = {0}; /* the first 16 checkpoints' times, each */
  for (;;) {
    /* Join the frontier with G locally; the results go to the owner of z. */
    pairs out = {0};
    for (uint64_t i = 0; i < dt.n; i++) {
      const uint64_t x = dt.v[2 * i], y = dt.v[2 * i + 1];
      for (uint64_t j = first_edge(&g, y); j < g.n && g.v[2 * j] == y; j++) push(&out, x, g.v[2 * j + 1]);
    }
    exchange(&out, 1);
    dt.n = 0;
    for (uint64_t i = 0; i < out.n; i++)
      if (pairset_insert(&t, out.v[2 * i], out.v[2 * i + 1])) {
        push(&dt, out.v[2 * i], out.v[2 * i + 1]);
        push(&since, out.v[2 * i], out.v[2 * i + 1]);
      }
    free(out.v);
    iteration++;
    uint64_t fresh = dt.n, any = 0;
    MPI_Allreduce(&fresh, &any, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (any == 0) break;
    if (o.every > 0 && iteration % o.every == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double c0 = MPI_Wtime(), u0 = cpu_seconds();
      nck++;
      const int full = (nck - 1) % o.full_every == 0;
      /* The packing phase: T's index traversed into a contiguous buffer. */
      pairs tl = {0};
      if (full)
        for (uint64_t i = 0; i < t.cap; i++)
          if (t.slots[2 * i] != UINT64_MAX) push(&tl, t.slots[2 * i], t.slots[2 * i + 1]);
      int rc = tc_ckpt_begin(&ck, iteration);
      if (!rc && !g_saved) rc = tc_ckpt_write(&ck, "G", 0, 2, g.n, g.v);
      if (!rc && full) rc = tc_ckpt_write(&ck, "T", 0, 2, tl.n, tl.v);
      if (!rc && (!full || o.full_every == 1)) rc = tc_ckpt_write(&ck, "T", 1, 2, since.n, since.v);
      if (!rc) rc = tc_ckpt_write(&ck, "dT", 0, 2, dt.n, dt.v);
      if (!rc) rc = tc_ckpt_commit(&ck);
      if (rc) MPI_Abort(MPI_COMM_WORLD, 1);
      g_saved = 1;
      since.n = 0;
      free(tl.v);
      MPI_Barrier(MPI_COMM_WORLD);
      ck_time += MPI_Wtime() - c0;
      ck_cpu += cpu_seconds() - u0;
      if (nck <= 16) ck_each[nck - 1] = MPI_Wtime() - c0;
    }
  }
  /* The closure's size and an order-free digest (the same on any rank count). */
  uint64_t local[2] = {t.n, 0}, all[2];
  for (uint64_t i = 0; i < t.cap; i++)
    if (t.slots[2 * i] != UINT64_MAX) local[1] += tc_mix(t.slots[2 * i] * 1000003ULL + t.slots[2 * i + 1]);
  MPI_Allreduce(local, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  const double total = MPI_Wtime() - t0;
  if (rank_ == 0) {
    char each[16 * 16 + 8] = "[";
    for (int i = 0; i < nck && i < 16; i++)
      snprintf(each + strlen(each), sizeof each - strlen(each), "%s%.6f", i ? ", " : "", ck_each[i]);
    strncat(each, "]", sizeof each - strlen(each) - 1);
    if (o.json)
      printf("{\"graph\": \"%s\", \"io\": \"%s\", \"ranks\": %d, \"vertices\": %llu, \"edges\": %llu, "
             "\"iterations\": %lld, \"tuples\": %llu, \"digest\": \"%016llx\", \"checkpoints\": %d, "
             "\"checkpoint_bytes\": %.0f, \"checkpoint_time\": %.6f, \"checkpoint_cpu\": %.6f, \"total_time\": %.6f, "
             "\"total_cpu\": %.6f, \"checkpoint_times\": %s}\n",
             o.restart ? "restart" : o.graph, o.io, size_, (unsigned long long)nvertices, (unsigned long long)nedges,
             iteration, (unsigned long long)all[0], (unsigned long long)all[1], nck, ck.bytes, ck_time, ck_cpu, total,
             cpu_seconds() - cpu0, each);
    else
      printf("tc: graph=%s ranks=%d vertices=%llu edges=%llu iterations=%lld tuples=%llu digest=%016llx "
             "checkpoints=%d checkpoint_time=%.4f total_time=%.4f\n",
             o.restart ? "restart" : o.graph, size_, (unsigned long long)nvertices, (unsigned long long)nedges,
             iteration, (unsigned long long)all[0], (unsigned long long)all[1], nck, ck_time, total);
  }
  pairset_free(&t);
  free(g.v), free(dt.v), free(since.v);
  MPI_Finalize();
  return 0;
}
