// libFuzzer target: the partitioned format's index table (input layout in
// partitioned_fuzz_input.hpp): its head, its pages, the whole-table decoder
// and the lazily paged lookups. What decodes re-encodes and decodes to the
// same entries, and every path and id is found where it is; a table that
// keeps pages of an earlier one (flag 16) decodes to the same entries.
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

// The file the harness makes: `bytes` from offset 4096 on.
struct FuzzFile {
  std::vector<uint8_t> bytes;
  exa::Status read(uint64_t offset, uint64_t size, std::vector<uint8_t>* out) const {
    if (offset < uint64_t(pf::kFirstRegion) || offset - pf::kFirstRegion > bytes.size() ||
        size > bytes.size() - (offset - pf::kFirstRegion))
      return {NC_ETRUNC, "past the end"};
    const auto first = bytes.begin() + int64_t(offset - pf::kFirstRegion);
    out->assign(first, first + int64_t(size));
    return exa::Status::ok();
  }
  std::span<const uint8_t> table(const pf::Superblock& sb) const {
    return std::span<const uint8_t>(bytes).subspan(size_t(sb.index_offset - pf::kFirstRegion), size_t(sb.index_size));
  }
};

// Every lookup of the lazy index agrees with the whole table.
void check_lookups(const pf::Superblock& sb, const FuzzFile& file, const pf::IndexTable& index) {
  pf::IndexHead head;
  const std::span<const uint8_t> bytes = file.table(sb);
  if (!pf::decode_index_head(bytes.first(size_t(sb.index_head_size)), sb, uint64_t(1) << 40, &head).is_ok())
    std::abort();
  pf::PagedIndex paged(sb, head, uint64_t(1) << 40, [&](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
    return file.read(offset, size, out);
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

// A commit that keeps pages (flag 16): the table written whole past the
// file, then again keeping every other page of it; both decode to `index`.
void check_kept_pages(const pf::Superblock& sb, const FuzzFile& file, const pf::IndexTable& index) {
  FuzzFile grown = file;
  grown.bytes.resize((grown.bytes.size() + 7) / 8 * 8);
  pf::Superblock whole = sb;
  whole.kept_pages = false;
  whole.index_offset = pf::kFirstRegion + grown.bytes.size();
  std::vector<pf::PageRef> placed;
  std::vector<uint8_t> first = pf::encode_index_placed(index, whole.index_offset, &whole.index_head_size, &placed);
  grown.bytes.insert(grown.bytes.end(), first.begin(), first.end());
  std::vector<bool> rewrite(placed.size());
  for (size_t k = 0; k < rewrite.size(); k += 2) rewrite[k] = true;
  pf::Superblock kept = sb;
  kept.kept_pages = true;
  kept.index_offset = pf::kFirstRegion + grown.bytes.size();
  std::vector<pf::PageRef> again;
  std::vector<uint8_t> second = pf::encode_index_keeping(index, kept.index_offset, placed, rewrite,
                                                         &kept.index_head_size, &again);
  if (second.empty() || again.size() != placed.size()) std::abort();
  for (size_t k = 0; k < again.size(); ++k)
    if (!rewrite[k] && !(again[k] == placed[k])) std::abort();
  grown.bytes.insert(grown.bytes.end(), second.begin(), second.end());
  kept.index_size = second.size();
  kept.index_crc = exa::crc32c(second.data(), kept.index_head_size);
  kept.file_end = std::max<uint64_t>(kept.file_end, pf::kFirstRegion + grown.bytes.size());
  pf::IndexTable decoded;
  std::vector<pf::PageRef> refs;
  const pf::PageFetch fetch = [&](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
    return grown.read(offset, size, out);
  };
  // The fuzzed blocks may lie over the new tables (then they do not
  // decode): what decodes holds what the first table held.
  if (pf::decode_index(grown.table(kept), kept, uint64_t(1) << 40, &decoded, fetch, &refs).is_ok() &&
      (!(decoded == index) || !(refs == again)))
    std::abort();
  pf::IndexTable plain;
  whole.index_size = first.size();
  whole.index_crc = exa::crc32c(first.data(), whole.index_head_size);
  whole.file_end = kept.file_end;
  if (pf::decode_index(grown.table(whole), whole, uint64_t(1) << 40, &plain).is_ok() && !(plain == index)) std::abort();
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
  // Bit 61: superblock flag 16, kept pages: page offsets are absolute and
  // a page may lie before the table; the next u64 is how many bytes of the
  // file (from 4096) come before the table.
  sb.kept_pages = ((sb.index_head_size >> 61) & 1) != 0;
  sb.index_head_size &= ~(uint64_t(1) << 61);
  const uint64_t lead = sb.kept_pages ? exa::fuzz::take_u64(in) : 0;
  if (lead > in.size()) return 0;
  if (sb.kept_pages && sb.file_end == 0) sb.file_end = uint64_t(1) << 24;
  sb.index_offset = pf::kFirstRegion + lead;
  sb.index_size = in.size() - lead;
  if (sb.index_head_size > sb.index_size) return 0;
  FuzzFile file{std::vector<uint8_t>(in.begin(), in.end())};
  const uint64_t file_size = uint64_t(1) << 24;
  // Fix the CRCs: each page's in the directory (where the directory says
  // the page lies), then the head's.
  uint8_t* table = file.bytes.data() + lead;
  const uint64_t head_size = sb.index_head_size;
  for (uint64_t at = pf::kIndexHeadFixedSize; at + pf::kPageRefSize <= head_size; at += pf::kPageRefSize) {
    uint64_t offset = 0, length = 0;
    for (int i = 0; i < 8; ++i) {
      offset = offset << 8 | table[at + i];
      length = length << 8 | table[at + 8 + i];
    }
    // Where the page lies in `file` (absolute with flag 16).
    uint64_t in_file = 0;
    if (!sb.kept_pages) in_file = lead + offset;
    else if (offset >= uint64_t(pf::kFirstRegion)) in_file = offset - pf::kFirstRegion;
    else continue;
    if (in_file <= file.bytes.size() && length <= file.bytes.size() - in_file)
      put_be32(table + at + 16, exa::crc32c(file.bytes.data() + in_file, length));
  }
  sb.index_crc = exa::crc32c(table, head_size);
  const pf::PageFetch fetch = [&](uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
    return file.read(offset, size, out);
  };
  pf::IndexTable index;
  if (!pf::decode_index(file.table(sb), sb, file_size, &index, fetch).is_ok()) return 0;
  check_lookups(sb, file, index);
  check_kept_pages(sb, file, index);
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
  again_sb.kept_pages = false;
  again_sb.index_size = bytes.size();
  again_sb.index_head_size = head;
  again_sb.index_crc = exa::crc32c(bytes.data(), head);
  pf::IndexTable again;
  if (!pf::decode_index(bytes, again_sb, file_size, &again).is_ok() || !(again == index)) std::abort();
  if (int64_t(bytes.size()) != pf::encoded_index_size(index)) std::abort();
  return 0;
}
