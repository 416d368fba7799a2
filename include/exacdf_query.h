/* Queries over data values, optionally answered from bitmap indexes
 * (README.md "Queries", docs/format.md "Query index sidecar").
 *
 * A query is a tree of conditions `variable OP constant` combined with AND,
 * OR and NOT. Query ids are process-local handles (like request ids); a
 * query belongs to the ncid it was created or decoded on.
 *
 * Comparison semantics
 *  - A condition compares the variable's value and the constant as exact
 *    mathematical numbers: the constant (of any of the 10 numeric types,
 *    given by `type`) is never rounded or clamped into the variable's type.
 *    So `x < 300` on an NC_BYTE variable is true everywhere, `x == 0.5` on
 *    an integer variable is false everywhere, and `x == 0.1` (NC_DOUBLE
 *    constant) on an NC_FLOAT variable matches no float (0.1f != 0.1): pass
 *    the constant as NC_FLOAT to compare with float values.
 *  - NaN (of a value or of the constant) compares false with every operator
 *    except EXA_QUERY_NE, which is true (IEEE 754).
 *  - Fill values are ordinary values: an element never written holds the
 *    fill value and matches a condition as that value.
 *  - NC_CHAR variables cannot be queried (NC_ECHAR).
 *  - The variables of a combined query must have the same shape at
 *    evaluation (NC_EINVALCOORDS otherwise).
 */
#ifndef EXACDF_QUERY_H
#define EXACDF_QUERY_H

#include <pnetcdf.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define EXA_QUERY_EQ 1
#define EXA_QUERY_NE 2
#define EXA_QUERY_LT 3
#define EXA_QUERY_LE 4
#define EXA_QUERY_GT 5
#define EXA_QUERY_GE 6

#define EXA_QUERY_AND 1
#define EXA_QUERY_OR 2

/** `varid OP *value`, value of nc_type `type` (NC_BYTE .. NC_UINT64, not
 *  NC_CHAR). Local. NC_EINVAL for a bad op, type or null pointer, NC_ENOTVAR,
 *  NC_ECHAR for an NC_CHAR variable. */
extern int exa_query_create(int ncid, int varid, int op, nc_type type, const void *value,
                            int *qid);
/** q1 AND/OR q2 (both of the same ncid): a new query; q1, q2 stay valid. Local. */
extern int exa_query_combine(int q1, int how, int q2, int *qid);
/** NOT q: a new query. Local. */
extern int exa_query_not(int q, int *qid);
extern int exa_query_free(int qid);
/** The number of dimensions of the query's variables (coordinates per hit). Local. */
extern int exa_query_inq(int qid, int *ndims);

/** The query of a text such as "energy > 1.9 and not (x < 0.5 or x >= 2)"
 *  (src/query/parser.hpp: and/&&, or/||, not/!, parentheses, == = != < <= >
 *  >=; integer constants are NC_INT64 (NC_UINT64 above its range), others
 *  NC_DOUBLE; nan, inf, -inf), its variables looked up by name in ncid.
 *  NC_EINVAL for text that does not parse, NC_ENOTVAR. Local. */
extern int exa_query_parse(int ncid, const char *text, int *qid);

/** A portable byte form (little-endian, versioned, CRC-32C; variables by
 *  name, docs/format.md "Encoded queries"). With buf NULL, *len receives the
 *  size needed; otherwise *len is buf's size on entry (NC_EINVAL if too
 *  small) and the bytes written on return. Local. */
extern int exa_query_encode(int qid, void *buf, MPI_Offset *len);
/** The query of an encoded form, its variables looked up by name in ncid.
 *  NC_EINVAL for malformed bytes (never a crash), NC_ENOTVAR for a name
 *  ncid does not have. Local. */
extern int exa_query_decode(int ncid, const void *buf, MPI_Offset len, int *qid);

/** Evaluates qid on this rank's box start/count (of the shape of the
 *  query's variables). Collective over ncid's communicator. With start and
 *  count both NULL, the whole current variable is split over the ranks
 *  along dimension 0: rank r of p gets rows [r*n/p, (r+1)*n/p) (scalars:
 *  rank 0 gets the element). Uses a variable's index (exa_index_create) when
 *  it is current, scans the values otherwise. *nhits: this rank's hits. */
extern int exa_query_eval(int ncid, int qid, const MPI_Offset *start, const MPI_Offset *count,
                          MPI_Offset *nhits);
/** The first min(max, nhits) hits of this rank's last evaluation, ndims
 *  coordinates each, in row-major order. Local. */
extern int exa_query_hits(int ncid, int qid, MPI_Offset max, MPI_Offset *coords);
/** Reads variable varid (same shape) at this rank's hits of the last
 *  evaluation into buf (nhits values of nc_type memtype, converted as the
 *  typed get calls convert, NC_ERANGE likewise), in hit order, with one
 *  collective read. Collective. */
extern int exa_query_get(int ncid, int qid, int varid, void *buf, nc_type memtype);

/** Builds the bitmap index of varid and stores it: inside a partitioned
 *  file without a record dimension opened for writing (index blocks,
 *  committed with a new generation, docs/format.md "Index blocks"), else in
 *  the sidecar FILE.exaidx.<varid> (docs/format.md).
 *  Collective. spec: NULL or "" (= "bins=64"), "bins=N" (N equal-weight
 *  bins, 1..4096, from a sample of the values gathered over the ranks),
 *  "edges=a,b,c" (bins on these increasing edges); optionally ";chunk=R"
 *  (rows of dimension 0 per chunk; default: as many as keep a chunk <= 2^20
 *  elements). Replaces an index varid already has. Or "update": keeps the
 *  existing index's bins and chunks and rebuilds only the chunks that are
 *  stale (put into since), new (rows appended) or whose values' CRC
 *  differs from the one recorded (writes this process did not see); a full
 *  "bins=64" build when there is no index. The file must not have pending
 *  writes of other processes.
 *
 *  Puts: a put marks the index chunks holding the rows it writes stale
 *  (their bitmaps are no longer used: queries test those chunks' values)
 *  and widens their min/max by the values put (typed calls; other puts
 *  leave the chunk without bounds), so queries still skip chunks by min/max.
 *  The marks are taken at the next collective index call or query and
 *  written into the sidecar (or committed into the index block) then. */
extern int exa_index_create(int ncid, int varid, const char *spec);
/** Removes varid's index (no error when there is none). Collective. */
extern int exa_index_drop(int ncid, int varid);
/** Whether varid has an index (*present), whether it is current (*current:
 *  0 when the file changed since it was built by writes this process did
 *  not see: queries then scan; stale chunks of a current index are
 *  scanned), its number of bins and its size in bytes (the sidecar's, or
 *  the index block's and its chunk pieces'). NULL
 *  outputs are skipped. Collective. */
extern int exa_index_inq(int ncid, int varid, int *present, int *current, int *nbins,
                         MPI_Offset *bytes);
/** The index's chunks (*nchunks), how many are stale (*nstale: all of them
 *  when the index is not current), and the chunks this process's last
 *  exa_index_create of varid built (*rebuilt) and kept (*kept). NULL
 *  outputs are skipped. Collective. */
extern int exa_index_inq_chunks(int ncid, int varid, MPI_Offset *nchunks, MPI_Offset *nstale,
                                MPI_Offset *rebuilt, MPI_Offset *kept);

/** The min/max record of a variable that has no index: per chunk of rows,
 *  the bounds of its values, kept from the values of the puts that wrote
 *  the chunk whole (blocking typed puts that succeeded, from any ranks
 *  together), so queries skip chunks that cannot match. It is made and
 *  updated at the next collective query or index call after the puts, in
 *  the sidecar FILE.exaidx.<varid> (docs/format.md), and trusted like an
 *  index: not when the file changed by writes this communicator did not
 *  make. *nchunks: the record's chunks (0: no trusted record); *nbounded:
 *  those with bounds (the others are scanned). Collective. */
extern int exa_index_inq_minmax(int ncid, int varid, MPI_Offset *nchunks, MPI_Offset *nbounded);

/** Values this process tested one by one (read and compared) in query
 *  evaluations so far: what chunk skipping saves shows here. Local. */
extern long long exa_debug_query_values_tested(void);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_QUERY_H */
