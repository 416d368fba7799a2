/* test_cache_order.c with MPI_THREAD_MULTIPLE: the cache connector's mover
 * thread drains records while the program puts, and must keep the order of
 * collective puts across ranks too. */
#define CACHE_ORDER_THREADS 1
#include "test_cache_order.c"
