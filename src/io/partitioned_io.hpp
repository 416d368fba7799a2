// Reading and writing the metadata of partitioned files (docs/format.md)
// through MPI-IO: blocks written by all ranks at once, the index table and
// the superblock by rank 0, in the order that keeps a crash harmless.
#pragma once

#include <functional>
#include <string>
#include <span>

#include "format/partitioned_image.hpp"
#include "format/partitioned_index.hpp"
#include "format/reusable_space.hpp"
#include "io/mpi_file.hpp"

namespace exa::io {

// Collective. Each block of the image (of `header`) not marked reused is
// made and encoded by the rank `writer` names for it (the same vector on every rank) and all are
// written in one collective call on disjoint regions; then rank 0 writes the index table. Nothing
// points at them yet: commit_superblock does, after the caller wrote what
// else the new state needs. Fills sb's index fields; *index receives the
// table as written (with the blocks' CRCs) on every rank.
// `complete`, if given, fills in the data of a block's compact variables on
// its writer before encoding (the image leaves it empty). *placement, if
// given, receives where each page of the table lies (absolute offsets,
// sizes, CRCs: PagedIndex::set_placement), on every rank.
// *written, if given, receives this rank's encoded blocks that hold compact
// variables (file offset, bytes; CompactStore::hold_written), unless they
// add up to more than kHoldWrittenMax bytes: then none.
using CompleteBlockFn = std::function<Status(size_t block, format::partitioned::Block* b)>;
using WrittenRuns = std::vector<std::pair<uint64_t, std::vector<uint8_t>>>;
inline constexpr size_t kHoldWrittenMax = size_t(64) << 20;
Status write_blocks_and_index(MpiFile& file, const format::Header& header,
                              const format::partitioned::Image& image,
                              const std::vector<int>& writer, const CompleteBlockFn& complete,
                              format::partitioned::Superblock* sb,
                              format::partitioned::IndexTable* index,
                              std::vector<format::partitioned::PageRef>* placement = nullptr,
                              WrittenRuns* written = nullptr);

// New bytes for part of a compact variable's data: variable `var` (its
// position within block `block`), `bytes` at `offset` of its data, which is
// `total` bytes long and, if not written yet, starts as copies of `fill`.
// (Views: the caller keeps the bytes.)
struct CompactPiece {
  uint64_t block = 0;
  uint64_t var = 0;
  uint64_t offset = 0;
  uint64_t total = 0;
  std::span<const uint8_t> fill;
  std::span<const uint8_t> bytes;
};

// The encoded bytes of a block (at position `block` of the index) this
// process holds as the file has them (e.g. as it wrote them at enddef), or
// an empty span: a compact commit need not read that block.
using HeldBlockFn = std::function<std::span<const uint8_t>(size_t block, const format::partitioned::BlockEntry&)>;

// Whether a compact commit whose blocks `writer` names (INT_MAX: not
// rewritten; one per block) keeps the pages that list none of them (the
// index's pages are the writer's and where they lie is known, and some page
// lists no rewritten block); *rewrite: per page, whether it changes.
bool compact_commit_keeps_pages(const format::partitioned::PagedIndex& index, const std::vector<int>& writer,
                                std::vector<bool>* rewrite);

// Collective. Commits what the ranks wrote into compact variables: every
// piece goes to the rank that rewrites its block (writer[block], the same
// vector on every rank), which reads the block (blocks close together in
// one read; not those `held` gives), applies the pieces in rank order (then
// in each rank's order: a later write wins) to its encoded bytes
// (format/compact_patch.hpp), and writes it anew past sb->file_end (a rank's blocks
// back to back, one independent write each) or, given `reuse` with a refresh
// bound, into space it says the new generation may write (one segment per
// block); rank 0 writes the new index table after them; then
// commit_superblock. The table: when compact_commit_keeps_pages, only the
// head and the pages holding a rewritten block, the others kept where they
// are (superblock flag 16), encoded from the head's page references and
// those pages alone; else the whole table. The index must hold (loaded, on
// every rank) the pages listing a rewritten block and, unless pages are
// kept, every page: then this makes no read of the index. On success *sb
// and *index (updated in place: pages not loaded stay unloaded) are the
// new state on every rank, *changed lists the rewritten blocks, and the
// old blocks, head and replaced pages are released into `reuse`; on failure
// nothing changed on disk that the current state uses.
Status commit_compact_pieces(MpiFile& file, std::span<const CompactPiece> mine, const std::vector<int>& writer,
                             format::partitioned::Superblock* sb, format::partitioned::PagedIndex* index,
                             std::vector<size_t>* changed, format::ReusableSpace* reuse = nullptr,
                             const HeldBlockFn& held = {});

// Collective. Syncs every rank's writes, makes the file reach sb.file_end
// (synced), then write_superblock: the new state becomes the current one.
// `carried`: this rank's earlier outcome (a failed local sync), agreed with
// the first sync's: any rank's failure stops the commit before the superblock.
Status commit_superblock(MpiFile& file, const format::partitioned::Superblock& sb,
                         const Status& carried = Status::ok());

// Collective. Rank 0 writes the superblock into slot (generation - 1) % 2 and
// syncs (the other slot keeps the previous state). Errors agreed.
Status write_superblock(MpiFile& file, const format::partitioned::Superblock& sb);

// Collective. Whether the file begins with the partitioned magic (rank 0
// reads, broadcasts).
// Rank 0's *slots receives the bytes it read: both superblock slots (or
// what there is of them).
Status probe_partitioned(MpiFile& file, bool* partitioned, std::vector<uint8_t>* slots);
// Rank 0 alone: what probe_partitioned's rank 0 reads and finds.
Status probe_partitioned_on_root(MpiFile& file, bool* partitioned, std::vector<uint8_t>* slots);

// What an open reads of the index table, decoded: the head and page 0
// (which starts with the root block's entry), and the file size then.
struct OpenedIndex {
  format::partitioned::Superblock sb;
  format::partitioned::IndexHead head;
  std::vector<format::partitioned::BlockEntry> page0;
  uint64_t file_size = 0;
  // A newer generation than sb's was found damaged or unusable (its
  // superblock slot, or the metadata it points at) and passed over.
  bool newer_damaged = false;
  std::string newer_problem;  // what was passed over (rank 0 only)
};

// Collective. Rank 0 reads the superblock pair (unless probe_partitioned's
// `slots` hold them), the head of the index table and its first page (one
// read, usually), and the root block (the global attributes), checks them,
// broadcasts them, and every rank decodes them. Other pages and blocks are
// read when used.
Status read_partitioned_root(MpiFile& file, std::vector<uint8_t> slots, OpenedIndex* opened,
                             format::partitioned::Block* root);

// Collective. What read_partitioned_root gives, for a state the ranks just
// wrote, without reading it back: rank 0's `table` (the whole index table
// as written) and `sb`, and the root block's bytes from the rank that wrote
// it (`root_writer`; its `root_block`).
Status share_written_root(MpiFile& file, const format::partitioned::Superblock& sb, std::span<const uint8_t> table,
                          int root_writer, std::span<const uint8_t> root_block, OpenedIndex* opened,
                          format::partitioned::Block* root);

// A region of the file: a page of the index table, a metadata block.
struct Extent {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Collective: regions every rank needs, read once each and shared. `need`
// (the same list on every rank) is read by the ranks in turn -- its k-th
// extent by rank k % nprocs -- and allgathered in rounds of at most
// `round_bytes`; `apply` gets every extent (its position in the list, its
// bytes) on every rank, in list order. A failed read or apply on any rank
// fails the call on every rank.
using ExtentBytesFn = std::function<Status(size_t k, std::span<const uint8_t> bytes)>;
Status share_extents(MpiFile& file, const std::vector<Extent>& need, const ExtentBytesFn& apply,
                     int64_t round_bytes = 64 << 20);

// Independent: reads a region (NC_ETRUNC if it lies past the end of the file).
Status read_extent(MpiFile& file, const Extent& extent, std::vector<uint8_t>* out);

// Independent: reads and decodes one block of the index.
Status read_block(MpiFile& file, const format::partitioned::Superblock& sb,
                  const format::partitioned::BlockEntry& entry, format::partitioned::Block* out);

}  // namespace exa::io
