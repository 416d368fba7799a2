// Checks the convert layer against the real PnetCDF 1.12.3: every line of
// data/pnetcdf_convert_oracle.txt (made by data/pnetcdf_convert_oracle.c with
// the system libpnetcdf) is one value put or got through one attribute, with
// PnetCDF's return code and resulting bytes. Return codes and bytes must
// match, NC_ERANGE elements included: Debian builds PnetCDF with
// PNETCDF_ERANGE_FILL=1, which stores the destination type's default fill
// value there (attributes: no _FillValue applies), as exacdf does.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "convert/external.hpp"

namespace {

using exa::convert::from_external;
using exa::convert::to_external;

std::vector<unsigned char> parse_hex(const std::string& s) {
  std::vector<unsigned char> b;
  for (size_t i = 0; i + 1 < s.size(); i += 2)
    b.push_back(static_cast<unsigned char>(std::stoi(s.substr(i, 2), nullptr, 16)));
  return b;
}

std::string to_hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

// Puts of exactly 2^63 into int64 and 2^64 into uint64: PnetCDF reports no
// error but its cast is undefined (x86 gives INT64_MIN and 0); exacdf
// saturates (see external.hpp), so only the return code is compared.
bool undefined_in_pnetcdf(char dir, int mem, int xtype, const std::vector<unsigned char>& in) {
  if (dir != 'P' || (xtype != NC_INT64 && xtype != NC_UINT64)) return false;
  double v = 0;
  if (mem == NC_FLOAT && in.size() == 4) {
    float f;
    std::memcpy(&f, in.data(), 4);
    v = f;
  } else if (mem == NC_DOUBLE && in.size() == 8) {
    std::memcpy(&v, in.data(), 8);
  } else {
    return false;
  }
  return xtype == NC_INT64 ? v == 9223372036854775808.0 : v == 18446744073709551616.0;
}

TEST(ConvertOracle, MatchesSystemPnetcdf) {
  // EXACDF_GOLDEN_DIR, not __FILE__: a ccache base directory makes __FILE__ relative.
  auto path = std::filesystem::path(EXACDF_GOLDEN_DIR) / "pnetcdf_convert_oracle.txt";
  std::ifstream file(path);
  ASSERT_TRUE(file.good()) << "missing " << path;
  std::string line;
  int lines = 0, failures = 0;
  while (std::getline(file, line)) {
    std::istringstream ls(line);
    char dir;
    int cdf, from, to, rc;
    std::string in_hex, out_hex;
    ASSERT_TRUE(ls >> dir >> cdf >> from >> to >> in_hex >> rc >> out_hex) << line;
    auto in = parse_hex(in_hex);
    auto expect = parse_hex(out_hex);
    unsigned char out[8] = {};
    exa::Status st = dir == 'P' ? to_external(in.data(), from, to, 1, out, cdf == 5)
                                : from_external(in.data(), from, to, 1, out, cdf == 5);
    ++lines;
    bool ok = st.code() == rc;
    if (ok && !undefined_in_pnetcdf(dir, from, to, in))
      ok = std::memcmp(out, expect.data(), expect.size()) == 0;
    if (!ok && ++failures <= 40)
      ADD_FAILURE() << line << "  -> exacdf rc " << st.code() << " bytes "
                    << to_hex(out, expect.size());
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(lines, 4000);
}

}  // namespace
