#include "layer/compact_store.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <deque>
#include <map>

#include "io/collective.hpp"
#include "io/exchange.hpp"
#include "io/mpi_errors.hpp"
#include "io/partitioned_io.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"
#include "util/crc32c.hpp"

namespace exa::layer {

bool CompactStore::is_compact(const NativeFile& nf, int varid) {
  return nf.partitioned && !nf.define_mode && nf.ds.var(varid).begin == 0;
}

void CompactStore::reset() {
  var_pos_.clear();
  raw_.clear();
  current_.clear();
  held_.clear();
}

void CompactStore::hold_written(uint64_t offset, std::vector<uint8_t> run) {
  if (!run.empty()) held_[offset] = std::move(run);
}

std::span<const uint8_t> CompactStore::held(const format::partitioned::BlockEntry& entry) const {
  auto it = held_.upper_bound(entry.offset);
  if (it == held_.begin()) return {};
  --it;
  const uint64_t at = entry.offset - it->first;
  if (at > it->second.size() || entry.size > it->second.size() - at) return {};
  const auto bytes = std::span<const uint8_t>(it->second).subspan(size_t(at), size_t(entry.size));
  if (crc32c(bytes.data(), bytes.size()) != entry.crc) return {};  // not the block written there
  return bytes;
}

size_t CompactStore::held_bytes() const {
  size_t n = 0;
  for (const auto& [offset, run] : held_) n += run.size();
  return n;
}

int64_t CompactStore::position(const NativeFile& nf, int varid) {
  if (nf.ds.lazy()) return nf.ds.var_position(varid);
  if (nf.ds.file_order_is_identity()) return varid;
  if (var_pos_.size() != size_t(nf.ds.nvars())) var_pos_ = nf.ds.var_file_positions();
  return var_pos_[size_t(varid)];
}

Status CompactStore::block_of(const NativeFile& nf, int64_t pos, size_t* block, int64_t* first_var) {
  int64_t first_dim = 0;
  EXA_RETURN_IF_ERROR(nf.index->block_of_var(pos, block));
  return nf.index->first_ids(*block, &first_dim, first_var);
}

// Reads the variable's block and keeps the data of every compact variable
// in it, as stored (empty: not written yet).
Status CompactStore::load(NativeFile& nf, int64_t pos) {
  size_t b = 0;
  int64_t first = 0;
  const format::partitioned::BlockEntry* entry = nullptr;
  EXA_RETURN_IF_ERROR(block_of(nf, pos, &b, &first));
  EXA_RETURN_IF_ERROR(nf.index->entry(b, &entry));
  format::partitioned::Block block;  // an SWMR reader's unchanged blocks come from its cache
  EXA_RETURN_IF_ERROR(block_reader(nf)(*entry, &block));
  for (size_t k = 0; k < block.vars.size(); ++k) {
    auto& bv = block.vars[k];
    const int64_t at = first + int64_t(k);
    if ((bv.flags & format::partitioned::kVarCompact) && !current_.count(at)) raw_[at] = std::move(bv.data);
  }
  if (!raw_.count(pos)) return {NC_EFILEMETA, "a compact variable is not compact in its block"};
  return Status::ok();
}

Status CompactStore::materialize(NativeFile& nf, int varid, int64_t pos, std::vector<uint8_t>** out) {
  if (auto it = current_.find(pos); it != current_.end()) {
    *out = &it->second;
    return Status::ok();
  }
  std::vector<uint8_t> data;
  // The data read with the variable's metadata, if the dataset still has it.
  bool have = nf.ds.take_compact_data(varid, &data);
  if (!have) {
    if (!raw_.count(pos)) EXA_RETURN_IF_ERROR(load(nf, pos));
    data = std::move(raw_[pos]);
    raw_.erase(pos);
  }
  const auto& v = nf.ds.var(varid);
  const int64_t bytes = nf.ds.var_bytes(varid);
  if (data.empty() && bytes > 0) data = fill_bytes(nf, varid, bytes);  // not written yet
  if (int64_t(data.size()) != bytes)
    return {NC_EFILEMETA, "compact variable '" + v.name + "' holds a data size its dimensions do not give"};
  if (const std::vector<size_t>* writes = writes_to(pos))
    for (size_t k : *writes)
      if (log_[k].len > 0) std::memcpy(data.data() + log_[k].offset, arena_.data() + log_[k].at, log_[k].len);
  *out = &(current_[pos] = std::move(data));
  return Status::ok();
}

std::vector<uint8_t> CompactStore::fill_bytes(const NativeFile& nf, int varid, int64_t bytes) {
  std::vector<uint8_t> data(size_t(bytes), 0);
  const std::vector<uint8_t> fill = nf.ds.fill_value_external(varid);
  for (size_t at = 0; !fill.empty() && at + fill.size() <= data.size(); at += fill.size())
    std::memcpy(data.data() + at, fill.data(), fill.size());
  return data;
}

Status CompactStore::read(NativeFile& nf, int varid, std::span<const io::Segment> segments) {
  std::vector<uint8_t>* data = nullptr;
  EXA_RETURN_IF_ERROR(materialize(nf, varid, position(nf, varid), &data));
  for (const io::Segment& s : segments) {
    if (s.offset < 0 || s.length > int64_t(data->size()) - s.offset)
      return {NC_EINTERNAL, "compact read beyond the variable"};
    std::memcpy(s.data, data->data() + s.offset, size_t(s.length));
  }
  return Status::ok();
}

const std::vector<size_t>* CompactStore::writes_to(int64_t pos) {
  for (; indexed_ < log_.size(); ++indexed_) by_pos_[log_[indexed_].pos].push_back(indexed_);
  auto it = by_pos_.find(pos);
  return it == by_pos_.end() ? nullptr : &it->second;
}

void CompactStore::note(int64_t pos, int varid, int64_t offset, std::span<const uint8_t> bytes, bool own) {
  log_.push_back({pos, varid, offset, arena_.size(), bytes.size(), own});
  arena_.insert(arena_.end(), bytes.begin(), bytes.end());
  if (auto cached = current_.find(pos); cached != current_.end() && !bytes.empty())
    std::memcpy(cached->second.data() + offset, bytes.data(), bytes.size());
}

Status CompactStore::write(NativeFile& nf, int varid, std::span<const io::Segment> segments) {
  const int64_t pos = position(nf, varid);
  const int64_t size = nf.ds.var_bytes(varid);
  for (const io::Segment& s : segments)
    if (s.offset < 0 || s.length > size - s.offset) return {NC_EINTERNAL, "compact write beyond the variable"};
  for (const io::Segment& s : segments)
    note(pos, varid, s.offset, {static_cast<const uint8_t*>(s.data), size_t(s.length)}, true);
  return Status::ok();
}

namespace {

size_t padded8(size_t n) { return (n + 7) / 8 * 8; }

void put_u64(uint64_t v, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + 8);
  std::memcpy(out->data() + at, &v, 8);
}

// What a rank publishes: u64 needs_io; then, if it wrote a compact variable,
// u64 its total size, u64 position, and per segment u64 offset, u64 length
// and the bytes padded to 8.
struct Published {
  bool needs_io = false;
  int64_t pos = -1, total = 0;
  std::vector<std::pair<int64_t, std::span<const uint8_t>>> pieces;
};

Status parse_published(std::span<const uint8_t> in, Published* out) {
  auto u64 = [&](uint64_t* v) {
    if (in.size() < 8) return false;
    std::memcpy(v, in.data(), 8);
    in = in.subspan(8);
    return true;
  };
  uint64_t v = 0, total = 0, offset = 0, len = 0;
  if (!u64(&v)) return {NC_EINTERNAL, "short published compact write"};
  out->needs_io = v != 0;
  if (in.empty()) return Status::ok();
  if (!u64(&total) || !u64(&v)) return {NC_EINTERNAL, "short published compact write"};
  out->total = int64_t(total);
  out->pos = int64_t(v);
  while (!in.empty()) {
    if (!u64(&offset) || !u64(&len) || len > in.size() || padded8(size_t(len)) > in.size() || offset > total ||
        len > total - offset)
      return {NC_EINTERNAL, "bad published compact write"};
    out->pieces.push_back({int64_t(offset), in.first(size_t(len))});
    in = in.subspan(padded8(size_t(len)));
  }
  return Status::ok();
}

}  // namespace

Status CompactStore::publish(NativeFile& nf, int varid, std::span<const io::Segment> segments, bool needs_io,
                             bool* any_io) {
  Status st;
  int64_t size = 0;
  if (varid >= 0) {
    size = nf.ds.var_bytes(varid);
    for (const io::Segment& s : segments)
      if (s.offset < 0 || s.length > size - s.offset) st = {NC_EINTERNAL, "compact write beyond the variable"};
  }
  std::vector<uint8_t> mine;
  put_u64(needs_io ? 1 : 0, &mine);
  if (varid >= 0 && st.is_ok()) {
    put_u64(uint64_t(size), &mine);
    put_u64(uint64_t(position(nf, varid)), &mine);
    for (const io::Segment& s : segments) {
      put_u64(uint64_t(s.offset), &mine);
      put_u64(uint64_t(s.length), &mine);
      const size_t at = mine.size();
      mine.resize(at + padded8(size_t(s.length)), 0);
      if (s.length > 0) std::memcpy(mine.data() + at, s.data, size_t(s.length));
    }
  }
  std::vector<uint8_t> all;
  std::vector<std::span<const uint8_t>> parts;
  EXA_RETURN_IF_ERROR(io::allgather_bytes(nf.comm(), mine, &all, &parts));
  *any_io = false;
  for (size_t r = 0; r < parts.size(); ++r) {
    Published p;
    Status parsed = parse_published(parts[r], &p);
    if (!parsed.is_ok()) {
      if (st.is_ok()) st = parsed;
      *any_io = true;  // (all ranks parse the same bytes: the same answer)
      continue;
    }
    *any_io = *any_io || p.needs_io;
    const bool own = int(r) == nf.file.rank();
    // Another rank's view of a variable it holds cached is kept up to date;
    // the sizes must agree with what this rank knows of the variable.
    if (auto c = current_.find(p.pos); !own && c != current_.end() && int64_t(c->second.size()) != p.total) {
      if (st.is_ok()) st = {NC_EINTERNAL, "a published compact write of another size"};
      continue;
    }
    for (const auto& [offset, bytes] : p.pieces) note(p.pos, own ? varid : -1, offset, bytes, own);
  }
  return st;
}

namespace {

// The index pages listing a variable some rank wrote (from the head: no
// I/O), the same sorted list on every rank: one allgather.
Status pages_of_writes(NativeFile& nf, std::span<const CompactStore::Write> own, std::vector<size_t>* pages) {
  std::vector<uint64_t> mine;
  const format::partitioned::PagedIndex& index = *nf.index;
  uint64_t next = 0;  // the first variable past page mine.back() (own is sorted by position)
  for (const auto& w : own) {
    if (!mine.empty() && uint64_t(w.pos) < next) continue;
    const size_t k = index.page_of_var(w.pos);
    mine.push_back(k);
    next = k + 1 < index.npages() ? index.page_first_var(k + 1) : UINT64_MAX;
  }
  std::vector<uint8_t> all;
  std::vector<std::span<const uint8_t>> parts;
  EXA_RETURN_IF_ERROR(io::allgather_bytes(
      nf.comm(), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(mine.data()), mine.size() * 8), &all,
      &parts));
  std::vector<uint64_t> every(all.size() / 8);
  if (!every.empty()) std::memcpy(every.data(), all.data(), every.size() * 8);
  std::sort(every.begin(), every.end());
  every.erase(std::unique(every.begin(), every.end()), every.end());
  pages->assign(every.begin(), every.end());
  return Status::ok();
}

// The block of each write of `log` (sorted by position) and the position of
// the block's first variable, from the index (their pages loaded: no I/O).
Status blocks_of_writes(format::partitioned::PagedIndex& index, std::span<const CompactStore::Write> log,
                        std::vector<std::pair<size_t, int64_t>>* where) {
  size_t b = SIZE_MAX;
  int64_t first = 0, end = 0;  // of block b: its first variable, one past its last
  for (const auto& w : log) {
    if (b == SIZE_MAX || w.pos >= end) {
      int64_t first_dim = 0;
      const format::partitioned::BlockEntry* e = nullptr;
      EXA_RETURN_IF_ERROR(index.block_of_var(w.pos, &b));
      EXA_RETURN_IF_ERROR(index.first_ids(b, &first_dim, &first));
      EXA_RETURN_IF_ERROR(index.entry(b, &e));
      end = first + int64_t(e->nvars);
      if (w.pos < first || w.pos >= end) return {NC_EINTERNAL, "a compact variable lies in no block"};
    }
    where->push_back({b, first});
  }
  return Status::ok();
}

// Which rank rewrites each block (INT_MAX: none): the lowest rank that wrote
// into it, so that in the common case (one writer per block) no data crosses
// ranks. Every rank sends only the blocks it touched.
Status block_writers(MPI_Comm comm, size_t nblocks, const std::vector<uint64_t>& touched, std::vector<int>* writer) {
  std::vector<uint8_t> all;
  std::vector<std::span<const uint8_t>> parts;
  EXA_RETURN_IF_ERROR(io::allgather_bytes(
      comm, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(touched.data()), touched.size() * 8), &all,
      &parts));
  writer->assign(nblocks, INT_MAX);
  for (size_t r = 0; r < parts.size(); ++r)
    for (size_t i = 0; i + 8 <= parts[r].size(); i += 8) {
      uint64_t b = 0;
      std::memcpy(&b, parts[r].data() + i, 8);
      if (b >= nblocks) return {NC_EINTERNAL, "a compact write in no block"};
      if ((*writer)[b] == INT_MAX) (*writer)[b] = int(r);  // parts come in rank order
    }
  return Status::ok();
}

}  // namespace

Status CompactStore::commit(NativeFile& nf) {
  int any = log_.empty() ? 0 : 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, nf.comm())));
  if (!any) return Status::ok();
  // This rank's writes (the others' published ones are theirs to commit), by
  // position, a variable's writes in their order.
  std::vector<Write> own;
  own.reserve(log_.size());
  for (const Write& w : log_)
    if (w.own) own.push_back(w);
  const auto by_pos = [](const Write& a, const Write& b) { return a.pos < b.pos; };
  if (!std::is_sorted(own.begin(), own.end(), by_pos)) std::stable_sort(own.begin(), own.end(), by_pos);
  // Only the index pages listing a written variable are loaded (a commit
  // that changes a few blocks reads a few pages), unless every page changes
  // (the whole table is written anew).
  std::vector<size_t> pages;
  EXA_RETURN_IF_ERROR(pages_of_writes(nf, own, &pages));
  EXA_RETURN_IF_ERROR(load_index_pages(nf, pages));
  std::vector<std::pair<size_t, int64_t>> where;  // per write: block, its first variable
  Status st = blocks_of_writes(*nf.index, own, &where);
  std::vector<uint64_t> touched;
  for (const auto& [b, first] : where)
    if (touched.empty() || touched.back() != b) touched.push_back(b);
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  std::vector<int> writer;
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), block_writers(nf.comm(), size_t(nf.index->nblocks()), touched, &writer)));
  std::vector<bool> rewrite;
  if (!io::compact_commit_keeps_pages(*nf.index, writer, &rewrite) && pages.size() < nf.index->npages()) {
    std::vector<size_t> every(nf.index->npages());
    for (size_t k = 0; k < every.size(); ++k) every[k] = k;
    EXA_RETURN_IF_ERROR(load_index_pages(nf, every));
  }
  // A variable whose data is not written yet starts from the fill value:
  // one pattern per variable written, unless one write covers it whole.
  std::deque<std::vector<uint8_t>> fills;  // (a deque: the pieces point into them)
  std::vector<io::CompactPiece> mine;
  mine.reserve(own.size());
  for (size_t k = 0, end = 0; k < own.size(); k = end) {
    const int64_t total = nf.ds.var_bytes(own[k].varid);
    bool whole = false;
    for (end = k; end < own.size() && own[end].pos == own[k].pos; ++end)
      whole = whole || (own[end].offset == 0 && int64_t(own[end].len) == total);
    std::span<const uint8_t> fill;
    if (!whole) fill = fills.emplace_back(nf.ds.fill_value_external(own[k].varid));
    for (size_t i = k; i < end; ++i) {
      const auto [b, first] = where[i];
      mine.push_back({uint64_t(b), uint64_t(own[i].pos - first), uint64_t(own[i].offset), uint64_t(total), fill,
                      std::span<const uint8_t>(arena_).subspan(own[i].at, own[i].len)});
    }
  }
  std::vector<size_t> changed;
  const io::HeldBlockFn held_block = [this](size_t, const format::partitioned::BlockEntry& e) { return held(e); };
  // The index is updated in place: a lazy dataset shares it and reads later
  // blocks from their new versions.
  EXA_RETURN_IF_ERROR(io::commit_compact_pieces(nf.file, mine, writer, &nf.superblock, nf.index.get(), &changed,
                                                  nf.swmr == NativeFile::Swmr::kWrite ? &nf.reusable : nullptr,
                                                  held_.empty() ? io::HeldBlockFn() : held_block));
  held_.clear();  // (the blocks moved; those not rewritten are read from the file when needed)
  log_.clear();
  arena_.clear();
  by_pos_.clear();
  indexed_ = 0;
  return forget_blocks(nf, changed);
}

// What other ranks wrote is in the new blocks: read them again when asked.
Status CompactStore::forget_blocks(NativeFile& nf, const std::vector<size_t>& changed) {
  if (current_.empty() && raw_.empty() && !nf.ds.holds_compact_data()) return Status::ok();
  std::vector<uint8_t> stale;
  for (size_t b : changed) {
    int64_t first_dim = 0, first = 0;
    const format::partitioned::BlockEntry* e = nullptr;
    EXA_RETURN_IF_ERROR(nf.index->first_ids(b, &first_dim, &first));
    EXA_RETURN_IF_ERROR(nf.index->entry(b, &e));
    for (int64_t at = first; at < first + int64_t(e->nvars); ++at) {
      current_.erase(at);
      raw_.erase(at);
      if (nf.ds.lazy()) nf.ds.take_compact_data(nf.ds.var_at_position(at), &stale);
    }
  }
  return Status::ok();
}

Status CompactStore::value(NativeFile& nf, int varid, int64_t pos, std::vector<uint8_t>* out) {
  if (!raw_.count(pos)) EXA_RETURN_IF_ERROR(load(nf, pos));
  *out = raw_[pos];
  const int64_t bytes = nf.ds.var_bytes(varid);
  if (out->empty() && bytes > 0) *out = fill_bytes(nf, varid, bytes);
  return Status::ok();
}

}  // namespace exa::layer
