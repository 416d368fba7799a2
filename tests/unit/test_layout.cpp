// compute_layout against PnetCDF 1.12.3: every golden file's header must come
// out byte for byte, with the same offsets and header extent, when its
// definitions are laid out again with the hints PnetCDF was given.
#include <gtest/gtest.h>

#include <map>

#include "classic_test_util.hpp"
#include "format/layout.hpp"

namespace exa::format {
namespace {

using testing::golden_path;
using testing::GoldenEntry;
using testing::read_file;
using testing::read_golden_list;

// The hints make_golden.c passed for each file (others used none).
std::map<std::string, LayoutHints> golden_hints() {
  std::map<std::string, LayoutHints> m;
  m["cdf1_info_all"] = {.header_align = 1024, .var_align = 256, .record_align = 1000};
  m["cdf2_info_header"] = {.header_align = 2048};
  m["cdf2_info_var"] = {.var_align = 64};
  m["cdf1_info_rec"] = {.record_align = 4096};
  m["cdf1_enddef_args"] = {.header_minfree = 100, .var_minfree = 300,
                           .enddef_v_align = 2048, .enddef_r_align = 1024};
  m["cdf2_enddef_minfree"] = {.header_minfree = 1000, .var_minfree = 64};
  m["cdf5_enddef_valign"] = {.enddef_v_align = 1000};
  m["cdf1_enddef_ralign"] = {.enddef_r_align = 4096};
  m["cdf1_recs_ralign"] = {.record_align = 4096};
  m["cdf2_recs_vminfree"] = {.var_minfree = 100};
  m["cdf2_info_and_args"] = {.header_align = 4096, .enddef_v_align = 1024};
  m["cdf2_striping_big"] = {.striping_unit = 65536};
  m["cdf2_striping_small"] = {.striping_unit = 65536};
  m["cdf1_novars_minfree"] = {.header_minfree = 50, .var_minfree = 100};
  return m;
}

Header decode_golden(const std::string& name) {
  const DecodeResult r = decode(read_file(golden_path(name + ".nc")));
  EXPECT_TRUE(r.status.is_ok()) << name << ": " << r.status.message();
  return r.header;
}

// Forgets what the layout computes, so the test sees it recomputed.
Header without_layout(Header h, size_t keep_begins = 0) {
  for (size_t i = 0; i < h.vars.size(); ++i) {
    h.vars[i].vsize = 0;
    if (i >= keep_begins) h.vars[i].begin = 0;
  }
  return h;
}

void expect_matches(const GoldenEntry& e, const Header& laid_out, const Layout& l) {
  EXPECT_EQ(l.header_size, e.header_size);
  EXPECT_EQ(l.header_extent, e.extent);
  ASSERT_EQ(laid_out.vars.size(), e.begins.size());
  for (size_t i = 0; i < e.begins.size(); ++i)
    EXPECT_EQ(laid_out.vars[i].begin, e.begins[i]) << "variable " << i;
  EXPECT_EQ(encode(laid_out), read_file(golden_path(e.name + ".nc")));
}

bool is_redef_case(const std::string& name) {
  return name.find("_redef_") != std::string::npos && name.find("_before") == std::string::npos;
}

TEST(Layout, GoldenFilesFromScratch) {
  const auto hints = golden_hints();
  int checked = 0;
  for (const GoldenEntry& e : read_golden_list()) {
    if (is_redef_case(e.name)) continue;
    SCOPED_TRACE(e.name);
    Header h = without_layout(decode_golden(e.name));
    const auto it = hints.find(e.name);
    Layout l;
    const Status s = compute_layout(h, it == hints.end() ? LayoutHints{} : it->second, nullptr, &l);
    ASSERT_TRUE(s.is_ok()) << s.message();
    expect_matches(e, h, l);
    ++checked;
  }
  EXPECT_GE(checked, 28);
}

// Open, redef, enddef: the previous layout is what the file had.
TEST(Layout, GoldenRedefAfterOpen) {
  for (const std::string name : {"cdf1_redef_grow", "cdf2_redef_small", "cdf1_redef_vars"}) {
    SCOPED_TRACE(name);
    const Header before = decode_golden(name + "_before");
    const Layout previous = existing_layout(before);
    EXPECT_EQ(previous.nvars, int(before.vars.size()));
    Header after = without_layout(decode_golden(name), before.vars.size());
    for (size_t i = 0; i < before.vars.size(); ++i) after.vars[i].begin = before.vars[i].begin;
    Layout l;
    ASSERT_TRUE(compute_layout(after, LayoutHints{}, &previous, &l).is_ok());
    for (const GoldenEntry& e : read_golden_list())
      if (e.name == name) expect_matches(e, after, l);
  }
}

// Redef in the same session: PnetCDF keeps the alignments of the first
// enddef, so the caller passes them back as hints.
TEST(Layout, GoldenRedefSameSession) {
  const Header final_header = decode_golden("cdf1_redef_session");
  Header first = without_layout(final_header);
  first.gatts.pop_back();  // "history", added in redef
  first.vars.pop_back();   // "later", added in redef
  Layout previous;
  ASSERT_TRUE(compute_layout(first, {.enddef_v_align = 2048}, nullptr, &previous).is_ok());
  EXPECT_EQ(previous.header_extent, 2048);
  Header second = without_layout(final_header, first.vars.size());
  for (size_t i = 0; i < first.vars.size(); ++i) second.vars[i].begin = first.vars[i].begin;
  const LayoutHints sticky{.header_align = previous.header_align,
                           .var_align = previous.var_align,
                           .record_align = previous.record_align};
  Layout l;
  ASSERT_TRUE(compute_layout(second, sticky, &previous, &l).is_ok());
  for (const GoldenEntry& e : read_golden_list())
    if (e.name == "cdf1_redef_session") expect_matches(e, second, l);
}

TEST(Layout, ExistingLayoutOfGoldenFile) {
  const Layout l = existing_layout(decode_golden("cdf1_mixed"));
  EXPECT_EQ(l.header_size, 624);
  EXPECT_EQ(l.header_extent, 1024);
  EXPECT_EQ(l.begin_rec, 1116);
  EXPECT_EQ(l.recsize, 8 + 32 + 4);
  EXPECT_EQ(l.nvars, 8);
  const Layout none = existing_layout(decode_golden("cdf2_no_vars"));
  EXPECT_EQ(none.header_extent, 0);
  EXPECT_EQ(none.begin_rec, 0);
}

Header simple(Version v) {
  Header h;
  h.version = v;
  h.dims = {{"time", 0}, {"x", 3}};
  return h;
}

TEST(Layout, RecordSizeAndSingleRecordVariable) {
  Header h = simple(Version::kCdf1);
  h.vars = {{"r", {0, 1}, {}, NC_BYTE}};
  Layout l;
  ASSERT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
  EXPECT_EQ(h.vars[0].vsize, 4);  // padded in the header
  EXPECT_EQ(l.recsize, 3);        // but records are not padded
  h.vars.push_back({"s", {0}, {}, NC_SHORT});
  ASSERT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
  EXPECT_EQ(l.recsize, 4 + 4);
  EXPECT_EQ(h.vars[1].begin, h.vars[0].begin + 4);
}

TEST(Layout, RecordElementsAndKinds) {
  Header h = simple(Version::kCdf5);
  h.dims.push_back({"y", 7});
  const Variable scalar{"s", {}, {}, NC_DOUBLE};
  const Variable rec{"r", {0, 1, 2}, {}, NC_INT};
  const Variable fixed{"f", {2, 1}, {}, NC_SHORT};
  EXPECT_EQ(record_elements(h, scalar), 1);
  EXPECT_EQ(record_elements(h, rec), 21);
  EXPECT_EQ(record_elements(h, fixed), 21);
  EXPECT_FALSE(is_record_var(h, scalar));
  EXPECT_TRUE(is_record_var(h, rec));
  EXPECT_FALSE(is_record_var(h, fixed));
  EXPECT_EQ(var_bytes(h, rec), 84);
  EXPECT_EQ(var_bytes(h, fixed), 42);
}

TEST(Layout, EmptyDefinitions) {
  Header h;
  Layout l;
  ASSERT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
  EXPECT_EQ(l.header_size, 32);
  EXPECT_EQ(l.header_extent, 32);  // no variables: no alignment
  EXPECT_EQ(l.header_align, 512);
  EXPECT_EQ(l.var_align, 4);
  EXPECT_EQ(l.record_align, 4);
}

TEST(Layout, AlignmentsAreMultiplesOfFour) {
  Header h = simple(Version::kCdf2);
  h.vars = {{"a", {1}, {}, NC_BYTE}, {"b", {1}, {}, NC_BYTE}};
  Layout l;
  ASSERT_TRUE(compute_layout(h, {.header_align = 1001, .var_align = 6}, nullptr, &l).is_ok());
  EXPECT_EQ(l.header_align, 1004);
  EXPECT_EQ(l.var_align, 8);
  EXPECT_EQ(l.header_extent, 1008);  // the first variable is aligned to 8 too
  EXPECT_EQ(h.vars[0].begin, 1008);
  EXPECT_EQ(h.vars[1].begin, 1016);
}

TEST(Layout, RedefNeverMovesVariablesDown) {
  Header h = simple(Version::kCdf2);
  h.vars = {{"a", {1}, {}, NC_INT}, {"r", {0, 1}, {}, NC_INT}};
  Layout first;
  ASSERT_TRUE(compute_layout(h, {.header_minfree = 1500}, nullptr, &first).is_ok());
  EXPECT_EQ(first.header_extent, 2048);
  h.vars.push_back({"b", {1}, {}, NC_INT});
  Layout second;
  ASSERT_TRUE(compute_layout(h, {}, &first, &second).is_ok());
  EXPECT_EQ(second.header_extent, 2048);  // does not shrink to 512
  EXPECT_EQ(h.vars[0].begin, 2048);
  EXPECT_EQ(h.vars[2].begin, 2060);       // new fixed variable after a
  EXPECT_EQ(h.vars[1].begin, 2072);       // record section moved up
}

TEST(Layout, SizeLimitsCdf1AndCdf2) {
  Header h = simple(Version::kCdf1);
  h.dims.push_back({"big", 600000000});  // 2.4 GB of ints
  h.vars = {{"a", {1}, {}, NC_INT}, {"huge", {2}, {}, NC_INT}};
  Layout l;
  EXPECT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());  // last fixed may be large
  h.vars.push_back({"c", {1}, {}, NC_INT});
  EXPECT_EQ(compute_layout(h, {}, nullptr, &l).code(), NC_EVARSIZE);  // not last
  h.vars.pop_back();
  h.vars.push_back({"r", {0}, {}, NC_INT});
  EXPECT_EQ(compute_layout(h, {}, nullptr, &l).code(), NC_EVARSIZE);  // with record vars
  h.version = Version::kCdf2;
  EXPECT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
  h.dims[2].length = 1100000000;  // 4.4 GB: too large for CDF-2 unless last
  EXPECT_EQ(compute_layout(h, {}, nullptr, &l).code(), NC_EVARSIZE);
  h.vars.pop_back();
  ASSERT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
  EXPECT_EQ(h.vars[1].vsize, 4400000000);
  // the last record variable may be large too
  h.vars = {{"r1", {0, 1}, {}, NC_INT}, {"r2", {0, 2}, {}, NC_INT}};
  EXPECT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
  std::swap(h.vars[0], h.vars[1]);
  EXPECT_EQ(compute_layout(h, {}, nullptr, &l).code(), NC_EVARSIZE);
  h.version = Version::kCdf5;
  EXPECT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
}

TEST(Layout, Cdf1OffsetLimit) {
  Header h = simple(Version::kCdf1);
  h.dims.push_back({"n", 300000000});  // 1.2 GB each
  h.vars = {{"a", {2}, {}, NC_INT}, {"b", {2}, {}, NC_INT}, {"c", {1}, {}, NC_INT}};
  Layout l;
  EXPECT_EQ(compute_layout(h, {}, nullptr, &l).code(), NC_EVARSIZE);  // c starts past 2^31
  h.version = Version::kCdf2;
  EXPECT_TRUE(compute_layout(h, {}, nullptr, &l).is_ok());
  EXPECT_EQ(h.vars[2].begin, 512 + 2400000000LL);
}

TEST(Layout, Cdf5OverflowIsAnError) {
  Header h = simple(Version::kCdf5);
  h.dims.push_back({"n", int64_t(1) << 62});
  h.vars = {{"a", {2, 2}, {}, NC_INT}};
  Layout l;
  EXPECT_EQ(compute_layout(h, {}, nullptr, &l).code(), NC_EVARSIZE);
}

}  // namespace
}  // namespace exa::format
