// The paged index table of an open partitioned file: page lookups by
// binary search over the head's directory, pages decoded on first use.
#include "format/partitioned_index.hpp"

#include <algorithm>

namespace exa::format::partitioned {

PagedIndex::PagedIndex(const Superblock& sb, IndexHead head, uint64_t file_size, PageReader read)
    : sb_(sb), head_(std::move(head)), file_size_(file_size), read_(std::move(read)), placed_(true) {
  pages_.resize(head_.pages.size());
  failed_.resize(head_.pages.size());
}

PagedIndex::PagedIndex(const Superblock& sb, const IndexTable& table) : sb_(sb) {
  head_.nblocks = table.blocks.size();
  head_.sections = table.sections;
  uint64_t first_dim = 0, first_var = 0;
  for (size_t b = 0; b < table.blocks.size(); b += kIndexPageEntries) {
    PageRef r;
    r.nentries = uint32_t(std::min<size_t>(kIndexPageEntries, table.blocks.size() - b));
    r.first_block = b;
    r.first_dim = first_dim;
    r.first_var = first_var;
    r.first_path = table.blocks[b].path;
    for (size_t i = b; i < b + r.nentries; ++i) {
      first_dim += table.blocks[i].ndims;
      first_var += table.blocks[i].nvars;
    }
    head_.pages.push_back(std::move(r));
  }
  pages_.resize(head_.pages.size());
  failed_.resize(head_.pages.size());
  for (size_t k = 0; k < head_.pages.size(); ++k) {
    const auto first = table.blocks.begin() + int64_t(head_.pages[k].first_block);
    adopt(k, std::vector<BlockEntry>(first, first + head_.pages[k].nentries));
  }
}

void PagedIndex::adopt(size_t k, std::vector<BlockEntry> entries) {
  auto page = std::make_unique<Page>();
  page->first_dim.reserve(entries.size() + 1);
  page->first_var.reserve(entries.size() + 1);
  int64_t d = int64_t(head_.pages[k].first_dim), v = int64_t(head_.pages[k].first_var);
  for (const BlockEntry& e : entries) {
    page->first_dim.push_back(d);
    page->first_var.push_back(v);
    d += int64_t(e.ndims);
    v += int64_t(e.nvars);
  }
  page->first_dim.push_back(d);
  page->first_var.push_back(v);
  page->entries = std::move(entries);
  pages_[k] = std::move(page);
  ++loaded_;
}

Status PagedIndex::supply_page(size_t k, std::span<const uint8_t> bytes) {
  if (k >= pages_.size()) return {NC_EINTERNAL, "no such index page to supply"};
  if (pages_[k]) return Status::ok();
  std::vector<BlockEntry> entries;
  Status st = decode_index_page(bytes, sb_, head_, k, file_size_, &entries);
  if (!st.is_ok()) {
    failed_[k] = st;
    return st;
  }
  adopt(k, std::move(entries));
  return Status::ok();
}

Status PagedIndex::load(size_t k) {
  if (pages_[k]) return Status::ok();
  if (!failed_[k].is_ok()) return failed_[k];
  if (!read_) return {NC_EINTERNAL, "index page not loaded"};
  uint64_t offset = 0, size = 0;
  page_extent(k, &offset, &size);
  std::vector<uint8_t> bytes;
  Status st = read_(offset, size, &bytes);
  if (!st.is_ok()) {
    failed_[k] = st;
    return st;
  }
  return supply_page(k, bytes);
}

void PagedIndex::page_extent(size_t k, uint64_t* offset, uint64_t* size) const {
  *offset = page_file_offset(sb_, head_.pages[k]);
  *size = head_.pages[k].size;
}

std::vector<PageRef> PagedIndex::placement() const {
  if (!placed_) return {};
  std::vector<PageRef> out = head_.pages;
  for (PageRef& p : out) p.offset = page_file_offset(sb_, p);
  return out;
}

void PagedIndex::set_placement(const std::vector<PageRef>& placed) {
  if (placed.size() != head_.pages.size()) return;
  for (size_t k = 0; k < placed.size(); ++k) {
    PageRef& p = head_.pages[k];
    p.offset = sb_.kept_pages ? placed[k].offset : placed[k].offset - sb_.index_offset;
    p.size = placed[k].size;
    p.crc = placed[k].crc;
  }
  placed_ = true;
}

bool PagedIndex::pages_keepable() const {
  if (!placed_) return false;
  for (size_t k = 0; k < head_.pages.size(); ++k) {
    const PageRef& p = head_.pages[k];
    if (p.first_block != k * kIndexPageEntries ||
        p.nentries != std::min<uint64_t>(kIndexPageEntries, head_.nblocks - p.first_block))
      return false;
  }
  return true;
}

std::span<const BlockEntry> PagedIndex::page_entries(size_t k) const {
  if (k >= pages_.size() || !pages_[k]) return {};
  return pages_[k]->entries;
}

Status PagedIndex::apply_compact_commit(const Superblock& sb, std::span<const uint64_t> rewritten,
                                        const std::vector<PageRef>& placed) {
  if (placed.size() != head_.pages.size() || rewritten.size() % 4 != 0)
    return {NC_EINTERNAL, "a compact commit of another index"};
  for (size_t i = 0; i < rewritten.size(); i += 4) {
    const uint64_t b = rewritten[i];
    if (b >= head_.nblocks) return {NC_EINTERNAL, "a rewritten block past the index"};
    const size_t k = page_of_block(size_t(b));
    if (!pages_[k]) return {NC_EINTERNAL, "a rewritten block's index page is not loaded"};
    BlockEntry& e = pages_[k]->entries[size_t(b - head_.pages[k].first_block)];
    e.offset = rewritten[i + 1];
    e.size = rewritten[i + 2];
    e.crc = uint32_t(rewritten[i + 3]);
  }
  sb_ = sb;
  file_size_ = std::max(file_size_, sb.file_end);
  set_placement(placed);
  return Status::ok();
}

size_t PagedIndex::page_of_block(size_t b) const {
  auto it = std::upper_bound(head_.pages.begin(), head_.pages.end(), uint64_t(b),
                             [](uint64_t x, const PageRef& p) { return x < p.first_block; });
  return size_t(it - head_.pages.begin()) - 1;
}

size_t PagedIndex::page_of_var(int64_t id) const {
  // The last page whose first variable is at or before id (pages without
  // variables share their first id with the next; the last such one holds it).
  auto it = std::upper_bound(head_.pages.begin(), head_.pages.end(), uint64_t(id),
                             [](uint64_t x, const PageRef& p) { return x < p.first_var; });
  return size_t(it - head_.pages.begin()) - 1;
}

Status PagedIndex::entry(size_t b, const BlockEntry** out) {
  if (b >= head_.nblocks) return {NC_EINVAL, "block index out of range"};
  const size_t k = page_of_block(b);
  EXA_RETURN_IF_ERROR(load(k));
  *out = &pages_[k]->entries[b - head_.pages[k].first_block];
  return Status::ok();
}

Status PagedIndex::first_ids(size_t b, int64_t* first_dim, int64_t* first_var) {
  if (b >= head_.nblocks) return {NC_EINVAL, "block index out of range"};
  const size_t k = page_of_block(b);
  EXA_RETURN_IF_ERROR(load(k));
  const size_t i = b - head_.pages[k].first_block;
  *first_dim = pages_[k]->first_dim[i];
  *first_var = pages_[k]->first_var[i];
  return Status::ok();
}

Status PagedIndex::find(std::string_view path, int64_t* b) {
  *b = -1;
  auto it = std::upper_bound(head_.pages.begin(), head_.pages.end(), path,
                             [](std::string_view p, const PageRef& r) { return p < r.first_path; });
  if (it == head_.pages.begin()) return Status::ok();  // before the first path
  const size_t k = size_t(it - head_.pages.begin()) - 1;
  EXA_RETURN_IF_ERROR(load(k));
  const auto& entries = pages_[k]->entries;
  auto e = std::lower_bound(entries.begin(), entries.end(), path,
                            [](const BlockEntry& x, std::string_view p) { return x.path < p; });
  if (e != entries.end() && e->path == path) *b = int64_t(head_.pages[k].first_block) + (e - entries.begin());
  return Status::ok();
}

namespace {

// The entry holding global id `id` given per-entry first ids (then the end):
// the last entry starting at or before it that is not empty.
size_t holder(const std::vector<int64_t>& first, int64_t id) {
  auto it = std::upper_bound(first.begin(), first.end() - 1, id);
  return size_t(it - first.begin()) - 1;
}

}  // namespace

Status PagedIndex::block_of_dim(int64_t id, size_t* b) {
  if (id < 0 || uint64_t(id) >= sb_.ndims) return {NC_EBADDIM, "dimension id out of range"};
  auto it = std::upper_bound(head_.pages.begin(), head_.pages.end(), uint64_t(id),
                             [](uint64_t x, const PageRef& p) { return x < p.first_dim; });
  const size_t k = size_t(it - head_.pages.begin()) - 1;
  EXA_RETURN_IF_ERROR(load(k));
  *b = head_.pages[k].first_block + holder(pages_[k]->first_dim, id);
  return Status::ok();
}

Status PagedIndex::block_of_var(int64_t id, size_t* b) {
  if (id < 0 || uint64_t(id) >= sb_.nvars) return {NC_ENOTVAR, "variable id out of range"};
  const size_t k = page_of_var(id);
  EXA_RETURN_IF_ERROR(load(k));
  *b = head_.pages[k].first_block + holder(pages_[k]->first_var, id);
  return Status::ok();
}

Status PagedIndex::table(IndexTable* out) {
  IndexTable t;
  t.sections = head_.sections;
  t.blocks.reserve(size_t(head_.nblocks));
  for (size_t k = 0; k < pages_.size(); ++k) {
    EXA_RETURN_IF_ERROR(load(k));
    t.blocks.insert(t.blocks.end(), pages_[k]->entries.begin(), pages_[k]->entries.end());
  }
  *out = std::move(t);
  return Status::ok();
}

}  // namespace exa::format::partitioned
