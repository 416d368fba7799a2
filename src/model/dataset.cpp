#include "model/dataset.hpp"

#include <algorithm>
#include <cstring>

#include "convert/external.hpp"
#include "format/partitioned_image.hpp"
#include "format/xdr.hpp"
#include "model/names.hpp"

namespace exa::model {

namespace {

// Largest dimension length of a version, as PnetCDF 1.12.3 allows: CDF-1
// NC_MAX_INT - 3, CDF-2 NC_MAX_UINT - 3 (its 4-byte lengths read unsigned),
// CDF-5 NC_MAX_INT64.
int64_t max_dim_length(format::Version v) {
  switch (v) {
    case format::Version::kCdf1: return int64_t{NC_MAX_INT} - 3;
    case format::Version::kCdf2: return int64_t{NC_MAX_UINT} - 3;
    case format::Version::kCdf5: break;
  }
  return INT64_MAX;
}

// Room for one more object in a define-time list. The lists grow by 8x, not
// by the vector's doubling: each growth moves every object into a fresh
// buffer, whose pages the kernel zeroes on first touch, and at dataset_1G
// (8 ranks) doubling moved each rank's 0.7 million variables and 1.1 million
// dimensions about once more in all (12% of the CPU was those page faults and
// copies). With 8x they move a seventh as much. The pages reserved beyond the
// size are never touched, so they take address space, not memory.
template <class T>
void make_room_for_one(std::vector<T>* list) {
  if (list->size() < list->capacity()) return;
  list->reserve(std::max<size_t>(8, list->size() * 8));
}

Status check_type_for_version(nc_type type, format::Version v) {
  if (type < NC_BYTE || type > NC_UINT64) return {NC_EBADTYPE, "unknown external type"};
  if (!format::type_valid_for(type, v))
    return {NC_ESTRICTCDF2, "type needs the CDF-5 format"};
  return Status::ok();
}

std::vector<int> invert(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int>(i);
  return inv;
}

}  // namespace

Dataset::Dataset(format::Version version) { header_.version = version; }

Status Dataset::check_object_name(std::string_view name) const {
  if (!partitioned_) return check_name(name);
  std::string_view path, local;
  format::partitioned::split_name(name, &path, &local);
  EXA_RETURN_IF_ERROR(check_name(local));  // (its length: NC_EMAXNAME)
  if (local.size() == name.size()) return Status::ok();  // a root block name: no '/'
  // As format::partitioned::is_valid_full_name, whose name part was just
  // checked: a group's objects are defined one after the other, so the path
  // checked last is compared before it is checked again.
  if (path != "/" && (path == last_valid_path_ || format::partitioned::is_valid_path(path))) {
    if (path != last_valid_path_) last_valid_path_.assign(path);
    return Status::ok();
  }
  return {NC_EBADNAME, "not a valid name or '/group/name' path (no empty part, no '/' alone before a root name)"};
}

Dataset::Dataset(format::Header header) : header_(std::move(header)) { rebuild_indexes(); }

void Dataset::rebuild_indexes() {
  dim_index_.clear();
  var_index_.clear();
  unlimited_dim_ = -1;
  for (int i = 0; i < ndims(); ++i) {
    dim_index_.insert(header_.dims[static_cast<size_t>(i)].name, i);
    if (header_.dims[static_cast<size_t>(i)].length == NC_UNLIMITED) unlimited_dim_ = i;
  }
  for (int i = 0; i < nvars(); ++i) var_index_.insert(header_.vars[static_cast<size_t>(i)].name, i);
  var_no_fill_.assign(header_.vars.size(), 0);
}

// A lazy dataset loads the block a name's path points at before looking it up.
int Dataset::find_dim(std::string_view name) const {
  if (lazy_ && !load_block_of_name(name)) return -1;
  return dim_index_.find(name, dim_name_of());
}

int Dataset::find_var(std::string_view name) const {
  if (lazy_ && !load_block_of_name(name)) return -1;
  return var_index_.find(name, var_name_of());
}

bool Dataset::load_block_of_name(std::string_view name) const {
  std::string_view path, local;
  format::partitioned::split_name(name, &path, &local);
  int64_t b = -1;
  Status st = lazy_->index->find(path, &b);
  if (!st.is_ok()) return fail_lazily(std::move(st));
  return b >= 0 && load_block(size_t(b));
}

const format::Dimension& Dataset::dim(int id) const {
  return lazy_ ? lazy_dim(id) : header_.dims[static_cast<size_t>(id)];
}

const format::Variable& Dataset::var(int id) const {
  return lazy_ ? lazy_var(id) : header_.vars[static_cast<size_t>(id)];
}

format::Dimension& Dataset::lazy_dim(int id) const {
  if (own_dim(id)) return header_.dims[size_t(id)];
  const int64_t g = lazy_->dims_map.global(id);
  size_t b = 0;
  (void)lazy_->index->block_of_dim(g, &b);  // its page is loaded: no I/O, no failure
  Lazy::Objects& o = lazy_->blocks.at(b);
  return o.dims[size_t(g - o.first_dim)];
}

format::Variable& Dataset::lazy_var(int id) const {
  if (own_var(id)) return header_.vars[size_t(id)];
  const int64_t g = lazy_->vars_map.global(id);
  size_t b = 0;
  (void)lazy_->index->block_of_var(g, &b);
  Lazy::Objects& o = lazy_->blocks.at(b);
  return o.vars[size_t(g - o.first_var)];
}

int64_t Dataset::record_elements(int varid) const {
  return format::record_elements(var(varid), is_record_var(varid),
                                 [this](int d) { return d >= 0 && d < ndims() ? dim(d).length : -1; });
}

int64_t Dataset::var_bytes(int varid) const {
  return format::var_bytes(var(varid), is_record_var(varid),
                           [this](int d) { return d >= 0 && d < ndims() ? dim(d).length : -1; });
}

Status Dataset::open_lazily(std::shared_ptr<format::partitioned::PagedIndex> index,
                            format::partitioned::Block root, BlockReader read) {
  auto lazy = std::make_shared<Lazy>();
  lazy->index = std::move(index);
  lazy->read = std::move(read);
  header_ = format::Header{};
  header_.version = format::Version::kCdf5;
  dim_index_.clear();
  var_index_.clear();
  return go_lazy(std::move(lazy), std::move(root));
}

Status Dataset::keep_own_go_lazy(std::shared_ptr<format::partitioned::PagedIndex> index,
                                 format::partitioned::Block root, BlockReader read,
                                 std::vector<int64_t> dim_positions, std::vector<int64_t> var_positions,
                                 const std::vector<size_t>& own_blocks) {
  if (dim_positions.size() != header_.dims.size() || var_positions.size() != header_.vars.size() ||
      !dim_order_.empty() || !var_order_.empty())
    return {NC_EINTERNAL, "own objects do not match the dataset"};
  auto lazy = std::make_shared<Lazy>();
  lazy->index = std::move(index);
  lazy->read = std::move(read);
  lazy->dims_map = IdMap(std::move(dim_positions));
  lazy->vars_map = IdMap(std::move(var_positions));
  lazy->own_blocks.insert(own_blocks.begin(), own_blocks.end());
  // Own objects keep their names in the indexes; their dimension ids are local already.
  return go_lazy(std::move(lazy), std::move(root));
}

Status Dataset::go_lazy(std::shared_ptr<Lazy> lazy, format::partitioned::Block root) {
  const format::partitioned::Superblock& sb = lazy->index->superblock();
  lazy->ndims = int64_t(sb.ndims);
  lazy->nvars = int64_t(sb.nvars);
  lazy->record_begin = int64_t(sb.record_begin);
  lazy->record_size = int64_t(sb.record_size);
  header_.numrecs = int64_t(sb.numrecs);
  var_no_fill_.clear();
  unlimited_dim_ = sb.record_dim > 0 ? int(lazy->dims_map.local(int64_t(sb.record_dim - 1))) : -1;
  partitioned_ = true;
  lazy_ = std::move(lazy);
  int64_t b = -1;
  EXA_RETURN_IF_ERROR(lazy_->index->find("/", &b));
  if (b != 0) return {NC_EFILEMETA, "the root block is missing"};
  header_.gatts = root.atts;
  if (lazy_->own_blocks.count(0)) return Status::ok();
  return apply_block(0, std::move(root));
}

Status Dataset::apply_block(size_t b, format::partitioned::Block block) const {
  Lazy& z = *lazy_;
  const format::partitioned::BlockEntry* e = nullptr;
  Lazy::Objects o;
  EXA_RETURN_IF_ERROR(z.index->entry(b, &e));
  EXA_RETURN_IF_ERROR(z.index->first_ids(b, &o.first_dim, &o.first_var));
  if (block.path != e->path || block.dims.size() != e->ndims || block.vars.size() != e->nvars)
    return {NC_EFILEMETA, "block '" + e->path + "' does not match the index table"};
  if (b != 0 && !block.atts.empty())
    return {NC_ENOTSUPPORT, "attributes of block '" + e->path + "' (groups) are not read yet"};
  o.dims.reserve(block.dims.size());
  for (size_t k = 0; k < block.dims.size(); ++k) {
    const int id = int(z.dims_map.local(o.first_dim + int64_t(k)));
    o.dims.push_back({format::partitioned::full_name(e->path, block.dims[k].name), block.dims[k].length});
    if ((o.dims.back().length == NC_UNLIMITED) != (id == unlimited_dim_))
      return {NC_EFILEMETA, "dimension '" + o.dims.back().name + "' disagrees with the superblock's record dimension"};
  }
  o.vars.reserve(block.vars.size());
  std::vector<std::pair<int, std::vector<uint8_t>>> compact;
  for (size_t k = 0; k < block.vars.size(); ++k) {
    format::partitioned::BlockVariable& bv = block.vars[k];
    // Offset 0 marks a compact variable (its data is in the block; the
    // native connector's compact store reads it); any other variable's data
    // lies past the superblocks.
    if (!(bv.flags & format::partitioned::kVarCompact) && bv.var.begin < format::partitioned::kFirstRegion)
      return {NC_EFILEMETA, "variable '" + bv.var.name + "' of block '" + e->path + "' has a bad offset"};
    const int id = int(z.vars_map.local(o.first_var + int64_t(k)));
    if (bv.flags & format::partitioned::kVarCompact) compact.emplace_back(id, std::move(bv.data));
    o.vars.push_back(std::move(bv.var));
    format::Variable& v = o.vars.back();
    v.name = format::partitioned::full_name(e->path, v.name);
    // Dimension ids from global to local (a bad one stays bad: load_var refuses it).
    for (int& d : v.dimids)
      if (d >= 0 && d < lazy_->ndims) d = int(z.dims_map.local(d));
    for (size_t i = 1; i < v.dimids.size(); ++i)
      if (v.dimids[i] == unlimited_dim_ && unlimited_dim_ >= 0)
        return {NC_EFILEMETA, "variable '" + v.name + "' has the unlimited dimension not first"};
  }
  // Checked: the block's objects become visible.
  Lazy::Objects& kept = z.blocks[b] = std::move(o);
  for (size_t k = 0; k < kept.dims.size(); ++k)
    dim_index_.insert(kept.dims[k].name, int(z.dims_map.local(kept.first_dim + int64_t(k))));
  for (size_t k = 0; k < kept.vars.size(); ++k)
    var_index_.insert(kept.vars[k].name, int(z.vars_map.local(kept.first_var + int64_t(k))));
  for (auto& [id, data] : compact) z.compact[id] = std::move(data);
  ++z.nloaded;
  return Status::ok();
}

bool Dataset::load_block(size_t b) const {
  Lazy& z = *lazy_;
  if (z.blocks.count(b) || z.own_blocks.count(b)) return true;
  auto known = z.failed.find(b);
  Status st = known != z.failed.end() ? known->second : Status::ok();
  if (known == z.failed.end()) {
    const format::partitioned::BlockEntry* e = nullptr;
    format::partitioned::Block block;
    st = z.index->entry(b, &e);
    if (st.is_ok() && (e->flags & format::partitioned::kEntryIndexBlock)) {
      z.blocks[b];  // an index block (the query engine's): no objects
      return true;
    }
    if (st.is_ok()) st = z.read(*e, &block);
    if (st.is_ok()) st = apply_block(b, std::move(block));
  }
  if (st.is_ok()) return true;
  z.failed[b] = st;
  z.error = st;
  ++z.failures;
  return false;
}

bool Dataset::load_dim(int id) const {
  if (!lazy_ || own_dim(id)) return true;
  size_t b = 0;
  Status st = lazy_->index->block_of_dim(lazy_->dims_map.global(id), &b);
  return st.is_ok() ? load_block(b) : fail_lazily(std::move(st));
}

bool Dataset::load_var(int id) const {
  if (!lazy_ || own_var(id)) return true;  // (own variables were checked when defined)
  size_t b = 0;
  Status st = lazy_->index->block_of_var(lazy_->vars_map.global(id), &b);
  if (!st.is_ok()) return fail_lazily(std::move(st));
  if (!load_block(b)) return false;
  const auto& v = lazy_var(id);
  for (int d : v.dimids) {
    if (d < 0 || d >= ndims()) return fail_lazily({NC_EFILEMETA, "variable '" + v.name + "' uses a bad dimension id"});
    if (!load_dim(d)) return false;
  }
  // The data region the file claims: the size its dimensions give, past the
  // superblocks (or offset 0: compact, the data is in the block), records
  // inside the record section.
  const int64_t bytes = var_bytes(id);
  int64_t end = 0;
  bool ok = bytes <= INT64_MAX - 3 && v.vsize == format::xdr::round4(bytes) &&
            (v.begin >= format::partitioned::kFirstRegion || v.begin == 0) &&
            !__builtin_add_overflow(v.begin, v.vsize, &end);
  if (ok && v.begin == 0) ok = !is_record_var(id);  // compact: never a record variable
  if (ok && is_record_var(id))
    ok = v.begin >= lazy_->record_begin && v.begin - lazy_->record_begin <= lazy_->record_size - v.vsize;
  if (!ok) return fail_lazily({NC_EFILEMETA, "variable '" + v.name + "' has a bad size or offset"});
  return true;
}

bool Dataset::fail_lazily(Status st) const {
  lazy_->error = std::move(st);
  ++lazy_->failures;
  return false;
}

void Dataset::move_current_records(int64_t record_begin, int64_t delta) {
  auto shift = [&](format::Variable& v) {
    if (unlimited_dim_ >= 0 && !v.dimids.empty() && v.dimids[0] == unlimited_dim_ && v.begin != 0) v.begin += delta;
  };
  for (format::Variable& v : header_.vars) shift(v);
  if (!lazy_) return;
  lazy_->record_begin = record_begin;
  for (auto& [b, objects] : lazy_->blocks)
    for (format::Variable& v : objects.vars) shift(v);
}

int64_t Dataset::blocks_loaded() const { return lazy_ ? lazy_->nloaded : 0; }

Status Dataset::lazy_status() const { return lazy_ ? lazy_->error : Status::ok(); }

Status Dataset::load_all() const {
  if (!lazy_) return Status::ok();
  for (size_t b = 0; b < lazy_->index->nblocks(); ++b)
    if (!load_block(b)) return lazy_->error;
  return Status::ok();
}

int64_t Dataset::unloaded_page_of_var(int id) const {
  if (!lazy_ || id < 0 || id >= nvars() || own_var(id)) return -1;
  const size_t k = lazy_->index->page_of_var(lazy_->vars_map.global(id));
  return lazy_->index->page_loaded(k) ? -1 : int64_t(k);
}

int64_t Dataset::unloaded_block_of_var(int id) const {
  if (!lazy_ || id < 0 || id >= nvars() || own_var(id)) return -1;
  size_t b = 0;
  if (!lazy_->index->block_of_var(lazy_->vars_map.global(id), &b).is_ok()) return -1;  // bad page: fails on use
  return lazy_->blocks.count(b) || lazy_->failed.count(b) ? -1 : int64_t(b);
}

std::vector<uint8_t> Dataset::loaded_blocks() const {
  if (!lazy_) return {};
  std::vector<uint8_t> loaded(size_t(lazy_->index->nblocks()), 0);
  for (const auto& [b, objects] : lazy_->blocks) loaded[b] = 1;
  for (size_t b : lazy_->own_blocks) loaded[b] = 1;
  return loaded;
}

Status Dataset::supply_block(size_t b, std::span<const uint8_t> bytes) {
  if (!lazy_ || b >= lazy_->index->nblocks()) return {NC_EINTERNAL, "no such block to supply"};
  if (lazy_->blocks.count(b) || lazy_->own_blocks.count(b)) return Status::ok();
  const format::partitioned::BlockEntry* e = nullptr;
  format::partitioned::Block block;
  Status st = lazy_->index->entry(b, &e);
  if (st.is_ok() && (e->flags & format::partitioned::kEntryIndexBlock)) {
    lazy_->blocks[b];  // an index block (the query engine's): no objects
    return Status::ok();
  }
  if (st.is_ok()) st = format::partitioned::decode_block(bytes, *e, uint64_t(ndims()), &block);
  if (st.is_ok()) st = apply_block(b, std::move(block));
  if (!st.is_ok()) {
    lazy_->failed[b] = st;
    fail_lazily(st);
  }
  return st;
}

bool Dataset::take_compact_data(int id, std::vector<uint8_t>* out) const {
  if (!lazy_) return false;
  auto it = lazy_->compact.find(id);
  if (it == lazy_->compact.end()) return false;
  *out = std::move(it->second);
  lazy_->compact.erase(it);
  return true;
}

format::Header Dataset::materialize() const {
  format::Header h = header_;  // (own objects first, at their ids)
  h.dims.resize(size_t(lazy_->ndims));
  h.vars.resize(size_t(lazy_->nvars));
  const Lazy& z = *lazy_;
  for (const auto& [b, o] : z.blocks) {
    for (size_t k = 0; k < o.dims.size(); ++k) h.dims[size_t(z.dims_map.local(o.first_dim + int64_t(k)))] = o.dims[k];
    for (size_t k = 0; k < o.vars.size(); ++k) h.vars[size_t(z.vars_map.local(o.first_var + int64_t(k)))] = o.vars[k];
  }
  return h;
}

Status Dataset::end_lazy() {
  if (!lazy_) return Status::ok();
  if (lazy_->blocks.size() + lazy_->own_blocks.size() != lazy_->index->nblocks())
    return {NC_EINTERNAL, "a block is not loaded yet"};
  // Every variable's dimensions and data region, as a lazy lookup would check them.
  for (int id = 0; id < nvars(); ++id)
    if (!load_var(id)) return lazy_->error;
  header_ = materialize();
  var_no_fill_.assign(header_.vars.size(), 1);
  // Own objects kept their ids: the file order is the id map's.
  if (lazy_->dims_map.own() || lazy_->vars_map.own())
    set_file_order(lazy_->dims_map.order(lazy_->ndims), lazy_->vars_map.order(lazy_->nvars));
  lazy_.reset();
  return Status::ok();
}

bool Dataset::is_record_var(int varid) const {
  const auto& v = var(varid);
  return !v.dimids.empty() && v.dimids[0] == unlimited_dim_ && unlimited_dim_ >= 0;
}

Status Dataset::def_dim(std::string_view name, int64_t length, int* id) {
  EXA_RETURN_IF_ERROR(check_object_name(name));
  if (length < 0 || length > max_dim_length(header_.version))
    return {NC_EDIMSIZE, "dimension length out of range for the format"};
  if (length == NC_UNLIMITED && unlimited_dim_ >= 0)
    return {NC_EUNLIMIT, "a second unlimited dimension"};
  if (lazy_) (void)load_block_of_name(name);  // as find_dim: the names of the block
  const int new_id = ndims();
  // The lookup and the insert in one.
  if (!dim_index_.insert_new(name, new_id, dim_name_of())) return {NC_ENAMEINUSE, "dimension name in use"};
  make_room_for_one(&header_.dims);
  header_.dims.push_back({std::string(name), length});
  if (length == NC_UNLIMITED) unlimited_dim_ = new_id;
  if (id) *id = new_id;
  return Status::ok();
}

Status Dataset::def_var(std::string_view name, nc_type type, int ndims, const int* dimids,
                        int* id) {
  EXA_RETURN_IF_ERROR(check_object_name(name));
  EXA_RETURN_IF_ERROR(check_type_for_version(type, header_.version));
  if (ndims < 0) return {NC_EINVAL, "negative number of dimensions"};
  if (find_var(name) >= 0) return {NC_ENAMEINUSE, "variable name in use"};
  if (ndims > 0 && dimids == nullptr) return {NC_EINVAL, "null dimension ids"};
  for (int i = 0; i < ndims; ++i) {
    if (!valid_dim(dimids[i])) return {NC_EBADDIM, "invalid dimension id"};
    if (i > 0 && dimids[i] == unlimited_dim_)
      return {NC_EUNLIMPOS, "unlimited dimension must be the first"};
  }
  EXA_RETURN_IF_ERROR(check_var_size(type, std::span<const int>(dimids, size_t(ndims))));
  const int new_id = nvars();
  var_index_.insert(name, new_id);  // find_var found no such name
  make_room_for_one(&header_.vars);
  make_room_for_one(&var_no_fill_);
  format::Variable& var = header_.vars.emplace_back();
  var.name = std::string(name);
  var.type = type;
  var.dimids.assign(dimids, dimids + ndims);
  var_no_fill_.push_back(0);
  if (id) *id = new_id;
  return Status::ok();
}

// As PnetCDF at def_var: no variable (a record variable: one record) may
// exceed 2^63 - 4 bytes in any format; the format's own limits are enddef's.
Status Dataset::check_var_size(nc_type type, std::span<const int> dimids) const {
  int64_t bytes = format::external_size(type);
  for (size_t i = 0; i < dimids.size(); ++i) {
    if (dimids[i] == unlimited_dim_) continue;
    if (__builtin_mul_overflow(bytes, dim(dimids[i]).length, &bytes) || bytes > INT64_MAX - 3)
      return {NC_EVARSIZE, "variable larger than 2^63 - 4 bytes"};
  }
  return Status::ok();
}

Status Dataset::rename_dim(int id, std::string_view name, bool define_mode) {
  EXA_RETURN_IF_ERROR(check_object_name(name));  // PnetCDF checks the name before the id
  if (!valid_dim(id)) return {NC_EBADDIM, "invalid dimension id"};
  if (find_dim(name) >= 0) return {NC_ENAMEINUSE, "dimension name in use"};
  auto& dim = mutable_dim(id);
  if (!define_mode && name.size() > dim.name.size())
    return {NC_ENOTINDEFINE, "a longer name needs define mode"};
  dim_index_.erase(dim.name, dim_name_of());
  dim.name = std::string(name);
  dim_index_.insert(dim.name, id);
  return Status::ok();
}

Status Dataset::rename_var(int id, std::string_view name, bool define_mode) {
  if (!valid_var(id)) return {NC_ENOTVAR, "invalid variable id"};
  EXA_RETURN_IF_ERROR(check_object_name(name));
  if (find_var(name) >= 0) return {NC_ENAMEINUSE, "variable name in use"};
  auto& var = mutable_var(id);
  if (!define_mode && name.size() > var.name.size())
    return {NC_ENOTINDEFINE, "a longer name needs define mode"};
  var_index_.erase(var.name, var_name_of());
  var.name = std::string(name);
  var_index_.insert(var.name, id);
  return Status::ok();
}

std::vector<format::Attribute>* Dataset::mutable_att_list(int varid) {
  if (varid == NC_GLOBAL) return &header_.gatts;
  if (!valid_var(varid)) return nullptr;
  return &mutable_var(varid).atts;
}

Status Dataset::att_list(int varid, const std::vector<format::Attribute>** out) const {
  auto* list = const_cast<Dataset*>(this)->mutable_att_list(varid);
  if (!list) return {NC_ENOTVAR, "invalid variable id"};
  *out = list;
  return Status::ok();
}

Status Dataset::find_att(int varid, std::string_view name, const format::Attribute** out,
                         int* attnum) const {
  const std::vector<format::Attribute>* list = nullptr;
  EXA_RETURN_IF_ERROR(att_list(varid, &list));
  for (size_t i = 0; i < list->size(); ++i) {
    if ((*list)[i].name == name) {
      if (out) *out = &(*list)[i];
      if (attnum) *attnum = static_cast<int>(i);
      return Status::ok();
    }
  }
  return {NC_ENOTATT, "no such attribute"};
}

Status Dataset::check_att_args(int varid, std::string_view name, nc_type xtype) const {
  const std::vector<format::Attribute>* list = nullptr;
  EXA_RETURN_IF_ERROR(att_list(varid, &list));
  EXA_RETURN_IF_ERROR(check_name(name));
  return check_type_for_version(xtype, header_.version);
}

Status Dataset::put_att(int varid, std::string_view name, nc_type xtype, int64_t nelems,
                        std::vector<uint8_t> xvalues, bool define_mode) {
  EXA_RETURN_IF_ERROR(check_att_args(varid, name, xtype));
  auto* list = mutable_att_list(varid);
  if (nelems < 0) return {NC_EINVAL, "negative attribute length"};
  if (varid != NC_GLOBAL && name == _FillValue) {
    if (!define_mode) return {NC_ENOTINDEFINE, "_FillValue needs define mode"};
    if (xtype != var(varid).type)
      return {NC_EBADTYPE, "_FillValue type differs from the variable's"};
    if (nelems != 1) return {NC_EINVAL, "_FillValue must have one element"};
  }
  auto it = std::find_if(list->begin(), list->end(), [&](const auto& a) { return a.name == name; });
  if (!define_mode) {
    if (it == list->end()) return {NC_ENOTINDEFINE, "a new attribute needs define mode"};
    if (static_cast<int64_t>(xvalues.size()) > static_cast<int64_t>(it->xvalues.size()))
      return {NC_ENOTINDEFINE, "a larger attribute needs define mode"};
  }
  format::Attribute att{std::string(name), xtype, nelems, std::move(xvalues)};
  if (it != list->end())
    *it = std::move(att);
  else
    list->push_back(std::move(att));
  return Status::ok();
}

Status Dataset::del_att(int varid, std::string_view name) {
  auto* list = mutable_att_list(varid);
  if (!list) return {NC_ENOTVAR, "invalid variable id"};
  auto it = std::find_if(list->begin(), list->end(), [&](const auto& a) { return a.name == name; });
  if (it == list->end()) return {NC_ENOTATT, "no such attribute"};
  list->erase(it);
  return Status::ok();
}

Status Dataset::rename_att(int varid, std::string_view name, std::string_view new_name,
                           bool define_mode) {
  auto* list = mutable_att_list(varid);
  if (!list) return {NC_ENOTVAR, "invalid variable id"};
  EXA_RETURN_IF_ERROR(check_name(new_name));  // PnetCDF: the new name before the old one's existence
  auto it = std::find_if(list->begin(), list->end(), [&](const auto& a) { return a.name == name; });
  if (it == list->end()) return {NC_ENOTATT, "no such attribute"};
  bool taken = std::any_of(list->begin(), list->end(), [&](const auto& a) { return a.name == new_name; });
  if (taken) return {NC_ENAMEINUSE, "attribute name in use"};
  if (!define_mode && new_name.size() > it->name.size())
    return {NC_ENOTINDEFINE, "a longer name needs define mode"};
  it->name = std::string(new_name);
  return Status::ok();
}

std::vector<uint8_t> Dataset::fill_value_external(int varid) const {
  const auto& var = this->var(varid);
  const format::Attribute* fill = nullptr;
  if (find_att(varid, _FillValue, &fill).is_ok() && fill->type == var.type && fill->nelems == 1)
    return fill->xvalues;
  std::vector<uint8_t> out(static_cast<size_t>(format::external_size(var.type)));
  convert::default_fill_external(var.type, out.data());
  return out;
}

Status Dataset::compute_layout(const format::LayoutHints& hints, const format::Layout* previous) {
  format::Layout out;
  std::vector<int> vars;  // the variables in file order, when that is not their id order
  if (!var_order_.empty()) vars = full_var_order();
  EXA_RETURN_IF_ERROR(format::compute_layout(header_, hints, previous, &out, vars));
  layout_ = out;
  return Status::ok();
}

std::vector<int> Dataset::full_dim_order() const {
  std::vector<int> order = dim_order_;
  for (int id = static_cast<int>(order.size()); id < ndims(); ++id) order.push_back(id);
  return order;
}

std::vector<int> Dataset::full_var_order() const {
  std::vector<int> order = var_order_;
  for (int id = static_cast<int>(order.size()); id < nvars(); ++id) order.push_back(id);
  return order;
}

int Dataset::file_dim_id(int file_pos) const {
  return file_pos < static_cast<int>(dim_order_.size()) ? dim_order_[static_cast<size_t>(file_pos)]
                                                        : file_pos;
}

int Dataset::file_var_id(int file_pos) const {
  return file_pos < static_cast<int>(var_order_.size()) ? var_order_[static_cast<size_t>(file_pos)]
                                                        : file_pos;
}

std::vector<int> Dataset::dim_file_positions() const { return invert(full_dim_order()); }
std::vector<int> Dataset::var_file_positions() const { return invert(full_var_order()); }

void Dataset::set_file_order(std::vector<int> dims, std::vector<int> vars) {
  auto identity = [](const std::vector<int>& v) {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] != static_cast<int>(i)) return false;
    return true;
  };
  dim_order_ = identity(dims) ? std::vector<int>{} : std::move(dims);
  var_order_ = identity(vars) ? std::vector<int>{} : std::move(vars);
}

void Dataset::permute(const std::vector<int>& dim_perm, const std::vector<int>& var_perm) {
  std::vector<int> dim_new_pos = invert(dim_perm);
  std::vector<format::Dimension> dims;
  dims.reserve(header_.dims.size());
  for (int old : dim_perm) dims.push_back(std::move(header_.dims[static_cast<size_t>(old)]));
  std::vector<format::Variable> vars;
  std::vector<uint8_t> no_fill;
  vars.reserve(header_.vars.size());
  no_fill.reserve(header_.vars.size());
  for (int old : var_perm) {
    vars.push_back(std::move(header_.vars[static_cast<size_t>(old)]));
    no_fill.push_back(var_no_fill_[static_cast<size_t>(old)]);
    for (int& d : vars.back().dimids) d = dim_new_pos[static_cast<size_t>(d)];
  }
  header_.dims = std::move(dims);
  header_.vars = std::move(vars);
  var_no_fill_ = std::move(no_fill);
  if (unlimited_dim_ >= 0) unlimited_dim_ = dim_new_pos[static_cast<size_t>(unlimited_dim_)];
}

format::Header Dataset::file_header() const {
  if (lazy_) {
    (void)load_all();  // a lazily opened file: every object, before copying
    if (!lazy_->dims_map.own() && !lazy_->vars_map.own()) return materialize();
    Dataset copy = *this;  // own objects kept their ids: end_lazy sets the file order
    copy.lazy_ = std::make_shared<Lazy>(*lazy_);
    (void)copy.end_lazy();
    return copy.file_header();
  }
  if (file_order_is_identity()) return header_;
  Dataset copy = *this;
  copy.permute(full_dim_order(), full_var_order());
  return std::move(copy.header_);
}

std::vector<uint8_t> Dataset::encode_file_header() const {
  if (lazy_) return format::encode(file_header());
  if (file_order_is_identity()) return format::encode(header_);
  std::vector<int> dims = full_dim_order(), vars = full_var_order();
  return format::encode(header_, {dims, vars});
}

int Dataset::append_dim(format::Dimension dim) {
  int id = ndims();
  dim_index_.insert(dim.name, id);
  if (dim.length == NC_UNLIMITED && unlimited_dim_ < 0) unlimited_dim_ = id;
  header_.dims.push_back(std::move(dim));
  return id;
}

int Dataset::append_var(format::Variable var, bool no_fill) {
  int id = nvars();
  var_index_.insert(var.name, id);
  header_.vars.push_back(std::move(var));
  var_no_fill_.push_back(no_fill ? 1 : 0);
  return id;
}

void Dataset::truncate(int ndims_keep, int nvars_keep) {
  for (int id = ndims_keep; id < ndims(); ++id)
    dim_index_.erase(header_.dims[static_cast<size_t>(id)].name, dim_name_of());
  for (int id = nvars_keep; id < nvars(); ++id)
    var_index_.erase(header_.vars[static_cast<size_t>(id)].name, var_name_of());
  header_.dims.resize(static_cast<size_t>(ndims_keep));
  header_.vars.resize(static_cast<size_t>(nvars_keep));
  var_no_fill_.resize(static_cast<size_t>(nvars_keep));
  if (unlimited_dim_ >= ndims_keep) unlimited_dim_ = -1;
  auto cut = [](std::vector<int>& order, int keep) {
    if (order.size() > static_cast<size_t>(keep)) order.resize(static_cast<size_t>(keep));
  };
  cut(dim_order_, ndims_keep);
  cut(var_order_, nvars_keep);
}

void Dataset::adopt_layout_from_header() { layout_ = format::existing_layout(header_); }

}  // namespace exa::model
