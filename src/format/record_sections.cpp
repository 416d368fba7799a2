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

namespace {

void append_run(int64_t offset, int64_t length, std::vector<ByteRun>* out) {
  if (!out->empty() && out->back().offset + out->back().length == offset)
    out->back().length += length;
  else
    out->push_back({offset, length});
}

// Where byte u (below current_first's records) is, and how many bytes from
// it on lie contiguously there (at most `want`); false when no closed
// section holds it.
bool closed_place(const RecordSections& sections, int64_t record_size, int64_t u, int64_t want, int64_t* at,
                  int64_t* run) {
  const int64_t r = u / record_size, w = u % record_size;
  for (const RecordSection& s : sections.closed) {
    if (r < int64_t(s.first) || r >= int64_t(s.first + s.count) || w < int64_t(s.lo) || w >= int64_t(s.hi)) continue;
    const int64_t width = int64_t(s.hi - s.lo);
    // decode_index_head checked offset + count * (hi - lo): no overflow here.
    *at = int64_t(s.offset) + (r - int64_t(s.first)) * width + (w - int64_t(s.lo));
    // A section of whole records holds its records back to back.
    const int64_t end_u = (s.lo == 0 && int64_t(s.hi) == record_size)
                              ? std::min<int64_t>(int64_t(s.first + s.count), int64_t(sections.current_first)) *
                                    record_size
                              : r * record_size + int64_t(s.hi);
    *run = std::min(want, end_u - u);
    return true;
  }
  return false;
}

}  // namespace

Status map_record_run(const RecordSections& sections, int64_t record_begin, int64_t record_size, const ByteRun& run,
                      std::vector<ByteRun>* out) {
  if (record_size <= 0) return {NC_EINVALCOORDS, "no record size: records cannot be placed"};
  if (run.length <= 0) return Status::ok();
  const int64_t first = sections.present ? int64_t(sections.current_first) : 0;
  int64_t current_u = 0;  // the first byte of the current section, unsplit
  if (__builtin_mul_overflow(first, record_size, &current_u))
    return {NC_EINVALCOORDS, "record sections beyond the largest offset a file can have"};
  if (run.offset < 0) return {NC_EINVALCOORDS, "vard file type reaches before the variable's record 0"};
  int64_t u = run.offset, left = run.length;
  while (left > 0) {
    if (u >= current_u) {
      int64_t at = 0;
      if (__builtin_add_overflow(record_begin, u - current_u, &at) || at > INT64_MAX - left)
        return {NC_EINVALCOORDS, "vard file type reaches beyond the largest offset a file can have"};
      append_run(at, left, out);
      break;
    }
    int64_t at = 0, n = 0;
    if (!closed_place(sections, record_size, u, std::min(left, current_u - u), &at, &n) || n <= 0)
      return {NC_EINVALCOORDS, "vard file type reaches bytes of a record that no record section holds"};
    append_run(at, n, out);
    u += n;
    left -= n;
  }
  return Status::ok();
}

Status map_record_runs(const RecordSections& sections, int64_t record_begin, int64_t record_size,
                       const std::vector<ByteRun>& in, std::vector<ByteRun>* out) {
  out->clear();
  if (record_size <= 0) return {NC_EINVALCOORDS, "no record size: records cannot be placed"};
  for (const ByteRun& run : in) EXA_RETURN_IF_ERROR(map_record_run(sections, record_begin, record_size, run, out));
  return Status::ok();
}

}  // namespace exa::format
