// Testing hooks of exacdf.h (exa_debug_*), for crash and failure tests.
#include "exacdf.h"
#include "io/mpi_file.hpp"

void exa_debug_fail_write(int nth) { exa::io::fail_nth_write(nth); }
long long exa_debug_unordered_commits(void) { return exa::io::unordered_commits(); }
void exa_debug_kill_at(long long nth) { exa::io::kill_at_io_event(nth); }
void exa_debug_late_writes(int ms) { exa::io::set_late_writes(ms); }
long long exa_debug_io_events(void) { return exa::io::io_events(); }
long long exa_debug_blocks_written(void) { return exa::io::metadata_blocks_written(); }
long long exa_debug_metadata_bytes_written(void) { return exa::io::metadata_bytes_written(); }
long long exa_debug_metadata_bytes_read(void) { return exa::io::metadata_bytes_read(); }
void exa_debug_last_commit(long long* generation, double* began, double* written, double* synced) {
  const exa::io::CommitTiming t = exa::io::last_commit();
  if (generation != nullptr) *generation = t.generation;
  if (began != nullptr) *began = t.began;
  if (written != nullptr) *written = t.written;
  if (synced != nullptr) *synced = t.synced;
}
