// libFuzzer target: the partitioned format's index table (input layout in
// partitioned_fuzz_input.hpp). What decodes re-encodes to the same bytes,
// and every path is found by binary search.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "format/partitioned.hpp"
#include "partitioned_fuzz_input.hpp"
#include "util/crc32c.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pf = exa::format::partitioned;
  std::span<const uint8_t> in(data, size);
  pf::Superblock sb;
  sb.generation = 1;
  sb.nblocks = exa::fuzz::take_u64(in);
  sb.ndims = exa::fuzz::take_u64(in);
  sb.nvars = exa::fuzz::take_u64(in);
  sb.index_offset = pf::kFirstRegion;
  sb.index_size = in.size();
  sb.index_crc = exa::crc32c(in.data(), in.size());
  const uint64_t file_size = uint64_t(1) << 24;
  pf::IndexTable index;
  if (!pf::decode_index(in, sb, file_size, &index).is_ok()) return 0;
  std::vector<uint8_t> bytes = pf::encode_index(index);
  if (bytes.size() != in.size()) std::abort();
  for (size_t i = 0; i < index.blocks.size(); ++i)
    if (pf::find_block(index, index.blocks[i].path) != int64_t(i)) std::abort();
  pf::IndexTable again;
  if (!pf::decode_index(bytes, sb, file_size, &again).is_ok() || !(again == index)) std::abort();
  return 0;
}
