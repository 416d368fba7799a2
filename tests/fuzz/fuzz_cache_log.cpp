// The cache connector's log decoder (src/layer/cache_log.cpp) on arbitrary
// bytes: a log file's head (manifest, state slots) followed by its ring, as
// `exacdf recover` reads them. Every record it accepts must lie inside the
// ring, in sequence, and be re-encodable to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "layer/cache_log.hpp"

namespace cl = exa::layer::cachelog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cl::Manifest m;
  if (cl::decode_manifest(data, size < 2048 ? size : 2048, &m).is_ok()) {
    const std::vector<uint8_t> again = cl::encode_manifest(m);
    cl::Manifest m2;
    if (!cl::decode_manifest(again.data(), again.size(), &m2).is_ok() || m2.path != m.path) std::abort();
  }
  cl::State state;
  if (!cl::decode_state(data, size, &state).is_ok()) {
    state = cl::State{};
    if (size < 8) return 0;
    std::memcpy(&state.tail, data, sizeof(int32_t));  // fuzz the start too
    state.tail = (state.tail & 0xffff) * 8;
    state.next_seq = data[4];
  }
  if (size <= static_cast<size_t>(cl::kHeadBytes)) return 0;
  const uint8_t* ring = data + cl::kHeadBytes;
  const int64_t capacity = static_cast<int64_t>(size) - cl::kHeadBytes;
  const std::vector<cl::Record> records = cl::parse_ring(ring, capacity, state);
  uint64_t seq = state.next_seq;
  for (const cl::Record& r : records) {
    if (r.seq != seq++ || r.offset < 0 || r.length <= 0 || r.offset + r.length > capacity) std::abort();
    if (r.payload_offset < r.offset || r.payload_offset + r.payload_size > r.offset + r.length) std::abort();
    std::vector<uint8_t> head, tail;
    cl::encode_record_head(r, &head);
    cl::encode_record_tail(head, ring + r.payload_offset, r.payload_size, r.length, &tail);
    if (std::memcmp(head.data(), ring + r.offset, head.size()) != 0) std::abort();
    if (std::memcmp(tail.data() + tail.size() - 4, ring + r.offset + r.length - 4, 4) != 0) std::abort();
  }
  (void)cl::header_digest(data, size < 512 ? size : 512);
  return 0;
}
