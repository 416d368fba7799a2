/*
 * exacdf.h -- extensions of exacdf beyond the PnetCDF API (exa_* calls and
 * EXA_* constants). Includes pnetcdf.h, so a program needs only this header.
 */
#ifndef EXACDF_H
#define EXACDF_H

#include <pnetcdf.h>

#define EXACDF_VERSION "0.1.0"
#define EXACDF_VERSION_MAJOR 0
#define EXACDF_VERSION_MINOR 1
#define EXACDF_VERSION_PATCH 0

/** Create/open mode flag: independent define mode. Define calls
 *  (ncmpi_def_dim, ncmpi_def_var, ncmpi_put_att_*, ncmpi_rename_*,
 *  ncmpi_del_att, ncmpi_def_var_fill) are local: ranks may define different
 *  objects, or the same object with identical metadata. ncmpi_enddef and
 *  ncmpi_close stay collective and merge the definitions of all ranks. Ids
 *  returned before enddef stay valid on the rank that got them; objects other
 *  ranks defined are found by name after enddef. Same as the hint
 *  exa_define_mode=independent. */
#define EXA_INDEP_DEFINE 0x10000000

/** Create mode flag: write the partitioned format (docs/format.md) instead of
 *  a classic one. Same as the hint exa_format=partitioned, or
 *  ncmpi_set_default_format(EXA_FORMAT_PARTITIONED_V1). Object names may
 *  carry a path ("/event000123/edge_index"); the path names the metadata
 *  block. This version writes a file's metadata once (no redef yet). */
#define EXA_FORMAT_PARTITIONED 0x20000000
/** What ncmpi_inq_format reports for a partitioned file. */
#define EXA_FORMAT_PARTITIONED_V1 64

#if defined(__cplusplus)
extern "C" {
#endif

/** Version string of exacdf itself (ncmpi_inq_libvers gives the PnetCDF API version). Local. */
extern const char *exa_inq_libvers(void);

/** Number of MPI-IO read/write calls this rank has made on the file (header,
 *  data, fill, and the 1-byte writes that extend the file before a write
 *  with gaps past its end; a collective call counts once per rank). Local.
 *  NC_EBADID. */
extern int exa_inq_io_calls(int ncid, MPI_Offset *ncalls);

/** Where this rank's last successful ncmpi_enddef (or the enddef inside
 *  ncmpi_close) spent its time, in seconds of MPI_Wtime. */
typedef struct exa_enddef_stats {
  double merge_check;    /* independent define: records to the checking ranks, the check, drops back
                            (a partitioned file whose blocks are each one rank's: global attributes
                            merged, block summaries to rank 0, placements back) */
  double merge_exchange; /* independent define: the owners' metadata to every rank, merged (0 for
                            such a partitioned file: no merge) */
  double layout;         /* file layout (such a partitioned file: this rank's own blocks) */
  double header_io;      /* header write, data moved by a redef, fill values */
  double total;          /* the whole enddef */
  long long new_objects; /* dimensions, variables and global attributes this rank defined */
  long long owned_objects; /* of those, the ones this rank owns (shared ones: the lowest rank) */
} exa_enddef_stats;

/** Fills *stats for the last enddef of this file on this rank (zeros before
 *  any). Local. NC_EBADID; NC_EINVAL for a null pointer. */
extern int exa_inq_enddef_stats(int ncid, exa_enddef_stats *stats);

/** Partitioned files: the number of metadata blocks, from the index table
 *  (no block is read). Local. NC_ENOTSUPPORT for a classic file. */
extern int exa_inq_blocks(int ncid, MPI_Offset *nblocks);

/** Partitioned files: statistics of block `index` (0 .. nblocks-1, sorted by
 *  path) from the index table: its path (pass a buffer of at least
 *  EXA_MAX_PATH + 1 bytes, or NULL), object counts, file offset and size.
 *  Any pointer may be NULL. Local. NC_EINVAL for an index out of range. */
#define EXA_MAX_PATH 4096
extern int exa_inq_block(int ncid, MPI_Offset index, char *path, MPI_Offset *ndims,
                         MPI_Offset *nvars, MPI_Offset *natts, MPI_Offset *offset,
                         MPI_Offset *size);

/** Partitioned files: the generation of the current superblock (counts
 *  commits: 1 after the first enddef; 0 before it), and in *newer_damaged
 *  whether the open passed over a newer generation whose superblock slot
 *  (or the metadata it points at) is damaged or incomplete: the file reads
 *  as it was before that commit (after a crash or a full disk that is the
 *  expected state; otherwise the file was damaged). It stays set until this
 *  process commits a new generation. EXACDF_VERBOSE=1 prints what was passed
 *  over at the open. Either pointer may be NULL. Local, the same on every
 *  rank. NC_ENOTSUPPORT for a classic file. */
extern int exa_inq_generation(int ncid, long long *generation, int *newer_damaged);

/** The names of a partitioned file's dimensions and variables in the classic
 *  formats, whose names may not contain '/' (docs/format.md, "Converting to
 *  classic formats"; `exacdf convert` uses these). exa_classic_name writes
 *  into out (NC_MAX_NAME + 1 bytes) the classic name of a full object name:
 *  the leading '/' dropped, every other '/' written "__", a '_' followed by
 *  '_', '-' or '/' written "_-" (`/g00000/x` -> `g00000__x`, `a__b` ->
 *  `a_-_b`); NC_EBADNAME when name is not a valid name or path name,
 *  NC_EMAXNAME when the classic name would be longer than NC_MAX_NAME.
 *  exa_path_name writes into out (EXA_MAX_PATH + NC_MAX_NAME + 2 bytes) the
 *  full name whose classic name is `classic`, or `classic` itself when it is
 *  the classic name of none; NC_EMAXNAME when classic is longer than
 *  NC_MAX_NAME. NC_EINVAL for a null pointer. Local. */
extern int exa_classic_name(const char *name, char *out);
extern int exa_path_name(const char *classic, char *out);

/** Testing hook for crash tests: the nth MPI-IO write of this process from
 *  now on (positioned or collective: header, metadata blocks, index table,
 *  superblock, numrecs, fill values, data moved by a redef, variable data)
 *  fails with NC_EWRITE without writing anything, as if the process had
 *  died just before it (a collective write still takes part with nothing to
 *  write). 0 disarms. Local. */
extern void exa_debug_fail_write(int nth);

#if defined(__cplusplus)
}
#endif

#include "exacdf_relation.h"
#include "exacdf_query.h" /* queries over values, bitmap indexes */
#include "exacdf_swmr.h"
#include "exacdf_commit.h" /* testing hooks: metadata written by commits */
#include "exacdf_async.h" /* the async connector: wait, errors */
#include "exacdf_cache.h" /* the cache connector: recovery of its logs */

#endif /* EXACDF_H */
