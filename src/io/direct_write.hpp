// Direct puts (issue 16): when this rank's piece of a put is a few large runs
// of the file and its values need converting (a byte swap on a little-endian
// host, or another type), the values are converted a slice at a time into a
// small staging buffer that stays in the cache, and each slice is written
// from there with MPI_File_write_at on this rank alone. The usual path
// converts the whole piece first (in the caller's buffer and back again, or
// into a piece-sized scratch) and hands it to one MPI-IO call with a file
// view: three passes over memory the size of the piece where this makes one,
// and the kernel's copy into the page cache reads a buffer already in cache.
// A collective put still makes its collective MPI-IO call (with nothing from
// a rank that writes directly), so ranks of either kind mix in one call --
// unless every rank's piece is one contiguous run and none overlap (agreed in
// the collective put's vote, layer/native_data_ops.cpp): then no rank makes it.
// Gets the same way: each slice is read into the staging buffer and converted
// from there into the caller's buffer.
// Hint exa_direct_put=auto|enable|disable, for puts and gets (docs/perf/data_direct.md).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "io/access_plan.hpp"
#include "io/aggregate.hpp"
#include "io/hints.hpp"
#include "io/mpi_file.hpp"
#include "util/status.hpp"

namespace exa::io {

// The staging buffer: a slice of at most this many bytes is converted and
// written at a time (a whole number of elements). 1 MiB: fewer calls than
// 256 KiB and still in the core's L2 (measured, docs/perf/data_direct.md).
inline constexpr int64_t kDirectStageBytes = int64_t{1} << 20;
// A get read straight into the caller's buffer: slices this large (fewer
// MPI-IO calls; the swap after each still finds it in the L3 cache).
inline constexpr int64_t kDirectInPlaceReadBytes = int64_t{8} << 20;
// auto: pieces from this size up, whose runs are this long on average.
inline constexpr int64_t kDirectMinBytes = int64_t{1} << 20;
inline constexpr int64_t kDirectMinRun = int64_t{32} << 10;
// enable: at most this many runs (their list is held in memory).
inline constexpr int64_t kDirectMaxRuns = int64_t{1} << 20;

enum class DirectPut { kAuto, kEnable, kDisable };

// exa_direct_put from the merged hints (auto when absent or unknown).
DirectPut direct_put_hint(const Hints& hints);

// The file runs of a selection of a variable without record pieces, in the
// order of the packed buffer, runs that follow each other in the file
// merged (a Z slab is one run): true and the runs in *out when a put of
// `xbytes` bytes is to be moved directly under `mode` (auto: at least
// kDirectMinBytes, runs of kDirectMinRun on average; enable: any size, up to
// kDirectMaxRuns runs; disable: never). Segment::data is left null.
bool plan_direct_runs(const VarGeometry& var, const Selection& sel, int64_t xbytes, DirectPut mode,
                      std::vector<Segment>* out);

// Fills `out` with the external bytes [at, at + n) of the packed piece (n a
// whole number of elements, at most kDirectStageBytes).
using ProduceExternal = std::function<Status(int64_t at, int64_t n, uint8_t* out)>;

// Writes `runs` (packed order) on this rank alone through `file`, slice by
// slice from `stage` (kDirectStageBytes bytes) as `produce` fills it. The
// caller guarantees this rank's view of `file` is bytes from offset 0 (an
// MPI-IO call with nothing just set it, or a handle of this rank alone) and
// has counted the write for exa_debug_fail_write. Stops at the first error.
Status write_runs_staged(MpiFile& file, const std::vector<Segment>& runs, int64_t xsize,
                         const ProduceExternal& produce, uint8_t* stage);

// The same for a get: each slice of the runs is read into `stage` on this
// rank alone (bytes past the end of the file read as zeros, as in
// io::transfer) and handed to `consume` (the external bytes [at, at + n) of
// the packed piece), which converts them into the caller's buffer. One pass
// over the caller's memory instead of two (the kernel's copy, the swap).
using ConsumeExternal = std::function<Status(int64_t at, int64_t n, uint8_t* in)>;  // (may change `in`)
// With `packed` (the caller's buffer, when its values have the external
// size) each slice is read straight into its place there instead, and
// `consume` swaps it while it is still in the cache.
Status read_runs_staged(MpiFile& file, const std::vector<Segment>& runs, int64_t xsize,
                        const ConsumeExternal& consume, uint8_t* stage, uint8_t* packed = nullptr);

}  // namespace exa::io
