// Writing fill values into regions of a file, shared by all ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "io/mpi_file.hpp"

namespace exa::io {

// A file region to fill with repetitions of one external value.
struct FillRegion {
  int64_t offset = 0;
  int64_t nbytes = 0;             // a multiple of pattern.size()
  std::vector<uint8_t> pattern;   // one element, external form
};

// Collective. Every rank writes an equal share (whole elements) of every
// region (the same list on every rank); errors agreed on all ranks.
Status write_fill(MpiFile& file, const std::vector<FillRegion>& regions);
// Collective. Each rank writes its own regions whole (lists differ by rank).
Status write_own_fill(MpiFile& file, const std::vector<FillRegion>& regions);

}  // namespace exa::io
