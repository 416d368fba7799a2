// New data for the compact variables of an encoded metadata block
// (docs/format.md "Metadata block", variable flag 1), written into the
// block's bytes without decoding it: a compact commit rewrites every block
// holding a written compact variable, and a decoded Block (a string per
// name, a vector per attribute) costs far more than the bytes it came from.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "format/partitioned.hpp"
#include "util/status.hpp"

namespace exa::format::partitioned {

// New bytes for part of one compact variable of a block: the variable's
// position `var` in the block, `bytes` at `offset` of its data, which is
// `total` bytes long and, if not written yet (nbytes 0), starts as copies of
// `fill`. (Views: the caller keeps the bytes.)
struct CompactPatch {
  uint64_t var = 0;
  uint64_t offset = 0;
  uint64_t total = 0;
  std::span<const uint8_t> fill;
  std::span<const uint8_t> bytes;
};

// Appends to *out the block `bytes` (at `entry`) with `patches` applied:
// the same bytes as decode_block, applying each patch to the decoded
// variable's data in order, and append_encoded_block would give (except
// that padding bytes outside the written data are copied as they are).
// `patches` are sorted by variable, a variable's in the order they apply
// (a later one wins where they overlap). Checks what decode_block checks of
// the block's structure (size, CRC, magic, path and counts against the
// entry, flags, compact data sizes; NC_EFILEMETA), not names or types; a
// patch for no compact variable or beyond its data is NC_EINTERNAL. (*out
// grows as a vector does: a caller appending many blocks reserves first.)
Status append_patched_block(std::span<const uint8_t> bytes, const BlockEntry& entry,
                            std::span<const CompactPatch> patches, std::vector<uint8_t>* out);

}  // namespace exa::format::partitioned
