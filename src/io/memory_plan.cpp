#include "io/memory_plan.hpp"

#include <climits>
#include <cstring>

#include "convert/external.hpp"
#include "io/mpi_errors.hpp"
#include "io/nested_type.hpp"

namespace exa::io {

namespace {

// Walks a derived datatype down to its basic types; all must be the same.
Status basic_type(MPI_Datatype t, nc_type* found) {
  int nints = 0, naddrs = 0, ntypes = 0, combiner = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &combiner)));
  if (combiner == MPI_COMBINER_NAMED) {
    nc_type m = memtype_of_predefined(t);
    if (m == NC_NAT) return {NC_EUNSPTETYPE, "unsupported element type in the MPI datatype"};
    if (*found != NC_NAT && *found != m) return {NC_EMULTITYPES, "MPI datatype mixes element types"};
    *found = m;
    return Status::ok();
  }
  std::vector<int> ints(static_cast<size_t>(nints));
  std::vector<MPI_Aint> addrs(static_cast<size_t>(naddrs));
  std::vector<MPI_Datatype> types(static_cast<size_t>(ntypes));
  EXA_RETURN_IF_ERROR(EXA_MPI(
      MPI_Type_get_contents(t, nints, naddrs, ntypes, ints.data(), addrs.data(), types.data())));
  Status st;
  for (MPI_Datatype sub : types) {
    if (st.is_ok()) st = basic_type(sub, found);
    // The contents are new handles for derived types: each is freed here.
    int sub_combiner = 0, a = 0, b = 0, c = 0;
    Status asked = EXA_MPI(MPI_Type_get_envelope(sub, &a, &b, &c, &sub_combiner));
    Status freed = asked.is_ok() && sub_combiner != MPI_COMBINER_NAMED ? EXA_MPI(MPI_Type_free(&sub))
                                                                         : asked;
    if (st.is_ok()) st = freed;
  }
  return st;
}

}  // namespace

MPI_Datatype predefined_of_memtype(nc_type t) {
  switch (t) {
    case NC_BYTE: return MPI_SIGNED_CHAR;
    case NC_CHAR: return MPI_CHAR;
    case NC_SHORT: return MPI_SHORT;
    case NC_INT: return MPI_INT;
    case NC_FLOAT: return MPI_FLOAT;
    case NC_DOUBLE: return MPI_DOUBLE;
    case NC_UBYTE: return MPI_UNSIGNED_CHAR;
    case NC_USHORT: return MPI_UNSIGNED_SHORT;
    case NC_UINT: return MPI_UNSIGNED;
    case NC_INT64: return MPI_LONG_LONG;
    case NC_UINT64: return MPI_UNSIGNED_LONG_LONG;
    default: return MPI_DATATYPE_NULL;
  }
}

nc_type memtype_of_predefined(MPI_Datatype t) {
  if (t == MPI_CHAR) return NC_CHAR;
  if (t == MPI_SIGNED_CHAR || t == MPI_BYTE) return NC_BYTE;
  if (t == MPI_UNSIGNED_CHAR) return NC_UBYTE;
  if (t == MPI_SHORT) return NC_SHORT;
  if (t == MPI_UNSIGNED_SHORT) return NC_USHORT;
  if (t == MPI_INT) return NC_INT;
  if (t == MPI_UNSIGNED) return NC_UINT;
  if (t == MPI_LONG) return sizeof(long) == 8 ? NC_INT64 : NC_INT;
  if (t == MPI_UNSIGNED_LONG) return sizeof(long) == 8 ? NC_UINT64 : NC_UINT;
  if (t == MPI_FLOAT) return NC_FLOAT;
  if (t == MPI_DOUBLE) return NC_DOUBLE;
  if (t == MPI_LONG_LONG_INT || t == MPI_INT64_T) return NC_INT64;
  if (t == MPI_UNSIGNED_LONG_LONG || t == MPI_UINT64_T) return NC_UINT64;
  // Fortran's predefined types, as PnetCDF accepts them (the nfmpi_* flexible API passes them;
  // an MPI without Fortran support may define them as MPI_DATATYPE_NULL).
  if (t == MPI_DATATYPE_NULL) return NC_NAT;
  if (t == MPI_CHARACTER) return NC_CHAR;
  if (t == MPI_INTEGER1) return NC_BYTE;
  if (t == MPI_INTEGER2) return NC_SHORT;
  if (t == MPI_INTEGER || t == MPI_INTEGER4) return NC_INT;
  if (t == MPI_INTEGER8) return NC_INT64;
  if (t == MPI_REAL || t == MPI_REAL4) return NC_FLOAT;
  if (t == MPI_DOUBLE_PRECISION || t == MPI_REAL8) return NC_DOUBLE;
  return NC_NAT;
}

Status element_type_of(MPI_Datatype t, nc_type* memtype, int64_t* elements_per_type) {
  nc_type found = NC_NAT;
  EXA_RETURN_IF_ERROR(basic_type(t, &found));
  int size = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_size(t, &size)));
  *memtype = found;
  *elements_per_type = size / convert::native_size(found);
  return Status::ok();
}

MemoryPlan::~MemoryPlan() {
  for (Layer& l : layers_)
    if (l.owned) EXA_MPI(MPI_Type_free(&l.type)).set_aside("destructor: a type of its own, freed once");
}

Status MemoryPlan::build(void* buf, MPI_Datatype buftype, int64_t bufcount, nc_type memtype,
                         const Selection& sel, const MPI_Offset* imap) {
  buf_ = buf;
  if (buftype != MPI_DATATYPE_NULL && memtype_of_predefined(buftype) == NC_NAT) {
    if (bufcount > INT_MAX) return {NC_EINTOVERFLOW, "bufcount exceeds INT_MAX"};
    layers_.push_back({buftype, bufcount, false});
  }
  if (imap == nullptr) return Status::ok();
  int64_t width = convert::native_size(memtype);
  for (size_t k = 0; k < sel.count.size(); ++k)
    if (sel.count[k] > INT_MAX || imap[k] < 0) return {NC_EINVAL, "imap or count out of range"};
  std::vector<TypeLevel> levels(sel.count.size());
  for (size_t k = 0; k < levels.size(); ++k)
    levels[k] = {static_cast<int>(sel.count[k]), MPI_Aint(imap[k] * width)};
  MPI_Datatype t;
  EXA_RETURN_IF_ERROR(nested_hvector(width, levels, &t));
  layers_.push_back({t, 1, true});
  return Status::ok();
}

// Packs one layer: `count` of `type` at `from` into contiguous bytes.
static Status pack_layer(const void* from, MPI_Datatype type, int64_t count,
                         ByteBuffer* out) {
  int size = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_size(type, &size)));
  out->resize(static_cast<size_t>(size) * static_cast<size_t>(count));
  if (out->empty()) return Status::ok();  // MPI_Pack rejects an empty buffer
  int position = 0;
  if (MPI_Pack(from, static_cast<int>(count), type, out->data(), static_cast<int>(out->size()),
               &position, MPI_COMM_SELF) != MPI_SUCCESS)
    return {NC_EINTOVERFLOW, "MPI_Pack failed (request too large?)"};
  return Status::ok();
}

Status MemoryPlan::gather(ByteBuffer* out, int64_t nbytes) const {
  const void* from = buf_;
  ByteBuffer stage;
  for (size_t i = 0; i < layers_.size(); ++i) {
    ByteBuffer& target = i + 1 == layers_.size() ? *out : stage;
    ByteBuffer next;
    EXA_RETURN_IF_ERROR(pack_layer(from, layers_[i].type, layers_[i].count, &next));
    target.swap(next);
    from = target.data();
  }
  if (static_cast<int64_t>(out->size()) < nbytes) return {NC_EIOMISMATCH, "buffer smaller than the selection"};
  return Status::ok();
}

Status MemoryPlan::scatter(const void* in, int64_t nbytes) const {
  // With two layers the intermediate array must keep the user's elements
  // the inner layer does not select, so it starts as a gather of layer 0.
  ByteBuffer stage;
  void* target = buf_;
  if (layers_.size() == 2) {
    EXA_RETURN_IF_ERROR(pack_layer(buf_, layers_[0].type, layers_[0].count, &stage));
    target = stage.data();
  }
  const Layer& inner = layers_.back();
  int position = 0;
  if (MPI_Unpack(in, static_cast<int>(nbytes), &position, target, static_cast<int>(inner.count),
                 inner.type, MPI_COMM_SELF) != MPI_SUCCESS)
    return {NC_EIOMISMATCH, "MPI_Unpack failed"};
  if (layers_.size() == 2) {
    position = 0;
    if (MPI_Unpack(stage.data(), static_cast<int>(stage.size()), &position, buf_,
                   static_cast<int>(layers_[0].count), layers_[0].type, MPI_COMM_SELF) != MPI_SUCCESS)
      return {NC_EIOMISMATCH, "MPI_Unpack failed"};
  }
  return Status::ok();
}

}  // namespace exa::io
