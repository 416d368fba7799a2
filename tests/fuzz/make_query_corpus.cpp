// Writes the seed corpus of fuzz_query_decode (first byte: which decoder).
// Run from the repository root:
//   c++ -std=c++20 -Isrc -Iinclude tests/fuzz/make_query_corpus.cpp src/query/*.cpp \
//       src/util/*.cpp -lroaring -o /tmp/mkq && /tmp/mkq tests/fuzz/corpus/query_decode
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "query/expr.hpp"
#include "query/index_format.hpp"
#include "query/parser.hpp"

namespace q = exa::query;

static void write(const std::string& path, unsigned char selector, const std::vector<unsigned char>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fputc(selector, f);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  const char* texts[] = {"energy > 1.9 and x < 0.5", "not (a == 3 or b != -4) && !(c>=18446744073709551615)",
                         "t <= 1e-3 or t = nan or t > -inf", "((x<1)||(y>=2))&&not z==0"};
  int k = 0;
  for (const char* t : texts) {
    q::Expr e;
    if (!q::parse(t, &e).is_ok()) return 1;
    write(dir + "/query_" + std::to_string(k), 0, q::encode(e));
    write(dir + "/text_" + std::to_string(k), 1, std::vector<unsigned char>(t, t + std::string(t).size()));
    ++k;
  }
  q::IndexHeader h;
  h.var_type = 5;
  h.ndims = 1;
  h.nrows = 5000;
  h.row_elems = 1;
  h.chunk_rows = 4096;
  h.var_name = "energy";
  h.edges = {0.5, 1.0};
  h.chunks.resize(2);
  for (auto& c : h.chunks) {
    c.offset = 4096;
    c.length = 10;
    c.flags = q::kHasValues;
  }
  write(dir + "/header_0", 2, q::encode_header(h));
  // Version 2 with every chunk flag: stale with widened bounds, stale
  // without bounds, a data CRC.
  h.chunks.resize(3);
  h.nrows = 9000;
  h.chunks[0].flags = q::kHasValues | q::kHasDataCrc;
  h.chunks[0].data_crc = 0x12345678;
  h.chunks[1].flags = q::kHasValues | q::kHasNaN | q::kStale | q::kHasDataCrc;
  h.chunks[1].min = -2;
  h.chunks[1].max = 7.5;
  h.chunks[2].flags = q::kStale | q::kNoBounds;
  write(dir + "/header_1", 2, q::encode_header(h));
  // Version 1 (40-byte chunk entries).
  h.version = q::kIndexVersionV1;
  for (auto& c : h.chunks) {
    c.flags &= q::kKnownFlagsV1;
    c.data_crc = 0;
  }
  write(dir + "/header_v1", 2, q::encode_header(h));
  // A min/max record (no bitmaps, no edges): one bounded chunk, one without bounds.
  q::IndexHeader mm = q::minmax_header(3, 5, 2, "x", 10, 8, 4);
  mm.chunks[0].flags = q::kStale | q::kNoBitmaps | q::kHasValues | q::kHasNaN;
  mm.chunks[0].min = -1.5;
  mm.chunks[0].max = 4;
  write(dir + "/header_minmax", 2, q::encode_header(mm));
  q::ChunkBitmaps bm(3);
  for (uint32_t i = 0; i < 4096; i += 3) bm.add(i % 3, i);
  for (uint32_t i = 100; i < 900; ++i) bm.add(2, i);
  bm.optimize();
  write(dir + "/chunk_0", 3, bm.encode());
  return 0;
}
