// Testing hooks of exacdf.h (exa_debug_*), for crash and failure tests.
#include "exacdf.h"
#include "io/mpi_file.hpp"

void exa_debug_fail_write(int nth) { exa::io::fail_nth_write(nth); }
long long exa_debug_unordered_commits(void) { return exa::io::unordered_commits(); }
long long exa_debug_blocks_written(void) { return exa::io::metadata_blocks_written(); }
long long exa_debug_metadata_bytes_written(void) { return exa::io::metadata_bytes_written(); }
