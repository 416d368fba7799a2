// Tells the query engine about a put (query/mpi/put_epoch.hpp): the rows it
// writes and, for typed calls with a contiguous buffer, its values, so index
// chunks go stale one by one and keep bounds on their values.
#pragma once

#include "api/request_builder.hpp"
#include "query/mpi/put_epoch.hpp"

namespace exa::api {

inline void note_query_put(int ncid, const RequestArgs& a) {
  exa::query::PutCall pc;
  pc.start = a.start;
  pc.count = a.count;
  pc.stride = a.stride;
  pc.one = a.kind == Kind::kVar1;
  pc.whole = a.kind == Kind::kVar;
  pc.buf = a.buf;
  pc.memtype = a.kind == Kind::kVarm || a.buftype != MPI_DATATYPE_NULL ? NC_NAT : a.memtype;
  exa::query::note_put(ncid, a.varid, pc);
}

}  // namespace exa::api
