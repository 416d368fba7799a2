#include "layer/native_plan.hpp"
#include "layer/native_internal.hpp"

#include <algorithm>

#include "convert/external.hpp"
#include "format/layout.hpp"
#include "io/aggregate.hpp"
#include "io/header_io.hpp"
#include "io/memory_plan.hpp"
#include "io/mpi_errors.hpp"

namespace exa::layer {

namespace {

// The memory type: the typed call's, the flexible call's element type, or
// (flexible call without a type) the variable's own.
Status resolve_memtype(const DataRequest& req, const format::Variable& var, Plan* plan,
                       int64_t* per_buftype) {
  plan->memtype = req.memtype;
  if (plan->memtype != NC_NAT) return Status::ok();
  if (req.buftype == MPI_DATATYPE_NULL) {
    plan->memtype = var.type;
    return Status::ok();
  }
  return io::element_type_of(req.buftype, &plan->memtype, per_buftype);
}

// The coordinates of a non-scalar variable, as PnetCDF checks them: a null start
// is an invalid coordinate, a null count (vara/vars/varm; var1 and var come with
// theirs) an edge error once the start is known valid.
Status check_coordinates(const NativeFile& nf, const DataRequest& req, bool write, Plan* plan) {
  size_t n = plan->geo.shape.size();
  if (n == 0) return Status::ok();
  if (req.start == nullptr) return {NC_EINVALCOORDS, "start is a NULL pointer"};
  if (req.count == nullptr) {
    plan->sel.count.assign(n, 1);  // the start is checked as for one element
    EXA_RETURN_IF_ERROR(io::check_selection(plan->geo, plan->sel, nf.ds.numrecs(), write));
    return {NC_EEDGE, "count is a NULL pointer"};
  }
  return io::check_selection(plan->geo, plan->sel, nf.ds.numrecs(), write);
}

}  // namespace

// The checks in PnetCDF's order: permission, define mode, data mode, then the id.
Status check_call(const NativeFile& nf, const DataRequest& req, bool write, bool data_mode) {
  if (write && !nf.file.writable()) return {NC_EPERM, "file is open read-only"};
  // Nonblocking requests may be posted in define mode (PnetCDF allows it);
  // their offsets are taken at wait time.
  if (data_mode && nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  if (data_mode && req.collective && nf.indep_mode)
    return {NC_EINDEP, "collective call in independent mode"};
  if (data_mode && !req.collective && !nf.indep_mode)
    return {NC_ENOTINDEP, "independent call in collective mode"};
  if (req.varid == NC_GLOBAL) return {NC_EGLOBAL, "NC_GLOBAL is not a variable"};
  EXA_RETURN_IF_ERROR(nf.ds.check_var(req.varid));
  return Status::ok();
}

convert::ErangeFill erange_fill(const NativeFile& nf, int put_varid) {
  if (!nf.hints.erange_fill) return convert::ErangeFill::keep_converted();
  if (put_varid < 0) return convert::ErangeFill::type_default();
  std::vector<uint8_t> fill = nf.ds.fill_value_external(put_varid);
  return convert::ErangeFill::value(fill.data(), static_cast<int64_t>(fill.size()));
}

Status make_plan(NativeFile& nf, const DataRequest& req, bool write, Plan* plan,
                 bool check_data_mode) {
  EXA_RETURN_IF_ERROR(check_call(nf, req, write, check_data_mode));
  const auto& var = nf.ds.var(req.varid);
  // A typed call's text/number mismatch comes before the coordinates (PnetCDF's
  // dispatcher); a flexible call's buffer type is checked after them.
  if (req.memtype != NC_NAT) EXA_RETURN_IF_ERROR(convert::check_convertible(req.memtype, var.type));
  size_t n = var.dimids.size();
  plan->xtype = var.type;
  plan->cdf5 = nf.ds.version() == format::Version::kCdf5;
  plan->geo.begin = var.begin;
  plan->geo.xsize = format::external_size(var.type);
  plan->geo.record = nf.ds.is_record_var(req.varid);
  plan->geo.recsize = nf.ds.layout().recsize;
  plan->geo.max_records = format::max_numrecs(nf.ds.version(), nf.partitioned);
  plan->compact = CompactStore::is_compact(nf, req.varid);
  for (size_t k = 0; k < n; ++k) {
    plan->geo.shape.push_back(nf.ds.dim(var.dimids[k]).length);
    if (req.start) plan->sel.start.push_back(req.start[k]);
    if (req.count) plan->sel.count.push_back(req.count[k]);
    if (req.stride) plan->sel.stride.push_back(req.stride[k]);
  }
  EXA_RETURN_IF_ERROR(check_coordinates(nf, req, write, plan));
  int64_t per_buftype = 0;
  EXA_RETURN_IF_ERROR(resolve_memtype(req, var, plan, &per_buftype));
  EXA_RETURN_IF_ERROR(convert::check_convertible(plan->memtype, var.type));
  plan->nelems = io::selected_elements(plan->sel);  // (its overflow: check_selection's NC_EINTOVERFLOW)
  // Only a conversion between types can give NC_ERANGE.
  if (plan->memtype != var.type) plan->erange = erange_fill(nf, write ? req.varid : -1);
  if (per_buftype > 0 && req.bufcount >= 0 && req.bufcount * per_buftype != plan->nelems)
    return {NC_EIOMISMATCH, "buffer holds a different number of elements than selected"};
  if (plan->nelems > 0 && req.buf == nullptr) return {NC_ENULLBUF, "null buffer"};
  return Status::ok();
}

namespace {

// Whether a put is a collective one on a file that can hold compact
// variables (partitioned, no record variable): the same answer on every rank
// of the call, whatever each one's variable and arguments.
bool publishes_compact(const NativeFile& nf, const DataRequest& req, bool write) {
  return write && req.collective && nf.partitioned && nf.ds.unlimited_dim() < 0 && nf.file.nprocs() > 1;
}

// A collective put there: every rank learns the compact writes of the
// others at once (one allgather), so a collective get on any rank sees what
// the put wrote, as with PnetCDF (CompactStore::publish). The MPI-IO call
// that the ranks writing other variables need is made only when some rank
// needs it.
Status publish_and_transfer(NativeFile& nf, int varid, const Plan& plan, void* external, int64_t xbytes) {
  std::vector<io::Segment> segments;
  if (plan.compact && xbytes > 0) io::flatten(plan.geo, plan.sel, static_cast<uint8_t*>(external), &segments);
  bool any_io = false;
  Status st = nf.compact.publish(nf, plan.compact ? varid : -1, segments, !plan.compact, &any_io);
  if (!any_io) return st;
  const bool mine = !plan.compact;
  Status part = mine ? io::transfer(nf.file, plan.geo, plan.sel, true, true, external, xbytes)
                     : io::transfer(nf.file, io::VarGeometry{}, io::Selection{}, true, true, nullptr, 0);
  return st.is_ok() ? part : st;
}

}  // namespace

Status transfer_planned(NativeFile& nf, const DataRequest& req, const Plan& plan, bool write,
                        void* external, int64_t xbytes) {
  if (publishes_compact(nf, req, write)) return publish_and_transfer(nf, req.varid, plan, external, xbytes);
  if (!plan.compact)
    return io::transfer(handle_for(nf, req.collective), plan.geo, plan.sel, write, req.collective, external,
                        xbytes);
  std::vector<io::Segment> segments;
  if (xbytes > 0) io::flatten(plan.geo, plan.sel, static_cast<uint8_t*>(external), &segments);
  Status st = write ? nf.compact.write(nf, req.varid, segments) : nf.compact.read(nf, req.varid, segments);
  if (req.collective) {
    Status part = io::transfer(nf.file, io::VarGeometry{}, io::Selection{}, write, true, nullptr, 0);
    if (st.is_ok()) st = part;
  }
  return st;
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

// A record variable by its id. A rank whose id names no variable cannot
// know what the others write; it takes no part, as in PnetCDF (where a rank
// with any bad argument takes no part): the others must write a fixed-size
// variable. A rank with bad coordinates of a record variable does take part.
bool agrees_numrecs(const NativeFile& nf, int varid) {
  return nf.ds.valid_var(varid) && nf.ds.is_record_var(varid);
}

// After a collective put of a record variable every rank agrees on numrecs
// (one allreduce, as PnetCDF's) and rank 0 records growth in the header;
// independent puts and fixed-size variables defer that (no MPI call).
// The same allreduce carries the worst failed write (`io`): a write fails
// collectively, so every rank returns it; argument errors stay the rank's.
Status update_numrecs(NativeFile& nf, bool collective, int64_t reached, bool record,
                      const Status& io) {
  if (!collective || !record) {
    if (reached > nf.ds.numrecs()) {
      nf.ds.set_numrecs(reached);
      nf.numrecs_dirty = true;
    }
    return Status::ok();
  }
  // v[2]: an SWMR writer's commit timer ran out on some rank.
  int64_t v[3] = {std::max(reached, nf.ds.numrecs()), io.is_ok() ? 0 : -int64_t{io.code()},
                  swmr_commit_due(nf) ? 1 : 0};
  EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_MAX, nf.comm()),
                                   io::MpiOp::kOther, "MPI_Allreduce of numrecs"));
  const int64_t most = v[0];
  const Status failed = v[1] == 0 ? Status::ok()
                        : io.is_ok() ? Status{static_cast<int>(-v[1]), "a write failed on another rank"}
                                     : io;
  Status recorded;
  if (nf.swmr == NativeFile::Swmr::kWrite) {
    // An SWMR writer commits records at sync, flush, redef and close only, so a
    // reader never sees a record whose later variables are not written yet.
    if (most > nf.ds.numrecs()) {
      nf.ds.set_numrecs(most);
      nf.numrecs_dirty = true;
    }
    // exa_swmr_commit_interval: this put's records are written on every rank
    // (a failed write on any rank stops the commit: none then).
    if (v[2] != 0 && v[1] == 0) recorded = swmr_timer_commit(nf);
  } else if (most > nf.ds.numrecs() || nf.numrecs_dirty) {
    nf.ds.set_numrecs(most);
    nf.numrecs_dirty = false;
    // A commit (partitioned) does not count records whose write failed on
    // some rank; the classic field is written as PnetCDF does.
    recorded = write_numrecs(nf, most, /*agreed=*/false, nf.partitioned ? failed : Status::ok());
  }
  if (v[1] != 0 && io.is_ok()) return failed;
  return recorded;
}

}  // namespace exa::layer
