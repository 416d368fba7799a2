// Native connector: define calls, attributes, and attribute reads.
#include <cstring>

#include "convert/external.hpp"
#include "io/collective.hpp"
#include "io/header_io.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"
#include "layer/native_plan.hpp"

namespace exa::layer {

namespace {

Status need_define_mode(const NativeFile& nf) {
  if (!nf.define_mode) return {NC_ENOTINDEFINE, "not in define mode"};
  if (!nf.file.writable()) return {NC_EPERM, "file is open read-only"};
  return Status::ok();
}

Status need_writable(const NativeFile& nf) {
  if (!nf.file.writable()) return {NC_EPERM, "file is open read-only"};
  return Status::ok();
}

// In data mode a rename or attribute change rewrites the header at once
// (collective, as in PnetCDF); in define mode it waits for enddef.
Status persist_if_data_mode(NativeFile& nf) {
  if (nf.define_mode) return Status::ok();
  if (nf.partitioned) return {NC_ENOTSUPPORT, "changing a partitioned file's metadata in data mode is not supported yet"};
  return write_file_header(nf);
}

// Independent define mode: notes a change to an object of an earlier define
// phase (enddef then checks that every rank changed them alike).
void note_old_var(NativeFile& nf, int varid) {
  if (nf.define_mode && varid != NC_GLOBAL && varid < nf.define_base.nvars) nf.old_touched = true;
}

// The list position of a global attribute, or -1.
int gatt_index(const NativeFile& nf, const char* name) {
  int attnum = -1;
  if (nf.ds.find_att(NC_GLOBAL, name, nullptr, &attnum).is_ok()) return attnum;
  return -1;
}

void note_old_att(NativeFile& nf, int varid, const char* name) {
  if (!nf.define_mode) return;
  if (varid != NC_GLOBAL) return note_old_var(nf, varid);
  int index = gatt_index(nf, name);
  if (index >= 0 && index < nf.define_base.ngatts) nf.old_touched = true;
}

Status name_arg(const char* name) {
  if (name == nullptr) return {NC_EBADNAME, "null name"};
  return Status::ok();
}

// The owner of an attribute: NC_GLOBAL or a variable (NC_ENOTVAR).
Status att_owner(const NativeFile& nf, int varid) {
  const std::vector<format::Attribute>* list = nullptr;
  return nf.ds.att_list(varid, &list);
}

// A variable id where NC_GLOBAL is not allowed (NC_EGLOBAL, then NC_ENOTVAR).
Status var_arg(const NativeFile& nf, int varid) {
  if (varid == NC_GLOBAL) return {NC_EGLOBAL, "NC_GLOBAL is not a variable"};
  return nf.ds.check_var(varid);
}

}  // namespace

Status NativeConnector::def_dim(FileState& f, const char* name, MPI_Offset len, int* id) {
  auto& nf = native(f);
  EXA_RETURN_IF_ERROR(need_define_mode(nf));
  EXA_RETURN_IF_ERROR(name_arg(name));
  return nf.ds.def_dim(name, len, id);
}

Status NativeConnector::def_var(FileState& f, const char* name, nc_type type, int ndims,
                                const int* dimids, int* id) {
  auto& nf = native(f);
  EXA_RETURN_IF_ERROR(need_define_mode(nf));
  EXA_RETURN_IF_ERROR(name_arg(name));
  int new_id = -1;
  EXA_RETURN_IF_ERROR(nf.ds.def_var(name, type, ndims, dimids, &new_id));
  nf.ds.set_var_no_fill(new_id, nf.fill_mode == NC_NOFILL);
  if (id) *id = new_id;
  return Status::ok();
}

Status NativeConnector::def_var_fill(FileState& f, int varid, int no_fill, const void* fill_value) {
  auto& nf = native(f);
  EXA_RETURN_IF_ERROR(need_define_mode(nf));
  EXA_RETURN_IF_ERROR(var_arg(nf, varid));
  // The fill setting of a variable that already went through an enddef is fixed.
  if (nf.in_redef && varid < static_cast<int>(nf.before_redef.vars.size()))
    return {NC_ELATEFILL, "variable was defined before the last enddef"};
  if (fill_value != nullptr) {
    nc_type type = nf.ds.var(varid).type;
    EXA_RETURN_IF_ERROR(put_att(f, varid, _FillValue, type, 1, fill_value, type));
  }
  nf.ds.set_var_no_fill(varid, no_fill != 0);
  return Status::ok();
}

Status NativeConnector::rename_dim(FileState& f, int dimid, const char* name) {
  auto& nf = native(f);
  EXA_RETURN_IF_ERROR(need_writable(nf));
  EXA_RETURN_IF_ERROR(name_arg(name));
  EXA_RETURN_IF_ERROR(nf.ds.rename_dim(dimid, name, nf.define_mode));
  if (nf.define_mode && dimid < nf.define_base.ndims) nf.old_touched = true;
  return persist_if_data_mode(nf);
}

Status NativeConnector::rename_var(FileState& f, int varid, const char* name) {
  auto& nf = native(f);
  EXA_RETURN_IF_ERROR(need_writable(nf));
  EXA_RETURN_IF_ERROR(var_arg(nf, varid));
  EXA_RETURN_IF_ERROR(name_arg(name));
  EXA_RETURN_IF_ERROR(nf.ds.rename_var(varid, name, nf.define_mode));
  note_old_var(nf, varid);
  return persist_if_data_mode(nf);
}

Status NativeConnector::put_att(FileState& f, int varid, const char* name, nc_type xtype,
                                MPI_Offset nelems, const void* values, nc_type memtype) {
  auto& nf = native(f);
  // PnetCDF's order: permission, owner, name, type, memory type, length, values;
  // define-mode rules (a new or larger attribute) come last, in Dataset::put_att.
  EXA_RETURN_IF_ERROR(need_writable(nf));
  EXA_RETURN_IF_ERROR(att_owner(nf, varid));
  EXA_RETURN_IF_ERROR(name_arg(name));
  EXA_RETURN_IF_ERROR(nf.ds.check_att_args(varid, name, xtype));
  EXA_RETURN_IF_ERROR(convert::check_convertible(memtype, xtype));
  if (nelems < 0) return {NC_EINVAL, "negative attribute length"};
  if (nelems > 0 && values == nullptr) return {NC_EINVAL, "null attribute values"};
  int64_t xsize = format::external_size(xtype);
  if (xsize == 0) return {NC_EBADTYPE, "bad attribute type"};
  if (nelems > (INT64_MAX / 2) / xsize) return {NC_EINVAL, "attribute too large"};
  std::vector<uint8_t> xvalues(static_cast<size_t>(nelems * xsize));
  Status converted = Status::ok();
  if (nelems > 0)
    converted = convert::to_external(values, memtype, xtype, nelems, xvalues.data(),
                                     nf.ds.version() == format::Version::kCdf5,
                                     erange_fill(nf, -1));
  if (!converted.is_ok() && converted.code() != NC_ERANGE) return converted;
  note_old_att(nf, varid, name);
  EXA_RETURN_IF_ERROR(nf.ds.put_att(varid, name, xtype, nelems, std::move(xvalues), nf.define_mode));
  EXA_RETURN_IF_ERROR(persist_if_data_mode(nf));
  return converted;  // NC_ERANGE after storing, as netCDF does
}

Status NativeConnector::del_att(FileState& f, int varid, const char* name) {
  auto& nf = native(f);
  // PnetCDF's order: permission, define mode, owner, name, existence.
  EXA_RETURN_IF_ERROR(need_writable(nf));
  EXA_RETURN_IF_ERROR(need_define_mode(nf));
  EXA_RETURN_IF_ERROR(att_owner(nf, varid));
  EXA_RETURN_IF_ERROR(name_arg(name));
  int index = varid == NC_GLOBAL ? gatt_index(nf, name) : -1;
  note_old_att(nf, varid, name);
  EXA_RETURN_IF_ERROR(nf.ds.del_att(varid, name));
  if (index >= 0 && index < nf.define_base.ngatts) --nf.define_base.ngatts;
  return Status::ok();
}

Status NativeConnector::rename_att(FileState& f, int varid, const char* name,
                                   const char* new_name) {
  auto& nf = native(f);
  EXA_RETURN_IF_ERROR(need_writable(nf));
  EXA_RETURN_IF_ERROR(att_owner(nf, varid));
  EXA_RETURN_IF_ERROR(name_arg(name));
  EXA_RETURN_IF_ERROR(name_arg(new_name));
  note_old_att(nf, varid, name);
  EXA_RETURN_IF_ERROR(nf.ds.rename_att(varid, name, new_name, nf.define_mode));
  return persist_if_data_mode(nf);
}

Status NativeConnector::get_att(FileState& f, int varid, const char* name, void* values,
                                nc_type memtype) {
  auto& nf = native(f);
  EXA_RETURN_IF_ERROR(att_owner(nf, varid));
  EXA_RETURN_IF_ERROR(name_arg(name));
  const format::Attribute* att = nullptr;
  EXA_RETURN_IF_ERROR(nf.ds.find_att(varid, name, &att));
  nc_type mem = memtype == NC_NAT ? att->type : memtype;
  EXA_RETURN_IF_ERROR(convert::check_convertible(mem, att->type));
  if (att->nelems == 0) return Status::ok();
  if (values == nullptr) return {NC_EINVAL, "null buffer"};
  return convert::from_external(att->xvalues.data(), att->type, mem, att->nelems, values,
                                nf.ds.version() == format::Version::kCdf5, erange_fill(nf, -1));
}

}  // namespace exa::layer
