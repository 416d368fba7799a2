#include "format/partitioned_image.hpp"

#include <algorithm>
#include <unordered_map>
#include <span>

#include "format/nc_name.hpp"
#include "format/xdr.hpp"

namespace exa::format::partitioned {

namespace {

int64_t name_bytes(std::string_view s) { return 8 + xdr::round4(int64_t(s.size())); }

int64_t atts_bytes(const std::vector<Attribute>& atts) {
  int64_t n = 4 + 8;
  for (const Attribute& a : atts) n += name_bytes(a.name) + 4 + 8 + xdr::round4(int64_t(a.xvalues.size()));
  return n;
}

bool add(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

Status too_large() { return {NC_EVARSIZE, "file offsets beyond 2^63"}; }

}  // namespace

void split_name(std::string_view full, std::string_view* path, std::string_view* local) {
  size_t slash = full.rfind('/');
  if (slash == std::string_view::npos || slash == 0) {
    *path = "/";
    *local = slash == 0 ? full.substr(1) : full;
    return;
  }
  *path = full.substr(0, slash);
  *local = full.substr(slash + 1);
}

bool is_valid_full_name(std::string_view full) {
  if (full.find('/') == std::string_view::npos) return is_valid_name(full);  // the root block's
  std::string_view path, local;
  split_name(full, &path, &local);
  // With a '/', the name must have a group: "/x" and "//x" would be stored
  // as the root block's "x" and could not be found again by the name given.
  return path != "/" && is_valid_path(path) && is_valid_name(local);
}

std::string full_name(std::string_view path, std::string_view local) {
  if (path == "/") return std::string(local);
  std::string s(path);
  s += '/';
  s += local;
  return s;
}

int64_t image_var_bytes(const Header& header, const Image& img, int var) {
  return img.var_size.empty() ? var_bytes(header, header.vars[size_t(var)]) : img.var_size[size_t(var)];
}

bool image_var_is_record(const Header& header, const Image& img, int var) {
  return img.var_record.empty() ? is_record_var(header, header.vars[size_t(var)]) : img.var_record[size_t(var)] != 0;
}

namespace {

std::string_view local_name(std::string_view full) {
  std::string_view path, local;
  split_name(full, &path, &local);
  return local;
}

// A dimension's (variable's) local name: its last `n` characters, as
// plan_image measured them (split again if the image has no lengths).
std::string_view local_part(const std::string& full, const std::vector<uint16_t>& lengths, int id) {
  if (lengths.empty()) return local_name(full);
  return std::string_view(full).substr(full.size() - lengths[size_t(id)]);
}
std::string_view dim_local(const Header& header, const Image& img, int id) {
  return local_part(header.dims[size_t(id)].name, img.dim_local, id);
}
std::string_view var_local(const Header& header, const Image& img, int id) {
  return local_part(header.vars[size_t(id)].name, img.var_local, id);
}
// name_bytes of a local name, from its length alone when the image has it
// (the name itself is not read).
int64_t local_bytes(const std::string& full, const std::vector<uint16_t>& lengths, int id) {
  return lengths.empty() ? name_bytes(local_name(full)) : 8 + xdr::round4(int64_t(lengths[size_t(id)]));
}

bool is_compact(const Image& img, int var) { return !img.compact.empty() && img.compact[size_t(var)]; }

// The header indexes of block b's dimensions and variables: slices of the
// file orders.
std::span<const int> dims_of(const Image& img, size_t b) {
  return std::span<const int>(img.dim_order).subspan(size_t(img.first_dim[b]),
                                                     size_t(img.first_dim[b + 1] - img.first_dim[b]));
}
std::span<const int> vars_of(const Image& img, size_t b) {
  return std::span<const int>(img.var_order).subspan(size_t(img.first_var[b]),
                                                     size_t(img.first_var[b + 1] - img.first_var[b]));
}

}  // namespace

int64_t encoded_block_size(const Header& header, const Image& img, size_t b) {
  int64_t n = 8 + name_bytes(img.index.blocks[b].path);
  n += 4 + 8;
  for (int id : dims_of(img, b)) n += local_bytes(header.dims[size_t(id)].name, img.dim_local, id) + 8;
  n += b == 0 ? atts_bytes(header.gatts) : atts_bytes({});
  n += 4 + 8;
  for (int id : vars_of(img, b)) {
    const Variable& v = header.vars[size_t(id)];
    n += local_bytes(v.name, img.var_local, id) + 8 + 8 * int64_t(v.dimids.size()) + atts_bytes(v.atts);
    n += 4 + 8 + 8 + 4;
    // A compact variable's data, padded: its vsize (filled in by the writer), or none yet.
    if (is_compact(img, id))
      n += 8 + (img.compact[size_t(id)] == kCompactFull ? xdr::round4(image_var_bytes(header, img, id)) : 0);
  }
  return n + 4;
}

Block make_block(const Header& header, const Image& img, size_t b) {
  Block out;
  out.path = img.index.blocks[b].path;
  for (int id : dims_of(img, b))
    out.dims.push_back({std::string(dim_local(header, img, id)), header.dims[size_t(id)].length});
  if (b == 0) out.atts = header.gatts;
  for (int id : vars_of(img, b)) {
    const Variable& v = header.vars[size_t(id)];
    BlockVariable bv;
    bv.var.name = std::string(var_local(header, img, id));
    bv.var.atts = v.atts;
    bv.var.type = v.type;
    bv.var.vsize = v.vsize;
    bv.var.begin = v.begin;
    for (int d : v.dimids) bv.var.dimids.push_back(img.dim_pos[size_t(d)]);
    if (is_compact(img, id)) {
      bv.flags = kVarCompact;
      bv.var.begin = 0;
      bv.var.vsize = xdr::round4(image_var_bytes(header, img, id));
    }
    out.vars.push_back(std::move(bv));
  }
  return out;
}

void append_image_block(const Header& header, const Image& img, size_t b, std::vector<uint8_t>* out) {
  static const std::vector<Attribute> kNone;
  BlockEncoder e(out, img.index.blocks[b].path);
  const std::span<const int> dims = dims_of(img, b), vars = vars_of(img, b);
  e.begin_dims(dims.size());
  for (int id : dims) e.dim(dim_local(header, img, id), header.dims[size_t(id)].length);
  e.atts(b == 0 ? header.gatts : kNone);
  e.begin_vars(vars.size());
  for (int id : vars) {
    const Variable& v = header.vars[size_t(id)];
    e.begin_var(var_local(header, img, id), v.dimids.size());
    for (int d : v.dimids) e.dimid(uint64_t(int64_t(img.dim_pos[size_t(d)])));
    if (is_compact(img, id))
      e.end_var(v.atts, v.type, xdr::round4(image_var_bytes(header, img, id)), 0, kVarCompact, {});
    else
      e.end_var(v.atts, v.type, v.vsize, v.begin, 0, {});
  }
  e.finish();
}

bool image_block_has_compact(const Image& img, size_t b) {
  for (int id : vars_of(img, b))
    if (is_compact(img, id)) return true;
  return false;
}

std::vector<Block> make_blocks(const Header& header, const Image& img) {
  std::vector<Block> all;
  for (size_t b = 0; b < img.index.blocks.size(); ++b) all.push_back(make_block(header, img, b));
  return all;
}

namespace {

// The objects of one kind (dimensions or variables) by path: for each, in
// `order`, the group of its path (groups numbered as first met), each
// path's validity checked once. Objects of one block usually follow each
// other, so the last path is compared before the table is asked.
class PathGroups {
 public:
  PathGroups() { group_of("/"); }  // group 0: the root block, which always exists
  // The group of a full name; NC_EBADNAME if it is not a valid full name.
  Status add(const std::string& full, const char* what, uint32_t* group, uint16_t* local_length) {
    std::string_view path, local;
    split_name(full, &path, &local);
    const uint32_t g = group_of(path);
    // The root block's names carry no '/' ("/x" would not be found again by
    // the name given); a group's path was checked when the group was made.
    const bool valid = (g == 0 ? full.find('/') == std::string::npos : valid_[g] != 0) && is_valid_name(local);
    if (!valid) return {NC_EBADNAME, std::string(what) + " name '" + full + "' is not a valid path and name"};
    *group = g;
    *local_length = uint16_t(local.size());  // valid: at most NC_MAX_NAME
    return Status::ok();
  }
  const std::vector<std::string_view>& paths() const { return paths_; }

 private:
  uint32_t group_of(std::string_view path) {
    if (last_ < paths_.size() && paths_[last_] == path) return last_;
    auto [it, fresh] = index_.try_emplace(path, uint32_t(paths_.size()));
    if (fresh) {
      paths_.push_back(path);
      valid_.push_back(is_valid_path(path) ? 1 : 0);
    }
    last_ = it->second;
    return last_;
  }
  std::unordered_map<std::string_view, uint32_t> index_;
  std::vector<std::string_view> paths_;
  std::vector<uint8_t> valid_;
  uint32_t last_ = 0;
};

// Places the objects (header indexes, taken in `order`) by group: the
// objects of group rank[g] -- the g-th path in sorted order -- together,
// each group in the order met. *first receives each sorted group's first
// position, then the total.
void place_by_group(const std::vector<uint32_t>& group, const std::vector<int>& order,
                    const std::vector<uint32_t>& rank, std::vector<int>* placed, std::vector<int64_t>* first) {
  std::vector<int64_t> at(rank.size() + 1, 0);
  for (uint32_t g : group) ++at[rank[g] + 1];
  for (size_t i = 1; i < at.size(); ++i) at[i] += at[i - 1];
  *first = at;
  placed->resize(group.size());
  for (size_t pos = 0; pos < group.size(); ++pos)
    (*placed)[size_t(at[rank[group[pos]]]++)] = order.empty() ? int(pos) : order[pos];
}

}  // namespace

Status plan_image(const Header& header, Image* out, const std::vector<uint8_t>* compact,
                  const ObjectOrder& order) {
  if ((!order.dims.empty() && order.dims.size() != header.dims.size()) ||
      (!order.vars.empty() && order.vars.size() != header.vars.size()))
    return {NC_EINTERNAL, "the object order does not cover the header"};
  // Each object's group, in `order`; then the groups sorted by path and the
  // objects placed group by group (a counting sort: no list per group).
  PathGroups groups;
  std::vector<uint32_t> dim_group(header.dims.size()), var_group(header.vars.size());
  std::vector<uint16_t> dim_local(header.dims.size()), var_local(header.vars.size());
  for (size_t pos = 0; pos < header.dims.size(); ++pos) {
    const size_t i = order.dims.empty() ? pos : size_t(order.dims[pos]);
    EXA_RETURN_IF_ERROR(groups.add(header.dims[i].name, "dimension", &dim_group[pos], &dim_local[i]));
  }
  // Each variable's dimensions are looked up here once, for every later pass.
  std::vector<uint8_t> var_record(header.vars.size());
  std::vector<int64_t> var_size(header.vars.size());
  for (size_t pos = 0; pos < header.vars.size(); ++pos) {
    const size_t i = order.vars.empty() ? pos : size_t(order.vars[pos]);
    const Variable& v = header.vars[i];
    EXA_RETURN_IF_ERROR(groups.add(v.name, "variable", &var_group[pos], &var_local[i]));
    const bool record = is_record_var(header, v);
    var_record[i] = record ? 1 : 0;
    var_size[i] = var_bytes(header, v, record);
  }
  const std::vector<std::string_view>& paths = groups.paths();
  std::vector<uint32_t> sorted(paths.size()), rank(paths.size());
  for (size_t g = 0; g < paths.size(); ++g) sorted[g] = uint32_t(g);
  std::sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) { return paths[a] < paths[b]; });
  for (size_t k = 0; k < sorted.size(); ++k) rank[sorted[k]] = uint32_t(k);
  Image img;
  place_by_group(dim_group, order.dims, rank, &img.dim_order, &img.first_dim);
  place_by_group(var_group, order.vars, rank, &img.var_order, &img.first_var);
  dim_group = {};
  var_group = {};
  img.index.blocks.resize(sorted.size());
  for (size_t k = 0; k < sorted.size(); ++k) {
    BlockEntry& e = img.index.blocks[k];
    e.path = std::string(paths[sorted[k]]);
    e.natts = e.path == "/" ? uint32_t(header.gatts.size()) : 0;
    e.ndims = uint64_t(img.first_dim[k + 1] - img.first_dim[k]);
    e.nvars = uint64_t(img.first_var[k + 1] - img.first_var[k]);
  }
  img.dim_pos.resize(header.dims.size());
  for (size_t pos = 0; pos < img.dim_order.size(); ++pos) img.dim_pos[size_t(img.dim_order[pos])] = int(pos);
  if (compact) img.compact = *compact;
  img.dim_local = std::move(dim_local);
  img.var_local = std::move(var_local);
  img.var_record = std::move(var_record);
  img.var_size = std::move(var_size);
  *out = std::move(img);
  return Status::ok();
}

namespace {

// Places the blocks not marked reused from `at` on, one after the other, then
// the index table; the data may begin at the next multiple of `align`.
Status place_metadata(const Header& header, Image& img, int64_t at, int64_t align, int64_t* metadata_end) {
  const size_t n = img.index.blocks.size();
  for (size_t i = 0; i < n; ++i) {
    BlockEntry& e = img.index.blocks[i];
    if (!img.reused.empty() && img.reused[i]) continue;
    e.offset = uint64_t(at);
    e.size = uint64_t(encoded_block_size(header, img, i));
    if (!add(at, int64_t(e.size), &at)) return too_large();
  }
  img.index_offset = at;
  img.index_size = encoded_index_size(img.index);
  if (!add(at, img.index_size, metadata_end) || !add(*metadata_end, align - 1, &img.data_begin))
    return too_large();
  img.data_begin = img.data_begin / align * align;
  return Status::ok();
}

// Lays the variables out from img.data_begin: fixed-size ones in file order,
// then the record section; compact ones get offset 0 and no region.
// Fixed-size variables with an id below `keep` stay where they are. Sets
// begin and vsize in the header.
Status lay_out_vars(Header& header, const Image& img, size_t keep, Layout* l) {
  int64_t cursor = img.data_begin;
  const int rec = record_dim(header);
  for (int pass = 0; pass < 2; ++pass) {
    const bool record = pass == 1;
    if (record) l->begin_rec = cursor;
    int64_t in_record = 0;
    for (int id : img.var_order) {
      if (record && rec < 0) break;  // no record variables
      Variable& v = header.vars[size_t(id)];
      if (is_record_var(v, rec) != record) continue;
      const int64_t bytes = var_bytes(header, v, record);
      if (bytes > INT64_MAX - 3) return too_large();
      if (is_compact(img, id)) {  // its data is in the block
        v.begin = 0;
        v.vsize = xdr::round4(bytes);
        continue;
      }
      if (!record && size_t(id) < keep) continue;
      v.vsize = xdr::round4(bytes);
      if (record) {
        if (!add(l->begin_rec, in_record, &v.begin) || !add(in_record, v.vsize, &in_record))
          return too_large();
      } else {
        v.begin = cursor;
        if (!add(cursor, v.vsize, &cursor)) return too_large();
      }
    }
    if (record) l->recsize = in_record;
  }
  return Status::ok();
}

Layout base_layout(const Header& header, const Image& img, int64_t metadata_end, int64_t align) {
  Layout l;
  l.header_size = metadata_end;
  l.header_extent = img.data_begin;
  l.nvars = int(header.vars.size());
  l.header_align = align;
  l.var_align = 4;
  l.record_align = 4;
  return l;
}

}  // namespace

Status place_image(Header& header, Image& img, int64_t align, Layout* layout) {
  align = std::max<int64_t>(4, xdr::round4(align));
  int64_t end = 0;
  EXA_RETURN_IF_ERROR(place_metadata(header, img, kFirstRegion, align, &end));
  Layout l = base_layout(header, img, end, align);
  EXA_RETURN_IF_ERROR(lay_out_vars(header, img, 0, &l));
  *layout = l;
  return Status::ok();
}

namespace {

// `order` without the objects whose index is `n` or more.
std::vector<int> below(const std::vector<int>& order, size_t n) {
  std::vector<int> kept;
  for (int i : order)
    if (size_t(i) < n) kept.push_back(i);
  return kept;
}

// Bytes the record variables with an id of nold or more add to a record
// (as lay_out_vars sizes them).
Status new_record_bytes(const Header& header, size_t nold, int64_t* added) {
  const int rec = record_dim(header);
  *added = 0;
  for (size_t id = nold; id < header.vars.size(); ++id) {
    const Variable& v = header.vars[id];
    if (!is_record_var(v, rec)) continue;
    const int64_t bytes = var_bytes(header, v, true);
    if (bytes > INT64_MAX - 3 || !add(*added, xdr::round4(bytes), added)) return too_large();
  }
  return Status::ok();
}

// The sections after a redef of a file with records: the old ones, the
// current one closed at numrecs, and (when new record variables add bytes)
// one for their bytes of the records written so far, its offset set by
// keep_records_in_place. The current section starts at numrecs.
RecordSections next_sections(const OnDisk& old, int64_t added) {
  RecordSections rs = old.sections;
  const uint64_t first = rs.present ? rs.current_first : 0;
  rs.present = true;
  if (uint64_t(old.numrecs) > first)
    rs.closed.push_back({first, uint64_t(old.numrecs) - first, uint64_t(old.record_begin), 0,
                         uint64_t(old.record_size)});
  if (added > 0)
    rs.closed.push_back({0, uint64_t(old.numrecs), 0, uint64_t(old.record_size), uint64_t(old.record_size + added)});
  rs.current_first = uint64_t(old.numrecs);
  return rs;
}

// The record layout of a redef that keeps the records where they are: the
// old record variables keep their bytes within a record, the new ones follow
// in file order; where lay_out_vars put the record section go first the new
// variables' bytes of the old records (numrecs x added bytes), then the new
// current section.
Status keep_records_in_place(Header& header, const Header& before, const Image& img, const OnDisk& old,
                             int64_t added, Layout* l) {
  const int rec = record_dim(header);
  std::vector<int64_t> at(header.vars.size(), -1);  // bytes before the variable within a record
  for (size_t id = 0; id < before.vars.size(); ++id) {
    if (!is_record_var(header.vars[id], rec)) continue;
    const Variable& v = before.vars[id];
    if (v.begin < old.record_begin || v.begin - old.record_begin > old.record_size - v.vsize)
      return {NC_EINTERNAL, "record variable '" + v.name + "' outside the current record section"};
    at[id] = v.begin - old.record_begin;
  }
  int64_t in_record = old.record_size;
  for (int id : img.var_order) {
    if (size_t(id) < before.vars.size() || !is_record_var(header.vars[size_t(id)], rec)) continue;
    at[size_t(id)] = in_record;
    if (!add(in_record, header.vars[size_t(id)].vsize, &in_record)) return too_large();
  }
  if (in_record - old.record_size != added) return {NC_EINTERNAL, "record bytes of the new variables differ"};
  const int64_t back = l->begin_rec;
  int64_t back_bytes = 0, current = back;
  if (__builtin_mul_overflow(old.numrecs, added, &back_bytes) || !add(back, back_bytes, &current)) return too_large();
  for (size_t id = 0; id < header.vars.size(); ++id)
    if (at[id] >= 0 && !add(current, at[id], &header.vars[id].begin)) return too_large();
  l->begin_rec = current;
  l->recsize = in_record;
  l->sections = next_sections(old, added);
  if (added > 0) l->sections.closed.back().offset = uint64_t(back);
  return Status::ok();
}

}  // namespace

Status plan_redef_image(Header& header, const OnDisk& old, const std::vector<uint8_t>* compact, int64_t align,
                        Image* out, Layout* layout, bool* unchanged, const ObjectOrder& order) {
  align = std::max<int64_t>(4, xdr::round4(align));
  const Header& before = *old.header;
  const size_t nold = before.vars.size();
  if (header.vars.size() < nold) return {NC_EINTERNAL, "a redef lost variables"};
  // Variables of the current state start from where they are on disk (an
  // earlier failed attempt may have moved them in memory).
  for (size_t i = 0; i < nold; ++i) {
    header.vars[i].begin = before.vars[i].begin;
    header.vars[i].vsize = before.vars[i].vsize;
  }
  // The variables compact on disk are those with offset 0.
  std::vector<uint8_t> was_compact(nold);
  for (size_t i = 0; i < nold; ++i) was_compact[i] = before.vars[i].begin == 0 ? kCompactFull : kNotCompact;
  Image img, was;
  const ObjectOrder old_order{below(order.dims, before.dims.size()), below(order.vars, nold)};
  EXA_RETURN_IF_ERROR(plan_image(header, &img, compact, order));
  EXA_RETURN_IF_ERROR(plan_image(before, &was, &was_compact, old_order));
  // A block may stay where it is when it is exactly what is on disk and
  // holds no record variable (the record section moves to the new end).
  const size_t n = img.index.blocks.size();
  img.reused.assign(n, 0);
  bool same = header.dims.size() == before.dims.size() && header.vars.size() == nold &&
              n == was.index.blocks.size();
  for (size_t i = 0; i < n; ++i) {
    const std::string& path = img.index.blocks[i].path;
    bool has_record = false;
    for (int id : vars_of(img, i)) has_record = has_record || image_var_is_record(header, img, id);
    const int64_t j = find_block(was.index, path);
    const int64_t on_disk = find_block(*old.index, path);
    const bool equal = j >= 0 && on_disk >= 0 && make_block(header, img, i) == make_block(before, was, size_t(j));
    same = same && equal;
    if (!equal || has_record) continue;
    img.reused[i] = 1;
    img.index.blocks[i] = old.index->blocks[size_t(on_disk)];
  }
  *unchanged = same;
  if (same) {
    *out = std::move(img);
    return Status::ok();
  }
  // Everything new goes past the end of the space in use: the current state
  // stays intact until the superblock that points at the new one is written.
  const bool sectioned = record_dim(header) >= 0 && old.numrecs > 0 && old.record_size > 0 &&
                         (old.split_records || old.sections.present);
  int64_t added = 0;  // bytes the new record variables add to a record
  if (sectioned) {
    EXA_RETURN_IF_ERROR(new_record_bytes(header, nold, &added));
    img.index.sections = next_sections(old, added);  // its size is the head's: before placing
  }
  int64_t end = 0;
  EXA_RETURN_IF_ERROR(place_metadata(header, img, old.metadata_at >= 0 ? old.metadata_at : xdr::round4(old.end),
                                     align, &end));
  if (old.metadata_at >= 0) {  // the metadata in reused space: the data past the end all the same
    int64_t data = 0;
    if (!add(std::max(end, old.end), align - 1, &data)) return too_large();
    img.data_begin = data / align * align;
  }
  Layout l = base_layout(header, img, end, align);
  EXA_RETURN_IF_ERROR(lay_out_vars(header, img, nold, &l));
  if (sectioned) {
    EXA_RETURN_IF_ERROR(keep_records_in_place(header, before, img, old, added, &l));
    img.index.sections = l.sections;
  }
  *layout = l;
  *out = std::move(img);
  return Status::ok();
}

}  // namespace exa::format::partitioned
