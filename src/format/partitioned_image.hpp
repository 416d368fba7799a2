// A whole file's metadata in the partitioned format (docs/format.md), from
// the classic-style Header the rest of the library uses: objects are grouped
// into blocks by the path of their full name, ordered, placed and laid out.
// (Reading is lazy, block by block: model::Dataset::open_lazily.) Pure: the
// io layer writes the bytes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "format/layout.hpp"
#include "format/partitioned.hpp"

namespace exa::format::partitioned {

// "/a/b/x" -> ("/a/b", "x"); "x" and "/x" -> ("/", "x").
void split_name(std::string_view full, std::string_view* path, std::string_view* local);
// Whether a full object name is valid: a name (of the root block), or a
// path of at least one group and a name ("/a/b/x"). The one rule for object
// names of partitioned files: "/x", "//x", "/a//x", "/a/" are not valid.
bool is_valid_full_name(std::string_view full);
// The full name of an object of a block ("x" for the root block's "x").
std::string full_name(std::string_view path, std::string_view local);

// The plan of a file's metadata: which objects form which block, in what
// order, and where everything goes. Blocks themselves are made on demand
// (make_block), by the rank that writes them.
struct Image {
  std::vector<int> dim_order;  // file position -> index into Header::dims
  std::vector<int> var_order;  // file position -> index into Header::vars
  std::vector<int> dim_pos;    // index into Header::dims -> file position
  std::vector<int64_t> first_dim, first_var;  // per block: first file position; then the totals
  // Per Header::vars index (empty: none): kNotCompact, kCompactPending (no
  // data in the block yet: reads as the fill value) or kCompactFull.
  std::vector<uint8_t> compact;
  IndexTable index;            // blocks in path order: offsets, sizes, counts (CRCs: the writer's)
  int64_t index_offset = 0;
  int64_t index_size = 0;
  int64_t data_begin = 0;      // first byte of variable data
  // Per block: 1 if it stays where it is on disk (a redef left it unchanged;
  // its entry is the one on disk). Empty: every block is new.
  std::vector<uint8_t> reused;
  // What plan_image found once per object, for the passes after it (block
  // sizes, summaries, placements, encoding), which would otherwise split
  // every name and look up every variable's dimensions again (each a cache
  // miss or two, millions of times at dataset_1G): per Header::dims /
  // Header::vars index the length of the local name (the part after the
  // last '/', at most NC_MAX_NAME), per Header::vars index whether it is a
  // record variable and its bytes (format::var_bytes). Valid while the
  // header's names and dimension lengths stay those plan_image was given.
  std::vector<uint16_t> dim_local, var_local;
  std::vector<uint8_t> var_record;
  std::vector<int64_t> var_size;
};

// The order of a header's objects in the file before they are grouped into
// blocks (file position -> header index, as Dataset::full_dim_order gives):
// within a block, objects keep this order. Empty: header order. Every rank
// must plan with the same order: after an independent-define merge each
// rank's header holds its own objects first, in its own ids.
struct ObjectOrder {
  std::vector<int> dims;
  std::vector<int> vars;
};

// Groups the header's dimensions and variables (full names) into blocks, the
// global attributes into the root block "/", and orders everything: blocks
// by path, objects of a block by `order` (default: their index in the
// header). NC_EBADNAME for
// a name that is not a valid full name. Variables whose entry in `compact`
// (by header index) is not kNotCompact are compact: their data goes into the
// block (begin 0, vsize set); kCompactFull ones carry all of it (make_block
// leaves it empty for the writer to fill), kCompactPending ones none yet.
Status plan_image(const Header& header, Image* out, const std::vector<uint8_t>* compact = nullptr,
                  const ObjectOrder& order = {});

inline constexpr uint8_t kNotCompact = 0, kCompactPending = 1, kCompactFull = 2;

// Places the blocks from kFirstRegion on, then the index table; variable
// data begins at the next multiple of `align` (>= 4). Lays the variables out
// -- fixed-size ones in file order (compact ones: begin 0, no region), then
// the record section -- setting begin and vsize in `header`. Fills *layout (header_size
// = end of the metadata, header_extent = begin_rec or first data byte).
Status place_image(Header& header, Image& image, int64_t align, Layout* layout);

// What a later define phase (redef) keeps of the state on disk.
struct OnDisk {
  const Header* header = nullptr;     // when redef began, in the same (local) ids
  const IndexTable* index = nullptr;  // the current index table
  int64_t end = 0;                    // end of the space in use (superblock file_end)
  // The records: how many, the current section (superblock record offset
  // and size) and the closed ones. With split_records (or sections already
  // there) a redef that has records keeps them where they are: the record
  // variables keep their bytes within a record, new ones follow them, the
  // new variables' bytes of the records written so far get a section of
  // their own, and the records from numrecs on a new current section.
  int64_t numrecs = 0;
  int64_t record_begin = 0;
  int64_t record_size = 0;
  RecordSections sections{};
  bool split_records = false;
  // >= 0: the blocks written anew and the index table go there, back to back
  // (space the caller found free; the data still goes past `end`).
  int64_t metadata_at = -1;
};

// The image of a redef: plans `header` (whose first variables are the old
// ones, by id) and places it without overwriting anything the current state
// uses. Fixed-size variables that existed stay where they are; a block that
// equals its old self and holds no record variable stays too (reused);
// every other block, the index table, new fixed-size data and the whole
// record section go past old.end (or, with record sections, the section of
// the new variables' old records and the new current section; layout->sections). *unchanged: nothing differs from the disk
// (the image is the current one; nothing needs writing; *layout untouched).
// `compact` and `order` as for plan_image (the variables compact on disk,
// offset 0 in old.header, must stay compact; old.header is planned in the
// same order, without the new objects).
Status plan_redef_image(Header& header, const OnDisk& old, const std::vector<uint8_t>* compact, int64_t align,
                        Image* out, Layout* layout, bool* unchanged, const ObjectOrder& order = {});

// Block b of a planned image, as it is encoded (a compact variable's data
// left empty for the writer to fill), and every block.
Block make_block(const Header& header, const Image& image, size_t b);
std::vector<Block> make_blocks(const Header& header, const Image& image);

// make_block(header, image, b) encoded and appended to *out, without
// making the Block: the same bytes as append_encoded_block of it.
void append_image_block(const Header& header, const Image& image, size_t b, std::vector<uint8_t>* out);
// Whether block b holds a compact variable.
bool image_block_has_compact(const Image& image, size_t b);

// A variable's bytes (format::var_bytes) and whether it is a record
// variable, from the image's per-variable record when it has one (as
// plan_image makes it), else from the header.
int64_t image_var_bytes(const Header& header, const Image& image, int var);
bool image_var_is_record(const Header& header, const Image& image, int var);

// Exact size of encode_block(make_block(header, image, b)) once compact
// data is filled in.
int64_t encoded_block_size(const Header& header, const Image& image, size_t b);

}  // namespace exa::format::partitioned
