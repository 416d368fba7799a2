// Native connector: an independent put cut into three steps (extension
// "split_put", layer/connector.hpp SplitPut), so that a connector above
// (async) runs the I/O of several puts of one file at once:
//   plan   -- the checks, the plan, the file runs and a handle of its own
//             (a lane), under the caller's serialisation;
//   io     -- the writes, on explicit offsets through the lane: no state of
//             the file is read or changed, so I/O steps run beside each other;
//   finish -- numrecs, the lane given back, under the caller's serialisation.
// Only what needs no agreement and no conversion is split: an independent
// put, in data mode, of a classic file, of values already in the file's byte
// order (DataRequest::external_order or one-byte types), not compact, not
// SWMR, from contiguous memory. Everything else answers split = false and
// the caller makes the ordinary put.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "io/aggregate.hpp"
#include "io/mpi_errors.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"
#include "layer/native_plan.hpp"
#include "layer/put_range.hpp"

#include "exacdf.h"

namespace exa::layer {

namespace {

// exa_debug_concurrent_writes: the I/O steps of split puts running now in
// the process, and the most that ran at once since the last reset.
std::atomic<int> g_io_now{0}, g_io_peak{0};

struct IoStepCount {
  IoStepCount() {
    const int now = ++g_io_now;
    int seen = g_io_peak.load();
    while (now > seen && !g_io_peak.compare_exchange_weak(seen, now)) {
    }
  }
  ~IoStepCount() { --g_io_now; }
};

bool host_little_endian() {
  const uint16_t probe = 1;
  return *reinterpret_cast<const uint8_t*>(&probe) == 1;
}

// A put cut into more runs than this takes the ordinary path (one MPI call
// with a file type beats thousands of small writes).
constexpr size_t kMaxRuns = 1024;

// A free lane of the file (lane 0 is `indep`), opened on MPI_COMM_SELF with
// the file's hints when every open one is busy; its index, or -1 on error.
Status take_lane(NativeFile& nf, size_t* lane) {
  if (nf.lanes.empty()) {
    nf.lanes.emplace_back(nullptr);  // (lane 0: nf.indep)
    nf.lane_busy.push_back(false);
  }
  for (size_t k = 0; k < nf.lanes.size(); ++k)
    if (!nf.lane_busy[k]) {
      nf.lane_busy[k] = true;
      *lane = k;
      return Status::ok();
    }
  auto file = std::make_unique<io::MpiFile>();
  MPI_Info mpi_info = MPI_INFO_NULL;
  EXA_RETURN_IF_ERROR(io::to_mpi_info(nf.hints, &mpi_info));
  Status st = file->open(MPI_COMM_SELF, nf.path, nf.file.writable(), mpi_info);
  Status freed = io::free_info(&mpi_info);
  EXA_RETURN_IF_ERROR(st);
  EXA_RETURN_IF_ERROR(freed);
  nf.lanes.push_back(std::move(file));
  nf.lane_busy.push_back(true);
  *lane = nf.lanes.size() - 1;
  return Status::ok();
}

io::MpiFile& lane_file(NativeFile& nf, size_t lane) { return lane == 0 ? nf.indep : *nf.lanes[lane]; }

}  // namespace

int split_io_peak(bool reset) {
  const int peak = g_io_peak.load();
  if (reset) g_io_peak.store(g_io_now.load());
  return peak;
}

Status sync_lanes(NativeFile& nf) {
  Status st;
  for (size_t k = 1; k < nf.lanes.size(); ++k)
    if (nf.lanes[k] && nf.lanes[k]->writable() && nf.lanes[k]->has_unsynced_writes()) {
      Status s = nf.lanes[k]->sync();
      if (st.is_ok()) st = s;
    }
  return st;
}

Status close_lanes(NativeFile& nf) {
  Status st;
  for (size_t k = 1; k < nf.lanes.size(); ++k)
    if (nf.lanes[k]) {
      Status s = nf.lanes[k]->close();
      if (st.is_ok()) st = s;
    }
  nf.lanes.clear();
  nf.lane_busy.clear();
  return st;
}

void lane_counts(const NativeFile& nf, int64_t* written, int64_t* calls) {
  for (size_t k = 1; k < nf.lanes.size(); ++k)
    if (nf.lanes[k]) {
      *written += nf.lanes[k]->bytes_written();
      *calls += nf.lanes[k]->io_calls();
    }
}

// The plan step (the caller serialises it with every other call on the file).
Status split_put(NativeFile& nf, SplitPut* args) {
  args->split = false;
  const DataRequest& req = *args->req;
  if (req.collective || req.varn || req.imap != nullptr || req.buftype != MPI_DATATYPE_NULL || nf.partitioned ||
      nf.swmr != NativeFile::Swmr::kOff || !nf.indep_mode || nf.indep.handle() == MPI_FILE_NULL)
    return Status::ok();
  auto plan = std::make_shared<Plan>();
  if (!make_plan(nf, req, true, plan.get()).is_ok()) return Status::ok();  // (the ordinary put answers it)
  if (plan->compact || plan->nelems == 0 || plan->memtype != plan->xtype) return Status::ok();
  if (plan->geo.xsize > 1 && host_little_endian() && !req.external_order) return Status::ok();
  auto runs = std::make_shared<std::vector<io::Segment>>();
  if (io::flat_segments(plan->geo, plan->sel) > static_cast<int64_t>(kMaxRuns)) return Status::ok();
  io::flatten(plan->geo, plan->sel, static_cast<uint8_t*>(req.buf), runs.get());
  // Runs that follow one another in the file and in memory are one write.
  size_t kept = 0;
  for (size_t k = 0; k < runs->size(); ++k) {
    io::Segment& s = (*runs)[k];
    if (kept > 0) {
      io::Segment& last = (*runs)[kept - 1];
      if (last.offset + last.length == s.offset && last.data + last.length == s.data) {
        last.length += s.length;
        continue;
      }
    }
    (*runs)[kept++] = s;
  }
  runs->resize(kept);
  // The query engine's range notes of this buffer (none on a pool thread).
  if (convert::SegmentedRange* range = put_range_for(req.varid, req.buf))
    range->add_native(req.buf, plan->xtype, plan->nelems);
  size_t lane = 0;
  EXA_RETURN_IF_ERROR(take_lane(nf, &lane));
  io::MpiFile* file = &lane_file(nf, lane);
  args->split = true;
  args->io = [file, runs] {
    IoStepCount counted;
    if (io::take_injected_write_failure()) return Status{NC_EWRITE, "write failed (injected by exa_debug_fail_write)"};
    for (const io::Segment& s : *runs)
      EXA_RETURN_IF_ERROR(file->write_at(s.offset, s.data, s.length, /*injectable=*/false));
    return Status::ok();
  };
  NativeFile* f = &nf;
  const int varid = req.varid;
  args->finish = [f, plan, lane, varid](const Status& io_st) {
    f->lane_busy[lane] = false;
    Status recs = update_numrecs(*f, false, io_st.is_ok() ? records_reached(*plan) : 0, agrees_numrecs(*f, varid), io_st);
    return io_st.is_ok() ? recs : io_st;
  };
  return Status::ok();
}

}  // namespace exa::layer
