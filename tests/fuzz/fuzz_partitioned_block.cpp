// libFuzzer target: a metadata block of the partitioned format (input
// layout in partitioned_fuzz_input.hpp). What decodes re-encodes to a block
// that decodes to the same thing; then a lazily opened dataset with this
// block (model::Dataset::open_lazily) loads and checks every object of it
// without crashing.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "format/partitioned.hpp"
#include "format/partitioned_index.hpp"
#include "format/partitioned_image.hpp"
#include "model/dataset.hpp"
#include "partitioned_fuzz_input.hpp"
#include "util/crc32c.hpp"

using exa::Status;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pf = exa::format::partitioned;
  std::span<const uint8_t> in(data, size);
  const uint64_t total_dims = exa::fuzz::take_u64(in);
  pf::BlockEntry entry;
  entry.natts = uint32_t(exa::fuzz::take_u64(in));
  entry.ndims = exa::fuzz::take_u64(in);
  entry.nvars = exa::fuzz::take_u64(in);
  const bool fix_crc = exa::fuzz::take_u8(in) & 1;
  const size_t path_len = std::min<size_t>(exa::fuzz::take_u8(in), in.size());
  entry.path.assign(reinterpret_cast<const char*>(in.data()), path_len);
  in = in.subspan(path_len);
  std::vector<uint8_t> block(in.begin(), in.end());
  if (fix_crc && block.size() >= 4) {
    uint32_t crc = exa::crc32c(block.data(), block.size() - 4);
    for (int i = 0; i < 4; ++i) block[block.size() - 4 + size_t(i)] = uint8_t(crc >> (24 - 8 * i));
  }
  entry.offset = pf::kFirstRegion;
  entry.size = block.size();
  entry.crc = exa::crc32c(block.data(), block.size());
  pf::Block out;
  if (!pf::decode_block(block, entry, total_dims, &out).is_ok()) return 0;
  std::vector<uint8_t> bytes = pf::encode_block(out);
  entry.size = bytes.size();
  entry.crc = exa::crc32c(bytes.data(), bytes.size());
  pf::Block again;
  if (!pf::decode_block(bytes, entry, total_dims, &again).is_ok() || !(again == out)) std::abort();
  // A file of this block (after an empty root block unless it is the root).
  pf::Superblock sb;
  sb.ndims = entry.ndims;
  sb.nvars = entry.nvars;
  sb.record_begin = pf::kFirstRegion;
  sb.record_size = 1 << 20;
  for (size_t d = 0; d < out.dims.size(); ++d)
    if (out.dims[d].length == 0 && sb.record_dim == 0) sb.record_dim = d + 1;
  pf::IndexTable index;
  pf::Block root;
  root.path = "/";
  if (entry.path != "/") index.blocks.push_back({"/", pf::kFirstRegion, 0, 0, 0, 0, 0});
  index.blocks.push_back(entry);
  if (entry.path == "/") root = out;
  exa::model::Dataset ds;
  auto paged = std::make_shared<pf::PagedIndex>(sb, index);
  Status opened = ds.open_lazily(paged, root, [&out](const pf::BlockEntry&, pf::Block* b) {
    *b = out;
    return Status::ok();
  });
  if (!opened.is_ok()) return 0;
  for (int v = 0; v < ds.nvars(); ++v) (void)ds.valid_var(v);
  for (int d = 0; d < ds.ndims(); ++d) (void)ds.valid_dim(d);
  for (const auto& bv : out.vars) (void)ds.find_var(pf::full_name(entry.path, bv.var.name));
  return 0;
}
