// Index blocks of partitioned files (layer/index_blocks.hpp, docs/format.md
// "Index blocks"): the native connector's side. It knows nothing of what an
// index holds: it stores bytes past the end of the space in use, lists
// header blocks in the index table under reserved paths, and commits them
// with a new generation, so an index becomes durable with the data it was
// built from, and a crash before the superblock leaves the previous state.
#include <algorithm>
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

bool keeps_inside(const NativeFile& nf) {
  // Records grow at the end of the file, where index pieces would lie.
  return nf.partitioned && nf.superblock.record_dim == 0 && nf.ds.unlimited_dim() < 0 && !nf.define_mode;
}

Status check_writable(const NativeFile& nf) {
  if (!nf.partitioned) return {NC_ENOTSUPPORT, "index blocks: not a partitioned file"};
  if (nf.define_mode) return {NC_EINDEFINE, "index blocks: the file is in define mode"};
  if (!nf.file.writable()) return {NC_EPERM, "index blocks: the file is read-only"};
  if (!keeps_inside(nf)) return {NC_ENOTSUPPORT, "index blocks: the file has records"};
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

// Collective: every rank's bytes written back to back past the space in use.
Status store_pieces(NativeFile& nf, IndexBlocksArgs* a) {
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), check_writable(nf)));
  unsigned long long mine = a->bytes.size(), before = 0, total = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, nf.comm())));
  if (nf.file.rank() == 0) before = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, nf.comm())));
  const uint64_t base = std::max(next_free(nf), round8(a->at_least));
  a->offset = base + before;
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());
  std::vector<io::Segment> segments;
  if (!a->bytes.empty()) segments.push_back({int64_t(a->offset), int64_t(a->bytes.size()), a->bytes.data()});
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), io::write_segments(nf.file, std::move(segments), true)));
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());
  nf.index_store_end = base + total;
  return Status::ok();
}

bool has_index_blocks(const pf::IndexTable& table) {
  for (auto it = table.blocks.rbegin(); it != table.blocks.rend(); ++it)  // (they sort last)
    if (it->flags & pf::kEntryIndexBlock) return true;
  return false;
}

// Collective: the table with `headers` as index blocks (replacing those of
// their variables; empty bytes: removed), written with the header blocks
// past the space in use, then a new superblock. A writer that commits index
// blocks has the file open: the flag is set until its close.
Status commit_headers(NativeFile& nf, const std::vector<std::pair<int, std::vector<uint8_t>>>& headers) {
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), check_writable(nf)));
  pf::IndexTable table;
  EXA_RETURN_IF_ERROR(load_whole_index(nf, &table));
  std::set<std::string> replaced;
  for (const auto& [varid, bytes] : headers) replaced.insert(pf::index_block_path(uint64_t(varid)));
  std::erase_if(table.blocks, [&](const pf::BlockEntry& e) {
    return (e.flags & pf::kEntryIndexBlock) && replaced.count(e.path);
  });
  const uint64_t at = next_free(nf);
  std::vector<uint8_t> blob;
  for (const auto& [varid, bytes] : headers) {
    if (bytes.empty()) continue;
    pf::BlockEntry e;
    e.path = pf::index_block_path(uint64_t(varid));
    e.flags = pf::kEntryIndexBlock;
    e.offset = at + blob.size();
    e.size = bytes.size();
    e.crc = crc32c(bytes.data(), bytes.size());
    table.blocks.push_back(std::move(e));
    blob.insert(blob.end(), bytes.begin(), bytes.end());
    blob.resize(round8(blob.size()), 0);
  }
  std::sort(table.blocks.begin(), table.blocks.end(),
            [](const pf::BlockEntry& x, const pf::BlockEntry& y) { return x.path < y.path; });
  pf::Superblock nsb = nf.superblock;
  nsb.generation += 1;
  nsb.index_offset = at + blob.size();
  const std::vector<uint8_t> bytes = pf::encode_index(table, pf::kIndexPageEntries, &nsb.index_head_size);
  nsb.index_size = bytes.size();
  nsb.index_crc = crc32c(bytes.data(), size_t(nsb.index_head_size));
  nsb.nblocks = table.blocks.size();
  nsb.index_blocks = has_index_blocks(table);
  nsb.writer_open = nsb.index_blocks;
  nsb.file_end = nsb.index_offset + nsb.index_size;
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());
  Status st;
  if (nf.file.rank() == 0) {
    if (!blob.empty()) st = nf.file.write_at(int64_t(at), blob.data(), int64_t(blob.size()));
    if (st.is_ok()) st = nf.file.write_at(int64_t(nsb.index_offset), bytes.data(), int64_t(bytes.size()));
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, nsb));
  nf.superblock = nsb;
  // In place: a lazy dataset shares the index (metadata blocks keep their
  // positions: index blocks sort last).
  *nf.index = pf::PagedIndex(nsb, table);
  note_committed_end(nf);
  nf.index_store_end = 0;
  nf.index_writer = nsb.index_blocks;
  nf.index_marks_applied = false;
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
    return commit_headers(nf, drop);
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
      return store_pieces(nf, a);
    case IndexBlocksArgs::Op::kCommit:
      return commit_headers(nf, a->headers);
    case IndexBlocksArgs::Op::kList:
      return list_index_blocks(nf, &a->varids);
    case IndexBlocksArgs::Op::kApplied:
      nf.index_marks_applied = true;
      return Status::ok();
  }
  return {NC_EINVAL, "unknown index blocks operation"};
}

}  // namespace exa::layer
