// A put of values the caller already holds in the file's byte order, for
// exacdf's own writers that build their rows themselves (the relation store:
// src/relation/relation_io.cpp). Not a public call.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace exa::api {

// ncmpi_put_vara_ulonglong_all (collective) or ncmpi_put_vara_ulonglong of nvalues NC_UINT64 values held big-endian
// (the external form) in buf: on a stack of native alone they are written as
// they are, with no conversion copy and no swap in place and back. Under
// any other connector (async, cache, safe...) buf is first swapped to native
// order in place (so buf must be writable, and its contents are then
// native) and the put goes the usual way. Returns the put's NC code.
int put_vara_in_file_order(int ncid, int varid, const MPI_Offset* start, const MPI_Offset* count,
                           unsigned long long* buf, int64_t nvalues, bool collective);

}  // namespace exa::api
