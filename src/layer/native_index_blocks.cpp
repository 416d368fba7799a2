// Index blocks of partitioned files (layer/index_blocks.hpp, docs/format.md
// "Index blocks"): the native connector's side. It knows nothing of what an
// index holds: it stores bytes past the end of the space in use, lists
// header blocks in the index table under reserved paths, and commits them
// with a new generation, so an index becomes durable with the data it was
// built from, and a crash before the superblock leaves the previous state.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>

#include "io/aggregate.hpp"
#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
#include "layer/index_blocks.hpp"
#include "layer/native_internal.hpp"
#include "pnetcdf.h"
#include "util/crc32c.hpp"

namespace exa::layer {

namespace {

namespace pf = format::partitioned;

uint64_t round8(uint64_t n) { return (n + 7) / 8 * 8; }

// Where the next index bytes go: past the space in use and past the pieces
// stored for the coming commit.
uint64_t next_free(const NativeFile& nf) { return round8(std::max(nf.superblock.file_end, nf.index_store_end)); }

bool keeps_inside(const NativeFile& nf) { return nf.partitioned && !nf.define_mode; }

// Whether records grow at the end of the file (record variables): index
// bytes written past the space in use lie where they would grow, so the
// commit that lists them moves the current record section past them
// (RecordMove).
bool has_records(const NativeFile& nf) { return nf.superblock.record_size > 0; }

Status check_writable(const NativeFile& nf) {
  if (!nf.partitioned) return {NC_ENOTSUPPORT, "index blocks: not a partitioned file"};
  if (nf.define_mode) return {NC_EINDEFINE, "index blocks: the file is in define mode"};
  if (!nf.file.writable()) return {NC_EPERM, "index blocks: the file is read-only"};
  if (!keeps_inside(nf)) return {NC_ENOTSUPPORT, "index blocks: not kept in this file"};
  return Status::ok();
}

Status read_local(NativeFile& nf, uint64_t offset, uint64_t size, std::vector<uint8_t>* out) {
  if (offset < uint64_t(pf::kFirstRegion) || offset > nf.superblock.file_end ||
      size > nf.superblock.file_end - offset)
    return {NC_EFILEMETA, "index piece outside the space in use"};
  EXA_RETURN_IF_ERROR(open_indep_handle(nf));
  out->resize(size);
  return nf.indep.read_at(int64_t(offset), out->data(), int64_t(size));
}

Status read_header_block(NativeFile& nf, int varid, std::vector<uint8_t>* out) {
  out->clear();
  if (!keeps_inside(nf) || !nf.superblock.index_blocks || varid < 0) return Status::ok();
  int64_t b = -1;
  EXA_RETURN_IF_ERROR(nf.index->find(pf::index_block_path(uint64_t(varid)), &b));
  if (b < 0) return Status::ok();
  const pf::BlockEntry* e = nullptr;
  EXA_RETURN_IF_ERROR(nf.index->entry(size_t(b), &e));
  if (!(e->flags & pf::kEntryIndexBlock)) return {NC_EFILEMETA, "index block path on a metadata block"};
  const uint32_t crc = e->crc;
  EXA_RETURN_IF_ERROR(read_local(nf, e->offset, e->size, out));
  if (crc32c(out->data(), out->size()) != crc) {
    out->clear();
    return {NC_EFILEMETA, "index block checksum mismatch"};
  }
  return Status::ok();
}

// The list of released space index commits write into again: an SWMR
// writer's (its refresh bound decides; without one nothing is reused),
// else this handle's own, by the generation rule alone (format/
// reusable_space.hpp: a commit of generation g + 2 may write what the commit
// of g stopped referencing, so neither superblock slot references it).
format::ReusableSpace& index_space(NativeFile& nf) {
  if (nf.swmr == NativeFile::Swmr::kWrite) return nf.reusable;
  if (!nf.index_reusable.enabled()) nf.index_reusable.set_generations_only();
  return nf.index_reusable;
}

// The time reuse is decided at, the same on every rank (rank 0's clock):
// only an SWMR writer's refresh bound needs one. Collective.
Status reuse_clock(NativeFile& nf, double* now) {
  *now = 0;
  if (nf.swmr != NativeFile::Swmr::kWrite || !nf.reusable.enabled()) return Status::ok();
  if (nf.file.rank() == 0)
    *now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return EXA_MPI(MPI_Bcast(now, 1, MPI_DOUBLE, 0, nf.comm()));
}

// Collective: every rank's bytes written back to back, into one extent
// earlier index commits released when one holds them all (at or after
// at_least), else past the space in use.
Status store_pieces(NativeFile& nf, IndexBlocksArgs* a) {
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), check_writable(nf)));
  unsigned long long mine = a->bytes.size(), before = 0, total = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, nf.comm())));
  if (nf.file.rank() == 0) before = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, nf.comm())));
  double now = 0;
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), reuse_clock(nf, &now)));
  format::ReusableSpace& space = index_space(nf);
  format::ReusableSpace trial = space;
  const int64_t reused = total > 0 ? trial.take(int64_t(total), nf.superblock.generation + 1, now) : -1;
  const bool in_released = reused >= 0 && uint64_t(reused) >= a->at_least;
  const uint64_t base = in_released ? uint64_t(reused) : std::max(next_free(nf), round8(a->at_least));
  if (in_released) space = std::move(trial);
  a->offset = base + before;
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());
  std::vector<io::Segment> segments;
  if (!a->bytes.empty()) segments.push_back({int64_t(a->offset), int64_t(a->bytes.size()), a->bytes.data()});
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), io::write_segments(nf.file, std::move(segments), true)));
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());
  if (!in_released && total > 0) nf.index_store_end = base + total;
  return Status::ok();
}

// The current record section's move of a commit (docs/format.md "Index
// blocks", "Record sections"): the records written so far stay where they
// are, as a closed section (the one a redef makes); the blocks holding
// record variables are written anew, with each such variable's begin moved
// by the section's move (begin is the offset of record current_first).
struct RecordMove {
  std::vector<uint64_t> blocks;      // positions in the table of the blocks written anew
  std::vector<pf::Block> decoded;    // rank 0: those blocks as they are on disk
  std::vector<uint8_t> bytes;        // rank 0: them encoded anew, each padded to 8
};

Status bcast_u64s(MPI_Comm comm, std::vector<uint64_t>* v) {
  unsigned long long n = v->size();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm)));
  v->resize(size_t(n));
  if (n == 0) return Status::ok();
  return EXA_MPI(MPI_Bcast(v->data(), int(n), MPI_UINT64_T, 0, comm));
}

// Rank 0 reads the metadata blocks with variables (once per table: then
// only those known to hold a record variable) and keeps those with a record
// variable; every rank learns their positions. Collective.
Status find_record_blocks(NativeFile& nf, const pf::IndexTable& table, RecordMove* move) {
  Status st;
  if (nf.file.rank() == 0) {
    const uint64_t rec = nf.superblock.record_dim - 1;
    std::vector<uint64_t> candidates;
    if (nf.record_blocks) candidates = *nf.record_blocks;
    for (size_t b = 0; b < table.blocks.size() && !nf.record_blocks; ++b)
      if (!(table.blocks[b].flags & pf::kEntryIndexBlock) && table.blocks[b].nvars > 0) candidates.push_back(b);
    for (uint64_t b : candidates) {
      if (b >= table.blocks.size()) {
        st = {NC_EINTERNAL, "record blocks: a position past the table"};
        break;
      }
      const pf::BlockEntry& e = table.blocks[size_t(b)];
      std::vector<uint8_t> bytes;
      st = read_local(nf, e.offset, e.size, &bytes);
      if (st.is_ok() && crc32c(bytes.data(), bytes.size()) != e.crc)
        st = {NC_EFILEMETA, "block '" + e.path + "': checksum mismatch"};
      pf::Block block;
      if (st.is_ok()) st = pf::decode_block(bytes, e, nf.superblock.ndims, &block);
      if (!st.is_ok()) break;
      const bool has_record = std::any_of(block.vars.begin(), block.vars.end(), [&](const pf::BlockVariable& v) {
        return !v.var.dimids.empty() && uint64_t(v.var.dimids[0]) == rec;
      });
      if (!has_record) continue;
      move->blocks.push_back(b);
      move->decoded.push_back(std::move(block));
    }
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(bcast_u64s(nf.comm(), &move->blocks));
  nf.record_blocks = move->blocks;  // (positions stay: index blocks sort last)
  return Status::ok();
}

// Rank 0 encodes the record blocks with begin + delta for their record
// variables; every rank gets their CRCs into the table. Collective.
Status rewrite_record_blocks(NativeFile& nf, int64_t delta, pf::IndexTable* table, RecordMove* move) {
  Status st;
  std::vector<uint64_t> crcs;
  if (nf.file.rank() == 0) {
    const uint64_t rec = nf.superblock.record_dim - 1;
    for (size_t k = 0; k < move->blocks.size() && st.is_ok(); ++k) {
      pf::Block& block = move->decoded[k];
      for (pf::BlockVariable& v : block.vars)
        if (!v.var.dimids.empty() && uint64_t(v.var.dimids[0]) == rec) v.var.begin += delta;
      const std::vector<uint8_t> bytes = pf::encode_block(block);
      const pf::BlockEntry& e = table->blocks[size_t(move->blocks[k])];
      if (bytes.size() != e.size) st = {NC_EINTERNAL, "block '" + e.path + "' changed size when its offsets moved"};
      crcs.push_back(crc32c(bytes.data(), bytes.size()));
      move->bytes.insert(move->bytes.end(), bytes.begin(), bytes.end());
      move->bytes.resize(round8(move->bytes.size()), 0);
    }
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(bcast_u64s(nf.comm(), &crcs));
  if (crcs.size() != move->blocks.size()) return {NC_EINTERNAL, "record blocks: CRC count"};
  for (size_t k = 0; k < crcs.size(); ++k) table->blocks[size_t(move->blocks[k])].crc = uint32_t(crcs[k]);
  return Status::ok();
}

// The records' sections once the current one closes at numrecs and a new
// one begins there (at another offset).
format::RecordSections closed_at_numrecs(const NativeFile& nf, const pf::IndexTable& table) {
  format::RecordSections rs = table.sections;
  const uint64_t first = rs.present ? rs.current_first : 0;
  const uint64_t numrecs = nf.superblock.numrecs;
  rs.present = true;
  if (numrecs > first)
    rs.closed.push_back({first, numrecs - first, nf.superblock.record_begin, 0, nf.superblock.record_size});
  rs.current_first = numrecs;
  return rs;
}

// A commit's record move, before its table is encoded: the sections close
// at numrecs, and the blocks of record variables go from *cursor on (after
// the header blocks). Collective.
Status plan_record_move(NativeFile& nf, pf::IndexTable* table, RecordMove* move, uint64_t* cursor) {
  if (uint64_t(nf.ds.numrecs()) != nf.superblock.numrecs)
    return {NC_EINTERNAL, "index blocks: records not committed before the index"};  // (the same on every rank)
  EXA_RETURN_IF_ERROR(find_record_blocks(nf, *table, move));
  for (uint64_t b : move->blocks) {
    table->blocks[size_t(b)].offset = *cursor;
    *cursor += round8(table->blocks[size_t(b)].size);
  }
  table->sections = closed_at_numrecs(nf, *table);
  return Status::ok();
}

// Once the table's place is known: the new current section right after it,
// the blocks of record variables encoded with their begin moved there, and
// the table encoded again with their CRCs (its size does not change).
// Collective.
Status finish_record_move(NativeFile& nf, pf::Superblock* nsb, pf::IndexTable* table, RecordMove* move,
                          int64_t* delta, std::vector<uint8_t>* bytes, std::vector<pf::PageRef>* placed) {
  nsb->record_sections = true;
  nsb->record_begin = round8(nsb->index_offset + nsb->index_size);
  nsb->file_end = nsb->record_begin;  // (the current section holds no record yet)
  *delta = int64_t(nsb->record_begin) - int64_t(nf.superblock.record_begin);
  EXA_RETURN_IF_ERROR(rewrite_record_blocks(nf, *delta, table, move));
  *bytes = pf::encode_index_placed(*table, nsb->index_offset, &nsb->index_head_size, placed);
  return Status::ok();
}

// After the commit: the dataset's record variables and layout follow the
// moved section. (Posted requests find their place at the wait:
// native_requests.cpp.)
void adopt_record_move(NativeFile& nf, const pf::IndexTable& table, int64_t delta) {
  nf.ds.move_current_records(int64_t(nf.superblock.record_begin), delta);
  format::Layout layout = nf.ds.layout();
  layout.begin_rec = int64_t(nf.superblock.record_begin);
  layout.sections = table.sections;
  nf.ds.set_layout(layout);
}

bool has_index_blocks(const pf::IndexTable& table) {
  for (auto it = table.blocks.rbegin(); it != table.blocks.rend(); ++it)  // (they sort last)
    if (it->flags & pf::kEntryIndexBlock) return true;
  return false;
}

// Whether a released span lies where index bytes may lie (a header's
// chunk piece: inside the space in use, past the superblocks).
bool plausible_span(const NativeFile& nf, uint64_t offset, uint64_t size) {
  return size > 0 && offset >= uint64_t(pf::kFirstRegion) && offset <= nf.superblock.file_end &&
         size <= nf.superblock.file_end - offset;
}

// Releases the spans, each byte once: a span overlapping one before it
// (two chunk entries naming one piece, say) is left out, so the list of
// released space never holds a byte twice.
void release_disjoint(format::ReusableSpace* space, std::vector<std::pair<uint64_t, uint64_t>> spans, uint64_t gen,
                      double now) {
  std::sort(spans.begin(), spans.end());
  uint64_t end = 0;
  for (const auto& [offset, size] : spans) {
    if (size == 0 || offset < end) continue;
    space->release(int64_t(offset), int64_t(size), gen, now);
    end = offset + size;
  }
}

// Collective: the table with `headers` as index blocks (replacing those of
// their variables; empty bytes: removed), then a new superblock. A writer
// that commits index blocks has the file open: the flag is set until its
// close. The header blocks and the table go into space earlier index
// commits released (index_space) when it holds them; in a file with records
// only then does the current record section stay where it is (and with it
// every block of a record variable), else all of it goes past the space in
// use and the section moves past it (RecordMove). What the new generation
// no longer references -- the replaced header blocks, `released` pieces,
// the old table, moved blocks' old places -- is released with it.
Status commit_headers(NativeFile& nf, const std::vector<std::pair<int, std::vector<uint8_t>>>& headers,
                      const std::vector<std::pair<uint64_t, uint64_t>>& released, bool closing = false) {
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), check_writable(nf)));
  pf::IndexTable table;
  EXA_RETURN_IF_ERROR(load_whole_index(nf, &table));
  const std::vector<pf::BlockEntry> loaded = table.blocks;  // as the committed table lists them
  const pf::Superblock committed = nf.superblock;
  double now = 0;
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), reuse_clock(nf, &now)));
  std::vector<std::pair<uint64_t, uint64_t>> unreferenced;
  for (const auto& [offset, size] : released)
    if (plausible_span(nf, offset, size)) unreferenced.emplace_back(offset, size);
  std::set<std::string> replaced;
  for (const auto& [varid, bytes] : headers) replaced.insert(pf::index_block_path(uint64_t(varid)));
  std::erase_if(table.blocks, [&](const pf::BlockEntry& e) {
    const bool gone = (e.flags & pf::kEntryIndexBlock) && replaced.count(e.path);
    if (gone) unreferenced.emplace_back(e.offset, e.size);
    return gone;
  });
  std::vector<uint8_t> blob;
  std::set<std::string> added;  // the new entries (their offsets from the blob's start)
  for (const auto& [varid, bytes] : headers) {
    if (bytes.empty()) continue;
    pf::BlockEntry e;
    e.path = pf::index_block_path(uint64_t(varid));
    e.flags = pf::kEntryIndexBlock;
    e.offset = blob.size();
    e.size = bytes.size();
    e.crc = crc32c(bytes.data(), bytes.size());
    added.insert(e.path);
    table.blocks.push_back(std::move(e));
    blob.insert(blob.end(), bytes.begin(), bytes.end());
    blob.resize(round8(blob.size()), 0);
  }
  pf::Superblock nsb = nf.superblock;
  nsb.generation += 1;
  // Where the header blocks and the table go (the table's size does not
  // depend on offsets): released space when it holds them.
  std::sort(table.blocks.begin(), table.blocks.end(),
            [](const pf::BlockEntry& x, const pf::BlockEntry& y) { return x.path < y.path; });
  // Kept pages (flag 16): when the records stay, only the pages whose
  // entries change are written (those of index blocks, the table's last),
  // if the pages of the committed table are known and page it alike.
  const std::vector<pf::PageRef> old_pages = nf.index->placement();
  std::vector<bool> rewrite;
  bool keep = !old_pages.empty() && pf::can_keep_pages(table, old_pages);
  if (keep) {
    rewrite.assign(old_pages.size(), false);
    for (size_t b = 0; b < table.blocks.size(); ++b)
      if (b >= loaded.size() || !(loaded[b] == table.blocks[b])) rewrite[b / pf::kIndexPageEntries] = true;
    keep = std::find(rewrite.begin(), rewrite.end(), false) != rewrite.end();
  }
  std::vector<pf::PageRef> placed;
  auto encode_table = [&](bool keeping, uint64_t at) {
    return keeping ? pf::encode_index_keeping(table, at, old_pages, rewrite, &nsb.index_head_size, &placed)
                   : pf::encode_index_placed(table, at, &nsb.index_head_size, &placed);
  };
  std::vector<uint8_t> bytes = encode_table(keep, uint64_t(pf::kFirstRegion));  // (its size: offsets do not change it)
  format::ReusableSpace& space = index_space(nf);
  format::ReusableSpace trial = space;
  const int64_t blob_reused = blob.empty() ? -1 : trial.take(int64_t(blob.size()), nsb.generation, now);
  const int64_t table_reused = trial.take(int64_t(bytes.size()), nsb.generation, now);
  const bool records = has_records(nf);
  // With records, all or nothing: pieces or header blocks past the space in
  // use move the record section anyway, and then the table follows them.
  const bool in_released = !records || (nf.index_store_end == 0 && (blob.empty() || blob_reused >= 0) &&
                                        table_reused >= 0);
  if (in_released) space = std::move(trial);
  const uint64_t start = next_free(nf);  // past the space in use: what does not go into released space
  uint64_t cursor = start;
  const bool blob_released = in_released && blob_reused >= 0;
  const uint64_t blob_at = blob_released ? uint64_t(blob_reused) : cursor;
  if (!blob_released) cursor += blob.size();
  for (pf::BlockEntry& e : table.blocks)
    if (added.count(e.path)) e.offset += blob_at;
  // With records and no room: the blocks of record variables anew after
  // the header blocks, then the table, then the new current record section.
  const bool move_records = records && !in_released;
  RecordMove move;
  const std::vector<pf::BlockEntry> before = move_records ? table.blocks : std::vector<pf::BlockEntry>();
  if (move_records) EXA_RETURN_IF_ERROR(plan_record_move(nf, &table, &move, &cursor));
  keep = keep && !move_records;  // (a record move changes the pages of the blocks it rewrites)
  const bool table_released = in_released && table_reused >= 0;
  nsb.index_offset = table_released ? uint64_t(table_reused) : cursor;
  bytes = encode_table(keep, nsb.index_offset);
  nsb.kept_pages = keep;
  nsb.index_size = bytes.size();
  if (!table_released) cursor += nsb.index_size;
  nsb.file_end = cursor > start ? cursor : std::max(nf.superblock.file_end, nf.index_store_end);
  int64_t delta = 0;
  if (move_records) EXA_RETURN_IF_ERROR(finish_record_move(nf, &nsb, &table, &move, &delta, &bytes, &placed));
  nsb.index_crc = crc32c(bytes.data(), size_t(nsb.index_head_size));
  nsb.nblocks = table.blocks.size();
  nsb.index_blocks = has_index_blocks(table);
  nsb.writer_open = nsb.index_blocks && !closing;
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());
  Status st;
  if (nf.file.rank() == 0) {
    if (move_records) blob.insert(blob.end(), move.bytes.begin(), move.bytes.end());  // (after the header blocks)
    if (!blob.empty()) st = nf.file.write_at(int64_t(blob_at), blob.data(), int64_t(blob.size()));
    if (st.is_ok()) st = nf.file.write_at(int64_t(nsb.index_offset), bytes.data(), int64_t(bytes.size()));
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, nsb));
  nf.superblock = nsb;
  for (uint64_t b : move.blocks)  // (every rank knows their positions)
    unreferenced.emplace_back(before[size_t(b)].offset, before[size_t(b)].size);
  if (keep) {  // the old head and the pages replaced (kept pages are still referenced)
    unreferenced.emplace_back(committed.index_offset, committed.index_head_size);
    for (size_t k = 0; k < rewrite.size(); ++k)
      if (rewrite[k]) unreferenced.emplace_back(old_pages[k].offset, old_pages[k].size);
  } else {  // the old table region (pages an older commit kept outside it stay unused)
    unreferenced.emplace_back(committed.index_offset, committed.index_size);
  }
  release_disjoint(&space, std::move(unreferenced), nsb.generation, now);
  // In place: a lazy dataset shares the index (metadata blocks keep their
  // positions: index blocks sort last).
  *nf.index = pf::PagedIndex(nsb, table);
  nf.index->set_placement(placed);  // (the next commit may keep pages)
  if (move_records) adopt_record_move(nf, table, delta);
  note_committed_end(nf);
  nf.index_store_end = 0;
  nf.index_writer = nsb.writer_open;
  nf.index_marks_applied = closing;
  return Status::ok();
}

Status list_index_blocks(NativeFile& nf, std::vector<int>* varids) {
  varids->clear();
  if (!keeps_inside(nf) || !nf.superblock.index_blocks) return Status::ok();  // (the same on every rank)
  pf::IndexTable table;
  EXA_RETURN_IF_ERROR(load_whole_index(nf, &table));
  for (const pf::BlockEntry& e : table.blocks) {
    uint64_t varid = 0;
    if ((e.flags & pf::kEntryIndexBlock) && pf::parse_index_block_path(e.path, &varid)) varids->push_back(int(varid));
  }
  return Status::ok();
}

}  // namespace

Status adopt_index_blocks(NativeFile& nf) {
  if (!nf.superblock.index_blocks || !nf.file.writable()) return Status::ok();
  if (nf.superblock.writer_open) {
    // A writer had the file open and never closed it: data it wrote in
    // place may not be in the index blocks. They go (rebuilt on demand).
    std::vector<int> varids;
    EXA_RETURN_IF_ERROR(list_index_blocks(nf, &varids));
    std::vector<std::pair<int, std::vector<uint8_t>>> drop;
    for (int v : varids) drop.emplace_back(v, std::vector<uint8_t>());
    if (!keeps_inside(nf)) return Status::ok();  // (cannot happen: only such files get them)
    return commit_headers(nf, drop, {});
  }
  pf::Superblock nsb = nf.superblock;
  nsb.generation += 1;
  nsb.writer_open = true;
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, nsb));
  nf.superblock = nsb;
  nf.index_writer = true;
  nf.index_marks_applied = false;
  return Status::ok();
}

Status release_index_blocks(NativeFile& nf) {
  if (!nf.index_writer || !nf.index_marks_applied || !nf.superblock.writer_open || !nf.file.writable())
    return Status::ok();  // (the same on every rank)
  pf::Superblock nsb = nf.superblock;
  nsb.generation += 1;
  nsb.writer_open = false;
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, nsb));
  nf.superblock = nsb;
  nf.index_writer = false;
  return Status::ok();
}

Status NativeConnector::extension(FileState& f, const char* name, void* args) {
  if (std::strcmp(name, "split_put") == 0) return split_put(native(f), static_cast<SplitPut*>(args));
  if (std::strcmp(name, "puts_settled") == 0) return Status::ok();  // (native writes every put at once)
  if (std::strcmp(name, "index_blocks") != 0) return Connector::extension(f, name, args);
  NativeFile& nf = native(f);
  auto* a = static_cast<IndexBlocksArgs*>(args);
  switch (a->op) {
    case IndexBlocksArgs::Op::kInfo:
      a->inside = keeps_inside(nf);
      a->writable = nf.file.writable();
      a->writer = nf.index_writer && nf.superblock.writer_open;
      a->trusted = !nf.superblock.writer_open || a->writer;
      return Status::ok();
    case IndexBlocksArgs::Op::kRead:
      return read_header_block(nf, a->varid, &a->bytes);
    case IndexBlocksArgs::Op::kReadAt:
      return read_local(nf, a->offset, a->size, &a->bytes);
    case IndexBlocksArgs::Op::kStore:
      // Records this communicator wrote are counted first: the pieces go
      // past them (the same on every rank: the superblock's record size).
      if (has_records(nf) && !nf.define_mode) EXA_RETURN_IF_ERROR(sync_numrecs(f));
      return store_pieces(nf, a);
    case IndexBlocksArgs::Op::kCommit:
      if (has_records(nf) && !nf.define_mode) EXA_RETURN_IF_ERROR(sync_numrecs(f));
      return commit_headers(nf, a->headers, a->released, a->closing);
    case IndexBlocksArgs::Op::kList:
      return list_index_blocks(nf, &a->varids);
    case IndexBlocksArgs::Op::kApplied:
      nf.index_marks_applied = true;
      return Status::ok();
  }
  return {NC_EINVAL, "unknown index blocks operation"};
}

}  // namespace exa::layer
