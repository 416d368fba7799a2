// The huge-page arena of the async connector's buffers (util/huge_page_arena):
// buffers carved from 2 MiB-aligned chunks never overlap and keep what was
// written to them; a chunk is unmapped when its last buffer is freed (the
// chunk being carved is kept, emptied); a buffer over 1 MiB has a mapping of
// its own, gone when freed; a chunk prepared ahead is the next one carved;
// small ones come from operator new; two threads
// allocating and freeing at once see their own bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "util/huge_page_arena.hpp"

namespace {

using exa::HugePageArena;

constexpr size_t kBuf = size_t{512} << 10;

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(HugePageArena, CarvesChunksWithoutOverlapAndUnmapsEmptyOnes) {
  if (!HugePageArena::in_use()) GTEST_SKIP() << "ordinary pages (AddressSanitizer or EXACDF_HUGEPAGES=0)";
  HugePageArena arena;
  std::vector<uint8_t*> bufs;
  for (int k = 0; k < 8; ++k) {
    auto* p = static_cast<uint8_t*>(arena.allocate(kBuf));
    std::memset(p, k + 1, kBuf);
    bufs.push_back(p);
  }
  // 8 x 512 KiB: two chunks, each 2 MiB-aligned.
  EXPECT_EQ(arena.usage().chunks, 2u);
  EXPECT_EQ(arena.usage().mapped_bytes, 2 * HugePageArena::kChunkBytes);
  EXPECT_EQ(address(bufs[0]) % HugePageArena::kChunkBytes, 0u);
  EXPECT_EQ(address(bufs[4]) % HugePageArena::kChunkBytes, 0u);
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < k; ++j)
      EXPECT_TRUE(address(bufs[k]) >= address(bufs[j]) + kBuf || address(bufs[j]) >= address(bufs[k]) + kBuf);
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(bufs[k][0], k + 1);
    EXPECT_EQ(bufs[k][kBuf - 1], k + 1);
  }
  // The first chunk (full, not the one being carved) goes when its four buffers do.
  for (int k = 0; k < 3; ++k) arena.release(bufs[k], kBuf);
  EXPECT_EQ(arena.usage().chunks, 2u);
  arena.release(bufs[3], kBuf);
  EXPECT_EQ(arena.usage().chunks, 1u);
  // The chunk being carved stays when emptied, and is carved again from its start.
  for (int k = 4; k < 8; ++k) arena.release(bufs[k], kBuf);
  EXPECT_EQ(arena.usage().chunks, 1u);
  void* again = arena.allocate(kBuf);
  EXPECT_EQ(again, bufs[4]);
  arena.release(again, kBuf);
}

TEST(HugePageArena, APreparedChunkIsCarvedWhenOneIsNeeded) {
  if (!HugePageArena::in_use()) GTEST_SKIP() << "ordinary pages (AddressSanitizer or EXACDF_HUGEPAGES=0)";
  HugePageArena arena;
  arena.prepare_chunk();
  arena.prepare_chunk();  // enough are ready: no more
  EXPECT_EQ(arena.usage().prepared, HugePageArena::kPrepared);
  EXPECT_EQ(arena.usage().chunks, HugePageArena::kPrepared);
  auto* p = static_cast<uint8_t*>(arena.allocate(kBuf));
  EXPECT_EQ(arena.usage().prepared, HugePageArena::kPrepared - 1);
  EXPECT_EQ(arena.usage().chunks, HugePageArena::kPrepared);  // one prepared one, now carved
  EXPECT_EQ(address(p) % HugePageArena::kChunkBytes, 0u);
  EXPECT_EQ(p[kBuf - 1], 0);  // faulted in by prepare_chunk: zeroed pages
  std::memset(p, 3, kBuf);
  arena.prepare_chunk();  // tops up to kPrepared beside the one carved
  EXPECT_EQ(arena.usage().prepared, HugePageArena::kPrepared);
  EXPECT_EQ(arena.usage().chunks, HugePageArena::kPrepared + 1);
  arena.release(p, kBuf);
}

TEST(HugePageArena, LargeBuffersHaveMappingsOfTheirOwn) {
  if (!HugePageArena::in_use()) GTEST_SKIP() << "ordinary pages (AddressSanitizer or EXACDF_HUGEPAGES=0)";
  HugePageArena arena;
  const size_t big = (size_t{3} << 20) + 100;
  auto* p = static_cast<uint8_t*>(arena.allocate(big));
  EXPECT_EQ(address(p) % HugePageArena::kChunkBytes, 0u);
  EXPECT_EQ(arena.usage().own_mappings, 1u);
  EXPECT_EQ(arena.usage().chunks, 0u);
  std::memset(p, 0x5a, big);
  EXPECT_EQ(p[big - 1], 0x5a);
  arena.release(p, big);
  EXPECT_EQ(arena.usage().own_mappings, 0u);
  EXPECT_EQ(arena.usage().mapped_bytes, 0u);
}

TEST(HugePageArena, SmallBuffersComeFromTheHeap) {
  HugePageArena arena;
  void* p = arena.allocate(HugePageArena::kHugeMinBytes - 1);
  ASSERT_NE(p, nullptr);
  static_cast<uint8_t*>(p)[0] = 1;
  EXPECT_EQ(arena.usage().mapped_bytes, 0u);
  arena.release(p, HugePageArena::kHugeMinBytes - 1);
}

TEST(HugePageArena, VectorsThroughTheAllocatorKeepTheirBytes) {
  exa::HugePageBytes a(kBuf, 0x11), b;
  b.assign(a.begin(), a.end());
  b[17] = 0x22;
  exa::HugePageBytes c = std::move(b);
  EXPECT_EQ(c.size(), kBuf);
  EXPECT_EQ(c[17], 0x22);
  EXPECT_EQ(c[kBuf - 1], 0x11);
  EXPECT_EQ(a[17], 0x11);
}

TEST(HugePageArena, TwoThreadsAllocateAndFreeAtOnce) {
  HugePageArena arena;
  auto worker = [&arena](unsigned seed, int* bad) {
    std::mt19937 rng(seed);
    std::vector<std::pair<uint8_t*, size_t>> held;
    for (int k = 0; k < 400; ++k) {
      if (held.size() < 6 && (held.empty() || rng() % 2 == 0)) {
        size_t n = size_t{16} << 10 << (rng() % 8);  // 16 KiB .. 2 MiB
        auto* p = static_cast<uint8_t*>(arena.allocate(n));
        std::memset(p, static_cast<int>(seed), n);
        held.emplace_back(p, n);
      } else {
        size_t i = rng() % held.size();
        auto [p, n] = held[i];
        if (p[0] != static_cast<uint8_t>(seed) || p[n - 1] != static_cast<uint8_t>(seed)) ++*bad;
        arena.release(p, n);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    for (auto [p, n] : held) {
      if (p[n / 2] != static_cast<uint8_t>(seed)) ++*bad;
      arena.release(p, n);
    }
  };
  int bad1 = 0, bad2 = 0;
  std::thread t1(worker, 1u, &bad1), t2(worker, 2u, &bad2);
  t1.join();
  t2.join();
  EXPECT_EQ(bad1 + bad2, 0);
  EXPECT_EQ(arena.usage().own_mappings, 0u);
  EXPECT_LE(arena.usage().chunks, 1u);  // at most the chunk being carved (none with ordinary pages)
}

}  // namespace
