#include "graphs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) / 9007199254740992.0; }

typedef struct {
  uint64_t *e;
  uint64_t n, cap;
} edge_list;

static void add_edge(edge_list *l, uint64_t a, uint64_t b) {
  if (a == b) return;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 1024;
    l->e = realloc(l->e, sizeof *l->e * 2 * l->cap);
  }
  l->e[2 * l->n] = a < b ? a : b; /* oriented by vertex id */
  l->e[2 * l->n + 1] = a < b ? b : a;
  l->n++;
}

static int cmp_pair(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

/* Sorts and drops duplicate edges (each edge once). */
static void finish(edge_list *l, uint64_t nv, int ncomp, tc_graph *g) {
  qsort(l->e, l->n, 2 * sizeof(uint64_t), cmp_pair);
  uint64_t k = 0;
  for (uint64_t i = 0; i < l->n; i++)
    if (k == 0 || cmp_pair(&l->e[2 * i], &l->e[2 * (k - 1)]) != 0) {
      l->e[2 * k] = l->e[2 * i];
      l->e[2 * k + 1] = l->e[2 * i + 1];
      k++;
    }
  g->nvertices = nv;
  g->nedges = k;
  g->edges = l->e;
  g->ncomponents = ncomp;
}

static uint64_t uf_find(uint64_t *p, uint64_t x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}

/* usroad: a W x H grid cut into 58 vertical strips (58 components). In each
 * strip a random spanning tree of grid edges (Kruskal over shuffled edges:
 * winding roads, long paths), then ~30% of the other grid edges: ~1.3 edges
 * per vertex, i.e. an average degree of ~2.6 as usroad's. */
static void make_usroad(uint64_t target, uint64_t seed, tc_graph *g) {
  const int strips = 58;
  uint64_t h = (uint64_t)sqrt((double)target / 2.0);
  if (h < 2) h = 2;
  uint64_t w = (target + h - 1) / h;
  if (w < (uint64_t)strips) w = strips;
  const uint64_t nv = w * h;
  uint64_t s = seed;
  /* Candidate grid edges not crossing a strip boundary. */
  edge_list cand = {0}, out = {0};
  for (uint64_t r = 0; r < h; r++)
    for (uint64_t c = 0; c < w; c++) {
      uint64_t v = r * w + c;
      if (c + 1 < w && (c + 1) * strips / w == c * strips / w) add_edge(&cand, v, v + 1);
      if (r + 1 < h) add_edge(&cand, v, v + w);
    }
  for (uint64_t i = cand.n; i > 1; i--) { /* Fisher-Yates */
    uint64_t j = rng_next(&s) % i, t0 = cand.e[2 * (i - 1)], t1 = cand.e[2 * (i - 1) + 1];
    cand.e[2 * (i - 1)] = cand.e[2 * j];
    cand.e[2 * (i - 1) + 1] = cand.e[2 * j + 1];
    cand.e[2 * j] = t0;
    cand.e[2 * j + 1] = t1;
  }
  uint64_t *parent = malloc(sizeof *parent * nv);
  for (uint64_t v = 0; v < nv; v++) parent[v] = v;
  char *used = calloc(cand.n, 1);
  for (uint64_t i = 0; i < cand.n; i++) {
    uint64_t a = uf_find(parent, cand.e[2 * i]), b = uf_find(parent, cand.e[2 * i + 1]);
    if (a != b) {
      parent[a] = b;
      used[i] = 1;
      add_edge(&out, cand.e[2 * i], cand.e[2 * i + 1]);
    }
  }
  const double extra = (1.3 * (double)nv - (double)out.n) / (double)(cand.n - out.n + 1);
  for (uint64_t i = 0; i < cand.n; i++)
    if (!used[i] && rng_unit(&s) < extra) add_edge(&out, cand.e[2 * i], cand.e[2 * i + 1]);
  free(used);
  free(parent);
  free(cand.e);
  finish(&out, nv, strips, g);
}

/* fe_ocean: a triangulated 2-D mesh (right, down and one diagonal per cell:
 * degree 6 inside) with three round land holes, ~2.8 edges per vertex (~5.6).
 * The ocean is one component; vertices inside the holes keep no edges (the
 * vertex ids stay those of the full grid). */
static void make_fe_ocean(uint64_t target, uint64_t seed, tc_graph *g) {
  uint64_t w = (uint64_t)sqrt((double)target);
  if (w < 4) w = 4;
  const uint64_t h = (target + w - 1) / w, nv = w * h;
  uint64_t s = seed;
  const int holes = 3;
  double hx[3], hy[3], hr[3];
  for (int i = 0; i < holes; i++) {
    hx[i] = rng_unit(&s) * (double)w;
    hy[i] = rng_unit(&s) * (double)h;
    hr[i] = 0.06 * (double)w;
  }
  edge_list out = {0};
  for (uint64_t r = 0; r < h; r++)
    for (uint64_t c = 0; c < w; c++) {
      int land = 0;
      for (int i = 0; i < holes; i++) land |= hypot((double)c - hx[i], (double)r - hy[i]) < hr[i];
      if (land) continue; /* land: the vertex keeps no edges to its right/below */
      uint64_t v = r * w + c;
      if (c + 1 < w) add_edge(&out, v, v + 1);
      if (r + 1 < h) add_edge(&out, v, v + w);
      if (c + 1 < w && r + 1 < h) add_edge(&out, v, v + w + 1);
    }
  finish(&out, nv, 1, g);
}

/* vsp_finan512: clusters of 64 vertices with ~3.4 random edges per vertex
 * inside, hub vertices (1 in 128) tied to many clusters, and a ring between
 * consecutive clusters: ~3.95 edges per vertex (~7.9), one component. */
static void make_vsp_finan(uint64_t target, uint64_t seed, tc_graph *g) {
  const uint64_t csize = 64;
  uint64_t nclusters = (target + csize - 1) / csize;
  if (nclusters < 2) nclusters = 2;
  const uint64_t nv = nclusters * csize;
  uint64_t s = seed;
  edge_list out = {0};
  for (uint64_t c = 0; c < nclusters; c++) {
    const uint64_t base = c * csize;
    for (uint64_t i = 1; i < csize; i++) add_edge(&out, base + i - 1, base + i); /* connected */
    for (uint64_t k = 0; k < csize * 24 / 10; k++)
      add_edge(&out, base + rng_next(&s) % csize, base + rng_next(&s) % csize);
    add_edge(&out, base + rng_next(&s) % csize, ((c + 1) % nclusters) * csize + rng_next(&s) % csize);
  }
  const uint64_t nhubs = nv / 128 + 1;
  for (uint64_t k = 0; k < nhubs; k++) {
    const uint64_t hub = rng_next(&s) % nv;
    for (int j = 0; j < 64; j++) add_edge(&out, hub, rng_next(&s) % nv);
  }
  finish(&out, nv, 1, g);
}

int tc_graph_make(const char *kind, uint64_t nvertices, uint64_t seed, tc_graph *g) {
  memset(g, 0, sizeof *g);
  if (strcmp(kind, "usroad") == 0) make_usroad(nvertices, seed, g);
  else if (strcmp(kind, "fe_ocean") == 0) make_fe_ocean(nvertices, seed, g);
  else if (strcmp(kind, "vsp_finan") == 0) make_vsp_finan(nvertices, seed, g);
  else return -1;
  return 0;
}

void tc_graph_free(tc_graph *g) {
  free(g->edges);
  g->edges = NULL;
}
