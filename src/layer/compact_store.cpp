#include "layer/compact_store.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>

#include "io/collective.hpp"
#include "io/mpi_errors.hpp"
#include "io/partitioned_io.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"

namespace exa::layer {

bool CompactStore::is_compact(const NativeFile& nf, int varid) {
  return nf.partitioned && !nf.define_mode && nf.ds.var(varid).begin == 0;
}

void CompactStore::reset() {
  var_pos_.clear();
  raw_.clear();
  current_.clear();
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
  if (auto d = dirty_.find(pos); d != dirty_.end())
    for (const Piece& p : d->second) std::memcpy(data.data() + p.offset, p.bytes.data(), p.bytes.size());
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

Status CompactStore::write(NativeFile& nf, int varid, std::span<const io::Segment> segments) {
  const int64_t pos = position(nf, varid);
  const int64_t size = nf.ds.var_bytes(varid);
  auto cached = current_.find(pos);
  std::vector<Piece>& pieces = dirty_[pos];
  if (pieces.empty()) dirty_var_[pos] = varid;
  for (const io::Segment& s : segments) {
    if (s.offset < 0 || s.length > size - s.offset) return {NC_EINTERNAL, "compact write beyond the variable"};
    pieces.push_back({s.offset, std::vector<uint8_t>(s.data, s.data + s.length)});
    if (cached != current_.end()) std::memcpy(cached->second.data() + s.offset, s.data, size_t(s.length));
  }
  return Status::ok();
}

Status CompactStore::commit(NativeFile& nf) {
  int any = dirty_.empty() ? 0 : 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, nf.comm())));
  if (!any) return Status::ok();
  // The whole index table: the commit writes it anew. (Every page a dirty
  // variable's block is in was loaded when the variable was looked up.)
  format::partitioned::IndexTable table;
  EXA_RETURN_IF_ERROR(load_whole_index(nf, &table));
  // Each changed block is rewritten by the lowest rank that wrote into it:
  // in the common case (one writer per block) no data crosses ranks.
  std::vector<int> writer(table.blocks.size(), INT_MAX);
  std::map<int64_t, std::pair<size_t, int64_t>> where;  // position -> block, its first variable
  Status st;
  for (const auto& [pos, pieces] : dirty_) {
    auto& [b, first] = where[pos];
    if (st.is_ok()) st = block_of(nf, pos, &b, &first);
    if (st.is_ok()) writer[b] = nf.file.rank();
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(EXA_MPI(
      MPI_Allreduce(MPI_IN_PLACE, writer.data(), int(writer.size()), MPI_INT, MPI_MIN, nf.comm())));
  std::vector<io::CompactPiece> mine;
  for (auto& [pos, pieces] : dirty_) {
    const auto [b, first] = where[pos];
    const int varid = dirty_var_[pos];
    const int64_t bytes = nf.ds.var_bytes(varid);
    // A block whose data is not written yet starts from the fill value.
    const std::vector<uint8_t> fill = nf.ds.fill_value_external(varid);
    for (Piece& p : pieces)
      mine.push_back({uint64_t(b), uint64_t(pos - first), uint64_t(p.offset), uint64_t(bytes), fill, p.bytes});
  }
  std::vector<size_t> changed;
  EXA_RETURN_IF_ERROR(io::commit_compact_pieces(nf.file, mine, writer, &nf.superblock, &table, &changed,
                                                  nf.swmr == NativeFile::Swmr::kWrite ? &nf.reusable : nullptr));
  // In place: a lazy dataset shares the index and reads later blocks from
  // their new versions.
  *nf.index = format::partitioned::PagedIndex(nf.superblock, table);
  dirty_.clear();
  dirty_var_.clear();
  // What other ranks wrote is in the new blocks: read them again when asked.
  std::vector<uint8_t> stale;
  for (size_t b : changed) {
    int64_t first_dim = 0, first = 0;
    EXA_RETURN_IF_ERROR(nf.index->first_ids(b, &first_dim, &first));
    for (int64_t at = first; at < first + int64_t(table.blocks[b].nvars); ++at) {
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
