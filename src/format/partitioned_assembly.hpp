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
#include <string_view>
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

// A summary whose path lies in the bytes it was decoded from.
struct BlockSummaryView {
  std::string_view path;
  uint64_t ndims = 0, nvars = 0, natts = 0, size = 0, data_bytes = 0;
};

// Summaries as bytes (they travel between ranks) and back. Decoding checks
// every length against the bytes (NC_EINTERNAL: they come from a peer).
// The views' paths point into `bytes` (no allocation per summary).
std::vector<uint8_t> encode_summaries(std::span<const BlockSummary> summaries);
Status decode_summaries(std::span<const uint8_t> bytes, std::vector<BlockSummary>* out);
Status decode_summary_views(std::span<const uint8_t> bytes, std::vector<BlockSummaryView>* out);

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

// Places blocks one at a time, in path order (the merge of every rank's
// sorted summaries): the rule assemble follows for whole lists, and rank 0
// follows for summaries that arrive a chunk at a time
// (layer/native_private_blocks.cpp). It holds the previous path and the
// first path of each index page, not one entry per block.
class BlockPlacer {
 public:
  explicit BlockPlacer(const std::vector<Attribute>& gatts);
  // The next block in path order. *p receives its placement, its data
  // offset relative to the data's begin (data_begin() once finish()ed).
  // A path equal to the previous one sets shared_path() (the plan is void)
  // and leaves *p unset. NC_EVARSIZE if offsets pass 2^63.
  Status place(const BlockSummaryView& s, BlockPlacement* p);
  Status place(const BlockSummary& s, BlockPlacement* p);
  // After the last block: the index table and the data's begin and end.
  // NC_EVARSIZE / NC_EMAXVARS as assemble.
  Status finish(int64_t align);

  const std::string& shared_path() const { return shared_; }
  // No block has path "/": rank 0 writes root_block(gatts) as block 0 (known
  // from the first place() or finish() on).
  bool root_by_rank0() const { return root_by_rank0_; }
  uint64_t root_size() const { return root_size_; }
  uint64_t root_natts() const { return root_natts_; }
  uint64_t nblocks() const { return nblocks_; }
  uint64_t ndims() const { return ndims_; }
  uint64_t nvars() const { return nvars_; }
  int64_t index_offset() const { return index_offset_; }
  int64_t index_size() const { return index_size_; }
  int64_t index_head_size() const { return head_size_; }
  int64_t data_begin() const { return data_begin_; }
  int64_t data_end() const { return data_end_; }

 private:
  void start(bool root_is_placed);
  bool started_ = false, root_by_rank0_ = false;
  uint64_t root_size_ = 0, root_natts_ = 0;
  std::string previous_, shared_;
  uint64_t nblocks_ = 0, ndims_ = 0, nvars_ = 0;
  int64_t at_ = kFirstRegion, data_ = 0;
  int64_t paths_ = 0, first_paths_ = 0;  // bytes of every path, of each page's first path
  int64_t index_offset_ = 0, index_size_ = 0, head_size_ = 0, data_begin_ = 0, data_end_ = 0;
  void count(std::string_view path);
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
