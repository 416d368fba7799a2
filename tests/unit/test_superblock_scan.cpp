// scan_superblocks (docs/format.md, "What a reader can rely on"): the valid
// slots newest first, and a slot that has the magic but does not decode
// reported with its (unchecked) generation field.
#include <gtest/gtest.h>

#include <vector>

#include "format/partitioned.hpp"

namespace {

namespace pf = exa::format::partitioned;

pf::Superblock superblock(uint64_t generation) {
  pf::Superblock sb;
  sb.generation = generation;
  sb.index_offset = 8192;
  sb.index_size = 32 + 64 + 1 + 24 + 2 * 64 + 10;  // as test_partitioned_format's sample
  sb.index_head_size = 32 + 64 + 1;
  sb.nblocks = 2;
  sb.ndims = 3;
  sb.nvars = 4;
  sb.file_end = 20000;
  return sb;
}

TEST(SuperblockScan, BothValidNewestFirst) {
  auto a = pf::encode_superblock(superblock(5)), b = pf::encode_superblock(superblock(6));
  pf::SlotScan scan;
  ASSERT_TRUE(pf::scan_superblocks(a, b, &scan).is_ok());
  ASSERT_EQ(scan.valid.size(), 2u);
  EXPECT_EQ(scan.valid[0].generation, 6u);
  EXPECT_EQ(scan.valid[1].generation, 5u);
  EXPECT_FALSE(scan.damaged);
  ASSERT_TRUE(pf::scan_superblocks(b, a, &scan).is_ok());
  EXPECT_EQ(scan.valid[0].generation, 6u);
}

TEST(SuperblockScan, DamagedNewerSlotIsReported) {
  auto a = pf::encode_superblock(superblock(5)), b = pf::encode_superblock(superblock(6));
  b[40] ^= 0x10;  // one flipped bit outside the generation field
  pf::SlotScan scan;
  ASSERT_TRUE(pf::scan_superblocks(a, b, &scan).is_ok());
  ASSERT_EQ(scan.valid.size(), 1u);
  EXPECT_EQ(scan.valid[0].generation, 5u);
  EXPECT_TRUE(scan.damaged);
  EXPECT_EQ(scan.damaged_generation, 6u);
  EXPECT_FALSE(scan.damage.empty());
}

TEST(SuperblockScan, NeverWrittenSlotIsNotDamage) {
  auto a = pf::encode_superblock(superblock(1));
  std::vector<uint8_t> zeros(128, 0);
  pf::SlotScan scan;
  ASSERT_TRUE(pf::scan_superblocks(a, zeros, &scan).is_ok());
  EXPECT_EQ(scan.valid.size(), 1u);
  EXPECT_FALSE(scan.damaged);
  ASSERT_TRUE(pf::scan_superblocks(a, {}, &scan).is_ok());
  EXPECT_FALSE(scan.damaged);
}

TEST(SuperblockScan, NoValidSlot) {
  auto a = pf::encode_superblock(superblock(1));
  a[50] ^= 1;
  std::vector<uint8_t> zeros(128, 0);
  pf::SlotScan scan;
  EXPECT_EQ(pf::scan_superblocks(a, zeros, &scan).code(), NC_EFILEMETA);
  EXPECT_EQ(pf::scan_superblocks(zeros, zeros, &scan).code(), NC_ENOTNC);
}

}  // namespace
