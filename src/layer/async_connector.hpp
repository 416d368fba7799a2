// The async connector (`async{mem=BYTES}`): blocking puts return once their
// data is copied into the connector's buffer; the process's pool of threads
// writes them, in dependency order, through the layers below, while the
// program computes (independent puts to disjoint regions at once, when
// native is right below). Everything else (define calls, enddef, redef, sync,
// close, gets, nonblocking calls, inquiries that depend on pending writes)
// first completes what came before (a barrier) and then runs at once.
// Argument errors are answered at call time (the checks above the stack,
// layer/data_checks.hpp); errors of background operations are kept
// (exa_async_error) and returned by the next completing call. Needs
// MPI_THREAD_MULTIPLE; with less, operations progress inside library calls.
#pragma once

#include <memory>

#include "layer/connector.hpp"
#include "layer/connector_spec.hpp"

#include "exacdf_async.h"

namespace exa::layer {

// Settings: mem (bytes of copied data held at most, with an optional k/m/g
// suffix; default 1/8 of physical memory, at most 1 GiB), threads (the
// process's pool has at least this many, 1 to 64; default 2), sched
// (batch|normal), indep (now|defer, default now: independent puts run at
// the call; defer: they are queued too -- the program then follows MPI-IO's
// consistency rules, ncmpi_sync before another rank reads what it wrote),
// concurrent (on|off, default on: queued independent puts of one file write
// at once, each through a handle of its own; off: one at a time, as every
// other operation). Unknown keys and bad values are NC_EINVAL.
Status make_async_connector(Connector* below, const ConnectorSettings& settings,
                            std::unique_ptr<Connector>* out);

// The arguments of Connector::extension(f, "async_wait", &args).
struct AsyncWaitArgs {
  double timeout_s = -1;  // < 0: no limit
  int pending = 0;        // out: operations left
};
// The arguments of Connector::extension(f, "async_concurrency", &args).
struct AsyncConcurrencyArgs {
  int file_now = 0;     // out: the file's tasks running now
  int file_max = 0;     // out: the most of the file's tasks that ran at once
  int process_max = 0;  // out: the same over the process's pool
};
// The arguments of Connector::extension(f, "async_error", &args).
struct AsyncErrorArgs {
  int index = 0;
  exa_async_error_info* info = nullptr;
};

}  // namespace exa::layer
