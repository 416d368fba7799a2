// format::ReusableSpace: when an SWMR writer may write space again.
#include <gtest/gtest.h>

#include "format/reusable_space.hpp"

using exa::format::ReusableSpace;

TEST(ReusableSpace, OffWithoutBound) {
  ReusableSpace s;
  s.release(4096, 100, 2, 0.0);
  EXPECT_EQ(s.bytes(), 0);
  EXPECT_EQ(s.take(10, 100, 1e9), -1);
}

TEST(ReusableSpace, TwoBoundsAndTwoGenerationsLater) {
  ReusableSpace s;
  s.set_bound(1.0);
  s.release(4096, 100, 5, 10.0);  // released by generation 5 at t = 10
  EXPECT_EQ(s.take(100, 6, 100.0), -1);  // slot of generation 4 may still be the fallback
  EXPECT_EQ(s.take(100, 7, 11.9), -1);   // a reader may still use it (< 2 bounds)
  EXPECT_EQ(s.take(101, 7, 12.0), -1);   // too small
  EXPECT_EQ(s.take(60, 7, 12.0), 4096);
  EXPECT_EQ(s.bytes(), 40);
  EXPECT_EQ(s.take(40, 7, 12.0), 4156);
  EXPECT_EQ(s.bytes(), 0);
}

TEST(ReusableSpace, AdjacentExtentsMergeConservatively) {
  ReusableSpace s;
  s.set_bound(1.0);
  s.release(5000, 100, 3, 1.0);
  s.release(4900, 100, 4, 2.0);  // before it
  s.release(5100, 50, 2, 0.5);   // after it
  s.release(6000, 10, 2, 0.5);   // apart
  EXPECT_EQ(s.bytes(), 260);
  // One extent 4900..5150, released at generation 4, t = 2 (the later).
  EXPECT_EQ(s.take(250, 5, 10.0), -1);
  EXPECT_EQ(s.take(250, 6, 3.9), -1);
  EXPECT_EQ(s.take(250, 6, 4.0), 4900);
  EXPECT_EQ(s.take(10, 6, 4.0), 6000);
  EXPECT_EQ(s.take(1, 6, 4.0), -1);
}

TEST(ReusableSpace, BestFit) {
  ReusableSpace s;
  s.set_bound(1.0);
  s.release(4096, 1000, 2, 0.0);
  s.release(8192, 100, 2, 0.0);
  s.release(9000, 100, 9, 0.0);  // not reusable yet at generation 10 (needs 11)
  EXPECT_EQ(s.take(100, 10, 5.0), 8192);   // the exact fit, not the first
  EXPECT_EQ(s.take(100, 10, 5.0), 4096);   // then the larger one, split
  EXPECT_EQ(s.take(900, 10, 5.0), 4196);
  EXPECT_EQ(s.take(100, 10, 5.0), -1);
  EXPECT_EQ(s.take(100, 11, 5.0), 9000);
}

// A writer without SWMR (index commits): the generation rule alone.
TEST(ReusableSpace, GenerationsOnly) {
  ReusableSpace s;
  s.set_generations_only();
  EXPECT_TRUE(s.enabled());
  s.release(4096, 200, 7, 100.0);
  EXPECT_EQ(s.take(200, 8, 0.0), -1);  // generation 6's slot may still reference it
  EXPECT_EQ(s.take(200, 9, 0.0), 4096);
  EXPECT_EQ(s.bytes(), 0);
  s.set_bound(0);  // (and off again)
  EXPECT_FALSE(s.enabled());
}
