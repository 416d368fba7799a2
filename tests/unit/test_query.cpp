// The MPI-free query model: predicate normalization (exact comparison with
// constants of any type), the encoded form, the index sidecar codecs, the
// index spec and the query text parser.
#include <gtest/gtest.h>
#include <roaring/roaring.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "query/expr.hpp"
#include "query/index_format.hpp"
#include "query/parser.hpp"
#include "query/predicate.hpp"
#include "query/types.hpp"

namespace q = exa::query;

namespace {

template <typename T>
q::Constant constant(int type, T v) {
  q::Constant c;
  c.type = type;
  std::memcpy(c.bytes, &v, sizeof v);
  return c;
}

// Brute force: the mathematical comparison of value and constant.
bool exact(q::Op op, long double v, long double c) {
  if (std::isnan(v) || std::isnan(c)) return op == q::Op::kNe;
  switch (op) {
    case q::Op::kEq: return v == c;
    case q::Op::kNe: return v != c;
    case q::Op::kLt: return v < c;
    case q::Op::kLe: return v <= c;
    case q::Op::kGt: return v > c;
    case q::Op::kGe: return v >= c;
  }
  return false;
}

template <typename T>
bool passes(q::Op op, const q::Constant& c, int var_type, T v) {
  return q::passes(q::normalize(op, c, var_type), var_type, &v);
}

}  // namespace

TEST(QueryPredicate, OutOfRangeConstantsOnBytes) {
  const q::Constant c300 = constant<int>(NC_INT, 300);
  for (int v = -128; v < 128; ++v) {
    const signed char b = static_cast<signed char>(v);
    EXPECT_TRUE(passes(q::Op::kLt, c300, NC_BYTE, b));
    EXPECT_FALSE(passes(q::Op::kGt, c300, NC_BYTE, b));
    EXPECT_FALSE(passes(q::Op::kEq, c300, NC_BYTE, b));
    EXPECT_TRUE(passes(q::Op::kNe, c300, NC_BYTE, b));
  }
  EXPECT_EQ(q::normalize(q::Op::kLt, c300, NC_BYTE).test, q::Test::kAll);
}

TEST(QueryPredicate, FractionalConstantsOnIntegers) {
  const q::Constant half = constant<double>(NC_DOUBLE, 2.5);
  EXPECT_FALSE(passes(q::Op::kEq, half, NC_INT, 2));
  EXPECT_TRUE(passes(q::Op::kLt, half, NC_INT, 2));
  EXPECT_FALSE(passes(q::Op::kLt, half, NC_INT, 3));
  EXPECT_TRUE(passes(q::Op::kGe, half, NC_INT, 3));
  EXPECT_FALSE(passes(q::Op::kGe, half, NC_INT, 2));
}

TEST(QueryPredicate, FloatAgainstDoubleConstantIsExact) {
  const q::Constant tenth = constant<double>(NC_DOUBLE, 0.1);
  EXPECT_FALSE(passes(q::Op::kEq, tenth, NC_FLOAT, 0.1f));  // 0.1f != 0.1
  EXPECT_TRUE(passes(q::Op::kEq, constant<float>(NC_FLOAT, 0.1f), NC_FLOAT, 0.1f));
  EXPECT_EQ(passes(q::Op::kLt, tenth, NC_FLOAT, 0.1f), static_cast<double>(0.1f) < 0.1);
  EXPECT_EQ(passes(q::Op::kGt, tenth, NC_FLOAT, 0.1f), static_cast<double>(0.1f) > 0.1);
}

TEST(QueryPredicate, LargeIntegersAgainstFloats) {
  const long long big = (1LL << 60) + 1;
  const q::Constant c = constant<long long>(NC_INT64, big);
  const float f = std::ldexp(1.0f, 60);
  EXPECT_TRUE(passes(q::Op::kLt, c, NC_FLOAT, f));
  EXPECT_FALSE(passes(q::Op::kEq, c, NC_FLOAT, f));
  EXPECT_TRUE(passes(q::Op::kLt, c, NC_DOUBLE, std::ldexp(1.0, 60)));
  const q::Constant umax = constant<unsigned long long>(NC_UINT64, ~0ULL);
  EXPECT_TRUE(passes(q::Op::kEq, umax, NC_UINT64, ~0ULL));
  EXPECT_FALSE(passes(q::Op::kGt, umax, NC_UINT64, ~0ULL));
  EXPECT_TRUE(passes(q::Op::kLt, umax, NC_INT64, std::numeric_limits<long long>::max()));
  EXPECT_FALSE(passes(q::Op::kEq, constant<double>(NC_DOUBLE, 1e300), NC_FLOAT,
                      std::numeric_limits<float>::infinity()));
  EXPECT_TRUE(passes(q::Op::kLt, constant<double>(NC_DOUBLE, 1e300), NC_FLOAT,
                     std::numeric_limits<float>::max()));
}

TEST(QueryPredicate, NaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const q::Constant one = constant<float>(NC_FLOAT, 1.0f);
  for (int op = 1; op <= 6; ++op)
    EXPECT_EQ(passes(static_cast<q::Op>(op), one, NC_FLOAT, nan), op == 2);
  const q::Constant cnan = constant<double>(NC_DOUBLE, std::nan(""));
  for (int op = 1; op <= 6; ++op) EXPECT_EQ(passes(static_cast<q::Op>(op), cnan, NC_INT, 5), op == 2);
}

// Every op, every type, constants of every type near the type's values:
// the normalized test agrees with exact comparison.
TEST(QueryPredicate, AgreesWithExactComparison) {
  const long double probes[] = {0, 1, -1, 0.5L, -0.5L, 127, 128, -129, 255, 256, 32767, 65535,
                                2147483647.0L, 4294967295.0L, 4294967296.0L, 1e10L, -1e10L,
                                9223372036854775807.0L, 18446744073709551615.0L, 1e30L, -1e30L, 1e300L};
  const int types[] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT, NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE};
  for (int vt : types) {
    for (long double pv : probes) {
      // A value of type vt near pv (clamped), and constants of each type near pv.
      q::with_type(vt, [&](auto t) {
        using T = decltype(t);
        const long double lo = static_cast<long double>(std::numeric_limits<T>::lowest());
        const long double hi = static_cast<long double>(std::numeric_limits<T>::max());
        const T v = static_cast<T>(std::clamp(pv, lo, hi));
        for (int ct : types) {
          q::with_type(ct, [&](auto u) {
            using U = decltype(u);
            const long double clo = static_cast<long double>(std::numeric_limits<U>::lowest());
            const long double chi = static_cast<long double>(std::numeric_limits<U>::max());
            const U cv = static_cast<U>(std::clamp(pv, clo, chi));
            const q::Constant c = constant<U>(ct, cv);
            for (int op = 1; op <= 6; ++op)
              EXPECT_EQ(passes(static_cast<q::Op>(op), c, vt, v),
                        exact(static_cast<q::Op>(op), static_cast<long double>(v), static_cast<long double>(cv)))
                  << "var type " << vt << " const type " << ct << " op " << op << " probe " << static_cast<double>(pv);
          });
        }
      });
    }
  }
}

TEST(QueryExpr, EncodeDecodeRoundTrip) {
  q::Expr e;
  q::Node a;
  a.op = q::Op::kGt;
  a.constant = constant<double>(NC_DOUBLE, 1.9);
  a.var_name = "energy";
  q::Node b;
  b.op = q::Op::kLe;
  b.constant = constant<short>(NC_SHORT, -7);
  b.var_name = "/g/x";
  q::Expr ea, eb;
  ea.nodes = {a};
  eb.nodes = {b};
  e = q::negate(q::combine(ea, q::NodeKind::kAnd, eb));
  const auto bytes = q::encode(e);
  q::Expr d;
  ASSERT_TRUE(q::decode(bytes.data(), bytes.size(), &d).is_ok());
  ASSERT_EQ(d.nodes.size(), 4u);
  EXPECT_EQ(d.nodes[0].var_name, "energy");
  EXPECT_EQ(d.nodes[1].var_name, "/g/x");
  EXPECT_EQ(d.nodes[1].constant.type, NC_SHORT);
  EXPECT_EQ(d.nodes[1].constant.value(), -7);
  EXPECT_EQ(d.nodes[0].constant.value(), static_cast<long double>(1.9));
  EXPECT_EQ(d.nodes[2].kind, q::NodeKind::kAnd);
  EXPECT_EQ(d.nodes[3].kind, q::NodeKind::kNot);
  EXPECT_EQ(q::encode(d), bytes);
}

TEST(QueryExpr, DecoderRejectsDamage) {
  q::Expr e;
  q::Node a;
  a.var_name = "v";
  e.nodes = {a};
  const auto bytes = q::encode(e);
  q::Expr d;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = bytes;
      bad[i] ^= static_cast<unsigned char>(1 << bit);
      EXPECT_FALSE(q::decode(bad.data(), bad.size(), &d).is_ok()) << i << ":" << bit;
    }
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_EQ(q::decode(bytes.data(), n, &d).code(), NC_EINVAL);
  EXPECT_EQ(q::decode(nullptr, 0, &d).code(), NC_EINVAL);
}

TEST(QueryIndexFormat, HeaderRoundTripAndDamage) {
  q::IndexHeader h;
  h.data_size = 12345;
  h.data_mtime_ns = 1700000000123456789LL;
  h.data_digest = 0xdeadbeef;
  h.varid = 3;
  h.var_type = NC_FLOAT;
  h.ndims = 2;
  h.nrows = 10;
  h.row_elems = 7;
  h.chunk_rows = 4;
  h.var_name = "energy";
  h.edges = {-1.5, 0, 2.25};
  h.chunks.resize(3);
  for (int c = 0; c < 3; ++c) {
    h.chunks[static_cast<size_t>(c)].offset = 1000 + 100 * static_cast<uint64_t>(c);
    h.chunks[static_cast<size_t>(c)].length = 50;
    h.chunks[static_cast<size_t>(c)].min = -c;
    h.chunks[static_cast<size_t>(c)].max = c;
    h.chunks[static_cast<size_t>(c)].flags = q::kHasValues;
  }
  const auto bytes = q::encode_header(h);
  q::IndexHeader d;
  ASSERT_TRUE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  EXPECT_EQ(d.var_name, "energy");
  EXPECT_EQ(d.edges, h.edges);
  EXPECT_EQ(d.chunks.size(), 3u);
  EXPECT_EQ(d.chunks[2].max, 2);
  EXPECT_EQ(d.data_mtime_ns, h.data_mtime_ns);
  EXPECT_EQ(d.chunk_elems(2), 2u * 7u);
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto bad = bytes;
    bad[i] ^= 0x10;
    EXPECT_FALSE(q::decode_header(bad.data(), bad.size(), &d).is_ok()) << i;
  }
}

TEST(QueryIndexFormat, StaleChunksAndVersions) {
  q::IndexHeader h;
  h.var_type = NC_FLOAT;
  h.ndims = 1;
  h.nrows = 10;
  h.row_elems = 1;
  h.chunk_rows = 4;
  h.var_name = "e";
  h.chunks.resize(3);
  for (auto& c : h.chunks) {
    c.offset = 500;
    c.flags = q::kHasValues | q::kHasDataCrc;
    c.min = 0;
    c.max = 1;
    c.data_crc = 77;
  }
  // A put of values in [-3, 0.5]: stale, bounds widened; then values of unknown range.
  q::PutBounds put;
  put.bounded = put.any = true;
  put.lo = -3;
  put.hi = 0.5;
  q::mark_stale(&h.chunks[1], put);
  EXPECT_EQ(h.chunks[1].flags, q::kHasValues | q::kHasDataCrc | q::kStale);
  EXPECT_EQ(h.chunks[1].min, -3);
  EXPECT_EQ(h.chunks[1].max, 1);
  q::mark_stale(&h.chunks[2], q::PutBounds{});
  EXPECT_EQ(h.chunks[2].flags, q::kHasDataCrc | q::kStale | q::kNoBounds);
  q::mark_stale(&h.chunks[2], put);  // unknown stays unknown
  EXPECT_EQ(h.chunks[2].flags, q::kHasDataCrc | q::kStale | q::kNoBounds);
  EXPECT_EQ(h.stale_chunks(), 2u);
  auto bytes = q::encode_header(h);
  q::IndexHeader d;
  ASSERT_TRUE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  EXPECT_EQ(d.version, q::kIndexVersion);
  EXPECT_EQ(d.chunks[0].data_crc, 77u);
  EXPECT_EQ(d.chunks[1].flags, h.chunks[1].flags);
  EXPECT_EQ(d.chunks[2].flags, h.chunks[2].flags);
  EXPECT_EQ(q::encode_header(d), bytes);
  // Version 1: 40-byte entries, flags 1 and 2 only; still read, re-encoded the same.
  q::IndexHeader v1 = h;
  v1.version = q::kIndexVersionV1;
  for (auto& c : v1.chunks) c.flags = q::kHasValues;
  bytes = q::encode_header(v1);
  EXPECT_EQ(bytes.size() + 8 * 3, q::encode_header(h).size());
  ASSERT_TRUE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  EXPECT_EQ(d.version, q::kIndexVersionV1);
  EXPECT_EQ(q::encode_header(d), bytes);
  v1.chunks[0].flags = q::kHasValues | q::kStale;  // not a version-1 flag
  bytes = q::encode_header(v1);
  EXPECT_FALSE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  // No bounds without stale: refused.
  q::IndexHeader nb = h;
  nb.chunks[0].flags = q::kNoBounds;
  bytes = q::encode_header(nb);
  EXPECT_FALSE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  q::IndexSpec s;
  ASSERT_TRUE(q::parse_spec("update", &s).is_ok());
  EXPECT_TRUE(s.update);
  EXPECT_FALSE(q::parse_spec("update;bins=3", &s).is_ok());
}

// Min/max records of variables never indexed: chunks get bounds only when
// whole-row puts wrote every row of them (from several ranks' records);
// partial or unknown puts leave them without bounds.
TEST(QueryIndexFormat, MinmaxRecordFromPuts) {
  q::IndexHeader h = q::minmax_header(2, NC_FLOAT, 2, "v", 10, 3, 4);  // chunks: rows 0-3, 4-7, 8-9
  ASSERT_EQ(h.chunks.size(), 3u);
  EXPECT_TRUE(h.minmax_only());
  EXPECT_EQ(h.bounded_chunks(), 0u);
  auto rec = [](uint64_t r0, uint64_t r1, double lo, double hi, bool whole) {
    q::PutRecord r;
    r.row0 = r0;
    r.row1 = r1;
    r.bounds.bounded = r.bounds.any = true;
    r.bounds.lo = lo;
    r.bounds.hi = hi;
    r.whole_rows = whole;
    return r;
  };
  std::vector<q::PutRecord> puts = {
      rec(2, 4, 10, 20, true), rec(0, 2, -5, 1, true),  // chunk 0 covered by two ranks' puts
      rec(1, 2, 100, 100, false),                       // a partial put into chunk 0 widens it
      rec(4, 7, 0, 1, true),                            // chunk 1: row 7 never written
      rec(8, 10, 3, 3, true)};                          // chunk 2 covered
  EXPECT_TRUE(q::apply_puts(puts, &h));
  EXPECT_EQ(h.bounded_chunks(), 2u);
  EXPECT_EQ(h.chunks[0].flags & (q::kNoBounds | q::kHasValues), q::kHasValues);
  EXPECT_EQ(h.chunks[0].min, -5);
  EXPECT_EQ(h.chunks[0].max, 100);
  EXPECT_TRUE(h.chunks[1].flags & q::kNoBounds);
  EXPECT_EQ(h.chunks[2].min, 3);
  EXPECT_TRUE(h.minmax_only());
  // A put of unknown values into a covered chunk: no bounds again, even if also covered.
  std::vector<q::PutRecord> more = {rec(8, 10, 0, 0, true), q::PutRecord{9, 10, {}, false}};
  EXPECT_TRUE(q::apply_puts(more, &h));
  EXPECT_TRUE(h.chunks[2].flags & q::kNoBounds);
  // Covered alone, a chunk without bounds gets them back.
  EXPECT_TRUE(q::apply_puts({rec(4, 8, 7, 9, true)}, &h));
  EXPECT_EQ(h.chunks[1].flags & q::kNoBounds, 0u);
  EXPECT_EQ(h.chunks[1].min, 7);
  // Round trip; grown by records: the last (partial) chunk loses its bounds, new ones have none.
  auto bytes = q::encode_header(h);
  q::IndexHeader d;
  ASSERT_TRUE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  EXPECT_EQ(q::encode_header(d), bytes);
  EXPECT_TRUE(d.minmax_only());
  q::grow_minmax(&d, 13);
  EXPECT_EQ(d.chunks.size(), 4u);
  EXPECT_TRUE(d.chunks[2].flags & q::kNoBounds);
  EXPECT_TRUE(d.chunks[3].flags & q::kNoBounds);
  EXPECT_EQ(d.chunks[1].min, 7);
  // Damage: a block on a min/max chunk, edges with min/max chunks, or a mix of kinds.
  q::IndexHeader bad = h;
  bad.chunks[0].offset = 4096;
  bytes = q::encode_header(bad);
  EXPECT_FALSE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  bad = h;
  bad.edges = {1.0};
  bytes = q::encode_header(bad);
  EXPECT_FALSE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  bad = h;
  bad.chunks[1].flags = q::kStale;  // no kNoBitmaps; the others have it
  bad.chunks[1].offset = 1000;
  bytes = q::encode_header(bad);
  EXPECT_FALSE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
  bad = h;
  bad.chunks[1].flags = q::kNoBitmaps;  // not stale
  bytes = q::encode_header(bad);
  EXPECT_FALSE(q::decode_header(bytes.data(), bytes.size(), &d).is_ok());
}

TEST(QueryIndexFormat, ChunkBitmapsRoundTripAndDamage) {
  q::ChunkBitmaps bm(3);
  for (uint32_t i = 0; i < 1000; ++i) bm.add(i % 3, i);
  bm.optimize();
  const auto bytes = bm.encode();
  q::ChunkBitmaps d;
  ASSERT_TRUE(q::ChunkBitmaps::decode(bytes.data(), bytes.size(), 3, 1000, &d).is_ok());
  EXPECT_EQ(roaring_bitmap_get_cardinality(d.bin(1)), 333u);
  EXPECT_TRUE(roaring_bitmap_contains(d.bin(2), 998));
  // Positions beyond the chunk, truncation, trailing bytes: refused.
  EXPECT_FALSE(q::ChunkBitmaps::decode(bytes.data(), bytes.size(), 3, 999, &d).is_ok());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(q::ChunkBitmaps::decode(bytes.data(), n, 3, 1000, &d).is_ok()) << n;
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_FALSE(q::ChunkBitmaps::decode(longer.data(), longer.size(), 3, 1000, &d).is_ok());
  // Only the wanted bins are decoded; the counts head the block.
  ASSERT_TRUE(q::ChunkBitmaps::decode(bytes.data(), bytes.size(), 3, 1000, &d, {false, true, false}).is_ok());
  EXPECT_EQ(roaring_bitmap_get_cardinality(d.bin(0)), 0u);
  EXPECT_EQ(roaring_bitmap_get_cardinality(d.bin(1)), 333u);
  std::vector<uint32_t> counts;
  ASSERT_TRUE(q::ChunkBitmaps::cardinalities(bytes.data(), bytes.size(), 3, 1000, &counts).is_ok());
  EXPECT_EQ(counts, (std::vector<uint32_t>{334, 333, 333}));
  auto miscounted = bytes;
  miscounted[0] ^= 1;  // bin 0 claims 335, bin counts no longer sum to the chunk
  EXPECT_FALSE(q::ChunkBitmaps::decode(miscounted.data(), miscounted.size(), 3, 1000, &d).is_ok());
}

TEST(QueryIndexFormat, BinsAndSpec) {
  const std::vector<double> edges = {0, 1, 2};
  EXPECT_EQ(q::bin_of(edges, -0.5L), 0u);
  EXPECT_EQ(q::bin_of(edges, 0), 1u);
  EXPECT_EQ(q::bin_of(edges, 1.5L), 2u);
  EXPECT_EQ(q::bin_of(edges, 2), 3u);
  EXPECT_EQ(q::bin_of(edges, std::nanl("")), 4u);
  q::IndexSpec s;
  ASSERT_TRUE(q::parse_spec("bins=16;chunk=100", &s).is_ok());
  EXPECT_EQ(s.bins, 16u);
  EXPECT_EQ(s.chunk_rows, 100u);
  ASSERT_TRUE(q::parse_spec("edges=-1,0.5,3", &s).is_ok());
  EXPECT_EQ(s.edges, (std::vector<double>{-1, 0.5, 3}));
  ASSERT_TRUE(q::parse_spec(nullptr, &s).is_ok());
  EXPECT_EQ(s.bins, 64u);
  for (const char* bad : {"bins=0", "bins=x", "edges=1,1", "edges=", "edges=1,,2", "chunk=0", "foo=1",
                          "bins", "edges=nan", "bins=99999"})
    EXPECT_EQ(q::parse_spec(bad, &s).code(), NC_EINVAL) << bad;
  EXPECT_EQ(q::equal_weight_edges({1, 2, 3, 4, 5, 6, 7, 8}, 4), (std::vector<double>{3, 5, 7}));
  EXPECT_EQ(q::equal_weight_edges({1, 1, 1, 1}, 4), (std::vector<double>{1}));
}

TEST(QueryParser, Parses) {
  q::Expr e;
  ASSERT_TRUE(q::parse("energy > 1.9 and x < 0.5", &e).is_ok());
  ASSERT_EQ(e.nodes.size(), 3u);
  EXPECT_EQ(e.nodes[0].var_name, "energy");
  EXPECT_EQ(e.nodes[0].op, q::Op::kGt);
  EXPECT_EQ(e.nodes[0].constant.type, NC_DOUBLE);
  EXPECT_EQ(e.nodes[1].constant.value(), static_cast<long double>(0.5));
  EXPECT_EQ(e.nodes[2].kind, q::NodeKind::kAnd);
  ASSERT_TRUE(q::parse("not (a == 3 or b != -4) && !(c>=18446744073709551615)", &e).is_ok());
  EXPECT_EQ(e.nodes[0].constant.type, NC_INT64);
  EXPECT_EQ(e.nodes[1].constant.value(), -4);
  EXPECT_EQ(e.nodes[4].constant.type, NC_UINT64);
  EXPECT_TRUE(q::well_formed(e));
  ASSERT_TRUE(q::parse("t <= 1e-3 or t = nan or t > -inf", &e).is_ok());
  EXPECT_EQ(e.nodes[0].constant.value(), static_cast<long double>(1e-3));
  for (const char* bad : {"", "x", "x >", "> 1", "x > 1 and", "(x > 1", "x > 1)", "x >> 1", "1 < x",
                          "x > 0x10", "x > 1e999", "and > 1", "x > 1 y > 2"})
    EXPECT_EQ(q::parse(bad, &e).code(), NC_EINVAL) << bad;
  std::string deep(200, '(');
  EXPECT_EQ(q::parse(deep + "x > 1", &e).code(), NC_EINVAL);
}
