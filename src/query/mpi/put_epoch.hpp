// What this process put into each variable since the query engine last
// looked (per ncid and varid): the rows (of dimension 0) each put touched and
// the range of the values it put, seen at put time (blocking and posted puts
// take it in their conversion pass, per min/max chunk; others, with
// EXACDF_QUERY_MINMAX=always, in a pass of their own): for every variable by
// default (=put); with =queried only for a variable with an index or min/max
// record or queried by this process; with =off for none (put_epoch.cpp).
// The engine takes these
// records at its next collective index load: the chunks they touch are
// marked stale in the index (their bitmaps no longer used) and their min/max
// widened by the values put, so chunk skipping keeps working without a
// rebuild (docs/format.md "Query index sidecar").
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "convert/value_range.hpp"
#include "query/index_format.hpp"

namespace exa::query {

// (PutRecord: query/index_format.hpp.)

// One put call: its rows from start/count/stride (any may be null: the whole
// variable; stride null: 1), its values from buf when memtype is a numeric
// nc_type and the buffer holds the elements contiguously (typed vara/vars/
// var1/var calls); otherwise the values are unknown (kNoBounds).
struct PutCall {
  const MPI_Offset* start = nullptr;
  const MPI_Offset* count = nullptr;
  const MPI_Offset* stride = nullptr;
  bool one = false;    // var1: count is 1 in every dimension
  bool whole = false;  // var: the whole variable
  const void* buf = nullptr;
  int memtype = 0;     // NC_NAT (0): values not seen
  // The values are in the file when the call returns (a blocking put that
  // succeeded): only then may the put's rows count as written whole. A
  // posted request can still fail or be cancelled; it only widens bounds.
  bool written = false;
  // The values' range as stored, taken by this put's conversion pass
  // (layer/put_range.hpp); null: not taken (then, for variables with a
  // sidecar or queried by this process, a pass of its own over buf).
  const convert::SegmentedRange* seen = nullptr;
  // A posted put (iput/bput) that posting accepted, through a stack that
  // writes at once: its request id. Its rows count as written whole once
  // its wait reports success (note_request_done), as a blocking put's.
  // kDeferredPut: a blocking put that a stack which does not write at once
  // (async, cache) accepted: its rows count as written whole once the file's
  // deferred puts are settled (settle_deferred).
  int request = -1;
};
inline constexpr int kDeferredPut = -2;
// What a put needs of its variable, from the caller's own metadata (the api
// layer's dataset), so that noting a put makes no ncmpi_inq_* call (it would
// cost every put an inquiry through the connector stack, and a trace would
// count inquiries the program never made).
struct PutVarShape {
  int ndims = 0;
  int vtype = 0;                       // the variable's nc_type
  std::vector<MPI_Offset> dims;        // lengths (unlimited: numrecs)
  std::function<std::string()> path;   // the file's path: asked once per variable (ranges_wanted)
};
void note_put(int ncid, int varid, const PutCall& call, const PutVarShape& shape);
// How a put's values are segmented for their ranges: at the boundaries of
// min/max chunks when it writes whole rows, else one segment.
convert::SegmentedRange put_segments(const PutCall& call, const PutVarShape& shape);
// Whether a blocking put into (ncid, varid) takes its values' range in its
// conversion pass: every put by default (EXACDF_QUERY_MINMAX unset, put or
// always); with =queried only puts into variables with a sidecar or queried
// by this process; with =off none.
bool range_wanted_at_put(int ncid, int varid, const std::function<std::string()>& path_of);
// The wait or cancel of a posted put of ncid (PutCall::request): succeeded
// -- its values are in the file -- then its rows count as written whole
// (when they were whole rows), with the range its post noted.
void note_request_done(int ncid, int request, bool succeeded);
// Every posted put of ncid completed, outcomes unknown (a wait of
// NC_REQ_ALL): none counts as written whole.
void forget_requests(int ncid);
// Whether ncid has deferred puts not yet settled (PutCall::request
// kDeferredPut).
bool has_deferred(int ncid);
// ncid's deferred puts: settled -- the stack wrote them all and reported no
// error nobody has seen -- then their rows count as written whole; else (a
// call of the file failed, or the stack cannot tell) they never will.
void settle_deferred(int ncid, bool settled);
// A put whose region and values are not known (mput, vard, ...).
void note_put(int ncid, int varid);
// varn: num pieces, their values back to back in buf; seen: the ranges its
// conversion took (segmented by varn_segments), or null (then the values
// are read here when ranges are wanted and memtype is known); request: as
// PutCall::request (with seen: its pieces of whole rows count as written
// whole once its wait succeeds).
void note_put_varn(int ncid, int varid, int num, MPI_Offset* const* starts, MPI_Offset* const* counts,
                   const void* buf, int memtype, const PutVarShape& shape,
                   const convert::SegmentedRange* seen = nullptr, int request = -1);
// How a varn put's values are segmented for their ranges: a segment per
// piece, a piece of whole rows cut at the min/max chunks' rows; false when
// the pieces are not all good (the put then fails or is noted whole).
bool varn_segments(int num, MPI_Offset* const* starts, MPI_Offset* const* counts, const PutVarShape& shape,
                   convert::SegmentedRange* out);

// The records of (ncid, varid) since the last take, removed.
std::vector<PutRecord> take_puts(int ncid, int varid);
// Puts of any variable of ncid by this process so far (a file whose
// fingerprint moved while this count did not was changed by someone else).
uint64_t put_total(int ncid);
// This process loaded, built (true) or dropped (false) varid's index or
// min/max record: whether puts compute their values' range.
void note_indexed(int ncid, int varid, bool indexed);
// ncid was closed: its records and trust go.
void forget_file(int ncid);

// The varids of ncid whose records (this process's) hold some rows written
// whole with known bounds: what a min/max record would keep. Sorted.
std::vector<int> noted_varids(int ncid);
// Whether puts take their values' range whatever was queried (EXACDF_QUERY_MINMAX
// unset -- the default --, put or always).
bool minmax_at_every_put();
// Whether EXACDF_QUERY_MINMAX=put or always was set explicitly: then the
// close of a classic file also begins min/max record sidecars for variables
// without one (otherwise it only extends those already there).
bool minmax_requested();

}  // namespace exa::query
