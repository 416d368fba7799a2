// The seed-002 policy (src/relation/pure/policy.hpp) on both sides of every threshold.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "relation/pure/policy.hpp"

namespace exa::relation {
namespace {

PolicyInput in(uint64_t bytes, int n, double ratio = 1.0, double cv = 0.0) { return {bytes, n, ratio, cv}; }

TEST(RelationPolicy, ParsesStepLists) {
  unsigned m = 123;
  EXPECT_TRUE(parse_policy("all", &m));
  EXPECT_EQ(m, kAllSteps);
  EXPECT_TRUE(parse_policy("NONE", &m));
  EXPECT_EQ(m, 0u);
  EXPECT_TRUE(parse_policy("O1, o3,O5", &m));
  EXPECT_EQ(m, kO1Gather | kO3NoFill | kO5Hints);
  EXPECT_TRUE(parse_policy("O7", &m));
  EXPECT_EQ(m, kO7Phases);
  m = 99;
  for (const char* bad : {"O8", "O0", "O1,", ",O1", "O1,,O2", "x", "O12", "O"}) {
    EXPECT_FALSE(parse_policy(bad, &m)) << bad;
    EXPECT_EQ(m, 99u) << bad;
  }
}

TEST(RelationPolicy, LargeSharesAreWrittenIndependently) {
  EXPECT_TRUE(decide(in(4 * kIndependentShare, 4), kAllSteps).independent);       // mean share exactly 4 MiB
  EXPECT_FALSE(decide(in(4 * kIndependentShare - 1, 4), kAllSteps).independent);  // one byte less
  EXPECT_TRUE(decide(in(kLargeBytes, 64), kAllSteps).independent);
  EXPECT_FALSE(decide(in(kSmallBytes, 1), kAllSteps).independent);                 // one rank: nothing to aggregate
  EXPECT_FALSE(decide(in(kSmallBytes, 4), kAllSteps & ~kO5Hints).independent);    // O5 off: the library's default
  EXPECT_FALSE(decide(in(kTinyBytes - 1, kGatherMinRanks), kAllSteps).independent);  // O1: rank 0 writes alone
  EXPECT_TRUE(decide(in(kTinyBytes - 1, 2), kAllSteps & ~kO1Gather).independent);
  EXPECT_TRUE(decide(in(kTinyBytes - 1, 2), kAllSteps).independent);               // 2 ranks do not gather
}

TEST(RelationPolicy, TinyOutputsGatherAndSkipParallelSteps) {
  PolicyDecision d = decide(in(kTinyBytes - 1, 64, 1000, 5), kAllSteps);
  EXPECT_TRUE(d.gather);
  EXPECT_FALSE(d.two_phase);
  EXPECT_EQ(d.cb_nodes, 0);
  EXPECT_EQ(d.phases, 1);
  EXPECT_EQ(d.var_align, 4 * kKiB);
  d = decide(in(kGatherBytes, 64), kAllSteps);
  EXPECT_FALSE(d.gather);
  EXPECT_TRUE(d.two_phase);
  EXPECT_EQ(d.var_align, 4 * kMiB);
  // O1 switched off: the tiny output is written in parallel.
  d = decide(in(100, 4), kAllSteps & ~kO1Gather);
  EXPECT_FALSE(d.gather);
  EXPECT_TRUE(d.two_phase);
  // One rank: no two-phase create (the rank that defines is the only writer).
  d = decide(in(kTinyBytes, 1), kAllSteps);
  EXPECT_FALSE(d.gather);
  EXPECT_FALSE(d.two_phase);
}

// O1 weighs the rank count: a tiny output is gathered at one rank (its only
// writer) and from kGatherMinRanks ranks on, never at 2 or 3.
TEST(RelationPolicy, TinyOutputsGatherOnlyWithEnoughRanks) {
  EXPECT_TRUE(decide(in(100, 1), kAllSteps).gather);
  EXPECT_FALSE(decide(in(100, 2), kAllSteps).gather);
  EXPECT_FALSE(decide(in(kTinyBytes - 1, kGatherMinRanks - 1), kAllSteps).gather);
  EXPECT_TRUE(decide(in(kTinyBytes - 1, kGatherMinRanks), kAllSteps).gather);
  EXPECT_FALSE(decide(in(kGatherBytes, kGatherMinRanks), kAllSteps).gather);
  PolicyDecision d = decide(in(2 * kMiB, 2), kAllSteps);  // written in parallel, as with O1 off
  EXPECT_FALSE(d.gather);
  EXPECT_EQ(d.cb_nodes, 1);
  EXPECT_FALSE(d.independent);  // a 1 MiB share: collective
  EXPECT_EQ(d.phases, 1);
}

// O2 weighs the rank count too: a tiny output below kTwoPhaseMinRanks ranks
// (not gathered there) is created by every rank at once, unless own handles
// (an independent share) or O7's phases need the file defined by rank 0 first.
// usroad's checkpoints at 2 ranks are 2.4 MB.
TEST(RelationPolicy, TinyOutputsAtFewRanksAreCreatedCollectively) {
  static_assert(kTwoPhaseMinRanks <= kGatherMinRanks);  // every tiny output is gathered or takes this rule
  for (int n : {2, 3}) {
    if (n >= kTwoPhaseMinRanks) continue;
    PolicyDecision d = decide(in(2491248, n), kAllSteps);
    EXPECT_FALSE(d.gather) << n;
    EXPECT_FALSE(d.two_phase) << n;
    EXPECT_FALSE(d.independent) << n;
    EXPECT_EQ(d.cb_nodes, 1) << n;  // the other steps as before
    EXPECT_TRUE(d.no_fill) << n;
    EXPECT_TRUE(d.fixed_rows) << n;
    EXPECT_EQ(d.var_align, 4 * kKiB) << n;
    EXPECT_FALSE(decide(in(2 * kMiB, n), kAllSteps & ~kO1Gather).two_phase) << n;
    // Past the tiny tier O2 stays.
    EXPECT_TRUE(decide(in(kTinyBytes, n), kAllSteps).two_phase) << n;
    // Skew that O7 splits into phases keeps O2 (the phases open a defined file).
    d = decide(in(2 * kMiB, n, 1000.0, 0.0), kAllSteps);
    EXPECT_GT(d.phases, 1) << n;
    EXPECT_TRUE(d.two_phase) << n;
    // ... and with O7 off, the same output is created collectively.
    EXPECT_FALSE(decide(in(2 * kMiB, n, 1000.0, 0.0), kAllSteps & ~kO7Phases).two_phase) << n;
  }
  // An independent share (4 MiB or more a rank) keeps O2: own handles open the defined file.
  PolicyDecision d = decide(in(kTinyBytes - 1, 2), kAllSteps);
  EXPECT_TRUE(d.independent);
  EXPECT_TRUE(d.two_phase);
  // From kTwoPhaseMinRanks ranks on, a tiny output is gathered; with O1 off it keeps O2.
  EXPECT_TRUE(decide(in(2491248, kTwoPhaseMinRanks), kAllSteps & ~kO1Gather).two_phase);
  EXPECT_TRUE(decide(in(2491248, kTwoPhaseMinRanks), kAllSteps).gather);
  // O2 off: no two-phase create anywhere.
  EXPECT_FALSE(decide(in(kTinyBytes, 2), kAllSteps & ~kO2TwoPhase).two_phase);
}

// From kGatherMinRanks ranks on O1 reaches past the tiny tier, up to
// kGatherBytes (fe_ocean's 10.97 MB checkpoint at 4 ranks: gathered 146 ms,
// collective 251 ms); at one rank it stays with the tiny tier; O6 keeps its tiers.
TEST(RelationPolicy, GatherReachesPastTheTinyTierWithEnoughRanks) {
  const uint64_t fe_ocean_third = 10967616;  // bytes of its third checkpoint, 1224 vertices
  static_assert(kTinyBytes < 10967616 && 10967616 < kGatherBytes);
  for (int n : {kGatherMinRanks, 8, 64}) {
    PolicyDecision d = decide(in(fe_ocean_third, n), kAllSteps);
    EXPECT_TRUE(d.gather) << n;
    EXPECT_FALSE(d.two_phase) << n;
    EXPECT_EQ(d.cb_nodes, 0) << n;
    EXPECT_EQ(d.var_align, 4 * kMiB) << n;  // O6: the small tier still
    EXPECT_TRUE(decide(in(kGatherBytes - 1, n), kAllSteps).gather) << n;
    EXPECT_FALSE(decide(in(kGatherBytes, n), kAllSteps).gather) << n;
  }
  EXPECT_FALSE(decide(in(fe_ocean_third, 1), kAllSteps).gather);  // one rank: the tiny tier
  EXPECT_FALSE(decide(in(fe_ocean_third, 2), kAllSteps).gather);
  EXPECT_FALSE(decide(in(fe_ocean_third, kGatherMinRanks), kAllSteps & ~kO1Gather).gather);
}

TEST(RelationPolicy, AggregatorTiers) {
  EXPECT_EQ(tier_cb_nodes(kSmallBytes - 1, 2048), 64);
  EXPECT_EQ(tier_cb_nodes(kSmallBytes - 1, 128), 32);
  EXPECT_EQ(tier_cb_nodes(kSmallBytes, 2048), 32);
  EXPECT_EQ(tier_cb_nodes(kSmallBytes, 64), 8);
  EXPECT_EQ(tier_cb_nodes(kLargeBytes, 2048), 32);
  EXPECT_EQ(tier_cb_nodes(kLargeBytes + 1, 2048), 16);
  EXPECT_EQ(tier_cb_nodes(kLargeBytes + 1, 64), 4);
  EXPECT_EQ(tier_cb_nodes(kSmallBytes - 1, 2), 1);  // at least one aggregator
  EXPECT_EQ(tier_cb_nodes(kSmallBytes - 1, 1), 1);
}

TEST(RelationPolicy, BufferBudgetClamped) {
  EXPECT_EQ(tier_cb_buffer_size(kSmallBytes, 1), 512 * kMiB);      // 4 GiB / 1 clamped down
  EXPECT_EQ(tier_cb_buffer_size(kSmallBytes, 16), 256 * kMiB);     // 4 GiB / 16
  EXPECT_EQ(tier_cb_buffer_size(kSmallBytes, 2048), 32 * kMiB);    // 2 MiB clamped up
  EXPECT_EQ(tier_cb_buffer_size(kLargeBytes, 32), 128 * kMiB);     // 4 GiB budget up to 10 GiB
  EXPECT_EQ(tier_cb_buffer_size(kLargeBytes + 1, 32), 256 * kMiB); // 8 GiB above
}

TEST(RelationPolicy, AlignmentTiers) {
  EXPECT_EQ(tier_var_align(0), 4 * kKiB);
  EXPECT_EQ(tier_var_align(kTinyBytes - 1), 4 * kKiB);
  EXPECT_EQ(tier_var_align(kTinyBytes), 4 * kMiB);
  EXPECT_EQ(tier_var_align(kSmallBytes - 1), 4 * kMiB);
  EXPECT_EQ(tier_var_align(kSmallBytes), 8 * kMiB);
  EXPECT_EQ(tier_var_align(kLargeBytes), 8 * kMiB);
  EXPECT_EQ(tier_var_align(kLargeBytes + 1), 16 * kMiB);
  EXPECT_EQ(decide(in(kLargeBytes + 1, 4), kAllSteps & ~kO6Alignment).var_align, 0u);
}

TEST(RelationPolicy, SkewPhases) {
  EXPECT_EQ(skew_phases(10.0, 1.0, 64), 1);
  EXPECT_EQ(skew_phases(10.01, 0.0, 64), 4);
  EXPECT_EQ(skew_phases(1.0, 1.01, 64), 4);
  EXPECT_EQ(skew_phases(100.0, 2.0, 64), 4);
  EXPECT_EQ(skew_phases(100.01, 0.0, 64), 8);
  EXPECT_EQ(skew_phases(1.0, 2.01, 64), 8);
  EXPECT_EQ(skew_phases(std::numeric_limits<double>::infinity(), 0.0, 64), 8);
  EXPECT_EQ(skew_phases(1000, 0.0, 3), 3);  // never more phases than ranks
  EXPECT_EQ(decide(in(kSmallBytes, 64, 1000, 3), kAllSteps).phases, 8);
  EXPECT_EQ(decide(in(kSmallBytes, 64, 1000, 3), kAllSteps & ~kO7Phases).phases, 1);
}

TEST(RelationPolicy, SkewFromMoments) {
  double ratio = 0, cv = 0;
  skew_from_moments(40, 400, 10, 10, 4, &ratio, &cv);  // four ranks of 10
  EXPECT_DOUBLE_EQ(ratio, 1.0);
  EXPECT_DOUBLE_EQ(cv, 0.0);
  skew_from_moments(40, 1600, 40, 0, 4, &ratio, &cv);  // one rank holds everything
  EXPECT_TRUE(std::isinf(ratio));
  EXPECT_NEAR(cv, std::sqrt(3.0), 1e-12);
  skew_from_moments(0, 0, 0, 0, 4, &ratio, &cv);
  EXPECT_DOUBLE_EQ(ratio, 1.0);
  EXPECT_DOUBLE_EQ(cv, 0.0);
  skew_from_moments(30, 500, 20, 10, 2, &ratio, &cv);
  EXPECT_DOUBLE_EQ(ratio, 2.0);
  EXPECT_NEAR(cv, 5.0 / 15.0, 1e-12);
}

TEST(RelationPolicy, NoneIsTheLibraryDefault) {
  PolicyDecision d = decide(in(kLargeBytes * 2, 1024, 1e6, 10), 0);
  EXPECT_FALSE(d.gather || d.two_phase || d.no_fill || d.fixed_rows);
  EXPECT_EQ(d.cb_nodes, 0);
  EXPECT_EQ(d.var_align, 0u);
  EXPECT_EQ(d.phases, 1);
  d = decide(in(kLargeBytes * 2, 1024), kO3NoFill | kO4Layout);
  EXPECT_TRUE(d.no_fill && d.fixed_rows);
  EXPECT_FALSE(describe(in(1, 1), d).empty());
}

}  // namespace
}  // namespace exa::relation
