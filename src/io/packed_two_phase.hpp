// One collective put or get whose pieces are many small runs of the file,
// moved by an aggregation of exacdf's own instead of OMPIO's collective call.
//
// Why (docs/perf/data_direct.md, section 5): for such pieces OMPIO writes
// every run of every rank with its own pwritev (65,536 calls of 512 bytes per
// rank for pattern X at 2 ranks, 64 MiB), the ranks contending for the file's
// inode lock (`rwsem_spin_on_owner` is the top symbol of PnetCDF's and
// exacdf's profiles there), and for a read every rank reads the whole extent
// of its view (each rank 64 MiB at 2 and at 4 ranks).
//
// Here [lo, hi) (the union of every rank's extents) is cut into one
// contiguous domain per rank. A rank's runs are in packed order, ascending in
// the file, so the bytes it sends each owner are one contiguous slice of its
// packed buffer: the runs' offsets and lengths go in one alltoallv, the bytes
// straight from the packed buffer in a second (no packing copy). Each owner
// writes its domain from a 1 MiB staging buffer, one write per contiguous
// stretch. A get sends the offsets, each owner reads its domain's stretch once
// and returns each rank its bytes in that rank's order, received straight into
// its packed buffer.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "io/aggregate.hpp"
#include "io/hints.hpp"
#include "io/mpi_file.hpp"
#include "util/status.hpp"

namespace exa::io {

enum class OwnTwoPhase { kAuto, kEnable, kDisable };

// exa_two_phase from the merged hints (auto when absent or unknown).
OwnTwoPhase own_two_phase_hint(const Hints& hints);
// exa_two_phase_round (bytes of a round's window, rounded up to a multiple
// of kDomainAlign), kRoundBytes when absent or not a positive number.
int64_t two_phase_round_hint(const Hints& hints);

// A domain's size is a multiple of this (a multiple of every element size,
// so no element is split between two owners).
inline constexpr int64_t kDomainAlign = 4096;
// A domain moves in rounds of windows of at most this many bytes (a multiple
// of kDomainAlign): each round one alltoallv, buffers of a window, reused.
inline constexpr int64_t kRoundBytes = int64_t{8} << 20;
// No rank's domain larger than this.
inline constexpr int64_t kMaxDomainBytes = int64_t{256} << 20;

// How one rank votes on a collective put or get: nothing to move, a piece of
// many small runs, a put's piece that is one contiguous run of the file
// (written by this rank alone when every rank's is, layer/native_data_ops.cpp),
// or a piece neither path is for (large runs go direct,
// io/direct_write.hpp; record pieces, compact variables...).
enum class TwoPhaseVote : int64_t { kNothing = 0, kSmallRuns = 1, kOther = 2, kOneRun = 3 };

// What the ranks agreed on: `two_phase` when no rank voted kOther or kOneRun,
// some rank voted kSmallRuns and every domain fits kMaxDomainBytes ([lo, hi)
// is then the union of the extents); `own` when every rank voted kOneRun or
// kNothing, some rank kOneRun, and no two of those runs overlap.
struct PathAgreement {
  bool two_phase = false;
  bool own = false;
  int64_t lo = 0, hi = 0;
};

// The agreement from every rank's (vote, lo, hi), `n` triples in rank order
// (what agree_two_phase gathers; exposed for the unit tests).
PathAgreement decide_path(const int64_t* votes, int n);

// Collective: one allgather of every rank's vote and extent ([lo, hi) of its
// runs); every rank decides the same from it (decide_path).
Status agree_two_phase(MPI_Comm comm, TwoPhaseVote vote, int64_t lo, int64_t hi, PathAgreement* out);

// Collective over `comm` (`file` is its handle; its view is set back to bytes
// here). `runs`: this rank's file runs in packed order, ascending and
// disjoint; `packed`: their external bytes back to back. A failed write is
// its domain owner's (a rank with nothing to write passes no runs).
// `round` is the window of a round (two_phase_round_hint).
Status write_packed_two_phase(MPI_Comm comm, MpiFile& file, const std::vector<Segment>& runs,
                              const uint8_t* packed, int64_t lo, int64_t hi, int64_t round = kRoundBytes);

// The same for a get: `packed` receives the runs' bytes (bytes past the end
// of the file read as zeros). A failed read of an owner fails every rank
// whose bytes it held.
Status read_packed_two_phase(MPI_Comm comm, MpiFile& file, const std::vector<Segment>& runs,
                             uint8_t* packed, int64_t lo, int64_t hi, int64_t round = kRoundBytes);

}  // namespace exa::io
