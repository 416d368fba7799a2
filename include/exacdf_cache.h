/*
 * exacdf_cache.h -- the cache connector's logs (EXACDF_CONNECTORS=cache{...};
 * README "The cache connector"). Included by exacdf.h.
 */
#ifndef EXACDF_CACHE_H
#define EXACDF_CACHE_H

#include <stddef.h>

#if defined(__cplusplus)
extern "C" {
#endif

/** Replays the cache logs of `path` found in `dir` (NULL: the default tier,
 *  /dev/shm/exacdf-cache-<uid>): every rank's log is checked against the
 *  file (path, file identity, header digest); every committed record is
 *  written in order (a torn tail is dropped), the file is synced, then the
 *  logs are removed. A log that belongs to another file or generation is
 *  refused (NC_EINVAL, nothing written, logs kept). Local to the caller (it
 *  opens the file on MPI_COMM_SELF); MPI must be initialized. `report`
 *  (may be NULL) receives a NUL-terminated account, one line per log, or
 *  the reason of a failure. No logs: NC_NOERR. */
extern int exa_cache_recover(const char *path, const char *dir, char *report, size_t report_size);

/** How many cache logs of `path` wait in `dir` (NULL: the default tier). */
extern int exa_cache_pending(const char *path, const char *dir, int *nlogs);

/** What the cache connector's read prefetch (cache{prefetch=N;ghost=...})
 *  did on this rank for a file so far. */
typedef struct {
  long long served_reads;   /**< gets answered from prefetched chunks in the tier */
  long long direct_reads;   /**< gets prefetch could serve that went to the file */
  long long fetched_chunks; /**< chunks read into the tier and kept */
  long long fetched_bytes;  /**< their bytes */
  long long dropped_chunks; /**< fetched but thrown away (a write came first) */
} exa_cache_read_info;

/** The counters of `ncid` (all zero when its stack has no cache connector
 *  or prefetch is off). Local. */
extern int exa_cache_read_stats(int ncid, exa_cache_read_info *info);

/** Testing hook for write-order tests: this process's data writes land `ms`
 *  milliseconds late. An independent write sleeps first; in a collective
 *  write this rank takes part with nothing, and once the collective call has
 *  returned it sleeps and writes its part alone -- as a rank (or an
 *  aggregator) of a collective write may still be writing after the others
 *  returned. 0 disarms. Local. */
extern void exa_debug_late_writes(int ms);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_CACHE_H */
