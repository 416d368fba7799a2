// The index table of an open partitioned file (docs/format.md), loaded a
// page at a time: a reader holds the head (the page directory) from the
// open on, and a page only once something in it is asked for -- a block by
// path, by position, or by the global id of one of its objects. A writer's
// index holds every page. Pure: pages come from a PageReader the io layer
// supplies (or are handed in, read elsewhere).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "format/partitioned.hpp"

namespace exa::format::partitioned {

class PagedIndex {
 public:
  // Reads `size` bytes at absolute file offset `offset`.
  using PageReader = std::function<Status(uint64_t offset, uint64_t size, std::vector<uint8_t>* bytes)>;

  PagedIndex() = default;
  // A reader's index: the decoded head of sb's table; pages on use.
  PagedIndex(const Superblock& sb, IndexHead head, uint64_t file_size, PageReader read);
  // A writer's index: the table just written for sb, every page in memory.
  PagedIndex(const Superblock& sb, const IndexTable& table);

  uint64_t nblocks() const { return head_.nblocks; }
  size_t npages() const { return head_.pages.size(); }
  const Superblock& superblock() const { return sb_; }
  const RecordSections& sections() const { return head_.sections; }

  // Block b's entry (NC_EINVAL past the end); loads its page.
  Status entry(size_t b, const BlockEntry** out);
  // Global ids of block b's first dimension and variable; loads its page.
  Status first_ids(size_t b, int64_t* first_dim, int64_t* first_var);
  // Position of the block with this path, or -1; loads at most one page.
  Status find(std::string_view path, int64_t* b);
  // The block holding a dimension (variable) by global id; loads its page.
  Status block_of_dim(int64_t id, size_t* b);
  Status block_of_var(int64_t id, size_t* b);

  // Pages, without I/O: the page holding block b, or a variable; where a
  // page lies in the file; whether it is loaded.
  size_t page_of_block(size_t b) const;
  size_t page_of_var(int64_t id) const;
  // The global id of page k's first variable (the head's; no I/O).
  uint64_t page_first_var(size_t k) const { return head_.pages[k].first_var; }
  void page_extent(size_t k, uint64_t* offset, uint64_t* size) const;
  bool page_loaded(size_t k) const { return pages_[k] != nullptr; }
  int64_t pages_loaded() const { return loaded_; }
  // Decodes page k read elsewhere (shared by a collective call); a page
  // already loaded is left as it is.
  Status supply_page(size_t k, std::span<const uint8_t> bytes);
  // Page k's entries, decoded elsewhere against this index's head.
  void supply_decoded_page(size_t k, std::vector<BlockEntry> entries) {
    if (!pages_[k]) adopt(k, std::move(entries));
  }
  // Every entry (loads the missing pages): redef, compact commits, tools.
  Status table(IndexTable* out);
  // Where each page of this generation lies (absolute offsets, sizes,
  // CRCs), for a commit that keeps pages; empty when not known (a writer's
  // index made from a table, until set_placement).
  std::vector<PageRef> placement() const;
  // The pages' references as the table was written (absolute offsets).
  void set_placement(const std::vector<PageRef>& placed);
  // Whether the pages are the writer's (kIndexPageEntries entries each, the
  // last fewer) and where they lie is known: a compact commit may keep some.
  bool pages_keepable() const;
  // Page k's entries; empty unless loaded.
  std::span<const BlockEntry> page_entries(size_t k) const;
  // A compact commit, in place: the new superblock `sb`, the blocks it
  // rewrote (block, offset, size, CRC each; their pages loaded), the
  // table's new page references `placed` (absolute). Pages not loaded stay
  // so (they are kept: read on use, where they were).
  Status apply_compact_commit(const Superblock& sb, std::span<const uint64_t> rewritten,
                              const std::vector<PageRef>& placed);

 private:
  struct Page {
    std::vector<BlockEntry> entries;
    std::vector<int64_t> first_dim, first_var;  // per entry, global; then the page's ends
  };
  Status load(size_t k);
  void adopt(size_t k, std::vector<BlockEntry> entries);
  Superblock sb_;
  IndexHead head_;
  uint64_t file_size_ = 0;
  PageReader read_;
  std::vector<std::unique_ptr<Page>> pages_;
  std::vector<Status> failed_;  // per page: why it could not be loaded (a failed page fails again, unread)
  int64_t loaded_ = 0;
  bool placed_ = false;  // head_'s page offsets, sizes and CRCs are the file's
};

}  // namespace exa::format::partitioned
