// Safe mode (PNETCDF_SAFE_MODE=1): checks that every rank passed the same
// arguments to each collective define call, and agrees on every outcome,
// returning the NC_EMULTIDEFINE_* code of the first differing argument on
// every rank before the call takes effect anywhere; a collective data call
// with bad arguments on one rank fails on every rank and moves no data.
#pragma once

#include "layer/forwarding_connector.hpp"

namespace exa::layer {

class SafeModeConnector final : public ForwardingConnector {
 public:
  using ForwardingConnector::ForwardingConnector;
  const char* name() const override { return "safe"; }

  Status enddef(FileState& f, const format::LayoutHints* a) override;
  Status redef(FileState& f) override;
  Status set_fill(FileState& f, int mode, int* old) override;
  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override;
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids,
                 int* id) override;
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* value) override;
  Status rename_dim(FileState& f, int dimid, const char* name) override;
  Status rename_var(FileState& f, int varid, const char* name) override;
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override;
  Status del_att(FileState& f, int varid, const char* name) override;
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override;
  Status put(FileState& f, const DataRequest& req) override;
  Status get(FileState& f, const DataRequest& req) override;
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override;
  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override;
};

}  // namespace exa::layer
