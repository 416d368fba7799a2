// Codecs of the partitioned format: superblock, index table, metadata
// blocks (docs/format.md). Big-endian throughout, like the classic formats.
#include "format/partitioned.hpp"

#include <algorithm>
#include <cstring>

#include "format/classic_header_internal.hpp"
#include "format/nc_name.hpp"
#include "format/xdr.hpp"
#include "util/crc32c.hpp"

namespace exa::format::partitioned {

namespace {

constexpr std::string_view kIndexMagic = "EXAPINDX";
constexpr std::string_view kPageMagic = "EXAPPAGE";
constexpr std::string_view kBlockMagic = "EXAPBLK1";
// Smallest encodings, for bounding counts by the bytes that could hold them.
constexpr int64_t kMinName = 8 + 4;                       // length + one padded byte
constexpr int64_t kMinDim = kMinName + 8;
constexpr int64_t kMinAtt = kMinName + 4 + 8;
constexpr int64_t kMinVar = kMinName + 8 + (4 + 8) + 4 + 8 + 8 + 4;
constexpr int64_t kMinBlock = 8 + kMinName + 3 * (4 + 8) + 4;

Status corrupt(const std::string& what) { return {NC_EFILEMETA, what}; }

uint32_t crc_of(std::span<const uint8_t> bytes) { return crc32c(bytes.data(), bytes.size()); }

uint32_t be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

void put_name(xdr::Writer& w, std::string_view name) {
  w.u64(name.size());
  w.bytes(name);
  w.pad(int64_t(name.size()));
}

void put_atts(xdr::Writer& w, const std::vector<Attribute>& atts) {
  w.u32(kTagAttribute);
  w.u64(atts.size());
  for (const Attribute& a : atts) {
    put_name(w, a.name);
    w.u32(uint32_t(a.type));
    w.u64(uint64_t(a.nelems));
    w.bytes(a.xvalues);
    w.pad(int64_t(a.xvalues.size()));
  }
}

// Reads the fields of a block with bounds checks; every failure is
// NC_EFILEMETA naming the field.
class BlockReader {
 public:
  explicit BlockReader(std::span<const uint8_t> bytes) : r_(bytes) {}
  int64_t remaining() const { return r_.remaining(); }

  Status u32(uint32_t* v, const char* what) {
    return r_.u32(v) ? Status::ok() : corrupt(std::string("block ends inside ") + what);
  }
  Status u64(uint64_t* v, const char* what) {
    return r_.u64(v) ? Status::ok() : corrupt(std::string("block ends inside ") + what);
  }
  Status name(std::string* out, const char* what, bool path = false) {
    uint64_t n = 0;
    EXA_RETURN_IF_ERROR(u64(&n, what));
    const uint64_t limit = path ? uint64_t(4096) : uint64_t(NC_MAX_NAME);
    if (n > limit) return corrupt(std::string(what) + " too long");
    std::span<const uint8_t> bytes;
    if (!r_.view(int64_t(n), &bytes) || !r_.skip_pad(int64_t(n)))
      return corrupt(std::string("block ends inside ") + what);
    out->assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (path ? !is_valid_path(*out) : !is_valid_name(*out))
      return corrupt(std::string("invalid ") + what + " '" + *out + "'");
    return Status::ok();
  }
  // A list head: the tag, then a count no larger than the bytes left could hold.
  Status list(uint32_t tag, int64_t min_item, const char* what, uint64_t* count) {
    uint32_t got = 0;
    EXA_RETURN_IF_ERROR(u32(&got, what));
    if (got != tag) return corrupt(std::string("bad tag of the ") + what + " list");
    EXA_RETURN_IF_ERROR(u64(count, what));
    if (*count > uint64_t(remaining() / min_item)) return corrupt(std::string("absurd number of ") + what);
    return Status::ok();
  }
  Status type(nc_type* out, const char* what) {
    uint32_t t = 0;
    EXA_RETURN_IF_ERROR(u32(&t, what));
    if (t < uint32_t(NC_BYTE) || t > uint32_t(NC_UINT64)) return corrupt(std::string("bad type of ") + what);
    *out = nc_type(t);
    return Status::ok();
  }
  Status bytes(uint64_t n, std::vector<uint8_t>* out, const char* what) {
    std::span<const uint8_t> b;
    if (n > uint64_t(remaining()) || !r_.view(int64_t(n), &b) || !r_.skip_pad(int64_t(n)))
      return corrupt(std::string("block ends inside ") + what);
    out->assign(b.begin(), b.end());
    return Status::ok();
  }
  Status atts(std::vector<Attribute>* out) {
    uint64_t n = 0;
    EXA_RETURN_IF_ERROR(list(kTagAttribute, kMinAtt, "attributes", &n));
    out->resize(size_t(n));
    for (Attribute& a : *out) {
      EXA_RETURN_IF_ERROR(name(&a.name, "attribute name"));
      EXA_RETURN_IF_ERROR(type(&a.type, "attribute"));
      uint64_t nelems = 0;
      EXA_RETURN_IF_ERROR(u64(&nelems, "attribute length"));
      const uint64_t width = uint64_t(external_size(a.type));
      if (nelems > uint64_t(remaining()) / width) return corrupt("attribute '" + a.name + "' longer than its block");
      a.nelems = int64_t(nelems);
      EXA_RETURN_IF_ERROR(bytes(nelems * width, &a.xvalues, "attribute values"));
    }
    return unique(*out, "attribute");
  }
  template <typename T>
  static Status unique(const std::vector<T>& items, const char* what) {
    std::vector<std::string_view> names;
    names.reserve(items.size());
    for (const T& item : items) names.push_back(name_of(item));
    std::sort(names.begin(), names.end());
    if (std::adjacent_find(names.begin(), names.end()) != names.end())
      return corrupt(std::string("two of a block's ") + what + "s have one name");
    return Status::ok();
  }

 private:
  static std::string_view name_of(const Attribute& a) { return a.name; }
  static std::string_view name_of(const Dimension& d) { return d.name; }
  static std::string_view name_of(const BlockVariable& v) { return v.var.name; }
  xdr::Reader r_;
};

}  // namespace

// --- superblock ---------------------------------------------------------------------------

std::array<uint8_t, kSuperblockSize> encode_superblock(const Superblock& sb) {
  std::vector<uint8_t> out;
  out.reserve(kSuperblockSize);
  xdr::Writer w(out);
  w.bytes(std::span<const uint8_t>(kMagic));
  w.u32(kVersion);
  w.u32((sb.heartbeat_us != 0 ? kFlagHeartbeat : 0) | (sb.record_sections ? kFlagRecordSections : 0) |
        (sb.index_blocks ? kFlagIndexBlocks : 0) | (sb.index_blocks && sb.writer_open ? kFlagWriterOpen : 0) |
        (sb.kept_pages ? kFlagKeptPages : 0));  // flags
  for (uint64_t v : {sb.generation, sb.index_offset, sb.index_size}) w.u64(v);
  w.u32(sb.index_crc);
  w.u32(uint32_t(sb.heartbeat_us >> 32));  // reserved without the heartbeat flag
  for (uint64_t v : {sb.nblocks, sb.ndims, sb.nvars, sb.numrecs, sb.record_begin, sb.record_size,
                     sb.file_end, sb.record_dim, sb.index_head_size})
    w.u64(v);
  w.u32(uint32_t(sb.heartbeat_us));  // likewise
  out.resize(kSuperblockSize - 4, 0);
  w.u32(crc_of(out));
  std::array<uint8_t, kSuperblockSize> bytes{};
  std::copy(out.begin(), out.end(), bytes.begin());
  return bytes;
}

Status decode_superblock(std::span<const uint8_t> bytes, Superblock* out) {
  if (bytes.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    return {NC_ENOTNC, "not an exacdf partitioned file (magic)"};
  if (bytes.size() < size_t(kSuperblockSize)) return {NC_ETRUNC, "superblock truncated"};
  bytes = bytes.first(size_t(kSuperblockSize));
  if (be32(bytes.data() + kSuperblockSize - 4) != crc_of(bytes.first(kSuperblockSize - 4)))
    return corrupt("superblock checksum mismatch");
  xdr::Reader r(bytes.subspan(kMagic.size()));
  uint32_t version = 0, flags = 0, reserved = 0, reserved2 = 0;
  Superblock sb;
  r.u32(&version);
  r.u32(&flags);
  r.u64(&sb.generation);
  r.u64(&sb.index_offset);
  r.u64(&sb.index_size);
  r.u32(&sb.index_crc);
  r.u32(&reserved);
  for (uint64_t* v : {&sb.nblocks, &sb.ndims, &sb.nvars, &sb.numrecs, &sb.record_begin,
                      &sb.record_size, &sb.file_end, &sb.record_dim, &sb.index_head_size})
    r.u64(v);
  r.u32(&reserved2);
  if (version != kVersion) return corrupt("unsupported partitioned format version " + std::to_string(version));
  if ((flags & ~(kFlagHeartbeat | kFlagRecordSections | kFlagIndexBlocks | kFlagWriterOpen | kFlagKeptPages)) != 0)
    return corrupt("unknown superblock flags set");
  if ((flags & kFlagWriterOpen) && !(flags & kFlagIndexBlocks))
    return corrupt("superblock writer-open flag without index blocks");
  sb.record_sections = (flags & kFlagRecordSections) != 0;
  sb.index_blocks = (flags & kFlagIndexBlocks) != 0;
  sb.writer_open = (flags & kFlagWriterOpen) != 0;
  sb.kept_pages = (flags & kFlagKeptPages) != 0;
  // Bytes 44 and 120: the heartbeat with flag 1, else reserved (zero).
  if (flags & kFlagHeartbeat) {
    sb.heartbeat_us = (uint64_t(reserved) << 32) | reserved2;
    if (sb.heartbeat_us == 0) return corrupt("superblock heartbeat flag with a zero heartbeat");
  } else if (reserved != 0 || reserved2 != 0) {
    return corrupt("superblock reserved bytes set");
  }
  if (sb.generation == 0) return corrupt("superblock generation 0");
  const uint64_t max = uint64_t(INT64_MAX);
  if (sb.file_end > max || sb.file_end < uint64_t(kFirstRegion)) return corrupt("bad end of file in superblock");
  if (sb.index_offset < uint64_t(kFirstRegion) || sb.index_size < uint64_t(kIndexHeadFixedSize) ||
      sb.index_size > sb.file_end || sb.index_offset > sb.file_end - sb.index_size)
    return corrupt("index table outside the file");
  if (sb.index_head_size < uint64_t(kIndexHeadFixedSize) || sb.index_head_size > sb.index_size)
    return corrupt("index table head larger than the table");
  // Without flag 16 every entry is inside the table; with it, the head's
  // directory bounds the pages and each page holds at most kMaxPageEntries.
  const uint64_t head_pages = std::min(sb.index_head_size / kPageRefSize, uint64_t(1) << 40);  // (no overflow below)
  const uint64_t entry_room = sb.kept_pages ? head_pages * kMaxPageEntries : sb.index_size / kIndexEntrySize;
  if (sb.nblocks > entry_room) return corrupt("more blocks than the index table holds");
  if (sb.numrecs > max || sb.record_size > max || sb.record_begin > sb.file_end)
    return corrupt("bad record section in superblock");
  if (sb.record_size > 0 && sb.numrecs > (max - sb.record_begin) / sb.record_size)
    return corrupt("record section beyond 2^63 bytes");
  // With record sections, the current section holds the records from the
  // index head's current_first on: decode_index_head checks its end.
  if (!sb.record_sections && sb.record_begin + sb.numrecs * sb.record_size > sb.file_end)
    return corrupt("numrecs puts the record section beyond the end of the space in use");
  if (sb.ndims > uint64_t(INT32_MAX) || sb.nvars > uint64_t(INT32_MAX))
    return corrupt("more than 2^31 dimensions or variables");
  if (sb.record_dim > sb.ndims) return corrupt("record dimension beyond the dimensions");
  *out = sb;
  return Status::ok();
}

Status pick_superblock(std::span<const uint8_t> slot0, std::span<const uint8_t> slot1,
                       Superblock* out, int* slot) {
  Superblock a, b;
  Status sa = decode_superblock(slot0, &a), sb = decode_superblock(slot1, &b);
  if (sa.is_ok() && (!sb.is_ok() || a.generation >= b.generation)) {
    *out = a;
    *slot = 0;
    return Status::ok();
  }
  if (sb.is_ok()) {
    *out = b;
    *slot = 1;
    return Status::ok();
  }
  // Neither is valid: name the damage of a slot that has the magic, if any.
  return sa.code() != NC_ENOTNC ? sa : sb;
}

Status scan_superblocks(std::span<const uint8_t> slot0, std::span<const uint8_t> slot1, SlotScan* out) {
  SlotScan scan;
  Status first_damage;
  for (std::span<const uint8_t> bytes : {slot0, slot1}) {
    Superblock sb;
    Status st = decode_superblock(bytes, &sb);
    if (st.is_ok()) {
      scan.valid.push_back(sb);
      continue;
    }
    if (st.code() == NC_ENOTNC) continue;  // never written (or not this format)
    if (!scan.damaged) first_damage = st;
    scan.damaged = true;
    scan.damage = st.message();
    // The generation field (after magic, version and flags), unchecked.
    if (bytes.size() >= 24) scan.damaged_generation = uint64_t(be32(bytes.data() + 16)) << 32 | be32(bytes.data() + 20);
  }
  if (scan.valid.size() == 2 && scan.valid[1].generation > scan.valid[0].generation)
    std::swap(scan.valid[0], scan.valid[1]);
  if (scan.valid.empty()) {
    // Neither is valid: name the damage of a slot that has the magic, if any.
    if (scan.damaged) return first_damage;
    return {NC_ENOTNC, "not an exacdf partitioned file (magic)"};
  }
  *out = std::move(scan);
  return Status::ok();
}

// --- index table --------------------------------------------------------------------------

bool is_valid_path(std::string_view path) {
  if (path == "/") return true;
  if (path.size() < 2 || path.front() != '/' || path.size() > 4096) return false;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (!is_valid_name(path.substr(start, end - start))) return false;
    start = end + 1;
  }
  return path.back() != '/';
}

namespace {
constexpr std::string_view kIndexBlockPrefix = "/\xFF" "exaidx/";
}  // namespace

std::string index_block_path(uint64_t varid) { return std::string(kIndexBlockPrefix) + std::to_string(varid); }

bool parse_index_block_path(std::string_view path, uint64_t* varid) {
  if (path.substr(0, kIndexBlockPrefix.size()) != kIndexBlockPrefix) return false;
  const std::string_view digits = path.substr(kIndexBlockPrefix.size());
  if (digits.empty() || digits.size() > 10 || (digits.size() > 1 && digits[0] == '0')) return false;
  uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint64_t(c - '0');
  }
  if (v > uint64_t(INT32_MAX)) return false;
  *varid = v;
  return true;
}

namespace {

// An entry's path as its flags want it: a netCDF path, or a reserved index-block path.
bool entry_path_ok(std::string_view path, uint32_t flags) {
  uint64_t varid = 0;
  return flags == kEntryIndexBlock ? parse_index_block_path(path, &varid) : is_valid_path(path);
}

// Entries [first, first + count) of the table, the path area after them.
void put_page(xdr::Writer& w, std::span<const BlockEntry> entries) {
  uint64_t paths = 0;
  for (const BlockEntry& e : entries) paths += e.path.size();
  w.bytes(kPageMagic);
  w.u64(entries.size());
  w.u64(paths);
  uint64_t at = 0;
  for (const BlockEntry& e : entries) {
    w.u64(at);
    w.u32(uint32_t(e.path.size()));
    w.u32(e.flags);
    w.u64(e.offset);
    w.u64(e.size);
    w.u32(e.crc);
    w.u32(e.natts);
    w.u64(e.ndims);
    w.u64(e.nvars);
    w.u64(0);  // reserved
    at += e.path.size();
  }
  for (const BlockEntry& e : entries) w.bytes(e.path);
}

size_t page_count(size_t nblocks, uint32_t page_entries) {
  return (nblocks + page_entries - 1) / page_entries;
}

int64_t head_size(const IndexTable& index, uint32_t page_entries) {
  int64_t n = kIndexHeadFixedSize;
  for (size_t b = 0; b < index.blocks.size(); b += page_entries)
    n += kPageRefSize + int64_t(index.blocks[b].path.size());
  if (index.sections.present)
    n += kRecordSectionsFixedSize + kRecordSectionSize * int64_t(index.sections.closed.size());
  return n;
}

// The record sections after the head's path area (superblock flag 2).
void put_sections(xdr::Writer& w, const RecordSections& rs) {
  w.u64(rs.current_first);
  w.u64(rs.closed.size());
  for (const RecordSection& s : rs.closed)
    for (uint64_t v : {s.first, s.count, s.offset, s.lo, s.hi}) w.u64(v);
}

// Each closed section inside the space in use and below current_first, and
// the current section's records inside the space in use: what record_pieces
// and the data path rely on not to overflow.
Status check_sections(const RecordSections& rs, const Superblock& sb) {
  const uint64_t max = uint64_t(INT64_MAX);
  if (rs.current_first > sb.numrecs) return corrupt("record sections start the current section past numrecs");
  const uint64_t current = sb.numrecs - rs.current_first;
  if (sb.record_size > 0 && current > (max - sb.record_begin) / sb.record_size)
    return corrupt("record section beyond 2^63 bytes");
  if (sb.record_begin + current * sb.record_size > sb.file_end)
    return corrupt("numrecs puts the record section beyond the end of the space in use");
  for (const RecordSection& s : rs.closed) {
    if (s.count == 0 || s.lo >= s.hi || s.hi > max || s.first > rs.current_first ||
        s.count > rs.current_first - s.first)
      return corrupt("bad record section (records or bytes)");
    const uint64_t width = s.hi - s.lo;
    if (s.offset < uint64_t(kFirstRegion) || s.offset > sb.file_end || s.count > (sb.file_end - s.offset) / width)
      return corrupt("record section outside the space in use");
  }
  return Status::ok();
}

}  // namespace

int64_t encoded_index_size(const IndexTable& index, uint32_t page_entries) {
  int64_t n = head_size(index, page_entries) + kPageHeaderSize * int64_t(page_count(index.blocks.size(), page_entries));
  for (const BlockEntry& e : index.blocks) n += kIndexEntrySize + int64_t(e.path.size());
  return n;
}

namespace {

bool kept_pages_match(const IndexTable& index, uint32_t page_entries, const std::vector<PageRef>& kept) {
  if (kept.size() != page_count(index.blocks.size(), page_entries)) return false;
  for (size_t k = 0; k < kept.size(); ++k)
    if (kept[k].first_block != k * page_entries ||
        kept[k].nentries != std::min<size_t>(page_entries, index.blocks.size() - k * page_entries) ||
        kept[k].first_path != index.blocks[k * page_entries].path)
      return false;
  return true;
}

// The head's page directory: one reference per page, then their first paths.
void put_directory(xdr::Writer& d, const std::vector<PageRef>& refs) {
  uint64_t at = 0;
  for (const PageRef& r : refs) {
    for (uint64_t v : {r.offset, r.size}) d.u64(v);
    d.u32(r.crc);
    d.u32(r.nentries);
    d.u64(at);
    d.u32(uint32_t(r.first_path.size()));
    d.u32(0);  // reserved
    for (uint64_t v : {r.first_dim, r.first_var, uint64_t(0)}) d.u64(v);
    at += r.first_path.size();
  }
  for (const PageRef& r : refs) d.bytes(r.first_path);
}

// The head's fixed part: magic, block and page counts, the first paths' bytes.
void put_head_fixed(xdr::Writer& w, uint64_t nblocks, uint64_t npages, uint64_t first_paths) {
  w.bytes(kIndexMagic);
  w.u64(nblocks);
  w.u64(npages);
  w.u64(first_paths);
}

uint64_t first_paths_of(const std::vector<PageRef>& refs) {
  uint64_t n = 0;
  for (const PageRef& r : refs) n += r.first_path.size();
  return n;
}

// Writes the directory (and the record sections) into the head's space,
// once the pages after it are encoded and their CRCs known.
void fill_directory(std::vector<uint8_t>& out, int64_t head, const std::vector<PageRef>& refs,
                    const RecordSections& sections) {
  std::vector<uint8_t> dir;
  dir.reserve(size_t(head - kIndexHeadFixedSize));
  xdr::Writer d(dir);
  put_directory(d, refs);
  if (sections.present) put_sections(d, sections);
  std::copy(dir.begin(), dir.end(), out.begin() + kIndexHeadFixedSize);
}

// The head, then the pages to write, back to back. Without `kept`: every
// page, offsets from the table's start (packed). With it: the pages
// `rewrite` marks, at absolute offsets from table_at, the others as `kept`
// references them (flag 16).
std::vector<uint8_t> encode_table(const IndexTable& index, uint32_t page_entries, uint64_t table_at,
                                  const std::vector<PageRef>* kept, const std::vector<bool>* rewrite,
                                  uint64_t* head_bytes, std::vector<PageRef>* placed) {
  page_entries = std::clamp(page_entries, 1u, kMaxPageEntries);
  const std::span<const BlockEntry> all(index.blocks);
  const size_t npages = page_count(all.size(), page_entries);
  const int64_t head = head_size(index, page_entries);
  std::vector<uint8_t> out;
  if (!kept) out.reserve(size_t(encoded_index_size(index, page_entries)));
  xdr::Writer w(out);
  uint64_t first_paths = 0;
  for (size_t k = 0; k < npages; ++k) first_paths += all[k * page_entries].path.size();
  put_head_fixed(w, all.size(), npages, first_paths);
  // The pages follow the head in order; each page's CRC is known only once
  // it is encoded, so the directory is written after them (in place).
  out.resize(size_t(head), 0);
  std::vector<PageRef> refs(npages);
  uint64_t first_dim = 0, first_var = 0;
  for (size_t k = 0; k < npages; ++k) {
    const auto entries = all.subspan(k * page_entries, std::min<size_t>(page_entries, all.size() - k * page_entries));
    PageRef& r = refs[k];
    if (kept && !(*rewrite)[k]) {
      r = (*kept)[k];
    } else {
      r.offset = out.size();
      put_page(w, entries);
      r.size = out.size() - r.offset;
      r.crc = crc_of(std::span<const uint8_t>(out).subspan(size_t(r.offset)));
      if (kept) r.offset += table_at;
    }
    r.nentries = uint32_t(entries.size());
    r.first_block = k * page_entries;
    r.first_dim = first_dim;
    r.first_var = first_var;
    r.first_path = entries.front().path;
    for (const BlockEntry& e : entries) {
      first_dim += e.ndims;
      first_var += e.nvars;
    }
  }
  fill_directory(out, head, refs, index.sections);
  if (head_bytes) *head_bytes = uint64_t(head);
  if (placed) {
    if (!kept)
      for (PageRef& r : refs) r.offset += table_at;
    *placed = std::move(refs);
  }
  return out;
}

}  // namespace

uint64_t page_file_offset(const Superblock& sb, const PageRef& p) {
  return sb.kept_pages ? p.offset : sb.index_offset + p.offset;
}

std::vector<uint8_t> encode_index_page(std::span<const BlockEntry> entries) {
  std::vector<uint8_t> out;
  xdr::Writer w(out);
  put_page(w, entries);
  return out;
}

std::vector<uint8_t> encode_index_head(uint64_t nblocks, const std::vector<PageRef>& refs) {
  std::vector<uint8_t> out;
  xdr::Writer w(out);
  put_head_fixed(w, nblocks, refs.size(), first_paths_of(refs));
  put_directory(w, refs);
  return out;
}

std::vector<uint8_t> encode_index(const IndexTable& index, uint32_t page_entries, uint64_t* head_bytes) {
  return encode_table(index, page_entries, 0, nullptr, nullptr, head_bytes, nullptr);
}

std::vector<uint8_t> encode_index_keeping(const IndexTable& index, uint64_t table_at, const std::vector<PageRef>& kept,
                                          const std::vector<bool>& rewrite, uint64_t* head_bytes,
                                          std::vector<PageRef>* placed) {
  if (rewrite.size() != kept.size() || !kept_pages_match(index, kIndexPageEntries, kept)) return {};
  return encode_table(index, kIndexPageEntries, table_at, &kept, &rewrite, head_bytes, placed);
}

bool can_keep_pages(const IndexTable& index, const std::vector<PageRef>& kept) {
  return kept_pages_match(index, kIndexPageEntries, kept);
}

int64_t encoded_page_size(const IndexTable& index, size_t k) {
  const size_t first = k * kIndexPageEntries, end = std::min<size_t>(first + kIndexPageEntries, index.blocks.size());
  int64_t n = kPageHeaderSize;
  for (size_t b = first; b < end; ++b) n += kIndexEntrySize + int64_t(index.blocks[b].path.size());
  return n;
}

int64_t encoded_head_size(const IndexTable& index, uint32_t page_entries) {
  return head_size(index, std::clamp(page_entries, 1u, kMaxPageEntries));
}

std::vector<uint8_t> encode_index_placed(const IndexTable& index, uint64_t table_at, uint64_t* head_bytes,
                                         std::vector<PageRef>* placed) {
  return encode_table(index, kIndexPageEntries, table_at, nullptr, nullptr, head_bytes, placed);
}

namespace {

int64_t head_size_of(const std::vector<PageRef>& refs, const RecordSections& sections) {
  int64_t n = kIndexHeadFixedSize;
  for (const PageRef& r : refs) n += kPageRefSize + int64_t(r.first_path.size());
  if (sections.present) n += kRecordSectionsFixedSize + kRecordSectionSize * int64_t(sections.closed.size());
  return n;
}

int64_t page_size_of(std::span<const BlockEntry> entries) {
  int64_t n = kPageHeaderSize;
  for (const BlockEntry& e : entries) n += kIndexEntrySize + int64_t(e.path.size());
  return n;
}

}  // namespace

int64_t encoded_index_rewriting_size(const std::vector<PageRef>& refs, const RecordSections& sections,
                                     const std::vector<std::span<const BlockEntry>>& pages) {
  int64_t n = head_size_of(refs, sections);
  for (const auto& entries : pages)
    if (!entries.empty()) n += page_size_of(entries);
  return n;
}

std::vector<uint8_t> encode_index_rewriting(uint64_t nblocks, const RecordSections& sections,
                                            const std::vector<PageRef>& refs,
                                            const std::vector<std::span<const BlockEntry>>& pages, uint64_t table_at,
                                            uint64_t* head_bytes, std::vector<PageRef>* placed) {
  if (pages.size() != refs.size()) return {};
  const int64_t head = head_size_of(refs, sections);
  std::vector<uint8_t> out;
  out.reserve(size_t(encoded_index_rewriting_size(refs, sections, pages)));
  xdr::Writer w(out);
  put_head_fixed(w, nblocks, refs.size(), first_paths_of(refs));
  out.resize(size_t(head), 0);
  std::vector<PageRef> next = refs;
  for (size_t k = 0; k < pages.size(); ++k) {
    if (pages[k].empty()) continue;
    if (pages[k].size() != refs[k].nentries || pages[k].front().path != refs[k].first_path) return {};
    PageRef& r = next[k];
    const size_t at = out.size();
    put_page(w, pages[k]);
    r.offset = table_at + at;
    r.size = out.size() - at;
    r.crc = crc_of(std::span<const uint8_t>(out).subspan(at));
  }
  fill_directory(out, head, next, sections);
  if (head_bytes) *head_bytes = uint64_t(head);
  if (placed) *placed = std::move(next);
  return out;
}

Status decode_index_head(std::span<const uint8_t> bytes, const Superblock& sb, uint64_t file_size,
                         IndexHead* out) {
  if (bytes.size() != sb.index_head_size) return {NC_ETRUNC, "index table head truncated"};
  if (sb.index_offset > file_size || sb.index_size > file_size - sb.index_offset)
    return {NC_ETRUNC, "index table beyond the end of the file"};
  if (crc_of(bytes) != sb.index_crc) return corrupt("index table checksum mismatch");
  xdr::Reader r(bytes);
  std::span<const uint8_t> magic;
  uint64_t n = 0, npages = 0, paths = 0;
  if (!r.view(8, &magic) || !std::equal(magic.begin(), magic.end(), kIndexMagic.begin()) ||
      !r.u64(&n) || !r.u64(&npages) || !r.u64(&paths))
    return corrupt("bad index table header");
  if (n != sb.nblocks) return corrupt("index table and superblock disagree on the block count");
  const uint64_t room = bytes.size() - kIndexHeadFixedSize;
  if (npages > n || npages > room / kPageRefSize || paths > room - npages * kPageRefSize)
    return corrupt("index table head size does not match its counts");
  const uint8_t* path_area = bytes.data() + kIndexHeadFixedSize + npages * kPageRefSize;
  IndexHead head;
  // What follows the path area: the record sections (flag 2), else nothing.
  const uint64_t tail = room - npages * kPageRefSize - paths;
  if (!sb.record_sections && tail != 0) return corrupt("index table head size does not match its counts");
  if (sb.record_sections) {
    xdr::Reader t(std::span<const uint8_t>(path_area + paths, size_t(tail)));
    uint64_t count = 0;
    if (tail < uint64_t(kRecordSectionsFixedSize) || !t.u64(&head.sections.current_first) || !t.u64(&count) ||
        count != (tail - kRecordSectionsFixedSize) / kRecordSectionSize ||
        (tail - kRecordSectionsFixedSize) % kRecordSectionSize != 0)
      return corrupt("index table head's record sections do not match its size");
    head.sections.present = true;
    head.sections.closed.resize(size_t(count));
    for (RecordSection& s : head.sections.closed)
      for (uint64_t* v : {&s.first, &s.count, &s.offset, &s.lo, &s.hi}) t.u64(v);
    EXA_RETURN_IF_ERROR(check_sections(head.sections, sb));
  }
  head.nblocks = n;
  head.pages.resize(size_t(npages));
  uint64_t at = sb.index_head_size, next_block = 0, next_path = 0;
  for (size_t k = 0; k < head.pages.size(); ++k) {
    PageRef& p = head.pages[k];
    uint64_t path_at = 0, reserved = 0;
    uint32_t path_len = 0, reserved32 = 0;
    r.u64(&p.offset);
    r.u64(&p.size);
    r.u32(&p.crc);
    r.u32(&p.nentries);
    r.u64(&path_at);
    r.u32(&path_len);
    r.u32(&reserved32);
    r.u64(&p.first_dim);
    r.u64(&p.first_var);
    r.u64(&reserved);
    if (reserved != 0 || reserved32 != 0) return corrupt("reserved bytes set in the index directory");
    if (sb.kept_pages) {
      // Flag 16: anywhere in the space in use, clear of the head and of
      // each other (checked below); written or not yet, as for blocks.
      if (p.offset < uint64_t(kFirstRegion) || p.offset > sb.file_end || p.size > sb.file_end - p.offset)
        return corrupt("index page outside the space in use");
      if (p.offset > file_size || p.size > file_size - p.offset)
        return {NC_ETRUNC, "index page " + std::to_string(k) + " lies beyond the end of the file"};
      if (p.offset < sb.index_offset + sb.index_head_size && sb.index_offset < p.offset + p.size)
        return corrupt("index page overlaps the index head");
    } else if (p.offset != at || p.size > sb.index_size - at) {
      // Pages are packed in order right after the head and fill the table.
      return corrupt("index page outside its place in the table");
    }
    if (p.nentries == 0 || p.nentries > kMaxPageEntries || p.nentries > n - next_block ||
        p.size < uint64_t(kPageHeaderSize) + uint64_t(kIndexEntrySize) * p.nentries)
      return corrupt("index page with a bad entry count or size");
    at += p.size;
    p.first_block = next_block;
    next_block += p.nentries;
    if (path_at != next_path || path_len > paths - path_at) return corrupt("page path outside its place in the head");
    next_path += path_len;
    p.first_path.assign(reinterpret_cast<const char*>(path_area + path_at), path_len);
    uint64_t varid = 0;
    if (!is_valid_path(p.first_path) && !parse_index_block_path(p.first_path, &varid))
      return corrupt("invalid page path '" + p.first_path + "'");
    const PageRef* prev = k > 0 ? &head.pages[k - 1] : nullptr;
    if (prev ? !(prev->first_path < p.first_path) : p.first_dim != 0 || p.first_var != 0)
      return corrupt("index directory not sorted at '" + p.first_path + "'");
    if (prev && (p.first_dim < prev->first_dim || p.first_var < prev->first_var))
      return corrupt("index directory ids decrease at '" + p.first_path + "'");
    if (p.first_dim > sb.ndims || p.first_var > sb.nvars)
      return corrupt("index directory ids beyond the superblock's counts");
  }
  if (next_block != n || (!sb.kept_pages && at != sb.index_size) || next_path != paths)
    return corrupt("index pages do not add up to the table");
  if (sb.kept_pages) {
    std::vector<std::pair<uint64_t, uint64_t>> extents;  // offset, size
    extents.reserve(head.pages.size());
    for (const PageRef& p : head.pages) extents.emplace_back(p.offset, p.size);
    std::sort(extents.begin(), extents.end());
    for (size_t i = 1; i < extents.size(); ++i)
      if (extents[i].first < extents[i - 1].first + extents[i - 1].second)
        return corrupt("index pages overlap each other");
  }
  *out = std::move(head);
  return Status::ok();
}

Status decode_index_page(std::span<const uint8_t> bytes, const Superblock& sb, const IndexHead& head,
                         size_t k, uint64_t file_size, std::vector<BlockEntry>* out) {
  if (k >= head.pages.size()) return {NC_EINTERNAL, "no such index page"};
  const PageRef& p = head.pages[k];
  if (bytes.size() != p.size) return {NC_ETRUNC, "index page truncated"};
  if (crc_of(bytes) != p.crc) return corrupt("index page " + std::to_string(k) + " checksum mismatch");
  xdr::Reader r(bytes);
  std::span<const uint8_t> magic;
  uint64_t n = 0, strings = 0;
  if (!r.view(8, &magic) || !std::equal(magic.begin(), magic.end(), kPageMagic.begin()) || !r.u64(&n) ||
      !r.u64(&strings))
    return corrupt("bad index page header");
  if (n != p.nentries) return corrupt("index page and directory disagree on the entry count");
  if (strings != bytes.size() - kPageHeaderSize - n * kIndexEntrySize)
    return corrupt("index page size does not match its counts");
  const uint8_t* string_area = bytes.data() + kPageHeaderSize + n * kIndexEntrySize;
  const bool last = k + 1 == head.pages.size();
  const uint64_t end_dim = last ? sb.ndims : head.pages[k + 1].first_dim;
  const uint64_t end_var = last ? sb.nvars : head.pages[k + 1].first_var;
  std::vector<BlockEntry> entries(static_cast<size_t>(n));
  uint64_t ndims = p.first_dim, nvars = p.first_var, next_path = 0;
  std::vector<std::pair<uint64_t, uint64_t>> extents;  // offset, size
  extents.reserve(size_t(n) + 2);
  extents.emplace_back(sb.index_offset, sb.index_size);
  // A kept page outside the table (flag 16): no block over it either.
  const uint64_t page_at = page_file_offset(sb, p);
  if (page_at < sb.index_offset || page_at - sb.index_offset > sb.index_size ||
      p.size > sb.index_size - (page_at - sb.index_offset))
    extents.emplace_back(page_at, p.size);
  for (size_t i = 0; i < entries.size(); ++i) {
    BlockEntry& e = entries[i];
    uint64_t path_at = 0, reserved = 0;
    uint32_t path_len = 0, flags = 0;
    r.u64(&path_at);
    r.u32(&path_len);
    r.u32(&flags);
    r.u64(&e.offset);
    r.u64(&e.size);
    r.u32(&e.crc);
    r.u32(&e.natts);
    r.u64(&e.ndims);
    r.u64(&e.nvars);
    r.u64(&reserved);
    if ((flags != 0 && flags != kEntryIndexBlock) || reserved != 0)
      return corrupt("unknown block flags in the index table");
    e.flags = flags;
    // Paths are packed in entry order: each starts where the previous ended.
    if (path_at != next_path || path_len > strings - path_at)
      return corrupt("block path outside its place in the index table");
    next_path += path_len;
    e.path.assign(reinterpret_cast<const char*>(string_area + path_at), path_len);
    if (!entry_path_ok(e.path, flags)) return corrupt("invalid block path '" + e.path + "'");
    if (flags == kEntryIndexBlock && (e.natts != 0 || e.ndims != 0 || e.nvars != 0))
      return corrupt("index block '" + e.path + "' lists objects");
    if (flags == kEntryIndexBlock && !sb.index_blocks)
      return corrupt("index block '" + e.path + "' without the superblock's index-blocks flag");
    if (i == 0 ? e.path != p.first_path : !(entries[i - 1].path < e.path))
      return corrupt("index table not sorted by path at '" + e.path + "'");
    if (e.offset < uint64_t(kFirstRegion) || e.size < uint64_t(kMinBlock))
      return corrupt("block '" + e.path + "' has a bad offset or size");
    if (e.offset > file_size || e.size > file_size - e.offset)
      return {NC_ETRUNC, "block '" + e.path + "' lies beyond the end of the file"};
    const uint64_t room = e.size / uint64_t(std::min({kMinDim, kMinVar, kMinAtt}));
    if (e.ndims > room || e.nvars > room || e.natts > room)
      return corrupt("block '" + e.path + "' lists more objects than it can hold");
    ndims += e.ndims;  // no overflow: each count is below 2^58 (room)
    nvars += e.nvars;
    if (ndims > end_dim || nvars > end_var) return corrupt("index page holds more objects than the directory says");
    extents.emplace_back(e.offset, e.size);
  }
  if (next_path != strings) return corrupt("index page has bytes after its paths");
  if (!last && !(entries.back().path < head.pages[k + 1].first_path))
    return corrupt("index table not sorted by path after '" + entries.back().path + "'");
  if (ndims != end_dim || nvars != end_var)
    return corrupt("index page and directory disagree on object counts");
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i)
    if (extents[i].first < extents[i - 1].first + extents[i - 1].second)
      return corrupt("metadata blocks overlap each other or the index table");
  *out = std::move(entries);
  return Status::ok();
}

namespace {
uint64_t be64(const uint8_t* p) { return uint64_t(be32(p)) << 32 | be32(p + 4); }
}  // namespace

Status peek_first_page(std::span<const uint8_t> head, uint64_t* offset, uint64_t* size) {
  if (head.size() < size_t(kIndexHeadFixedSize + kPageRefSize) || be64(head.data() + 16) == 0)
    return corrupt("index table head without pages");
  *offset = be64(head.data() + kIndexHeadFixedSize);
  *size = be64(head.data() + kIndexHeadFixedSize + 8);
  return Status::ok();
}

Status peek_first_block(std::span<const uint8_t> page, uint64_t* offset, uint64_t* size) {
  if (page.size() < size_t(kPageHeaderSize + kIndexEntrySize) || be64(page.data() + 8) == 0)
    return corrupt("index page without entries");
  *offset = be64(page.data() + kPageHeaderSize + 16);
  *size = be64(page.data() + kPageHeaderSize + 24);
  return Status::ok();
}

Status decode_index(std::span<const uint8_t> bytes, const Superblock& sb, uint64_t file_size,
                    IndexTable* out, const PageFetch& read_page, std::vector<PageRef>* pages) {
  if (bytes.size() != sb.index_size) return {NC_ETRUNC, "index table truncated"};
  IndexHead head;
  EXA_RETURN_IF_ERROR(decode_index_head(bytes.first(size_t(sb.index_head_size)), sb, file_size, &head));
  IndexTable index;
  index.sections = head.sections;
  index.blocks.reserve(size_t(head.nblocks));
  std::vector<std::pair<uint64_t, uint64_t>> extents;  // every block, across pages, and pages outside the table
  extents.reserve(size_t(head.nblocks) + 1);
  extents.emplace_back(sb.index_offset, sb.index_size);
  std::vector<uint8_t> fetched;
  for (size_t k = 0; k < head.pages.size(); ++k) {
    const PageRef& ref = head.pages[k];
    const uint64_t at = page_file_offset(sb, ref);
    std::span<const uint8_t> page_bytes;
    if (at >= sb.index_offset && at - sb.index_offset <= sb.index_size &&
        ref.size <= sb.index_size - (at - sb.index_offset)) {
      page_bytes = bytes.subspan(size_t(at - sb.index_offset), size_t(ref.size));
    } else {
      if (!read_page) return corrupt("index page " + std::to_string(k) + " outside the table");
      EXA_RETURN_IF_ERROR(read_page(at, ref.size, &fetched));
      page_bytes = fetched;
      extents.emplace_back(at, ref.size);
    }
    std::vector<BlockEntry> page;
    EXA_RETURN_IF_ERROR(decode_index_page(page_bytes, sb, head, k, file_size, &page));
    for (BlockEntry& e : page) {
      extents.emplace_back(e.offset, e.size);
      index.blocks.push_back(std::move(e));
    }
  }
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i)
    if (extents[i].first < extents[i - 1].first + extents[i - 1].second)
      return corrupt("metadata blocks overlap each other");
  if (pages) {
    *pages = head.pages;
    for (PageRef& p : *pages) p.offset = page_file_offset(sb, p);
  }
  *out = std::move(index);
  return Status::ok();
}

int64_t find_block(const IndexTable& index, std::string_view path) {
  auto it = std::lower_bound(index.blocks.begin(), index.blocks.end(), path,
                             [](const BlockEntry& e, std::string_view p) { return e.path < p; });
  if (it == index.blocks.end() || it->path != path) return -1;
  return it - index.blocks.begin();
}

// --- metadata blocks ----------------------------------------------------------------------

std::vector<uint8_t> encode_block(const Block& block) {
  std::vector<uint8_t> out;
  append_encoded_block(block, &out);
  return out;
}

BlockEncoder::BlockEncoder(std::vector<uint8_t>* out, std::string_view path) : out_(*out), start_(out->size()) {
  xdr::Writer w(out_);
  w.bytes(kBlockMagic);
  put_name(w, path);
}

void BlockEncoder::begin_dims(uint64_t n) {
  xdr::Writer w(out_);
  w.u32(kTagDimension);
  w.u64(n);
}

void BlockEncoder::dim(std::string_view name, int64_t length) {
  xdr::Writer w(out_);
  put_name(w, name);
  w.u64(uint64_t(length));
}

void BlockEncoder::atts(const std::vector<Attribute>& atts) {
  xdr::Writer w(out_);
  put_atts(w, atts);
}

void BlockEncoder::begin_vars(uint64_t n) {
  xdr::Writer w(out_);
  w.u32(kTagVariable);
  w.u64(n);
}

void BlockEncoder::begin_var(std::string_view name, uint64_t ndims) {
  xdr::Writer w(out_);
  put_name(w, name);
  w.u64(ndims);
}

void BlockEncoder::dimid(uint64_t id) { xdr::Writer(out_).u64(id); }

void BlockEncoder::end_var(const std::vector<Attribute>& atts, nc_type type, int64_t vsize, int64_t begin,
                           uint32_t flags, std::span<const uint8_t> data) {
  xdr::Writer w(out_);
  put_atts(w, atts);
  w.u32(uint32_t(type));
  w.u64(uint64_t(vsize));
  w.u64(uint64_t(begin));
  w.u32(flags);
  if (flags & kVarCompact) {
    w.u64(data.size());
    w.bytes(data);
    w.pad(int64_t(data.size()));
  }
}

void BlockEncoder::finish() {
  xdr::Writer(out_).u32(crc_of(std::span<const uint8_t>(out_).subspan(start_)));
}

void append_encoded_block(const Block& block, std::vector<uint8_t>* all) {
  BlockEncoder e(all, block.path);
  e.begin_dims(block.dims.size());
  for (const Dimension& d : block.dims) e.dim(d.name, d.length);
  e.atts(block.atts);
  e.begin_vars(block.vars.size());
  for (const BlockVariable& bv : block.vars) {
    const Variable& v = bv.var;
    e.begin_var(v.name, v.dimids.size());
    for (int id : v.dimids) e.dimid(uint64_t(id));
    e.end_var(v.atts, v.type, v.vsize, v.begin, bv.flags, bv.data);
  }
  e.finish();
}

Status decode_block(std::span<const uint8_t> bytes, const BlockEntry& entry, uint64_t total_dims,
                    Block* out) {
  if (bytes.size() != entry.size) return {NC_ETRUNC, "block '" + entry.path + "' truncated"};
  if (bytes.size() < size_t(kMinBlock)) return corrupt("block '" + entry.path + "' too small");
  if (crc_of(bytes) != entry.crc || be32(bytes.data() + bytes.size() - 4) != crc_of(bytes.first(bytes.size() - 4)))
    return corrupt("block '" + entry.path + "' checksum mismatch");
  if (!std::equal(kBlockMagic.begin(), kBlockMagic.end(), bytes.begin()))
    return corrupt("block '" + entry.path + "' has a bad magic");
  BlockReader r(bytes.subspan(kBlockMagic.size(), bytes.size() - kBlockMagic.size() - 4));
  Block b;
  EXA_RETURN_IF_ERROR(r.name(&b.path, "block path", true));
  if (b.path != entry.path) return corrupt("block at the entry of '" + entry.path + "' is '" + b.path + "'");
  uint64_t n = 0;
  EXA_RETURN_IF_ERROR(r.list(kTagDimension, kMinDim, "dimensions", &n));
  if (n != entry.ndims) return corrupt("block '" + entry.path + "' and the index disagree on dimensions");
  b.dims.resize(size_t(n));
  for (Dimension& d : b.dims) {
    uint64_t len = 0;
    EXA_RETURN_IF_ERROR(r.name(&d.name, "dimension name"));
    EXA_RETURN_IF_ERROR(r.u64(&len, "dimension length"));
    if (len > uint64_t(INT64_MAX)) return corrupt("dimension '" + d.name + "' too long");
    d.length = int64_t(len);
  }
  EXA_RETURN_IF_ERROR(BlockReader::unique(b.dims, "dimension"));
  EXA_RETURN_IF_ERROR(r.atts(&b.atts));
  if (b.atts.size() != entry.natts) return corrupt("block '" + entry.path + "' and the index disagree on attributes");
  EXA_RETURN_IF_ERROR(r.list(kTagVariable, kMinVar, "variables", &n));
  if (n != entry.nvars) return corrupt("block '" + entry.path + "' and the index disagree on variables");
  b.vars.resize(size_t(n));
  for (BlockVariable& bv : b.vars) {
    Variable& v = bv.var;
    EXA_RETURN_IF_ERROR(r.name(&v.name, "variable name"));
    uint64_t ndims = 0;
    EXA_RETURN_IF_ERROR(r.u64(&ndims, "variable rank"));
    if (ndims > uint64_t(NC_MAX_VAR_DIMS) || ndims > uint64_t(r.remaining() / 8))
      return corrupt("variable '" + v.name + "' has an absurd number of dimensions");
    v.dimids.resize(size_t(ndims));
    for (int& id : v.dimids) {
      uint64_t g = 0;
      EXA_RETURN_IF_ERROR(r.u64(&g, "dimension id"));
      if (g >= total_dims || g > uint64_t(INT32_MAX))
        return corrupt("variable '" + v.name + "' uses a dimension id beyond the file's");
      id = int(g);
    }
    EXA_RETURN_IF_ERROR(r.atts(&v.atts));
    EXA_RETURN_IF_ERROR(r.type(&v.type, "variable"));
    uint64_t vsize = 0, begin = 0;
    EXA_RETURN_IF_ERROR(r.u64(&vsize, "variable size"));
    EXA_RETURN_IF_ERROR(r.u64(&begin, "variable offset"));
    if (vsize > uint64_t(INT64_MAX) || begin > uint64_t(INT64_MAX))
      return corrupt("variable '" + v.name + "' has a size or offset beyond 2^63");
    v.vsize = int64_t(vsize);
    v.begin = int64_t(begin);
    EXA_RETURN_IF_ERROR(r.u32(&bv.flags, "variable flags"));
    if (bv.flags & ~kVarCompact) return corrupt("variable '" + v.name + "' has unknown flags");
    if (bv.flags & kVarCompact) {
      uint64_t nbytes = 0;
      EXA_RETURN_IF_ERROR(r.u64(&nbytes, "compact data size"));
      // vsize first: it is then bounded by the block's bytes.
      if (v.begin != 0 || (nbytes != 0 && (nbytes > vsize || vsize - nbytes > 3)))
        return corrupt("compact variable '" + v.name + "' has an offset or a data size that disagrees with its size");
      EXA_RETURN_IF_ERROR(r.bytes(nbytes, &bv.data, "compact data"));
    }
  }
  EXA_RETURN_IF_ERROR(BlockReader::unique(b.vars, "variable"));
  if (r.remaining() != 0) return corrupt("block '" + entry.path + "' has bytes after its variables");
  *out = std::move(b);
  return Status::ok();
}

}  // namespace exa::format::partitioned
