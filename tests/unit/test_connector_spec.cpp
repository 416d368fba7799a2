// The connector list of EXACDF_CONNECTORS / exa_connectors (layer/connector_spec).
#include <gtest/gtest.h>

#include "layer/connector_spec.hpp"

using exa::layer::ConnectorEntry;
using exa::layer::format_connector_spec;
using exa::layer::parse_connector_spec;

namespace {

std::vector<ConnectorEntry> parsed(const char* spec) {
  std::vector<ConnectorEntry> out;
  exa::Status st = parse_connector_spec(spec, &out);
  EXPECT_TRUE(st.is_ok()) << spec << ": " << st.message();
  return out;
}

int code_of(const char* spec) {
  std::vector<ConnectorEntry> out{{"stale", {}}};
  exa::Status st = parse_connector_spec(spec, &out);
  if (!st.is_ok()) {
    EXPECT_FALSE(st.message().empty());
    EXPECT_TRUE(out.empty()) << "a failed parse leaves no entries";
  }
  return st.code();
}

}  // namespace

TEST(ConnectorSpec, BlankIsNativeAlone) {
  EXPECT_TRUE(parsed("").empty());
  EXPECT_TRUE(parsed("  \t ").empty());
  EXPECT_TRUE(parsed("native").empty());
}

TEST(ConnectorSpec, NamesTopFirstNativeDropped) {
  auto e = parsed("trace, passthrough ,native");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].name, "trace");
  EXPECT_EQ(e[1].name, "passthrough");
  EXPECT_TRUE(e[0].settings.empty());
  e = parsed("passthrough,passthrough");
  ASSERT_EQ(e.size(), 2u);
}

TEST(ConnectorSpec, Settings) {
  auto e = parsed("trace{dir=traces; level = 2},async{threads=2},native");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].name, "trace");
  ASSERT_EQ(e[0].settings.size(), 2u);
  EXPECT_EQ(e[0].settings.at("dir"), "traces");
  EXPECT_EQ(e[0].settings.at("level"), "2");
  EXPECT_EQ(e[1].settings.at("threads"), "2");
  e = parsed("a{}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(e[0].settings.empty());
  e = parsed("a{k=v;}");  // a trailing ';'
  EXPECT_EQ(e[0].settings.at("k"), "v");
  e = parsed("a{path=/tmp/x y.d;empty=}");
  EXPECT_EQ(e[0].settings.at("path"), "/tmp/x y.d");
  EXPECT_EQ(e[0].settings.at("empty"), "");
  // A list inside the braces: the commas belong to the value.
  e = parsed("a{ghost=1,2,3;k=v},b");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].settings.at("ghost"), "1,2,3");
  EXPECT_EQ(e[1].name, "b");
  EXPECT_EQ(format_connector_spec(e), "a{ghost=1,2,3;k=v},b");
}

TEST(ConnectorSpec, Malformed) {
  const char* bad[] = {
      ",",             "a,",          ",a",          "a,,b",         "a b",       "a{",
      "a{k=v",         "a}",          "a{k=v}x",     "a{k=v}{x=1}",  "a{k}",      "a{=v}",
      "a{k=v;k=w}",    "a{k=v=w}",    "a{k{=v}",     "a{{k=v}}",     "native,a",  "native{x=1}",
      "bad/name",      "a{ ;}",       "{k=v}",
  };
  for (const char* spec : bad) EXPECT_EQ(code_of(spec), NC_EINVAL) << spec;
}

TEST(ConnectorSpec, FormatIsCanonical) {
  EXPECT_EQ(format_connector_spec(parsed(" b{z=1; a=2} , c ")), "b{a=2;z=1},c");
  EXPECT_EQ(format_connector_spec(parsed("native")), "");
}
