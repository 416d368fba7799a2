// Reading and writing the metadata of partitioned files (docs/format.md)
// through MPI-IO: blocks written by all ranks at once, the index table and
// the superblock by rank 0, in the order that keeps a crash harmless.
#pragma once

#include "format/partitioned_image.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// Collective. Each rank encodes the blocks i with i % nprocs == rank and all
// write them in one collective call; then rank 0 writes the index table,
// syncs, and commits with write_superblock. `sb` brings generation, counts,
// numrecs, record section and file end; the index fields are filled here.
// *index receives the table as written (with the blocks' CRCs) on every rank.
Status write_partitioned_metadata(MpiFile& file, const format::partitioned::Image& image,
                                  format::partitioned::Superblock* sb,
                                  format::partitioned::IndexTable* index);

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

// Independent: reads and decodes one block of the index.
Status read_block(MpiFile& file, const format::partitioned::Superblock& sb,
                  const format::partitioned::BlockEntry& entry, format::partitioned::Block* out);

}  // namespace exa::io
