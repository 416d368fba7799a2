#include "model/define_merge.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <unordered_map>

#include "util/hash.hpp"

namespace exa::model {

namespace {

constexpr uint64_t kNameSeed1 = 0x6e616d6531ULL;  // two independent name hashes
constexpr uint64_t kNameSeed2 = 0x6e616d6532ULL;
constexpr uint64_t kDigestSeed = 0x6469676573ULL;

uint64_t digest_atts(std::span<const format::Attribute> atts, uint64_t h = kDigestSeed) {
  for (const auto& a : atts) {
    h = hash_string(a.name, h);
    h = hash_value(a.type, h);
    h = hash_value(a.nelems, h);
    h = hash_bytes(a.xvalues.data(), a.xvalues.size(), h);
  }
  return h;
}

uint64_t digest_dim_names(const Dataset& ds, const format::Variable& var) {
  uint64_t h = kDigestSeed;
  for (int d : var.dimids) h = hash_string(ds.header().dims[static_cast<size_t>(d)].name, h);
  return h;
}

ObjectRecord named_record(std::string_view name, int32_t kind, int rank, int index) {
  ObjectRecord r{};
  r.name_hash[0] = hash_string(name, kNameSeed1);
  r.name_hash[1] = hash_string(name, kNameSeed2);
  r.kind = kind;
  r.rank = rank;
  r.index = index;
  return r;
}

auto sort_key(const ObjectRecord& r) {
  return std::tie(r.kind, r.name_hash[0], r.name_hash[1], r.rank);
}

bool same_name(const ObjectRecord& a, const ObjectRecord& b) {
  return a.kind == b.kind && a.name_hash[0] == b.name_hash[0] && a.name_hash[1] == b.name_hash[1];
}

// The conflict code for a record that differs from the owner's, or 0.
int conflict(const ObjectRecord& owner, const ObjectRecord& other) {
  switch (owner.kind) {
    case kDimObject:
      return owner.shape != other.shape ? NC_EMULTIDEFINE_DIM_SIZE : 0;
    case kVarObject:
      if (owner.type != other.type) return NC_EMULTIDEFINE_VAR_TYPE;
      if (owner.ndims != other.ndims) return NC_EMULTIDEFINE_VAR_NDIMS;
      if (owner.shape != other.shape) return NC_EMULTIDEFINE_VAR_DIMIDS;
      if (owner.no_fill != other.no_fill) return NC_EMULTIDEFINE_VAR_FILL_MODE;
      if (owner.natts != other.natts) return NC_EMULTIDEFINE_ATTR_NUM;
      return owner.content != other.content ? NC_EMULTIDEFINE_ATTR_VAL : 0;
    default:
      if (owner.type != other.type) return NC_EMULTIDEFINE_ATTR_TYPE;
      if (owner.shape != other.shape) return NC_EMULTIDEFINE_ATTR_LEN;
      return owner.content != other.content ? NC_EMULTIDEFINE_ATTR_VAL : 0;
  }
}

const char* conflict_message(int code) {
  switch (code) {
    case NC_EMULTIDEFINE_DIM_SIZE: return "ranks defined a shared dimension with different lengths";
    case NC_EMULTIDEFINE_VAR_TYPE: return "ranks defined a shared variable with different types";
    case NC_EMULTIDEFINE_VAR_NDIMS: return "ranks defined a shared variable with different ranks";
    case NC_EMULTIDEFINE_VAR_DIMIDS: return "ranks defined a shared variable over different dimensions";
    case NC_EMULTIDEFINE_VAR_FILL_MODE: return "ranks set different fill modes on a shared variable";
    case NC_EMULTIDEFINE_ATTR_NUM: return "a shared variable has different attribute counts on different ranks";
    case NC_EMULTIDEFINE_ATTR_TYPE: return "ranks defined a shared attribute with different types";
    case NC_EMULTIDEFINE_ATTR_LEN: return "ranks defined a shared attribute with different lengths";
    default: return "ranks defined a shared object with different attribute values";
  }
}

// Native-order payload writer and bounds-checked reader.
class Writer {
 public:
  template <typename T>
  void put(T v) {
    size_t at = out_.size();
    out_.resize(at + sizeof v);
    std::memcpy(out_.data() + at, &v, sizeof v);
  }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void str(const std::string& s) {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  void att(const format::Attribute& a) {
    str(a.name);
    put<int32_t>(a.type);
    put<int64_t>(a.nelems);
    put<uint64_t>(a.xvalues.size());
    bytes(a.xvalues.data(), a.xvalues.size());
  }
  std::vector<uint8_t>& out() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}
  template <typename T>
  bool get(T* v) {
    if (in_.size() - pos_ < sizeof *v) return false;
    std::memcpy(v, in_.data() + pos_, sizeof *v);
    pos_ += sizeof *v;
    return true;
  }
  bool bytes(size_t n, const uint8_t** p) {
    if (in_.size() - pos_ < n) return false;
    *p = in_.data() + pos_;
    pos_ += n;
    return true;
  }
  bool str(std::string* s) {
    uint32_t n = 0;
    const uint8_t* p = nullptr;
    if (!get(&n) || !bytes(n, &p)) return false;
    s->assign(reinterpret_cast<const char*>(p), n);
    return true;
  }
  bool att(format::Attribute* a) {
    uint64_t n = 0;
    const uint8_t* p = nullptr;
    if (!str(&a->name) || !get(&a->type) || !get(&a->nelems) || !get(&n) || !bytes(n, &p))
      return false;
    a->xvalues.assign(p, p + n);
    return true;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

Status bad_payload() { return {NC_EINTERNAL, "malformed merge payload"}; }

Status name_collision() {
  return {NC_EMULTIDEFINE, "two different names with equal 128-bit hashes (retry with other names)"};
}

// Only when ranks changed the old objects differently (caught first by digest_old_objects).
Status name_of_old_object() {
  return {NC_EMULTIDEFINE, "a rank defined a new object with the name of an existing one"};
}

}  // namespace

std::vector<ObjectRecord> describe_new_objects(const Dataset& ds, const NewObjectBase& base,
                                               int rank) {
  const auto& h = ds.header();
  std::vector<ObjectRecord> out;
  out.reserve(static_cast<size_t>(ds.ndims() - base.ndims + ds.nvars() - base.nvars) +
              h.gatts.size() - static_cast<size_t>(base.ngatts));
  for (int id = base.ndims; id < ds.ndims(); ++id) {
    const auto& d = h.dims[static_cast<size_t>(id)];
    ObjectRecord r = named_record(d.name, kDimObject, rank, id - base.ndims);
    r.shape = static_cast<uint64_t>(d.length);
    out.push_back(r);
  }
  for (int id = base.nvars; id < ds.nvars(); ++id) {
    const auto& v = h.vars[static_cast<size_t>(id)];
    ObjectRecord r = named_record(v.name, kVarObject, rank, id - base.nvars);
    r.type = v.type;
    r.ndims = static_cast<int32_t>(v.dimids.size());
    r.natts = static_cast<int32_t>(v.atts.size());
    r.no_fill = ds.var_no_fill(id) ? 1 : 0;
    r.shape = digest_dim_names(ds, v);
    r.content = digest_atts(v.atts);
    out.push_back(r);
  }
  for (size_t i = static_cast<size_t>(base.ngatts); i < h.gatts.size(); ++i) {
    const auto& a = h.gatts[i];
    ObjectRecord r = named_record(a.name, kGlobalAttObject, rank, static_cast<int>(i) - base.ngatts);
    r.type = a.type;
    r.shape = static_cast<uint64_t>(a.nelems);
    r.content = hash_bytes(a.xvalues.data(), a.xvalues.size(), kDigestSeed);
    out.push_back(r);
  }
  return out;
}

uint64_t digest_old_objects(const Dataset& ds, const NewObjectBase& base) {
  const auto& h = ds.header();
  uint64_t d = kDigestSeed;
  for (int pos = 0; pos < base.ndims; ++pos) {
    const auto& dim = h.dims[static_cast<size_t>(ds.file_dim_id(pos))];
    d = hash_value(dim.length, hash_string(dim.name, d));
  }
  for (int pos = 0; pos < base.nvars; ++pos) {
    int id = ds.file_var_id(pos);
    const auto& v = h.vars[static_cast<size_t>(id)];
    d = hash_string(v.name, d);
    d = hash_value(v.type, d);
    d = hash_value(digest_dim_names(ds, v), d);
    d = digest_atts(v.atts, d);
    d = hash_value(ds.var_no_fill(id), d);
  }
  size_t old_gatts = std::min(h.gatts.size(), static_cast<size_t>(base.ngatts));
  return digest_atts(std::span(h.gatts).first(old_gatts), d);
}

std::array<uint64_t, kDefinitionAspects> digest_definitions(const Dataset& ds) {
  const auto& h = ds.header();
  std::array<uint64_t, kDefinitionAspects> d;
  d.fill(kDigestSeed);
  d[0] = hash_value(h.dims.size(), d[0]);
  for (const auto& dim : h.dims) {
    d[1] = hash_string(dim.name, d[1]);
    d[2] = hash_value(dim.length, d[2]);
  }
  d[3] = hash_value(h.vars.size(), d[3]);
  d[9] = hash_value(h.gatts.size(), d[9]);
  for (size_t id = 0; id < h.vars.size(); ++id) {
    const auto& v = h.vars[id];
    d[4] = hash_string(v.name, d[4]);
    d[5] = hash_value(v.dimids.size(), d[5]);
    d[6] = hash_value(v.type, d[6]);
    for (int dim : v.dimids) d[7] = hash_value(dim, d[7]);
    d[8] = hash_value(ds.var_no_fill(int(id)), d[8]);
    d[9] = hash_value(v.atts.size(), d[9]);
    d[10] = digest_atts(v.atts, d[10]);
  }
  d[10] = digest_atts(h.gatts, d[10]);
  return d;
}

Status definition_conflict(size_t aspect) {
  static constexpr std::pair<int, const char*> kConflicts[kDefinitionAspects] = {
      {NC_EMULTIDEFINE_DIM_NUM, "ranks defined different numbers of dimensions"},
      {NC_EMULTIDEFINE_DIM_NAME, "ranks defined dimensions with different names"},
      {NC_EMULTIDEFINE_DIM_SIZE, "ranks defined a dimension with different lengths"},
      {NC_EMULTIDEFINE_VAR_NUM, "ranks defined different numbers of variables"},
      {NC_EMULTIDEFINE_VAR_NAME, "ranks defined variables with different names"},
      {NC_EMULTIDEFINE_VAR_NDIMS, "ranks defined a variable with different numbers of dimensions"},
      {NC_EMULTIDEFINE_VAR_TYPE, "ranks defined a variable with different types"},
      {NC_EMULTIDEFINE_VAR_DIMIDS, "ranks defined a variable over different dimensions"},
      {NC_EMULTIDEFINE_VAR_FILL_MODE, "ranks set different fill modes on a variable"},
      {NC_EMULTIDEFINE_ATTR_NUM, "ranks defined different numbers of attributes"},
      {NC_EMULTIDEFINE_ATTR_VAL, "ranks defined attributes differently"},
  };
  if (aspect >= kDefinitionAspects) return {NC_EMULTIDEFINE, "ranks defined the file differently"};
  return {kConflicts[aspect].first, kConflicts[aspect].second};
}

int checking_rank(const ObjectRecord& record, int nprocs) {
  return static_cast<int>(record.name_hash[0] % static_cast<uint64_t>(nprocs));
}

Status check_records(std::vector<ObjectRecord>& records,
                     std::vector<std::vector<DroppedRecord>>* dropped) {
  std::sort(records.begin(), records.end(),
            [](const ObjectRecord& a, const ObjectRecord& b) { return sort_key(a) < sort_key(b); });
  int first_conflict = 0;
  for (size_t i = 0; i < records.size();) {
    size_t j = i + 1;
    for (; j < records.size() && same_name(records[i], records[j]); ++j) {
      int code = conflict(records[i], records[j]);
      if (code != 0 && first_conflict == 0) first_conflict = code;
      (*dropped)[static_cast<size_t>(records[j].rank)].push_back({records[j].kind, records[j].index});
    }
    i = j;
  }
  if (first_conflict != 0) return {first_conflict, conflict_message(first_conflict)};
  return Status::ok();
}

std::vector<uint8_t> encode_dims(const Dataset& ds, std::span<const int> dim_ids) {
  Writer w;
  w.put<uint64_t>(dim_ids.size());
  for (int id : dim_ids) {
    const auto& d = ds.header().dims[static_cast<size_t>(id)];
    w.str(d.name);
    w.put<int64_t>(d.length);
  }
  return std::move(w.out());
}

std::vector<uint8_t> encode_vars_and_gatts(const Dataset& ds, std::span<const int> var_ids,
                                           const std::vector<int>& dim_file_pos,
                                           std::span<const int> gatt_indexes) {
  Writer w;
  w.put<uint64_t>(var_ids.size());
  for (int id : var_ids) {
    const auto& v = ds.header().vars[static_cast<size_t>(id)];
    w.str(v.name);
    w.put<int32_t>(v.type);
    w.put<uint8_t>(ds.var_no_fill(id) ? 1 : 0);
    w.put<uint32_t>(static_cast<uint32_t>(v.dimids.size()));
    for (int d : v.dimids) w.put<int32_t>(dim_file_pos[static_cast<size_t>(d)]);
    w.put<uint32_t>(static_cast<uint32_t>(v.atts.size()));
    for (const auto& a : v.atts) w.att(a);
  }
  w.put<uint64_t>(gatt_indexes.size());
  for (int i : gatt_indexes) w.att(ds.header().gatts[static_cast<size_t>(i)]);
  return std::move(w.out());
}

std::vector<uint8_t> encode_global_atts(const Dataset& ds) {
  Writer w;
  w.put<uint64_t>(ds.header().gatts.size());
  for (const auto& a : ds.header().gatts) w.att(a);
  return std::move(w.out());
}

Status merge_global_atts(std::span<const std::span<const uint8_t>> segments,
                         std::vector<format::Attribute>* out) {
  std::vector<format::Attribute> merged;
  std::unordered_map<std::string, size_t> at;
  for (const auto& segment : segments) {
    Reader in(segment);
    uint64_t n = 0;
    if (!in.get(&n)) return bad_payload();
    for (uint64_t i = 0; i < n; ++i) {
      format::Attribute a;
      if (!in.att(&a)) return bad_payload();
      auto [it, fresh] = at.try_emplace(a.name, merged.size());
      if (fresh) {
        merged.push_back(std::move(a));
        continue;
      }
      const format::Attribute& first = merged[it->second];
      if (first.type != a.type) return {NC_EMULTIDEFINE_ATTR_TYPE, conflict_message(NC_EMULTIDEFINE_ATTR_TYPE)};
      if (first.nelems != a.nelems) return {NC_EMULTIDEFINE_ATTR_LEN, conflict_message(NC_EMULTIDEFINE_ATTR_LEN)};
      if (first.xvalues != a.xvalues) return {NC_EMULTIDEFINE_ATTR_VAL, "ranks defined a shared global attribute with different values"};
    }
    if (!in.done()) return bad_payload();
  }
  *out = std::move(merged);
  return Status::ok();
}

Status apply_dims(Dataset& ds, const NewObjectBase& base, const OwnObjects& own, int my_rank,
                  std::span<const std::span<const uint8_t>> segments) {
  std::vector<int> order(ds.file_dim_order().begin(), ds.file_dim_order().end());
  for (int pos = static_cast<int>(order.size()); pos < base.ndims; ++pos) order.push_back(pos);
  const size_t mine = static_cast<size_t>(ds.ndims() - base.ndims);
  // Names from other ranks need a lookup only if this rank dropped some of its
  // own (shared) dimensions: otherwise the check proved them all new here.
  const bool dropped_some = own.dims.size() != mine;
  std::vector<uint8_t> placed(mine, 0);
  Status st;
  for (size_t r = 0; r < segments.size(); ++r) {
    Reader in(segments[r]);
    uint64_t n = 0;
    if (!in.get(&n)) return bad_payload();
    const bool own_segment = r == static_cast<size_t>(my_rank);
    if (own_segment && n != own.dims.size()) return bad_payload();
    order.reserve(order.size() + n);
    for (uint64_t i = 0; i < n; ++i) {
      format::Dimension dim;
      if (!in.str(&dim.name) || !in.get(&dim.length)) return bad_payload();
      int id = own_segment ? own.dims[i] : dropped_some ? ds.find_dim(dim.name) : -1;
      if (id >= 0 && id < base.ndims) return name_of_old_object();
      if (id < 0) {
        id = ds.append_dim(std::move(dim));
      } else {
        // A dimension this rank defined too: the records said it is alike;
        // confirm with the full definition.
        if (ds.header().dims[static_cast<size_t>(id)].length != dim.length && st.is_ok())
          st = {NC_EMULTIDEFINE_DIM_SIZE, "ranks defined a shared dimension with different lengths"};
        placed[static_cast<size_t>(id - base.ndims)] = 1;
      }
      order.push_back(id);
    }
    if (!in.done()) return bad_payload();
  }
  if (std::find(placed.begin(), placed.end(), 0) != placed.end()) return name_collision();
  EXA_RETURN_IF_ERROR(st);
  int unlimited = 0;
  for (const auto& d : ds.header().dims) unlimited += d.length == NC_UNLIMITED ? 1 : 0;
  if (unlimited > 1) return {NC_EUNLIMIT, "ranks defined different unlimited dimensions"};
  ds.set_file_order(std::move(order), std::vector<int>(ds.file_var_order()));
  return Status::ok();
}

Status apply_vars_and_gatts(Dataset& ds, const NewObjectBase& base, const OwnObjects& own,
                            int my_rank, std::span<const std::span<const uint8_t>> segments) {
  const std::vector<int>& dim_order = ds.file_dim_order();
  auto dim_local = [&](int32_t pos, int* id) {
    if (pos < 0 || pos >= ds.ndims()) return false;
    *id = dim_order.empty() ? pos : dim_order[static_cast<size_t>(pos)];
    return true;
  };
  std::vector<int> order(ds.file_var_order().begin(), ds.file_var_order().end());
  for (int pos = static_cast<int>(order.size()); pos < base.nvars; ++pos) order.push_back(pos);
  const size_t mine = static_cast<size_t>(ds.nvars() - base.nvars);
  const bool dropped_some = own.vars.size() != mine;  // as in apply_dims
  std::vector<uint8_t> placed(mine, 0);
  std::vector<format::Attribute> gatts(ds.header().gatts.begin(),
                                       ds.header().gatts.begin() + base.ngatts);
  std::unordered_map<std::string, const format::Attribute*> my_new_gatts;
  for (size_t i = static_cast<size_t>(base.ngatts); i < ds.header().gatts.size(); ++i)
    my_new_gatts.emplace(ds.header().gatts[i].name, &ds.header().gatts[i]);
  size_t gatts_placed = 0;
  Status st;
  auto differ = [&](int code, const char* what) {
    if (st.is_ok()) st = {code, what};
  };
  for (size_t r = 0; r < segments.size(); ++r) {
    Reader in(segments[r]);
    uint64_t n = 0;
    if (!in.get(&n)) return bad_payload();
    const bool own_segment = r == static_cast<size_t>(my_rank);
    if (own_segment && n != own.vars.size()) return bad_payload();
    order.reserve(order.size() + n);
    for (uint64_t i = 0; i < n; ++i) {
      format::Variable var;
      uint8_t no_fill = 0;
      uint32_t ndims = 0, natts = 0;
      if (!in.str(&var.name) || !in.get(&var.type) || !in.get(&no_fill) || !in.get(&ndims))
        return bad_payload();
      var.dimids.resize(ndims);
      for (uint32_t k = 0; k < ndims; ++k) {
        int32_t pos = 0;
        if (!in.get(&pos) || !dim_local(pos, &var.dimids[k])) return bad_payload();
      }
      if (!in.get(&natts)) return bad_payload();
      for (uint32_t k = 0; k < natts; ++k) {
        format::Attribute a;
        if (!in.att(&a)) return bad_payload();
        var.atts.push_back(std::move(a));
      }
      int id = own_segment ? own.vars[i] : dropped_some ? ds.find_var(var.name) : -1;
      if (id >= 0 && id < base.nvars) return name_of_old_object();
      if (id < 0) {
        id = ds.append_var(std::move(var), no_fill != 0);
      } else {
        const auto& ours = ds.header().vars[static_cast<size_t>(id)];
        if (ours.type != var.type) differ(NC_EMULTIDEFINE_VAR_TYPE, "shared variable types differ");
        if (ours.dimids != var.dimids) differ(NC_EMULTIDEFINE_VAR_DIMIDS, "shared variable dimensions differ");
        if (ds.var_no_fill(id) != (no_fill != 0))
          differ(NC_EMULTIDEFINE_VAR_FILL_MODE, "shared variable fill modes differ");
        if (ours.atts != var.atts) differ(NC_EMULTIDEFINE_ATTR_VAL, "shared variable attributes differ");
        placed[static_cast<size_t>(id - base.nvars)] = 1;
      }
      order.push_back(id);
    }
    if (!in.get(&n)) return bad_payload();
    for (uint64_t i = 0; i < n; ++i) {
      format::Attribute a;
      if (!in.att(&a)) return bad_payload();
      if (auto it = my_new_gatts.find(a.name); it != my_new_gatts.end()) {
        if (!(*it->second == a)) differ(NC_EMULTIDEFINE_ATTR_VAL, "shared global attributes differ");
        ++gatts_placed;
      } else if (r == static_cast<size_t>(my_rank)) {
        return bad_payload();
      }
      gatts.push_back(std::move(a));
    }
    if (!in.done()) return bad_payload();
  }
  if (std::find(placed.begin(), placed.end(), 0) != placed.end() ||
      gatts_placed != my_new_gatts.size())
    return name_collision();
  EXA_RETURN_IF_ERROR(st);
  ds.set_global_atts(std::move(gatts));
  ds.set_file_order(std::vector<int>(ds.file_dim_order()), std::move(order));
  return Status::ok();
}

MergeMark mark_for_merge(const Dataset& ds) {
  return {ds.ndims(), ds.nvars(), ds.header().gatts, ds.file_dim_order(), ds.file_var_order()};
}

void undo_merge(Dataset& ds, MergeMark mark) {
  ds.truncate(mark.ndims, mark.nvars);
  ds.set_global_atts(std::move(mark.gatts));
  ds.set_file_order(std::move(mark.dim_order), std::move(mark.var_order));
}

}  // namespace exa::model
