// How many records a file of each format can hold (issue 15): numrecs beyond
// the format's field or putting the record section past 2^63 bytes is
// rejected, in classic headers and in partitioned superblocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "format/layout.hpp"
#include "format/partitioned.hpp"

namespace exa::format {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

Layout records_at(int64_t begin_rec, int64_t recsize) {
  Layout l;
  l.begin_rec = begin_rec;
  l.recsize = recsize;
  return l;
}

TEST(RecordLimits, MaxNumrecsPerFormat) {
  EXPECT_EQ(max_numrecs(Version::kCdf1, false), int64_t{0xFFFFFFFE});
  EXPECT_EQ(max_numrecs(Version::kCdf2, false), int64_t{0xFFFFFFFE});
  EXPECT_EQ(max_numrecs(Version::kCdf5, false), kMax);
  EXPECT_EQ(max_numrecs(Version::kCdf5, true), kMax);
}

TEST(RecordLimits, ClassicRecordSectionMustFitIn2To63Bytes) {
  EXPECT_TRUE(check_record_section(Version::kCdf5, false, 3, records_at(1000, 24)).is_ok());
  EXPECT_TRUE(check_record_section(Version::kCdf5, false, kStreamingNumrecs, records_at(1000, 24)).is_ok());
  // 197,568,495,619 records of 24 bytes fit in 2^63 bytes: a matter for the
  // tools (bytes that exist), not for the header.
  EXPECT_TRUE(check_record_section(Version::kCdf5, false, 197568495619, records_at(1000, 24)).is_ok());
  EXPECT_EQ(check_record_section(Version::kCdf5, false, (int64_t{1} << 62) + 1, records_at(1000, 24)).code(),
            NC_ENOTNC);
  EXPECT_EQ(check_record_section(Version::kCdf5, false, kMax, records_at(1000, 1)).code(), NC_ENOTNC);
  EXPECT_EQ(check_record_section(Version::kCdf5, false, kMax - 1000, records_at(1000, 1)).code(), NC_NOERR);
  EXPECT_EQ(check_record_section(Version::kCdf2, false, int64_t{0xFFFFFFFF}, records_at(8, 4)).code(), NC_ENOTNC);
  // Without record variables numrecs costs nothing.
  EXPECT_TRUE(check_record_section(Version::kCdf5, false, kMax, records_at(1000, 0)).is_ok());
}

namespace pf = partitioned;

pf::Superblock valid_superblock() {
  pf::Superblock sb;
  sb.generation = 2;
  sb.index_offset = 4096;
  sb.index_size = 64;
  sb.index_head_size = 32;
  sb.nblocks = 1;
  sb.record_begin = 8192;
  sb.record_size = 16;
  sb.numrecs = 4;
  sb.file_end = 8192 + 4 * 16;
  sb.ndims = 1;
  sb.nvars = 1;
  sb.record_dim = 1;
  return sb;
}

TEST(RecordLimits, SuperblockNumrecsInsideTheSpaceInUse) {
  pf::Superblock out;
  pf::Superblock sb = valid_superblock();
  ASSERT_TRUE(pf::decode_superblock(pf::encode_superblock(sb), &out).is_ok());
  sb.numrecs = 5;  // one record past the end in use
  EXPECT_EQ(pf::decode_superblock(pf::encode_superblock(sb), &out).code(), NC_EFILEMETA);
  sb.numrecs = uint64_t{1} << 40;
  EXPECT_EQ(pf::decode_superblock(pf::encode_superblock(sb), &out).code(), NC_EFILEMETA);
  sb.file_end = sb.record_begin + sb.numrecs * sb.record_size;  // consistent: decodes
  EXPECT_TRUE(pf::decode_superblock(pf::encode_superblock(sb), &out).is_ok());
  sb.numrecs = (uint64_t{1} << 62) + 1;  // beyond 2^63 bytes
  EXPECT_EQ(pf::decode_superblock(pf::encode_superblock(sb), &out).code(), NC_EFILEMETA);
}

}  // namespace
}  // namespace exa::format
