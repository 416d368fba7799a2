// Memory for the rows a checkpoint stages until its commit (and rank 0's
// gathered copy under O1). Every staged byte is fresh memory, first touched
// by the copy into it, and a checkpoint holds all its relations at once, so
// the allocator cannot hand back the pages of the relation written just
// before (as it does for a writer that frees each relation's rows after its
// write). On this machine's VM a 4 KiB page fault costs 1-10 us: a 20 MB
// buffer took 54 ms to fill at 4 KiB pages, 3 ms in 2 MiB pages, 2.3 ms
// reused (docs/perf/checkpoint.md, "Staging in huge pages"). So buffers of
// 2 MiB and more are 2 MiB-aligned, rounded up to whole 2 MiB (less than
// 2 MiB more per relation) and advised MADV_HUGEPAGE (a hint: where
// transparent huge pages are off it changes nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace exa::relation {

struct FreeRows {
  void operator()(uint64_t* p) const noexcept { std::free(p); }
};
using StagedRows = std::unique_ptr<uint64_t[], FreeRows>;

// Room for `values` uint64 values (never null for 0); nullptr when out of memory.
StagedRows allocate_rows(size_t values);

}  // namespace exa::relation
