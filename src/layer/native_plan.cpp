#include "layer/native_plan.hpp"
#include "layer/native_internal.hpp"
#include "layer/data_checks.hpp"

#include <algorithm>

#include "convert/external.hpp"
#include "format/layout.hpp"
#include "io/aggregate.hpp"
#include "io/header_io.hpp"
#include "io/memory_plan.hpp"
#include "io/mpi_errors.hpp"

namespace exa::layer {

CallModes native_modes(const NativeFile& nf) {
  return {nf.file.writable(), nf.define_mode, nf.indep_mode};
}

Status check_call(const NativeFile& nf, const DataRequest& req, bool write, bool data_mode) {
  return check_call(nf.ds, native_modes(nf), req, write, data_mode);
}

convert::ErangeFill erange_fill(const NativeFile& nf, int put_varid) {
  if (!nf.hints.erange_fill) return convert::ErangeFill::keep_converted();
  if (put_varid < 0) return convert::ErangeFill::type_default();
  std::vector<uint8_t> fill = nf.ds.fill_value_external(put_varid);
  return convert::ErangeFill::value(fill.data(), static_cast<int64_t>(fill.size()));
}

// The checks are those made above the stack (layer/data_checks.cpp); a
// collective call whose checks failed there comes with args_error and takes
// part with nothing.
Status make_plan(NativeFile& nf, const DataRequest& req, bool write, Plan* plan,
                 bool check_data_mode) {
  if (req.args_error != NC_NOERR) return {req.args_error, "argument error (checked above the stack)"};
  CheckedAccess access;
  EXA_RETURN_IF_ERROR(check_data_args(nf.ds, native_modes(nf), req, write, check_data_mode, &access));
  plan->geo = std::move(access.geo);
  plan->sel = std::move(access.sel);
  plan->memtype = access.memtype;
  plan->nelems = access.nelems;
  plan->xtype = nf.ds.var(req.varid).type;
  plan->cdf5 = nf.ds.version() == format::Version::kCdf5;
  plan->compact = CompactStore::is_compact(nf, req.varid);
  // Only a conversion between types can give NC_ERANGE.
  if (plan->memtype != plan->xtype) plan->erange = erange_fill(nf, write ? req.varid : -1);
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
