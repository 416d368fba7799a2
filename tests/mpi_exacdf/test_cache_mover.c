/* test_cache_identical.c with MPI_THREAD_MULTIPLE: the cache connector's
 * mover thread drains the log while the program puts. */
#define CACHE_TEST_THREADS 1
#include "test_cache_identical.c"
