#include "layer/compact_store.hpp"

#include <algorithm>
#include <cstring>

#include "io/collective.hpp"
#include "io/partitioned_io.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"

namespace exa::layer {

bool CompactStore::is_compact(const NativeFile& nf, int varid) {
  return nf.partitioned && !nf.define_mode && nf.ds.header().vars[size_t(varid)].begin == 0;
}

void CompactStore::reset() {
  first_var_.clear();
  var_pos_.clear();
  current_.clear();
}

int64_t CompactStore::position(const NativeFile& nf, int varid) {
  if (nf.ds.file_order_is_identity()) return varid;
  if (var_pos_.size() != size_t(nf.ds.nvars())) var_pos_ = nf.ds.var_file_positions();
  return var_pos_[size_t(varid)];
}

size_t CompactStore::block_of(const NativeFile& nf, int64_t pos) {
  if (first_var_.size() != nf.index.blocks.size() + 1) {
    first_var_.assign(1, 0);
    for (const auto& e : nf.index.blocks) first_var_.push_back(first_var_.back() + int64_t(e.nvars));
  }
  return size_t(std::upper_bound(first_var_.begin(), first_var_.end(), pos) - first_var_.begin() - 1);
}

// Reads the variable's block and keeps the data of every compact variable
// in it; this rank's writes not yet committed go on top.
Status CompactStore::load(NativeFile& nf, int64_t pos) {
  const size_t b = block_of(nf, pos);
  EXA_RETURN_IF_ERROR(open_indep_handle(nf));
  format::partitioned::Block block;
  EXA_RETURN_IF_ERROR(io::read_block(nf.indep, nf.superblock, nf.index.blocks[b], &block));
  for (size_t k = 0; k < block.vars.size(); ++k) {
    auto& bv = block.vars[k];
    if (!(bv.flags & format::partitioned::kVarCompact)) continue;
    const int64_t at = first_var_[b] + int64_t(k);
    // (In define mode -- a redef copying old data -- the file order is
    // already the new one; the caller checks the size.)
    const int local = nf.ds.file_var_id(int(at));
    if (!nf.define_mode && (!nf.ds.valid_var(local) || format::var_bytes(nf.ds.header(),
                                                                          nf.ds.header().vars[size_t(local)]) !=
                                                                int64_t(bv.data.size())))
      return {NC_EFILEMETA, "compact variable '" + bv.var.name + "' of block '" + block.path +
                                "' holds a data size its dimensions do not give"};
    if (!current_.count(at)) adopt(at, std::move(bv.data));
  }
  if (!current_.count(pos)) return {NC_EFILEMETA, "a compact variable is not compact in its block"};
  return Status::ok();
}

void CompactStore::adopt(int64_t pos, std::vector<uint8_t> data) {
  std::vector<uint8_t>& kept = current_[pos] = std::move(data);
  if (auto d = dirty_.find(pos); d != dirty_.end())
    for (const Piece& p : d->second) std::memcpy(kept.data() + p.offset, p.bytes.data(), p.bytes.size());
}

Status CompactStore::read(NativeFile& nf, int varid, std::span<const io::Segment> segments) {
  const int64_t pos = position(nf, varid);
  std::vector<uint8_t> with_block;  // the data read with the variable's metadata, if still there
  if (!current_.count(pos) && nf.ds.file_order_is_identity() && nf.ds.take_compact_data(varid, &with_block)) {
    const auto& v = nf.ds.header().vars[size_t(varid)];
    if (format::var_bytes(nf.ds.header(), v) != int64_t(with_block.size()))
      return {NC_EFILEMETA, "compact variable '" + v.name + "' holds a data size its dimensions do not give"};
    adopt(pos, std::move(with_block));
  }
  if (!current_.count(pos)) EXA_RETURN_IF_ERROR(load(nf, pos));
  const std::vector<uint8_t>& data = current_[pos];
  for (const io::Segment& s : segments) {
    if (s.offset < 0 || s.length > int64_t(data.size()) - s.offset)
      return {NC_EINTERNAL, "compact read beyond the variable"};
    std::memcpy(s.data, data.data() + s.offset, size_t(s.length));
  }
  return Status::ok();
}

Status CompactStore::write(NativeFile& nf, int varid, std::span<const io::Segment> segments) {
  const int64_t pos = position(nf, varid);
  const auto& v = nf.ds.header().vars[size_t(varid)];
  const int64_t size = format::var_bytes(nf.ds.header(), v);
  auto cached = current_.find(pos);
  std::vector<Piece>& pieces = dirty_[pos];
  for (const io::Segment& s : segments) {
    if (s.offset < 0 || s.length > size - s.offset) return {NC_EINTERNAL, "compact write beyond the variable"};
    pieces.push_back({s.offset, std::vector<uint8_t>(s.data, s.data + s.length)});
    if (cached != current_.end()) std::memcpy(cached->second.data() + s.offset, s.data, size_t(s.length));
  }
  return Status::ok();
}

Status CompactStore::commit(NativeFile& nf) {
  int any = dirty_.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, nf.comm());
  if (!any) return Status::ok();
  std::vector<io::CompactPiece> mine;
  for (auto& [pos, pieces] : dirty_) {
    const size_t b = block_of(nf, pos);
    for (Piece& p : pieces)
      mine.push_back({uint64_t(b), uint64_t(pos - first_var_[b]), uint64_t(p.offset), p.bytes});
  }
  std::vector<size_t> changed;
  EXA_RETURN_IF_ERROR(io::commit_compact_pieces(nf.file, mine, &nf.superblock, &nf.index, &changed));
  dirty_.clear();
  // What other ranks wrote is in the new blocks: read them again when asked.
  if (!changed.empty()) block_of(nf, 0);  // first_var_ for the index (also on ranks that wrote nothing)
  std::vector<uint8_t> stale;
  for (size_t b : changed)
    for (int64_t at = first_var_[b]; at < first_var_[b + 1]; ++at) {
      current_.erase(at);
      if (nf.ds.file_order_is_identity()) nf.ds.take_compact_data(int(at), &stale);
    }
  return Status::ok();
}

Status CompactStore::value(NativeFile& nf, int64_t pos, std::vector<uint8_t>* out) {
  if (!current_.count(pos)) EXA_RETURN_IF_ERROR(load(nf, pos));
  *out = current_[pos];
  return Status::ok();
}

}  // namespace exa::layer
