// Turning the arguments of a data call (any kind: var1, var, vara, vars,
// varm) into the DataRequest the connector stack takes. Shared by the
// blocking, nonblocking, varn and multi-variable entry points.
#pragma once

#include <vector>

#include "layer/connector.hpp"

namespace exa::api {

enum class Kind { kVar1, kVar, kVara, kVars, kVarm };

struct RequestArgs {
  int varid = 0;
  Kind kind = Kind::kVara;
  const MPI_Offset* start = nullptr;
  const MPI_Offset* count = nullptr;
  const MPI_Offset* stride = nullptr;
  const MPI_Offset* imap = nullptr;
  const void* buf = nullptr;
  MPI_Offset bufcount = -1;                  // -1: typed call
  MPI_Datatype buftype = MPI_DATATYPE_NULL;
  nc_type memtype = NC_NAT;                  // typed call: the C type's memory type
  bool collective = true;
};

// The request; var1/var get explicit start/count (var: the whole variable
// with its current records) kept in `storage`, which must outlive the request.
layer::DataRequest make_request(const model::Dataset& ds, const RequestArgs& a,
                                std::vector<MPI_Offset>* storage);

}  // namespace exa::api
