// compute_layout: PnetCDF 1.12.3's NC_begins and the alignment choices of
// its ncmpio__enddef, step for step, so both libraries place variables at
// the same offsets. docs/format-classic.md states the rules.
#include "format/layout.hpp"

#include <algorithm>
#include <limits>

#include "format/xdr.hpp"

namespace exa::format {

namespace {

constexpr int64_t kDefaultHeaderAlign = 512;  // PnetCDF's FILE_ALIGNMENT_DEFAULT
constexpr int64_t kStripingFactor = 4;        // PnetCDF's FILE_ALIGNMENT_LB

// Rounds v up to a multiple of align (> 0); false on overflow.
bool align_up(int64_t v, int64_t align, int64_t* out) {
  int64_t sum = 0;
  if (__builtin_add_overflow(v, align - 1, &sum)) return false;
  *out = sum / align * align;
  return true;
}

// Every alignment is a multiple of 4 (the classic format's unit); unset is 4.
int64_t multiple_of_4(int64_t a) { return a <= 0 ? 4 : xdr::round4(a); }

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

Status too_large(const char* what) { return {NC_EVARSIZE, what}; }

// The alignments ncmpio__enddef chooses: info hints first, then the
// ncmpi__enddef arguments, then the file system's striping unit when the
// fixed-size data is large, then 512 for the header and 4 for the rest.
void resolve_alignments(const LayoutHints& h, int64_t fixed_total, Layout* out) {
  int64_t header = kDefaultHeaderAlign;
  if (h.header_align > 0) header = h.header_align;
  else if (h.enddef_v_align > 0) header = h.enddef_v_align;
  else if (fixed_total > 0 && h.enddef_r_align > 0) header = h.enddef_r_align;
  else if (h.striping_unit > 0 && fixed_total > kStripingFactor * h.striping_unit)
    header = h.striping_unit;
  out->header_align = multiple_of_4(header);
  out->var_align = multiple_of_4(h.var_align);
  out->record_align = multiple_of_4(h.record_align > 0 ? h.record_align : h.enddef_r_align);
}

// Sets vsize of every variable; returns the total size of fixed-size ones.
Status set_vsizes(Header& header, int64_t* fixed_total) {
  *fixed_total = 0;
  for (Variable& v : header.vars) {
    const int64_t bytes = var_bytes(header, v);
    if (bytes > std::numeric_limits<int64_t>::max() - 3) return too_large("variable size overflows");
    v.vsize = xdr::round4(bytes);
    if (!is_record_var(header, v) && __builtin_add_overflow(*fixed_total, v.vsize, fixed_total))
      return too_large("total variable size overflows");
  }
  return Status::ok();
}

// State of one placement pass over the variables.
struct Placer {
  Header& header;
  const Layout* previous;
  int64_t end = 0;  // end of the last variable placed
  std::span<const int> order;  // file position -> index; empty: identity

  Variable& at(size_t pos) const { return header.vars[order.empty() ? pos : size_t(order[pos])]; }
  // The old offset of the variable at position pos on redef, or -1 for a new one.
  int64_t old_begin(size_t pos) const {
    if (previous == nullptr || pos >= size_t(previous->nvars)) return -1;
    return at(pos).begin;
  }
  // CDF-1 stores offsets in 32 bits: PnetCDF refuses to start a variable
  // past 2^31-1 (and cannot write a begin above 2^32-1).
  Status check_cdf1(int64_t begin) const {
    if (header.version != Version::kCdf1) return Status::ok();
    if (end > std::numeric_limits<int32_t>::max() || begin > std::numeric_limits<uint32_t>::max())
      return too_large("offset beyond the 32-bit limit of CDF-1");
    return Status::ok();
  }
};

// Fixed-size variables: each at the end of the previous one, aligned to
// var_align; on redef never below its old offset.
Status place_fixed(Placer& p, int64_t var_align, int64_t* first_begin) {
  *first_begin = -1;
  for (size_t i = 0; i < p.header.vars.size(); ++i) {
    Variable& v = p.at(i);
    if (is_record_var(p.header, v)) continue;
    int64_t begin = 0;
    if (!align_up(p.end, var_align, &begin)) return too_large("offset overflows");
    EXA_RETURN_IF_ERROR(p.check_cdf1(begin));
    begin = std::max(begin, p.old_begin(i));
    v.begin = begin;
    if (*first_begin < 0) *first_begin = begin;
    if (__builtin_add_overflow(begin, v.vsize, &p.end)) return too_large("offset overflows");
  }
  return Status::ok();
}

// Start of the record section: after the fixed-size variables, plus
// v_minfree, aligned; on redef kept where it was if that is still enough.
Status record_section_begin(const Placer& p, const Layout& l, const LayoutHints& h,
                            int64_t* begin_rec) {
  int64_t rec = p.previous ? p.previous->begin_rec : 0;
  if (rec < p.end || rec % l.var_align != 0) {
    if (!align_up(p.end, l.var_align, &rec)) return too_large("offset overflows");
  }
  int64_t with_free = 0;
  if (__builtin_add_overflow(p.end, h.var_minfree, &with_free)) return too_large("offset overflows");
  if (rec < with_free && !align_up(with_free, l.var_align, &rec)) return too_large("offset overflows");
  if (l.record_align > 1 && !align_up(rec, l.record_align, &rec)) return too_large("offset overflows");
  if (p.previous) rec = std::max(rec, p.previous->begin_rec);
  *begin_rec = rec;
  return Status::ok();
}

// Record variables: packed one after the other within a record, no
// alignment. Returns the record size.
Status place_records(Placer& p, int64_t* recsize) {
  *recsize = 0;
  const Variable* last = nullptr;
  int nrec = 0;
  for (size_t i = 0; i < p.header.vars.size(); ++i) {
    Variable& v = p.at(i);
    if (!is_record_var(p.header, v)) continue;
    EXA_RETURN_IF_ERROR(p.check_cdf1(p.end));
    v.begin = std::max(p.end, p.old_begin(i));
    // As PnetCDF: the next variable follows the computed end, not v.begin.
    if (__builtin_add_overflow(p.end, v.vsize, &p.end) ||
        __builtin_add_overflow(*recsize, v.vsize, recsize))
      return too_large("record size overflows");
    last = &v;
    ++nrec;
  }
  // The specification's special case: a single record variable is not
  // padded, so its records are contiguous.
  if (nrec == 1) *recsize = var_bytes(p.header, *last);
  return Status::ok();
}

}  // namespace

Layout existing_layout(const Header& header) {
  Layout l;
  l.header_size = encoded_size(header);
  l.nvars = int(std::min(header.vars.size(), size_t(std::numeric_limits<int>::max())));
  const Variable* first_fixed = nullptr;
  const Variable* first_rec = nullptr;
  int nrec = 0;
  for (const Variable& v : header.vars) {
    const int64_t len = xdr::round4(std::min(var_bytes(header, v), int64_t{1} << 62));
    if (is_record_var(header, v)) {
      if (first_rec == nullptr) first_rec = &v;
      l.recsize = saturating_add(l.recsize, len);
      ++nrec;
    } else {
      if (first_fixed == nullptr) first_fixed = &v;
      l.begin_rec = saturating_add(v.begin, len);
    }
  }
  if (first_rec != nullptr) l.begin_rec = first_rec->begin;
  if (nrec == 1) l.recsize = var_bytes(header, *first_rec);
  l.header_extent = first_fixed != nullptr ? first_fixed->begin : l.begin_rec;
  return l;
}

Status compute_layout(Header& header, const LayoutHints& hints, const Layout* previous,
                      Layout* out, std::span<const int> var_order) {
  EXA_RETURN_IF_ERROR(check_var_sizes(header, var_order));
  int64_t fixed_total = 0;
  EXA_RETURN_IF_ERROR(set_vsizes(header, &fixed_total));
  if (header.vars.size() > size_t(std::numeric_limits<int>::max()))
    return {NC_EMAXVARS, "too many variables"};

  Layout l;
  resolve_alignments(hints, fixed_total, &l);
  l.header_size = encoded_size(header);
  l.nvars = int(header.vars.size());

  // Header extent: the header plus h_minfree, aligned, when there are
  // variables; exactly the header otherwise. Never shrinks on redef.
  int64_t begin_var = l.header_size;
  if (!header.vars.empty()) {
    int64_t with_free = 0;
    if (__builtin_add_overflow(l.header_size, hints.header_minfree, &with_free) ||
        !align_up(with_free, l.header_align, &begin_var))
      return too_large("header extent overflows");
  }
  if (previous) begin_var = std::max(begin_var, previous->header_extent);

  Placer p{header, previous, begin_var, var_order};
  int64_t first_fixed = -1;
  EXA_RETURN_IF_ERROR(place_fixed(p, l.var_align, &first_fixed));
  EXA_RETURN_IF_ERROR(record_section_begin(p, l, hints, &l.begin_rec));
  p.end = l.begin_rec;
  EXA_RETURN_IF_ERROR(place_records(p, &l.recsize));
  l.header_extent = first_fixed >= 0 ? first_fixed : l.begin_rec;
  *out = l;
  return Status::ok();
}

}  // namespace exa::format
