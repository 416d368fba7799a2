// Helpers shared by the native connector's source files.
#pragma once

#include "layer/native_connector.hpp"

namespace exa::layer {

inline NativeFile& native(FileState& f) { return static_cast<NativeFile&>(f); }

// Opens this rank's MPI_COMM_SELF handle if it is not open yet. Local.
Status open_indep_handle(NativeFile& nf);

// A partitioned file: loads every page of the index table not yet loaded
// on every rank, each read once and shared (collective; io::share_extents),
// and gives the whole table.
Status load_whole_index(NativeFile& nf, format::partitioned::IndexTable* out);

// A lazily opened partitioned file: loads every block not yet loaded on
// every rank, each read once and shared (collective; io::share_extents).
Status load_every_block(NativeFile& nf);

// A collective data call on a lazily opened partitioned file: the index
// pages, then the blocks, of the variables the ranks name that some rank
// has not loaded yet are read once each and shared (an allgather and an
// allreduce when none is missing).
Status share_blocks_of_var(NativeFile& nf, int varid);

// Records the number of records on disk: the numrecs field of a classic
// header, a new superblock of a partitioned file (collective).
Status write_numrecs(NativeFile& nf, int64_t numrecs);

// Encodes the header in file order on rank 0 and writes it there (collective).
Status write_file_header(NativeFile& nf);

// Independent define mode: merges what every rank defined since the last
// enddef into every rank's dataset (collective; the same outcome on every
// rank; on error the caller undoes it with model::undo_merge). layer/native_merge.cpp.
Status merge_independent_definitions(NativeFile& nf);

}  // namespace exa::layer
