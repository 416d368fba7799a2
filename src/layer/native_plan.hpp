// The plan of one data request on a native file (shared by blocking and
// nonblocking calls): checks, selection, memory type; numrecs bookkeeping.
#pragma once

#include "convert/external.hpp"
#include "io/access_plan.hpp"
#include "io/mpi_file.hpp"
#include "layer/native_connector.hpp"

namespace exa::layer {

struct Plan {
  io::VarGeometry geo;
  io::Selection sel;
  nc_type memtype = NC_NAT;
  nc_type xtype = NC_NAT;
  int64_t nelems = 0;
  bool cdf5 = false;  // the unsigned char <-> NC_BYTE range rule differs
  bool compact = false;  // a compact variable: the data is in its block (CompactStore)
  // What an out-of-range element becomes (erange_fill).
  convert::ErangeFill erange = convert::ErangeFill::type_default();
  int64_t xbytes() const { return nelems * geo.xsize; }
};

// The file's modes for the checks (layer/data_checks.hpp).
CallModes native_modes(const NativeFile& nf);
// layer/data_checks.hpp's check_call on a native file.
Status check_call(const NativeFile& nf, const DataRequest& req, bool write, bool data_mode);

// What an element that gives NC_ERANGE becomes, by hint exa_erange_fill: the
// converted value (disable), else a fill value -- for a put into variable
// `put_varid` (>= 0) that variable's (_FillValue or the default), for a get
// or an attribute (put_varid < 0) the destination type's default.
convert::ErangeFill erange_fill(const NativeFile& nf, int put_varid);

// Checks mode, ids and selection, resolves the memory type.
// `check_data_mode` false (nonblocking posts) accepts define mode and either
// data mode.
Status make_plan(NativeFile& nf, const DataRequest& req, bool write, Plan* plan,
                 bool check_data_mode = true);
// The checks of a varn request (req.varn), as its post makes them
// (layer/native_requests.cpp).
Status check_varn(NativeFile& nf, const DataRequest& req, bool write);

// The transfer of a planned request's external bytes: through MPI-IO, or,
// for a compact variable, the compact store (a collective call still takes
// part in the collective MPI-IO call, with nothing).
Status transfer_planned(NativeFile& nf, const DataRequest& req, const Plan& plan, bool write,
                        void* external, int64_t xbytes);

// Records reached by a write: one past the last record index touched.
int64_t records_reached(const Plan& plan);

io::MpiFile& handle_for(NativeFile& nf, bool collective);

// After a collective put every rank agrees on numrecs (one allreduce) and
// rank 0 records growth in the header; independent puts defer that.
Status update_numrecs(NativeFile& nf, bool collective, int64_t reached, bool record,
                      const Status& io);

// Whether a collective put of `varid` agrees on numrecs: every rank must
// decide alike, also one that passed an id no other rank did.
bool agrees_numrecs(const NativeFile& nf, int varid);

}  // namespace exa::layer
