// Writes the seed corpora of the fuzz_partitioned_* targets (valid inputs in
// the layouts of partitioned_fuzz_input.hpp). Run from the repository root:
//   c++ -std=c++20 -Isrc -Iinclude -Itests/fuzz tests/fuzz/make_partitioned_corpus.cpp \
//       src/format/*.cpp src/util/*.cpp -o /tmp/mkcorpus && /tmp/mkcorpus tests/fuzz/corpus
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <string>
#include <vector>

#include "format/partitioned.hpp"
#include "partitioned_fuzz_input.hpp"
#include "util/crc32c.hpp"

namespace pf = exa::format::partitioned;
using exa::format::Attribute;

static void write(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

static pf::Block block(const std::string& path, int nvars, bool compact) {
  pf::Block b;
  b.path = path;
  b.dims = {{"n", 10}, {"m", 0}};
  b.atts = {Attribute{"title", NC_CHAR, 3, {'a', 'b', 'c'}}};
  for (int i = 0; i < nvars; ++i) {
    pf::BlockVariable v;
    v.var.name = "v" + std::to_string(i);
    v.var.type = i % 2 ? NC_INT64 : NC_FLOAT;
    v.var.dimids = {i % 2, 0};
    v.var.vsize = 40;
    v.var.begin = 8192 + 40 * i;
    v.var.atts = {Attribute{"scale", NC_DOUBLE, 1, {63, 240, 0, 0, 0, 0, 0, 0}}};
    if (compact && i == 0) {
      v.flags = pf::kVarCompact;
      v.data.assign(40, 7);
      v.var.begin = 0;
    }
    b.vars.push_back(v);
  }
  return b;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "tests/fuzz/corpus";
  // superblocks: one valid slot, two valid slots
  pf::Superblock sb;
  sb.generation = 2;
  sb.index_offset = 8192;
  sb.index_size = 32 + 64 + 1 + 24 + 64 + 1;
  sb.index_head_size = 32 + 64 + 1;
  sb.nblocks = 1;
  sb.ndims = 2;
  sb.nvars = 3;
  sb.numrecs = 4;
  sb.record_begin = 9000;
  sb.record_size = 8;
  sb.file_end = 20000;
  auto s0 = pf::encode_superblock(sb);
  write(dir + "/partitioned_superblock/one_slot", std::vector<uint8_t>(s0.begin(), s0.end()));
  sb.generation = 3;
  auto s1 = pf::encode_superblock(sb);
  std::vector<uint8_t> both(s0.begin(), s0.end());
  both.insert(both.end(), s1.begin(), s1.end());
  write(dir + "/partitioned_superblock/two_slots", both);
  sb.heartbeat_us = 1795000000000000ull;  // an SWMR writer's superblock (flag 1)
  auto s2 = pf::encode_superblock(sb);
  write(dir + "/partitioned_superblock/heartbeat", std::vector<uint8_t>(s2.begin(), s2.end()));

  sb.heartbeat_us = 0;
  sb.record_sections = true;  // flag 2: record sections in the index head
  sb.numrecs = 6;
  sb.record_begin = 12000;
  sb.record_size = 16;
  auto s3 = pf::encode_superblock(sb);
  write(dir + "/partitioned_superblock/record_sections", std::vector<uint8_t>(s3.begin(), s3.end()));

  {  // flag 4: index blocks in the table; flag 8: a writer has the file open
    pf::Superblock ib = sb;
    ib.record_sections = false;
    ib.numrecs = 0;
    ib.record_begin = 0;
    ib.record_size = 0;
    ib.index_blocks = true;
    auto s4 = pf::encode_superblock(ib);
    write(dir + "/partitioned_superblock/index_blocks", std::vector<uint8_t>(s4.begin(), s4.end()));
    ib.writer_open = true;
    auto s5 = pf::encode_superblock(ib);
    write(dir + "/partitioned_superblock/writer_open", std::vector<uint8_t>(s5.begin(), s5.end()));
  }

  {  // flag 16: kept pages (page references absolute, pages outside the table)
    pf::Superblock kp = sb;
    kp.record_sections = false;
    kp.numrecs = 0;
    kp.record_begin = 0;
    kp.record_size = 0;
    kp.kept_pages = true;
    auto s6 = pf::encode_superblock(kp);
    write(dir + "/partitioned_superblock/kept_pages", std::vector<uint8_t>(s6.begin(), s6.end()));
  }

  {  // flag 16: a table that keeps page 1 of the table before it (the writer's
     // 512 entries a page, so 513 blocks: two pages)
    pf::IndexTable idx;
    uint64_t at = uint64_t(1) << 20;
    for (int i = 0; i < 513; ++i) {
      char name[16];
      std::snprintf(name, sizeof name, "/e%04d", i);
      idx.blocks.push_back({i == 0 ? std::string("/") : std::string(name), at, 200, 0x1234u + uint32_t(i), 1, 1, 1});
      at += 200;
    }
    std::vector<uint8_t> file;  // from offset 4096: the first table, then the second
    uint64_t head = 0;
    std::vector<pf::PageRef> placed, again;
    file = pf::encode_index_placed(idx, pf::kFirstRegion, &head, &placed);
    const uint64_t lead = file.size();
    std::vector<uint8_t> second =
        pf::encode_index_keeping(idx, pf::kFirstRegion + lead, placed, {true, false}, &head, &again);
    file.insert(file.end(), second.begin(), second.end());
    std::vector<uint8_t> in;
    exa::fuzz::put_u64(in, idx.blocks.size());
    exa::fuzz::put_u64(in, 513);
    exa::fuzz::put_u64(in, 513);
    exa::fuzz::put_u64(in, head | uint64_t(1) << 61);  // (bit 61: superblock flag 16 in the harness)
    exa::fuzz::put_u64(in, lead);
    in.insert(in.end(), file.begin(), file.end());
    write(dir + "/partitioned_index/kept_pages", in);
  }

  {  // index blocks (entry flag 1, reserved paths, no objects) after the metadata blocks
    pf::IndexTable idx;
    idx.blocks.push_back({"/", uint64_t(1) << 20, 200, 0x1234u, 1, 2, 1});
    idx.blocks.push_back({"/event1", (uint64_t(1) << 20) + 200, 200, 0x1235u, 1, 2, 2});
    for (uint64_t varid : {0, 12}) {
      pf::BlockEntry e;
      e.path = pf::index_block_path(varid);
      e.offset = (uint64_t(1) << 20) + 400 + 300 * varid;
      e.size = 300;
      e.crc = 0x4321u;
      e.flags = pf::kEntryIndexBlock;
      idx.blocks.push_back(e);
    }
    std::vector<uint8_t> in;
    exa::fuzz::put_u64(in, idx.blocks.size());
    exa::fuzz::put_u64(in, 4);
    exa::fuzz::put_u64(in, 3);
    uint64_t head = 0;
    std::vector<uint8_t> table = pf::encode_index(idx, 2, &head);  // two pages: the second all index blocks
    exa::fuzz::put_u64(in, head | uint64_t(1) << 62);  // (bit 62: superblock flag 4 in the harness)
    in.insert(in.end(), table.begin(), table.end());
    write(dir + "/partitioned_index/index_blocks", in);
  }

  {  // flags 2, 4 and 8 together: index blocks in a file with records (issue 20)
    pf::Superblock rb = sb;
    rb.index_blocks = true;
    rb.writer_open = true;
    auto s6 = pf::encode_superblock(rb);
    write(dir + "/partitioned_superblock/records_index_blocks", std::vector<uint8_t>(s6.begin(), s6.end()));
    // The table of such a file: record sections (two index commits closed
    // the current section) and index blocks after the metadata blocks.
    pf::IndexTable idx;
    idx.blocks.push_back({"/", uint64_t(1) << 20, 200, 0x1234u, 1, 2, 2});
    pf::BlockEntry e;
    e.path = pf::index_block_path(1);
    e.offset = (uint64_t(1) << 20) + 200;
    e.size = 300;
    e.crc = 0x4321u;
    e.flags = pf::kEntryIndexBlock;
    idx.blocks.push_back(e);
    idx.sections.present = true;
    idx.sections.current_first = 9;
    idx.sections.closed = {{0, 5, 8192, 0, 8}, {5, 4, 8232, 0, 8}};  // (the harness: 8-byte records)
    std::vector<uint8_t> in;
    exa::fuzz::put_u64(in, idx.blocks.size());
    exa::fuzz::put_u64(in, 2);
    exa::fuzz::put_u64(in, 2);
    uint64_t head = 0;
    std::vector<uint8_t> table = pf::encode_index(idx, pf::kIndexPageEntries, &head);
    exa::fuzz::put_u64(in, head | uint64_t(1) << 63 | uint64_t(1) << 62);  // flags 2 and 4 in the harness
    in.insert(in.end(), table.begin(), table.end());
    write(dir + "/partitioned_index/records_index_blocks", in);
  }

  // index tables
  for (int n : {1, 3, 5, 2}) {
    pf::IndexTable idx;
    uint64_t at = n == 2 ? uint64_t(1) << 20 : 4096, ndims = 0, nvars = 0;  // 2: clear of the table the harness puts at 4096
    for (int i = 0; i < n; ++i) {
      std::string path = i == 0 ? "/" : "/event" + std::to_string(i);
      idx.blocks.push_back({path, at, 200, 0x1234u + uint32_t(i), 1, 2, uint64_t(i + 1)});
      at += 200;
      ndims += 2;
      nvars += uint64_t(i + 1);
    }
    // 2: with record sections (as after two redefs that added record variables)
    const bool sections = n == 2;
    if (sections) {
      idx.sections.present = true;
      idx.sections.current_first = 7;
      idx.sections.closed = {{0, 3, 8192, 0, 8}, {0, 3, 8216, 8, 12}, {3, 4, 8228, 0, 12}, {0, 7, 8276, 12, 16}};
    }
    std::vector<uint8_t> in;
    exa::fuzz::put_u64(in, uint64_t(n));
    exa::fuzz::put_u64(in, ndims);
    exa::fuzz::put_u64(in, nvars);
    uint64_t head = 0;
    std::vector<uint8_t> table = pf::encode_index(idx, n == 5 ? 2 : pf::kIndexPageEntries, &head);  // 5: three pages
    exa::fuzz::put_u64(in, sections ? head | uint64_t(1) << 63 : head);
    in.insert(in.end(), table.begin(), table.end());
    write(dir + "/partitioned_index/" + (sections ? std::string("record_sections") : "blocks_" + std::to_string(n)), in);
  }

  // metadata blocks
  int k = 0;
  for (auto [path, nvars, compact] :
       {std::tuple{"/", 1, false}, std::tuple{"/event7", 3, true}, std::tuple{"/\xc3\xa9v\xc3\xa9nement8", 3, true}}) {
    pf::Block b = block(path, nvars, compact);
    if (b.path != "/" && b.path != "/event7") {  // UTF-8 path ("/événement8"); v2 compact too, not written yet (as an
                                                  // enddef leaves it for a commit to patch)
      b.vars[2].flags = pf::kVarCompact;
      b.vars[2].var.begin = 0;
    }
    std::vector<uint8_t> bytes = pf::encode_block(b);
    std::vector<uint8_t> in;
    exa::fuzz::put_u64(in, 2);  // total dims
    exa::fuzz::put_u64(in, b.atts.size());
    exa::fuzz::put_u64(in, b.dims.size());
    exa::fuzz::put_u64(in, b.vars.size());
    in.push_back(1);  // fix the CRC
    in.push_back(uint8_t(b.path.size()));
    in.insert(in.end(), b.path.begin(), b.path.end());
    in.insert(in.end(), bytes.begin(), bytes.end());
    write(dir + "/partitioned_block/block_" + std::to_string(k++), in);
  }
  return 0;
}
