// The bitmap index of one variable as stored in its sidecar file
// (docs/format.md "Query index sidecar"): a header (what data it was built
// from, bin edges, per-chunk directory with min/max), then one block per
// chunk holding one Roaring bitmap (portable serialization) per bin.
// MPI-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.hpp"

typedef struct roaring_bitmap_s roaring_bitmap_t;

namespace exa::query {

// Version 2 (written now): chunk entries also carry a CRC of the chunk's
// values and the stale/bounds flags. Version 1 sidecars are still read.
constexpr uint32_t kIndexVersion = 2;
constexpr uint32_t kIndexVersionV1 = 1;
constexpr size_t kIndexPrefixBytes = 16;  // magic, version, header length
constexpr uint32_t kMaxEdges = 4095;
constexpr uint64_t kMaxChunkElems = uint64_t{1} << 32;

struct ChunkEntry {
  uint64_t offset = 0;  // of the chunk's block in the sidecar
  uint64_t length = 0;
  double min = 0, max = 0;  // of the non-NaN values, rounded outward
  uint32_t crc = 0;         // CRC-32C of the block
  uint32_t flags = 0;       // kHasValues | kHasNaN | kStale | kNoBounds | kHasDataCrc
  uint32_t data_crc = 0;    // CRC-32C of the chunk's values (little-endian) when built
};
constexpr uint32_t kHasValues = 1;
constexpr uint32_t kHasNaN = 2;
// The chunk's values changed since its bitmaps were built: the bitmaps are
// not used; min/max (widened by the values put) still bound the values
// unless kNoBounds.
constexpr uint32_t kStale = 4;
// Values of unknown range were put (a put whose values were not seen): min,
// max and kHasNaN say nothing. Only with kStale.
constexpr uint32_t kNoBounds = 8;
constexpr uint32_t kHasDataCrc = 16;  // data_crc is set (version 2)
// The chunk has no block (offset and length 0), only min/max: a min/max
// record of a variable that was never indexed (every chunk has it, with
// kStale, and the header has no edges). Version 2.
constexpr uint32_t kNoBitmaps = 32;
constexpr uint32_t kKnownFlagsV1 = kHasValues | kHasNaN;
constexpr uint32_t kKnownFlags = kKnownFlagsV1 | kStale | kNoBounds | kHasDataCrc | kNoBitmaps;

struct IndexHeader {
  uint32_t version = kIndexVersion;  // as read (encode_header writes this version)
  uint64_t data_size = 0;
  int64_t data_mtime_ns = 0;
  uint32_t data_digest = 0;
  uint32_t varid = 0;
  uint32_t var_type = 0;
  uint32_t ndims = 0;
  uint64_t nrows = 0;      // length of dimension 0 when built (1 for a scalar)
  uint64_t row_elems = 0;  // elements per row (product of the other dimensions)
  uint64_t chunk_rows = 0;
  std::string var_name;
  std::vector<double> edges;  // strictly increasing, finite
  std::vector<ChunkEntry> chunks;

  uint32_t nbins() const { return static_cast<uint32_t>(edges.size()) + 2; }  // + the NaN bin
  uint64_t chunk_elems(uint64_t c) const;
  uint64_t stale_chunks() const;
  // A min/max record only (no bitmaps): every chunk has kNoBitmaps.
  bool minmax_only() const;
  uint64_t bounded_chunks() const;  // chunks whose min/max hold (no kNoBounds)
};

// Values put into part of a chunk: what they do to its entry. `bounded`:
// lo/hi (doubles rounded outward, of the non-NaN values; none: any=false)
// and nan describe the values put.
struct PutBounds {
  bool bounded = false;
  bool any = false, nan = false;
  double lo = 0, hi = 0;
};
// The bounds of both sets of values (unbounded when either is).
PutBounds unite_bounds(const PutBounds& a, const PutBounds& b);
// Marks the entry stale and widens its bounds by the values put.
void mark_stale(ChunkEntry* e, const PutBounds& put);

// One put as the index sees it: the rows of dimension 0 it wrote, the
// range of its values, and whether it wrote every value of those rows
// (whole_rows: stride 1, the other dimensions whole, and the write done),
// so that puts covering a whole chunk together say what it holds.
struct PutRecord {
  uint64_t row0 = 0, row1 = 0;  // rows [row0, row1) of dimension 0; row1 UINT64_MAX: to the end
  PutBounds bounds;
  bool whole_rows = false;
};
// Marks the chunks the records touch stale and widens their bounds
// (mark_stale); then a chunk whose every row some whole-row records wrote
// gets the union of the bounds of all records touching it instead (its
// values are all among those put). Whether any entry changed.
bool apply_puts(const std::vector<PutRecord>& puts, IndexHeader* h);

// A min/max record of rows [0, nrows) of row_elems values each, chunks of
// chunk_rows rows, every chunk without bounds (kStale | kNoBounds |
// kNoBitmaps) until puts cover it.
IndexHeader minmax_header(uint32_t varid, uint32_t var_type, uint32_t ndims, const std::string& name,
                          uint64_t nrows, uint64_t row_elems, uint64_t chunk_rows);
// A min/max record grown to nrows rows (a record variable's new records):
// new chunks without bounds, a last chunk that grew loses its bounds.
void grow_minmax(IndexHeader* h, uint64_t nrows);

// The bin of a value: the number of edges <= v; NaN: the last bin.
uint32_t bin_of(const std::vector<double>& edges, long double v);
// Bin b's interval [lo, hi) (the last value bin closed: hi_closed).
void bin_interval(const std::vector<double>& edges, uint32_t b, long double* lo, long double* hi,
                  bool* hi_closed);

// The header's bytes (prefix included, CRC at the end).
std::vector<unsigned char> encode_header(const IndexHeader& h);
// The total header length from its first kIndexPrefixBytes bytes.
Status header_length(const unsigned char* prefix, size_t len, uint64_t* header_len);
Status decode_header(const unsigned char* data, size_t len, IndexHeader* out);

// One chunk's bitmaps, one per bin.
class ChunkBitmaps {
 public:
  explicit ChunkBitmaps(uint32_t nbins = 0);
  ~ChunkBitmaps();
  ChunkBitmaps(ChunkBitmaps&&) noexcept;
  ChunkBitmaps& operator=(ChunkBitmaps&&) noexcept;
  ChunkBitmaps(const ChunkBitmaps&) = delete;
  ChunkBitmaps& operator=(const ChunkBitmaps&) = delete;

  uint32_t nbins() const { return static_cast<uint32_t>(bins_.size()); }
  roaring_bitmap_t* bin(uint32_t b) const { return bins_[b]; }
  void add(uint32_t b, uint32_t pos);
  void optimize();

  // nbins u32 cardinalities, then per bin: u32 length, portable bitmap.
  std::vector<unsigned char> encode() const;
  // The bins with want[b] (all when want is empty) deserialized with
  // CRoaring's safe deserializer, checked against their stored
  // cardinality and for positions < chunk_elems; the others left empty.
  static Status decode(const unsigned char* data, size_t len, uint32_t nbins, uint64_t chunk_elems,
                       ChunkBitmaps* out, const std::vector<bool>& want = {});
  // The cardinalities at the head of an encoded block.
  static Status cardinalities(const unsigned char* data, size_t len, uint32_t nbins,
                              uint64_t chunk_elems, std::vector<uint32_t>* out);

 private:
  void clear();
  std::vector<roaring_bitmap_t*> bins_;
};

struct IndexSpec {
  uint32_t bins = 64;         // equal-weight bins, when edges is empty
  std::vector<double> edges;  // given edges
  uint64_t chunk_rows = 0;    // 0: the default
  // "update": keep the sidecar's bins and chunk size and rebuild only the
  // chunks that are stale, changed (data CRC) or new (a full build when
  // there is no usable sidecar).
  bool update = false;
};
// "bins=N", "edges=a,b,c", each optionally followed by ";chunk=R"; or
// "update"; NULL/"" the default.
Status parse_spec(const char* text, IndexSpec* out);

// Edges for `bins` equal-weight bins from a sorted sample (duplicates merged).
std::vector<double> equal_weight_edges(const std::vector<double>& sorted_sample, uint32_t bins);

// A double bound of v rounded down (up) when v is not a double.
double round_down(long double v);
double round_up(long double v);

}  // namespace exa::query
