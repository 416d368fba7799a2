// The staging buffers of checkpoints are kept for reuse (src/relation/pure/staging_pool.hpp).
#include <gtest/gtest.h>

#include "relation/pure/staging_pool.hpp"

namespace exa::relation {
namespace {

char a[1], b[1], c[1];

TEST(StagingPool, TakesTheSmallestBufferThatFits) {
  StagingPool pool(100);
  EXPECT_EQ(pool.take(1).first, nullptr);
  EXPECT_TRUE(pool.give(a, 40));
  EXPECT_TRUE(pool.give(b, 20));
  EXPECT_TRUE(pool.give(c, 30));
  EXPECT_EQ(pool.bytes(), 90u);
  EXPECT_EQ(pool.take(41).first, nullptr);  // none that large
  auto got = pool.take(25);
  EXPECT_EQ(got.first, c);
  EXPECT_EQ(got.second, 30u);
  got = pool.take(20);
  EXPECT_EQ(got.first, b);
  EXPECT_EQ(pool.bytes(), 40u);
  EXPECT_EQ(pool.buffers(), 1u);
  got = pool.take(1);
  EXPECT_EQ(got.first, a);
  EXPECT_EQ(got.second, 40u);
  EXPECT_EQ(pool.bytes(), 0u);
  EXPECT_EQ(pool.take(1).first, nullptr);
}

TEST(StagingPool, KeepsNoMoreThanItsCap) {
  StagingPool pool(100);
  EXPECT_TRUE(pool.give(a, 60));
  EXPECT_FALSE(pool.give(b, 41));  // 101 > 100: the caller frees it
  EXPECT_TRUE(pool.give(b, 40));
  EXPECT_FALSE(pool.give(c, 1));
  EXPECT_FALSE(pool.give(nullptr, 0));
  EXPECT_EQ(pool.bytes(), 100u);
  const auto all = pool.drain();
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(pool.bytes(), 0u);
  EXPECT_EQ(pool.buffers(), 0u);
  EXPECT_TRUE(pool.give(c, 100));
  StagingPool big(kStagingPoolBytes);
  EXPECT_FALSE(big.give(a, kStagingPoolBytes + 1));
  EXPECT_TRUE(big.give(a, kStagingPoolBytes));
}

}  // namespace
}  // namespace exa::relation

// allocate_rows (src/relation/staging.cpp) over the process's pool: a released
// buffer of 2 MiB or more is handed to the next request it fits.
#include "relation/staging.hpp"

namespace exa::relation {
namespace {

// Off by default (EXACDF_STAGING_POOL unset): with huge pages free the pool was
// slower at fe_ocean, 1 rank (docs/perf/checkpoint.md, 2026-11-25).
TEST(StagingRows, PoolIsOffUnlessTheEnvironmentSaysOne) {
  EXPECT_FALSE(staging_pool_from_env(nullptr));
  EXPECT_FALSE(staging_pool_from_env(""));
  EXPECT_FALSE(staging_pool_from_env("0"));
  EXPECT_FALSE(staging_pool_from_env("yes"));
  EXPECT_TRUE(staging_pool_from_env("1"));
}

// Switched off, a released buffer of 2 MiB or more goes back to the allocator.
TEST(StagingRows, ReleasedBuffersAreFreedWithThePoolOff) {
  const bool was = staging_pool_on();
  trim_staging_pool();
  set_staging_pool(false);
  StagedRows rows = allocate_rows((size_t{3} << 20) / sizeof(uint64_t));
  ASSERT_TRUE(rows);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(rows.get()) % (size_t{2} << 20), 0u);  // still huge-page aligned
  rows.get()[0] = 1;
  rows.reset();
  EXPECT_EQ(staging_pool_buffers(), 0u);
  EXPECT_EQ(staging_pool_bytes(), 0u);
  set_staging_pool(was);
}

TEST(StagingRows, ReleasedHugeBuffersAreReused) {
  const bool was = staging_pool_on();
  set_staging_pool(true);  // EXACDF_STAGING_POOL=1
  trim_staging_pool();
  const size_t values = (size_t{3} << 20) / sizeof(uint64_t);  // 3 MiB: 4 MiB rounded
  StagedRows first = allocate_rows(values);
  ASSERT_TRUE(first);
  uint64_t* p = first.get();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t{2} << 20), 0u);
  p[values - 1] = 7;
  first.reset();
  EXPECT_EQ(staging_pool_buffers(), 1u);
  EXPECT_EQ(staging_pool_bytes(), size_t{4} << 20);
  StagedRows bigger = allocate_rows((size_t{5} << 20) / sizeof(uint64_t));  // does not fit: fresh
  ASSERT_TRUE(bigger);
  EXPECT_NE(bigger.get(), p);
  StagedRows again = allocate_rows(values / 2);  // 1.5 MiB would be malloc'd; 2 MiB+ only pooled
  StagedRows reused = allocate_rows(values);
  ASSERT_TRUE(reused);
  EXPECT_EQ(reused.get(), p);
  EXPECT_EQ(staging_pool_buffers(), 0u);
  reused.reset();
  bigger.reset();
  again.reset();
  EXPECT_EQ(staging_pool_buffers(), 2u);
  EXPECT_EQ(staging_pool_bytes(), size_t{10} << 20);
  StagedRows small = allocate_rows(1000);  // under 2 MiB: malloc, never pooled
  ASSERT_TRUE(small);
  small.reset();
  EXPECT_EQ(staging_pool_buffers(), 2u);
  trim_staging_pool();
  EXPECT_EQ(staging_pool_bytes(), 0u);
  set_staging_pool(was);
}

}  // namespace
}  // namespace exa::relation
