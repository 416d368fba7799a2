#include "layer/data_checks.hpp"

#include "convert/external.hpp"
#include "format/layout.hpp"
#include "io/memory_plan.hpp"

namespace exa::layer {

namespace {

// The memory type: the typed call's, the flexible call's element type, or
// (flexible call without a type) the variable's own.
Status resolve_memtype(const DataRequest& req, const format::Variable& var, nc_type* memtype,
                       int64_t* per_buftype) {
  *memtype = req.memtype;
  if (*memtype != NC_NAT) return Status::ok();
  if (req.buftype == MPI_DATATYPE_NULL) {
    *memtype = var.type;
    return Status::ok();
  }
  return io::element_type_of(req.buftype, memtype, per_buftype);
}

// The coordinates of a non-scalar variable, as PnetCDF checks them: a null start
// is an invalid coordinate, a null count (vara/vars/varm; var1 and var come with
// theirs) an edge error once the start is known valid.
Status check_coordinates(const model::Dataset& ds, const DataRequest& req, bool write, CheckedAccess* a) {
  size_t n = a->geo.shape.size();
  if (n == 0) return Status::ok();
  if (req.start == nullptr) return {NC_EINVALCOORDS, "start is a NULL pointer"};
  if (req.count == nullptr) {
    a->sel.count.assign(n, 1);  // the start is checked as for one element
    EXA_RETURN_IF_ERROR(io::check_selection(a->geo, a->sel, ds.numrecs(), write));
    return {NC_EEDGE, "count is a NULL pointer"};
  }
  return io::check_selection(a->geo, a->sel, ds.numrecs(), write);
}

}  // namespace

Status check_call(const model::Dataset& ds, const CallModes& modes, const DataRequest& req,
                  bool write, bool data_mode) {
  if (write && !modes.writable) return {NC_EPERM, "file is open read-only"};
  // Nonblocking requests may be posted in define mode (PnetCDF allows it);
  // their offsets are taken at wait time.
  if (data_mode && modes.define_mode) return {NC_EINDEFINE, "in define mode"};
  if (data_mode && req.collective && modes.indep_mode)
    return {NC_EINDEP, "collective call in independent mode"};
  if (data_mode && !req.collective && !modes.indep_mode)
    return {NC_ENOTINDEP, "independent call in collective mode"};
  if (req.varid == NC_GLOBAL) return {NC_EGLOBAL, "NC_GLOBAL is not a variable"};
  return ds.check_var(req.varid);
}

Status place_of_var(const model::Dataset& ds, int varid, io::VarGeometry* geo) {
  const auto& var = ds.var(varid);
  const format::Layout& layout = ds.layout();
  geo->begin = var.begin;
  geo->recsize = layout.recsize;
  geo->pieces.clear();
  if (!layout.sections.present || !ds.is_record_var(varid)) return Status::ok();
  return format::record_pieces(layout.sections, layout.begin_rec, layout.recsize, var.begin, var.vsize,
                               &geo->pieces);
}

Status check_data_args(const model::Dataset& ds, const CallModes& modes, const DataRequest& req,
                       bool write, bool data_mode, CheckedAccess* out) {
  CheckedAccess local;
  CheckedAccess* a = out ? out : &local;
  EXA_RETURN_IF_ERROR(check_call(ds, modes, req, write, data_mode));
  const auto& var = ds.var(req.varid);
  // A typed call's text/number mismatch comes before the coordinates (PnetCDF's
  // dispatcher); a flexible call's buffer type is checked after them.
  if (req.memtype != NC_NAT) EXA_RETURN_IF_ERROR(convert::check_convertible(req.memtype, var.type));
  size_t n = var.dimids.size();
  a->geo.xsize = format::external_size(var.type);
  a->geo.record = ds.is_record_var(req.varid);
  EXA_RETURN_IF_ERROR(place_of_var(ds, req.varid, &a->geo));
  a->geo.max_records = format::max_numrecs(ds.version(), ds.partitioned());
  for (size_t k = 0; k < n; ++k) {
    a->geo.shape.push_back(ds.dim(var.dimids[k]).length);
    if (req.start) a->sel.start.push_back(req.start[k]);
    if (req.count) a->sel.count.push_back(req.count[k]);
    if (req.stride) a->sel.stride.push_back(req.stride[k]);
  }
  EXA_RETURN_IF_ERROR(check_coordinates(ds, req, write, a));
  int64_t per_buftype = 0;
  EXA_RETURN_IF_ERROR(resolve_memtype(req, var, &a->memtype, &per_buftype));
  EXA_RETURN_IF_ERROR(convert::check_convertible(a->memtype, var.type));
  a->nelems = io::selected_elements(a->sel);  // (its overflow: check_selection's NC_EINTOVERFLOW)
  if (per_buftype > 0 && req.bufcount >= 0 && req.bufcount * per_buftype != a->nelems)
    return {NC_EIOMISMATCH, "buffer holds a different number of elements than selected"};
  if (a->nelems > 0 && req.buf == nullptr) return {NC_ENULLBUF, "null buffer"};
  return Status::ok();
}

}  // namespace exa::layer
