// The rank-0 parts of the private-blocks enddef (layer/native_private_blocks.cpp)
// done in rounds, so that rank 0 never holds one record per block of the
// whole file: its memory for them is a chunk of summaries per rank and a
// batch of index pages, plus the page directory (one reference per
// kIndexPageEntries blocks).
//   place_in_rounds: rank 0 merges every rank's sorted block summaries by
//     path as they arrive (a chunk per rank at a time) and places each block
//     (format::BlockPlacer), sending every rank its placements back in the
//     same rounds;
//   write_index_in_rounds: once the blocks are written, every rank sends
//     rank 0 the index entries (with their CRCs) of its blocks that fall in
//     the next batch of pages; rank 0 encodes and writes those pages, then
//     the head.
// The file is byte for byte the one format::assemble + encode_index give.
#pragma once

#include <cstdint>
#include <vector>

#include "format/partitioned_assembly.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// What every rank knows after place_in_rounds.
struct PrivatePlan {
  int code = 0;             // NC_NOERR, or why rank 0 could not place the blocks
  bool shared = false;      // a path two ranks sent: the plan is void (nothing placed)
  uint64_t ndims = 0, nvars = 0, nblocks = 0;
  int64_t index_offset = 0, index_size = 0, data_end = 0;
  int root_writer = 0;      // the rank that summarized "/" (0 if none did: rank 0 writes the root)
};

// Collective. `mine` sorted by path (summarize_image). *placed receives this
// rank's placements in its summaries' order (data offsets absolute); on rank
// 0 *placer holds the totals write_index_in_rounds needs. A plan that is
// void or failed (plan->code) is not an error of this call.
Status place_in_rounds(MPI_Comm comm, const std::vector<format::partitioned::BlockSummary>& mine,
                       const std::vector<format::Attribute>& gatts, int64_t align, PrivatePlan* plan,
                       std::vector<format::partitioned::BlockPlacement>* placed,
                       format::partitioned::BlockPlacer* placer);

// One of this rank's blocks as its index entry needs it.
struct OwnEntry {
  const format::partitioned::BlockSummary* summary;
  const format::partitioned::BlockPlacement* placement;
  uint32_t crc;
};

// Collective, after every block is written. `mine` in placement order; on
// rank 0 `root_crc` is the CRC of the root block it wrote when
// placer.root_by_rank0(). Rank 0 writes the pages and the head at
// plan.index_offset; *sb receives the head's size and CRC (every rank);
// *table (rank 0) the head followed by page 0, as share_written_root wants.
Status write_index_in_rounds(MpiFile& file, const PrivatePlan& plan, const format::partitioned::BlockPlacer& placer,
                             const std::vector<OwnEntry>& mine, uint32_t root_crc,
                             format::partitioned::Superblock* sb, std::vector<uint8_t>* table);

// Tests: tiny rounds (1 KiB of summaries per rank per round, one page per batch),
// so that a small file takes every path of the rounds. Set by the
// environment variable EXACDF_DEBUG_SMALL_ROUNDS=1 (read at each call).
bool small_rounds();

}  // namespace exa::io
