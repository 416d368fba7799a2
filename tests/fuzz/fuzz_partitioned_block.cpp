// libFuzzer target: a metadata block of the partitioned format (input
// layout in partitioned_fuzz_input.hpp). What decodes re-encodes to a block
// that decodes to the same thing, and the compact commit's patching accepts
// it (check_patching); then a lazily opened dataset with this
// block (model::Dataset::open_lazily) loads and checks every object of it
// without crashing.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "format/compact_patch.hpp"
#include "format/partitioned.hpp"
#include "format/partitioned_index.hpp"
#include "format/partitioned_image.hpp"
#include "model/dataset.hpp"
#include "partitioned_fuzz_input.hpp"
#include "util/crc32c.hpp"

using exa::Status;

namespace {

namespace pf = exa::format::partitioned;

// The compact commit's patching (format/compact_patch) of a block decode
// accepts: no patch gives the same bytes; a patch of the first compact
// variable (its fill value first if not written yet) gives a block that
// decodes to the decoded one with that data.
void check_patching(const std::vector<uint8_t>& block, const pf::BlockEntry& entry, uint64_t total_dims,
                    const pf::Block& out) {
  std::vector<uint8_t> same;
  if (!pf::append_patched_block(block, entry, {}, &same).is_ok() || same != block) std::abort();
  for (size_t k = 0; k < out.vars.size(); ++k) {
    const pf::BlockVariable& v = out.vars[k];
    if (!(v.flags & pf::kVarCompact)) continue;
    const uint64_t total = v.data.empty() ? uint64_t(v.var.vsize) : v.data.size();
    if (total == 0 || total > 4096) return;
    const uint8_t fill[2] = {1, 2}, byte[1] = {0x5A};
    const pf::CompactPatch patch{k, 0, total, fill, byte};
    pf::Block want = out;
    auto& data = want.vars[k].data;
    if (data.empty()) {
      data.assign(size_t(total), 0);
      for (size_t at = 0; at + 2 <= data.size(); at += 2) data[at] = 1, data[at + 1] = 2;
    }
    data[0] = 0x5A;
    std::vector<uint8_t> patched;
    if (!pf::append_patched_block(block, entry, std::span(&patch, 1), &patched).is_ok()) std::abort();
    pf::BlockEntry e = entry;
    e.size = patched.size();
    e.crc = exa::crc32c(patched.data(), patched.size());
    pf::Block back;
    if (!pf::decode_block(patched, e, total_dims, &back).is_ok() || !(back == want)) std::abort();
    return;
  }
}

}  // namespace

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
  // The patching walks any input without reading past it; what decodes, it accepts.
  std::vector<uint8_t> walked;
  const bool patchable = pf::append_patched_block(block, entry, {}, &walked).is_ok();
  pf::Block out;
  if (!pf::decode_block(block, entry, total_dims, &out).is_ok()) return 0;
  if (!patchable) std::abort();
  check_patching(block, entry, total_dims, out);
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
