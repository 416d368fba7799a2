// Index sidecars on disk: building one collectively, loading and checking
// it against the data file (size, modification time, digest of the first
// bytes, and this process's puts), reading its chunk blocks.
#pragma once

#include <string>

#include "query/index_format.hpp"
#include "query/mpi/engine.hpp"

namespace exa::query {

struct LoadedIndex {
  IndexHeader header;
  std::string path;
  // Chunk c's block, checked against its CRC. Local.
  Status load_block(uint64_t c, std::vector<unsigned char>* out) const;
  // The first n bytes of chunk c's block, unchecked (the bin counts: only
  // used to choose reading the values, which is right whatever they say).
  Status load_block_head(uint64_t c, uint64_t n, std::vector<unsigned char>* out) const;
};

// ncid was closed: what this process trusted of its sidecars goes.
void forget_trust(int ncid);

// What load_index found. present: a sidecar that decodes; matches: it
// describes the variable (the header in LoadedIndex, e.g. for a rebuild's
// data CRCs); usable: it is current -- built from this file, or trusted by
// this process with every put since applied as stale chunks -- and queries
// use its fresh chunks.
struct IndexState {
  bool present = false, matches = false, usable = false;
};

// Loads varid's sidecar header (rank 0 reads, all decode), takes this
// communicator's put records and marks the chunks they touch stale,
// writing the marks back into the sidecar (after ncmpi_sync, with the
// data file's new fingerprint). Errors only for failed MPI calls or writes.
// Collective.
Status load_index(const FileCtx& ctx, const VarShape& v, LoadedIndex* out, IndexState* state);

}  // namespace exa::query
