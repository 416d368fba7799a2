// The partitioned format (docs/format.md), as plain data and pure codecs:
// the superblock (two slots), the index table, and metadata blocks. No MPI,
// no file I/O. Every decoder checks each field before it sizes anything by
// it, and names what is wrong in its Status.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/classic_header.hpp"
#include "format/record_sections.hpp"
#include "util/status.hpp"

namespace exa::format::partitioned {

inline constexpr std::array<uint8_t, 8> kMagic = {0x89, 'E', 'X', 'A', 'C', 'D', 'F', '\n'};
inline constexpr uint32_t kVersion = 1;
// Superblock flag 1: bytes 44-47 and 120-123 hold an SWMR writer's heartbeat
// (high and low halves of microseconds since the Unix epoch).
inline constexpr uint32_t kFlagHeartbeat = 1;
// Superblock flag 2: the records are in sections (format/record_sections.hpp),
// whose table follows the index head's path area. The record offset and
// size describe the current section, which holds the records from the
// table's current_first on.
inline constexpr uint32_t kFlagRecordSections = 2;
// Superblock flag 4: the index table lists index blocks (query indexes,
// index-table entry flag 1). Flag 8 (only with 4): a writer opened the file
// at this generation and has not closed it yet: the index blocks may not
// describe the data (fixed-size data is written in place before any
// commit), so nobody but that writer uses them (docs/format.md "Index blocks").
inline constexpr uint32_t kFlagIndexBlocks = 4;
inline constexpr uint32_t kFlagWriterOpen = 8;
// Superblock flag 16: page references hold absolute file offsets, and a
// page may lie outside the index table (a page an earlier commit wrote and
// this one kept: docs/format.md "Kept pages"). The table (index_offset,
// index_size) is the head and the pages this generation wrote.
inline constexpr uint32_t kFlagKeptPages = 16;
inline constexpr int64_t kSuperblockSize = 128;
inline constexpr std::array<int64_t, 2> kSuperblockSlots = {0, 512};
// Blocks, index tables and data live at or after this offset.
inline constexpr int64_t kFirstRegion = 4096;
// The index table: a head (a directory of pages), then its pages.
inline constexpr int64_t kIndexHeadFixedSize = 32;  // magic, entries, pages, path bytes
inline constexpr int64_t kPageRefSize = 64;         // one page in the directory
inline constexpr int64_t kPageHeaderSize = 24;      // magic, entries, path bytes
inline constexpr int64_t kIndexEntrySize = 64;
// Entries per page a writer puts (the last page may hold fewer); a reader
// takes any count from 1 to kMaxPageEntries.
inline constexpr uint32_t kIndexPageEntries = 512;
inline constexpr uint32_t kMaxPageEntries = 1u << 16;
// Variable flag: the data is stored in the metadata block (compact storage).
// Its data is the variable's whole external bytes, or none: not written yet
// (it reads as the fill value).
inline constexpr uint32_t kVarCompact = 1;

struct Superblock {
  uint64_t generation = 0;  // >= 1; the valid slot with the larger one is current
  uint64_t index_offset = 0;
  uint64_t index_size = 0;       // the whole table: head and pages
  uint64_t index_head_size = 0;  // its head (the page directory)
  uint32_t index_crc = 0;        // CRC-32C of the head
  uint64_t nblocks = 0;
  uint64_t ndims = 0;       // in the whole file
  uint64_t nvars = 0;
  uint64_t numrecs = 0;
  uint64_t record_begin = 0;  // offset of record 0 (0 without record variables)
  uint64_t record_size = 0;   // bytes of one record, all record variables
  uint64_t file_end = 0;      // end of the space in use
  uint64_t record_dim = 0;    // global id of the record dimension + 1; 0: none
  // An SWMR writer's heartbeat (superblock flag 1): microseconds since the
  // Unix epoch when it committed this generation; 0: no flag (no SWMR writer).
  uint64_t heartbeat_us = 0;
  bool record_sections = false;  // flag 2: the index head carries the record sections
  bool index_blocks = false;     // flag 4: the table lists index blocks
  bool writer_open = false;      // flag 8: a writer has the file open (index blocks not trusted)
  bool kept_pages = false;       // flag 16: page offsets are absolute; pages may lie outside the table
  bool operator==(const Superblock&) const = default;
};

std::array<uint8_t, kSuperblockSize> encode_superblock(const Superblock& sb);
// NC_ENOTNC: not this format (magic); NC_EFILEMETA: checksum, version, flags
// or fields that contradict each other; NC_ETRUNC: fewer than 128 bytes.
Status decode_superblock(std::span<const uint8_t> bytes, Superblock* out);
// The current superblock from the two slots' bytes (either may be short or
// invalid): the valid one with the larger generation. *slot receives 0 or 1.
Status pick_superblock(std::span<const uint8_t> slot0, std::span<const uint8_t> slot1,
                       Superblock* out, int* slot);

// Both slots examined: the valid superblocks, newest first, and a slot that
// has the magic but does not decode (a torn write and later damage look
// alike). NC_ENOTNC / NC_EFILEMETA / NC_ETRUNC as pick_superblock when no
// slot is valid.
struct SlotScan {
  std::vector<Superblock> valid;         // newest first; 1 or 2
  bool damaged = false;                  // a slot with the magic failed to decode
  uint64_t damaged_generation = 0;       // its generation field, unchecked
  std::string damage;                    // what is wrong with it
};
Status scan_superblocks(std::span<const uint8_t> slot0, std::span<const uint8_t> slot1, SlotScan* out);

// Index-table entry flag 1: an index block (the query index of one
// variable: docs/format.md "Index blocks"), under a reserved path no netCDF
// name can take (index_block_path), holding no objects (counts 0); never
// decoded as a metadata block. The reserved paths sort after every netCDF
// path, so index blocks come last and never move the metadata blocks.
inline constexpr uint32_t kEntryIndexBlock = 1;
// "/\xFFexaidx/<varid>" (0xFF is never in a UTF-8 name).
std::string index_block_path(uint64_t varid);
// Whether path is a reserved index-block path; *varid its variable.
bool parse_index_block_path(std::string_view path, uint64_t* varid);

// One metadata block as the index table lists it.
struct BlockEntry {
  std::string path;   // "/" or "/a/b": netCDF names joined by '/'
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t crc = 0;   // CRC-32C of the whole block
  uint32_t natts = 0;
  uint64_t ndims = 0;
  uint64_t nvars = 0;
  uint32_t flags = 0;  // kEntryIndexBlock, or 0: a metadata block (last: positional initializers)
  bool operator==(const BlockEntry&) const = default;
};

// Entries sorted by path (bytewise), paths unique. Global ids: dimensions
// and variables are numbered in table order, then in block order.
struct IndexTable {
  std::vector<BlockEntry> blocks;
  RecordSections sections;  // in the head; present only with superblock flag 2
  bool operator==(const IndexTable&) const = default;
};

// One page of the index table as the head's directory lists it.
struct PageRef {
  uint64_t offset = 0;       // from the start of the index table; absolute with flag 16 (page_file_offset)
  uint64_t size = 0;
  uint32_t crc = 0;          // CRC-32C of the whole page
  uint32_t nentries = 0;
  uint64_t first_block = 0;  // position of its first entry in the table
  uint64_t first_dim = 0;    // global id of its first block's first dimension
  uint64_t first_var = 0;
  std::string first_path;    // its first entry's path
  bool operator==(const PageRef&) const = default;
};

// The head of the index table: what a reader needs to find any page.
struct IndexHead {
  uint64_t nblocks = 0;
  std::vector<PageRef> pages;
  RecordSections sections;
  bool operator==(const IndexHead&) const = default;
};

// Where page p of sb's table lies in the file.
uint64_t page_file_offset(const Superblock& sb, const PageRef& p);

// A commit that keeps pages (superblock flag 16): the table it writes at
// `table_at` -- the head, then the pages `rewrite` marks, back to back --
// and, for the others, the references `kept` gives (absolute offsets, as
// placement() of the index they come from). `kept` must page the table as
// the writer does (kIndexPageEntries per page); *placed receives every
// page's reference (absolute), *head_bytes the head's size.
std::vector<uint8_t> encode_index_keeping(const IndexTable& index, uint64_t table_at, const std::vector<PageRef>& kept,
                                          const std::vector<bool>& rewrite, uint64_t* head_bytes,
                                          std::vector<PageRef>* placed);
// Whether `kept` (a placement) pages this table as the writer does, so
// encode_index_keeping can keep its pages.
bool can_keep_pages(const IndexTable& index, const std::vector<PageRef>& kept);
// The size of page k as the writer pages this table (kIndexPageEntries).
int64_t encoded_page_size(const IndexTable& index, size_t k);
// The size of the head encode_index writes for this table.
int64_t encoded_head_size(const IndexTable& index, uint32_t page_entries = kIndexPageEntries);
// encode_index (the writer's paging) of a table to be written at
// `table_at`; *placed receives its pages' references, absolute offsets.
std::vector<uint8_t> encode_index_placed(const IndexTable& index, uint64_t table_at, uint64_t* head_bytes,
                                         std::vector<PageRef>* placed);

// The same table a page at a time (no record sections), for a writer that
// never holds every entry: each page's bytes (its entries, in table order),
// and the head once every page's reference (offset from the table's start,
// size, CRC, count, first block, ids and path) is known. The head followed
// by the pages, packed, is encode_index's table byte for byte.
std::vector<uint8_t> encode_index_page(std::span<const BlockEntry> entries);
std::vector<uint8_t> encode_index_head(uint64_t nblocks, const std::vector<PageRef>& refs);

// encode_index_keeping when only the pages that change are in memory: the
// head of a table of `nblocks` entries whose pages `refs` references
// (placement(): absolute offsets, first paths and ids), then the pages that
// `pages` gives entries for (pages[k] empty: page k kept as refs[k] says),
// back to back at `table_at`. The same bytes as encode_index_keeping of
// the whole table; empty if a page's entries do not match its reference.
std::vector<uint8_t> encode_index_rewriting(uint64_t nblocks, const RecordSections& sections,
                                            const std::vector<PageRef>& refs,
                                            const std::vector<std::span<const BlockEntry>>& pages, uint64_t table_at,
                                            uint64_t* head_bytes, std::vector<PageRef>* placed);
int64_t encoded_index_rewriting_size(const std::vector<PageRef>& refs, const RecordSections& sections,
                                     const std::vector<std::span<const BlockEntry>>& pages);

// The whole index table (head, then pages of `page_entries` entries), and
// its size; *head_size receives the head's.
std::vector<uint8_t> encode_index(const IndexTable& index, uint32_t page_entries = kIndexPageEntries,
                                  uint64_t* head_size = nullptr);
int64_t encoded_index_size(const IndexTable& index, uint32_t page_entries = kIndexPageEntries);
// The head (sb.index_head_size bytes at sb.index_offset): checks its CRC,
// magic, counts and the directory (pages packed in order after the head,
// filling the table; first blocks, ids and paths increasing and within the
// superblock's totals). NC_EFILEMETA or NC_ETRUNC.
Status decode_index_head(std::span<const uint8_t> bytes, const Superblock& sb, uint64_t file_size,
                         IndexHead* out);
// Page k of a decoded head: checks its CRC, magic, count, entries (paths
// valid and sorted, from the directory's first path to below the next
// page's; blocks inside [kFirstRegion, file_size), not overlapping each
// other or the index table, counts the block sizes allow) and that its
// object counts add up to the next page's first ids (the last: to the
// superblock's totals).
Status decode_index_page(std::span<const uint8_t> bytes, const Superblock& sb, const IndexHead& head,
                         size_t k, uint64_t file_size, std::vector<BlockEntry>* out);
// Where page 0 lies (from the table's start) by a head's first page
// reference, and where a page's first block lies, read without checking
// anything else: for rank 0 at an open, before every rank decodes them in
// full. NC_EFILEMETA if the bytes are too short to say.
Status peek_first_page(std::span<const uint8_t> head, uint64_t* offset, uint64_t* size);
Status peek_first_block(std::span<const uint8_t> page, uint64_t* offset, uint64_t* size);
// The whole table: head and every page, and no two blocks (or pages)
// overlap. `bytes` is the table (sb.index_size bytes at sb.index_offset);
// a page outside it (flag 16) comes from `read_page` (absolute offset and
// size), NC_EFILEMETA without one. *pages, if given, receives every page's
// reference with its absolute offset.
using PageFetch = std::function<Status(uint64_t offset, uint64_t size, std::vector<uint8_t>* bytes)>;
Status decode_index(std::span<const uint8_t> bytes, const Superblock& sb, uint64_t file_size,
                    IndexTable* out, const PageFetch& read_page = {}, std::vector<PageRef>* pages = nullptr);
// Position of a block by path, or -1 (binary search).
int64_t find_block(const IndexTable& index, std::string_view path);
// Whether a block path is valid: "/" or '/'-separated valid netCDF names.
bool is_valid_path(std::string_view path);

// A variable of a metadata block: name local to the block, dimids global,
// vsize/begin as in the classic formats (begin 0 when compact).
struct BlockVariable {
  Variable var;
  uint32_t flags = 0;          // kVarCompact
  std::vector<uint8_t> data;   // compact data, external form
  bool operator==(const BlockVariable&) const = default;
};

struct Block {
  std::string path;
  std::vector<Dimension> dims;       // names local to the block
  std::vector<Attribute> atts;       // the root block's are the global attributes
  std::vector<BlockVariable> vars;
  bool operator==(const Block&) const = default;
};

std::vector<uint8_t> encode_block(const Block& block);
// The same, appended to *out (blocks written back to back).
void append_encoded_block(const Block& block, std::vector<uint8_t>* out);
// Encodes one block field by field, appending to *out: the bytes
// append_encoded_block writes, without a Block in between (a new file's
// writer encodes millions of objects straight from its header, and a Block
// would copy every name once more). Calls in order: the constructor (magic,
// path), begin_dims and one dim() each, atts(), begin_vars and per variable
// begin_var, one dimid() per dimension, end_var; then finish() (the CRC).
class BlockEncoder {
 public:
  BlockEncoder(std::vector<uint8_t>* out, std::string_view path);
  void begin_dims(uint64_t n);
  void dim(std::string_view name, int64_t length);
  void atts(const std::vector<Attribute>& atts);
  void begin_vars(uint64_t n);
  void begin_var(std::string_view name, uint64_t ndims);
  void dimid(uint64_t id);
  // Compact data (flags kVarCompact) is written as given: its whole bytes, or none yet.
  void end_var(const std::vector<Attribute>& atts, nc_type type, int64_t vsize, int64_t begin, uint32_t flags,
               std::span<const uint8_t> data);
  void finish();

 private:
  std::vector<uint8_t>& out_;
  size_t start_;
};

// Checks magic, CRC, that path and counts match the index entry, names,
// types, dimension ids below total_dims, and sizes. NC_EFILEMETA.
Status decode_block(std::span<const uint8_t> bytes, const BlockEntry& entry, uint64_t total_dims,
                    Block* out);

}  // namespace exa::format::partitioned
