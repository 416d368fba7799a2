// The structures of creating a partitioned file of many objects (issue 16,
// item 4): the direct block encoder writes make_block's bytes, the counting
// sort of plan_image groups as a stable sort by path does, and what a rank
// keeps of its own ids after a private-blocks enddef follows its blocks,
// not its objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>

#include "format/layout.hpp"
#include "format/partitioned.hpp"
#include "format/partitioned_image.hpp"
#include "model/dataset.hpp"
#include "model/id_map.hpp"

namespace {

namespace pf = exa::format::partitioned;
using exa::format::Attribute;
using exa::format::Header;
using exa::format::Layout;
using exa::format::Variable;

// A header of `blocks` groups in a scrambled order (paths sort unlike the
// order of definition, as "sr10" < "sr2"), each with dimensions and
// variables, some in the root block, some with attributes; `order` receives
// a permutation of the objects to plan with.
Header random_header(std::mt19937& rng, int blocks, pf::ObjectOrder* order) {
  Header h;
  h.version = exa::format::Version::kCdf5;
  h.gatts = {Attribute{"title", NC_CHAR, 3, {'a', 'b', 'c'}}};
  for (int b = 0; b < blocks; ++b) {
    const std::string path = b % 7 == 3 ? "" : "/grp_r" + std::to_string(rng() % 50) + "_sr" + std::to_string(b);
    const int ndims = 1 + int(rng() % 3);
    const int first = int(h.dims.size());
    for (int d = 0; d < ndims; ++d)
      h.dims.push_back({(path.empty() ? "" : path + "/") + "d" + std::to_string(b) + "_" + std::to_string(d),
                        int64_t(1 + rng() % 1000)});
    const int nvars = int(rng() % 4);
    for (int v = 0; v < nvars; ++v) {
      Variable var;
      var.name = (path.empty() ? "" : path + "/") + "v" + std::to_string(b) + "_" + std::to_string(v);
      var.type = v % 2 ? NC_INT64 : NC_FLOAT;
      for (int d = 0; d < int(rng() % 3); ++d) var.dimids.push_back(first + int(rng() % unsigned(ndims)));
      if (v == 2) var.atts.push_back(Attribute{"units", NC_CHAR, 2, {'c', 'm'}});
      h.vars.push_back(var);
    }
  }
  order->dims.resize(h.dims.size());
  order->vars.resize(h.vars.size());
  std::iota(order->dims.begin(), order->dims.end(), 0);
  std::iota(order->vars.begin(), order->vars.end(), 0);
  std::shuffle(order->dims.begin(), order->dims.end(), rng);
  std::shuffle(order->vars.begin(), order->vars.end(), rng);
  return h;
}

// The grouping by brute force: objects in `order`, stably sorted by the path of their name.
template <typename Objects>
std::vector<int> by_path(const Objects& objects, const std::vector<int>& order) {
  std::vector<int> out = order;
  auto path = [&](int i) {
    std::string_view p, l;
    pf::split_name(objects[size_t(i)].name, &p, &l);
    return std::string(p);
  };
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) { return path(a) < path(b); });
  return out;
}

}  // namespace

TEST(CreateStructures, PlanGroupsAsAStableSortByPath) {
  std::mt19937 rng(16);
  for (int round = 0; round < 20; ++round) {
    pf::ObjectOrder order;
    const Header h = random_header(rng, 1 + int(rng() % 200), &order);
    pf::Image img;
    ASSERT_TRUE(pf::plan_image(h, &img, nullptr, order).is_ok());
    EXPECT_EQ(img.dim_order, by_path(h.dims, order.dims));
    EXPECT_EQ(img.var_order, by_path(h.vars, order.vars));
    ASSERT_EQ(img.first_dim.size(), img.index.blocks.size() + 1);
    for (size_t b = 0; b < img.index.blocks.size(); ++b) {
      if (b > 0) {
        EXPECT_LT(img.index.blocks[b - 1].path, img.index.blocks[b].path);
      }
      EXPECT_EQ(img.index.blocks[b].ndims, uint64_t(img.first_dim[b + 1] - img.first_dim[b]));
      EXPECT_EQ(img.index.blocks[b].nvars, uint64_t(img.first_var[b + 1] - img.first_var[b]));
      for (int64_t pos = img.first_var[b]; pos < img.first_var[b + 1]; ++pos) {
        std::string_view p, l;
        pf::split_name(h.vars[size_t(img.var_order[size_t(pos)])].name, &p, &l);
        EXPECT_EQ(p, img.index.blocks[b].path);
      }
    }
    EXPECT_EQ(img.index.blocks[0].path, "/");
    EXPECT_EQ(img.index.blocks[0].natts, 1u);
  }
}

TEST(CreateStructures, BadNamesAreRefusedAsBefore) {
  for (const char* bad : {"/x", "//x", "/a//x", "/a/", "/a b/x ", "/1a/x\x01"}) {
    Header h;
    h.version = exa::format::Version::kCdf5;
    h.dims = {{"/ok/n", 2}, {bad, 3}};
    pf::Image img;
    EXPECT_EQ(pf::plan_image(h, &img).code(), NC_EBADNAME) << bad;
    h.dims = {{"/ok/n", 2}};
    Variable v;
    v.name = bad;
    v.type = NC_INT;
    h.vars = {v};
    EXPECT_EQ(pf::plan_image(h, &img).code(), NC_EBADNAME) << bad;
  }
  Header h;
  h.version = exa::format::Version::kCdf5;
  h.dims = {{"n", 2}, {"/a/b/n", 2}};
  pf::Image img;
  EXPECT_TRUE(pf::plan_image(h, &img).is_ok());
}

TEST(CreateStructures, DirectEncodingIsTheBlocksBytes) {
  std::mt19937 rng(4);
  for (int round = 0; round < 20; ++round) {
    pf::ObjectOrder order;
    Header h = random_header(rng, 1 + int(rng() % 100), &order);
    std::vector<uint8_t> compact(h.vars.size());
    for (auto& c : compact) c = rng() % 3 == 0 ? pf::kNotCompact : pf::kCompactPending;
    pf::Image img;
    ASSERT_TRUE(pf::plan_image(h, &img, &compact, order).is_ok());
    Layout layout;
    ASSERT_TRUE(pf::place_image(h, img, 4096, &layout).is_ok());
    std::vector<uint8_t> run = {7};  // appended after what is there
    for (size_t b = 0; b < img.index.blocks.size(); ++b) {
      const size_t at = run.size();
      pf::append_image_block(h, img, b, &run);
      const std::vector<uint8_t> want = pf::encode_block(pf::make_block(h, img, b));
      ASSERT_EQ(std::vector<uint8_t>(run.begin() + ptrdiff_t(at), run.end()), want) << "block " << b;
      EXPECT_EQ(int64_t(want.size()), int64_t(img.index.blocks[b].size));
      bool has = false;
      for (const pf::BlockVariable& bv : pf::make_block(h, img, b).vars) has = has || bv.flags != 0;
      EXPECT_EQ(pf::image_block_has_compact(img, b), has);
    }
    EXPECT_EQ(run[0], 7);
  }
}

// plan_image records each object's local-name length and each variable's
// size and record flag once; every later pass reads them there. They equal
// what the header gives, and the blocks encoded with them are the blocks
// encoded from the header alone (an image without them).
TEST(CreateStructures, PlanRecordsNamesAndSizesOnce) {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    pf::ObjectOrder order;
    Header h = random_header(rng, 1 + int(rng() % 100), &order);
    if (round % 2) {  // a record dimension for some variables
      h.dims.push_back({"time", 0});
      for (size_t i = 0; i < h.vars.size(); i += 3) {
        h.vars[i].dimids.insert(h.vars[i].dimids.begin(), int(h.dims.size() - 1));
      }
      order.dims.push_back(int(h.dims.size() - 1));
    }
    std::vector<uint8_t> compact(h.vars.size());
    for (size_t i = 0; i < compact.size(); ++i)
      compact[i] = exa::format::is_record_var(h, h.vars[i]) ? pf::kNotCompact : uint8_t(rng() % 3);
    pf::Image img;
    ASSERT_TRUE(pf::plan_image(h, &img, &compact, order).is_ok());
    ASSERT_EQ(img.dim_local.size(), h.dims.size());
    ASSERT_EQ(img.var_local.size(), h.vars.size());
    for (size_t i = 0; i < h.dims.size(); ++i) {
      std::string_view path, local;
      pf::split_name(h.dims[i].name, &path, &local);
      EXPECT_EQ(size_t(img.dim_local[i]), local.size()) << h.dims[i].name;
    }
    for (size_t i = 0; i < h.vars.size(); ++i) {
      std::string_view path, local;
      pf::split_name(h.vars[i].name, &path, &local);
      EXPECT_EQ(size_t(img.var_local[i]), local.size()) << h.vars[i].name;
      EXPECT_EQ(img.var_size[i], exa::format::var_bytes(h, h.vars[i])) << h.vars[i].name;
      EXPECT_EQ(img.var_record[i] != 0, exa::format::is_record_var(h, h.vars[i])) << h.vars[i].name;
      EXPECT_EQ(pf::image_var_bytes(h, img, int(i)), img.var_size[i]);
    }
    pf::Image bare = img;  // the same plan without what plan_image recorded
    bare.dim_local.clear();
    bare.var_local.clear();
    bare.var_size.clear();
    bare.var_record.clear();
    for (size_t b = 0; b < img.index.blocks.size(); ++b) {
      EXPECT_EQ(pf::encoded_block_size(h, img, b), pf::encoded_block_size(h, bare, b)) << "block " << b;
      std::vector<uint8_t> with, without;
      pf::append_image_block(h, img, b, &with);
      pf::append_image_block(h, bare, b, &without);
      ASSERT_EQ(with, without) << "block " << b;
      EXPECT_EQ(pf::make_block(h, img, b), pf::make_block(h, bare, b));
    }
  }
}

// A rank's own objects after a private-blocks enddef: blocks of consecutive
// global ids, defined in an order unlike the file's. The map keeps one run
// per block, whatever the number of objects.
TEST(CreateStructures, IdMapFollowsBlocksNotObjects) {
  std::mt19937 rng(5);
  const int64_t per_block = 40, nblocks = 2500, foreign = 3;  // foreign blocks between own ones
  std::vector<int64_t> starts(static_cast<size_t>(nblocks));
  for (int64_t b = 0; b < nblocks; ++b) starts[size_t(b)] = b * per_block * (1 + foreign);
  std::shuffle(starts.begin(), starts.end(), rng);
  std::vector<int64_t> own;
  for (int64_t s : starts)
    for (int64_t k = 0; k < per_block; ++k) own.push_back(s + k);
  const exa::model::IdMap map(own);
  EXPECT_EQ(map.own(), nblocks * per_block);
  EXPECT_EQ(map.runs(), size_t(nblocks));
  // Lookups agree with the definition: own ids first, then the rest in file order.
  const int64_t total = nblocks * per_block * (1 + foreign);
  std::vector<int64_t> local_of(size_t(total), -1);
  for (size_t l = 0; l < own.size(); ++l) local_of[size_t(own[l])] = int64_t(l);
  int64_t next = map.own();
  for (int64_t g = 0; g < total; ++g) {
    if (local_of[size_t(g)] < 0) local_of[size_t(g)] = next++;
    ASSERT_EQ(map.local(g), local_of[size_t(g)]) << g;
    ASSERT_EQ(map.global(local_of[size_t(g)]), g) << g;
  }
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>

#include "model/dataset.hpp"

namespace {

// Heap bytes in use (glibc's own allocator: arenas and mmapped chunks).
int64_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return int64_t(m.uordblks) + int64_t(m.hblkhd);
}

}  // namespace

// What defining costs per object in a partitioned dataset, as the seed-000
// samples define them (a group per sample, 24 dimensions and 16 variables
// with names of 40-50 characters): bounded, whatever the number of samples.
// (The largest part is the names and the classic Dimension / Variable
// records; a regression that adds a node or a copy per object fails here.)
TEST(CreateStructures, DefineMemoryPerObjectIsBounded) {
  for (int samples : {500, 4000}) {
    const int64_t before = heap_in_use();
    {
      exa::model::Dataset ds(exa::format::Version::kCdf5);
      ds.set_partitioned(true);
      int64_t objects = 0;
      for (int s = 0; s < samples; ++s) {
        const std::string group = "/nu_copy3_grp_r" + std::to_string(5000 + s / 800) + "_sr" +
                                  std::to_string(s / 8 % 100) + "_evt" + std::to_string(s % 8) + "/";
        for (int a = 0; a < 16; ++a) {
          int dimids[2] = {-1, -1};
          const int ndims = a == 0 ? 0 : (a % 3 == 1 ? 2 : 1);
          const std::string var = "edge_index_3d_" + std::to_string(a);
          for (int d = 0; d < ndims; ++d)
            ASSERT_TRUE(ds.def_dim(group + var + "_dim_" + std::to_string(d), 20 + a, &dimids[d]).is_ok());
          int varid = -1;
          ASSERT_TRUE(ds.def_var(group + var, NC_INT64, ndims, dimids, &varid).is_ok());
          objects += ndims + 1;
        }
      }
      // The lists' room beyond their size is never touched (address space,
      // not memory: the dataset grows them 8x at a time), so it is not counted.
      const auto& h = ds.header();
      const int64_t unused = int64_t((h.dims.capacity() - h.dims.size()) * sizeof(exa::format::Dimension) +
                                     (h.vars.capacity() - h.vars.size()) * sizeof(exa::format::Variable));
      const int64_t per_object = (heap_in_use() - before - unused) / objects;
      // (Another allocator -- a sanitizer's -- leaves glibc's counters alone.)
      if (per_object <= 0) GTEST_SKIP() << "heap_in_use() does not see this allocator";
      EXPECT_LE(per_object, 256) << samples << " samples";
    }
  }
}
#endif

// The define-time lists grow 8x at a time: each growth moves every object
// into a fresh buffer whose pages the kernel zeroes on first touch, so at a
// million objects per rank the vector's doubling moved the whole list once
// more in all (dataset_1G, 8 ranks: 12% of the CPU). 20,000 variables and
// dimensions move 5 times (8, 64, 512, 4096, 32768), not 15 by doubling.
TEST(CreateStructures, DefineListsMoveRarely) {
  exa::model::Dataset ds(exa::format::Version::kCdf5);
  ds.set_partitioned(true);
  int dim_moves = 0, var_moves = 0;
  const void* dims_at = nullptr;
  const void* vars_at = nullptr;
  for (int i = 0; i < 20000; ++i) {
    const std::string group = "/grp_" + std::to_string(i / 10) + "/";
    int dimid = -1, varid = -1;
    ASSERT_TRUE(ds.def_dim(group + "n" + std::to_string(i), 3, &dimid).is_ok());
    ASSERT_TRUE(ds.def_var(group + "v" + std::to_string(i), NC_INT, 1, &dimid, &varid).is_ok());
    ASSERT_EQ(varid, i);
    if (ds.header().dims.data() != dims_at) ++dim_moves, dims_at = ds.header().dims.data();
    if (ds.header().vars.data() != vars_at) ++var_moves, vars_at = ds.header().vars.data();
  }
  EXPECT_LE(dim_moves, 5);
  EXPECT_LE(var_moves, 5);
  // Nothing lost in the moves.
  EXPECT_EQ(ds.var(19999).name, "/grp_1999/v19999");
  EXPECT_EQ(ds.var(19999).dimids, (std::vector<int>{19999}));
  EXPECT_EQ(ds.dim(12345).name, "/grp_1234/n12345");
  EXPECT_EQ(ds.find_var("/grp_7/v77"), 77);
}
