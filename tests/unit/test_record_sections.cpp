// Record sections (docs/format.md, "Record sections"): where a record
// variable's records are, the table in the index head (superblock flag 2),
// and the layout of a redef that keeps the records where they are.
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "format/partitioned.hpp"
#include "format/partitioned_image.hpp"
#include "format/record_sections.hpp"
#include "util/crc32c.hpp"

namespace {

namespace pf = exa::format::partitioned;
using exa::format::RecordPiece;
using exa::format::RecordSections;

// Records 0-2 with 8-byte records at 8192 (a: bytes 0-4, b: 4-8), a redef
// adding c (bytes 8-12) after 3 records: c's 3 old records at 8216, the
// current section from record 3 at 9000 with 12-byte records.
RecordSections one_split() {
  RecordSections rs;
  rs.present = true;
  rs.current_first = 3;
  rs.closed = {{0, 3, 8192, 0, 8}, {0, 3, 8216, 8, 12}};
  return rs;
}

TEST(RecordSections, PiecesOfOldAndNewVariables) {
  const RecordSections rs = one_split();
  std::vector<RecordPiece> p;
  // b: 4 bytes into the record
  ASSERT_TRUE(exa::format::record_pieces(rs, 9000, 12, 9004, 4, &p).is_ok());
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], (RecordPiece{0, 3, 8196, 8}));
  EXPECT_EQ(p[1], (RecordPiece{3, INT64_MAX, 9004, 12}));
  EXPECT_EQ(exa::format::record_offset(p, 9004, 12, 2), 8196 + 16);
  EXPECT_EQ(exa::format::record_offset(p, 9004, 12, 4), 9004 + 12);
  // c: its old records in their own section
  ASSERT_TRUE(exa::format::record_pieces(rs, 9000, 12, 9008, 4, &p).is_ok());
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], (RecordPiece{0, 3, 8216, 4}));
  EXPECT_EQ(exa::format::record_offset(p, 9008, 12, 1), 8220);
  // No sections, or none closed yet: uniform
  RecordSections none;
  ASSERT_TRUE(exa::format::record_pieces(none, 9000, 12, 9008, 4, &p).is_ok());
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(exa::format::record_offset(p, 9008, 12, 5), 9008 + 60);
}

TEST(RecordSections, GapsOverlapsAndOutsideAreRefused) {
  RecordSections rs = one_split();
  std::vector<RecordPiece> p;
  rs.closed.pop_back();  // c's old records have no place
  EXPECT_EQ(exa::format::record_pieces(rs, 9000, 12, 9008, 4, &p).code(), NC_EFILEMETA);
  rs = one_split();
  rs.closed.push_back({1, 1, 8300, 8, 12});  // record 1 of c twice
  EXPECT_EQ(exa::format::record_pieces(rs, 9000, 12, 9008, 4, &p).code(), NC_EFILEMETA);
  rs = one_split();
  EXPECT_EQ(exa::format::record_pieces(rs, 9000, 12, 8996, 4, &p).code(), NC_EFILEMETA);  // before the record
  EXPECT_EQ(exa::format::record_pieces(rs, 9000, 12, 9010, 4, &p).code(), NC_EFILEMETA);  // past its end
}

pf::Superblock sections_superblock(const std::vector<uint8_t>& table, uint64_t head) {
  pf::Superblock sb;
  sb.generation = 5;
  sb.index_offset = 16384;
  sb.index_size = table.size();
  sb.index_head_size = head;
  sb.index_crc = exa::crc32c(table.data(), head);
  sb.nblocks = 1;
  sb.ndims = 2;
  sb.nvars = 3;
  sb.numrecs = 5;
  sb.record_begin = 9000;
  sb.record_size = 12;
  sb.file_end = 20000;
  sb.record_dim = 1;
  sb.record_sections = true;
  return sb;
}

TEST(RecordSections, TableInTheIndexHeadRoundTrips) {
  pf::IndexTable idx;
  idx.blocks.push_back({"/", 4096, 300, 0x1111u, 0, 2, 3});
  idx.sections = one_split();
  uint64_t head = 0;
  std::vector<uint8_t> table = pf::encode_index(idx, pf::kIndexPageEntries, &head);
  EXPECT_EQ(int64_t(table.size()), pf::encoded_index_size(idx));
  EXPECT_EQ(head, 32u + 64u + 1u + 16u + 2u * 40u);
  pf::Superblock sb = sections_superblock(table, head);
  auto sbytes = pf::encode_superblock(sb);
  pf::Superblock back;
  ASSERT_TRUE(pf::decode_superblock(sbytes, &back).is_ok());
  EXPECT_TRUE(back.record_sections);
  EXPECT_EQ(back, sb);
  pf::IndexTable decoded;
  ASSERT_TRUE(pf::decode_index(table, sb, 1u << 20, &decoded).is_ok());
  EXPECT_EQ(decoded, idx);
  // Without flag 2 the same head is refused (the table is not read as paths).
  pf::Superblock plain = sb;
  plain.record_sections = false;
  EXPECT_EQ(pf::decode_index(table, plain, 1u << 20, &decoded).code(), NC_EFILEMETA);
  // A section past the end of the space in use, or past current_first
  auto refused = [&](const pf::IndexTable& bad) {
    std::vector<uint8_t> t = pf::encode_index(bad, pf::kIndexPageEntries, &head);
    return pf::decode_index(t, sections_superblock(t, head), 1u << 20, &decoded).code();
  };
  pf::IndexTable bad = idx;
  bad.sections.closed[1].offset = 19990;
  EXPECT_EQ(refused(bad), NC_EFILEMETA);
  bad = idx;
  bad.sections.closed[0].count = 4;
  EXPECT_EQ(refused(bad), NC_EFILEMETA);
  bad = idx;
  bad.sections.closed[0].hi = 0;
  EXPECT_EQ(refused(bad), NC_EFILEMETA);
  bad = idx;
  bad.sections.current_first = 6;  // past numrecs
  bad.sections.closed.clear();
  EXPECT_EQ(refused(bad), NC_EFILEMETA);
  // With flag 2 the superblock alone does not bound the records: the index
  // head does, from current_first on.
  sb.numrecs = 1000;
  EXPECT_TRUE(pf::decode_superblock(pf::encode_superblock(sb), &back).is_ok());
  sb.record_sections = false;
  EXPECT_EQ(pf::decode_superblock(pf::encode_superblock(sb), &back).code(), NC_EFILEMETA);
}

// A redef adding a record variable to a file with 3 records: the old
// records stay, the new variable's old records get a section of their own,
// the records from 3 on a new current section; a second redef keeps them.
TEST(RecordSections, RedefKeepsTheRecordsWhereTheyAre) {
  using exa::format::Header;
  using exa::format::Layout;
  using exa::format::Variable;
  Header before;
  before.version = exa::format::Version::kCdf5;
  before.dims = {{"time", 0}, {"x", 2}};
  Variable a;
  a.name = "a";
  a.type = NC_INT;
  a.dimids = {0, 1};
  Variable z = a;
  z.name = "/g/z";  // a second block with a record variable
  before.vars = {a, z};
  pf::Image img;
  Layout layout;
  ASSERT_TRUE(pf::plan_image(before, &img).is_ok());
  ASSERT_TRUE(pf::place_image(before, img, 4096, &layout).is_ok());
  ASSERT_EQ(layout.recsize, 16);
  pf::IndexTable on_disk = img.index;
  pf::OnDisk old{&before, &on_disk, layout.begin_rec + 3 * layout.recsize};
  old.numrecs = 3;
  old.record_begin = layout.begin_rec;
  old.record_size = layout.recsize;
  old.split_records = true;
  Header grown = before;
  Variable c = a;
  c.name = "/b/c";  // sorts between "a"'s block and "/g": file order is not record order
  c.dimids = {0};
  grown.vars.push_back(c);
  pf::Image next;
  Layout l;
  bool unchanged = false;
  ASSERT_TRUE(pf::plan_redef_image(grown, old, nullptr, 4096, &next, &l, &unchanged).is_ok());
  ASSERT_TRUE(l.sections.present);
  EXPECT_EQ(l.sections.current_first, 3u);
  ASSERT_EQ(l.sections.closed.size(), 2u);
  EXPECT_EQ(l.sections.closed[0], (exa::format::RecordSection{0, 3, uint64_t(layout.begin_rec), 0, 16}));
  const auto& back_section = l.sections.closed[1];
  EXPECT_EQ(back_section.lo, 16u);
  EXPECT_EQ(back_section.hi, 20u);
  EXPECT_GE(int64_t(back_section.offset), next.index_offset + next.index_size);
  EXPECT_EQ(l.recsize, 20);
  EXPECT_EQ(l.begin_rec, int64_t(back_section.offset) + 3 * 4);
  // bytes within a record: a and z keep theirs, c follows them
  EXPECT_EQ(grown.vars[0].begin - l.begin_rec, before.vars[0].begin - layout.begin_rec);
  EXPECT_EQ(grown.vars[1].begin - l.begin_rec, before.vars[1].begin - layout.begin_rec);
  EXPECT_EQ(grown.vars[2].begin - l.begin_rec, 16);
  EXPECT_EQ(next.index.sections, l.sections);
  std::vector<RecordPiece> p;
  ASSERT_TRUE(exa::format::record_pieces(l.sections, l.begin_rec, l.recsize, grown.vars[1].begin, 8, &p).is_ok());
  EXPECT_EQ(exa::format::record_offset(p, grown.vars[1].begin, l.recsize, 2), before.vars[1].begin + 2 * 16);
  EXPECT_EQ(exa::format::record_offset(p, grown.vars[1].begin, l.recsize, 4), grown.vars[1].begin + 20);
  ASSERT_TRUE(exa::format::record_pieces(l.sections, l.begin_rec, l.recsize, grown.vars[2].begin, 4, &p).is_ok());
  EXPECT_EQ(exa::format::record_offset(p, grown.vars[2].begin, l.recsize, 1), int64_t(back_section.offset) + 4);
  // Without split (and no sections on disk) the records are laid out anew.
  old.split_records = false;
  Header copied = before;
  copied.vars.push_back(c);
  Layout lc;
  ASSERT_TRUE(pf::plan_redef_image(copied, old, nullptr, 4096, &next, &lc, &unchanged).is_ok());
  EXPECT_FALSE(lc.sections.present);
}

}  // namespace
