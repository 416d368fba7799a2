/*
 * exacdf_commit.h -- testing hooks for the cost of commits of partitioned
 * files (docs/format.md): how much metadata this process wrote. Included by
 * exacdf.h.
 */
#ifndef EXACDF_COMMIT_H
#define EXACDF_COMMIT_H

#if defined(__cplusplus)
extern "C" {
#endif

/** Metadata blocks of partitioned files this process wrote (at an enddef,
 *  a redef, or a commit of compact variables' data), over every file of
 *  the process since it started. Local. */
extern long long exa_debug_blocks_written(void);

/** Bytes of partitioned metadata this process wrote: blocks, index tables
 *  (head and pages) and superblocks. Local. */
extern long long exa_debug_metadata_bytes_written(void);

/** Bytes of partitioned metadata this process read after opening a file
 *  (or ending its first define mode): index pages and metadata blocks read
 *  on use, e.g. by a commit of compact variables' data (what an open reads
 *  first -- superblocks, the index head, page 0, the root block -- is not
 *  counted). Local. */
extern long long exa_debug_metadata_bytes_read(void);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_COMMIT_H */
