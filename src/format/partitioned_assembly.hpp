// The image of a partitioned file whose blocks were each defined by one rank
// only, put together from every rank's block summaries instead of from one
// header: each rank plans its own blocks (plan_image on its own objects),
// summarizes them (path, counts, encoded size, data bytes), rank 0 sorts all
// summaries by path and places blocks, index table and data, and each rank
// applies its placements to its own image. Per rank the cost follows its own
// objects; rank 0 also handles one summary per block of the file. Pure: the
// layer moves the bytes (layer/native_private_blocks.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/partitioned_image.hpp"

namespace exa::format::partitioned {

// What rank 0 needs of one block to place it.
struct BlockSummary {
  std::string path;
  uint64_t ndims = 0, nvars = 0, natts = 0;
  uint64_t size = 0;        // encoded bytes
  uint64_t data_bytes = 0;  // data of its fixed-size, non-compact variables (each padded to 4)
  bool operator==(const BlockSummary&) const = default;
};

// The summaries of a rank's planned image, and the image's block each one
// is: every block but a root block without dimensions and variables (its
// global attributes are every rank's, merged: rank 0 writes it). NC_EVARSIZE if a
// block's data passes 2^63 bytes.
Status summarize_image(const Header& header, const Image& image, std::vector<BlockSummary>* summaries,
                       std::vector<size_t>* blocks);

// Summaries as bytes (they travel between ranks) and back. Decoding checks
// every length against the bytes (NC_EINTERNAL: they come from a peer).
std::vector<uint8_t> encode_summaries(const std::vector<BlockSummary>& summaries);
Status decode_summaries(std::span<const uint8_t> bytes, std::vector<BlockSummary>* out);

// Where rank 0 put one summarized block.
struct BlockPlacement {
  uint64_t block = 0;              // index table position
  uint64_t first_dim = 0, first_var = 0;  // global ids of its first objects
  uint64_t offset = 0;             // of the encoded block
  uint64_t data = 0;               // where its first non-compact variable's data goes
};
inline constexpr size_t kPlacementWords = 5;  // uint64 words per placement, in field order

// The whole file's metadata plan (rank 0).
struct Assembly {
  std::string shared_path;  // not empty: a block two ranks defined (the plan is void)
  IndexTable index;         // CRCs 0 until the blocks are encoded
  std::vector<std::vector<BlockPlacement>> placements;  // per rank, in its summaries' order
  bool root_by_rank0 = false;  // no rank summarized "/": rank 0 writes root_block(gatts) there
  uint64_t ndims = 0, nvars = 0;
  int64_t index_offset = 0, index_size = 0;
  int64_t data_begin = 0, data_end = 0;
};

// Merges every rank's summaries by path (each rank's list must be sorted,
// as summarize_image gives it; NC_EINTERNAL otherwise), places
// the blocks from kFirstRegion on, the index table after them, and the data
// from the next multiple of `align` on, block after block. NC_EVARSIZE if
// offsets pass 2^63. `gatts`: the file's global attributes (for a root
// block no rank summarized).
Status assemble(std::vector<std::vector<BlockSummary>> per_rank, const std::vector<Attribute>& gatts,
                int64_t align, Assembly* out);

// The encoded root block of a file whose root holds global attributes only.
std::vector<uint8_t> root_block(const std::vector<Attribute>& gatts);

// A rank's image and header after rank 0 placed them: block offsets, global
// dimension positions (make_block writes them as dimension ids), variable
// offsets (compact: 0) and sizes. *var_positions receives the global id of
// each variable (by header index), *dim_positions of each dimension.
Status apply_placements(Header& header, Image& image, const std::vector<size_t>& blocks,
                        const std::vector<BlockPlacement>& placements, std::vector<int64_t>* dim_positions,
                        std::vector<int64_t>* var_positions);

}  // namespace exa::format::partitioned
