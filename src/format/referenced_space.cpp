#include "format/referenced_space.hpp"

#include <algorithm>

namespace exa::format::partitioned {

namespace {

Status too_far() { return {NC_EFILEMETA, "an extent of the file reaches past 2^63 bytes"}; }

// [offset, offset + size) appended when not empty, checked to stay below 2^63.
Status add_span(uint64_t offset, uint64_t size, std::vector<Span>* out) {
  if (size == 0) return Status::ok();
  if (offset > uint64_t(INT64_MAX) || size > uint64_t(INT64_MAX) - offset) return too_far();
  out->push_back({int64_t(offset), int64_t(size)});
  return Status::ok();
}

// count * per as a span from offset.
Status add_run(uint64_t offset, uint64_t count, uint64_t per, std::vector<Span>* out) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, per, &bytes)) return too_far();
  return add_span(offset, bytes, out);
}

}  // namespace

Status add_references(const Superblock& sb, const IndexTable& index, const std::vector<Block>& blocks,
                      std::vector<Span>* out, const std::vector<PageRef>& pages) {
  EXA_RETURN_IF_ERROR(add_span(sb.index_offset, sb.index_size, out));
  for (const PageRef& p : pages) EXA_RETURN_IF_ERROR(add_span(p.offset, p.size, out));  // (overlaps are fine)
  for (const BlockEntry& e : index.blocks) EXA_RETURN_IF_ERROR(add_span(e.offset, e.size, out));
  // Fixed-size data (record variables' records come from the sections below).
  const int64_t record_dim = int64_t(sb.record_dim) - 1;
  for (const Block& b : blocks)
    for (const BlockVariable& bv : b.vars) {
      const Variable& v = bv.var;
      if ((bv.flags & kVarCompact) != 0 || v.begin <= 0 || v.vsize < 0) continue;
      if (record_dim >= 0 && !v.dimids.empty() && v.dimids[0] == record_dim) continue;
      EXA_RETURN_IF_ERROR(add_span(uint64_t(v.begin), uint64_t(v.vsize), out));
    }
  if (sb.record_size == 0) return Status::ok();
  const RecordSections& rs = index.sections;
  const uint64_t first = rs.present ? rs.current_first : 0;
  if (sb.numrecs > first) EXA_RETURN_IF_ERROR(add_run(sb.record_begin, sb.numrecs - first, sb.record_size, out));
  for (const RecordSection& s : rs.closed) {
    if (s.hi < s.lo) return {NC_EFILEMETA, "a record section with hi < lo"};
    EXA_RETURN_IF_ERROR(add_run(s.offset, s.count, s.hi - s.lo, out));
  }
  return Status::ok();
}

std::vector<Span> unreferenced(int64_t from, int64_t to, std::vector<Span> used) {
  std::sort(used.begin(), used.end(), [](const Span& a, const Span& b) { return a.offset < b.offset; });
  std::vector<Span> out;
  int64_t at = from;  // everything below is covered or outside
  for (const Span& u : used) {
    if (at >= to) break;
    if (u.offset > at) out.push_back({at, std::min(u.offset, to) - at});
    at = std::max(at, u.offset + u.size);
  }
  if (at < to) out.push_back({at, to - at});
  return out;
}

}  // namespace exa::format::partitioned
