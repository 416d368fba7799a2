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

// Whether the put's values are in a contiguous buffer of a known memory type
// (typed vara/vars/var1/var calls): only those have a value range.
inline bool query_put_values_known(const RequestArgs& a) {
  return a.kind != Kind::kVarm && a.buftype == MPI_DATATYPE_NULL && a.memtype != NC_NAT;
}

inline exa::query::PutCall query_put_call(const RequestArgs& a, bool written) {
  exa::query::PutCall pc;
  pc.start = a.start;
  pc.count = a.count;
  pc.stride = a.stride;
  pc.one = a.kind == Kind::kVar1;
  pc.whole = a.kind == Kind::kVar;
  pc.buf = a.buf;
  pc.memtype = query_put_values_known(a) ? a.memtype : NC_NAT;
  pc.written = written;
  return pc;
}

// Whether the put's conversion pass should take its values' range
// (layer/put_range.hpp), and how its values are segmented (*segments).
// Flexible and mapped (varm) calls too: native converts their values in
// the selection's order, gathered from the buftype or imap when they are
// not contiguous.
// *shape: the variable's shape, when it was looked up (for note_query_put).
inline bool query_put_takes_range(int ncid, OpenFile& f, const RequestArgs& a,
                                  exa::convert::SegmentedRange* segments,
                                  exa::query::PutVarShape* shape = nullptr) {
  const bool gathered = a.kind == Kind::kVarm || a.buftype != MPI_DATATYPE_NULL;
  if (!query_put_values_known(a) && !gathered) return false;
  if (!exa::query::range_wanted_at_put(ncid, a.varid, [&f] { return f.path; }))
    return false;
  exa::query::PutVarShape mine;
  if (shape == nullptr) shape = &mine;
  if (!query_var_shape(f, a.varid, shape)) return false;
  *segments = exa::query::put_segments(query_put_call(a, false), *shape);
  return true;
}

// written: a blocking put that succeeded (its rows may count as written
// whole); seen: the values' ranges its conversion took, or null.
// request: a posted put's id (its rows count as written whole once its
// wait succeeds: exa::query::note_request_done), kDeferredPut, or -1.
// known: the variable's shape when the caller has it (query_put_takes_range).
inline void note_query_put(int ncid, OpenFile& f, const RequestArgs& a, bool written,
                           const exa::convert::SegmentedRange* seen = nullptr, int request = -1,
                           const exa::query::PutVarShape* known = nullptr) {
  exa::query::PutVarShape mine;
  if (known == nullptr && !query_var_shape(f, a.varid, &mine)) return;
  const exa::query::PutVarShape& shape = known != nullptr ? *known : mine;
  exa::query::PutCall pc = query_put_call(a, written);
  pc.seen = seen;
  pc.request = request;
  exa::query::note_put(ncid, a.varid, pc, shape);
}

// Whether a varn put's conversion should take its values' ranges, and how
// they are segmented (exa::query::varn_segments).
inline bool query_varn_takes_range(int ncid, OpenFile& f, int varid, int num, MPI_Offset* const* starts,
                                   MPI_Offset* const* counts, MPI_Datatype buftype, int memtype,
                                   exa::convert::SegmentedRange* segments) {
  if (buftype == MPI_DATATYPE_NULL && memtype == NC_NAT) return false;
  if (!exa::query::range_wanted_at_put(ncid, varid, [&f] { return f.path; })) return false;
  exa::query::PutVarShape shape;
  if (!query_var_shape(f, varid, &shape)) return false;
  return exa::query::varn_segments(num, starts, counts, shape, segments);
}

inline void note_query_put_varn(int ncid, OpenFile& f, int varid, int num, MPI_Offset* const* starts,
                                MPI_Offset* const* counts, const void* buf, int memtype,
                                const exa::convert::SegmentedRange* seen = nullptr, int request = -1) {
  exa::query::PutVarShape shape;
  if (!query_var_shape(f, varid, &shape)) return;
  exa::query::note_put_varn(ncid, varid, num, starts, counts, buf, memtype, shape, seen, request);
}

}  // namespace exa::api
