// Reading and writing the metadata of partitioned files (docs/format.md)
// through MPI-IO: blocks written by all ranks at once, the index table and
// the superblock by rank 0, in the order that keeps a crash harmless.
#pragma once

#include <functional>
#include <span>

#include "format/partitioned_image.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// Collective. Each block of the image not marked reused is encoded by the
// rank `writer` names for it (the same vector on every rank) and all are
// written in one collective call on disjoint regions; then rank 0 writes the index table. Nothing
// points at them yet: commit_superblock does, after the caller wrote what
// else the new state needs. Fills sb's index fields; *index receives the
// table as written (with the blocks' CRCs) on every rank.
Status write_blocks_and_index(MpiFile& file, const format::partitioned::Image& image,
                              const std::vector<int>& writer, format::partitioned::Superblock* sb,
                              format::partitioned::IndexTable* index);

// Collective. Syncs, then write_superblock: the new state becomes the current one.
Status commit_superblock(MpiFile& file, const format::partitioned::Superblock& sb);

// Collective. Rank 0 writes the superblock into slot (generation - 1) % 2 and
// syncs (the other slot keeps the previous state). Errors agreed.
Status write_superblock(MpiFile& file, const format::partitioned::Superblock& sb);

// Collective. Whether the file begins with the partitioned magic (rank 0
// reads, broadcasts).
Status probe_partitioned(MpiFile& file, bool* partitioned);

// Collective. Rank 0 reads the superblock pair, the index table and the
// root block (the global attributes), broadcasts them, and every rank
// decodes them. Other blocks are read when used (read_block).
Status read_partitioned_root(MpiFile& file, format::partitioned::Superblock* sb,
                             format::partitioned::IndexTable* index,
                             format::partitioned::Block* root);

// Collective: blocks every rank needs, read once each and shared. `need`
// (positions in `index`, the same list on every rank) is read by the ranks
// in turn -- its k-th block by rank k % nprocs -- and allgathered in rounds
// of at most `round_bytes`; `apply` gets every block on every rank, in list
// order. A failed read or apply on any rank fails the call on every rank.
using BlockBytesFn = std::function<Status(size_t block, std::span<const uint8_t> bytes)>;
Status share_blocks(MpiFile& file, const format::partitioned::IndexTable& index,
                    const std::vector<size_t>& need, const BlockBytesFn& apply,
                    int64_t round_bytes = 64 << 20);

// Independent: reads and decodes one block of the index.
Status read_block(MpiFile& file, const format::partitioned::Superblock& sb,
                  const format::partitioned::BlockEntry& entry, format::partitioned::Block* out);

}  // namespace exa::io
