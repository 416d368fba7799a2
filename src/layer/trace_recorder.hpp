// What the trace connector records on one rank for one open file, and the
// cheap per-call updates (no allocation beyond amortized vector growth, no
// locks: a file is used by one thread at a time). Reduced across ranks and
// written as JSON at close by trace_report.
#pragma once

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <vector>

namespace exa::layer::trace {

// put/get/iput/iget/bput x var1/vara/vars/varm/varn/vard.
enum Op : uint8_t { kPut, kGet, kIput, kIget, kBput };
enum Shape : uint8_t { kVar1, kVara, kVars, kVarm, kVarn, kVard };
constexpr int kNumOps = 5, kNumShapes = 6;
inline constexpr const char* kOpNames[kNumOps] = {"put", "get", "iput", "iget", "bput"};
inline constexpr const char* kShapeNames[kNumShapes] = {"var1", "vara", "vars", "varm", "varn", "vard"};
inline bool is_write(Op op) { return op != kGet && op != kIget; }

// The non-data calls, each counted and timed (dataset/facts/inquire only counted:
// the API asks them on every call, a clock read there would cost more than they do).
enum Meta : uint8_t {
  kCreate, kOpen, kEnddef, kRedef, kSync, kFlush, kSyncNumrecs, kBeginIndep, kEndIndep, kClose,
  kAbort, kSetFill, kFillVarRec, kFileInfo, kDefDim, kDefVar, kDefVarFill, kRenameDim, kRenameVar,
  kPutAtt, kDelAtt, kRenameAtt, kGetAtt, kDataset, kFacts, kInqNreqs, kCancel, kBufferAttach,
  kBufferDetach, kBufferUsage, kPrepareCollective, kCheckData, kRefresh, kInquire, kNumMeta
};
inline constexpr const char* kMetaNames[kNumMeta] = {
    "create", "open", "enddef", "redef", "sync", "flush", "sync_numrecs", "begin_indep", "end_indep",
    "close", "abort", "set_fill", "fill_var_rec", "file_info", "def_dim", "def_var", "def_var_fill",
    "rename_dim", "rename_var", "put_att", "del_att", "rename_att", "get_att", "inq_dataset",
    "inq_facts", "inq_nreqs", "cancel", "buffer_attach", "buffer_detach", "buffer_usage",
    "prepare_collective", "check_data", "refresh", "inquire"};

// Darshan's ten access-size bins: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M,
// 1M-4M, 4M-10M, 10M-100M, 100M-1G, 1G+ (lower bound inclusive).
constexpr int kNumBins = 10;
inline int size_bin(int64_t bytes) {
  constexpr int64_t kUpper[kNumBins - 1] = {100, 1024, 10240, 102400, 1048576, 4194304,
                                            10485760, 104857600, 1073741824};
  for (int i = 0; i < kNumBins - 1; ++i)
    if (bytes < kUpper[i]) return i;
  return kNumBins - 1;
}

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct KindCounters {
  int64_t calls = 0, collective = 0, bytes = 0, time_ns = 0, io_calls = 0;
};

// Counts of values (access sizes, strides) in a fixed open-addressed table:
// the first kSlots distinct values are counted exactly, later new ones only
// in `untracked` (Darshan keeps a bounded tree the same way).
class ValueCounter {
 public:
  static constexpr int kSlots = 64;
  void add(int64_t v) {
    uint64_t h = (static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ULL) >> 58;  // 6 bits
    for (int i = 0; i < kSlots; ++i) {
      auto& s = slots_[(h + i) % kSlots];
      if (s.count != 0 && s.value == v) { ++s.count; return; }
      if (s.count == 0) { s.value = v; s.count = 1; return; }
    }
    ++untracked_;
  }
  struct Slot { int64_t value = 0; int64_t count = 0; };
  const std::array<Slot, kSlots>& slots() const { return slots_; }
  int64_t untracked() const { return untracked_; }

 private:
  std::array<Slot, kSlots> slots_{};
  int64_t untracked_ = 0;
};

struct VarTrace {
  bool touched = false;
  bool geometry = false;       // elsize/row_bytes known
  int64_t elsize = 0;          // bytes of one element in the file
  std::vector<int64_t> row_bytes;  // bytes between neighbours along each dimension (row-major)
  KindCounters kinds[kNumOps][kNumShapes];
  int64_t read_bins[kNumBins] = {}, write_bins[kNumBins] = {};
  ValueCounter sizes, strides;
  // Darshan's definitions, in the variable's row-major byte space: an access
  // is consecutive when it starts where the previous one (same direction)
  // ended, sequential when it starts there or later.
  int64_t seq_reads = 0, seq_writes = 0, consec_reads = 0, consec_writes = 0;
  int64_t last_read_end = -1, last_write_end = -1, last_end = -1;
};

struct MetaCounters {
  int64_t calls = 0, time_ns = 0, io_calls = 0;
};

struct WaitCounters {
  int64_t calls = 0, collective = 0, requests = 0, time_ns = 0, io_calls = 0;
};

// One operation on the time line. code: op * kNumShapes + shape for data
// calls, kWaitCode for waits, kMetaCode + meta for the rest.
struct Event {
  int64_t start_ns, end_ns, bytes;
  int32_t varid;
  int32_t code;
};
constexpr int32_t kWaitCode = kNumOps * kNumShapes;
constexpr int32_t kMetaCode = kWaitCode + 1;

struct FileTrace {
  int64_t origin_ns = 0;  // when create/open began on this rank: event times are relative to it
  std::vector<VarTrace> vars;  // by variable id, grown on first access
  MetaCounters meta[kNumMeta];
  WaitCounters waits;
  int64_t failed_calls = 0;
  int64_t failed_io_calls = 0;  // MPI-IO calls made by data calls that failed
  std::vector<Event> events;
  size_t event_cap = 0;
  int64_t dropped_events = 0;

  VarTrace& var(int varid) {
    if (static_cast<size_t>(varid) >= vars.size()) vars.resize(static_cast<size_t>(varid) + 1);
    return vars[static_cast<size_t>(varid)];
  }
  void add_event(int64_t start, int64_t end, int64_t bytes, int32_t varid, int32_t code) {
    if (events.size() < event_cap)
      events.push_back(Event{start - origin_ns, end - origin_ns, bytes, varid, code});
    else
      ++dropped_events;
  }
  // Where one access went, in the variable's byte space: [begin, end).
  void record_access(VarTrace& v, bool write, int64_t bytes, int64_t begin, int64_t end) {
    (write ? v.write_bins : v.read_bins)[size_bin(bytes)]++;
    v.sizes.add(bytes);
    if (begin < 0) return;  // no geometry (vard) or nothing accessed
    if (v.last_end >= 0) v.strides.add(begin - v.last_end);
    v.last_end = end;
    int64_t& last = write ? v.last_write_end : v.last_read_end;
    if (last >= 0 && begin >= last) {
      ++(write ? v.seq_writes : v.seq_reads);
      if (begin == last) ++(write ? v.consec_writes : v.consec_reads);
    }
    last = end;
  }
};

}  // namespace exa::layer::trace
