/* exacdf relations and checkpoints (docs/relations.md).
 *
 * A relation of arity k is a set of k-tuples of 64-bit unsigned integers,
 * hash-partitioned across the ranks of a communicator, as parallel
 * relational-algebra (Datalog) engines hold them. It is stored as one 2-D
 * NC_UINT64 variable `name[<name>_rows][<name>_cols]` with k+1 columns: the k
 * values and an id (the row's global index when written), with attributes
 * naming the columns and the partitioning, so ncdump and xarray read it. The
 * file must be able to hold NC_UINT64 (CDF-5 or the partitioned format);
 * CDF-1/2 give NC_EBADTYPE.
 *
 * A checkpoint is one such file holding every relation written into it and
 * its manifest (with a CRC), made current atomically by renaming a symbolic
 * link DIR/MANIFEST to it; a crash while one is written leaves the previous
 * one current. A restart may use any number of ranks, and reads checkpoint
 * directories of the earlier layout too (docs/relations.md).
 *
 * Policy (seed 002 Table 1): where exacdf decides how a relation is written
 * it picks O1..O7 from the total size, the rank count and the skew of the
 * per-rank sizes; the hint `exa_policy` (or the environment variable
 * EXACDF_POLICY) names the steps allowed: "all" (default), "none", or a
 * comma list such as "O1,O3,O5". EXACDF_VERBOSE=1 prints each decision.
 */
#ifndef EXACDF_RELATION_H
#define EXACDF_RELATION_H

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

/** Writes a relation into the open file ncid (define or data mode; it is
 *  left in data mode): this rank's nlocal tuples, row-major, arity values
 *  each. Rows are placed at offsets from one MPI_Exscan; the id column holds
 *  each row's global index. NC_EINVAL for arity < 1 or > 64, nlocal < 0 or a
 *  null tuples with nlocal > 0; NC_ENAMEINUSE when name exists. Collective. */
extern int exa_relation_write(int ncid, const char *name, int arity,
                              MPI_Offset nlocal, const unsigned long long *tuples);

/** The arity and total row count of relation name in ncid. NC_ENOTVAR when
 *  there is none, NC_EINVAL for a variable that is not a relation. Local. */
extern int exa_relation_inq(int ncid, const char *name, int *arity, MPI_Offset *nrows);

/** Reads relation name: every rank reads a contiguous share, then rows move
 *  with one MPI_Alltoallv to the rank hash_column's value hashes to
 *  (exa_relation_owner), so any rank count reads any file. hash_column -1
 *  keeps the contiguous share. *tuples (arity values per row, id dropped) is
 *  malloc'd; release it with exa_relation_free. Collective. */
extern int exa_relation_read(int ncid, const char *name, int hash_column,
                             MPI_Offset *nlocal, unsigned long long **tuples);

/** The rank of nranks that owns value v when a relation is hash-partitioned
 *  (what exa_relation_read uses). Local. */
extern int exa_relation_owner(unsigned long long v, int nranks);

/** Frees what exa_relation_read and exa_checkpoint_read returned. */
extern void exa_relation_free(void *tuples);

/* ---- Checkpoints ---------------------------------------------------- */

#define EXA_CHECKPOINT_FULL 0
#define EXA_CHECKPOINT_DELTA 1

/** Starts checkpoint `iteration` (>= 0) in directory dir (created if
 *  missing) on comm. info may be MPI_INFO_NULL; its `exa_policy` key picks
 *  the policy steps. Nothing becomes visible until exa_checkpoint_commit.
 *  Collective. */
extern int exa_checkpoint_begin(MPI_Comm comm, const char *dir, long long iteration, int *ckid);
extern int exa_checkpoint_begin_info(MPI_Comm comm, const char *dir, long long iteration,
                                     MPI_Info info, int *ckid);

/** Writes relation name into the checkpoint as a full snapshot or a delta
 *  (tuples added since the previous checkpoint). The rows are copied and
 *  kept until the commit, which measures all relations of the checkpoint at
 *  once and writes them in one file. Collective (every rank writes the same
 *  relations in the same order; since 2026-11-24 it makes no MPI call). */
extern int exa_checkpoint_write(int ckid, const char *name, int kind, int arity,
                                MPI_Offset nlocal, const unsigned long long *tuples);

/** Writes the checkpoint's file (every relation written into it and the
 *  manifest; synced), then rank 0 makes it current by renaming a symbolic
 *  link MANIFEST -> file over the old one (atomic) and fsyncing dir; older
 *  checkpoint files are removed by a thread of rank 0 that the next
 *  checkpoint call (or exit) waits for. Frees ckid. Collective. */
extern int exa_checkpoint_commit(int ckid);

/** Abandons a checkpoint that was begun (nothing of it is on disk yet); the
 *  current one stays. Frees ckid. Collective. */
extern int exa_checkpoint_abort(int ckid);

/** Opens the current checkpoint of dir for restore: *iteration is its
 *  iteration, *nrelations the number of relations in it. NC_ENOENT when dir
 *  has no committed checkpoint; NC_ENOTNC for a damaged manifest. Collective. */
extern int exa_checkpoint_restore(MPI_Comm comm, const char *dir, long long *iteration,
                                  int *nrelations, int *ckid);

/** The name (out: NC_MAX_NAME + 1 bytes) and arity of relation i of a
 *  restored checkpoint. Local. */
extern int exa_checkpoint_inq_relation(int ckid, int i, char *name, int *arity);

/** Reads relation name of a restored checkpoint: the latest full snapshot
 *  plus every later delta, rows hash-partitioned on hash_column (as
 *  exa_relation_read). Collective. */
extern int exa_checkpoint_read(int ckid, const char *name, int hash_column,
                               MPI_Offset *nlocal, unsigned long long **tuples);

/** Ends a restore. Collective. */
extern int exa_checkpoint_close(int ckid);

/** Testing hook for crash tests: when > 0, rank 0 raises SIGKILL on itself
 *  in the commit of the checkpoint holding its nth relation written, after
 *  that checkpoint's file is written and synced and before MANIFEST names
 *  it. The environment variable EXACDF_CHECKPOINT_KILL_AFTER sets it too.
 *  0 disarms. Local. */
extern void exa_debug_checkpoint_kill_after(int nth);

/** Testing hook for big counts: the most rows one MPI_Alltoallv of
 *  exa_relation_read / exa_checkpoint_read moves per rank (default INT_MAX,
 *  what int counts and displacements hold). Beyond it the exchange runs in
 *  rounds of at most rows / nranks rows per peer (on MPI-4 too, where the
 *  default path is one MPI_Alltoallv_c), so tests exercise the rounds with
 *  small relations. 0 restores the default. Local; set it alike on every rank. */
extern void exa_debug_relation_exchange_limit(long long rows);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_RELATION_H */
