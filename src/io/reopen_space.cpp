#include "io/reopen_space.hpp"

#include <set>
#include <tuple>

#include "io/partitioned_io.hpp"

namespace exa::io {

namespace pf = format::partitioned;

namespace {

// Adds what the state of `sb` references; `seen` (offset, size, crc) keeps
// a block two states share from being read twice.
Status add_state(MpiFile& file, const pf::Superblock& sb, int64_t file_size,
                 std::set<std::tuple<uint64_t, uint64_t, uint32_t>>* seen, std::vector<pf::Span>* used) {
  std::vector<uint8_t> bytes;
  EXA_RETURN_IF_ERROR(read_extent(file, {sb.index_offset, sb.index_size}, &bytes));
  pf::IndexTable table;
  std::vector<pf::PageRef> pages;  // with flag 16, some outside the table
  const pf::PageFetch read_page = [&](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
    return read_extent(file, {offset, size}, out);
  };
  EXA_RETURN_IF_ERROR(pf::decode_index(bytes, sb, uint64_t(file_size), &table, read_page, &pages));
  std::vector<pf::Block> blocks;
  for (const pf::BlockEntry& e : table.blocks) {
    if (!seen->insert({e.offset, e.size, e.crc}).second) continue;
    pf::Block block;
    EXA_RETURN_IF_ERROR(read_block(file, sb, e, &block));
    for (auto& bv : block.vars) bv.data.clear();  // only where the variables lie matters
    block.atts.clear();
    blocks.push_back(std::move(block));
  }
  return pf::add_references(sb, table, blocks, used, pages);
}

}  // namespace

Status unreferenced_space(MpiFile& file, const pf::Superblock& current, std::vector<pf::Span>* out) {
  out->clear();
  std::vector<uint8_t> slots;
  const int64_t slots_end = pf::kSuperblockSlots[1] + pf::kSuperblockSize;
  EXA_RETURN_IF_ERROR(read_extent(file, {0, uint64_t(slots_end)}, &slots));
  const std::span<const uint8_t> all(slots);
  pf::SlotScan scan;
  EXA_RETURN_IF_ERROR(scan_superblocks(all.subspan(size_t(pf::kSuperblockSlots[0]), pf::kSuperblockSize),
                                       all.subspan(size_t(pf::kSuperblockSlots[1]), pf::kSuperblockSize), &scan));
  // The newest valid slot must be the state the writer opened (it wrote
  // nothing since), the other one, if valid, older.
  if (scan.valid.empty() || !(scan.valid[0] == current))
    return {NC_EFILEMETA, "the superblock on disk is not the one opened"};
  if (scan.valid.size() > 1 && scan.valid[1].generation >= current.generation)
    return {NC_EFILEMETA, "two superblock slots of one generation"};
  int64_t file_size = 0;
  EXA_RETURN_IF_ERROR(file.size(&file_size));
  std::set<std::tuple<uint64_t, uint64_t, uint32_t>> seen;
  std::vector<pf::Span> used;
  for (const pf::Superblock& sb : scan.valid) EXA_RETURN_IF_ERROR(add_state(file, sb, file_size, &seen, &used));
  *out = pf::unreferenced(pf::kFirstRegion, int64_t(current.file_end), std::move(used));
  return Status::ok();
}

}  // namespace exa::io
