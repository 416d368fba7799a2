// The argument checks of a data call, made once above the connector stack
// (as PnetCDF's dispatcher makes them before its driver), from the metadata
// and the file's modes alone: ids, modes, coordinates, types, buffer. A
// connector below (async) may thus answer an argument error at call time
// and queue only valid work; the native connector builds its plan on the
// same function and keeps only what needs its internals.
#pragma once

#include "io/access_plan.hpp"
#include "layer/connector.hpp"

namespace exa::layer {

// What a data call's selection is once its arguments passed the checks.
struct CheckedAccess {
  io::VarGeometry geo;
  io::Selection sel;
  nc_type memtype = NC_NAT;  // resolved (typed call, flexible buffer type, or the variable's)
  int64_t nelems = 0;
};

// The checks of every data call, in PnetCDF's order: permission, define
// mode, data mode (when `data_mode`), NC_GLOBAL, variable id.
Status check_call(const model::Dataset& ds, const CallModes& modes, const DataRequest& req,
                  bool write, bool data_mode);

// All the argument checks of a var1/var/vara/vars/varm call in PnetCDF's
// order; `out` (optional) gets the selection. `data_mode` false (nonblocking
// posts) accepts define mode and either data mode.
Status check_data_args(const model::Dataset& ds, const CallModes& modes, const DataRequest& req,
                       bool write, bool data_mode, CheckedAccess* out = nullptr);

// Where a variable's data is now: begin, the record size and, for a record
// variable of a partitioned file with record sections, its record pieces.
// NC_EFILEMETA when the sections give a record no place.
Status place_of_var(const model::Dataset& ds, int varid, io::VarGeometry* geo);

// Whether a data call with an argument error still goes down the stack (with
// DataRequest::args_error): a collective one does -- native takes part in the
// collective I/O with nothing when in collective data mode, as PnetCDF does,
// and safe mode agrees on every rank's errors; an independent one does not.
inline bool reaches_stack_despite_error(const DataRequest& req) { return req.collective; }

}  // namespace exa::layer
