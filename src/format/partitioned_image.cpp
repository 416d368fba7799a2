#include "format/partitioned_image.hpp"

#include <algorithm>
#include <map>

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
  std::string_view path, local;
  split_name(full, &path, &local);
  return is_valid_name(local) && is_valid_path(path);
}

std::string full_name(std::string_view path, std::string_view local) {
  if (path == "/") return std::string(local);
  std::string s(path);
  s += '/';
  s += local;
  return s;
}

int64_t encoded_block_size(const Block& b) {
  int64_t n = 8 + name_bytes(b.path);
  n += 4 + 8;
  for (const Dimension& d : b.dims) n += name_bytes(d.name) + 8;
  n += atts_bytes(b.atts);
  n += 4 + 8;
  for (const BlockVariable& bv : b.vars) {
    n += name_bytes(bv.var.name) + 8 + 8 * int64_t(bv.var.dimids.size()) + atts_bytes(bv.var.atts);
    n += 4 + 8 + 8 + 4;
    // A compact variable's data, padded: its vsize (the data may be filled in later).
    if (bv.flags & kVarCompact) n += 8 + bv.var.vsize;
  }
  return n + 4;
}

Status plan_image(const Header& header, Image* out, const std::vector<uint8_t>* compact) {
  Image img;
  std::map<std::string, std::vector<int>, std::less<>> dims_of, vars_of;
  dims_of["/"];  // the root block always exists: it holds the global attributes
  for (size_t i = 0; i < header.dims.size(); ++i) {
    if (!is_valid_full_name(header.dims[i].name))
      return {NC_EBADNAME, "dimension name '" + header.dims[i].name + "' is not a valid path and name"};
    std::string_view path, local;
    split_name(header.dims[i].name, &path, &local);
    dims_of[std::string(path)].push_back(int(i));
  }
  for (size_t i = 0; i < header.vars.size(); ++i) {
    if (!is_valid_full_name(header.vars[i].name))
      return {NC_EBADNAME, "variable name '" + header.vars[i].name + "' is not a valid path and name"};
    std::string_view path, local;
    split_name(header.vars[i].name, &path, &local);
    vars_of[std::string(path)].push_back(int(i));
    dims_of[std::string(path)];  // make sure the block exists
  }
  // Dimensions first (variables refer to them by file position).
  for (const auto& [path, ids] : dims_of)
    for (int id : ids) img.dim_order.push_back(id);
  std::vector<int> dim_pos(header.dims.size());
  for (size_t pos = 0; pos < img.dim_order.size(); ++pos) dim_pos[size_t(img.dim_order[pos])] = int(pos);
  for (const auto& [path, dim_ids] : dims_of) {
    Block b;
    b.path = path;
    for (int id : dim_ids) {
      std::string_view p, local;
      split_name(header.dims[size_t(id)].name, &p, &local);
      b.dims.push_back({std::string(local), header.dims[size_t(id)].length});
    }
    if (path == "/") b.atts = header.gatts;
    if (auto it = vars_of.find(path); it != vars_of.end()) {
      for (int id : it->second) {
        const Variable& v = header.vars[size_t(id)];
        std::string_view p, local;
        split_name(v.name, &p, &local);
        BlockVariable bv;
        bv.var = v;
        if (compact && (*compact)[size_t(id)]) {
          bv.flags = kVarCompact;
          bv.var.begin = 0;
          bv.var.vsize = xdr::round4(var_bytes(header, v));
        }
        bv.var.name = std::string(local);
        for (int& d : bv.var.dimids) d = dim_pos[size_t(d)];
        b.vars.push_back(std::move(bv));
        img.var_order.push_back(id);
      }
    }
    BlockEntry e;
    e.path = b.path;
    e.natts = uint32_t(b.atts.size());
    e.ndims = b.dims.size();
    e.nvars = b.vars.size();
    img.index.blocks.push_back(std::move(e));
    img.blocks.push_back(std::move(b));
  }
  *out = std::move(img);
  return Status::ok();
}

namespace {

// Where each variable sits in the image: id -> (block, index in block).
std::vector<std::pair<size_t, size_t>> var_places(const Header& header, const Image& img) {
  std::vector<std::pair<size_t, size_t>> where(header.vars.size());
  size_t pos = 0;
  for (size_t b = 0; b < img.blocks.size(); ++b)
    for (size_t k = 0; k < img.blocks[b].vars.size(); ++k) where[size_t(img.var_order[pos++])] = {b, k};
  return where;
}

// Places the blocks not marked reused from `at` on, one after the other, then
// the index table; the data may begin at the next multiple of `align`.
Status place_metadata(Image& img, int64_t at, int64_t align, int64_t* metadata_end) {
  int64_t paths = 0;
  for (size_t i = 0; i < img.blocks.size(); ++i) {
    BlockEntry& e = img.index.blocks[i];
    paths += int64_t(e.path.size());
    if (!img.reused.empty() && img.reused[i]) continue;
    e.offset = uint64_t(at);
    e.size = uint64_t(encoded_block_size(img.blocks[i]));
    if (!add(at, int64_t(e.size), &at)) return too_large();
  }
  img.index_offset = at;
  img.index_size = kIndexHeaderSize + kIndexEntrySize * int64_t(img.blocks.size()) + paths;
  if (!add(at, img.index_size, metadata_end) || !add(*metadata_end, align - 1, &img.data_begin))
    return too_large();
  img.data_begin = img.data_begin / align * align;
  return Status::ok();
}

// Lays the variables out from img.data_begin: fixed-size ones in file order,
// then the record section. Fixed-size variables with an id below `keep`
// stay where they are. Sets begin and vsize in the header and the blocks.
Status lay_out_vars(Header& header, Image& img, size_t keep, Layout* l) {
  const auto where = var_places(header, img);
  int64_t cursor = img.data_begin;
  for (int pass = 0; pass < 2; ++pass) {
    const bool record = pass == 1;
    if (record) l->begin_rec = cursor;
    int64_t in_record = 0;
    for (int id : img.var_order) {
      Variable& v = header.vars[size_t(id)];
      if (is_record_var(header, v) != record) continue;
      auto [b, k] = where[size_t(id)];
      if (img.blocks[b].vars[k].flags & kVarCompact) {  // its data is in the block
        v.begin = 0;
        v.vsize = img.blocks[b].vars[k].var.vsize;
        continue;
      }
      if (!record && size_t(id) < keep) {
        img.blocks[b].vars[k].var.vsize = v.vsize;
        img.blocks[b].vars[k].var.begin = v.begin;
        continue;
      }
      const int64_t bytes = var_bytes(header, v);
      if (bytes > INT64_MAX - 3) return too_large();
      v.vsize = xdr::round4(bytes);
      if (record) {
        if (!add(l->begin_rec, in_record, &v.begin) || !add(in_record, v.vsize, &in_record))
          return too_large();
      } else {
        v.begin = cursor;
        if (!add(cursor, v.vsize, &cursor)) return too_large();
      }
      img.blocks[b].vars[k].var.vsize = v.vsize;
      img.blocks[b].vars[k].var.begin = v.begin;
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
  EXA_RETURN_IF_ERROR(place_metadata(img, kFirstRegion, align, &end));
  Layout l = base_layout(header, img, end, align);
  EXA_RETURN_IF_ERROR(lay_out_vars(header, img, 0, &l));
  *layout = l;
  return Status::ok();
}

Status plan_redef_image(Header& header, const OnDisk& old, const std::vector<uint8_t>* compact, int64_t align,
                        Image* out, Layout* layout, bool* unchanged) {
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
  Image img, was;
  // The variables compact on disk are those with offset 0.
  std::vector<uint8_t> was_compact(nold);
  for (size_t i = 0; i < nold; ++i) was_compact[i] = before.vars[i].begin == 0;
  EXA_RETURN_IF_ERROR(plan_image(header, &img, compact));
  EXA_RETURN_IF_ERROR(plan_image(before, &was, &was_compact));
  // A block may stay where it is when it is exactly what is on disk and
  // holds no record variable (the record section moves to the new end).
  std::vector<uint8_t> has_record(img.blocks.size(), 0);
  const auto where = var_places(header, img);
  for (size_t id = 0; id < header.vars.size(); ++id)
    if (is_record_var(header, header.vars[id])) has_record[where[id].first] = 1;
  img.reused.assign(img.blocks.size(), 0);
  bool same = header.dims.size() == before.dims.size() && header.vars.size() == nold &&
              img.blocks.size() == was.blocks.size();
  for (size_t i = 0; i < img.blocks.size(); ++i) {
    const int64_t j = find_block(was.index, img.blocks[i].path);
    const int64_t on_disk = find_block(*old.index, img.blocks[i].path);
    const bool equal = j >= 0 && on_disk >= 0 && img.blocks[i] == was.blocks[size_t(j)];
    same = same && equal;
    if (!equal || has_record[i]) continue;
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
  int64_t end = 0;
  EXA_RETURN_IF_ERROR(place_metadata(img, xdr::round4(old.end), align, &end));
  Layout l = base_layout(header, img, end, align);
  EXA_RETURN_IF_ERROR(lay_out_vars(header, img, nold, &l));
  *layout = l;
  *out = std::move(img);
  return Status::ok();
}

}  // namespace exa::format::partitioned
