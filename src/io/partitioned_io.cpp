#include "io/partitioned_io.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "io/aggregate.hpp"
#include "io/collective.hpp"
#include "util/crc32c.hpp"

namespace exa::io {

namespace pf = format::partitioned;

Status write_superblock(MpiFile& file, const pf::Superblock& sb) {
  Status st;
  if (file.rank() == 0) {
    auto bytes = pf::encode_superblock(sb);
    st = file.write_at(pf::kSuperblockSlots[(sb.generation - 1) % 2], bytes.data(), int64_t(bytes.size()));
  }
  st = agree(file.comm(), st);
  if (!st.is_ok()) return st;
  return agree(file.comm(), file.sync_all());
}

Status write_blocks_and_index(MpiFile& file, const pf::Image& image, const std::vector<int>& writer,
                              pf::Superblock* sb, pf::IndexTable* index_out) {
  const int p = file.nprocs(), r = file.rank();
  std::vector<std::vector<uint8_t>> mine;
  std::vector<Segment> segments;
  std::vector<uint32_t> crcs;  // (block, crc) pairs of this rank
  for (size_t i = 0; i < image.blocks.size(); ++i) {
    if ((!image.reused.empty() && image.reused[i]) || writer[i] != r) continue;
    mine.push_back(pf::encode_block(image.blocks[i]));
    crcs.push_back(uint32_t(i));
    crcs.push_back(crc32c(mine.back().data(), mine.back().size()));
  }
  for (size_t k = 0; k < mine.size(); ++k)
    segments.push_back({int64_t(image.index.blocks[size_t(crcs[2 * k])].offset), int64_t(mine[k].size()),
                        mine[k].data()});
  EXA_RETURN_IF_ERROR(agree(file.comm(), write_segments(file, std::move(segments), true)));
  mine.clear();
  // Rank 0 gathers the CRCs and writes the index table.
  int n = int(crcs.size());
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, file.comm());
  int total = 0;
  for (int i = 0; i < p; ++i) {
    displs[size_t(i)] = total;
    total += counts[size_t(i)];
  }
  std::vector<uint32_t> all(size_t(r == 0 ? total : 0));
  MPI_Gatherv(crcs.data(), n, MPI_UINT32_T, all.data(), counts.data(), displs.data(), MPI_UINT32_T, 0,
              file.comm());
  Status st;
  std::vector<uint8_t> table;
  pf::IndexTable index = image.index;
  if (r == 0) {
    for (size_t k = 0; k + 1 < all.size(); k += 2) index.blocks[all[k]].crc = all[k + 1];
    table = pf::encode_index(index);
    st = file.write_at(image.index_offset, table.data(), int64_t(table.size()));
    sb->index_crc = crc32c(table.data(), table.size());
  }
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  MPI_Bcast(&sb->index_crc, 1, MPI_UINT32_T, 0, file.comm());
  std::vector<uint32_t> block_crcs(index.blocks.size());
  for (size_t i = 0; i < block_crcs.size(); ++i) block_crcs[i] = index.blocks[i].crc;
  if (!block_crcs.empty())
    MPI_Bcast(block_crcs.data(), int(block_crcs.size()), MPI_UINT32_T, 0, file.comm());
  for (size_t i = 0; i < block_crcs.size(); ++i) index.blocks[i].crc = block_crcs[i];
  *index_out = std::move(index);
  sb->index_offset = uint64_t(image.index_offset);
  sb->index_size = uint64_t(image.index_size);
  sb->nblocks = image.blocks.size();
  return Status::ok();
}

Status commit_superblock(MpiFile& file, const pf::Superblock& sb) {
  // Everything the new state uses is on disk before the superblock points at it.
  EXA_RETURN_IF_ERROR(agree(file.comm(), file.sync_all()));
  return write_superblock(file, sb);
}

Status probe_partitioned(MpiFile& file, bool* partitioned) {
  int yes = 0;
  if (file.rank() == 0) {
    // One read of the first bytes: the magic of either superblock slot.
    int64_t size = 0;
    std::vector<uint8_t> head;
    if (file.size(&size).is_ok()) {
      head.resize(size_t(std::min<int64_t>(size, pf::kSuperblockSlots[1] + 8)));
      if (!file.read_at(0, head.data(), int64_t(head.size())).is_ok()) head.clear();
    }
    for (int64_t at : pf::kSuperblockSlots)
      if (int64_t(head.size()) >= at + 8 &&
          std::equal(pf::kMagic.begin(), pf::kMagic.end(), head.begin() + at))
        yes = 1;
  }
  MPI_Bcast(&yes, 1, MPI_INT, 0, file.comm());
  *partitioned = yes != 0;
  return Status::ok();
}

namespace {

// Rank 0: [superblock 128][index table][root block], checked.
Status read_on_root(MpiFile& file, std::vector<uint8_t>* out) {
  int64_t size = 0;
  EXA_RETURN_IF_ERROR(file.size(&size));
  std::vector<uint8_t> slots(size_t(std::min<int64_t>(size, pf::kSuperblockSlots[1] + pf::kSuperblockSize)));
  EXA_RETURN_IF_ERROR(file.read_at(0, slots.data(), int64_t(slots.size())));
  std::span<const uint8_t> all(slots);
  std::span<const uint8_t> s0 = all.first(std::min<size_t>(all.size(), pf::kSuperblockSize));
  std::span<const uint8_t> s1 = all.size() > size_t(pf::kSuperblockSlots[1]) ? all.subspan(pf::kSuperblockSlots[1])
                                                                           : std::span<const uint8_t>();
  pf::Superblock sb;
  int slot = 0;
  EXA_RETURN_IF_ERROR(pf::pick_superblock(s0, s1, &sb, &slot));
  if (sb.index_offset > uint64_t(size) || sb.index_size > uint64_t(size) - sb.index_offset)
    return {NC_ETRUNC, "index table beyond the end of the file"};
  std::vector<uint8_t> table(size_t(sb.index_size));
  EXA_RETURN_IF_ERROR(file.read_at(int64_t(sb.index_offset), table.data(), int64_t(table.size())));
  pf::IndexTable index;
  EXA_RETURN_IF_ERROR(pf::decode_index(table, sb, uint64_t(size), &index));
  if (index.blocks.empty() || index.blocks[0].path != "/") return {NC_EFILEMETA, "the root block is missing"};
  auto bytes = pf::encode_superblock(sb);
  out->assign(bytes.begin(), bytes.end());
  out->insert(out->end(), table.begin(), table.end());
  const pf::BlockEntry& root = index.blocks[0];
  size_t at = out->size();
  out->resize(at + size_t(root.size));
  return file.read_at(int64_t(root.offset), out->data() + at, int64_t(root.size));
}

}  // namespace

Status read_partitioned_root(MpiFile& file, pf::Superblock* sb_out, pf::IndexTable* index_out,
                             pf::Block* root) {
  std::vector<uint8_t> bytes;
  Status st;
  if (file.rank() == 0) st = read_on_root(file, &bytes);
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  broadcast_bytes(file.comm(), &bytes);
  // Every rank decodes what rank 0 checked (the same bytes, the same result).
  std::span<const uint8_t> in(bytes);
  pf::Superblock sb;
  EXA_RETURN_IF_ERROR(pf::decode_superblock(in.first(pf::kSuperblockSize), &sb));
  in = in.subspan(pf::kSuperblockSize);
  pf::IndexTable index;
  EXA_RETURN_IF_ERROR(pf::decode_index(in.first(sb.index_size), sb, UINT64_MAX / 2, &index));
  in = in.subspan(sb.index_size);
  EXA_RETURN_IF_ERROR(pf::decode_block(in, index.blocks[0], sb.ndims, root));
  *sb_out = sb;
  *index_out = std::move(index);
  return Status::ok();
}

Status share_blocks(MpiFile& file, const pf::IndexTable& index, const std::vector<size_t>& need,
                    const BlockBytesFn& apply, int64_t round_bytes) {
  const int p = file.nprocs(), r = file.rank();
  int64_t file_size = 0;
  Status st = file.size(&file_size);
  for (size_t lo = 0; lo < need.size();) {
    // One round: blocks [lo, hi) of the list, at most round_bytes together
    // (at least one block), so that the counts of the allgather fit an int.
    size_t hi = lo;
    int64_t bytes = 0;
    while (hi < need.size() && (hi == lo || bytes + int64_t(index.blocks[need[hi]].size) <= round_bytes)) {
      bytes += int64_t(index.blocks[need[hi]].size);
      ++hi;
    }
    if (bytes > INT_MAX / 2) st = {NC_EFILEMETA, "metadata block larger than 1 GiB"};
    std::vector<int> counts(size_t(p), 0), displs(size_t(p), 0);
    for (size_t k = lo; k < hi; ++k) counts[k % size_t(p)] += int(index.blocks[need[k]].size);
    for (int i = 1; i < p; ++i) displs[size_t(i)] = displs[size_t(i) - 1] + counts[size_t(i) - 1];
    std::vector<uint8_t> mine(size_t(st.is_ok() ? counts[size_t(r)] : 0));
    size_t at = 0;
    for (size_t k = lo + size_t(r); st.is_ok() && k < hi; k += size_t(p)) {
      const pf::BlockEntry& e = index.blocks[need[k]];
      if (e.offset > uint64_t(file_size) || e.size > uint64_t(file_size) - e.offset)
        st = {NC_ETRUNC, "block '" + e.path + "' lies beyond the end of the file"};
      else
        st = file.read_at(int64_t(e.offset), mine.data() + at, int64_t(e.size));
      at += e.size;
    }
    EXA_RETURN_IF_ERROR(agree(file.comm(), st));
    std::vector<uint8_t> all(static_cast<size_t>(bytes));
    MPI_Allgatherv(mine.data(), counts[size_t(r)], MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                   file.comm());
    // Block k sits in rank k % p's part, after that rank's earlier blocks.
    std::vector<int64_t> cursor(displs.begin(), displs.end());
    for (size_t k = lo; k < hi && st.is_ok(); ++k) {
      const pf::BlockEntry& e = index.blocks[need[k]];
      int64_t& c = cursor[k % size_t(p)];
      st = apply(need[k], std::span<const uint8_t>(all).subspan(size_t(c), size_t(e.size)));
      c += int64_t(e.size);
    }
    EXA_RETURN_IF_ERROR(agree(file.comm(), st));
    lo = hi;
  }
  return agree(file.comm(), st);
}

Status read_block(MpiFile& file, const pf::Superblock& sb, const pf::BlockEntry& entry, pf::Block* out) {
  int64_t size = 0;
  EXA_RETURN_IF_ERROR(file.size(&size));
  if (entry.offset > uint64_t(size) || entry.size > uint64_t(size) - entry.offset)
    return {NC_ETRUNC, "block '" + entry.path + "' lies beyond the end of the file"};
  std::vector<uint8_t> bytes(size_t(entry.size));
  EXA_RETURN_IF_ERROR(file.read_at(int64_t(entry.offset), bytes.data(), int64_t(bytes.size())));
  return pf::decode_block(bytes, entry, sb.ndims, out);
}

}  // namespace exa::io
