// The classic header codec: round trips, byte identity with files written by
// PnetCDF, and the rejection of malformed bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "classic_test_util.hpp"
#include "format/classic_header.hpp"
#include "format/nc_name.hpp"

namespace exa::format {
namespace {

using testing::golden_path;
using testing::make_attr;
using testing::read_file;
using testing::read_golden_list;
using testing::sample_header;

const Version kVersions[] = {Version::kCdf1, Version::kCdf2, Version::kCdf5};

int decode_code(const std::vector<uint8_t>& bytes) { return decode(bytes).status.code(); }
int decode_code(const Header& h) { return decode_code(encode(h)); }

// A minimal valid header with one fixed variable of one dimension.
Header one_var_header(Version v) {
  Header h;
  h.version = v;
  h.dims = {{"x", 4}};
  h.vars = {{"v", {0}, {}, NC_INT, 16, 512}};
  return h;
}

TEST(ClassicHeader, ExternalSizes) {
  EXPECT_EQ(external_size(NC_BYTE), 1);
  EXPECT_EQ(external_size(NC_CHAR), 1);
  EXPECT_EQ(external_size(NC_SHORT), 2);
  EXPECT_EQ(external_size(NC_INT), 4);
  EXPECT_EQ(external_size(NC_FLOAT), 4);
  EXPECT_EQ(external_size(NC_DOUBLE), 8);
  EXPECT_EQ(external_size(NC_UBYTE), 1);
  EXPECT_EQ(external_size(NC_USHORT), 2);
  EXPECT_EQ(external_size(NC_UINT), 4);
  EXPECT_EQ(external_size(NC_INT64), 8);
  EXPECT_EQ(external_size(NC_UINT64), 8);
  EXPECT_EQ(external_size(NC_STRING), 0);
  EXPECT_EQ(external_size(NC_NAT), 0);
}

TEST(ClassicHeader, TypesPerVersion) {
  for (nc_type t = NC_BYTE; t <= NC_DOUBLE; ++t)
    for (Version v : kVersions) EXPECT_TRUE(type_valid_for(t, v));
  for (nc_type t = NC_UBYTE; t <= NC_UINT64; ++t) {
    EXPECT_FALSE(type_valid_for(t, Version::kCdf1));
    EXPECT_FALSE(type_valid_for(t, Version::kCdf2));
    EXPECT_TRUE(type_valid_for(t, Version::kCdf5));
  }
  EXPECT_FALSE(type_valid_for(NC_NAT, Version::kCdf5));
  EXPECT_FALSE(type_valid_for(NC_STRING, Version::kCdf5));
}

TEST(ClassicHeader, RoundTripEveryTypeAndVersion) {
  for (Version v : kVersions) {
    const Header h = sample_header(v);
    const std::vector<uint8_t> bytes = encode(h);
    EXPECT_EQ(int64_t(bytes.size()), encoded_size(h));
    const DecodeResult r = decode(bytes);
    ASSERT_TRUE(r.status.is_ok()) << r.status.message();
    EXPECT_EQ(r.consumed, int64_t(bytes.size()));
    EXPECT_EQ(r.header, h);
    EXPECT_EQ(encode(r.header), bytes);
  }
}

TEST(ClassicHeader, EmptyHeaderBytes) {
  Header h;
  const std::vector<uint8_t> cdf1 = encode(h);
  std::vector<uint8_t> expect = {'C', 'D', 'F', 1};
  expect.resize(32, 0);  // numrecs + three ABSENT lists of ZERO ZERO
  EXPECT_EQ(cdf1, expect);
  h.version = Version::kCdf5;
  expect = {'C', 'D', 'F', 5};
  expect.resize(48, 0);  // 8-byte numrecs and nelems
  EXPECT_EQ(encode(h), expect);
}

TEST(ClassicHeader, FieldWidthsPerVersion) {
  // name "x": count + 4 bytes; CDF-5 widens counts, lengths and dimids.
  Header h = one_var_header(Version::kCdf1);
  EXPECT_EQ(encoded_size(h), 4 + 4 + (4 + 4 + 4 + 4 + 4) + 8 +
                                 (4 + 4 + (4 + 4 + 4 + 4 + 8 + 4 + 4 + 4)));
  h.version = Version::kCdf2;  // begin widens to 8
  EXPECT_EQ(encoded_size(h), 84);
  h.version = Version::kCdf5;  // all NON_NEG fields widen to 8
  EXPECT_EQ(encoded_size(h), 4 + 8 + (4 + 8 + 8 + 4 + 8) + (4 + 8) +
                                 (4 + 8 + (8 + 4 + 8 + 8 + 4 + 8 + 4 + 8 + 8)));
  const std::vector<uint8_t> b = encode(h);
  // tag of the dimension list right after magic and numrecs
  EXPECT_EQ(b[12 + 3], 0x0A);
}

TEST(ClassicHeader, StreamingNumrecs) {
  for (Version v : kVersions) {
    Header h;
    h.version = v;
    h.numrecs = kStreamingNumrecs;
    const std::vector<uint8_t> b = encode(h);
    const int width = v == Version::kCdf5 ? 8 : 4;
    for (int i = 0; i < width; ++i) EXPECT_EQ(b[size_t(4 + i)], 0xFF);
    const DecodeResult r = decode(b);
    ASSERT_TRUE(r.status.is_ok());
    EXPECT_EQ(r.header.numrecs, kStreamingNumrecs);
  }
}

TEST(ClassicHeader, HugeVsizeIsCappedInCdf2) {
  Header h = one_var_header(Version::kCdf2);
  h.vars[0].vsize = 6000000000;
  std::vector<uint8_t> b = encode(h);
  // vsize sits before the 8-byte begin at the end.
  EXPECT_EQ(std::vector<uint8_t>(b.end() - 12, b.end() - 8),
            (std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF}));
  // A decoded odd value that fits is kept (found by the fuzzer).
  h.vars[0].vsize = 0xFFFFFFFD;
  EXPECT_EQ(decode(encode(h)).header, h);
  h.vars[0].vsize = 6000000000;
  h.version = Version::kCdf5;
  b = encode(h);
  EXPECT_EQ(std::vector<uint8_t>(b.end() - 16, b.end() - 8),
            (std::vector<uint8_t>{0, 0, 0, 1, 0x65, 0xA0, 0xBC, 0x00}));
}

TEST(ClassicHeader, GoldenFilesDecodeAndReencodeIdentically) {
  const auto list = read_golden_list();
  ASSERT_GE(list.size(), 30u);
  for (const auto& e : list) {
    SCOPED_TRACE(e.name);
    const std::vector<uint8_t> bytes = read_file(golden_path(e.name + ".nc"));
    ASSERT_EQ(int64_t(bytes.size()), e.header_size);
    const DecodeResult r = decode(bytes);
    ASSERT_TRUE(r.status.is_ok()) << r.status.message();
    EXPECT_EQ(r.consumed, e.header_size);
    EXPECT_EQ(encoded_size(r.header), e.header_size);
    EXPECT_EQ(encode(r.header), bytes);
    ASSERT_EQ(r.header.vars.size(), e.begins.size());
    for (size_t i = 0; i < e.begins.size(); ++i) EXPECT_EQ(r.header.vars[i].begin, e.begins[i]);
  }
}

TEST(ClassicHeader, GoldenMixedContents) {
  const DecodeResult r = decode(read_file(golden_path("cdf5_mixed.nc")));
  ASSERT_TRUE(r.status.is_ok());
  const Header& h = r.header;
  EXPECT_EQ(h.version, Version::kCdf5);
  ASSERT_EQ(h.dims.size(), 3u);
  EXPECT_EQ(h.dims[0].name, "time");
  EXPECT_EQ(h.dims[0].length, 0);
  EXPECT_EQ(h.gatts[0].name, "title");
  EXPECT_EQ(std::string(h.gatts[0].xvalues.begin(), h.gatts[0].xvalues.end()), "hello");
  EXPECT_EQ(h.gatts[6].name, "empty");
  EXPECT_EQ(h.gatts[6].nelems, 0);
  EXPECT_EQ(h.gatts.back().type, NC_UINT64);
  EXPECT_EQ(h.gatts.back().xvalues, std::vector<uint8_t>(8, 0xFF));
  EXPECT_EQ(h.vars[1].name, "yx_float");
  EXPECT_EQ(h.vars[1].dimids, (std::vector<int>{2, 1}));
  EXPECT_EQ(h.vars[1].vsize, 60);
  EXPECT_EQ(h.vars[3].vsize, 4);  // scalar short, padded
}

TEST(ClassicHeader, GoldenUtf8Names) {
  const DecodeResult r = decode(read_file(golden_path("cdf1_names.nc")));
  ASSERT_TRUE(r.status.is_ok());
  EXPECT_EQ(r.header.dims[0].name, "temp\xc3\xa9rature");
  EXPECT_EQ(r.header.vars[0].name, "a-b.c+d@e");
  EXPECT_EQ(r.header.vars[2].atts[0].name, "a b");
}

// Every strict prefix of a valid header asks for more bytes; feeding what it
// asks for eventually decodes the whole header.
TEST(ClassicHeader, TruncationAtEveryOffset) {
  std::vector<std::vector<uint8_t>> inputs;
  for (Version v : kVersions) inputs.push_back(encode(sample_header(v)));
  for (const char* n : {"cdf1_mixed.nc", "cdf5_mixed.nc", "cdf2_big_rec.nc", "cdf1_names.nc"})
    inputs.push_back(read_file(golden_path(n)));
  for (const auto& full : inputs) {
    for (size_t len = 0; len < full.size(); ++len) {
      const DecodeResult r = decode(std::span<const uint8_t>(full.data(), len));
      ASSERT_EQ(r.status.code(), NC_ENOTNC) << "prefix " << len;
      ASSERT_GT(r.need_bytes, int64_t(len));
      ASSERT_LE(r.need_bytes, int64_t(full.size()));
    }
    size_t have = 1;
    int rounds = 0;
    for (;; ++rounds) {
      const DecodeResult r = decode(std::span<const uint8_t>(full.data(), have));
      if (r.status.is_ok()) break;
      ASSERT_EQ(r.status.code(), NC_ENOTNC) << r.status.message();
      ASSERT_GT(r.need_bytes, int64_t(have));
      have = size_t(r.need_bytes);
    }
    EXPECT_LT(rounds, int(full.size()));
  }
}

TEST(ClassicHeader, TrailingBytesAreNotConsumed) {
  std::vector<uint8_t> b = encode(sample_header(Version::kCdf2));
  const int64_t size = int64_t(b.size());
  b.resize(b.size() + 100, 0xAB);
  const DecodeResult r = decode(b);
  ASSERT_TRUE(r.status.is_ok());
  EXPECT_EQ(r.consumed, size);
}

TEST(ClassicHeader, NonZeroPaddingIsAccepted) {
  Header h = one_var_header(Version::kCdf1);
  h.gatts = {make_attr("b", NC_BYTE, 1)};
  std::vector<uint8_t> b = encode(h);
  // name "x" of the dimension: count at 16, 'x' at 20, padding at 21..23
  ASSERT_EQ(b[20], 'x');
  b[21] = b[22] = b[23] = 0x55;
  // value of byte attribute "b" is followed by 3 padding bytes
  const size_t att_value = 4 + 4 + 8 + 12 + 8 + 8 + 4 + 4;
  ASSERT_EQ(b[att_value], 1);
  b[att_value + 1] = 0x77;
  const DecodeResult r = decode(b);
  ASSERT_TRUE(r.status.is_ok()) << r.status.message();
  EXPECT_EQ(r.header, h);
  EXPECT_EQ(encode(r.header)[21], 0);  // encoding writes zeros
}

TEST(ClassicHeader, BadMagic) {
  std::vector<uint8_t> b = encode(Header{});
  for (uint8_t version : {0, 3, 4, 6, 0xFF}) {
    b[3] = version;
    EXPECT_EQ(decode_code(b), NC_ENOTNC);
  }
  const char hdf5[] = "\x89HDF\r\n\x1a\n";
  EXPECT_EQ(decode_code(std::vector<uint8_t>(hdf5, hdf5 + 8)), NC_ENOTNC);
  const DecodeResult r = decode(std::vector<uint8_t>{'X', 'D', 'F', 1, 0, 0, 0, 0});
  EXPECT_EQ(r.status.code(), NC_ENOTNC);
  EXPECT_EQ(r.need_bytes, 0);  // not a truncation
}

TEST(ClassicHeader, UnknownTypes) {
  for (Version v : kVersions) {
    for (nc_type bad : {NC_NAT, NC_STRING, NC_VLEN, 99, -1}) {
      Header h = one_var_header(v);
      h.vars[0].type = bad;
      EXPECT_EQ(decode_code(h), NC_EBADTYPE);
      h = one_var_header(v);
      h.gatts = {{"a", bad, 0, {}}};
      EXPECT_EQ(decode_code(h), NC_EBADTYPE);
    }
  }
  Header h = one_var_header(Version::kCdf2);
  h.vars[0].type = NC_INT64;  // a CDF-5 type in CDF-2
  EXPECT_EQ(decode_code(h), NC_EBADTYPE);
}

TEST(ClassicHeader, DimensionErrors) {
  for (Version v : kVersions) {
    Header h = one_var_header(v);
    h.vars[0].dimids = {1};
    EXPECT_EQ(decode_code(h), NC_EBADDIM);
    h.vars[0].dimids = {-1};  // written as all ones
    EXPECT_EQ(decode_code(h), NC_EBADDIM);
    h = one_var_header(v);
    h.dims = {{"a", 0}, {"b", 0}};
    EXPECT_EQ(decode_code(h), NC_EUNLIMIT);
    h = one_var_header(v);
    h.dims = {{"x", 4}, {"t", 0}};
    h.vars[0].dimids = {0, 1};
    EXPECT_EQ(decode_code(h), NC_EUNLIMPOS);
  }
}

TEST(ClassicHeader, NameRules) {
  EXPECT_TRUE(is_valid_name("x"));
  EXPECT_TRUE(is_valid_name("_x1"));
  EXPECT_TRUE(is_valid_name("9lives"));
  EXPECT_TRUE(is_valid_name("a b"));
  EXPECT_TRUE(is_valid_name("a-b.c+d@e:f"));
  EXPECT_TRUE(is_valid_name("\xc3\xa9t\xc3\xa9"));
  EXPECT_TRUE(is_valid_name("\xf0\x9f\x98\x80"));
  EXPECT_TRUE(is_valid_name(std::string(NC_MAX_NAME, 'a')));
  EXPECT_FALSE(is_valid_name(""));
  EXPECT_FALSE(is_valid_name(std::string(NC_MAX_NAME + 1, 'a')));
  EXPECT_FALSE(is_valid_name("-x"));
  EXPECT_FALSE(is_valid_name(" x"));
  EXPECT_FALSE(is_valid_name("x "));
  EXPECT_FALSE(is_valid_name("a/b"));
  EXPECT_FALSE(is_valid_name("a\tb"));
  EXPECT_FALSE(is_valid_name(std::string("a\0b", 3)));
  EXPECT_FALSE(is_valid_name("a\x7f"));
  EXPECT_FALSE(is_valid_name("\xff"));
  EXPECT_FALSE(is_valid_name("a\xc3"));          // truncated sequence
  EXPECT_FALSE(is_valid_name("\xc0\xaf"));       // overlong '/'
  EXPECT_FALSE(is_valid_name("\xed\xa0\x80"));   // surrogate
  EXPECT_FALSE(is_valid_name("\xf4\x90\x80\x80"));  // above U+10FFFF
}

TEST(ClassicHeader, BadNames) {
  const std::vector<std::string> bad_names = {"", "a/b", "x ", "-x", "\xff\xfe",
                                             std::string("a\0", 2)};
  for (const std::string& bad : bad_names) {
    SCOPED_TRACE(bad);
    Header h = one_var_header(Version::kCdf2);
    h.dims[0].name = bad;
    EXPECT_EQ(decode_code(h), NC_EBADNAME);
    h = one_var_header(Version::kCdf2);
    h.vars[0].name = bad;
    EXPECT_EQ(decode_code(h), NC_EBADNAME);
    h = one_var_header(Version::kCdf2);
    h.vars[0].atts = {make_attr(bad, NC_INT, 1)};
    EXPECT_EQ(decode_code(h), NC_EBADNAME);
  }
  Header h = one_var_header(Version::kCdf5);
  h.dims[0].name = std::string(NC_MAX_NAME + 1, 'n');
  EXPECT_EQ(decode_code(h), NC_EMAXNAME);
}

TEST(ClassicHeader, DuplicateNames) {
  Header h = one_var_header(Version::kCdf1);
  h.dims.push_back({"x", 2});
  EXPECT_EQ(decode_code(h), NC_ENAMEINUSE);
  h = one_var_header(Version::kCdf1);
  h.vars.push_back({"v", {0}, {}, NC_INT, 16, 528});
  EXPECT_EQ(decode_code(h), NC_ENAMEINUSE);
  h = one_var_header(Version::kCdf1);
  h.gatts = {make_attr("a", NC_INT, 1), make_attr("a", NC_BYTE, 2)};
  EXPECT_EQ(decode_code(h), NC_ENAMEINUSE);
  h = one_var_header(Version::kCdf1);
  h.vars[0].atts = {make_attr("a", NC_INT, 1), make_attr("a", NC_INT, 1)};
  EXPECT_EQ(decode_code(h), NC_ENAMEINUSE);
  // The same name in different scopes is fine.
  h = one_var_header(Version::kCdf1);
  h.dims[0].name = "v";
  h.gatts = {make_attr("v", NC_INT, 1)};
  h.vars[0].atts = {make_attr("v", NC_INT, 1)};
  EXPECT_EQ(decode_code(h), NC_NOERR);
}

TEST(ClassicHeader, BadListTags) {
  Header h = one_var_header(Version::kCdf1);
  std::vector<uint8_t> b = encode(h);
  b[8 + 3] = 0x0B;  // dimension list tagged as variables
  EXPECT_EQ(decode_code(b), NC_ENOTNC);
  // ZERO tag with a non-zero count
  b = encode(h);
  b[8 + 3] = 0;
  EXPECT_EQ(decode_code(b), NC_ENOTNC);
  // A non-zero tag with a zero count is accepted, as netCDF does.
  b = encode(Header{});
  b[8 + 3] = 0x0A;
  EXPECT_EQ(decode_code(b), NC_NOERR);
}

TEST(ClassicHeader, CountsAboveIntMax) {
  std::vector<uint8_t> b = encode(Header{});
  b[8 + 3] = 0x0A;
  b[12] = 0x80;  // 2^31 dimensions
  EXPECT_EQ(decode_code(b), NC_EMAXDIMS);
  b = encode(Header{});
  b[16 + 3] = 0x0C;
  b[20] = 0xFF;
  EXPECT_EQ(decode_code(b), NC_EMAXATTS);
  b = encode(Header{});
  b[24 + 3] = 0x0B;
  b[28] = 0x80;
  EXPECT_EQ(decode_code(b), NC_EMAXVARS);
}

// A plausible count with too few bytes behind it is a truncation (the
// header may simply be large), and must not allocate for the count.
TEST(ClassicHeader, LargeCountsWithFewBytes) {
  std::vector<uint8_t> b = encode(Header{});
  b[8 + 3] = 0x0A;
  b[12] = 0x7F;
  b[13] = b[14] = b[15] = 0xFF;  // 2^31-1 dimensions
  b.resize(16);                  // and nothing after the count
  const DecodeResult r = decode(b);
  EXPECT_EQ(r.status.code(), NC_ENOTNC);
  EXPECT_GT(r.need_bytes, int64_t(b.size()));
  // CDF-5 attribute of 2^62 doubles: a size no file can hold.
  Header h;
  h.version = Version::kCdf5;
  h.gatts = {make_attr("a", NC_DOUBLE, 1)};
  b = encode(h);
  const size_t nelems_at = 4 + 8 + 12 + 12 + (8 + 4) + 4;
  ASSERT_EQ(b[nelems_at + 7], 1);
  b[nelems_at] = 0x40;
  EXPECT_EQ(decode_code(b), NC_EINVAL);
}

TEST(ClassicHeader, NegativeSizesInCdf5) {
  Header h = one_var_header(Version::kCdf5);
  std::vector<uint8_t> b = encode(h);
  const size_t dim_len_at = 4 + 8 + 12 + 8 + 4;  // after the name "x"
  ASSERT_EQ(b[dim_len_at + 7], 4);
  b[dim_len_at] = 0x80;
  EXPECT_EQ(decode_code(b), NC_EINVAL);
  b = encode(h);
  b[4] = 0x80;  // numrecs negative but not all ones
  EXPECT_EQ(decode_code(b), NC_EINVAL);
  b = encode(h);
  b[b.size() - 8] = 0x80;  // begin
  EXPECT_EQ(decode_code(b), NC_ENOTNC);
}

TEST(ClassicHeader, ImplausibleOffsets) {
  for (Version v : kVersions) {
    Header h = one_var_header(v);
    h.vars[0].begin = 0;  // inside the header
    EXPECT_EQ(decode_code(h), NC_ENOTNC);
    h.vars[0].begin = encoded_size(h) - 4;
    EXPECT_EQ(decode_code(h), NC_ENOTNC);
    h.vars[0].begin = encoded_size(h);  // right after the header: fine
    EXPECT_EQ(decode_code(h), NC_NOERR);
    h = one_var_header(v);
    h.vars.push_back({"w", {0}, {}, NC_INT, 16, 520});  // overlaps v (512..528)
    EXPECT_EQ(decode_code(h), NC_ENOTNC);
    h.vars[1].begin = 500;  // before v: out of order
    EXPECT_EQ(decode_code(h), NC_ENOTNC);
    h.vars[1].begin = 528;
    EXPECT_EQ(decode_code(h), NC_NOERR);
    // a record variable inside the fixed-size section
    h.dims.push_back({"t", 0});
    h.vars.push_back({"r", {1, 0}, {}, NC_INT, 16, 530});
    EXPECT_EQ(decode_code(h), NC_ENOTNC);
    h.vars[2].begin = 544;
    EXPECT_EQ(decode_code(h), NC_NOERR);
  }
}

TEST(ClassicHeader, VariableTooLargeForVersion) {
  Header h;
  h.version = Version::kCdf1;
  h.dims = {{"big", 1 << 30}};
  h.vars = {{"a", {0}, {}, NC_INT, 0, 512}, {"b", {0}, {}, NC_INT, 0, 5000000000}};
  EXPECT_EQ(decode_code(h), NC_EVARSIZE);  // two 4 GiB variables
  h.version = Version::kCdf5;
  EXPECT_EQ(decode_code(h), NC_NOERR);
  // The vsize field is not trusted: PnetCDF ignores it.
  h.vars[0].vsize = 12345;
  EXPECT_EQ(decode_code(h), NC_NOERR);
}

}  // namespace
}  // namespace exa::format
