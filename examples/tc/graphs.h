/* Generators of graphs with the character of the three SuiteSparse graphs of
 * seed 002 (usroad, fe_ocean, vsp_finan512), at a size this machine can close
 * transitively (the originals' closures hold 0.9-1.7 billion tuples). Every
 * rank generates the same graph from the seed; edges appear once, oriented
 * from the lower vertex id to the higher, as in the originals. */
#ifndef TC_GRAPHS_H
#define TC_GRAPHS_H

#include <stdint.h>

typedef struct {
  uint64_t nvertices;
  uint64_t nedges;
  uint64_t *edges; /* 2 * nedges: (from, to), from < to */
  int ncomponents; /* weakly connected components with edges, as generated */
} tc_graph;

/* kind: "usroad" (a thinned planar grid of long paths in 58 components, ~2.6
 * edges per vertex), "fe_ocean" (a triangulated 2-D mesh with land holes,
 * ~5.6), "vsp_finan" (clustered with hubs, ~7.5). "Edges per vertex" is the
 * average degree 2E/V as the seed counts it; measured at ~1000-3000
 * vertices: usroad 2.48, fe_ocean 5.59, vsp_finan 7.48. nvertices is a
 * target (the shape rounds it; usroad has at least 58 columns). 0 on
 * success, -1 for an unknown kind. */
int tc_graph_make(const char *kind, uint64_t nvertices, uint64_t seed, tc_graph *g);
void tc_graph_free(tc_graph *g);

#endif
