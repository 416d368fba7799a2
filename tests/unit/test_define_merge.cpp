// The MPI-free half of independent define mode: records, the check of
// shared names, payloads, and the merged datasets, with the ranks simulated
// in one process (the MPI half is tested by tests/mpi_exacdf).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/define_merge.hpp"

namespace {

using exa::Status;
using exa::format::Version;
using exa::model::Dataset;
using exa::model::DroppedRecord;
using exa::model::NewObjectBase;
using exa::model::ObjectRecord;

std::vector<uint8_t> be32(int32_t v) {
  auto u = static_cast<uint32_t>(v);
  return {static_cast<uint8_t>(u >> 24), static_cast<uint8_t>(u >> 16), static_cast<uint8_t>(u >> 8),
          static_cast<uint8_t>(u)};
}

// What every rank returns from the simulated merge.
struct MergeOutcome {
  int check_code = NC_NOERR;  // most negative code of the record check
  std::vector<int> apply_codes;
};

// Runs the steps of layer/native_merge.cpp with `ranks` as the ranks.
MergeOutcome simulate_merge(std::vector<Dataset>& ranks, const NewObjectBase& base = {}) {
  const int n = static_cast<int>(ranks.size());
  MergeOutcome out;
  std::vector<std::vector<ObjectRecord>> at_checker(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    for (const auto& rec : exa::model::describe_new_objects(ranks[static_cast<size_t>(r)], base, r))
      at_checker[static_cast<size_t>(exa::model::checking_rank(rec, n))].push_back(rec);
  std::vector<std::vector<DroppedRecord>> dropped(static_cast<size_t>(n));
  for (auto& records : at_checker) {
    Status st = exa::model::check_records(records, &dropped);
    out.check_code = std::min(out.check_code, st.code());
  }
  if (out.check_code != NC_NOERR) return out;
  std::vector<exa::model::OwnObjects> own(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const Dataset& ds = ranks[static_cast<size_t>(r)];
    std::vector<uint8_t> lost[3] = {std::vector<uint8_t>(static_cast<size_t>(ds.ndims())),
                                    std::vector<uint8_t>(static_cast<size_t>(ds.nvars())),
                                    std::vector<uint8_t>(ds.header().gatts.size())};
    for (const auto& d : dropped[static_cast<size_t>(r)]) lost[d.kind][static_cast<size_t>(d.index)] = 1;
    auto& o = own[static_cast<size_t>(r)];
    for (int i = base.ndims; i < ds.ndims(); ++i)
      if (!lost[0][static_cast<size_t>(i - base.ndims)]) o.dims.push_back(i);
    for (int i = base.nvars; i < ds.nvars(); ++i)
      if (!lost[1][static_cast<size_t>(i - base.nvars)]) o.vars.push_back(i);
    for (int i = base.ngatts; i < static_cast<int>(ds.header().gatts.size()); ++i)
      if (!lost[2][static_cast<size_t>(i - base.ngatts)]) o.gatts.push_back(i);
  }
  std::vector<std::vector<uint8_t>> payload(static_cast<size_t>(n));
  std::vector<std::span<const uint8_t>> segments;
  for (int r = 0; r < n; ++r)
    payload[static_cast<size_t>(r)] =
        exa::model::encode_dims(ranks[static_cast<size_t>(r)], own[static_cast<size_t>(r)].dims);
  for (const auto& p : payload) segments.emplace_back(p);
  std::vector<Status> dims_applied;
  for (int r = 0; r < n; ++r)
    dims_applied.push_back(exa::model::apply_dims(ranks[static_cast<size_t>(r)], base,
                                                   own[static_cast<size_t>(r)], r, segments));
  segments.clear();
  for (int r = 0; r < n; ++r) {
    const Dataset& ds = ranks[static_cast<size_t>(r)];
    payload[static_cast<size_t>(r)] = exa::model::encode_vars_and_gatts(
        ds, own[static_cast<size_t>(r)].vars, ds.dim_file_positions(), own[static_cast<size_t>(r)].gatts);
  }
  for (const auto& p : payload) segments.emplace_back(p);
  for (int r = 0; r < n; ++r) {
    Status st = dims_applied[static_cast<size_t>(r)];
    if (st.is_ok())
      st = exa::model::apply_vars_and_gatts(ranks[static_cast<size_t>(r)], base,
                                            own[static_cast<size_t>(r)], r, segments);
    out.apply_codes.push_back(st.code());
  }
  return out;
}

// Rank r's definitions: own dimension and variable, a shared dimension and a
// shared variable (defined in the middle), a shared and an own global attribute.
void define_rank(Dataset& ds, int r) {
  int own_dim = -1, x = -1, id = -1;
  ASSERT_TRUE(ds.def_dim("own_" + std::to_string(r), r + 1, &own_dim).is_ok());
  ASSERT_TRUE(ds.def_dim("x", 4, &x).is_ok());
  int dims[2] = {x, own_dim};
  ASSERT_TRUE(ds.def_var("p_" + std::to_string(r), NC_INT, std::span<const int>(dims, 2), &id).is_ok());
  ASSERT_TRUE(ds.put_att(id, "rank", NC_INT, 1, be32(r), true).is_ok());
  ASSERT_TRUE(ds.def_var("shared", NC_SHORT, std::span<const int>(&x, 1), &id).is_ok());
  ASSERT_TRUE(ds.put_att(id, "units", NC_CHAR, 1, {'m'}, true).is_ok());
  ASSERT_TRUE(ds.put_att(NC_GLOBAL, "title", NC_CHAR, 2, {'h', 'i'}, true).is_ok());
  ASSERT_TRUE(ds.put_att(NC_GLOBAL, "note_" + std::to_string(r), NC_INT, 1, be32(r), true).is_ok());
}

// The same definitions made collectively in rank order, skipping shared ones.
Dataset collective_reference(int nranks) {
  Dataset ref(Version::kCdf5);
  for (int r = 0; r < nranks; ++r) {
    int own_dim = -1, x = ref.find_dim("x"), id = -1;
    EXPECT_TRUE(ref.def_dim("own_" + std::to_string(r), r + 1, &own_dim).is_ok());
    if (x < 0) {
      EXPECT_TRUE(ref.def_dim("x", 4, &x).is_ok());
    }
    int dims[2] = {x, own_dim};
    EXPECT_TRUE(ref.def_var("p_" + std::to_string(r), NC_INT, std::span<const int>(dims, 2), &id).is_ok());
    EXPECT_TRUE(ref.put_att(id, "rank", NC_INT, 1, be32(r), true).is_ok());
    if (ref.find_var("shared") < 0) {
      EXPECT_TRUE(ref.def_var("shared", NC_SHORT, std::span<const int>(&x, 1), &id).is_ok());
      EXPECT_TRUE(ref.put_att(id, "units", NC_CHAR, 1, {'m'}, true).is_ok());
    }
    EXPECT_TRUE(ref.put_att(NC_GLOBAL, "title", NC_CHAR, 2, {'h', 'i'}, true).is_ok());
    EXPECT_TRUE(ref.put_att(NC_GLOBAL, "note_" + std::to_string(r), NC_INT, 1, be32(r), true).is_ok());
  }
  return ref;
}

TEST(DefineMerge, MixedDefinitionsGiveTheCollectiveFileOnEveryRank) {
  for (int n : {1, 2, 3, 5}) {
    std::vector<Dataset> ranks;
    for (int r = 0; r < n; ++r) {
      ranks.emplace_back(Version::kCdf5);
      define_rank(ranks.back(), r);
    }
    MergeOutcome out = simulate_merge(ranks);
    ASSERT_EQ(out.check_code, NC_NOERR);
    Dataset ref = collective_reference(n);
    for (int r = 0; r < n; ++r) {
      const Dataset& ds = ranks[static_cast<size_t>(r)];
      EXPECT_EQ(out.apply_codes[static_cast<size_t>(r)], NC_NOERR);
      EXPECT_EQ(ds.encode_file_header(), exa::format::encode(ref.header())) << "rank " << r << " of " << n;
      // Local ids: this rank's own objects keep the ids define gave them.
      EXPECT_EQ(ds.find_dim("own_" + std::to_string(r)), 0);
      EXPECT_EQ(ds.find_var("p_" + std::to_string(r)), 0);
      EXPECT_EQ(ds.find_var("shared"), 1);
      EXPECT_EQ(ds.nvars(), n + 1);
      EXPECT_EQ(ds.ndims(), n + 1);
      // A foreign variable's dimension ids are this rank's ids.
      if (n > 1) {
        int other = ds.find_var("p_" + std::to_string((r + 1) % n));
        ASSERT_GE(other, 2);
        const auto& v = ds.header().vars[static_cast<size_t>(other)];
        EXPECT_EQ(ds.header().dims[static_cast<size_t>(v.dimids[0])].name, "x");
        EXPECT_EQ(ds.header().dims[static_cast<size_t>(v.dimids[1])].name,
                  "own_" + std::to_string((r + 1) % n));
      }
    }
  }
}

TEST(DefineMerge, FileOrderSurvivesLayout) {
  std::vector<Dataset> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.emplace_back(Version::kCdf5);
    define_rank(ranks.back(), r);
  }
  ASSERT_EQ(simulate_merge(ranks).check_code, NC_NOERR);
  Dataset ref = collective_reference(3);
  ASSERT_TRUE(ref.compute_layout({}, nullptr).is_ok());
  for (auto& ds : ranks) {
    ASSERT_TRUE(ds.compute_layout({}, nullptr).is_ok());
    EXPECT_EQ(ds.encode_file_header(), exa::format::encode(ref.header()));
    EXPECT_EQ(ds.layout().header_extent, ref.layout().header_extent);
    // begins follow the variable, whatever its local id
    for (const auto& v : ref.header().vars)
      EXPECT_EQ(ds.header().vars[static_cast<size_t>(ds.find_var(v.name))].begin, v.begin);
  }
}

// One conflicting definition on rank 1 gives the expected code.
int conflict_code(void (*rank0)(Dataset&), void (*rank1)(Dataset&)) {
  std::vector<Dataset> ranks(2, Dataset(Version::kCdf5));
  rank0(ranks[0]);
  rank1(ranks[1]);
  MergeOutcome out = simulate_merge(ranks);
  if (out.check_code != NC_NOERR) return out.check_code;
  return std::min(out.apply_codes[0], out.apply_codes[1]);
}

TEST(DefineMerge, ConflictCodes) {
  auto dim5 = [](Dataset& ds) { EXPECT_TRUE(ds.def_dim("d", 5, nullptr).is_ok()); };
  auto dim6 = [](Dataset& ds) { EXPECT_TRUE(ds.def_dim("d", 6, nullptr).is_ok()); };
  EXPECT_EQ(conflict_code(dim5, dim6), NC_EMULTIDEFINE_DIM_SIZE);
  auto float_var = [](Dataset& ds) { EXPECT_TRUE(ds.def_var("v", NC_FLOAT, {}, nullptr).is_ok()); };
  auto double_var = [](Dataset& ds) { EXPECT_TRUE(ds.def_var("v", NC_DOUBLE, {}, nullptr).is_ok()); };
  EXPECT_EQ(conflict_code(float_var, double_var), NC_EMULTIDEFINE_VAR_TYPE);
  auto one_dim = [](Dataset& ds) {
    int d[2];
    EXPECT_TRUE(ds.def_dim("a", 2, &d[0]).is_ok());
    EXPECT_TRUE(ds.def_dim("b", 2, &d[1]).is_ok());
    EXPECT_TRUE(ds.def_var("v", NC_INT, std::span<const int>(d, 1), nullptr).is_ok());
  };
  auto two_dims = [](Dataset& ds) {
    int d[2];
    EXPECT_TRUE(ds.def_dim("a", 2, &d[0]).is_ok());
    EXPECT_TRUE(ds.def_dim("b", 2, &d[1]).is_ok());
    EXPECT_TRUE(ds.def_var("v", NC_INT, std::span<const int>(d, 2), nullptr).is_ok());
  };
  auto other_dim = [](Dataset& ds) {
    int d[2];
    EXPECT_TRUE(ds.def_dim("a", 2, &d[0]).is_ok());
    EXPECT_TRUE(ds.def_dim("b", 2, &d[1]).is_ok());
    EXPECT_TRUE(ds.def_var("v", NC_INT, std::span<const int>(d + 1, 1), nullptr).is_ok());
  };
  EXPECT_EQ(conflict_code(one_dim, two_dims), NC_EMULTIDEFINE_VAR_NDIMS);
  EXPECT_EQ(conflict_code(one_dim, other_dim), NC_EMULTIDEFINE_VAR_DIMIDS);
  auto att1 = [](Dataset& ds) {
    int v;
    EXPECT_TRUE(ds.def_var("v", NC_INT, {}, &v).is_ok());
    EXPECT_TRUE(ds.put_att(v, "k", NC_INT, 1, be32(1), true).is_ok());
  };
  auto att2 = [](Dataset& ds) {
    int v;
    EXPECT_TRUE(ds.def_var("v", NC_INT, {}, &v).is_ok());
    EXPECT_TRUE(ds.put_att(v, "k", NC_INT, 1, be32(2), true).is_ok());
  };
  EXPECT_EQ(conflict_code(att1, att2), NC_EMULTIDEFINE_ATTR_VAL);
  EXPECT_EQ(conflict_code(att1, float_var), NC_EMULTIDEFINE_VAR_TYPE);
  auto int_var = [](Dataset& ds) { EXPECT_TRUE(ds.def_var("v", NC_INT, {}, nullptr).is_ok()); };
  EXPECT_EQ(conflict_code(att1, int_var), NC_EMULTIDEFINE_ATTR_NUM);
  auto no_fill = [](Dataset& ds) {
    int v;
    EXPECT_TRUE(ds.def_var("v", NC_INT, {}, &v).is_ok());
    ds.set_var_no_fill(v, true);
  };
  EXPECT_EQ(conflict_code(int_var, no_fill), NC_EMULTIDEFINE_VAR_FILL_MODE);
  auto g1 = [](Dataset& ds) { EXPECT_TRUE(ds.put_att(NC_GLOBAL, "g", NC_INT, 1, be32(1), true).is_ok()); };
  auto g2 = [](Dataset& ds) { EXPECT_TRUE(ds.put_att(NC_GLOBAL, "g", NC_INT, 1, be32(2), true).is_ok()); };
  auto gshort = [](Dataset& ds) { EXPECT_TRUE(ds.put_att(NC_GLOBAL, "g", NC_SHORT, 2, {0, 1, 0, 0}, true).is_ok()); };
  auto glong = [](Dataset& ds) {
    std::vector<uint8_t> two = be32(1);
    two.insert(two.end(), {0, 0, 0, 1});
    EXPECT_TRUE(ds.put_att(NC_GLOBAL, "g", NC_INT, 2, two, true).is_ok());
  };
  EXPECT_EQ(conflict_code(g1, g2), NC_EMULTIDEFINE_ATTR_VAL);
  EXPECT_EQ(conflict_code(g1, gshort), NC_EMULTIDEFINE_ATTR_TYPE);
  EXPECT_EQ(conflict_code(g1, glong), NC_EMULTIDEFINE_ATTR_LEN);
  auto unlim_t = [](Dataset& ds) { EXPECT_TRUE(ds.def_dim("t", NC_UNLIMITED, nullptr).is_ok()); };
  auto unlim_u = [](Dataset& ds) { EXPECT_TRUE(ds.def_dim("u", NC_UNLIMITED, nullptr).is_ok()); };
  EXPECT_EQ(conflict_code(unlim_t, unlim_u), NC_EUNLIMIT);
  EXPECT_EQ(conflict_code(unlim_t, unlim_t), NC_NOERR);
  // Different kinds do not clash: a dimension and a variable may share a name.
  auto var_d = [](Dataset& ds) { EXPECT_TRUE(ds.def_var("d", NC_INT, {}, nullptr).is_ok()); };
  EXPECT_EQ(conflict_code(dim5, var_d), NC_NOERR);
}

TEST(DefineMerge, TruncatedPayloadIsAnErrorNotACrash) {
  Dataset one(Version::kCdf5);
  define_rank(one, 0);
  std::vector<int> dims = {0, 1};
  std::vector<uint8_t> payload = exa::model::encode_dims(one, dims);
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    Dataset other(Version::kCdf5);
    std::span<const uint8_t> seg(payload.data(), cut);
    // as the payload of rank 1, seen by rank 0, which defined nothing
    std::vector<std::span<const uint8_t>> two = {std::span<const uint8_t>(), seg};
    std::vector<uint8_t> none = exa::model::encode_dims(other, {});
    two[0] = none;
    EXPECT_EQ(exa::model::apply_dims(other, {}, {}, 0, two).code(), NC_EINTERNAL) << cut;
  }
}

TEST(DefineMerge, UndoRestoresTheRanksOwnDefinitions) {
  std::vector<Dataset> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.emplace_back(Version::kCdf5);
    define_rank(ranks.back(), r);
  }
  std::vector<uint8_t> before = ranks[1].encode_file_header();
  exa::model::MergeMark mark = exa::model::mark_for_merge(ranks[1]);
  ASSERT_EQ(simulate_merge(ranks).check_code, NC_NOERR);
  EXPECT_NE(ranks[1].encode_file_header(), before);
  exa::model::undo_merge(ranks[1], std::move(mark));
  EXPECT_EQ(ranks[1].encode_file_header(), before);
  EXPECT_EQ(ranks[1].find_var("p_0"), -1);
  EXPECT_EQ(ranks[1].find_var("p_1"), 0);
}

TEST(DefineMerge, OldObjectDigestSeesChanges) {
  Dataset a(Version::kCdf5), b(Version::kCdf5);
  define_rank(a, 0);
  define_rank(b, 0);
  NewObjectBase base{a.ndims(), a.nvars(), static_cast<int>(a.header().gatts.size())};
  EXPECT_EQ(exa::model::digest_old_objects(a, base), exa::model::digest_old_objects(b, base));
  ASSERT_TRUE(b.put_att(0, "extra", NC_INT, 1, be32(0), true).is_ok());
  EXPECT_NE(exa::model::digest_old_objects(a, base), exa::model::digest_old_objects(b, base));
}

}  // namespace

// Global attributes alone (the private-blocks enddef): each name where the
// lowest rank defined it, then in definition order; a name defined
// differently on two ranks gives the matching NC_EMULTIDEFINE_ATTR_* code.
TEST(DefineMerge, GlobalAttributesAlone) {
  auto merged = [](std::vector<Dataset>& ranks, std::vector<exa::format::Attribute>* out) {
    std::vector<std::vector<uint8_t>> payloads;
    for (const Dataset& ds : ranks) payloads.push_back(exa::model::encode_global_atts(ds));
    std::vector<std::span<const uint8_t>> segments(payloads.begin(), payloads.end());
    return exa::model::merge_global_atts(segments, out);
  };
  std::vector<Dataset> ranks(3, Dataset(Version::kCdf5));
  ASSERT_TRUE(ranks[0].put_att(NC_GLOBAL, "title", NC_CHAR, 2, {'h', 'i'}, true).is_ok());
  ASSERT_TRUE(ranks[1].put_att(NC_GLOBAL, "rank1", NC_INT, 1, be32(1), true).is_ok());
  ASSERT_TRUE(ranks[1].put_att(NC_GLOBAL, "title", NC_CHAR, 2, {'h', 'i'}, true).is_ok());
  ASSERT_TRUE(ranks[2].put_att(NC_GLOBAL, "rank2", NC_INT, 1, be32(2), true).is_ok());
  std::vector<exa::format::Attribute> out;
  ASSERT_TRUE(merged(ranks, &out).is_ok());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].name, "title");
  EXPECT_EQ(out[1].name, "rank1");
  EXPECT_EQ(out[2].name, "rank2");

  ASSERT_TRUE(ranks[2].put_att(NC_GLOBAL, "title", NC_CHAR, 2, {'h', 'o'}, true).is_ok());
  EXPECT_EQ(merged(ranks, &out).code(), NC_EMULTIDEFINE_ATTR_VAL);
  ASSERT_TRUE(ranks[2].put_att(NC_GLOBAL, "title", NC_CHAR, 3, {'h', 'i', '!'}, true).is_ok());
  EXPECT_EQ(merged(ranks, &out).code(), NC_EMULTIDEFINE_ATTR_LEN);
  ASSERT_TRUE(ranks[2].put_att(NC_GLOBAL, "title", NC_BYTE, 2, {'h', 'i'}, true).is_ok());
  EXPECT_EQ(merged(ranks, &out).code(), NC_EMULTIDEFINE_ATTR_TYPE);
  // A cut payload is refused, not read past its end.
  std::vector<uint8_t> cut = exa::model::encode_global_atts(ranks[0]);
  cut.resize(cut.size() - 1);
  std::vector<std::span<const uint8_t>> one = {cut};
  EXPECT_EQ(exa::model::merge_global_atts(one, &out).code(), NC_EINTERNAL);
}
