#include "io/partitioned_io.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

#include "format/compact_patch.hpp"
#include "io/aggregate.hpp"
#include "io/collective.hpp"
#include "io/exchange.hpp"
#include "io/mpi_errors.hpp"
#include "util/crc32c.hpp"

namespace exa::io {

namespace pf = format::partitioned;

Status write_superblock(MpiFile& file, const pf::Superblock& sb) {
  Status st;
  if (file.rank() == 0) {
    pf::Superblock stamped = sb;
    if (file.heartbeat()) {
      const auto now = std::chrono::system_clock::now().time_since_epoch();
      stamped.heartbeat_us = uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
    }
    auto bytes = pf::encode_superblock(stamped);
    note_commit_point();
    st = file.write_at(pf::kSuperblockSlots[(sb.generation - 1) % 2], bytes.data(), int64_t(bytes.size()));
    note_metadata_written(0, int64_t(bytes.size()));
    note_commit_written();
  }
  st = agree(file.comm(), st);
  if (!st.is_ok()) return st;
  EXA_RETURN_IF_ERROR(agree(file.comm(), file.sync_all()));
  note_commit_synced(static_cast<long long>(sb.generation));
  return Status::ok();
}

Status write_blocks_and_index(MpiFile& file, const format::Header& header, const pf::Image& image,
                              const std::vector<int>& writer, const CompleteBlockFn& complete,
                              pf::Superblock* sb, pf::IndexTable* index_out, std::vector<pf::PageRef>* placement,
                              WrittenRuns* written) {
  EXA_RETURN_IF_ERROR(file.use_byte_view());  // a data call may have left its view
  const int p = file.nprocs(), r = file.rank();
  const size_t nblocks = image.index.blocks.size();
  std::vector<std::vector<uint8_t>> mine;
  std::vector<Segment> segments;
  std::vector<uint32_t> crcs;  // (block, crc) pairs of this rank
  Status st;
  for (size_t i = 0; i < nblocks && st.is_ok(); ++i) {
    if ((!image.reused.empty() && image.reused[i]) || writer[i] != r) continue;
    if (complete && pf::image_block_has_compact(image, i)) {
      pf::Block block = pf::make_block(header, image, i);
      st = complete(i, &block);
      mine.push_back(pf::encode_block(block));
    } else {  // straight from the header: no copy of every name
      pf::append_image_block(header, image, i, &mine.emplace_back());
    }
    if (st.is_ok() && mine.back().size() != image.index.blocks[i].size)
      st = {NC_EINTERNAL, "block '" + image.index.blocks[i].path + "' encoded to an unplanned size"};
    crcs.push_back(uint32_t(i));
    crcs.push_back(crc32c(mine.back().data(), mine.back().size()));
  }
  if (!st.is_ok()) {  // take part in the collective write with nothing
    mine.clear();
    crcs.clear();
  }
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  for (size_t k = 0; k < mine.size(); ++k) {
    segments.push_back({int64_t(image.index.blocks[size_t(crcs[2 * k])].offset), int64_t(mine[k].size()),
                        mine[k].data()});
    note_metadata_written(1, int64_t(mine[k].size()));
  }
  EXA_RETURN_IF_ERROR(agree(file.comm(), write_segments(file, std::move(segments), true)));
  EXA_RETURN_IF_ERROR(file.use_byte_view());  // the blocks' view, for the byte writes below
  size_t held = 0;
  for (size_t k = 0; written && k < mine.size() && held <= kHoldWrittenMax; ++k) {
    const size_t b = size_t(crcs[2 * k]);
    if (!pf::image_block_has_compact(image, b)) continue;
    held += mine[k].size();
    written->emplace_back(image.index.blocks[b].offset, std::move(mine[k]));
  }
  if (written && held > kHoldWrittenMax) written->clear();
  mine.clear();
  // Rank 0 gathers the CRCs and writes the index table.
  int n = int(crcs.size());
  std::vector<int> counts(static_cast<size_t>(p)), displs(static_cast<size_t>(p));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, file.comm())));
  int total = 0;
  for (int i = 0; i < p; ++i) {
    displs[size_t(i)] = total;
    total += counts[size_t(i)];
  }
  std::vector<uint32_t> all(size_t(r == 0 ? total : 0));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gatherv(crcs.data(), n, MPI_UINT32_T, all.data(), counts.data(),
                                          displs.data(), MPI_UINT32_T, 0, file.comm())));
  std::vector<uint8_t> table;
  pf::IndexTable index = image.index;
  uint64_t head[2] = {0, 0};  // head size, head CRC
  const size_t npages = (nblocks + pf::kIndexPageEntries - 1) / pf::kIndexPageEntries;
  std::vector<uint32_t> page_crcs(npages);  // rank 0's, for every rank's placement
  if (r == 0) {
    for (size_t k = 0; k + 1 < all.size(); k += 2) index.blocks[all[k]].crc = all[k + 1];
    std::vector<pf::PageRef> placed;
    table = pf::encode_index_placed(index, uint64_t(image.index_offset), &head[0], &placed);
    st = file.write_at(image.index_offset, table.data(), int64_t(table.size()));
    note_metadata_written(0, int64_t(table.size()));
    head[1] = crc32c(table.data(), size_t(head[0]));
    if (placed.size() != npages) st = {NC_EINTERNAL, "index pages not as planned"};
    for (size_t k = 0; k < npages && k < placed.size(); ++k) page_crcs[k] = placed[k].crc;
  }
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(head, 2, MPI_UINT64_T, 0, file.comm())));
  if (placement && npages > 0)
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(page_crcs.data(), int(npages), MPI_UINT32_T, 0, file.comm())));
  sb->index_head_size = head[0];
  sb->index_crc = uint32_t(head[1]);
  std::vector<uint32_t> block_crcs(index.blocks.size());
  for (size_t i = 0; i < block_crcs.size(); ++i) block_crcs[i] = index.blocks[i].crc;
  if (!block_crcs.empty())
    EXA_RETURN_IF_ERROR(EXA_MPI(
        MPI_Bcast(block_crcs.data(), int(block_crcs.size()), MPI_UINT32_T, 0, file.comm())));
  for (size_t i = 0; i < block_crcs.size(); ++i) index.blocks[i].crc = block_crcs[i];
  if (placement) {  // the pages follow the head, packed (encode_index)
    placement->assign(npages, pf::PageRef{});
    uint64_t at = uint64_t(image.index_offset) + head[0];
    for (size_t k = 0; k < npages; ++k) {
      pf::PageRef& ref = (*placement)[k];
      ref.offset = at;
      ref.size = uint64_t(pf::encoded_page_size(index, k));
      ref.crc = page_crcs[k];
      at += ref.size;
    }
  }
  *index_out = std::move(index);
  sb->index_offset = uint64_t(image.index_offset);
  sb->index_size = uint64_t(image.index_size);
  sb->nblocks = nblocks;
  return Status::ok();
}

namespace {

constexpr size_t kPieceHead = 6 * sizeof(uint64_t);
size_t padded8(size_t n) { return (n + 7) / 8 * 8; }

// Pieces as bytes: block, var, offset, total, fill length, length (u64
// each), the fill pattern and the bytes, each padded to 8.
void pack_piece(const CompactPiece& c, std::vector<uint8_t>* out) {
  const uint64_t head[6] = {c.block, c.var, c.offset, c.total, c.fill.size(), c.bytes.size()};
  const size_t at = out->size();
  out->resize(at + kPieceHead + padded8(c.fill.size()) + padded8(c.bytes.size()), 0);
  std::memcpy(out->data() + at, head, kPieceHead);
  if (!c.fill.empty()) std::memcpy(out->data() + at + kPieceHead, c.fill.data(), c.fill.size());
  if (!c.bytes.empty())
    std::memcpy(out->data() + at + kPieceHead + padded8(c.fill.size()), c.bytes.data(), c.bytes.size());
}

// The packed pieces in `in`, in order, as views into it.
Status unpack_pieces(std::span<const uint8_t> in, std::vector<CompactPiece>* out) {
  while (!in.empty()) {
    uint64_t head[6];
    if (in.size() < kPieceHead) return {NC_EINTERNAL, "short compact piece"};
    std::memcpy(head, in.data(), kPieceHead);
    if (head[4] > in.size() || head[5] > in.size() ||
        in.size() - kPieceHead < padded8(head[4]) + padded8(head[5]))
      return {NC_EINTERNAL, "bad compact piece"};
    const auto fill = in.subspan(kPieceHead, size_t(head[4]));
    const auto bytes = in.subspan(kPieceHead + padded8(head[4]), size_t(head[5]));
    out->push_back({head[0], head[1], head[2], head[3], fill, bytes});
    in = in.subspan(kPieceHead + padded8(head[4]) + padded8(head[5]));
  }
  return Status::ok();
}

// The blocks this rank rewrites are read in runs: blocks that lie close
// together in the file, in increasing block order, in one read of up to
// kReadRun bytes, so a rank rewriting many small blocks makes few reads.
constexpr uint64_t kReadRun = uint64_t(16) << 20;
constexpr uint64_t kReadGap = uint64_t(64) << 10;

// One piece in the order it applies: by block, then variable, then the
// rank order (the lower ranks' pieces, this rank's, the higher ranks'),
// each rank's in its order.
struct Ordered {
  uint64_t block = 0, var = 0;
  const CompactPiece* piece = nullptr;
};

// Appends to *encoded the blocks this rank rewrites, in block order, each
// as it is on disk (or as `held` has it) with every piece for it applied
// (format/compact_patch: no decoding); *entries gets (block, offset in
// *encoded, size, crc) of each.
Status rewrite_blocks(MpiFile& file, pf::PagedIndex& index, std::span<const CompactPiece> mine,
                      const std::vector<int>& writer, std::span<const uint8_t> in, int64_t lower,
                      const HeldBlockFn& held, std::vector<uint8_t>* encoded, std::vector<uint64_t>* entries) {
  std::vector<CompactPiece> before, after;
  EXA_RETURN_IF_ERROR(unpack_pieces(in.first(size_t(lower)), &before));
  EXA_RETURN_IF_ERROR(unpack_pieces(in.subspan(size_t(lower)), &after));
  std::vector<Ordered> order;
  order.reserve(before.size() + mine.size() + after.size());
  for (const CompactPiece& c : before) order.push_back({c.block, c.var, &c});
  for (const CompactPiece& c : mine)
    if (writer[c.block] == file.rank()) order.push_back({c.block, c.var, &c});
  for (const CompactPiece& c : after) order.push_back({c.block, c.var, &c});
  const auto by_place = [](const Ordered& a, const Ordered& b) { return a.block < b.block || (a.block == b.block && a.var < b.var); };
  if (!std::is_sorted(order.begin(), order.end(), by_place)) std::stable_sort(order.begin(), order.end(), by_place);
  for (const Ordered& o : order)
    if (o.block >= index.nblocks()) return {NC_EINTERNAL, "compact piece for no block"};
  std::vector<size_t> starts;  // of each block's pieces in `order`
  for (size_t k = 0; k < order.size(); ++k)
    if (k == 0 || order[k].block != order[k - 1].block) starts.push_back(k);
  starts.push_back(order.size());
  // Each block's entry (its page is loaded: no I/O).
  std::vector<const pf::BlockEntry*> entry_of(starts.size() - 1);
  for (size_t g = 0; g + 1 < starts.size(); ++g)
    EXA_RETURN_IF_ERROR(index.entry(size_t(order[starts[g]].block), &entry_of[g]));
  // Room for every block as it is plus the data its pieces may add: one
  // allocation, not a copy of everything written so far each time it grows.
  size_t room = encoded->size();
  for (size_t g = 0; g + 1 < starts.size(); ++g) room += size_t(entry_of[g]->size);
  for (size_t k = 0; k < order.size(); ++k)
    if (k == 0 || order[k].block != order[k - 1].block || order[k].var != order[k - 1].var)
      room += size_t(std::min<uint64_t>(order[k].piece->total, uint64_t(1) << 30) + 3) / 4 * 4;
  encoded->reserve(room);
  std::vector<uint8_t> run;  // blocks read from run_at on
  uint64_t run_at = 0;
  std::vector<pf::CompactPatch> patches;
  for (size_t g = 0; g + 1 < starts.size(); ++g) {
    const size_t b = size_t(order[starts[g]].block);
    const pf::BlockEntry& e = *entry_of[g];
    std::span<const uint8_t> bytes = held ? held(b, e) : std::span<const uint8_t>();
    if (bytes.empty() && !(e.offset >= run_at && e.offset + e.size <= run_at + run.size())) {
      // A run from this block on, over the next blocks not held that follow it closely.
      uint64_t end = e.offset + e.size;
      for (size_t h = g + 1; h + 1 < starts.size(); ++h) {
        const size_t nb = size_t(order[starts[h]].block);
        const pf::BlockEntry& n = *entry_of[h];
        if (n.offset < end || n.offset - end > kReadGap || n.offset + n.size - e.offset > kReadRun) break;
        if (held && !held(nb, n).empty()) continue;  // (not read for itself)
        end = n.offset + n.size;
      }
      run_at = e.offset;
      Status st = read_extent(file, {e.offset, end - e.offset}, &run);
      if (st.code() == NC_ETRUNC) return {NC_ETRUNC, "block '" + e.path + "' lies beyond the end of the file"};
      EXA_RETURN_IF_ERROR(st);
    }
    if (bytes.empty()) bytes = std::span<const uint8_t>(run).subspan(size_t(e.offset - run_at), size_t(e.size));
    patches.clear();
    for (size_t k = starts[g]; k < starts[g + 1]; ++k) {
      const CompactPiece& c = *order[k].piece;
      patches.push_back({c.var, c.offset, c.total, c.fill, c.bytes});
    }
    const size_t at = encoded->size();
    EXA_RETURN_IF_ERROR(pf::append_patched_block(bytes, e, patches, encoded));
    entries->insert(entries->end(), {uint64_t(b), uint64_t(at), uint64_t(encoded->size() - at),
                                     crc32c(encoded->data() + at, encoded->size() - at)});
    note_metadata_written(1, int64_t(encoded->size() - at));
  }
  return Status::ok();
}

// Where the blocks every rank rewrites (their sizes gathered, in rank order)
// and the index table go when space may be reused: each into the lowest
// reusable released extent it fits (the same decisions on every rank), else
// past the end (`*end`, from `base` on). *mine: this rank's blocks.
Status place_reusing(MpiFile& file, const std::vector<uint64_t>& sizes, format::ReusableSpace* reuse,
                     uint64_t gen, double now, int64_t base, int64_t table_size, std::vector<int64_t>* mine,
                     int64_t* table_at, int64_t* end) {
  std::vector<uint8_t> gathered;
  std::vector<std::span<const uint8_t>> parts;
  EXA_RETURN_IF_ERROR(allgather_bytes(
      file.comm(), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(sizes.data()), sizes.size() * 8),
      &gathered, &parts));
  *end = base;
  auto place = [&](int64_t size) {
    const int64_t at = reuse->take(size, gen, now);
    if (at >= 0) return at;
    *end += size;
    return *end - size;
  };
  for (int r = 0; r < file.nprocs(); ++r) {
    const auto part = parts[size_t(r)];
    for (size_t i = 0; i + 8 <= part.size(); i += 8) {
      uint64_t size = 0;
      std::memcpy(&size, part.data() + i, 8);
      const int64_t at = place(int64_t(size));
      if (r == file.rank()) mine->push_back(at);
    }
  }
  *table_at = place(table_size);
  return Status::ok();
}

}  // namespace

bool compact_commit_keeps_pages(const pf::PagedIndex& index, const std::vector<int>& writer,
                                std::vector<bool>* rewrite) {
  rewrite->clear();
  if (!index.pages_keepable()) return false;
  rewrite->assign(index.npages(), false);
  for (size_t b = 0; b < writer.size(); ++b)
    if (writer[b] != INT_MAX && b / pf::kIndexPageEntries < rewrite->size()) (*rewrite)[b / pf::kIndexPageEntries] = true;
  // Every page changes: the whole table, without flag 16 (the layout an
  // exacdf before it reads too).
  return std::find(rewrite->begin(), rewrite->end(), false) != rewrite->end();
}

Status commit_compact_pieces(MpiFile& file, std::span<const CompactPiece> mine, const std::vector<int>& writer,
                             pf::Superblock* sb, pf::PagedIndex* index, std::vector<size_t>* changed,
                             format::ReusableSpace* reuse, const HeldBlockFn& held) {
  EXA_RETURN_IF_ERROR(file.use_byte_view());  // a data call may have left its view
  const int p = file.nprocs(), r = file.rank();
  // To each other block's rewriter, in bytes; pieces of blocks this rank
  // rewrites stay as they are.
  std::vector<std::vector<uint8_t>> to(static_cast<size_t>(p));
  Status st;
  for (const CompactPiece& c : mine) {
    if (c.block >= writer.size()) st = {NC_EINTERNAL, "compact piece for no block"};
    if (st.is_ok() && writer[c.block] != r) pack_piece(c, &to[size_t(writer[c.block])]);
  }
  std::vector<int> counts(static_cast<size_t>(p));
  std::vector<uint8_t> send;
  for (int i = 0; i < p; ++i) {
    if (to[size_t(i)].size() > size_t(INT_MAX)) st = {NC_ENOTSUPPORT, "more than 2 GiB of compact data for one rank"};
    counts[size_t(i)] = st.is_ok() ? int(to[size_t(i)].size()) : 0;
    if (st.is_ok()) send.insert(send.end(), to[size_t(i)].begin(), to[size_t(i)].end());
  }
  to.clear();
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  std::vector<int> recv_counts;
  int64_t total = 0;
  EXA_RETURN_IF_ERROR(exchange_counts(file.comm(), counts, &recv_counts, &total));
  std::vector<uint8_t> in(static_cast<size_t>(total));
  EXA_RETURN_IF_ERROR(exchange_payload(file.comm(), 1, send.data(), counts, recv_counts, in.data()));
  send.clear();
  int64_t lower = 0;
  for (int i = 0; i < r; ++i) lower += recv_counts[size_t(i)];
  // Placed past the end in use, this rank's after the lower ranks', back to
  // back: one segment per rank.
  std::vector<uint8_t> encoded;
  std::vector<uint64_t> entries;  // (block, offset from this rank's start, size, crc) of this rank's
  st = rewrite_blocks(file, *index, mine, writer, in, lower, held, &encoded, &entries);
  in.clear();
  // One allgather of every rank's outcome (as agree: the worst code wins)
  // and its bytes (where each rank's blocks go), not three collectives.
  const int64_t bytes = int64_t(encoded.size());
  int64_t before = 0, all = 0;
  {
    const int64_t outcome[2] = {st.code(), bytes};
    std::vector<int64_t> every(2 * size_t(p));
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(outcome, 2, MPI_INT64_T, every.data(), 2, MPI_INT64_T, file.comm())));
    int64_t worst = st.code();
    for (int i = 0; i < p; ++i) {
      worst = std::min(worst, every[2 * size_t(i)]);
      if (i < r) before += every[2 * size_t(i) + 1];
      all += every[2 * size_t(i) + 1];
    }
    if (worst != st.code()) return {int(worst), "error reported by another rank"};
    EXA_RETURN_IF_ERROR(st);
  }
  const int64_t base = int64_t(sb->file_end + 7) / 8 * 8;
  // The pages that change: those holding a block some rank rewrites (the
  // same on every rank: `writer`). With the current placement known, the
  // others are kept; a page keeps its size (the same entries, paths).
  const std::vector<pf::PageRef> placement = index->placement();
  std::vector<bool> rewrite;
  const bool keep = compact_commit_keeps_pages(*index, writer, &rewrite);
  // The rewritten pages' current entries (keeping), else the whole table:
  // the same blocks, so the same size as the new one.
  std::vector<std::span<const pf::BlockEntry>> pages(keep ? rewrite.size() : 0);
  pf::IndexTable whole;
  int64_t table_size = 0;
  if (keep) {
    for (size_t k = 0; k < rewrite.size(); ++k)
      if (rewrite[k] && (pages[k] = index->page_entries(k)).empty()) st = {NC_EINTERNAL, "an index page to rewrite is not loaded"};
    EXA_RETURN_IF_ERROR(agree(file.comm(), st));
    table_size = pf::encoded_index_rewriting_size(placement, index->sections(), pages);
  } else {
    EXA_RETURN_IF_ERROR(agree(file.comm(), index->table(&whole)));  // (loaded by the caller: no I/O)
    table_size = pf::encoded_index_size(whole);
  }
  int64_t table_at = base + all, end = base + all + table_size;
  const bool reusing = reuse != nullptr && reuse->enabled();
  double now = 0;  // rank 0's clock, so every rank keeps the same list
  if (reusing) {
    // Each block into reusable space where one fits: one segment per block.
    if (file.rank() == 0)
      now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&now, 1, MPI_DOUBLE, 0, file.comm())));
    std::vector<uint64_t> sizes;
    for (size_t i = 2; i < entries.size(); i += 4) sizes.push_back(entries[i]);
    std::vector<int64_t> mine_at;  // this rank's blocks
    EXA_RETURN_IF_ERROR(place_reusing(file, sizes, reuse, sb->generation + 1, now, base, table_size, &mine_at,
                                      &table_at, &end));
    std::vector<Segment> segments;
    for (size_t k = 0; k < mine_at.size(); ++k) {
      uint64_t* entry = &entries[4 * k];
      segments.push_back({mine_at[k], int64_t(entry[2]), encoded.data() + entry[1]});
      entry[1] = uint64_t(mine_at[k]);
    }
    st = write_segments(file, std::move(segments), true);
  } else {
    for (size_t i = 1; i < entries.size(); i += 4) entries[i] += uint64_t(base + before);
    // Independent writes: one large run per rank, disjoint, so collective
    // buffering would only copy every byte once more through the aggregators.
    // (Every rank writes, if only nothing: a rank's write is a step of the
    // commit that may fail, exa_debug_fail_write.)
    st = file.write_at(base + before, encoded.data(), bytes);
  }
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  encoded.clear();
  encoded.shrink_to_fit();
  EXA_RETURN_IF_ERROR(file.use_byte_view());  // the blocks' view, for the byte writes below
  // Every rank learns the new entries (few: the blocks that changed).
  std::vector<uint8_t> gathered;
  std::vector<std::span<const uint8_t>> parts;
  EXA_RETURN_IF_ERROR(allgather_bytes(
      file.comm(), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(entries.data()), entries.size() * 8),
      &gathered, &parts));
  // The new entries, into copies of the pages that change (keeping) or of
  // the whole table.
  std::vector<uint64_t> news(gathered.size() / 8);
  if (!news.empty()) std::memcpy(news.data(), gathered.data(), news.size() * 8);
  std::vector<std::vector<pf::BlockEntry>> next_pages(pages.size());
  for (size_t k = 0; k < pages.size(); ++k)
    if (!pages[k].empty()) next_pages[k].assign(pages[k].begin(), pages[k].end());
  std::vector<size_t> rewritten;
  for (size_t i = 0; i + 4 <= news.size(); i += 4) {
    const size_t b = size_t(news[i]);
    pf::BlockEntry* entry = nullptr;
    if (keep) {
      const size_t k = b / pf::kIndexPageEntries;
      if (k < next_pages.size() && b % pf::kIndexPageEntries < next_pages[k].size())
        entry = &next_pages[k][b % pf::kIndexPageEntries];
    } else if (b < whole.blocks.size()) {
      entry = &whole.blocks[b];
    }
    if (!entry) return {NC_EINTERNAL, "a rewritten block on no page being written"};
    entry->offset = news[i + 1];
    entry->size = news[i + 2];
    entry->crc = uint32_t(news[i + 3]);
    rewritten.push_back(b);
  }
  pf::Superblock nsb = *sb;
  nsb.generation += 1;
  nsb.index_offset = uint64_t(table_at);
  std::vector<pf::PageRef> placed;
  std::vector<uint8_t> table;
  if (keep) {
    for (size_t k = 0; k < pages.size(); ++k) pages[k] = next_pages[k];
    table = pf::encode_index_rewriting(index->nblocks(), index->sections(), placement, pages, uint64_t(table_at),
                                       &nsb.index_head_size, &placed);
  } else {
    table = pf::encode_index_placed(whole, uint64_t(table_at), &nsb.index_head_size, &placed);
  }
  nsb.kept_pages = keep;
  nsb.index_size = table.size();
  nsb.index_crc = crc32c(table.data(), size_t(nsb.index_head_size));
  if (int64_t(table.size()) != table_size) return {NC_EINTERNAL, "the index table changed size in a compact commit"};
  nsb.file_end = std::max(sb->file_end, uint64_t(end));
  st = Status::ok();
  if (file.rank() == 0) {
    st = file.write_at(int64_t(nsb.index_offset), table.data(), int64_t(table.size()));
    note_metadata_written(0, int64_t(table.size()));
  }
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  EXA_RETURN_IF_ERROR(commit_superblock(file, nsb));
  if (reusing) {  // what the new generation no longer references
    for (size_t b : rewritten) {
      const pf::BlockEntry* old = nullptr;
      EXA_RETURN_IF_ERROR(index->entry(b, &old));  // (its page is loaded: no I/O)
      reuse->release(int64_t(old->offset), int64_t(old->size), nsb.generation, now);
    }
    if (keep) {  // the old head and the pages replaced; kept pages are still referenced
      reuse->release(int64_t(sb->index_offset), int64_t(sb->index_head_size), nsb.generation, now);
      for (size_t k = 0; k < rewrite.size(); ++k)
        if (rewrite[k]) reuse->release(int64_t(placement[k].offset), int64_t(placement[k].size), nsb.generation, now);
    } else {
      reuse->release(int64_t(sb->index_offset), int64_t(sb->index_size), nsb.generation, now);
    }
  }
  *sb = nsb;
  EXA_RETURN_IF_ERROR(index->apply_compact_commit(nsb, news, placed));
  std::sort(rewritten.begin(), rewritten.end());
  *changed = std::move(rewritten);
  return Status::ok();
}

namespace {

// The file reaches the new state's end: data never written (no fill) lies
// in a hole, not past the end, so a reader can tell a truncated file (NC_ETRUNC)
// from unwritten data. After a sync, so the size seen is every rank's; a byte
// past that end was never written, and a zero there is what a hole reads.
// *extended (the same on every rank): whether rank 0 wrote that byte.
Status reach_file_end(MpiFile& file, const pf::Superblock& sb, bool* extended) {
  Status st;
  int wrote = 0;
  if (file.rank() == 0) {
    MPI_Offset size = 0;
    st = from_mpi(MPI_File_get_size(file.handle(), &size), MpiOp::kRead, "MPI_File_get_size");
    const uint8_t zero = 0;
    if (st.is_ok() && uint64_t(size) < sb.file_end) {
      st = file.write_at(int64_t(sb.file_end) - 1, &zero, 1);
      wrote = 1;
    }
  }
  // One allreduce: the worst error (as agree) and whether the byte was written.
  int v[2] = {st.code(), -wrote};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, file.comm())));
  *extended = v[1] != 0;
  if (v[0] == st.code()) return st;
  return {v[0], "error reported by another rank"};
}

}  // namespace

Status commit_superblock(MpiFile& file, const pf::Superblock& sb, const Status& carried) {
  EXA_RETURN_IF_ERROR(file.use_byte_view());  // a data call may have left its view
  note_commit_began();
  // The order that keeps a crash harmless: everything the new state uses is
  // on disk (every rank's writes), the file reaches the new end and that is
  // on disk too (else a crash could leave a superblock whose tail data reads
  // NC_ETRUNC), and only then the superblock, synced.
  Status synced = file.sync_all();
  EXA_RETURN_IF_ERROR(agree(file.comm(), carried.is_ok() ? synced : carried));
  bool extended = false;
  EXA_RETURN_IF_ERROR(reach_file_end(file, sb, &extended));
  if (extended) EXA_RETURN_IF_ERROR(agree(file.comm(), file.sync_all()));
  return write_superblock(file, sb);
}

Status probe_partitioned_on_root(MpiFile& file, bool* partitioned, std::vector<uint8_t>* slots) {
  // One read of the first bytes: the magic of either superblock slot (and
  // both slots, for read_partitioned_root).
  int64_t size = 0;
  EXA_RETURN_IF_ERROR(file.size(&size));
  slots->resize(size_t(std::min<int64_t>(size, pf::kSuperblockSlots[1] + pf::kSuperblockSize)));
  EXA_RETURN_IF_ERROR(file.read_at(0, slots->data(), int64_t(slots->size())));
  *partitioned = false;
  for (int64_t at : pf::kSuperblockSlots)
    if (int64_t(slots->size()) >= at + 8 && std::equal(pf::kMagic.begin(), pf::kMagic.end(), slots->begin() + at))
      *partitioned = true;
  return Status::ok();
}

Status probe_partitioned(MpiFile& file, bool* partitioned, std::vector<uint8_t>* slots) {
  // Rank 0's answer: 1 partitioned, 0 not, or minus the NC_* code of a failed read.
  int answer = 0;
  std::vector<uint8_t> head;
  Status st;
  if (file.rank() == 0) {
    bool found = false;
    st = probe_partitioned_on_root(file, &found, &head);
    answer = !st.is_ok() ? (st.code() < 0 ? st.code() : NC_EREAD) : found ? 1 : 0;
  }
  EXA_RETURN_IF_ERROR(from_mpi(MPI_Bcast(&answer, 1, MPI_INT, 0, file.comm()), MpiOp::kOther,
                               "MPI_Bcast"));
  if (answer < 0) return st.is_ok() ? Status{answer, "reading the file's first bytes failed"} : st;
  *partitioned = answer == 1;
  *slots = std::move(head);
  return Status::ok();
}

namespace {

// The header of what rank 0 shares at an open: the file size, then flags.
constexpr size_t kOpenedPrefix = 16;
constexpr uint64_t kNewerDamaged = 1;

// What read_generation gives (the file size, flags, the superblock, the
// index table's head and page 0, the root block), decoded.
Status decode_opened(std::span<const uint8_t> in, OpenedIndex* opened, pf::Block* root) {
  OpenedIndex o;
  if (in.size() < kOpenedPrefix + size_t(pf::kSuperblockSize)) return {NC_EFILEMETA, "the superblock is cut short"};
  uint64_t flags = 0;
  std::memcpy(&o.file_size, in.data(), 8);
  std::memcpy(&flags, in.data() + 8, 8);
  o.newer_damaged = (flags & kNewerDamaged) != 0;
  in = in.subspan(kOpenedPrefix);
  EXA_RETURN_IF_ERROR(pf::decode_superblock(in.first(pf::kSuperblockSize), &o.sb));
  in = in.subspan(pf::kSuperblockSize);
  if (in.size() < o.sb.index_head_size) return {NC_EFILEMETA, "the index head is cut short"};
  EXA_RETURN_IF_ERROR(pf::decode_index_head(in.first(o.sb.index_head_size), o.sb, o.file_size, &o.head));
  if (o.head.pages.empty() || o.head.pages[0].first_path != "/") return {NC_EFILEMETA, "the root block is missing"};
  // Page 0 follows the head here, wherever it lies in the file (flag 16).
  const pf::PageRef& p0 = o.head.pages[0];
  const uint64_t p0_at = o.sb.index_head_size;
  if (p0.size > in.size() - p0_at) return {NC_EFILEMETA, "index page 0 not where the head says"};
  EXA_RETURN_IF_ERROR(pf::decode_index_page(in.subspan(p0_at, p0.size), o.sb, o.head, 0, o.file_size, &o.page0));
  in = in.subspan(p0_at + p0.size);
  EXA_RETURN_IF_ERROR(pf::decode_block(in, o.page0[0], o.sb.ndims, root));
  *opened = std::move(o);
  return Status::ok();
}

// Rank 0: [file size 8][flags 8][superblock 128][index head][index page 0][root block]
// of the generation `sb` describes, located (decode_opened checks them).
Status read_generation(MpiFile& file, int64_t size, const pf::Superblock& sb, std::vector<uint8_t>* out) {
  if (sb.index_offset > uint64_t(size) || sb.index_size > uint64_t(size) - sb.index_offset)
    return {NC_ETRUNC, "index table beyond the end of the file"};
  // The head and, in the same read, what is likely page 0 (it follows the
  // head). Rank 0 only finds page 0 and the root block here; every rank
  // checks them in full when it decodes them.
  std::vector<uint8_t> table(size_t(std::min<uint64_t>(sb.index_size, sb.index_head_size + (128 << 10))));
  EXA_RETURN_IF_ERROR(file.read_at(int64_t(sb.index_offset), table.data(), int64_t(table.size())));
  uint64_t page_at = 0, page_size = 0, root_at = 0, root_size = 0;
  EXA_RETURN_IF_ERROR(pf::peek_first_page(std::span<const uint8_t>(table).first(size_t(sb.index_head_size)), &page_at,
                                          &page_size));
  if (sb.kept_pages) {  // an absolute offset (flag 16)
    if (page_at > uint64_t(size) || page_size > uint64_t(size) - page_at)
      return {NC_ETRUNC, "index page 0 beyond the end of the file"};
    if (page_at == sb.index_offset + sb.index_head_size && page_size <= sb.index_size - sb.index_head_size) {
      page_at = sb.index_head_size;  // written with the head, right after it
    } else {
      // Kept from an earlier commit: read on its own, put after the head.
      table.resize(size_t(sb.index_head_size + page_size));
      EXA_RETURN_IF_ERROR(file.read_at(int64_t(page_at), table.data() + sb.index_head_size, int64_t(page_size)));
      page_at = sb.index_head_size;
    }
  } else if (page_at != sb.index_head_size || page_size > sb.index_size - page_at) {
    return {NC_EFILEMETA, "index page 0 outside the index table"};
  }
  const uint64_t page_end = page_at + page_size;
  if (page_end > table.size()) {
    const size_t have = table.size();
    table.resize(size_t(page_end));
    EXA_RETURN_IF_ERROR(file.read_at(int64_t(sb.index_offset + have), table.data() + have, int64_t(page_end - have)));
  }
  table.resize(size_t(page_end));
  EXA_RETURN_IF_ERROR(pf::peek_first_block(std::span<const uint8_t>(table).subspan(size_t(page_at)), &root_at, &root_size));
  if (root_at > uint64_t(size) || root_size > uint64_t(size) - root_at)
    return {NC_ETRUNC, "the root block lies beyond the end of the file"};
  out->assign(kOpenedPrefix, 0);
  std::memcpy(out->data(), &size, 8);
  auto bytes = pf::encode_superblock(sb);
  out->insert(out->end(), bytes.begin(), bytes.end());
  out->insert(out->end(), table.begin(), table.end());
  size_t at = out->size();
  out->resize(at + size_t(root_size));
  return file.read_at(int64_t(root_at), out->data() + at, int64_t(root_size));
}

// Whether a failed generation is worth passing over for the previous one:
// its metadata is missing or damaged (not: a read failed).
bool is_unusable_metadata(const Status& st) { return st.code() == NC_ETRUNC || st.code() == NC_EFILEMETA; }

// Rank 0: read_generation of the newest generation whose superblock, index
// head, page 0 and root block are intact; the previous one when the newest
// is unusable (a crash or a full disk while it was committed, or damage).
// *problem says what was passed over, if anything.
Status read_on_root(MpiFile& file, std::vector<uint8_t> slots, std::vector<uint8_t>* out, std::string* problem) {
  int64_t size = 0;
  EXA_RETURN_IF_ERROR(file.size(&size));
  if (slots.empty()) {
    slots.resize(size_t(std::min<int64_t>(size, pf::kSuperblockSlots[1] + pf::kSuperblockSize)));
    EXA_RETURN_IF_ERROR(file.read_at(0, slots.data(), int64_t(slots.size())));
  }
  std::span<const uint8_t> all(slots);
  std::span<const uint8_t> s0 = all.first(std::min<size_t>(all.size(), pf::kSuperblockSize));
  std::span<const uint8_t> s1 = all.size() > size_t(pf::kSuperblockSlots[1]) ? all.subspan(pf::kSuperblockSlots[1])
                                                                           : std::span<const uint8_t>();
  pf::SlotScan scan;
  EXA_RETURN_IF_ERROR(pf::scan_superblocks(s0, s1, &scan));
  Status newest;
  for (size_t k = 0; k < scan.valid.size(); ++k) {
    const pf::Superblock& sb = scan.valid[k];
    Status st = read_generation(file, size, sb, out);
    if (st.is_ok()) {
      OpenedIndex check;
      pf::Block root;
      st = decode_opened(*out, &check, &root);
    }
    if (k == 0) newest = st;
    if (!st.is_ok() && is_unusable_metadata(st)) continue;
    if (!st.is_ok()) return st;
    // A damaged slot is a newer generation's unless it still claims an older one.
    if (k > 0)
      *problem = "generation " + std::to_string(scan.valid[0].generation) + " is unusable (" + newest.message() +
                 "); opened generation " + std::to_string(sb.generation);
    else if (scan.damaged && scan.damaged_generation >= sb.generation)
      *problem = "the superblock slot of a newer generation is damaged (" + scan.damage + "); opened generation " +
                 std::to_string(sb.generation);
    if (!problem->empty()) {
      const uint64_t flags = kNewerDamaged;
      std::memcpy(out->data() + 8, &flags, 8);
    }
    return Status::ok();
  }
  return newest;
}

}  // namespace

Status read_partitioned_root(MpiFile& file, std::vector<uint8_t> slots, OpenedIndex* opened, pf::Block* root) {
  std::vector<uint8_t> bytes;
  Status st;
  std::string problem;
  if (file.rank() == 0) st = read_on_root(file, std::move(slots), &bytes, &problem);
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  EXA_RETURN_IF_ERROR(broadcast_bytes(file.comm(), &bytes));
  // Every rank decodes what rank 0 checked (the same bytes, the same result).
  EXA_RETURN_IF_ERROR(decode_opened(bytes, opened, root));
  opened->newer_problem = std::move(problem);
  return Status::ok();
}

Status share_written_root(MpiFile& file, const pf::Superblock& sb, std::span<const uint8_t> table, int root_writer,
                          std::span<const uint8_t> root_block, OpenedIndex* opened, pf::Block* root) {
  EXA_RETURN_IF_ERROR(file.use_byte_view());  // a data call may have left its view
  std::vector<uint8_t> bytes;
  Status st;
  if (file.rank() == 0) {
    int64_t size = 0;
    uint64_t page_at = 0, page_size = 0;
    st = file.size(&size);
    if (st.is_ok() && table.size() < sb.index_head_size) st = {NC_EINTERNAL, "no index table to share"};
    if (st.is_ok()) st = pf::peek_first_page(table.first(size_t(sb.index_head_size)), &page_at, &page_size);
    if (st.is_ok() && page_at + page_size > table.size()) st = {NC_EINTERNAL, "index page 0 outside the table"};
    if (st.is_ok()) {
      bytes.assign(kOpenedPrefix, 0);
      std::memcpy(bytes.data(), &size, 8);
      const auto sbytes = pf::encode_superblock(sb);
      bytes.insert(bytes.end(), sbytes.begin(), sbytes.end());
      bytes.insert(bytes.end(), table.begin(), table.begin() + ptrdiff_t(page_at + page_size));
    }
  }
  EXA_RETURN_IF_ERROR(agree(file.comm(), st));
  EXA_RETURN_IF_ERROR(broadcast_bytes(file.comm(), &bytes));
  std::vector<uint8_t> block(root_block.begin(), root_block.end());
  EXA_RETURN_IF_ERROR(broadcast_bytes(file.comm(), &block, root_writer));
  bytes.insert(bytes.end(), block.begin(), block.end());
  return agree(file.comm(), decode_opened(bytes, opened, root));
}

Status share_extents(MpiFile& file, const std::vector<Extent>& need, const ExtentBytesFn& apply,
                     int64_t round_bytes) {
  EXA_RETURN_IF_ERROR(file.use_byte_view());  // a data call may have left its view
  const int p = file.nprocs(), r = file.rank();
  int64_t file_size = 0;
  Status st = file.size(&file_size);
  for (size_t lo = 0; lo < need.size();) {
    // One round: extents [lo, hi) of the list, at most round_bytes together
    // (at least one), so that the counts of the allgather fit an int.
    size_t hi = lo;
    int64_t bytes = 0;
    while (hi < need.size() && (hi == lo || bytes + int64_t(need[hi].size) <= round_bytes)) {
      bytes += int64_t(need[hi].size);
      ++hi;
    }
    if (bytes > INT_MAX / 2) st = {NC_EFILEMETA, "metadata block larger than 1 GiB"};
    std::vector<int> counts(size_t(p), 0), displs(size_t(p), 0);
    for (size_t k = lo; k < hi; ++k) counts[k % size_t(p)] += int(need[k].size);
    for (int i = 1; i < p; ++i) displs[size_t(i)] = displs[size_t(i) - 1] + counts[size_t(i) - 1];
    std::vector<uint8_t> mine(size_t(st.is_ok() ? counts[size_t(r)] : 0));
    size_t at = 0;
    for (size_t k = lo + size_t(r); st.is_ok() && k < hi; k += size_t(p)) {
      const Extent& e = need[k];
      if (e.offset > uint64_t(file_size) || e.size > uint64_t(file_size) - e.offset)
        st = {NC_ETRUNC, "metadata lies beyond the end of the file"};
      else
        st = file.read_at(int64_t(e.offset), mine.data() + at, int64_t(e.size));
      if (st.is_ok()) note_metadata_read(int64_t(e.size));
      at += e.size;
    }
    EXA_RETURN_IF_ERROR(agree(file.comm(), st));
    std::vector<uint8_t> all(static_cast<size_t>(bytes));
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgatherv(mine.data(), counts[size_t(r)], MPI_BYTE, all.data(),
                                               counts.data(), displs.data(), MPI_BYTE, file.comm())));
    // Extent k sits in rank k % p's part, after that rank's earlier ones.
    std::vector<int64_t> cursor(displs.begin(), displs.end());
    for (size_t k = lo; k < hi && st.is_ok(); ++k) {
      int64_t& c = cursor[k % size_t(p)];
      st = apply(k, std::span<const uint8_t>(all).subspan(size_t(c), size_t(need[k].size)));
      c += int64_t(need[k].size);
    }
    EXA_RETURN_IF_ERROR(agree(file.comm(), st));
    lo = hi;
  }
  return agree(file.comm(), st);
}

Status read_extent(MpiFile& file, const Extent& extent, std::vector<uint8_t>* out) {
  int64_t size = 0;
  EXA_RETURN_IF_ERROR(file.size(&size));
  if (extent.offset > uint64_t(size) || extent.size > uint64_t(size) - extent.offset)
    return {NC_ETRUNC, "metadata lies beyond the end of the file"};
  out->resize(size_t(extent.size));
  EXA_RETURN_IF_ERROR(file.read_at(int64_t(extent.offset), out->data(), int64_t(out->size())));
  note_metadata_read(int64_t(out->size()));
  return Status::ok();
}

Status read_block(MpiFile& file, const pf::Superblock& sb, const pf::BlockEntry& entry, pf::Block* out) {
  std::vector<uint8_t> bytes;
  Status st = read_extent(file, {entry.offset, entry.size}, &bytes);
  if (st.code() == NC_ETRUNC) return {NC_ETRUNC, "block '" + entry.path + "' lies beyond the end of the file"};
  EXA_RETURN_IF_ERROR(st);
  return pf::decode_block(bytes, entry, sb.ndims, out);
}

}  // namespace exa::io
