// The on-disk form of the cache connector's per-rank log (MPI-free, so the
// fuzzer and `exacdf recover` decode exactly what the connector writes).
//
// A log file is a 4 KiB head -- the manifest (which file, header digest and
// generation the records belong to) and two alternating state slots (the
// first undrained record: its sequence number and offset) -- followed by a
// ring of `capacity` bytes holding records. A record is a fixed 40-byte
// head (magic, dimensions, sequence number, variable, memory type, flags,
// collective call (low 32 bits), payload size), start/count[/stride] per dimension, the payload (the
// values as the program passed them, packed, in the memory type), and a
// CRC-32C of everything before it; records are 8-byte aligned. A writer
// that reaches the ring's end writes a wrap marker (or, with fewer than 8
// bytes left, nothing) and continues at offset 0. Readers start at the
// state's offset and accept records while the sequence number is the next
// expected one and the CRC holds: a torn or stale record ends the log.
#pragma once

#include <cstdint>
#include <string>
#include <functional>
#include <vector>

#include "util/status.hpp"

namespace exa::layer::cachelog {

constexpr uint32_t kLogMagic = 0x4C435845;     // "EXCL"
constexpr uint32_t kStateMagic = 0x53435845;   // "EXCS"
constexpr uint32_t kRecordMagic = 0x52435845;  // "EXCR"
constexpr uint32_t kWrapMagic = 0x57435845;    // "EXCW"
constexpr uint32_t kVersion = 1;
constexpr int64_t kHeadBytes = 4096;        // manifest [0, 2048), state slots at 2048 and 3072
constexpr int64_t kStateSlot[2] = {2048, 3072};
constexpr int64_t kStateBytes = 40;
constexpr int64_t kRecordHeadBytes = 40;
constexpr int kMaxDims = 1024;

struct Manifest {
  std::string path;          // the target's absolute path
  uint64_t dev = 0, ino = 0;  // the target's identity when the log was made
  uint32_t header_digest = 0;  // header_digest() of the target's header bytes
  int64_t header_size = 0;   // how many header bytes the digest covers
  int64_t generation = 0;    // enddefs of the writing session (the header's version)
  int32_t rank = 0, nprocs = 1;
  int64_t capacity = 0;      // ring bytes after the head
};

struct State {
  uint64_t counter = 0;   // the newer of the two slots wins
  uint64_t next_seq = 0;  // sequence number of the first undrained record
  int64_t tail = 0;       // its offset in the ring
  int32_t failed = 0;     // 1: a drain into the target failed (the log is kept)
};

struct Record {
  uint64_t seq = 0;
  // The file's collective put this record came from, counted the same on every
  // rank: recovery replays all ranks' records in this order (on disk: the low
  // 32 bits; logs written before it was kept hold 0, replayed rank by rank).
  uint64_t call = 0;
  int32_t varid = 0;
  int32_t memtype = 0;
  bool has_stride = false;
  std::vector<int64_t> start, count, stride;
  int64_t payload_offset = 0;  // in the ring
  int64_t payload_size = 0;
  int64_t offset = 0, length = 0;  // the whole record in the ring
};

// The 2048-byte manifest block.
std::vector<uint8_t> encode_manifest(const Manifest& m);
Status decode_manifest(const uint8_t* data, size_t size, Manifest* out);

// One 40-byte state slot; decode_state picks the valid newer of both slots
// in a head of kHeadBytes.
std::vector<uint8_t> encode_state(const State& s);
Status decode_state(const uint8_t* head, size_t size, State* out);

// Bytes of a record with these dimensions and payload (8-aligned).
int64_t record_length(int ndims, bool has_stride, int64_t payload_size);
// The record's bytes except the payload: head and dimensions (written
// before the payload) and the CRC tail (after it). crc covers head+payload.
void encode_record_head(const Record& r, std::vector<uint8_t>* head);
// on_block (when set) sees the payload a block at a time, each right after
// the CRC read it (still in the cache): a put's value range taken in the
// CRC's pass (cache_connector.cpp).
using PayloadBlockFn = std::function<void(const void* block, int64_t bytes)>;
void encode_record_tail(const std::vector<uint8_t>& head, const void* payload, int64_t payload_size,
                        int64_t length, std::vector<uint8_t>* tail, const PayloadBlockFn& on_block = {});

// The committed records of a ring of `capacity` bytes (`ring` holds them),
// from state.tail on, in order; parsing stops at the first torn or stale one.
std::vector<Record> parse_ring(const uint8_t* ring, int64_t capacity, const State& state);

// CRC-32C of a classic header's bytes with numrecs zeroed (it grows as
// records are written; everything else names the file's definitions).
uint32_t header_digest(const uint8_t* header, size_t size);

}  // namespace exa::layer::cachelog
