#include "layer/cache_log.hpp"

#include <algorithm>

#include <cstring>

#include "util/crc32c.hpp"

namespace exa::layer::cachelog {

namespace {

// The log is node-local scratch: fields are in the machine's byte order.
template <typename T>
void put(std::vector<uint8_t>* out, T v) {
  const size_t at = out->size();
  out->resize(at + sizeof(T));
  std::memcpy(out->data() + at, &v, sizeof(T));
}

// Reads fields in order from a bounded span; ok() is false once one did not fit.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  T get() {
    T v{};
    if (size_ - pos_ < sizeof(T)) {
      bad_ = true;
      return v;
    }
    std::memcpy(&v, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  bool bytes(size_t n, std::string* out) {
    if (size_ - pos_ < n) return bad_ = true, false;
    out->assign(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return true;
  }
  bool ok() const { return !bad_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool bad_ = false;
};

constexpr size_t kManifestBytes = 2048;
constexpr size_t kManifestFixed = 16 + 8 * 2 + 4 + 8 + 8 + 4 + 4 + 8 + 4;  // before the path

}  // namespace

std::vector<uint8_t> encode_manifest(const Manifest& m) {
  std::vector<uint8_t> body;
  put(&body, m.dev);
  put(&body, m.ino);
  put(&body, m.header_digest);
  put(&body, m.header_size);
  put(&body, m.generation);
  put(&body, m.rank);
  put(&body, m.nprocs);
  put(&body, m.capacity);
  put(&body, static_cast<uint32_t>(m.path.size()));
  body.insert(body.end(), m.path.begin(), m.path.end());
  std::vector<uint8_t> out;
  put(&out, kLogMagic);
  put(&out, kVersion);
  put(&out, static_cast<uint32_t>(body.size()));
  put(&out, crc32c(body.data(), body.size()));
  out.insert(out.end(), body.begin(), body.end());
  out.resize(kManifestBytes, 0);
  return out;
}

Status decode_manifest(const uint8_t* data, size_t size, Manifest* out) {
  Reader r(data, size);
  const auto magic = r.get<uint32_t>();
  const auto version = r.get<uint32_t>();
  const auto len = r.get<uint32_t>();
  const auto crc = r.get<uint32_t>();
  if (!r.ok() || magic != kLogMagic) return {NC_ENOTNC, "not an exacdf cache log"};
  if (version != kVersion) return {NC_ENOTNC, "cache log version " + std::to_string(version) + " unknown"};
  if (len > kManifestBytes - 16 || len > size - 16 || len + 16 < kManifestFixed)
    return {NC_ENOTNC, "cache log manifest has a bad length"};
  if (crc32c(data + 16, len) != crc) return {NC_ENOTNC, "cache log manifest fails its checksum"};
  Manifest m;
  Reader b(data + 16, len);
  m.dev = b.get<uint64_t>();
  m.ino = b.get<uint64_t>();
  m.header_digest = b.get<uint32_t>();
  m.header_size = b.get<int64_t>();
  m.generation = b.get<int64_t>();
  m.rank = b.get<int32_t>();
  m.nprocs = b.get<int32_t>();
  m.capacity = b.get<int64_t>();
  const auto path_len = b.get<uint32_t>();
  if (!b.ok() || !b.bytes(path_len, &m.path)) return {NC_ENOTNC, "cache log manifest is truncated"};
  if (m.capacity < 64 || m.header_size < 0 || m.rank < 0 || m.nprocs < 1 || m.rank >= m.nprocs)
    return {NC_ENOTNC, "cache log manifest has impossible values"};
  *out = std::move(m);
  return Status::ok();
}

std::vector<uint8_t> encode_state(const State& s) {
  std::vector<uint8_t> body;
  put(&body, s.counter);
  put(&body, s.next_seq);
  put(&body, s.tail);
  put(&body, s.failed);
  std::vector<uint8_t> out;
  put(&out, kStateMagic);
  put(&out, crc32c(body.data(), body.size()));
  out.insert(out.end(), body.begin(), body.end());
  out.resize(kStateBytes, 0);
  return out;
}

namespace {

bool decode_slot(const uint8_t* p, State* out) {
  Reader r(p, kStateBytes);
  const auto magic = r.get<uint32_t>();
  const auto crc = r.get<uint32_t>();
  if (magic != kStateMagic || crc32c(p + 8, 28) != crc) return false;
  out->counter = r.get<uint64_t>();
  out->next_seq = r.get<uint64_t>();
  out->tail = r.get<int64_t>();
  out->failed = r.get<int32_t>();
  return r.ok() && out->tail >= 0;
}

}  // namespace

Status decode_state(const uint8_t* head, size_t size, State* out) {
  if (size < static_cast<size_t>(kHeadBytes)) return {NC_ENOTNC, "cache log head is truncated"};
  State a, b;
  const bool ha = decode_slot(head + kStateSlot[0], &a);
  const bool hb = decode_slot(head + kStateSlot[1], &b);
  if (!ha && !hb) return {NC_ENOTNC, "cache log has no valid state slot"};
  *out = !hb || (ha && a.counter > b.counter) ? a : b;
  return Status::ok();
}

int64_t record_length(int ndims, bool has_stride, int64_t payload_size) {
  const int64_t dims = static_cast<int64_t>(ndims) * (has_stride ? 3 : 2) * 8;
  return (kRecordHeadBytes + dims + payload_size + 4 + 7) / 8 * 8;
}

void encode_record_head(const Record& r, std::vector<uint8_t>* head) {
  head->clear();
  put(head, kRecordMagic);
  put(head, static_cast<uint32_t>(r.start.size()));
  put(head, r.seq);
  put(head, r.varid);
  put(head, r.memtype);
  put(head, static_cast<uint32_t>(r.has_stride ? 1 : 0));
  put(head, static_cast<uint32_t>(r.call));
  put(head, r.payload_size);
  for (size_t i = 0; i < r.start.size(); ++i) {
    put(head, r.start[i]);
    put(head, r.count[i]);
    if (r.has_stride) put(head, r.stride[i]);
  }
}

void encode_record_tail(const std::vector<uint8_t>& head, const void* payload, int64_t payload_size,
                        int64_t length, std::vector<uint8_t>* tail, const PayloadBlockFn& on_block) {
  uint32_t crc = crc32c(head.data(), head.size());
  if (!on_block) {
    crc = crc32c(payload, static_cast<size_t>(payload_size), crc);
  } else {
    constexpr int64_t kBlock = 16 << 10;  // (a multiple of every element size)
    const auto* p = static_cast<const uint8_t*>(payload);
    for (int64_t at = 0; at < payload_size; at += kBlock) {
      const int64_t m = std::min(kBlock, payload_size - at);
      crc = crc32c(p + at, static_cast<size_t>(m), crc);
      on_block(p + at, m);
    }
  }
  tail->assign(static_cast<size_t>(length - static_cast<int64_t>(head.size()) - payload_size), 0);
  std::memcpy(tail->data() + tail->size() - 4, &crc, 4);
}

namespace {

// The record at `at` (bytes left: room), or false when it is not a whole,
// valid record with sequence number `seq`.
bool parse_record(const uint8_t* ring, int64_t at, int64_t room, uint64_t seq, Record* out) {
  if (room < kRecordHeadBytes) return false;
  Reader r(ring + at, static_cast<size_t>(room));
  const auto magic = r.get<uint32_t>();
  const auto ndims = r.get<uint32_t>();
  Record rec;
  rec.seq = r.get<uint64_t>();
  rec.varid = r.get<int32_t>();
  rec.memtype = r.get<int32_t>();
  const auto flags = r.get<uint32_t>();
  rec.call = r.get<uint32_t>();
  rec.payload_size = r.get<int64_t>();
  if (magic != kRecordMagic || rec.seq != seq || ndims > kMaxDims || flags > 1) return false;
  if (rec.payload_size < 0 || rec.payload_size > room) return false;
  rec.has_stride = flags == 1;
  const int64_t length = record_length(static_cast<int>(ndims), rec.has_stride, rec.payload_size);
  if (length > room) return false;
  for (uint32_t i = 0; i < ndims; ++i) {
    rec.start.push_back(r.get<int64_t>());
    rec.count.push_back(r.get<int64_t>());
    if (rec.has_stride) rec.stride.push_back(r.get<int64_t>());
  }
  if (!r.ok()) return false;
  const int64_t head = kRecordHeadBytes + static_cast<int64_t>(ndims) * (rec.has_stride ? 24 : 16);
  uint32_t stored = 0;
  std::memcpy(&stored, ring + at + length - 4, 4);
  if (crc32c(ring + at, static_cast<size_t>(head + rec.payload_size)) != stored) return false;
  rec.payload_offset = at + head;
  rec.offset = at;
  rec.length = length;
  *out = std::move(rec);
  return true;
}

}  // namespace

std::vector<Record> parse_ring(const uint8_t* ring, int64_t capacity, const State& state) {
  std::vector<Record> out;
  if (capacity <= 0 || state.tail < 0 || state.tail >= capacity || state.tail % 8 != 0) return out;
  int64_t at = state.tail;
  uint64_t seq = state.next_seq;
  int64_t walked = 0;  // a ring holds at most capacity bytes of records
  while (walked < capacity) {
    if (capacity - at < 8) {  // too little left even for a wrap marker
      walked += capacity - at;
      at = 0;
      continue;
    }
    uint32_t magic = 0;
    std::memcpy(&magic, ring + at, 4);
    if (magic == kWrapMagic) {
      walked += capacity - at;
      at = 0;
      continue;
    }
    Record rec;
    if (!parse_record(ring, at, capacity - at, seq, &rec)) break;
    walked += rec.length;
    at += rec.length;
    if (at == capacity) at = 0;
    ++seq;
    out.push_back(std::move(rec));
  }
  return out;
}

uint32_t header_digest(const uint8_t* header, size_t size) {
  std::vector<uint8_t> copy(header, header + size);
  const size_t numrecs_end = size >= 4 && copy[3] == 5 ? 12 : 8;
  for (size_t i = 4; i < numrecs_end && i < copy.size(); ++i) copy[i] = 0;
  return crc32c(copy.data(), copy.size());
}

}  // namespace exa::layer::cachelog
