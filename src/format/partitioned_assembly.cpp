#include "format/partitioned_assembly.hpp"

#include <algorithm>
#include <cstring>

#include "format/xdr.hpp"

namespace exa::format::partitioned {

namespace {

bool add(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

Status too_large() { return {NC_EVARSIZE, "file offsets beyond 2^63"}; }

bool is_compact(const Image& img, int var) { return !img.compact.empty() && img.compact[size_t(var)]; }

// Bytes of a variable's data outside its block (0: compact or a record variable).
// (Each variable's dimensions are looked up once: this runs for every
// variable of the rank, and each lookup is a cache miss or two.)
Status data_bytes(const Header& header, const Image& img, int id, int64_t* out) {
  *out = 0;
  if (is_compact(img, id) || image_var_is_record(header, img, id)) return Status::ok();
  const int64_t bytes = image_var_bytes(header, img, id);
  if (bytes > INT64_MAX - 3) return too_large();
  *out = xdr::round4(bytes);
  return Status::ok();
}

}  // namespace

Status summarize_image(const Header& header, const Image& img, std::vector<BlockSummary>* summaries,
                       std::vector<size_t>* blocks) {
  summaries->clear();
  blocks->clear();
  for (size_t b = 0; b < img.index.blocks.size(); ++b) {
    const BlockEntry& e = img.index.blocks[b];
    if (e.path == "/" && e.ndims == 0 && e.nvars == 0) continue;
    BlockSummary s{e.path, e.ndims, e.nvars, e.path == "/" ? header.gatts.size() : 0,
                   uint64_t(encoded_block_size(header, img, b)), 0};
    int64_t total = 0;
    for (int64_t pos = img.first_var[b]; pos < img.first_var[b + 1]; ++pos) {
      int64_t bytes = 0;
      EXA_RETURN_IF_ERROR(data_bytes(header, img, img.var_order[size_t(pos)], &bytes));
      if (!add(total, bytes, &total)) return too_large();
    }
    s.data_bytes = uint64_t(total);
    summaries->push_back(std::move(s));
    blocks->push_back(b);
  }
  return Status::ok();
}

std::vector<uint8_t> encode_summaries(std::span<const BlockSummary> summaries) {
  std::vector<uint8_t> out;
  for (const BlockSummary& s : summaries) {
    const uint64_t words[6] = {s.path.size(), s.ndims, s.nvars, s.natts, s.size, s.data_bytes};
    const size_t at = out.size();
    out.resize(at + sizeof words + s.path.size());
    std::memcpy(out.data() + at, words, sizeof words);
    std::memcpy(out.data() + at + sizeof words, s.path.data(), s.path.size());
  }
  return out;
}

Status decode_summary_views(std::span<const uint8_t> bytes, std::vector<BlockSummaryView>* out) {
  out->clear();
  size_t at = 0;
  while (at < bytes.size()) {
    uint64_t words[6];
    if (bytes.size() - at < sizeof words) return {NC_EINTERNAL, "a block summary is cut short"};
    std::memcpy(words, bytes.data() + at, sizeof words);
    at += sizeof words;
    if (words[0] > bytes.size() - at) return {NC_EINTERNAL, "a block summary's path is cut short"};
    const std::string_view path(reinterpret_cast<const char*>(bytes.data() + at), size_t(words[0]));
    at += size_t(words[0]);
    out->push_back({path, words[1], words[2], words[3], words[4], words[5]});
  }
  return Status::ok();
}

Status decode_summaries(std::span<const uint8_t> bytes, std::vector<BlockSummary>* out) {
  std::vector<BlockSummaryView> views;
  out->clear();
  EXA_RETURN_IF_ERROR(decode_summary_views(bytes, &views));
  for (const BlockSummaryView& v : views)
    out->push_back({std::string(v.path), v.ndims, v.nvars, v.natts, v.size, v.data_bytes});
  return Status::ok();
}

std::vector<uint8_t> root_block(const std::vector<Attribute>& gatts) {
  Block root;
  root.path = "/";
  root.atts = gatts;
  return encode_block(root);
}

BlockPlacer::BlockPlacer(const std::vector<Attribute>& gatts)
    : root_size_(root_block(gatts).size()), root_natts_(gatts.size()) {}

void BlockPlacer::count(std::string_view path) {
  if (nblocks_ % kIndexPageEntries == 0) first_paths_ += int64_t(path.size());
  paths_ += int64_t(path.size());
  ++nblocks_;
}

void BlockPlacer::start(bool root_is_placed) {
  started_ = true;
  root_by_rank0_ = !root_is_placed;
  if (root_by_rank0_) {  // block 0: the root, global attributes only
    count("/");
    at_ += int64_t(root_size_);
  }
}

Status BlockPlacer::place(const BlockSummary& s, BlockPlacement* p) {
  return place(BlockSummaryView{s.path, s.ndims, s.nvars, s.natts, s.size, s.data_bytes}, p);
}

Status BlockPlacer::place(const BlockSummaryView& s, BlockPlacement* p) {
  if (!started_) start(s.path == "/");
  if (!shared_.empty()) return Status::ok();
  if (nblocks_ > 0 && s.path == previous_) {
    shared_ = s.path;
    return Status::ok();
  }
  previous_ = s.path;
  p->block = nblocks_;
  p->first_dim = ndims_;
  p->first_var = nvars_;
  p->offset = uint64_t(at_);
  p->data = uint64_t(data_);
  if (s.size > uint64_t(INT64_MAX) || !add(at_, int64_t(s.size), &at_) ||
      __builtin_add_overflow(ndims_, s.ndims, &ndims_) || __builtin_add_overflow(nvars_, s.nvars, &nvars_) ||
      s.data_bytes > uint64_t(INT64_MAX) || !add(data_, int64_t(s.data_bytes), &data_))
    return too_large();
  count(s.path);
  return Status::ok();
}

Status BlockPlacer::finish(int64_t align) {
  if (!started_) start(false);
  if (ndims_ > uint64_t(INT32_MAX) || nvars_ > uint64_t(INT32_MAX))
    return {NC_EMAXVARS, "more dimensions or variables than ids can number"};
  align = std::max<int64_t>(4, xdr::round4(align));
  const int64_t npages = int64_t((nblocks_ + kIndexPageEntries - 1) / kIndexPageEntries);
  head_size_ = kIndexHeadFixedSize + kPageRefSize * npages + first_paths_;
  index_offset_ = at_;
  // (at most 2^32 entries of paths each shorter than the file: no overflow before the check below)
  index_size_ = head_size_ + kPageHeaderSize * npages + kIndexEntrySize * int64_t(nblocks_) + paths_;
  int64_t end = 0;
  if (!add(at_, index_size_, &end) || !add(end, align - 1, &data_begin_)) return too_large();
  data_begin_ = data_begin_ / align * align;
  if (!add(data_begin_, data_, &data_end_)) return too_large();
  return Status::ok();
}

Status assemble(std::vector<std::vector<BlockSummary>> per_rank, const std::vector<Attribute>& gatts,
                int64_t align, Assembly* out) {
  Assembly a;
  // A block as (its summary, rank, position in that rank's list).
  struct Ref {
    BlockSummary* s;
    uint32_t rank;
    uint32_t k;
  };
  // Each rank's list is sorted (its image's block order): merge them, with
  // the lists' heads in a heap.
  auto later = [](const Ref& x, const Ref& y) { return x.s->path > y.s->path; };
  auto by_path = [](const BlockSummary& x, const BlockSummary& y) { return x.path < y.path; };
  std::vector<Ref> heads;
  a.placements.resize(per_rank.size());
  for (size_t r = 0; r < per_rank.size(); ++r) {
    if (!std::is_sorted(per_rank[r].begin(), per_rank[r].end(), by_path))
      return {NC_EINTERNAL, "block summaries out of path order"};
    a.placements[r].resize(per_rank[r].size());
    if (!per_rank[r].empty()) heads.push_back({&per_rank[r][0], uint32_t(r), 0});
  }
  std::make_heap(heads.begin(), heads.end(), later);
  BlockPlacer placer(gatts);
  std::vector<Ref> order;  // the blocks in path order
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    const Ref next = heads.back();
    EXA_RETURN_IF_ERROR(placer.place(*next.s, &a.placements[next.rank][next.k]));
    if (!placer.shared_path().empty()) {
      a.shared_path = placer.shared_path();
      a.placements = {};
      *out = std::move(a);
      return Status::ok();
    }
    order.push_back(next);
    auto& list = per_rank[next.rank];
    if (size_t(next.k) + 1 < list.size()) {
      heads.back() = {&list[next.k + 1], next.rank, next.k + 1};
      std::push_heap(heads.begin(), heads.end(), later);
    } else {
      heads.pop_back();
    }
  }
  EXA_RETURN_IF_ERROR(placer.finish(align));
  a.root_by_rank0 = placer.root_by_rank0();
  a.index.blocks.reserve(placer.nblocks());
  if (a.root_by_rank0) {
    BlockEntry root;
    root.path = "/";
    root.natts = uint32_t(placer.root_natts());
    root.offset = uint64_t(kFirstRegion);
    root.size = placer.root_size();
    a.index.blocks.push_back(std::move(root));
  }
  for (const Ref& ref : order) {
    BlockSummary& s = *ref.s;
    BlockPlacement& p = a.placements[ref.rank][ref.k];
    p.data += uint64_t(placer.data_begin());
    BlockEntry e;
    e.path = std::move(s.path);  // (rank 0 holds one summary per block of the file: no second copy)
    e.offset = p.offset;
    e.size = s.size;
    e.natts = uint32_t(s.natts);
    e.ndims = s.ndims;
    e.nvars = s.nvars;
    a.index.blocks.push_back(std::move(e));
  }
  a.ndims = placer.ndims();
  a.nvars = placer.nvars();
  a.index_offset = placer.index_offset();
  a.index_size = placer.index_size();
  a.data_begin = placer.data_begin();
  a.data_end = placer.data_end();
  *out = std::move(a);
  return Status::ok();
}

Status apply_placements(Header& header, Image& img, const std::vector<size_t>& blocks,
                        const std::vector<BlockPlacement>& placements, std::vector<int64_t>* dim_positions,
                        std::vector<int64_t>* var_positions) {
  if (blocks.size() != placements.size()) return {NC_EINTERNAL, "placements do not match the blocks"};
  dim_positions->assign(header.dims.size(), -1);
  var_positions->assign(header.vars.size(), -1);
  for (size_t k = 0; k < blocks.size(); ++k) {
    const size_t b = blocks[k];
    const BlockPlacement& p = placements[k];
    img.index.blocks[b].offset = p.offset;
    for (int64_t pos = img.first_dim[b]; pos < img.first_dim[b + 1]; ++pos) {
      const int id = img.dim_order[size_t(pos)];
      const int64_t g = int64_t(p.first_dim) + (pos - img.first_dim[b]);
      img.dim_pos[size_t(id)] = int(g);
      (*dim_positions)[size_t(id)] = g;
    }
    int64_t cursor = int64_t(p.data);
    for (int64_t pos = img.first_var[b]; pos < img.first_var[b + 1]; ++pos) {
      const int id = img.var_order[size_t(pos)];
      (*var_positions)[size_t(id)] = int64_t(p.first_var) + (pos - img.first_var[b]);
      Variable& v = header.vars[size_t(id)];
      if (image_var_is_record(header, img, id)) return {NC_EINTERNAL, "record variables are not placed from summaries"};
      // Compact or not, vsize is the padded size; only a non-compact one takes data space.
      const int64_t bytes = image_var_bytes(header, img, id);
      if (bytes > INT64_MAX - 3) return too_large();
      v.vsize = xdr::round4(bytes);
      const bool compact = is_compact(img, id);
      v.begin = compact ? 0 : cursor;
      if (!compact && !add(cursor, v.vsize, &cursor)) return too_large();
    }
  }
  for (int64_t g : *dim_positions)
    if (g < 0) return {NC_EINTERNAL, "a dimension was not placed"};
  for (int64_t g : *var_positions)
    if (g < 0) return {NC_EINTERNAL, "a variable was not placed"};
  return Status::ok();
}

}  // namespace exa::format::partitioned
