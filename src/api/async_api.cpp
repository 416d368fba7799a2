// exa_async_wait / exa_async_error (include/exacdf_async.h): answered by the
// async connector of the file's stack (Connector::extension).
#include "api/api_support.hpp"
#include "exacdf.h"
#include "layer/async_connector.hpp"
#include "layer/native_connector.hpp"

using exa::Status;
using exa::api::OpenFile;

extern "C" int exa_async_wait(int ncid, double timeout_s, int* pending) {
  if (pending) *pending = 0;
  return exa::api::with_file("exa_async_wait", ncid, [&](OpenFile& f) -> Status {
    exa::layer::AsyncWaitArgs args;
    args.timeout_s = timeout_s;
    Status st = f.connector->extension(*f.state, "async_wait", &args);
    if (st.code() == NC_ENOTSUPPORT) return Status::ok();  // no async layer: nothing pending
    if (pending) *pending = args.pending;
    return st;
  });
}

extern "C" int exa_async_error(int ncid, int index, exa_async_error_info* info) {
  return exa::api::with_file("exa_async_error", ncid, [&](OpenFile& f) -> Status {
    exa::layer::AsyncErrorArgs args;
    args.index = index;
    args.info = info;
    Status st = f.connector->extension(*f.state, "async_error", &args);
    if (st.code() == NC_ENOTSUPPORT) return {NC_EINVAL, "no async connector: no background errors"};
    return st;
  });
}

extern "C" int exa_async_peak_bytes(int ncid, long long* bytes) {
  if (bytes) *bytes = 0;
  return exa::api::with_file("exa_async_peak_bytes", ncid, [&](OpenFile& f) -> Status {
    if (bytes == nullptr) return {NC_EINVAL, "null bytes"};
    size_t peak = 0;
    Status st = f.connector->extension(*f.state, "async_peak", &peak);
    if (st.code() == NC_ENOTSUPPORT) return Status::ok();
    *bytes = static_cast<long long>(peak);
    return st;
  });
}

extern "C" int exa_async_concurrency(int ncid, int* file_now, int* file_max, int* process_max) {
  if (file_now) *file_now = 0;
  if (file_max) *file_max = 0;
  if (process_max) *process_max = 0;
  return exa::api::with_file("exa_async_concurrency", ncid, [&](OpenFile& f) -> Status {
    exa::layer::AsyncConcurrencyArgs args;
    Status st = f.connector->extension(*f.state, "async_concurrency", &args);
    if (st.code() == NC_ENOTSUPPORT) return Status::ok();
    if (file_now) *file_now = args.file_now;
    if (file_max) *file_max = args.file_max;
    if (process_max) *process_max = args.process_max;
    return st;
  });
}

extern "C" int exa_debug_concurrent_writes(int reset) { return exa::layer::split_io_peak(reset != 0); }
