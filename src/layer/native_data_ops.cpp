// Native connector: data calls. A request becomes an access plan (one MPI
// file type) and a memory plan (contiguous, or one MPI datatype), values are
// converted to and from external form, and one MPI-IO call moves them. A
// collective read of the same region on every rank is read once and
// broadcast (seed 004).
#include <algorithm>
#include <climits>

#include "convert/external.hpp"
#include "io/access_plan.hpp"
#include "io/header_io.hpp"
#include "io/memory_plan.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"

namespace exa::layer {

namespace {

struct Plan {
  io::VarGeometry geo;
  io::Selection sel;
  nc_type memtype = NC_NAT;
  nc_type xtype = NC_NAT;
  int64_t nelems = 0;
  bool cdf5 = false;  // the unsigned char <-> NC_BYTE range rule differs
  int64_t xbytes() const { return nelems * geo.xsize; }
};

Status check_mode(const NativeFile& nf, const DataRequest& req, bool write) {
  if (nf.define_mode) return {NC_EINDEFINE, "in define mode"};
  if (!nf.ds.valid_var(req.varid)) return {NC_ENOTVAR, "invalid variable id"};
  if (write && !nf.file.writable()) return {NC_EPERM, "file is open read-only"};
  if (req.collective && nf.indep_mode) return {NC_EINDEP, "collective call in independent mode"};
  if (!req.collective && !nf.indep_mode) return {NC_ENOTINDEP, "independent call in collective mode"};
  return Status::ok();
}

// The memory type, and for the flexible API the check that the buffer
// holds exactly the selected number of elements.
Status resolve_memtype(const DataRequest& req, const format::Variable& var, Plan* plan) {
  plan->memtype = req.memtype;
  if (plan->memtype != NC_NAT) return Status::ok();
  if (req.buftype == MPI_DATATYPE_NULL) {
    plan->memtype = var.type;  // flexible call without a type: the variable's own
    return Status::ok();
  }
  int64_t per_type = 0;
  EXA_RETURN_IF_ERROR(io::element_type_of(req.buftype, &plan->memtype, &per_type));
  if (req.bufcount >= 0 && req.bufcount * per_type != plan->nelems)
    return {NC_EIOMISMATCH, "buffer holds a different number of elements than selected"};
  return Status::ok();
}

Status make_plan(NativeFile& nf, const DataRequest& req, bool write, Plan* plan) {
  EXA_RETURN_IF_ERROR(check_mode(nf, req, write));
  const auto& h = nf.ds.header();
  const auto& var = h.vars[static_cast<size_t>(req.varid)];
  size_t n = var.dimids.size();
  if (n > 0 && req.start == nullptr) return {NC_ENULLSTART, "null start"};
  if (n > 0 && req.count == nullptr) return {NC_ENULLCOUNT, "null count"};
  plan->xtype = var.type;
  plan->cdf5 = nf.ds.version() == format::Version::kCdf5;
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
  EXA_RETURN_IF_ERROR(resolve_memtype(req, var, plan));
  EXA_RETURN_IF_ERROR(convert::check_convertible(plan->memtype, var.type));
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

// A digest of what a rank selects; ranks that failed get one nobody else has.
uint64_t selection_digest(const DataRequest& req, const Plan& plan, bool ok, int rank) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ULL; };
  mix(req.varid);
  for (size_t k = 0; k < plan.sel.start.size(); ++k) {
    mix(plan.sel.start[k]);
    mix(plan.sel.count[k]);
    mix(plan.sel.stride.empty() ? 1 : plan.sel.stride[k]);
  }
  if (!ok) mix(-1 - rank);
  return h;
}

// Whether every rank of a collective get selected the same region and it is
// to be read once and broadcast. One allreduce, on every rank.
bool read_once_and_broadcast(NativeFile& nf, const DataRequest& req, const Plan& plan, bool ok) {
  if (!req.collective || nf.file.nprocs() == 1) return false;
  if (nf.hints.bcast_read == io::Hints::BcastRead::kDisable) return false;
  uint64_t h = selection_digest(req, plan, ok, nf.file.rank());
  uint64_t v[2] = {h, ~h};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MAX, nf.comm());
  bool identical = v[0] == ~v[1];
  if (!identical) return false;
  return nf.hints.bcast_read == io::Hints::BcastRead::kEnable ||
         plan.xbytes() <= nf.hints.bcast_read_max;
}

Status broadcast_read(NativeFile& nf, const Plan& plan, void* external) {
  Status st;
  if (nf.file.rank() == 0) {
    st = open_indep_handle(nf);
    if (st.is_ok())
      st = io::transfer(nf.indep, plan.geo, plan.sel, false, false, external, plan.xbytes());
  }
  int code = st.code();
  MPI_Bcast(&code, 1, MPI_INT, 0, nf.comm());
  if (code != NC_NOERR) return st.is_ok() ? Status{code, "read failed on rank 0"} : st;
  auto* p = static_cast<char*>(external);
  for (int64_t off = 0; off < plan.xbytes(); off += INT_MAX)
    MPI_Bcast(p + off, static_cast<int>(std::min<int64_t>(plan.xbytes() - off, INT_MAX)), MPI_BYTE,
              0, nf.comm());
  return Status::ok();
}

}  // namespace

Status NativeConnector::put(FileState& f, const DataRequest& req) {
  auto& nf = native(f);
  Plan plan;
  Status st = make_plan(nf, req, true, &plan);
  bool takes_part = req.collective && !nf.define_mode && !nf.indep_mode;
  if (!st.is_ok() && !takes_part) return st;
  io::MemoryPlan mem;
  if (st.is_ok()) st = mem.build(req.buf, req.buftype, req.bufcount, plan.memtype, plan.sel, req.imap);
  const void* native_values = req.buf;
  std::vector<uint8_t> gathered;
  if (st.is_ok() && !mem.contiguous() && plan.nelems > 0) {
    st = mem.gather(&gathered, plan.nelems * convert::native_size(plan.memtype));
    native_values = gathered.data();
  }
  if (!st.is_ok()) plan = Plan{};  // take part in the collective call with nothing
  std::vector<uint8_t> external(static_cast<size_t>(plan.xbytes()));
  Status converted = Status::ok();
  if (plan.nelems > 0)
    converted = convert::to_external(native_values, plan.memtype, plan.xtype, plan.nelems,
                                     external.data(), plan.cdf5);
  int64_t xbytes = plan.xbytes();
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
  io::MemoryPlan mem;
  if (st.is_ok()) st = mem.build(req.buf, req.buftype, req.bufcount, plan.memtype, plan.sel, req.imap);
  if (!st.is_ok()) plan = Plan{};
  // Same type, contiguous: read straight into the caller's buffer and swap there.
  bool in_place = st.is_ok() && mem.contiguous() && plan.memtype == plan.xtype && plan.nelems > 0;
  std::vector<uint8_t> staging(in_place ? 0 : static_cast<size_t>(plan.xbytes()), 0);
  void* external = in_place ? req.buf : staging.data();
  Status io_st;
  if (read_once_and_broadcast(nf, req, plan, st.is_ok()))
    io_st = broadcast_read(nf, plan, external);
  else
    io_st = io::transfer(handle_for(nf, req.collective), plan.geo, plan.sel, false,
                         req.collective, external, plan.xbytes());
  if (!st.is_ok()) return st;
  EXA_RETURN_IF_ERROR(io_st);
  if (plan.nelems == 0) return Status::ok();
  if (mem.contiguous())
    return convert::from_external(external, plan.xtype, plan.memtype, plan.nelems, req.buf,
                                  plan.cdf5);
  std::vector<uint8_t> native_values(static_cast<size_t>(plan.nelems * convert::native_size(plan.memtype)));
  Status converted =
      convert::from_external(external, plan.xtype, plan.memtype, plan.nelems,
                             native_values.data(), plan.cdf5);
  if (!converted.is_ok() && converted.code() != NC_ERANGE) return converted;
  EXA_RETURN_IF_ERROR(mem.scatter(native_values.data(), static_cast<int64_t>(native_values.size())));
  return converted;
}

}  // namespace exa::layer
