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
  int ncomponents; /* weakly connected, as generated */
} tc_graph;

/* kind: "usroad" (a thinned planar grid of long paths in 58 components, ~2.6
 * edges per vertex), "fe_ocean" (a triangulated 2-D mesh with land holes,
 * ~5.7), "vsp_finan" (clustered with hubs, ~7.9). nvertices is a target (the
 * shape rounds it). 0 on success, -1 for an unknown kind. */
int tc_graph_make(const char *kind, uint64_t nvertices, uint64_t seed, tc_graph *g);
void tc_graph_free(tc_graph *g);

#endif
