/*
 * exacdf_swmr.h -- single writer, multiple readers (docs/format.md, "SWMR").
 * Included by exacdf.h.
 */
#ifndef EXACDF_SWMR_H
#define EXACDF_SWMR_H

#include <pnetcdf.h>

#if defined(__cplusplus)
extern "C" {
#endif

/** Testing hook for the commit order: how many commit points (a partitioned
 *  superblock, a classic numrecs written as a commit: ncmpi_sync, ncmpi_close,
 *  an SWMR writer) this process wrote while some of its own writes were not
 *  yet synced. A crash there could keep the commit and lose what it counts;
 *  the count stays 0. Local; counts over every file of the process. */
extern long long exa_debug_unordered_commits(void);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_SWMR_H */
