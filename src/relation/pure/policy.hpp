// The size- and skew-aware write policy of seed 002 (Table 1, O1..O7): which
// steps apply to one relation write, decided from its total size, the rank
// count and the skew of the per-rank sizes. Pure (no MPI) so every threshold
// is unit tested; src/relation/relation_writer.cpp applies the decision.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace exa::relation {

// One bit per step; kAllSteps is the default, 0 is "none".
enum PolicyStep : unsigned {
  kO1Gather = 1u << 0,      // tiny output: gather to rank 0, one write
  kO2TwoPhase = 1u << 1,    // rank 0 creates and defines, all reopen and write collectively
  kO3NoFill = 1u << 2,      // explicit no-fill for full overwrites
  kO4Layout = 1u << 3,      // fixed-size row dimension (contiguous) instead of a record dimension
  kO5Hints = 1u << 4,       // MPI-IO hints by size tier
  kO6Alignment = 1u << 5,   // nc_var_align_size by size tier
  kO7Phases = 1u << 6,      // skew-aware write phases
};
inline constexpr unsigned kAllSteps = 0x7f;

// The sizes the limits are measured in (binary units).
inline constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
inline constexpr uint64_t kTinyBytes = 10 * kMiB;    // O1, O6 lowest tier
inline constexpr uint64_t kSmallBytes = 1 * kGiB;    // O5, O6 tier edge
inline constexpr uint64_t kLargeBytes = 10 * kGiB;   // O5, O6 tier edge
// O5: when the mean share of a rank is at least this, each rank writes its
// rows (one contiguous run, disjoint from the others') independently:
// aggregation cannot merge runs that large, it only moves them to the
// aggregators first (with cb_nodes = 1, as the tier gives at 4 ranks, every
// byte went through rank 0). The size of the O6 middle tier, a run of a
// whole 4 MiB Lustre stripe or more.
inline constexpr uint64_t kIndependentShare = 4 * kMiB;
// O1 gathers a tiny output to rank 0 only from this many ranks on (or at one
// rank, where rank 0 is the only writer anyway). Gathering costs what moving
// the rows to one rank and writing them serially costs, which grows with the
// bytes; it saves the fixed cost of the ranks' parallel create, open, write
// and sync, which grows with the rank count. On this machine (2 cores, the
// quiet run of docs/perf/checkpoint.md) the gather cost more than it saved at
// 2 ranks for every graph (usroad: 24 ms without O1, 28 ms with it alone;
// fe_ocean, 6-10 MB per checkpoint: 45 ms without the policy, 53 ms with it)
// and saved at 4 and 8 (usroad: 38 -> 30 ms, 47 -> 32 ms); 3 ranks were not
// measured and keep the library's default (every rank writes its rows).
inline constexpr int kGatherMinRanks = 4;
// From kGatherMinRanks ranks on O1 gathers outputs up to this size, above the
// tiny tier: fe_ocean's third checkpoint (10.97 MB, just over kTinyBytes) took
// the ranks' collective path at 4 ranks, 251 ms against 146 ms gathered
// (medians of 12 pairs under load 21-28, 1.27 and 0.74 of MPI-IO OPT's time
// for it; docs/perf/checkpoint.md, 2026-11-25). At one rank the tiny tier stays
// (the same write either way; no gain measured).
inline constexpr uint64_t kGatherBytes = 16 * kMiB;
// O2 (rank 0 creates and defines alone, then every rank reopens) applies to a
// tiny output only from this many ranks on. Below it, where a tiny output is
// not gathered either, every rank creates the file collectively: O2 cost one
// more MPI-IO open and close on rank 0 per checkpoint, and in a process's
// first checkpoint each rank loaded OMPIO's components in turn (rank 0 in its
// create, the others in the reopen) instead of at once; usroad at 2 ranks
// (2.4 MB a checkpoint) was above MPI-IO OPT only in its first checkpoint
// (12.4 ms against 10.2, medians of 30, docs/perf/checkpoint.md, 2026-11-25).
// Own handles (O5's independent share) and O7's phases keep O2: they open a
// file rank 0 has defined.
inline constexpr int kTwoPhaseMinRanks = kGatherMinRanks;

// "all", "none", or a comma list of step names ("O1,O3,o5"; spaces ignored).
// False for anything else (mask untouched).
bool parse_policy(std::string_view text, unsigned* mask);

struct PolicyInput {
  uint64_t total_bytes = 0;  // the relation's bytes over all ranks
  int nprocs = 1;
  double ratio = 1.0;        // max/min per-rank bytes (infinity when min is 0 and max is not)
  double cv = 0.0;           // coefficient of variation of per-rank bytes
};

struct PolicyDecision {
  unsigned mask = 0;           // the steps allowed
  bool gather = false;         // O1
  bool two_phase = false;      // O2
  bool no_fill = false;        // O3
  bool fixed_rows = false;     // O4 (else an unlimited row dimension)
  int cb_nodes = 0;            // O5 (0: hints not set)
  uint64_t cb_buffer_size = 0; // O5
  uint64_t var_align = 0;      // O6 (0: library default)
  int phases = 1;              // O7
  bool independent = false;    // O5: each rank's rows written independently (kIndependentShare)
};

PolicyDecision decide(const PolicyInput& in, unsigned mask);

// The O5 aggregator count, O5 collective buffer size, O6 alignment and O7
// phase count for a size / rank count / skew (used by decide, and by the
// HDF5 and MPI-IO OPT peers in bench/ so every configuration uses one rule).
int tier_cb_nodes(uint64_t total_bytes, int nprocs);
uint64_t tier_cb_buffer_size(uint64_t total_bytes, int nprocs);
uint64_t tier_var_align(uint64_t total_bytes);
int skew_phases(double ratio, double cv, int nprocs);

// Ratio and CV from the sum, sum of squares, max and min of per-rank bytes.
void skew_from_moments(double sum, double sum_sq, double max, double min, int nprocs,
                       double* ratio, double* cv);

// One line for EXACDF_VERBOSE.
std::string describe(const PolicyInput& in, const PolicyDecision& d);

}  // namespace exa::relation
