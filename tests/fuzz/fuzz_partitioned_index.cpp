// libFuzzer target: the partitioned format's index table (input layout in
// partitioned_fuzz_input.hpp): its head, its pages, the whole-table decoder
// and the lazily paged lookups. What decodes re-encodes and decodes to the
// same entries, and every path and id is found where it is.
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "format/partitioned.hpp"
#include "format/partitioned_index.hpp"
#include "format/record_sections.hpp"
#include "partitioned_fuzz_input.hpp"
#include "util/crc32c.hpp"

namespace {

namespace pf = exa::format::partitioned;

void put_be32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (24 - 8 * i));
}

// Every lookup of the lazy index agrees with the whole table.
void check_lookups(const pf::Superblock& sb, const std::vector<uint8_t>& table, const pf::IndexTable& index) {
  pf::IndexHead head;
  const std::span<const uint8_t> bytes(table);
  if (!pf::decode_index_head(bytes.first(size_t(sb.index_head_size)), sb, uint64_t(1) << 40, &head).is_ok())
    std::abort();
  pf::PagedIndex paged(sb, head, uint64_t(1) << 40, [&](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
    out->assign(table.begin() + int64_t(offset - sb.index_offset), table.begin() + int64_t(offset - sb.index_offset + size));
    return exa::Status::ok();
  });
  int64_t first_dim = 0, first_var = 0;
  for (size_t i = 0; i < index.blocks.size(); ++i) {
    const pf::BlockEntry& e = index.blocks[i];
    int64_t b = -1, d = 0, v = 0;
    if (!paged.find(e.path, &b).is_ok() || b != int64_t(i)) std::abort();
    if (!paged.first_ids(i, &d, &v).is_ok() || d != first_dim || v != first_var) std::abort();
    size_t holder = 0;
    for (uint64_t k = 0; k < e.nvars && k < 4; ++k)
      if (!paged.block_of_var(first_var + int64_t(k), &holder).is_ok() || holder != i) std::abort();
    for (uint64_t k = 0; k < e.ndims && k < 4; ++k)
      if (!paged.block_of_dim(first_dim + int64_t(k), &holder).is_ok() || holder != i) std::abort();
    first_dim += int64_t(e.ndims);
    first_var += int64_t(e.nvars);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  pf::Superblock sb;
  sb.generation = 1;
  sb.nblocks = exa::fuzz::take_u64(in);
  sb.ndims = exa::fuzz::take_u64(in);
  sb.nvars = exa::fuzz::take_u64(in);
  sb.index_head_size = exa::fuzz::take_u64(in);
  // The head size's top bit: superblock flag 2, record sections after the
  // head's path area, checked against a record section of 8-byte records
  // from 4096 and 2^20 records in a 2^24-byte file.
  sb.record_sections = (sb.index_head_size >> 63) != 0;
  // Bit 62: superblock flag 4, the table may list index blocks (entry flag 1).
  sb.index_blocks = ((sb.index_head_size >> 62) & 1) != 0;
  sb.index_head_size &= ~(uint64_t(3) << 62);
  if (sb.record_sections) {
    sb.numrecs = uint64_t(1) << 20;
    sb.record_begin = uint64_t(pf::kFirstRegion);
    sb.record_size = 8;
    sb.file_end = uint64_t(1) << 24;
  }
  sb.index_offset = pf::kFirstRegion;
  sb.index_size = in.size();
  if (sb.index_head_size > in.size()) return 0;
  std::vector<uint8_t> table(in.begin(), in.end());
  const uint64_t file_size = uint64_t(1) << 24;
  // Fix the CRCs: each page's in the directory (where the directory says
  // the page lies), then the head's.
  const uint64_t head_size = sb.index_head_size;
  for (uint64_t at = pf::kIndexHeadFixedSize; at + pf::kPageRefSize <= head_size; at += pf::kPageRefSize) {
    uint64_t offset = 0, length = 0;
    for (int i = 0; i < 8; ++i) {
      offset = offset << 8 | table[at + i];
      length = length << 8 | table[at + 8 + i];
    }
    if (offset <= table.size() && length <= table.size() - offset)
      put_be32(table.data() + at + 16, exa::crc32c(table.data() + offset, length));
  }
  sb.index_crc = exa::crc32c(table.data(), head_size);
  pf::IndexTable index;
  if (!pf::decode_index(table, sb, file_size, &index).is_ok()) return 0;
  check_lookups(sb, table, index);
  // Where a record variable's records are: the pieces of any offset within
  // a record cover every record below current_first exactly once.
  for (int64_t at : {0, 4}) {
    std::vector<exa::format::RecordPiece> pieces;
    if (!exa::format::record_pieces(index.sections, int64_t(sb.record_begin), int64_t(sb.record_size),
                                    int64_t(sb.record_begin) + at, 4, &pieces).is_ok())
      continue;
    int64_t next = 0;
    for (const auto& p : pieces) {
      if (p.first != next || p.end <= p.first || p.base < 0 || p.stride <= 0) std::abort();
      next = p.end;
    }
    if (!pieces.empty() && next != INT64_MAX) std::abort();
  }
  // Written again (the writer's paging): the same entries.
  uint64_t head = 0;
  std::vector<uint8_t> bytes = pf::encode_index(index, pf::kIndexPageEntries, &head);
  pf::Superblock again_sb = sb;
  again_sb.index_size = bytes.size();
  again_sb.index_head_size = head;
  again_sb.index_crc = exa::crc32c(bytes.data(), head);
  pf::IndexTable again;
  if (!pf::decode_index(bytes, again_sb, file_size, &again).is_ok() || !(again == index)) std::abort();
  if (int64_t(bytes.size()) != pf::encoded_index_size(index)) std::abort();
  return 0;
}
