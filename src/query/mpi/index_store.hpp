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

// *usable: the sidecar exists, is well formed and current for v (agreed
// over the ranks). Errors only for failed MPI calls. Collective.
Status load_index(const FileCtx& ctx, const VarShape& v, LoadedIndex* out, bool* usable);

}  // namespace exa::query
