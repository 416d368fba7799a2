// What every C entry point does: find the file, run the call, turn the
// Status (or an escaping C++ exception) into an NC_* code.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <new>

#include "api/handles.hpp"
#include "util/status.hpp"

namespace exa::api {

// Prints a diagnostic to stderr when EXACDF_VERBOSE=1 (the failing call's message).
// Prints a warning about a call that succeeded when EXACDF_VERBOSE=1.
void warn(const char* function, const std::string& what);
void report(const char* function, const Status& st);

// Runs fn() and returns its NC_* code; no exception crosses the C ABI.
template <typename Fn>
int guarded(const char* function, Fn&& fn) {
  try {
    Status st = fn();
    if (!st.is_ok()) report(function, st);
    return st.code();
  } catch (const std::bad_alloc&) {
    return NC_ENOMEM;
  } catch (...) {
    return NC_EINTERNAL;
  }
}

// A call of ncid failed: on a stack that defers puts (async, cache), the
// error may be a deferred put's, so none of them counts as written whole
// (query/mpi/put_epoch.hpp, settle_deferred).
void call_failed(int ncid, OpenFile& f);

// Runs fn(file) for an open ncid; NC_EBADID otherwise.
template <typename Fn>
int with_file(const char* function, int ncid, Fn&& fn) {
  return guarded(function, [&]() -> Status {
    OpenFile* f = find_file(ncid);
    if (f == nullptr) return {NC_EBADID, "not an open file id"};
    Status st = fn(*f);
    if (!st.is_ok()) call_failed(ncid, *f);
    return st;
  });
}

}  // namespace exa::api
