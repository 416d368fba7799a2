// Native connector: data calls. A request becomes an access plan (one MPI
// file type) and a memory plan (contiguous, or one MPI datatype), values are
// converted to and from external form, and one MPI-IO call moves them. A
// collective read of the same region on every rank is read once and
// broadcast (seed 004).
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "convert/external.hpp"
#include "format/layout.hpp"
#include "io/access_plan.hpp"
#include "io/direct_write.hpp"
#include "io/header_io.hpp"
#include "io/memory_plan.hpp"
#include "io/mpi_errors.hpp"
#include "io/packed_two_phase.hpp"
#include "io/record_view.hpp"
#include "io/type_runs.hpp"
#include "layer/native_connector.hpp"
#include "layer/native_internal.hpp"
#include "layer/native_plan.hpp"
#include "layer/put_range.hpp"

namespace exa::layer {

namespace {

// The file's scratch buffer for one call: grown as needed, never zeroed, and
// released afterwards when it got large, so a big request does not pin memory.
class ScratchLease {
 public:
  ScratchLease(NativeFile& nf, int64_t bytes) : nf_(nf) {
    if (nf_.scratch.size() < static_cast<size_t>(bytes)) nf_.scratch.resize(static_cast<size_t>(bytes));
  }
  ~ScratchLease() {
    constexpr size_t kKeep = size_t{256} << 20;
    if (nf_.scratch.capacity() > kKeep) ByteBuffer().swap(nf_.scratch);
  }
  uint8_t* data() { return nf_.scratch.data(); }

 private:
  NativeFile& nf_;
};

bool host_little_endian() {
  const uint16_t probe = 1;
  return *reinterpret_cast<const uint8_t*>(&probe) == 1;
}

// Whether a put of this many bytes swaps the caller's buffer in place.
bool swap_in_place(const NativeFile& nf, int64_t bytes) {
  switch (nf.hints.in_place_swap) {
    case io::Hints::InPlaceSwap::kEnable: return true;
    case io::Hints::InPlaceSwap::kDisable: return false;
    case io::Hints::InPlaceSwap::kAuto: break;
  }
  return bytes >= io::kInPlaceSwapMin;
}

// A digest of what a rank selects; ranks that failed get one nobody else has.
// The variable enters by its place in the file, not its id: in independent
// define mode one id names different variables on different ranks.
uint64_t selection_digest(const NativeFile& nf, const DataRequest& req, const Plan& plan, bool ok,
                          int rank) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ULL; };
  if (nf.ds.valid_var(req.varid)) {
    const auto& var = nf.ds.var(req.varid);
    mix(var.begin);
    mix(var.type);
  }
  for (size_t k = 0; k < plan.sel.start.size(); ++k) {
    mix(plan.sel.start[k]);
    mix(plan.sel.count[k]);
    mix(plan.sel.stride.empty() ? 1 : plan.sel.stride[k]);
  }
  if (!ok) mix(-1 - rank);
  return h;
}

// Whether every rank of a collective get selected the same region and it is
// to be read once and broadcast. One allreduce, on every rank, only when the
// hint asks for it (exa_bcast_read=enable): a collective get costs no MPI
// call beyond its MPI-IO otherwise (auto: as disable).
Status read_once_and_broadcast(NativeFile& nf, const DataRequest& req, const Plan& plan, bool ok,
                              bool* once) {
  *once = false;
  if (!req.collective || nf.file.nprocs() == 1) return Status::ok();
  if (nf.hints.bcast_read != io::Hints::BcastRead::kEnable) return Status::ok();
  uint64_t h = selection_digest(nf, req, plan, ok, nf.file.rank());
  uint64_t v[2] = {h, ~h};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MAX, nf.comm())));
  *once = v[0] == ~v[1];
  return Status::ok();
}

// Rank 0 reads; the outcome travels with the data, so small reads cost one
// broadcast (larger ones: the first piece carries it, the rest follow).
Status broadcast_read(NativeFile& nf, const DataRequest& req, const Plan& plan, void* external) {
  const int64_t bytes = plan.xbytes();
  constexpr int64_t kPiece = INT_MAX - 8;
  std::vector<uint8_t> first(static_cast<size_t>(std::min(bytes, kPiece)) + sizeof(int));
  Status st;
  if (nf.file.rank() == 0) {
    DataRequest alone = req;
    alone.collective = false;
    st = open_indep_handle(nf);
    if (st.is_ok()) st = transfer_planned(nf, alone, plan, false, external, bytes);
    int code = st.code();
    std::memcpy(first.data(), &code, sizeof code);
    std::memcpy(first.data() + sizeof code, external, first.size() - sizeof code);
  }
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Bcast(first.data(), static_cast<int>(first.size()), MPI_BYTE, 0, nf.comm())));
  int code = NC_NOERR;
  std::memcpy(&code, first.data(), sizeof code);
  if (code != NC_NOERR) return st.is_ok() ? Status{code, "read failed on rank 0"} : st;
  if (nf.file.rank() != 0)
    std::memcpy(external, first.data() + sizeof code, first.size() - sizeof code);
  auto* p = static_cast<char*>(external);
  for (int64_t off = kPiece; off < bytes; off += kPiece)
    EXA_RETURN_IF_ERROR(EXA_MPI(
        MPI_Bcast(p + off, static_cast<int>(std::min(bytes - off, kPiece)), MPI_BYTE, 0, nf.comm())));
  return Status::ok();
}

// A put written directly (io/direct_write.hpp): its values converted a slice
// at a time into the file's scratch, which stays small, cache-resident and
// already faulted in. A collective put takes part in the collective MPI-IO
// call with nothing first (that call leaves this rank's view bytes from 0, and
// counts the write for exa_debug_fail_write); then this rank writes its runs.
// Errors travel as on the usual path: numrecs' allreduce carries them for a
// record variable.
// With `own` (every rank of a collective put agreed to write its own run,
// choose_two_phase) there is no collective MPI-IO call: every rank restores
// the byte view (collective, an MPI call only after a data view) and writes
// its run, if any; values already in external form (`as_is`) go straight from
// the caller's buffer.
Status put_direct(NativeFile& nf, const DataRequest& req, const Plan& plan, const void* native_values,
                  const std::vector<io::Segment>& runs, convert::SegmentedRange* range, bool own = false,
                  bool as_is = false) {
  io::MpiFile& file = handle_for(nf, req.collective);
  Status io_st;
  if (own) {
    io_st = file.use_byte_view();
    if (io_st.is_ok() && !runs.empty() && io::take_injected_write_failure())
      io_st = {NC_EWRITE, "write failed (injected by exa_debug_fail_write)"};
  } else if (req.collective) {
    io_st = io::transfer(file, io::VarGeometry{}, io::Selection{}, true, true, nullptr, 0);
  } else {
    io_st = file.use_byte_view();  // (a handle of this rank alone: no collective call)
    if (io_st.is_ok() && io::take_injected_write_failure())
      io_st = {NC_EWRITE, "write failed (injected by exa_debug_fail_write)"};
  }
  ScratchLease stage(nf, as_is || runs.empty() ? 0 : io::kDirectStageBytes);
  const int64_t nsize = convert::native_size(plan.memtype), xsize = plan.geo.xsize;
  Status erange;  // NC_ERANGE of some slice: reported, its bytes written (as the usual path)
  auto produce = [&](int64_t at, int64_t n, uint8_t* out) {
    const auto* in = static_cast<const uint8_t*>(native_values) + at / xsize * nsize;
    if (plan.memtype == plan.xtype) {
      // One pass from the caller's values into the slice: the byte-shuffle
      // swapping copy, taking the range (when asked) from the same loads.
      // It beats memcpy + the swap in place by about a third, with or without
      // the range (bench/range_pass_cost.cpp "stage", docs/perf/query_minmax.md);
      // memcpy + the SSE2 swap where there is no byte shuffle (SSE2 alone).
      if (range != nullptr) {
        range->swap_out(in, out, plan.xtype, n / xsize);
      } else if (!convert::swap_bytes_copy(in, out, xsize, n / xsize)) {
        std::memcpy(out, in, static_cast<size_t>(n));
        convert::swap_to_external_in_place(out, plan.xtype, n / xsize, nullptr);
      }
      return Status::ok();
    }
    Status c = convert::to_external(in, plan.memtype, plan.xtype, n / xsize, out, plan.cdf5, plan.erange, range);
    if (c.code() != NC_ERANGE) return c;
    if (erange.is_ok()) erange = c;
    return Status::ok();
  };
  if (io_st.is_ok() && as_is) {
    if (range != nullptr) range->add_native(native_values, plan.xtype, plan.nelems);
    int64_t at = 0;
    for (const io::Segment& run : runs) {
      io_st = file.write_at(run.offset, static_cast<const uint8_t*>(native_values) + at, run.length, false);
      if (!io_st.is_ok()) break;
      at += run.length;
    }
  } else if (io_st.is_ok()) {
    io_st = io::write_runs_staged(file, runs, xsize, produce, stage.data());
  }
  Status recs = update_numrecs(nf, req.collective, io_st.is_ok() ? records_reached(plan) : 0,
                               agrees_numrecs(nf, req.varid), io_st);
  if (!io_st.is_ok()) return io_st;
  if (!recs.is_ok()) return recs;
  return erange;
}

// Whether a collective put or get moves through exacdf's own two-phase
// (io/packed_two_phase.hpp): pieces of many small runs, on several ranks of a
// classic file; or, for a put, whether every rank writes its own piece alone
// ("own": each rank's piece one contiguous run of the file, none
// overlapping, as FLASH-IO's blocks: no MPI-IO collective call, no file view,
// no exchange). Every rank of the collective call votes in one allgather,
// only where one of the paths can apply (by the header and hints alone, the
// same on every rank); a rank whose piece is neither (large runs, the direct
// path's; record pieces; a compact variable) votes against, and then every
// rank keeps its usual path. One rank decides alone.
struct TwoPhaseChoice {
  bool use = false;               // the two-phase
  bool own = false;               // every rank its own run
  int64_t lo = 0, hi = 0;         // the union of every rank's extents
  std::vector<io::Segment> runs;  // this rank's runs, packed order
};

// Bytes of the file's largest variable (one record's of a record variable).
int64_t largest_variable(const NativeFile& nf) {
  const format::Header& h = nf.ds.header();
  const int rec = format::record_dim(h);
  int64_t most = 0;
  for (const format::Variable& v : h.vars) most = std::max(most, format::var_bytes(h, v, format::is_record_var(v, rec)));
  return most;
}

Status choose_two_phase(NativeFile& nf, const DataRequest& req, const Plan& plan, bool ok, bool takes_part,
                        bool put, TwoPhaseChoice* c) {
  const io::OwnTwoPhase mode = io::own_two_phase_hint(nf.hints);
  const io::DirectPut direct = io::direct_put_hint(nf.hints);
  const int nprocs = nf.file.nprocs();
  if (!req.collective || !takes_part || nf.partitioned) return Status::ok();
  // auto takes pieces of at least kDirectMinBytes: a file whose data (its
  // fixed-size variables and one record, the same on every rank) is smaller
  // holds none (but records written many at a time), so it makes no vote:
  // small files keep PnetCDF's count of collective calls (test_collective_call_count).
  const format::Layout& layout = nf.ds.layout();
  const bool small_file = layout.begin_rec + layout.recsize < io::kDirectMinBytes;
  // Nor the two-phase in a file whose largest variable (one record of a
  // record variable) is under kDirectMinBytes per rank: disjoint pieces of it
  // average under the least piece auto takes (FLASH-IO's blocks at 4 and 8
  // ranks: docs/perf/data_direct.md section 7). Every rank reads the same
  // header, so all decide alike, whatever variable each one names.
  const bool two_phase = nprocs > 1 && mode != io::OwnTwoPhase::kDisable &&
                         !(mode == io::OwnTwoPhase::kAuto &&
                           (small_file || largest_variable(nf) < io::kDirectMinBytes * nprocs));
  // Own writes: puts, where the direct path is not disabled (auto: not in a
  // small file, whatever the piece's size: one run a rank is always the
  // direct path's shape).
  const bool own = put && direct != io::DirectPut::kDisable && !(direct == io::DirectPut::kAuto && small_file);
  if (!two_phase && !own) return Status::ok();
  io::TwoPhaseVote vote = io::TwoPhaseVote::kNothing;
  int64_t lo = 0, hi = 0;
  const int64_t xbytes = plan.xbytes();
  if (ok && plan.nelems > 0) {
    vote = io::TwoPhaseVote::kOther;
    // auto: from the direct path's least size, runs shorter than its least run
    // on average (the pieces it does not take); enable: any piece.
    const bool sized = mode == io::OwnTwoPhase::kEnable || xbytes >= io::kDirectMinBytes;
    if (!plan.compact && io::plan_direct_runs(plan.geo, plan.sel, xbytes, io::DirectPut::kEnable, &c->runs)) {
      if (two_phase && sized && xbytes <= INT_MAX / nprocs &&
          (mode == io::OwnTwoPhase::kEnable || static_cast<int64_t>(c->runs.size()) > xbytes / io::kDirectMinRun))
        vote = io::TwoPhaseVote::kSmallRuns;
      else if (own && c->runs.size() == 1)
        vote = io::TwoPhaseVote::kOneRun;
    }
    if (vote == io::TwoPhaseVote::kOther) {
      c->runs.clear();
    } else {
      lo = c->runs.front().offset;
      hi = c->runs.back().offset + c->runs.back().length;
    }
  }
  if (nprocs == 1) {
    c->own = vote == io::TwoPhaseVote::kOneRun;
    return Status::ok();
  }
  io::PathAgreement agreed;
  EXA_RETURN_IF_ERROR(io::agree_two_phase(nf.comm(), vote, lo, hi, &agreed));
  c->use = agreed.two_phase;
  c->own = agreed.own;
  c->lo = agreed.lo;
  c->hi = agreed.hi;
  return Status::ok();
}

// A put through the two-phase: every rank takes part, with nothing after a
// failed conversion or an injected failure (exa_debug_fail_write, one per put).
Status put_two_phase(NativeFile& nf, const TwoPhaseChoice& tp, const uint8_t* external, int64_t xbytes) {
  static const std::vector<io::Segment> kNone;
  const bool fail = xbytes > 0 && io::take_injected_write_failure();
  Status st = io::write_packed_two_phase(nf.comm(), nf.file, xbytes > 0 && !fail ? tp.runs : kNone, external,
                                         tp.lo, tp.hi, io::two_phase_round_hint(nf.hints));
  if (fail && st.is_ok()) st = {NC_EWRITE, "write failed (injected by exa_debug_fail_write)"};
  return st;
}

// A get read directly (io/direct_write.hpp): slices of the runs read into the
// caller's buffer (contiguous) and swapped there while in the cache, or, for
// another type, read into the file's scratch and converted from there. A
// collective get takes part in the collective MPI-IO call with nothing first,
// which leaves this rank's view bytes from 0.
Status get_direct(NativeFile& nf, const DataRequest& req, const Plan& plan, const std::vector<io::Segment>& runs) {
  io::MpiFile& file = handle_for(nf, req.collective);
  Status io_st = req.collective ? io::transfer(file, io::VarGeometry{}, io::Selection{}, false, true, nullptr, 0)
                                : file.use_byte_view();  // (a handle of this rank alone)
  auto* into = plan.memtype == plan.xtype ? static_cast<uint8_t*>(req.buf) : nullptr;
  ScratchLease stage(nf, into != nullptr ? 0 : io::kDirectStageBytes);
  const int64_t nsize = convert::native_size(plan.memtype), xsize = plan.geo.xsize;
  Status erange;  // NC_ERANGE of some slice: reported, every value converted
  auto consume = [&](int64_t at, int64_t n, uint8_t* in) {
    auto* out = static_cast<uint8_t*>(req.buf) + at / xsize * nsize;
    if (plan.memtype == plan.xtype) {  // read into place, swapped while in the cache
      convert::swap_bytes_in_place(in, xsize, n / xsize);
      return Status::ok();
    }
    Status c = convert::from_external(in, plan.xtype, plan.memtype, n / xsize, out, plan.cdf5, plan.erange);
    if (c.code() != NC_ERANGE) return c;
    if (erange.is_ok()) erange = c;
    return Status::ok();
  };
  if (io_st.is_ok()) io_st = io::read_runs_staged(file, runs, xsize, consume, stage.data(), into);
  EXA_RETURN_IF_ERROR(io_st);
  return erange;
}

}  // namespace

Status NativeConnector::check_data(FileState& f, const DataRequest& req, bool put, bool call_only) {
  auto& nf = native(f);
  if (call_only) return check_call(nf, req, put, /*data_mode=*/true);
  if (req.varn) return check_varn(nf, req, put);
  Plan plan;
  return make_plan(nf, req, put, &plan);
}

// A failure shows later, on the ranks that use the variable.
void NativeConnector::prepare_collective(FileState& f, int varid) {
  auto& nf = native(f);
  if (!nf.indep_mode) (void)share_blocks_of_var(nf, varid);
}

Status NativeConnector::put(FileState& f, const DataRequest& req) {
  auto& nf = native(f);
  Plan plan;
  Status st = make_plan(nf, req, true, &plan);
  bool takes_part = req.collective && !nf.define_mode && !nf.indep_mode;
  if (!st.is_ok() && !takes_part) return st;
  io::MemoryPlan mem;
  if (st.is_ok()) st = mem.build(req.buf, req.buftype, req.bufcount, plan.memtype, plan.sel, req.imap);
  const void* native_values = req.buf;
  ByteBuffer gathered;
  if (st.is_ok() && !mem.contiguous() && plan.nelems > 0) {
    st = mem.gather(&gathered, plan.nelems * convert::native_size(plan.memtype));
    native_values = gathered.data();
  }
  if (!st.is_ok()) plan = Plan{};  // take part in the collective call with nothing
  // Values already in their external type need no staging copy: bytes go out
  // as they are, wider types are swapped in the caller's buffer and swapped
  // back afterwards (as PnetCDF does; hint nc_in_place_swap).
  bool same_type = st.is_ok() && plan.nelems > 0 && plan.memtype == plan.xtype;
  bool as_is = same_type && (plan.geo.xsize == 1 || !host_little_endian() || req.external_order);
  // Converted values of a piece of a few large runs go to the file straight
  // from a small staging buffer (hint exa_direct_put).
  TwoPhaseChoice tp;
  EXA_RETURN_IF_ERROR(choose_two_phase(nf, req, plan, st.is_ok(), takes_part, true, &tp));
  if (tp.own) {  // every rank writes its own run (or nothing): no collective MPI-IO call
    const bool has = st.is_ok() && plan.nelems > 0;
    Status moved = put_direct(nf, req, plan, native_values, has ? tp.runs : std::vector<io::Segment>{},
                              has ? put_range_for(req.varid, req.buf) : nullptr, true, as_is);
    return st.is_ok() ? moved : st;
  }
  std::vector<io::Segment> runs;
  if (!tp.use && st.is_ok() && plan.nelems > 0 && !as_is && !plan.compact && !nf.partitioned &&
      io::plan_direct_runs(plan.geo, plan.sel, plan.xbytes(), io::direct_put_hint(nf.hints), &runs))
    return put_direct(nf, req, plan, native_values, runs, put_range_for(req.varid, req.buf));
  bool in_place = same_type && !as_is && swap_in_place(nf, plan.xbytes());
  ScratchLease scratch(nf, as_is || in_place ? 0 : plan.xbytes());
  uint8_t* external = as_is || in_place ? static_cast<uint8_t*>(const_cast<void*>(native_values))
                                        : scratch.data();
  Status converted = Status::ok();
  // The values' range, in the same pass, when the api layer asks for it
  // (for the caller's buffer: a flexible put's values gathered from it too).
  convert::SegmentedRange* range = st.is_ok() && plan.nelems > 0 ? put_range_for(req.varid, req.buf) : nullptr;
  if (in_place)
    convert::swap_to_external_in_place(external, plan.xtype, plan.nelems, range);
  else if (plan.nelems > 0 && !as_is)
    converted = convert::to_external(native_values, plan.memtype, plan.xtype, plan.nelems,
                                     external, plan.cdf5, plan.erange, range);
  else if (range != nullptr)
    range->add_native(native_values, plan.xtype, plan.nelems);  // (bytes, or a big-endian host)
  int64_t xbytes = plan.xbytes();
  if (!converted.is_ok() && converted.code() != NC_ERANGE) {
    st = converted;
    xbytes = 0;
  }
  Status io_st = tp.use ? put_two_phase(nf, tp, external, xbytes)
                        : transfer_planned(nf, req, plan, true, external, xbytes);
  if (in_place) convert::swap_bytes_in_place(external, plan.geo.xsize, plan.nelems);
  if (st.is_ok()) st = io_st;
  Status recs = update_numrecs(nf, req.collective, st.is_ok() ? records_reached(plan) : 0,
                               agrees_numrecs(nf, req.varid), io_st);
  if (!st.is_ok()) return st;
  if (!recs.is_ok()) return recs;
  return converted;
}

// An SWMR reader reads only a view younger than the refresh bound: space of
// older generations may be reused by then (docs/format.md, "SWMR").
Status check_view_age(const NativeFile& nf) {
  if (nf.swmr != NativeFile::Swmr::kRead || nf.hints.swmr_refresh_bound <= 0) return Status::ok();
  const std::chrono::duration<double> age = std::chrono::steady_clock::now() - nf.refreshed_at;
  if (age.count() <= nf.hints.swmr_refresh_bound) return Status::ok();
  return {NC_ECANTREAD, "SWMR reader: the generation in view is older than exa_swmr_refresh_bound (" +
                            std::to_string(nf.hints.swmr_refresh_bound) + " s); call exa_refresh"};
}

Status NativeConnector::get(FileState& f, const DataRequest& req) {
  auto& nf = native(f);
  Plan plan;
  Status st = make_plan(nf, req, false, &plan);
  if (st.is_ok()) st = check_view_age(nf);
  bool takes_part = req.collective && !nf.define_mode && !nf.indep_mode;
  if (!st.is_ok() && !takes_part) return st;
  io::MemoryPlan mem;
  if (st.is_ok()) st = mem.build(req.buf, req.buftype, req.bufcount, plan.memtype, plan.sel, req.imap);
  if (!st.is_ok()) plan = Plan{};
  // Same type, contiguous: read straight into the caller's buffer and swap there.
  bool in_place = st.is_ok() && mem.contiguous() && plan.memtype == plan.xtype && plan.nelems > 0;
  bool once = false;
  Status io_st = read_once_and_broadcast(nf, req, plan, st.is_ok(), &once);
  // Values that need converting, of a piece of a few large runs, come
  // through a small staging buffer (hint exa_direct_put).
  TwoPhaseChoice tp;
  if (io_st.is_ok() && !once) io_st = choose_two_phase(nf, req, plan, st.is_ok(), takes_part, false, &tp);
  std::vector<io::Segment> runs;
  const bool converts = plan.memtype != plan.xtype || (plan.geo.xsize > 1 && host_little_endian());
  if (io_st.is_ok() && !once && !tp.use && st.is_ok() && plan.nelems > 0 && mem.contiguous() && converts &&
      !plan.compact && !nf.partitioned &&
      io::plan_direct_runs(plan.geo, plan.sel, plan.xbytes(), io::direct_put_hint(nf.hints), &runs))
    return get_direct(nf, req, plan, runs);
  ScratchLease staging(nf, in_place ? 0 : plan.xbytes());
  void* external = in_place ? req.buf : staging.data();
  if (io_st.is_ok())
    io_st = once     ? broadcast_read(nf, req, plan, external)
            : tp.use ? io::read_packed_two_phase(nf.comm(), nf.file, tp.runs, static_cast<uint8_t*>(external),
                                                 tp.lo, tp.hi, io::two_phase_round_hint(nf.hints))
                     : transfer_planned(nf, req, plan, false, external, plan.xbytes());
  if (!st.is_ok()) return st;
  EXA_RETURN_IF_ERROR(io_st);
  if (plan.nelems == 0) return Status::ok();
  if (mem.contiguous())
    return convert::from_external(external, plan.xtype, plan.memtype, plan.nelems, req.buf,
                                  plan.cdf5, plan.erange);
  ByteBuffer native_values(static_cast<size_t>(plan.nelems * convert::native_size(plan.memtype)));
  Status converted =
      convert::from_external(external, plan.xtype, plan.memtype, plan.nelems,
                             native_values.data(), plan.cdf5, plan.erange);
  if (!converted.is_ok() && converted.code() != NC_ERANGE) return converted;
  EXA_RETURN_IF_ERROR(mem.scatter(native_values.data(), static_cast<int64_t>(native_values.size())));
  return converted;
}

}  // namespace exa::layer

namespace exa::layer {

namespace {

// What one vard call moves on this rank: elements, their memory type, and the
// memory layout (bufcount of buftype; contiguous when buftype is null).
struct VardShape {
  int64_t nelems = 0;
  nc_type memtype = NC_NAT;
  MPI_Datatype buftype = MPI_DATATYPE_NULL;
  int64_t bufcount = 0;
  MPI_Aint lb = 0, extent = 0;  // the file type's true extent (numrecs of a put)
};

// PnetCDF 1.12.3's checks of vard's arguments, in its order. A null file
// type, a file type of no bytes, or bufcount 0 with a buffer type move
// nothing. The file type's elements must all be the variable's type; the
// buffer's may be any one convertible type, as many as the file type selects.
Status vard_shape(const format::Variable& var, MPI_Datatype filetype, MPI_Offset bufcount,
                  MPI_Datatype buftype, VardShape* out) {
  out->memtype = var.type;
  out->buftype = buftype;
  if (filetype == MPI_DATATYPE_NULL) return Status::ok();
  if (bufcount == 0 && buftype != MPI_DATATYPE_NULL) return Status::ok();
  MPI_Count fsize = 0;
  EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Type_size_x(filetype, &fsize), io::MpiOp::kOther, "MPI_Type_size_x"));
  if (fsize == 0) return Status::ok();
  if (fsize == MPI_UNDEFINED || fsize < 0) return {NC_EINTOVERFLOW, "the file type's size overflows"};
  EXA_RETURN_IF_ERROR(io::from_mpi(MPI_Type_get_true_extent(filetype, &out->lb, &out->extent),
                                   io::MpiOp::kOther, "MPI_Type_get_true_extent"));
  nc_type ftype = NC_NAT;
  int64_t per = 0;
  EXA_RETURN_IF_ERROR(io::element_type_of(filetype, &ftype, &per));
  if (ftype != var.type)
    return {NC_ETYPE_MISMATCH, "the file type's elements are not of the variable's type"};
  const int64_t nelems = int64_t(fsize) / format::external_size(var.type);
  if (buftype == MPI_DATATYPE_NULL) {
    // The buffer holds the variable's own type, contiguous, as many elements
    // as the file type selects (bufcount is ignored).
    out->bufcount = nelems;
    out->nelems = nelems;
    return Status::ok();
  }
  EXA_RETURN_IF_ERROR(io::element_type_of(buftype, &out->memtype, &per));
  EXA_RETURN_IF_ERROR(convert::check_convertible(out->memtype, var.type));
  if (bufcount * per != nelems)
    return {NC_EIOMISMATCH, "the buffer holds " + std::to_string(bufcount * per) + " elements, the file type selects " +
                                std::to_string(nelems)};
  out->bufcount = bufcount;
  out->nelems = nelems;
  return Status::ok();
}

// A partitioned file keeps metadata between and after its data regions, so
// there a vard file type reaches only data: a fixed-size variable's own
// bytes, a record variable's record bytes (not before the records; with
// sections, io::RecordView checks every byte). Classic files keep PnetCDF's
// rule: any bytes from the variable's begin.
Status partitioned_vard_reach(const NativeFile& nf, int varid, const format::Variable& var, const VardShape& shape) {
  const int64_t lo = int64_t(shape.lb), hi = int64_t(shape.lb) + int64_t(shape.extent);
  if (nf.ds.is_record_var(varid) ? lo + (var.begin - nf.ds.layout().begin_rec) >= 0 : lo >= 0 && hi <= var.vsize)
    return Status::ok();
  return {NC_EINVALCOORDS, "vard file type reaches beyond the variable's data in a partitioned file"};
}

// After a read of `bytes` (one instance of the view type `type` at file
// offset `disp`, whose bytes end at `end`) into `data`: bytes at or past the
// end of the file read as zeros, whatever the status says (Open MPI's
// collective read counts them as read and leaves stale bytes there), and so
// do bytes a short read left unfilled. The view's bytes are in file order
// (MPI requires a file type's displacements to rise), `data` holds them in
// that order.
Status zero_view_unread(io::MpiFile& file, const MPI_Status& status, MPI_Datatype type, int64_t disp,
                        uint8_t* data, int64_t bytes, int64_t end) {
  const bool complete = io::read_complete(status, bytes);
  if (!complete) io::zero_unread(status, data, bytes);
  int64_t size = 0;
  EXA_RETURN_IF_ERROR(file.size_for_read(end, &size));
  if (size < end) {
    int64_t at = 0;
    EXA_RETURN_IF_ERROR(io::for_each_type_run(type, [&](const format::ByteRun& r) {
      const int64_t n = std::min(r.length, bytes - at);
      if (n > 0) io::zero_past_size(size, disp + r.offset, data + at, n);
      at += std::max<int64_t>(n, 0);
      return Status::ok();
    }));
  }
  return complete && size >= end ? Status::ok() : file.check_short_read(end);
}

// One MPI transfer of `bytes` through the file's current view (any size:
// io::memory_run) of one instance of `type` at file offset `disp` whose
// bytes end at `end`. A write that reaches past the end of the file this
// rank knows first writes its last byte alone (MpiFile::extend_before_write)
// and must move every byte; a read zeroes what lies past the end of the
// file (zero_view_unread).
Status vard_transfer(io::MpiFile& file, uint8_t* data, int64_t bytes, bool put, bool collective,
                     MPI_Datatype type = MPI_BYTE, int64_t disp = 0, int64_t end = 0) {
  io::MemoryRun run;
  Status extended;
  if (put && bytes > 0) extended = file.extend_before_write(end, bytes, data + bytes - 1);
  if (!extended.is_ok()) bytes = 0;  // (a collective call still takes part, with nothing)
  EXA_RETURN_IF_ERROR(io::memory_run(bytes, &run));
  MPI_File fh = file.handle();
  MPI_Status status;
  int err = put ? (collective ? MPI_File_write_all(fh, data, run.count, run.type, &status)
                              : MPI_File_write(fh, data, run.count, run.type, &status))
                : (collective ? MPI_File_read_all(fh, data, run.count, run.type, &status)
                              : MPI_File_read(fh, data, run.count, run.type, &status));
  Status st = put ? io::check_written(err, status, bytes, "vard write") : io::from_mpi(err, io::MpiOp::kRead, "vard");
  if (st.is_ok() && !extended.is_ok()) st = extended;
  if (st.is_ok() && bytes > 0) {
    if (put) file.note_extent(end);
    else st = zero_view_unread(file, status, type, disp, data, bytes, end);
  }
  if (run.owned) {
    Status freed = EXA_MPI(MPI_Type_free(&run.type));
    if (st.is_ok()) st = freed;
  }
  return st;
}

}  // namespace

// ncmpi_put_vard/get_vard: the caller's file type, relative to the
// variable's begin, and a memory layout of (bufcount, buftype).
Status NativeConnector::vard(FileState& f, int varid, MPI_Datatype filetype, void* buf,
                             MPI_Offset bufcount, MPI_Datatype buftype, bool put, bool collective) {
  auto& nf = native(f);
  DataRequest probe;
  probe.varid = varid;
  probe.collective = collective;
  Status st = check_call(nf, probe, put, /*data_mode=*/true);
  bool takes_part = collective && !nf.define_mode && !nf.indep_mode;
  if (!st.is_ok() && !takes_part) return st;
  const format::Variable* var = st.is_ok() ? &nf.ds.var(varid) : nullptr;
  int64_t xsize = var ? format::external_size(var->type) : 1;
  VardShape shape;
  if (st.is_ok()) st = vard_shape(*var, filetype, bufcount, buftype, &shape);
  // The file type's bytes, from the variable's begin, must lie at offsets a
  // file can have (and its records be records the format can count).
  int64_t type_end = 0;
  if (st.is_ok() && shape.nelems > 0 &&
      (__builtin_add_overflow(int64_t(shape.lb), int64_t(shape.extent), &type_end) ||
       __builtin_add_overflow(type_end, var->begin, &type_end)))
    st = {NC_EINVALCOORDS, "vard file type reaches beyond the largest offset a file can have"};
  const int64_t recsize_now = nf.ds.layout().recsize;
  if (st.is_ok() && shape.nelems > 0 && put && nf.ds.is_record_var(varid) && recsize_now > 0 &&
      (int64_t(shape.lb) + int64_t(shape.extent)) / recsize_now >=
          format::max_numrecs(nf.ds.version(), nf.partitioned))
    st = {NC_EEDGE, "vard file type reaches a record number no file of this format can hold"};
  if (st.is_ok() && shape.nelems > 0 && CompactStore::is_compact(nf, varid))
    st = {NC_ENOTSUPPORT, "put_vard/get_vard of a compact variable (its data is in its metadata block)"};
  // A record variable whose records a redef left in sections: the file
  // type's bytes placed where each record is (io::RecordView).
  const format::Layout& layout = nf.ds.layout();
  io::RecordView sectioned;
  const bool in_sections = st.is_ok() && shape.nelems > 0 && layout.sections.present && nf.ds.is_record_var(varid);
  if (in_sections)
    st = sectioned.build(filetype, layout.sections, layout.begin_rec, layout.recsize, var->begin - layout.begin_rec);
  else if (st.is_ok() && shape.nelems > 0 && nf.partitioned)
    st = partitioned_vard_reach(nf, varid, *var, shape);
  int64_t nelems = st.is_ok() ? shape.nelems : 0;
  const nc_type memtype = shape.memtype;
  const MPI_Aint lb = shape.lb, extent = shape.extent;
  io::Selection flat;  // the memory side is elements in file-type order
  flat.start = {0};
  flat.count = {nelems};
  io::MemoryPlan mem;
  if (st.is_ok() && nelems > 0) st = mem.build(buf, shape.buftype, shape.bufcount, memtype, flat, nullptr);
  if (!st.is_ok()) nelems = 0;
  bool cdf5 = nf.ds.version() == format::Version::kCdf5;
  convert::ErangeFill erange = convert::ErangeFill::type_default();
  if (st.is_ok() && nelems > 0 && memtype != var->type) erange = erange_fill(nf, put ? varid : -1);
  ByteBuffer external(static_cast<size_t>(nelems * xsize));
  ByteBuffer values;
  Status converted;
  if (put && nelems > 0) {
    const void* from = buf;
    if (!mem.contiguous()) {
      st = mem.gather(&values, nelems * convert::native_size(memtype));
      from = values.data();
    }
    if (st.is_ok()) converted = convert::to_external(from, memtype, var->type, nelems, external.data(), cdf5, erange);
    if (!st.is_ok()) nelems = 0;
  }
  io::MpiFile& file = handle_for(nf, collective);
  int64_t bytes = nelems * xsize;
  // Collective calls over record sections move their view in batches
  // (io::RecordView): every rank makes as many transfers as the most any
  // rank needs, with nothing once its own are done.
  int64_t rounds = 1;
  if (collective && layout.sections.present) {
    int64_t mine = in_sections && bytes > 0 ? std::max<int64_t>(sectioned.batches(), 1) : 1;
    Status agreed = EXA_MPI(MPI_Allreduce(&mine, &rounds, 1, MPI_INT64_T, MPI_MAX, nf.comm()));
    if (!agreed.is_ok()) return agreed;
  }
  Status view, io_st;
  int64_t done = 0;  // transfers made
  if (in_sections && bytes > 0) {
    ByteBuffer in_view_order;  // a batch in the view's order, when the sections reorder its bytes
    Status walked = sectioned.for_each_batch([&](const io::RecordView::Batch& b) {
      ++done;
      uint8_t* packed = external.data() + b.packed_at;
      uint8_t* moved = packed;
      const bool reorders = !b.moves->empty() && view.is_ok() && io_st.is_ok();
      if (reorders) {
        in_view_order.resize(static_cast<size_t>(b.bytes));
        if (put) io::RecordView::to_view_order(b, packed, in_view_order.data());
        moved = in_view_order.data();
      }
      // After a failure this rank still takes part, with nothing.
      const bool go = view.is_ok() && io_st.is_ok();
      Status v = file.set_view(0, go ? b.type : MPI_BYTE);
      if (view.is_ok()) view = v;
      MPI_Aint blb = 0, bextent = 0;  // the batch's file extent (its view's displacement is 0)
      Status ext = go && v.is_ok() ? EXA_MPI(MPI_Type_get_true_extent(b.type, &blb, &bextent)) : Status::ok();
      if (view.is_ok()) view = ext;
      Status moved_st = vard_transfer(file, moved, go && v.is_ok() && ext.is_ok() ? b.bytes : 0, put, collective,
                                      b.type, 0, int64_t(blb) + int64_t(bextent));
      if (io_st.is_ok()) io_st = moved_st;
      if (!put && reorders && moved_st.is_ok()) io::RecordView::from_view_order(b, moved, packed);
      return Status::ok();
    });
    if (view.is_ok()) view = walked;
  } else {
    // (It also puts the individual file pointer, which the transfer uses, at 0.)
    view = in_sections ? file.set_view(0, MPI_BYTE)
                       : file.set_view(var && bytes ? var->begin : 0, bytes ? filetype : MPI_BYTE);
    if (!view.is_ok()) bytes = 0;  // (a collective call still takes part, with nothing)
    io_st = vard_transfer(file, external.data(), bytes, put, collective, filetype, var ? var->begin : 0,
                          bytes > 0 ? type_end : 0);
    done = 1;
  }
  for (; collective && done < rounds; ++done) {  // the rounds other ranks still make
    Status v = file.set_view(0, MPI_BYTE);
    if (view.is_ok()) view = v;
    Status nothing = vard_transfer(file, external.data(), 0, put, collective);
    if (io_st.is_ok()) io_st = nothing;
  }
  if (st.is_ok()) st = view;
  if (st.is_ok()) st = io_st;
  if (st.is_ok()) put ? file.count_written(bytes) : file.count_read(bytes);
  int64_t recs = 0;
  if (put && st.is_ok() && bytes > 0 && nf.ds.is_record_var(varid) && nf.ds.layout().recsize > 0)
    recs = (lb + extent) / nf.ds.layout().recsize + ((lb + extent) % nf.ds.layout().recsize != 0 ? 1 : 0);
  if (put) {
    Status r = update_numrecs(nf, collective, recs, agrees_numrecs(nf, varid), io_st);
    if (st.is_ok()) st = r;
  }
  if (!st.is_ok()) return st;
  if (put) return converted;
  if (nelems == 0) return Status::ok();
  if (mem.contiguous())
    return convert::from_external(external.data(), var->type, memtype, nelems, buf, cdf5, erange);
  values.resize(static_cast<size_t>(nelems * convert::native_size(memtype)));
  converted =
      convert::from_external(external.data(), var->type, memtype, nelems, values.data(), cdf5, erange);
  if (!converted.is_ok() && converted.code() != NC_ERANGE) return converted;
  EXA_RETURN_IF_ERROR(mem.scatter(values.data(), static_cast<int64_t>(values.size())));
  return converted;
}

}  // namespace exa::layer
