#include "format/record_sections.hpp"

#include <algorithm>
#include <climits>

namespace exa::format {

namespace {

Status bad(const char* what) { return {NC_EFILEMETA, what}; }

}  // namespace

Status record_pieces(const RecordSections& sections, int64_t record_begin, int64_t record_size, int64_t begin,
                     int64_t vsize, std::vector<RecordPiece>* out) {
  out->clear();
  if (!sections.present || sections.current_first == 0) return Status::ok();
  // The variable's bytes within a record: the same in every section that holds it.
  const int64_t at = begin - record_begin;
  if (begin < record_begin || vsize < 0 || at > record_size - vsize)
    return bad("record variable outside the record of the current section");
  std::vector<RecordPiece> pieces;
  for (const RecordSection& s : sections.closed) {
    if (uint64_t(at) < s.lo || uint64_t(at) - s.lo + uint64_t(vsize) > s.hi - s.lo) continue;
    // decode_index_head checked offset + count * (hi - lo) and first + count: no overflow here.
    pieces.push_back({int64_t(s.first), int64_t(s.first + s.count), int64_t(s.offset + (uint64_t(at) - s.lo)),
                      int64_t(s.hi - s.lo)});
  }
  std::sort(pieces.begin(), pieces.end(), [](const RecordPiece& a, const RecordPiece& b) { return a.first < b.first; });
  int64_t next = 0;
  for (const RecordPiece& p : pieces) {
    if (p.first != next) return bad("record sections leave a variable's record without a place, or give it two");
    next = p.end;
  }
  if (next != int64_t(sections.current_first))
    return bad("record sections leave a variable's record without a place, or give it two");
  pieces.push_back({next, INT64_MAX, begin, record_size});
  *out = std::move(pieces);
  return Status::ok();
}

int64_t record_offset(const std::vector<RecordPiece>& pieces, int64_t begin, int64_t record_size, int64_t r) {
  for (const RecordPiece& p : pieces)
    if (r >= p.first && r < p.end) return p.base + (r - p.first) * p.stride;
  return begin + r * record_size;
}

bool current_records_end(const RecordSections& sections, int64_t record_begin, int64_t record_size,
                         int64_t numrecs, int64_t* end) {
  const int64_t first = sections.present ? int64_t(sections.current_first) : 0;
  const int64_t n = numrecs > first ? numrecs - first : 0;
  int64_t bytes = 0;
  return !__builtin_mul_overflow(n, record_size, &bytes) && !__builtin_add_overflow(record_begin, bytes, end);
}

}  // namespace exa::format
