/* exacdf_async.h -- the async connector's extensions (EXACDF_CONNECTORS=async,
 * or the hint exa_connectors=async{mem=...}). Included by exacdf.h. */
#ifndef EXACDF_ASYNC_H
#define EXACDF_ASYNC_H

#if defined(__cplusplus)
extern "C" {
#endif

/** The code of an operation the async connector cancelled because an earlier
 *  operation it depends on (same variable, overlapping region) failed. */
#define EXA_ECANCELED (-600)

/** One failed background operation. */
typedef struct {
  int code;            /* its NC code (EXA_ECANCELED: cancelled) */
  char call[64];       /* the API call, e.g. "ncmpi_put_vara_float_all" */
  char args[192];      /* its arguments in short: "varid=3 start=[0,10] count=[1,5]" */
  long long sequence;  /* the operation's sequence number in the file (1 = first) */
  double time;         /* MPI_Wtime() when the call was made */
} exa_async_error_info;

/** Waits up to timeout_s seconds (< 0: no limit) for the file's background
 *  operations; *pending (may be NULL) gets how many are left. Returns the first
 *  error of a background operation not yet returned by a completing call, or
 *  NC_NOERR. A file whose stack has no async connector has nothing pending. Local. */
extern int exa_async_wait(int ncid, double timeout_s, int *pending);

/** The index-th (from 0) failed background operation of the file; NC_EINVAL
 *  past the last one (and for a stack without async). Local. */
extern int exa_async_error(int ncid, int index, exa_async_error_info *info);

/** The most bytes the file's async connector's copy buffers have held at once
 *  (queued puts' copies, buffers kept for reuse and buffers being made ready;
 *  at most its mem= bound); 0 for a stack without async. Local. */
extern int exa_async_peak_bytes(int ncid, long long *bytes);

/** Debugging: the file's background tasks (a copy's conversion to the file's
 *  byte order, a call below) running now, the most of them that ran at once so
 *  far, and the most tasks of the process's thread pool that ran at once (0
 *  for a stack without async or without MPI_THREAD_MULTIPLE; any pointer may
 *  be NULL). Local. */
extern int exa_async_concurrency(int ncid, int *file_now, int *file_max, int *process_max);

/** Debugging: the most writes of independent puts that ran at once in this
 *  process (the async connector's split puts, each through a handle of its
 *  own: async{concurrent=on}) since the last reset; reset != 0 starts the
 *  count again. Local. */
extern int exa_debug_concurrent_writes(int reset);

#if defined(__cplusplus)
}
#endif

#endif /* EXACDF_ASYNC_H */
