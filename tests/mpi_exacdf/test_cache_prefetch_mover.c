/* test_cache_prefetch.c with MPI_THREAD_MULTIPLE: the cache connector's
 * fetcher thread reads the predicted chunks while the program goes on (and
 * its mover drains the log). */
#define CACHE_PREFETCH_THREADS 1
#include "test_cache_prefetch.c"
