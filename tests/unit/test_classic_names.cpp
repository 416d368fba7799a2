// The rule that maps a partitioned file's path names to classic names and
// back (docs/format.md, "Converting to classic formats").
#include <gtest/gtest.h>

#include <string>

#include "exacdf_nc_constants.h"
#include "format/classic_names.hpp"
#include "format/nc_name.hpp"

namespace exa::format {
namespace {

TEST(ClassicNames, PathsBecomeDoubleUnderscores) {
  EXPECT_EQ(to_classic_name("/g00000/x"), "g00000__x");
  EXPECT_EQ(to_classic_name("/a/b/c"), "a__b__c");
  EXPECT_EQ(from_classic_name("g00000__x"), "/g00000/x");
  EXPECT_EQ(from_classic_name("a__b__c"), "/a/b/c");
}

TEST(ClassicNames, PlainNamesAreUnchanged) {
  for (const char* n :
       {"x", "air_temp", "_FillValue", "time_bnds", "a-b", "_x_", "x_", "A.b", "caf\xc3\xa9"}) {
    EXPECT_EQ(to_classic_name(n), n) << n;
    EXPECT_EQ(from_classic_name(n), n) << n;
  }
  // A root object's name has no '/' ("/x" is not a valid name).
  EXPECT_EQ(to_classic_name("/x"), "");
}

TEST(ClassicNames, UnderscoresNextToTheSeparatorAreEscaped) {
  EXPECT_EQ(to_classic_name("a__b"), "a_-_b");       // a plain name holding the separator
  EXPECT_EQ(to_classic_name("a_-b"), "a_--b");       // ... and the escape
  EXPECT_EQ(to_classic_name("/a_/b"), "a_-__b");     // '_' before a '/'
  EXPECT_EQ(to_classic_name("/a/_b"), "a___b");      // '_' after a '/'
  EXPECT_EQ(to_classic_name("/g/__x__"), "g___-_x_-_");
  EXPECT_EQ(to_classic_name("__"), "_-_");
}

TEST(ClassicNames, RoundTripsEveryName) {
  for (const char* n : {"x", "a__b", "a_-b", "/a_/b", "/a/_b", "/g/__x__", "__", "_", "/_/_",
                        "/g_-/x-", "/g00000/x", "/a/b/c_", "/a__/b", "/\xc3\xa9/_\xc3\xa9__"}) {
    const std::string c = to_classic_name(n);
    ASSERT_FALSE(c.empty()) << n;
    EXPECT_TRUE(is_valid_name(c)) << n << " -> " << c;
    EXPECT_EQ(c.find('/'), std::string::npos) << c;
    EXPECT_EQ(from_classic_name(c), n) << n << " -> " << c;
  }
}

TEST(ClassicNames, NamesOfOtherProgramsKeepTheirNames) {
  // Not the classic name of any full name: read as the name itself.
  for (const char* n : {"a__", "x_-y", "__a", "a____b", "a_-", "a__-b"})
    EXPECT_EQ(from_classic_name(n), n) << n;
  // The classic name of a name holding the separator reads back as that name.
  EXPECT_EQ(from_classic_name("a_-_b"), "a__b");
}

TEST(ClassicNames, InvalidOrTooLongNamesHaveNone) {
  EXPECT_EQ(to_classic_name(""), "");
  EXPECT_EQ(to_classic_name("/a//b"), "");
  EXPECT_EQ(to_classic_name("/a/"), "");
  EXPECT_EQ(to_classic_name("a/b"), "");  // a path starts with '/'
  EXPECT_EQ(to_classic_name("//a"), "");
  EXPECT_FALSE(is_valid_path_name("//a"));
  EXPECT_FALSE(is_valid_path_name("/a"));
  EXPECT_TRUE(is_valid_path_name("/a/b"));
  const std::string seg(200, 'x');
  EXPECT_EQ(to_classic_name("/" + seg + "/" + seg), "");  // 402 bytes > NC_MAX_NAME
  EXPECT_EQ(to_classic_name("/" + seg + "/y").size(), 203u);
}

}  // namespace
}  // namespace exa::format
