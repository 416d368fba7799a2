// Tells the query engine about a put (query/mpi/put_epoch.hpp): the rows it
// writes and, for typed calls with a contiguous buffer, its values, so index
// chunks go stale one by one and keep bounds on their values. The variable's
// shape comes from the file's own dataset (no ncmpi_inq_* call per put).
#pragma once


#include "api/handles.hpp"
#include "api/request_builder.hpp"
#include "query/mpi/put_epoch.hpp"

namespace exa::api {

// The shape of varid as the put sees it; false when varid names no variable
// (the call fails; nothing is noted).
inline bool query_var_shape(OpenFile& f, int varid, exa::query::PutVarShape* shape) {
  const model::Dataset& ds = f.connector->dataset(*f.state);
  if (!ds.valid_var(varid)) return false;
  const auto& var = ds.var(varid);
  shape->ndims = static_cast<int>(var.dimids.size());
  shape->vtype = var.type;
  for (int d : var.dimids) shape->dims.push_back(d == ds.unlimited_dim() ? ds.numrecs() : ds.dim(d).length);
  shape->path = [&f] { return f.path; };  // not facts(): async would drain its queue for it
  return true;
}

// written: a blocking put that succeeded (its rows may count as written whole).
inline void note_query_put(int ncid, OpenFile& f, const RequestArgs& a, bool written) {
  exa::query::PutVarShape shape;
  if (!query_var_shape(f, a.varid, &shape)) return;
  exa::query::PutCall pc;
  pc.start = a.start;
  pc.count = a.count;
  pc.stride = a.stride;
  pc.one = a.kind == Kind::kVar1;
  pc.whole = a.kind == Kind::kVar;
  pc.buf = a.buf;
  pc.memtype = a.kind == Kind::kVarm || a.buftype != MPI_DATATYPE_NULL ? NC_NAT : a.memtype;
  pc.written = written;
  exa::query::note_put(ncid, a.varid, pc, shape);
}

inline void note_query_put_varn(int ncid, OpenFile& f, int varid, int num, MPI_Offset* const* starts,
                                MPI_Offset* const* counts, const void* buf, int memtype) {
  exa::query::PutVarShape shape;
  if (!query_var_shape(f, varid, &shape)) return;
  exa::query::note_put_varn(ncid, varid, num, starts, counts, buf, memtype, shape);
}

}  // namespace exa::api
