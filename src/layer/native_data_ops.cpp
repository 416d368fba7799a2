// Native connector: data calls. A request becomes an access plan (one MPI
// file type) and one MPI-IO call; values are converted to and from their
// external form on the way.
#include <algorithm>

#include "convert/external.hpp"
#include "io/access_plan.hpp"
#include "io/header_io.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"

namespace exa::layer {

namespace {

// The memory type named by a predefined MPI datatype, or NC_NAT.
nc_type memtype_of(MPI_Datatype t) {
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
  return NC_NAT;
}

struct Plan {
  io::VarGeometry geo;
  io::Selection sel;
  nc_type memtype = NC_NAT;
  nc_type xtype = NC_NAT;
  int64_t nelems = 0;
};

Status make_plan(NativeFile& nf, const DataRequest& req, bool write, Plan* plan) {
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  if (!nf.ds.valid_var(req.varid)) return {NC_ENOTVAR, "invalid variable id"};
  if (write && !nf.file.writable()) return {NC_EPERM, "file is open read-only"};
  if (req.collective && nf.indep_mode) return {NC_EINDEP, "collective call in independent mode"};
  if (!req.collective && !nf.indep_mode) return {NC_ENOTINDEP, "independent call in collective mode"};
  const auto& h = nf.ds.header();
  const auto& var = h.vars[static_cast<size_t>(req.varid)];
  plan->xtype = var.type;
  plan->memtype = req.memtype;
  if (plan->memtype == NC_NAT)
    plan->memtype = req.buftype == MPI_DATATYPE_NULL ? var.type : memtype_of(req.buftype);
  if (plan->memtype == NC_NAT) return {NC_EUNSPTETYPE, "unsupported MPI datatype"};
  EXA_RETURN_IF_ERROR(convert::check_convertible(plan->memtype, var.type));
  size_t n = var.dimids.size();
  if (n > 0 && req.start == nullptr) return {NC_ENULLSTART, "null start"};
  if (n > 0 && req.count == nullptr) return {NC_ENULLCOUNT, "null count"};
  plan->geo.begin = var.begin;
  plan->geo.xsize = format::external_size(var.type);
  plan->geo.record = nf.ds.is_record_var(req.varid);
  plan->geo.recsize = nf.ds.layout().recsize;
  for (size_t k = 0; k < n; ++k) {
    plan->geo.shape.push_back(h.dims[static_cast<size_t>(var.dimids[k])].length);
    plan->sel.start.push_back(req.start[k]);
    plan->sel.count.push_back(req.count[k]);
    if (req.stride) plan->sel.stride.push_back(req.stride[k]);
  }
  EXA_RETURN_IF_ERROR(io::check_selection(plan->geo, plan->sel, nf.ds.numrecs(), write));
  plan->nelems = io::selected_elements(plan->sel);
  if (req.bufcount >= 0 && req.buftype != MPI_DATATYPE_NULL && req.bufcount != plan->nelems)
    return {NC_EIOMISMATCH, "buffer count differs from the selection"};
  if (plan->nelems > 0 && req.buf == nullptr) return {NC_ENULLBUF, "null buffer"};
  return Status::ok();
}

// Records reached by a write: one past the last record index touched.
int64_t records_reached(const Plan& plan) {
  if (!plan.geo.record || plan.nelems == 0) return 0;
  int64_t stride = plan.sel.stride.empty() ? 1 : plan.sel.stride[0];
  return plan.sel.start[0] + (plan.sel.count[0] - 1) * stride + 1;
}

io::MpiFile& handle_for(NativeFile& nf, bool collective) {
  return collective ? nf.file : nf.indep;
}

// After a collective put every rank agrees on numrecs (one allreduce) and
// rank 0 records growth in the header; independent puts defer that.
Status update_numrecs(NativeFile& nf, bool collective, int64_t reached) {
  if (!collective) {
    if (reached > nf.ds.numrecs()) {
      nf.ds.set_numrecs(reached);
      nf.numrecs_dirty = true;
    }
    return Status::ok();
  }
  int64_t most = std::max(reached, nf.ds.numrecs());
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, nf.comm());
  if (most <= nf.ds.numrecs() && !nf.numrecs_dirty) return Status::ok();
  nf.ds.set_numrecs(most);
  nf.numrecs_dirty = false;
  return io::write_numrecs(nf.file, nf.ds.version(), most);
}

}  // namespace

Status NativeConnector::put(FileState& f, const DataRequest& req) {
  auto& nf = native(f);
  Plan plan;
  Status st = make_plan(nf, req, true, &plan);
  bool takes_part = req.collective && !nf.define_mode && !nf.indep_mode;
  if (!st.is_ok() && !takes_part) return st;
  if (!st.is_ok()) plan = Plan{};  // take part with nothing
  int64_t xbytes = plan.nelems * plan.geo.xsize;
  std::vector<uint8_t> external(static_cast<size_t>(xbytes));
  Status converted = Status::ok();
  if (plan.nelems > 0)
    converted = convert::to_external(req.buf, plan.memtype, plan.xtype, plan.nelems, external.data());
  if (!converted.is_ok() && converted.code() != NC_ERANGE) {
    st = converted;
    xbytes = 0;
  }
  Status io_st = io::transfer(handle_for(nf, req.collective), plan.geo, plan.sel, true,
                              req.collective, external.data(), xbytes);
  if (st.is_ok()) st = io_st;
  Status recs = update_numrecs(nf, req.collective, st.is_ok() ? records_reached(plan) : 0);
  if (!st.is_ok()) return st;
  if (!recs.is_ok()) return recs;
  return converted;
}

Status NativeConnector::get(FileState& f, const DataRequest& req) {
  auto& nf = native(f);
  Plan plan;
  Status st = make_plan(nf, req, false, &plan);
  bool takes_part = req.collective && !nf.define_mode && !nf.indep_mode;
  if (!st.is_ok() && !takes_part) return st;
  if (!st.is_ok()) plan = Plan{};
  int64_t xbytes = plan.nelems * plan.geo.xsize;
  std::vector<uint8_t> external(static_cast<size_t>(xbytes), 0);
  Status io_st = io::transfer(handle_for(nf, req.collective), plan.geo, plan.sel, false,
                              req.collective, external.data(), xbytes);
  if (!st.is_ok()) return st;
  EXA_RETURN_IF_ERROR(io_st);
  if (plan.nelems == 0) return Status::ok();
  return convert::from_external(external.data(), plan.xtype, plan.memtype, plan.nelems, req.buf);
}

}  // namespace exa::layer
