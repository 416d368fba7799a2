#include "api/request_builder.hpp"

namespace exa::api {

layer::DataRequest make_request(const model::Dataset& ds, const RequestArgs& a,
                                std::vector<MPI_Offset>* storage) {
  layer::DataRequest req;
  req.varid = a.varid;
  req.start = a.start;
  req.count = a.count;
  req.stride = a.kind == Kind::kVars || a.kind == Kind::kVarm ? a.stride : nullptr;
  req.imap = a.kind == Kind::kVarm ? a.imap : nullptr;
  req.buf = const_cast<void*>(a.buf);
  req.bufcount = a.bufcount;
  req.buftype = a.buftype;
  req.memtype = a.memtype;
  req.collective = a.collective;
  if ((a.kind != Kind::kVar1 && a.kind != Kind::kVar) || !ds.valid_var(a.varid)) return req;
  const auto& var = ds.var(a.varid);
  size_t n = var.dimids.size();
  storage->assign(2 * n, 0);  // zeros, then the counts
  for (size_t k = 0; k < n; ++k) {
    int d = var.dimids[k];
    (*storage)[n + k] = a.kind == Kind::kVar1 ? 1
                        : d == ds.unlimited_dim() ? ds.numrecs()
                                                  : ds.dim(d).length;
  }
  if (a.kind == Kind::kVar) req.start = storage->data();
  req.count = storage->data() + n;
  return req;
}

}  // namespace exa::api
