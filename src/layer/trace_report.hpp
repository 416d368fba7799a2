// The trace connector's report: at close every rank's FileTrace is reduced
// (counter sums with MPI_Reduce, per-rank totals, common values and time
// lines with MPI_Gather/Gatherv on the file's own duplicated communicator)
// and rank 0 writes DIR/<basename>.<jobid-or-pid>.trace.json (".2", ".3"...
// before ".trace.json" when that name exists).
//
// Schema "exacdf-trace-1" (times in seconds, bytes as stored in the file):
//   schema, file (path as opened), nprocs, below (the connector under trace),
//   written_unix, duration_s (longest rank, open to close), failed_calls (calls that
//             returned an error, and posts that named no variable),
//   totals    {bytes_written, bytes_read, data_time_s, wait_time_s, meta_time_s, io_calls}
//             io_calls: MPI-IO reads/writes made underneath (FileFacts::io_calls), each
//             credited to the traced call during which it happened (the I/O of an
//             uncounted prepare_collective goes to the data call it prepares)
//   kinds     {"<op>_<shape>": {calls, collective, independent, bytes, time_s, io_calls}}
//             op: put get iput iget bput; shape: var1 vara vars varm varn vard
//             (var1 = a vara of one element, so put_var1 and put_var of a scalar alike;
//              var = vara of the whole variable; a blocking varn is put/get_varn and
//              includes its wait; mput/mget are iput/iget and a wait; posts count as
//              independent: their wait says how they completed)
//   waits     {calls, collective, requests, time_s, io_calls}
//   metadata  {"<call>": {calls, time_s, io_calls}}   (inq_dataset, inq_facts, prepare_collective,
//             check_data: calls only, the API makes them on every data call)
//   size_bins {edges: [10 labels], read: [10], write: [10]}   Darshan's bins
//   common_sizes, common_strides: [[value, count], ...] up to 4, most common first
//             stride: start of an access minus the end of the previous one on that variable
//   sequential {reads, writes}, consecutive {reads, writes}   Darshan's definitions, per
//             variable in its row-major byte space, summed
//   ranks     {fastest: {rank, bytes, time_s}, slowest: {...},
//              per_rank: [{rank, bytes, time_s, meta_time_s, events, dropped_events}]}
//             time_s: data calls + waits on that rank
//   variables [{id, name, totals, kinds, size_bins, common_sizes, common_strides,
//              sequential, consecutive, fastest, slowest}]  (only variables accessed)
//   timeline  {cap_per_rank, ranks: [{rank, dropped, events: [[start_s, end_s, "kind", varid, bytes]]}]}
//             start/end from that rank's create/open; kind "put_vara"..., "wait", or a metadata name
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "layer/trace_recorder.hpp"
#include "util/status.hpp"

namespace exa::layer {

struct ReportContext {
  std::string dir;
  std::string path;
  std::string below;
  std::vector<std::string> var_names;  // by id
  size_t event_cap = 0;
};

// Collective on comm. Every rank returns rank 0's outcome of the write.
Status write_trace_report(MPI_Comm comm, const trace::FileTrace& t, const ReportContext& ctx);

}  // namespace exa::layer
