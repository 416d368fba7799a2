// The checkpoint manifest codec (src/relation/pure/manifest.hpp).
#include <gtest/gtest.h>

#include "relation/pure/manifest.hpp"

namespace exa::relation {
namespace {

ManifestEntry entry(const char* rel, bool delta, int64_t it, uint64_t rows) {
  ManifestEntry e;
  e.relation = rel;
  e.arity = 2;
  e.delta = delta;
  e.iteration = it;
  e.rows = rows;
  e.file = "ck-" + std::to_string(it) + ".ab12/" + rel + (delta ? "_delta.nc" : "_full.nc");
  return e;
}

TEST(RelationManifest, RoundTrips) {
  Manifest m;
  m.iteration = 20;
  m.nranks = 4;
  m.entries = {entry("T", false, 10, 100), entry("T", true, 20, 7), entry("G", false, 10, 50)};
  Manifest back;
  ASSERT_TRUE(decode_manifest(encode_manifest(m), &back).is_ok());
  EXPECT_EQ(back.iteration, 20);
  EXPECT_EQ(back.nranks, 4);
  ASSERT_EQ(back.entries.size(), 3u);
  EXPECT_EQ(back.entries[1].relation, "T");
  EXPECT_TRUE(back.entries[1].delta);
  EXPECT_EQ(back.entries[1].rows, 7u);
  EXPECT_EQ(back.entries[2].file, "ck-10.ab12/G_full.nc");
}

TEST(RelationManifest, RefusesDamage) {
  Manifest m;
  m.iteration = 3;
  m.nranks = 1;
  m.entries = {entry("T", false, 3, 1)};
  const std::string good = encode_manifest(m);
  Manifest out;
  for (size_t i = 0; i < good.size(); ++i) {  // every single-bit flip is caught
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    EXPECT_EQ(decode_manifest(bad, &out).code(), NC_ENOTNC) << i;
  }
  for (size_t n = 0; n < good.size(); ++n) EXPECT_EQ(decode_manifest(good.substr(0, n), &out).code(), NC_ENOTNC) << n;
}

TEST(RelationManifest, NamesAndFiles) {
  EXPECT_TRUE(valid_relation_name("T_full-2"));
  EXPECT_FALSE(valid_relation_name(""));
  EXPECT_FALSE(valid_relation_name("-x"));
  EXPECT_FALSE(valid_relation_name("a/b"));
  EXPECT_FALSE(valid_relation_name("a.b"));
  EXPECT_FALSE(valid_relation_name(std::string(129, 'a')));
  EXPECT_TRUE(valid_entry_file("ck-1.ff/T_full.nc"));
  EXPECT_FALSE(valid_entry_file("../x/T.nc"));
  EXPECT_FALSE(valid_entry_file("ck/.hidden"));
  EXPECT_FALSE(valid_entry_file("/abs/T.nc"));
  EXPECT_FALSE(valid_entry_file("a/b/c"));
  EXPECT_FALSE(valid_entry_file("T.nc"));
  // One file per checkpoint (the layout since the old one above): "ck-*.nc" only.
  EXPECT_TRUE(valid_entry_file("ck-12.ab.nc"));
  EXPECT_FALSE(valid_entry_file("ck-12.ab"));
  EXPECT_FALSE(valid_entry_file("MANIFEST.nc"));
  EXPECT_FALSE(valid_entry_file("ck-.nc"));
}

TEST(RelationManifest, EntryVariableAndLeaf) {
  ManifestEntry old = entry("T", true, 5, 1);  // old layout: one relation per file
  EXPECT_EQ(entry_variable(old), "T");
  EXPECT_EQ(entry_leaf(old), "ck-5.ab12");
  ManifestEntry e = old;
  e.file = "ck-5.ab12.nc";  // one file per checkpoint: full and delta side by side
  EXPECT_EQ(entry_variable(e), "T.delta");
  EXPECT_EQ(entry_leaf(e), "ck-5.ab12.nc");
  e.delta = false;
  EXPECT_EQ(entry_variable(e), "T");
  Manifest m;
  m.iteration = 5;
  m.nranks = 2;
  m.entries = {old, e};
  m.entries[1].delta = true;
  m.entries[0].delta = false;
  Manifest back;
  ASSERT_TRUE(decode_manifest(encode_manifest(m), &back).is_ok());  // the two layouts mix in one manifest
  EXPECT_EQ(back.entries[1].file, "ck-5.ab12.nc");
}

TEST(RelationManifest, NextKeepsLatestFullAndLaterDeltas) {
  Manifest old;
  old.iteration = 10;
  old.nranks = 2;
  old.entries = {entry("T", false, 5, 10), entry("T", true, 10, 3), entry("G", false, 5, 4)};
  // A delta of T: appended after T's entries.
  Manifest m = next_manifest(old, 15, 3, {entry("T", true, 15, 2)});
  ASSERT_EQ(m.entries.size(), 4u);
  EXPECT_EQ(m.iteration, 15);
  EXPECT_EQ(m.nranks, 3);
  EXPECT_EQ(m.entries[2].iteration, 15);
  EXPECT_EQ(m.entries[2].relation, "T");
  EXPECT_EQ(m.entries[3].relation, "G");
  // A full of T with its delta beside it: T's chain restarts at the full.
  m = next_manifest(m, 20, 3, {entry("T", false, 20, 15), entry("T", true, 20, 2)});
  ASSERT_EQ(m.entries.size(), 2u);
  EXPECT_EQ(m.entries[0].relation, "G");
  EXPECT_EQ(m.entries[1].relation, "T");
  EXPECT_FALSE(m.entries[1].delta);
  Manifest back;
  EXPECT_TRUE(decode_manifest(encode_manifest(m), &back).is_ok());
}

TEST(RelationManifest, RefusesInconsistentChains) {
  Manifest m;
  m.iteration = 10;
  m.nranks = 1;
  m.entries = {entry("T", true, 5, 1), entry("T", false, 10, 1)};  // a full after a delta
  Manifest out;
  EXPECT_EQ(decode_manifest(encode_manifest(m), &out).code(), NC_ENOTNC);
  m.entries = {entry("T", false, 11, 1)};  // newer than the checkpoint
  EXPECT_EQ(decode_manifest(encode_manifest(m), &out).code(), NC_ENOTNC);
  m.entries = {entry("T", false, 5, 1), entry("T", true, 10, 1)};
  m.entries[1].arity = 3;
  EXPECT_EQ(decode_manifest(encode_manifest(m), &out).code(), NC_ENOTNC);
}

}  // namespace
}  // namespace exa::relation
