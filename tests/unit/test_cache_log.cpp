// The cache connector's log codec (src/layer/cache_log.cpp): manifests and
// state slots round-trip; a ring written with a wrap is read back in order;
// a torn or stale record ends the log; the header digest ignores numrecs.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "layer/cache_log.hpp"

namespace cl = exa::layer::cachelog;

namespace {

// Writes record `seq` (ndims 2, payload n ints of value seq) at `at` of ring.
int64_t put_record(std::vector<uint8_t>* ring, int64_t at, uint64_t seq, int n) {
  cl::Record r;
  r.seq = seq;
  r.call = 1000 + seq;  // the collective call: recovery orders ranks' records by it
  r.varid = 3;
  r.memtype = NC_INT;
  r.start = {static_cast<int64_t>(seq), 0};
  r.count = {1, n};
  std::vector<int32_t> payload(static_cast<size_t>(n), static_cast<int32_t>(seq));
  r.payload_size = n * 4;
  const int64_t len = cl::record_length(2, false, r.payload_size);
  std::vector<uint8_t> head, tail;
  cl::encode_record_head(r, &head);
  cl::encode_record_tail(head, payload.data(), r.payload_size, len, &tail);
  std::memcpy(ring->data() + at, head.data(), head.size());
  std::memcpy(ring->data() + at + head.size(), payload.data(), payload.size() * 4);
  std::memcpy(ring->data() + at + head.size() + payload.size() * 4, tail.data(), tail.size());
  return len;
}

}  // namespace

TEST(CacheLog, ManifestAndStateRoundTrip) {
  cl::Manifest m;
  m.path = "/scratch/run/out.nc";
  m.dev = 42;
  m.ino = 7;
  m.header_digest = 0xdeadbeef;
  m.header_size = 300;
  m.generation = 2;
  m.rank = 1;
  m.nprocs = 4;
  m.capacity = 1 << 20;
  std::vector<uint8_t> block = cl::encode_manifest(m);
  cl::Manifest back;
  ASSERT_TRUE(cl::decode_manifest(block.data(), block.size(), &back).is_ok());
  EXPECT_EQ(back.path, m.path);
  EXPECT_EQ(back.ino, 7u);
  EXPECT_EQ(back.header_digest, 0xdeadbeefu);
  EXPECT_EQ(back.rank, 1);
  block[30] ^= 1;  // one flipped bit: refused
  EXPECT_EQ(cl::decode_manifest(block.data(), block.size(), &back).code(), NC_ENOTNC);

  std::vector<uint8_t> head(static_cast<size_t>(cl::kHeadBytes), 0);
  cl::State a{5, 10, 64, 0}, b{6, 12, 128, 1};
  auto sa = cl::encode_state(a), sb = cl::encode_state(b);
  std::memcpy(head.data() + cl::kStateSlot[1], sa.data(), sa.size());
  std::memcpy(head.data() + cl::kStateSlot[0], sb.data(), sb.size());
  cl::State s;
  ASSERT_TRUE(cl::decode_state(head.data(), head.size(), &s).is_ok());
  EXPECT_EQ(s.counter, 6u);  // the newer slot
  EXPECT_EQ(s.next_seq, 12u);
  EXPECT_EQ(s.failed, 1);
  head[cl::kStateSlot[0] + 12] ^= 1;  // the newer slot torn: the older one
  ASSERT_TRUE(cl::decode_state(head.data(), head.size(), &s).is_ok());
  EXPECT_EQ(s.counter, 5u);
}

TEST(CacheLog, RingWrapsTornTailAndStaleRecords) {
  const int64_t capacity = 1024;
  std::vector<uint8_t> ring(static_cast<size_t>(capacity), 0);
  // Stale records of an earlier lap at 0 (seq 1, 2), then 3, 4 near the end,
  // a wrap marker, and 5 at offset 0 over the stale ones.
  int64_t at = put_record(&ring, 0, 1, 20);
  put_record(&ring, at, 2, 20);
  const int64_t tail = 640;
  int64_t p = tail;
  p += put_record(&ring, p, 3, 20);
  p += put_record(&ring, p, 4, 20);
  ASSERT_LT(p + 8, capacity);
  const uint32_t wrap = cl::kWrapMagic;
  std::memcpy(ring.data() + p, &wrap, 4);
  put_record(&ring, 0, 5, 20);
  cl::State st;
  st.next_seq = 3;
  st.tail = tail;
  std::vector<cl::Record> recs = cl::parse_ring(ring.data(), capacity, st);
  ASSERT_EQ(recs.size(), 3u);  // 3, 4, 5; the stale 2 after 5 is not 6
  EXPECT_EQ(recs[2].seq, 5u);
  EXPECT_EQ(recs[2].call, 1005u);
  EXPECT_EQ(recs[2].offset, 0);
  int32_t v = 0;
  std::memcpy(&v, ring.data() + recs[1].payload_offset, 4);
  EXPECT_EQ(v, 4);
  // A torn payload in 4 ends the log after 3.
  ring[static_cast<size_t>(recs[1].payload_offset + 7)] ^= 0x40;
  recs = cl::parse_ring(ring.data(), capacity, st);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].seq, 3u);
}

TEST(CacheLog, HeaderDigestIgnoresNumrecs) {
  std::vector<uint8_t> h = {'C', 'D', 'F', 1, 0, 0, 0, 3, 0, 0, 0, 10, 0, 0, 0, 1};
  std::vector<uint8_t> more = h;
  more[7] = 9;  // another record count
  EXPECT_EQ(cl::header_digest(h.data(), h.size()), cl::header_digest(more.data(), more.size()));
  more[12] = 1;  // anything else counts
  EXPECT_NE(cl::header_digest(h.data(), h.size()), cl::header_digest(more.data(), more.size()));
  std::vector<uint8_t> c5 = {'C', 'D', 'F', 5, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 10};
  std::vector<uint8_t> c5b = c5;
  c5b[11] = 200;
  EXPECT_EQ(cl::header_digest(c5.data(), c5.size()), cl::header_digest(c5b.data(), c5b.size()));
}
