// Helpers shared by the classic header and layout tests: building headers
// and reading the golden files written by the system PnetCDF.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "format/classic_header.hpp"

namespace exa::format::testing {

inline std::string golden_path(const std::string& name) {
  return std::string(EXACDF_GOLDEN_DIR) + "/" + name;
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What PnetCDF reported for one golden file (a line of golden.txt).
struct GoldenEntry {
  std::string name;
  int64_t header_size = 0;
  int64_t extent = 0;
  std::vector<int64_t> begins;
};

// golden.txt lines: "<name> header_size=N extent=N begins: b0 b1 ...".
inline std::vector<GoldenEntry> read_golden_list() {
  std::ifstream in(golden_path("golden.txt"));
  std::vector<GoldenEntry> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    GoldenEntry e;
    std::string hs, ex, word;
    ls >> e.name >> hs >> ex >> word;
    e.header_size = std::stoll(hs.substr(hs.find('=') + 1));
    e.extent = std::stoll(ex.substr(ex.find('=') + 1));
    for (int64_t b; ls >> b;) e.begins.push_back(b);
    out.push_back(e);
  }
  return out;
}

// Big-endian bytes of `count` values each `size` bytes wide, value i = seed + i.
inline std::vector<uint8_t> be_values(int64_t count, int size, uint64_t seed) {
  std::vector<uint8_t> out;
  for (int64_t i = 0; i < count; ++i)
    for (int b = size - 1; b >= 0; --b) out.push_back(uint8_t((seed + uint64_t(i)) >> (8 * b)));
  return out;
}

inline Attribute make_attr(const std::string& name, nc_type type, int64_t nelems,
                           uint64_t seed = 1) {
  return {name, type, nelems, be_values(nelems, int(external_size(type)), seed)};
}

// A header using every type the version has, in attributes and variables,
// with fixed, scalar and record variables. Offsets are arbitrary but valid.
inline Header sample_header(Version version) {
  Header h;
  h.version = version;
  h.numrecs = 3;
  h.dims = {{"time", 0}, {"x", 3}, {"y", 5}};
  std::vector<nc_type> types = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE};
  if (version == Version::kCdf5)
    for (nc_type t : {NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64}) types.push_back(t);
  int64_t begin = 100000;
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string n = "t" + std::to_string(types[i]);
    h.gatts.push_back(make_attr("g_" + n, types[i], int64_t(i % 4) + 1, i));
    Variable fixed{"fixed_" + n, {2, 1}, {make_attr("a", types[i], 3)}, types[i], 0, 0};
    Variable rec{"rec_" + n, {0, 1}, {}, types[i], 0, 0};
    Variable scalar{"scalar_" + n, {}, {}, types[i], 0, 0};
    for (Variable* v : {&fixed, &scalar, &rec}) h.vars.push_back(*v);
  }
  // Fixed-size and scalar variables first in the file, record ones after.
  for (Variable& v : h.vars) {
    if (!v.dimids.empty() && v.dimids[0] == 0) continue;
    v.vsize = 120;  // at most 5 x 3 doubles
    v.begin = begin;
    begin += 120;
  }
  for (Variable& v : h.vars) {
    if (v.dimids.empty() || v.dimids[0] != 0) continue;
    v.vsize = 24;
    v.begin = begin;
    begin += 24;
  }
  h.gatts.push_back({"empty_text", NC_CHAR, 0, {}});
  return h;
}

}  // namespace exa::format::testing
