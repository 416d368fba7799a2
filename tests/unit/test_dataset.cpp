// The in-memory model: define rules, name indexes, attributes, fill values.
#include <gtest/gtest.h>

#include <cstring>

#include "model/dataset.hpp"

namespace {

using exa::format::Version;
using exa::model::Dataset;

std::vector<uint8_t> be32(int32_t v) {
  auto u = static_cast<uint32_t>(v);
  return {static_cast<uint8_t>(u >> 24), static_cast<uint8_t>(u >> 16), static_cast<uint8_t>(u >> 8),
          static_cast<uint8_t>(u)};
}

TEST(Dataset, DimensionRules) {
  Dataset ds(Version::kCdf1);
  int id = -1;
  EXPECT_EQ(ds.def_dim("time", NC_UNLIMITED, &id).code(), NC_NOERR);
  EXPECT_EQ(id, 0);
  EXPECT_EQ(ds.unlimited_dim(), 0);
  EXPECT_EQ(ds.def_dim("t2", NC_UNLIMITED, &id).code(), NC_EUNLIMIT);
  EXPECT_EQ(ds.def_dim("time", 3, &id).code(), NC_ENAMEINUSE);
  EXPECT_EQ(ds.def_dim("", 3, &id).code(), NC_EBADNAME);
  EXPECT_EQ(ds.def_dim("a/b", 3, &id).code(), NC_EBADNAME);
  EXPECT_EQ(ds.def_dim("trailing ", 3, &id).code(), NC_EBADNAME);
  EXPECT_EQ(ds.def_dim(std::string(NC_MAX_NAME + 1, 'a'), 3, &id).code(), NC_EMAXNAME);
  EXPECT_EQ(ds.def_dim("neg", -1, &id).code(), NC_EDIMSIZE);
  EXPECT_EQ(ds.def_dim("huge", int64_t{1} << 40, &id).code(), NC_EDIMSIZE);
  EXPECT_EQ(ds.def_dim("x", 4, &id).code(), NC_NOERR);
  EXPECT_EQ(ds.find_dim("x"), 1);
  EXPECT_EQ(ds.find_dim("nope"), -1);
  EXPECT_EQ(ds.ndims(), 2);
  Dataset big(Version::kCdf5);
  EXPECT_EQ(big.def_dim("huge", int64_t{1} << 40, &id).code(), NC_NOERR);
}

TEST(Dataset, VariableRules) {
  Dataset ds(Version::kCdf2);
  int t, x, v;
  ASSERT_TRUE(ds.def_dim("t", NC_UNLIMITED, &t).is_ok());
  ASSERT_TRUE(ds.def_dim("x", 3, &x).is_ok());
  int ok_dims[] = {t, x}, bad_pos[] = {x, t}, bad_id[] = {x, 9};
  EXPECT_EQ(ds.def_var("v", NC_FLOAT, ok_dims, &v).code(), NC_NOERR);
  EXPECT_TRUE(ds.is_record_var(v));
  EXPECT_EQ(ds.def_var("w", NC_FLOAT, bad_pos, &v).code(), NC_EUNLIMPOS);
  EXPECT_EQ(ds.def_var("w", NC_FLOAT, bad_id, &v).code(), NC_EBADDIM);
  EXPECT_EQ(ds.def_var("w", NC_UINT64, {}, &v).code(), NC_ESTRICTCDF2);
  EXPECT_EQ(ds.def_var("w", 42, {}, &v).code(), NC_EBADTYPE);
  EXPECT_EQ(ds.def_var("v", NC_INT, {}, &v).code(), NC_ENAMEINUSE);
  EXPECT_EQ(ds.def_var("s", NC_INT, {}, &v).code(), NC_NOERR);
  EXPECT_FALSE(ds.is_record_var(v));
  EXPECT_EQ(ds.nvars(), 2);
}

TEST(Dataset, RenameInDataModeMayNotGrow) {
  Dataset ds(Version::kCdf1);
  int x, v;
  ASSERT_TRUE(ds.def_dim("xx", 3, &x).is_ok());
  ASSERT_TRUE(ds.def_var("vv", NC_INT, {}, &v).is_ok());
  EXPECT_EQ(ds.rename_dim(x, "longer", false).code(), NC_ENOTINDEFINE);
  EXPECT_EQ(ds.rename_dim(x, "y", false).code(), NC_NOERR);
  EXPECT_EQ(ds.find_dim("y"), x);
  EXPECT_EQ(ds.find_dim("xx"), -1);
  EXPECT_EQ(ds.rename_var(v, "w", true).code(), NC_NOERR);
  EXPECT_EQ(ds.find_var("w"), v);
  EXPECT_EQ(ds.rename_var(7, "z", true).code(), NC_ENOTVAR);
  EXPECT_EQ(ds.rename_dim(7, "z", true).code(), NC_EBADDIM);
}

TEST(Dataset, Attributes) {
  Dataset ds(Version::kCdf1);
  int v;
  ASSERT_TRUE(ds.def_var("v", NC_INT, {}, &v).is_ok());
  EXPECT_EQ(ds.put_att(NC_GLOBAL, "a", NC_INT, 1, be32(7), true).code(), NC_NOERR);
  EXPECT_EQ(ds.put_att(5, "a", NC_INT, 1, be32(7), true).code(), NC_ENOTVAR);
  EXPECT_EQ(ds.put_att(v, _FillValue, NC_SHORT, 1, {0, 1}, true).code(), NC_EBADTYPE);
  EXPECT_EQ(ds.put_att(v, _FillValue, NC_INT, 2, be32(1), true).code(), NC_EINVAL);
  EXPECT_EQ(ds.put_att(v, _FillValue, NC_INT, 1, be32(-5), true).code(), NC_NOERR);
  EXPECT_EQ(ds.fill_value_external(v), be32(-5));
  // Data mode: replace an existing attribute with one no larger; nothing new.
  EXPECT_EQ(ds.put_att(NC_GLOBAL, "a", NC_INT, 1, be32(8), false).code(), NC_NOERR);
  EXPECT_EQ(ds.put_att(NC_GLOBAL, "a", NC_INT, 2, {0, 0, 0, 1, 0, 0, 0, 2}, false).code(), NC_ENOTINDEFINE);
  EXPECT_EQ(ds.put_att(NC_GLOBAL, "b", NC_INT, 1, be32(8), false).code(), NC_ENOTINDEFINE);
  const exa::format::Attribute* att = nullptr;
  int num = -1;
  ASSERT_TRUE(ds.find_att(NC_GLOBAL, "a", &att, &num).is_ok());
  EXPECT_EQ(att->xvalues, be32(8));
  EXPECT_EQ(num, 0);
  EXPECT_EQ(ds.rename_att(NC_GLOBAL, "a", "c", true).code(), NC_NOERR);
  EXPECT_EQ(ds.find_att(NC_GLOBAL, "a", &att).code(), NC_ENOTATT);
  EXPECT_EQ(ds.del_att(NC_GLOBAL, "c").code(), NC_NOERR);
  EXPECT_EQ(ds.del_att(NC_GLOBAL, "c").code(), NC_ENOTATT);
}

TEST(Dataset, DefaultFillValueIsExternal) {
  Dataset ds(Version::kCdf1);
  int v;
  ASSERT_TRUE(ds.def_var("v", NC_SHORT, {}, &v).is_ok());
  // NC_FILL_SHORT = -32767 = 0x8001, big-endian.
  EXPECT_EQ(ds.fill_value_external(v), (std::vector<uint8_t>{0x80, 0x01}));
}

TEST(Dataset, LayoutFromDecodedHeaderMatchesComputed) {
  Dataset ds(Version::kCdf1);
  int t, x, a, b, c;
  ASSERT_TRUE(ds.def_dim("t", NC_UNLIMITED, &t).is_ok());
  ASSERT_TRUE(ds.def_dim("x", 3, &x).is_ok());
  int rec[] = {t, x};
  ASSERT_TRUE(ds.def_var("fixed", NC_DOUBLE, {&x, 1}, &a).is_ok());
  ASSERT_TRUE(ds.def_var("r1", NC_SHORT, rec, &b).is_ok());
  ASSERT_TRUE(ds.def_var("r2", NC_BYTE, rec, &c).is_ok());
  ASSERT_TRUE(ds.compute_layout({}, nullptr).is_ok());
  exa::format::Layout computed = ds.layout();
  Dataset reopened(ds.header());
  reopened.adopt_layout_from_header();
  EXPECT_EQ(reopened.layout().recsize, computed.recsize);
  EXPECT_EQ(reopened.layout().begin_rec, computed.begin_rec);
  EXPECT_EQ(reopened.layout().header_extent, computed.header_extent);
}

}  // namespace
