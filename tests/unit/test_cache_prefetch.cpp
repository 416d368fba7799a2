// The cache connector's read prefetch, MPI-free part: boxes, ghost zones,
// stride prediction, and copying a selection out of a prefetched box.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "layer/cache_prefetch.hpp"
#include "layer/cache_reads.hpp"

namespace pf = exa::layer::prefetch;
using exa::layer::PrefetchJob;
using exa::layer::ReadCache;

namespace {

pf::Box box(std::vector<int64_t> start, std::vector<int64_t> count) { return pf::Box{std::move(start), std::move(count)}; }

TEST(CachePrefetch, BoundingBoxAndCover) {
  const int64_t start[] = {2, 3}, count[] = {3, 4}, stride[] = {2, 1};
  EXPECT_EQ(pf::bounding_box(2, start, count, stride), box({2, 3}, {5, 4}));
  EXPECT_EQ(pf::bounding_box(2, start, count, nullptr), box({2, 3}, {3, 4}));
  const int64_t none[] = {3, 0};
  EXPECT_TRUE(pf::bounding_box(2, start, none, nullptr).empty());
  EXPECT_TRUE(pf::covers(box({0, 0}, {10, 10}), box({2, 3}, {5, 4})));
  EXPECT_TRUE(pf::covers(box({2, 3}, {5, 4}), box({2, 3}, {5, 4})));
  EXPECT_FALSE(pf::covers(box({2, 3}, {5, 4}), box({2, 3}, {5, 5})));
  EXPECT_FALSE(pf::covers(box({2, 3}, {5, 4}), box({1, 3}, {1, 1})));
  EXPECT_FALSE(pf::covers(box({0}, {10}), box({0, 0}, {1, 1})));  // another rank of box
  EXPECT_FALSE(pf::covers(box({0}, {10}), box({0}, {0})));        // nothing
}

TEST(CachePrefetch, GhostIsClippedAtTheEdges) {
  const std::vector<int64_t> dims = {10, 20};
  EXPECT_EQ(pf::grown(box({0, 5}, {4, 5}), {1, 2}, dims), box({0, 3}, {5, 9}));
  EXPECT_EQ(pf::grown(box({8, 17}, {2, 3}), {1, 2}, dims), box({7, 15}, {3, 5}));
  EXPECT_TRUE(pf::grown(box({10, 0}, {2, 3}), {0, 0}, dims).empty());  // past the end
  EXPECT_EQ(pf::grown(box({9, 0}, {4, 3}), {0, 0}, dims), box({9, 0}, {1, 3}));
}

TEST(CachePrefetch, GhostSettingAppliesToTheLastDimensions) {
  EXPECT_EQ(pf::ghost_for({1}, 3), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(pf::ghost_for({1, 2}, 3), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(pf::ghost_for({1, 2, 3}, 2), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(pf::ghost_for({}, 2), (std::vector<int64_t>{0, 0}));
}

TEST(CachePrefetch, StrideIsPredictedAfterTwoEqualSteps) {
  pf::History h;
  h.note(box({0, 0}, {4, 8}));
  EXPECT_TRUE(h.predict(2).empty());
  h.note(box({0, 8}, {4, 8}));
  EXPECT_TRUE(h.predict(2).empty());  // one step is no stride yet
  h.note(box({0, 16}, {4, 8}));
  const std::vector<pf::Box> next = h.predict(2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], box({0, 24}, {4, 8}));
  EXPECT_EQ(next[1], box({0, 32}, {4, 8}));
}

TEST(CachePrefetch, StrideSurvivesTheWrapToTheNextRow) {
  pf::History h;
  for (int64_t k = 0; k < 4; ++k) h.note(box({0, 8 * k}, {4, 8}));
  h.note(box({4, 0}, {4, 8}));  // the next row of chunks
  std::vector<pf::Box> next = h.predict(1);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0], box({4, 8}, {4, 8}));
  h.note(box({4, 8}, {4, 8}));
  next = h.predict(1);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0], box({4, 16}, {4, 8}));
}

TEST(CachePrefetch, AReadClippedAtTheLowerEdgePredictsTheFullSize) {
  // Chunks of 20 read with a ghost zone of 1: [0, 21), [19, 41), [39, 61),
  // [59, 81), then the next row starts clipped again at 0.
  pf::History h;
  h.note(box({0, 0}, {5, 21}));
  h.note(box({0, 19}, {5, 22}));
  h.note(box({0, 39}, {5, 22}));
  h.note(box({0, 59}, {5, 22}));
  h.note(box({5, 0}, {5, 21}));
  const std::vector<pf::Box> next = h.predict(2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], box({5, 19}, {5, 22}));
  EXPECT_EQ(next[1], box({5, 39}, {5, 22}));
}

TEST(CachePrefetch, TheWrapOfAChunkLoopIsPredicted) {
  // Rows of 4 chunks of 8: (r, 0), (r, 8), (r, 16), (r, 24), then (r + 4, 0).
  pf::History h;
  for (int64_t r = 0; r < 8; r += 4)
    for (int64_t k = 0; k < 4; ++k) h.note(box({r, 8 * k}, {4, 8}));
  // Two rows seen: after (4, 24) comes (8, 0), then (8, 8).
  std::vector<pf::Box> next = h.predict(3);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0], box({8, 0}, {4, 8}));
  EXPECT_EQ(next[1], box({8, 8}, {4, 8}));
  EXPECT_EQ(next[2], box({8, 16}, {4, 8}));
  h.note(box({8, 0}, {4, 8}));
  h.note(box({8, 8}, {4, 8}));
  next = h.predict(3);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0], box({8, 16}, {4, 8}));
  EXPECT_EQ(next[1], box({8, 24}, {4, 8}));
  EXPECT_EQ(next[2], box({12, 0}, {4, 8}));
}

TEST(CachePrefetch, RepeatedReadsPredictNothing) {
  pf::History h;
  for (int i = 0; i < 4; ++i) h.note(box({1, 1}, {2, 2}));
  EXPECT_TRUE(h.predict(3).empty());
  h.note(box({1}, {2}));  // another rank: the history starts over
  EXPECT_TRUE(h.predict(3).empty());
}

TEST(CachePrefetch, GatherCopiesTheSelection) {
  // A 4 x 5 box at (1, 2) of int32 values v = 100 * row + column.
  const pf::Box b = box({1, 2}, {4, 5});
  std::vector<int32_t> values;
  for (int r = 1; r < 5; ++r)
    for (int c = 2; c < 7; ++c) values.push_back(100 * r + c);
  const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
  {
    const int64_t start[] = {2, 3}, count[] = {2, 3};
    std::vector<int32_t> out(6);
    pf::gather(b, bytes, 4, 2, start, count, nullptr, reinterpret_cast<uint8_t*>(out.data()));
    EXPECT_EQ(out, (std::vector<int32_t>{203, 204, 205, 303, 304, 305}));
  }
  {
    const int64_t start[] = {1, 2}, count[] = {2, 3}, stride[] = {3, 2};
    std::vector<int32_t> out(6);
    pf::gather(b, bytes, 4, 2, start, count, stride, reinterpret_cast<uint8_t*>(out.data()));
    EXPECT_EQ(out, (std::vector<int32_t>{102, 104, 106, 402, 404, 406}));
  }
  {
    const int64_t start[] = {4, 6}, count[] = {1, 1};
    int32_t one = 0;
    pf::gather(b, bytes, 4, 2, start, count, nullptr, reinterpret_cast<uint8_t*>(&one));
    EXPECT_EQ(one, 406);
  }
}

TEST(CachePrefetch, GatherInThreeDimensions) {
  const pf::Box b = box({0, 0, 0}, {3, 4, 5});
  std::vector<int16_t> values(60);
  for (int i = 0; i < 60; ++i) values[static_cast<size_t>(i)] = static_cast<int16_t>(i);
  const int64_t start[] = {1, 1, 1}, count[] = {2, 2, 2};
  std::vector<int16_t> out(8);
  pf::gather(b, reinterpret_cast<const uint8_t*>(values.data()), 2, 3, start, count, nullptr,
             reinterpret_cast<uint8_t*>(out.data()));
  EXPECT_EQ(out, (std::vector<int16_t>{26, 27, 31, 32, 46, 47, 51, 52}));
}

}  // namespace

TEST(CachePrefetch, TheFirstReadGuessesTheNextChunkAlongTheInnermostDimension) {
  // [31, 768, 1152] read in [31, 768, 32] chunks: along x by 32.
  std::deque<pf::Box> last = {box({0, 0, 0}, {31, 768, 32})};
  std::vector<pf::Box> next = pf::guess(last, {0, 0, 0}, {31, 768, 1152}, 2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], box({0, 0, 32}, {31, 768, 32}));
  EXPECT_EQ(next[1], box({0, 0, 64}, {31, 768, 32}));
  // Slices of [10, 1100, 1080]: along the first dimension; the guess ends at the edge.
  last = {box({8, 0, 0}, {1, 1100, 1080})};
  next = pf::guess(last, {0, 1, 1}, {10, 1100, 1080}, 4);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0], box({9, 0, 0}, {1, 1100, 1080}));
  // The whole variable: nothing to guess.
  last = {box({0, 0}, {4, 4})};
  EXPECT_TRUE(pf::guess(last, {1}, {4, 4}, 3).empty());
}

TEST(CachePrefetch, TheGuessKnowsTheGhostZoneOfTheReads) {
  // [50, 50, 20] chunks read with a ghost zone of 1, clipped at the lower edges.
  std::deque<pf::Box> last = {box({0, 0, 0}, {51, 51, 21})};
  std::vector<pf::Box> next = pf::guess(last, {1, 1, 1}, {400, 400, 160}, 2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], box({0, 0, 19}, {51, 51, 22}));
  EXPECT_EQ(next[1], box({0, 0, 39}, {51, 51, 22}));
  // Two reads: the step between their chunks (every other chunk: another rank has the rest).
  last = {box({0, 0, 0}, {51, 51, 21}), box({0, 0, 39}, {51, 51, 22})};
  next = pf::guess(last, {1, 1, 1}, {400, 400, 160}, 2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], box({0, 0, 79}, {51, 51, 22}));
  EXPECT_EQ(next[1], box({0, 0, 119}, {51, 51, 22}));
}

TEST(CachePrefetch, ExtentsMergeRunsThatAreClose) {
  // A [2, 3, 2] box of a [4, 5, 10] int variable at 1000.
  const std::vector<int64_t> pitch = {200, 40, 4};
  auto e = pf::extents(box({1, 1, 4}, {2, 3, 2}), pitch, 1000, 0);
  ASSERT_EQ(e.size(), 6u);  // one run per row
  EXPECT_EQ(e[0], std::make_pair(int64_t{1000 + 200 + 40 + 16}, int64_t{8}));
  EXPECT_EQ(e[5], std::make_pair(int64_t{1000 + 400 + 120 + 16}, int64_t{8}));
  e = pf::extents(box({1, 1, 4}, {2, 3, 2}), pitch, 1000, 32);  // rows merge, planes do not
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], std::make_pair(int64_t{1256}, int64_t{88}));
  EXPECT_EQ(e[1], std::make_pair(int64_t{1456}, int64_t{88}));
  e = pf::extents(box({0, 0, 0}, {4, 5, 10}), pitch, 0, 0);  // the whole variable: one extent
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], std::make_pair(int64_t{0}, int64_t{800}));
  // A record variable: records 1000 bytes apart.
  e = pf::extents(box({2, 0}, {2, 3}), {1000, 4}, 64, 0);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[1], std::make_pair(int64_t{64 + 3000}, int64_t{12}));
}

TEST(CachePrefetch, Overlaps) {
  EXPECT_TRUE(pf::overlaps(box({0, 0}, {4, 4}), box({3, 3}, {2, 2})));
  EXPECT_FALSE(pf::overlaps(box({0, 0}, {4, 4}), box({4, 0}, {2, 2})));
  EXPECT_FALSE(pf::overlaps(box({0, 0}, {4, 4}), box({0, 4}, {4, 1})));
  EXPECT_FALSE(pf::overlaps(box({0, 0}, {4, 4}), box({0}, {4})));
}

namespace {

// ReadCache (the fetch queue; no chunk is made here): slices [z, 4, 4] of
// variables 0 and 1 (u and v), float.
pf::Box slice(int64_t z) { return pf::Box{{z, 0, 0}, {1, 4, 4}}; }
const std::vector<int64_t> kSlices = {10, 4, 4};

// The jobs in the order the fetcher takes them: (varid, z).
std::vector<std::pair<int, int64_t>> fetch_order(ReadCache& rc) {
  std::vector<std::pair<int, int64_t>> order;
  PrefetchJob j;
  while (rc.take_job(&j)) {
    order.emplace_back(j.varid, j.box.start[0]);
    rc.finish(j, nullptr);
  }
  return order;
}

}  // namespace

TEST(CachePrefetch, VariablesReadInTurnAreFetchedInTurn) {
  ReadCache rc(4, {}, int64_t{1} << 30);
  EXPECT_EQ(rc.note_and_schedule(0, NC_FLOAT, 4, slice(0), kSlices), 4);  // u 1..4 guessed
  EXPECT_EQ(rc.note_and_schedule(1, NC_FLOAT, 4, slice(0), kSlices), 4);  // v 1..4
  // Each step reads u then v: u1 and v1 are needed before u2.
  const std::vector<std::pair<int, int64_t>> want = {{0, 1}, {1, 1}, {0, 2}, {1, 2},
                                                     {0, 3}, {1, 3}, {0, 4}, {1, 4}};
  EXPECT_EQ(fetch_order(rc), want);
}

TEST(CachePrefetch, AGuessTheReadsDidNotFollowIsNotFetched) {
  // Two ranks, chunks round-robin: this rank reads slices 0, 2, 4, ...
  ReadCache rc(4, {}, int64_t{1} << 30);
  rc.note_and_schedule(0, NC_FLOAT, 4, slice(0), kSlices);  // guesses 1, 2, 3, 4
  PrefetchJob first;
  ASSERT_TRUE(rc.take_job(&first));  // slice 1 is being fetched: it ends as it is
  EXPECT_EQ(first.box.start[0], 1);
  rc.note_and_schedule(0, NC_FLOAT, 4, slice(2), kSlices);  // step 2: 4, 6, 8
  rc.finish(first, nullptr);
  const std::vector<std::pair<int, int64_t>> want = {{0, 4}, {0, 6}, {0, 8}};  // not 3
  EXPECT_EQ(fetch_order(rc), want);
}

TEST(CachePrefetch, AdviceStaysWithinItsWindow) {
  ReadCache rc(4, {}, int64_t{1} << 30);
  rc.note_and_schedule(0, NC_FLOAT, 4, slice(0), kSlices);  // 4 jobs of 64 bytes
  std::vector<PrefetchJob> a = rc.advise_next(150);        // 64 + 64 fit, not a third
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].box.start[0], 1);
  EXPECT_EQ(a[1].box.start[0], 2);
  EXPECT_TRUE(rc.advise_next(150).empty());
  PrefetchJob j;
  ASSERT_TRUE(rc.take_job(&j));
  rc.finish(j, nullptr);  // slice 1 fetched: room for slice 3
  a = rc.advise_next(150);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].box.start[0], 3);
  EXPECT_TRUE(rc.advise_next(10).empty());  // what is asked for already fills the window
}

TEST(CachePrefetch, AGridLoopIsPredictedAcrossRowsAndPlanes) {
  // grad's loop: [50, 50, 20] chunks of a [400, 400, 160] variable, x fastest.
  const std::vector<int64_t> dims = {400, 400, 160};
  std::deque<pf::Box> cores = {box({0, 350, 120}, {50, 50, 20}), box({0, 350, 140}, {50, 50, 20})};
  std::vector<pf::Box> next = pf::grid_predict(cores, dims, 2);  // the end of the plane: the next one
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0], box({50, 0, 0}, {50, 50, 20}));
  EXPECT_EQ(next[1], box({50, 0, 20}, {50, 50, 20}));
  // Two ranks, chunks round-robin: this rank's step is 2 chunks.
  cores = {box({0, 350, 60}, {50, 50, 20}), box({0, 350, 100}, {50, 50, 20}), box({0, 350, 140}, {50, 50, 20})};
  next = pf::grid_predict(cores, dims, 1);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0], box({50, 0, 20}, {50, 50, 20}));
  // The last chunk: nothing after it. Off the grid: no prediction.
  cores = {box({350, 350, 120}, {50, 50, 20}), box({350, 350, 140}, {50, 50, 20})};
  EXPECT_TRUE(pf::grid_predict(cores, dims, 4).empty());
  cores = {box({0, 0, 5}, {50, 50, 20}), box({0, 0, 25}, {50, 50, 20})};
  EXPECT_TRUE(pf::grid_predict(cores, dims, 4).empty());
  // Edge chunks clipped by the variable's size stay on the grid: [10, 7] of [10, 25] by 10.
  cores = {box({0, 0}, {10, 10}), box({0, 10}, {10, 10}), box({0, 20}, {10, 5})};
  EXPECT_TRUE(pf::grid_predict(cores, {20, 25}, 1).size() == 1u);
  EXPECT_EQ(pf::grid_predict(cores, {20, 25}, 1)[0], box({10, 0}, {10, 10}));
}
