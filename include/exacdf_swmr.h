/*
 * exacdf_swmr.h -- single writer, multiple readers (docs/format.md, "SWMR").
 * Included by exacdf.h.
 */
#ifndef EXACDF_SWMR_H
#define EXACDF_SWMR_H

#include <pnetcdf.h>

/** Open/create mode flag: this job is the single writer of a file that
 *  readers in other jobs follow (same as the hint exa_swmr=write). Every
 *  commit is ordered (what it counts synced on every rank before the commit
 *  point, which is synced too). Partitioned files: every ncmpi_sync,
 *  ncmpi_flush, ncmpi_enddef and ncmpi_close commits a new generation whose
 *  superblock carries the writer's heartbeat; any change is allowed.
 *  Classic files: records are appended (numrecs written, in order, at every
 *  record growth); ncmpi_redef is refused (NC_ENOTSUPPORT).
 *  Hints (partitioned): exa_swmr_refresh_bound=SECONDS, agreed with the
 *  readers, lets the writer reuse space older generations referenced 2
 *  bounds after they stopped (readers get NC_ECANTREAD on a view older than
 *  the bound); exa_swmr_commit_interval=SECONDS also commits at a collective
 *  put of a record variable once that long has passed since the first put
 *  after the last commit (docs/format.md, "SWMR"). */
#define EXA_SWMR_WRITE 0x04000000
/** Open mode flag (read-only): this job follows a file an SWMR writer in
 *  another job is changing (same as the hint exa_swmr=read). The file looks
 *  as one committed generation until exa_refresh (or ncmpi_sync). */
#define EXA_SWMR_READ 0x08000000

#if defined(__cplusplus)
extern "C" {
#endif

/** Collective over the reader's communicator: moves an EXA_SWMR_READ handle
 *  to the newest committed generation (partitioned: the newest valid
 *  superblock, whose metadata is read as at an open; classic: the newest
 *  numrecs whose records are all in the file). Never moves back. A
 *  generation that cannot be read whole after a few tries is an error
 *  (NC_EFILEMETA/NC_ETRUNC) and the handle keeps the generation it had.
 *  ncmpi_sync on such a handle does the same. NC_EPERM on a handle that is
 *  not an SWMR reader. */
extern int exa_refresh(int ncid);

/** Microseconds since the Unix epoch when the SWMR writer committed the
 *  generation in view (its heartbeat; 0 when the file has none: classic, or
 *  not written by an SWMR writer). A reader compares it with its clock to
 *  tell a live writer from a dead one. Local. */
extern int exa_inq_heartbeat(int ncid, long long *heartbeat_us);

/** Testing hook for the commit order: how many commit points (a partitioned
 *  superblock, a classic numrecs written as a commit: ncmpi_sync, ncmpi_close,
 *  an SWMR writer) this process wrote while some of its own writes were not
 *  yet synced. A crash there could keep the commit and lose what it counts;
 *  the count stays 0. Local; counts over every file of the process. */
extern long long exa_debug_unordered_commits(void);

/** Testing hook for crash tests by kill -9: every write, sync and size
 *  change this process makes on its files is one I/O event; the process
 *  kills itself with SIGKILL just before its nth event from now on (0
 *  disarms). The environment variable EXACDF_DEBUG_KILL_AT=n does the same
 *  from the start of the program. Local. */
extern void exa_debug_kill_at(long long nth);
/** I/O events (see exa_debug_kill_at) this process made so far. Local. */
extern long long exa_debug_io_events(void);

/** Testing hook for the lag bound (bench/swmr_bench.c): the last superblock
 *  commit of a partitioned file this process took part in: its generation
 *  (0: none yet) and the wall-clock times (seconds since the Unix epoch,
 *  CLOCK_REALTIME) when the commit began (before the sync of the data it
 *  counts), when rank 0 wrote the superblock (readers on the node can see it
 *  from then on; other ranks report the sync's end) and when the superblock
 *  was synced on every rank. Any pointer may be NULL. Local. */
extern void exa_debug_last_commit(long long *generation, double *began, double *written, double *synced);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_SWMR_H */
