#include "io/packed_two_phase.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/direct_write.hpp"
#include "io/mpi_errors.hpp"

namespace exa::io {

OwnTwoPhase own_two_phase_hint(const Hints& hints) {
  auto it = hints.all.find("exa_two_phase");
  if (it == hints.all.end()) return OwnTwoPhase::kAuto;
  if (it->second == "enable") return OwnTwoPhase::kEnable;
  if (it->second == "disable") return OwnTwoPhase::kDisable;
  return OwnTwoPhase::kAuto;
}

int64_t two_phase_round_hint(const Hints& hints) {
  auto it = hints.all.find("exa_two_phase_round");
  if (it == hints.all.end()) return kRoundBytes;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0' || v <= 0 || v > (int64_t{1} << 40)) return kRoundBytes;
  return (v + kDomainAlign - 1) / kDomainAlign * kDomainAlign;
}

PathAgreement decide_path(const int64_t* votes, int n) {
  PathAgreement a;
  bool other = false, small = false;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  std::vector<std::pair<int64_t, int64_t>> one;  // the kOneRun extents
  for (int r = 0; r < n; ++r) {
    const auto vote = static_cast<TwoPhaseVote>(votes[3 * r]);
    const int64_t l = votes[3 * r + 1], h = votes[3 * r + 2];
    other |= vote == TwoPhaseVote::kOther;  // (with or without an extent)
    if (vote == TwoPhaseVote::kNothing || vote == TwoPhaseVote::kOther || h <= l) continue;
    small |= vote == TwoPhaseVote::kSmallRuns;
    if (vote == TwoPhaseVote::kOneRun) one.emplace_back(l, h);
    lo = std::min(lo, l);
    hi = std::max(hi, h);
  }
  if (other) return a;
  if (small && one.empty()) {
    a.two_phase = (hi - lo) / n <= kMaxDomainBytes;
    a.lo = lo;
    a.hi = hi;
    return a;
  }
  if (small || one.empty()) return a;
  std::sort(one.begin(), one.end());
  for (size_t k = 1; k < one.size(); ++k)
    if (one[k].first < one[k - 1].second) return a;  // two runs overlap: the usual path orders them
  a.own = true;
  a.lo = lo;
  a.hi = hi;
  return a;
}

Status agree_two_phase(MPI_Comm comm, TwoPhaseVote vote, int64_t lo, int64_t hi, PathAgreement* out) {
  *out = PathAgreement{};
  int nprocs = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &nprocs)));
  const bool extent = vote != TwoPhaseVote::kNothing && vote != TwoPhaseVote::kOther && hi > lo;
  const TwoPhaseVote sent = vote == TwoPhaseVote::kOther || extent ? vote : TwoPhaseVote::kNothing;
  const int64_t mine[3] = {static_cast<int64_t>(sent), extent ? lo : 0, extent ? hi : 0};
  std::vector<int64_t> all(3 * static_cast<size_t>(nprocs));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, comm)));
  *out = decide_path(all.data(), nprocs);
  return Status::ok();
}

namespace {

// [lo, hi) cut into n domains of `size` bytes (a multiple of kDomainAlign;
// the last open-ended), each domain into `rounds` windows of at most
// kRoundBytes: a window of every domain moves per round, so the buffers stay
// the size of a window and are reused (already faulted in, in the cache).
struct Domains {
  int64_t lo = 0;
  int64_t size = kDomainAlign;
  int n = 1;
  int rounds = 1;
  int64_t window = kRoundBytes;
  Domains(int64_t lo_, int64_t hi_, int n_, int64_t window_) : lo(lo_), n(n_), window(window_) {
    const int64_t per = (hi_ - lo_ + n_ - 1) / n_;
    size = std::max<int64_t>(kDomainAlign, (per + kDomainAlign - 1) / kDomainAlign * kDomainAlign);
    rounds = static_cast<int>((size + window - 1) / window);
  }
  int owner(int64_t offset) const {
    return static_cast<int>(std::min<int64_t>(n - 1, (offset - lo) / size));
  }
  int64_t base(int r) const { return lo + r * size; }
  int round(int r, int64_t offset) const {
    return static_cast<int>(std::min<int64_t>(rounds - 1, (offset - base(r)) / window));
  }
  // One past the last byte of the window holding `offset`.
  int64_t window_end(int64_t offset) const {
    const int r = owner(offset), k = round(r, offset);
    if (k == rounds - 1) return r == n - 1 ? INT64_MAX : base(r) + size;
    return base(r) + (k + 1) * window;
  }
  size_t cell(int r, int k) const { return static_cast<size_t>(r) * static_cast<size_t>(rounds) + static_cast<size_t>(k); }
};

struct Piece {
  int64_t offset = 0;
  int64_t length = 0;
};

// This rank's runs split at window boundaries (still in packed order); per
// owner the pieces and bytes it gets; per (owner, round) cell where its bytes
// start in the packed buffer and how many there are.
struct Split {
  std::vector<Piece> pieces;
  std::vector<int> count, bytes;          // per owner
  std::vector<int> cell_at, cell_bytes;   // per cell
};

Split split_runs(const std::vector<Segment>& runs, const Domains& dom) {
  Split s;
  const size_t cells = static_cast<size_t>(dom.n) * static_cast<size_t>(dom.rounds);
  s.pieces.reserve(runs.size() + cells);
  s.count.assign(static_cast<size_t>(dom.n), 0);
  s.bytes.assign(static_cast<size_t>(dom.n), 0);
  s.cell_at.assign(cells, 0);
  s.cell_bytes.assign(cells, 0);
  int64_t at = 0;  // position in the packed buffer (the vote bounds it by INT_MAX)
  for (const Segment& run : runs) {
    for (int64_t off = run.offset, left = run.length; left > 0;) {
      const int r = dom.owner(off);
      const size_t c = dom.cell(r, dom.round(r, off));
      const int64_t take = std::min(left, dom.window_end(off) - off);
      s.pieces.push_back({off, take});
      ++s.count[static_cast<size_t>(r)];
      s.bytes[static_cast<size_t>(r)] += static_cast<int>(take);
      if (s.cell_bytes[c] == 0) s.cell_at[c] = static_cast<int>(at);
      s.cell_bytes[c] += static_cast<int>(take);
      off += take;
      left -= take;
      at += take;
    }
  }
  return s;
}

std::vector<int> displacements_of(const std::vector<int>& counts, int64_t* total) {
  std::vector<int> d(counts.size());
  int64_t at = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    d[r] = static_cast<int>(at);
    at += counts[r];
  }
  *total = at;
  return d;
}

std::unique_ptr<uint8_t[]> uninitialized(int64_t bytes) {
  return std::unique_ptr<uint8_t[]>(new uint8_t[static_cast<size_t>(std::max<int64_t>(bytes, 1))]);
}

// What an owner learns before the data moves: the pieces of its domain from
// every rank (sender-major, each sender's ascending), and per round which of
// them move and how many bytes from each sender.
struct Incoming {
  std::vector<int> count;
  std::vector<Piece> pieces;
  std::vector<size_t> first;       // per (round, sender): index of its first piece
  std::vector<int> round_bytes;    // per (round, sender)
  int rounds = 1;
  size_t at(int k, size_t s) const { return static_cast<size_t>(k) * count.size() + s; }
};

Status exchange_pieces(MPI_Comm comm, const Split& out, const Domains& dom, int me, Incoming* in) {
  const size_t n = out.count.size();
  in->count.assign(n, 0);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Alltoall(out.count.data(), 1, MPI_INT, in->count.data(), 1, MPI_INT, comm)));
  std::vector<int> sc(n), rc(n);
  for (size_t r = 0; r < n; ++r) {
    sc[r] = out.count[r] * static_cast<int>(sizeof(Piece));
    rc[r] = in->count[r] * static_cast<int>(sizeof(Piece));
  }
  int64_t ignored = 0, total = 0;
  const std::vector<int> sd = displacements_of(sc, &ignored), rd = displacements_of(rc, &total);
  in->pieces.resize(static_cast<size_t>(total) / sizeof(Piece));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Alltoallv(out.pieces.data(), sc.data(), sd.data(), MPI_BYTE, in->pieces.data(),
                                            rc.data(), rd.data(), MPI_BYTE, comm)));
  in->rounds = dom.rounds;
  in->first.assign(static_cast<size_t>(dom.rounds) * n, 0);
  in->round_bytes.assign(static_cast<size_t>(dom.rounds) * n, 0);
  for (size_t s = 0, i = 0; s < n; ++s) {
    const size_t end = i + static_cast<size_t>(in->count[s]);
    for (int k = 0; k < dom.rounds; ++k) {
      in->first[in->at(k, s)] = i;
      for (; i < end && dom.round(me, in->pieces[i].offset) == k; ++i)
        in->round_bytes[in->at(k, s)] += static_cast<int>(in->pieces[i].length);
    }
    i = end;
  }
  return Status::ok();
}

// Walks the pieces of round k in file order (a merge of the senders'
// ascending lists; on equal offsets the lower rank first, so a higher rank's
// bytes win a write), calling visit(piece, sender, its byte position among
// that sender's bytes of the round).
template <typename Visit>
void in_file_order(const Incoming& in, int k, Visit visit) {
  const size_t n = in.count.size();
  std::vector<size_t> next(n), end(n);
  std::vector<int64_t> pos(n, 0);
  for (size_t s = 0; s < n; ++s) {
    next[s] = in.first[in.at(k, s)];
    end[s] = k + 1 < in.rounds ? in.first[in.at(k + 1, s)] : in.first[in.at(0, s)] + static_cast<size_t>(in.count[s]);
  }
  for (;;) {
    size_t best = n;
    for (size_t s = 0; s < n; ++s)
      if (next[s] < end[s] && (best == n || in.pieces[next[s]].offset < in.pieces[next[best]].offset)) best = s;
    if (best == n) return;
    const Piece& p = in.pieces[next[best]++];
    visit(p, best, pos[best]);
    pos[best] += p.length;
  }
}

// Writes [offset, offset + n) from `data` on this rank alone (the file's view is bytes).
Status write_stretch(MpiFile& file, int64_t offset, const uint8_t* data, int64_t n) {
  MPI_Status status;
  const int err = MPI_File_write_at(file.handle(), offset, data, static_cast<int>(n), MPI_BYTE, &status);
  EXA_RETURN_IF_ERROR(check_written(err, status, n, "MPI_File_write_at (two-phase put)"));
  file.count_written(n);
  file.note_extent(offset + n);
  return Status::ok();
}

// The round's bytes per sender, their displacements, and the largest round's total.
struct RoundLayout {
  std::vector<int> bytes, displs;
  int64_t total = 0;
};
RoundLayout round_layout(const Incoming& in, int k) {
  RoundLayout l;
  l.bytes.assign(in.round_bytes.begin() + static_cast<std::ptrdiff_t>(in.at(k, 0)),
                 in.round_bytes.begin() + static_cast<std::ptrdiff_t>(in.at(k, 0) + in.count.size()));
  l.displs = displacements_of(l.bytes, &l.total);
  return l;
}
int64_t largest_round(const Incoming& in) {
  int64_t most = 0;
  for (int k = 0; k < in.rounds; ++k) most = std::max(most, round_layout(in, k).total);
  return most;
}

// The owner's part of a round of a put: its pieces written in file order from
// a staging buffer, one write per contiguous stretch of at most its size.
Status write_round(MpiFile& file, const Incoming& in, int k, const RoundLayout& l, const uint8_t* data,
                   uint8_t* stage) {
  const int64_t cap = kDirectStageBytes;
  int64_t run_at = 0, run_len = 0;  // the stretch staged so far
  Status st;
  auto flush = [&]() {
    if (run_len > 0 && st.is_ok()) st = write_stretch(file, run_at, stage, run_len);
    run_len = 0;
  };
  in_file_order(in, k, [&](const Piece& p, size_t sender, int64_t pos) {
    const uint8_t* from = data + l.displs[sender] + pos;
    if (run_len > 0 && (p.offset != run_at + run_len || run_len + p.length > cap)) flush();
    if (p.length >= cap) {  // large enough to go as it is
      if (st.is_ok()) st = write_stretch(file, p.offset, from, p.length);
      return;
    }
    if (run_len == 0) run_at = p.offset;
    std::memcpy(stage + run_len, from, static_cast<size_t>(p.length));
    run_len += p.length;
  });
  flush();
  return st;
}

// This rank's cells of round k: bytes and packed displacements per owner.
void cells_of_round(const Split& s, const Domains& dom, int k, std::vector<int>* bytes, std::vector<int>* displs) {
  for (int r = 0; r < dom.n; ++r) {
    (*bytes)[static_cast<size_t>(r)] = s.cell_bytes[dom.cell(r, k)];
    (*displs)[static_cast<size_t>(r)] = s.cell_at[dom.cell(r, k)];
  }
}

}  // namespace

Status write_packed_two_phase(MPI_Comm comm, MpiFile& file, const std::vector<Segment>& runs,
                              const uint8_t* packed, int64_t lo, int64_t hi, int64_t round) {
  int nprocs = 1, me = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &nprocs)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &me)));
  EXA_RETURN_IF_ERROR(file.use_byte_view());
  const Domains dom(lo, hi, nprocs, round);
  const Split out = split_runs(runs, dom);
  Incoming in;
  EXA_RETURN_IF_ERROR(exchange_pieces(comm, out, dom, me, &in));
  auto data = uninitialized(largest_round(in));
  auto stage = uninitialized(kDirectStageBytes);
  std::vector<int> sb(static_cast<size_t>(nprocs)), sd(static_cast<size_t>(nprocs));
  Status st;  // a failed write: this owner's; it still takes part in every round
  for (int k = 0; k < dom.rounds; ++k) {
    cells_of_round(out, dom, k, &sb, &sd);
    const RoundLayout l = round_layout(in, k);
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Alltoallv(packed, sb.data(), sd.data(), MPI_BYTE, data.get(), l.bytes.data(),
                                              l.displs.data(), MPI_BYTE, comm)));
    if (st.is_ok()) st = write_round(file, in, k, l, data.get(), stage.get());
  }
  return st;
}

Status read_packed_two_phase(MPI_Comm comm, MpiFile& file, const std::vector<Segment>& runs,
                             uint8_t* packed, int64_t lo, int64_t hi, int64_t round) {
  int nprocs = 1, me = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &nprocs)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &me)));
  EXA_RETURN_IF_ERROR(file.use_byte_view());
  const Domains dom(lo, hi, nprocs, round);
  const Split want = split_runs(runs, dom);
  Incoming asked;
  EXA_RETURN_IF_ERROR(exchange_pieces(comm, want, dom, me, &asked));
  auto reply = uninitialized(largest_round(asked));
  auto span = uninitialized(dom.window);
  std::vector<int> rb(static_cast<size_t>(nprocs)), rd(static_cast<size_t>(nprocs));
  Status st;  // a failed read: this owner's, told to the ranks it serves at the end
  for (int k = 0; k < dom.rounds; ++k) {
    const RoundLayout l = round_layout(asked, k);
    // The stretch the round's pieces span, read once when dense (the pieces
    // of a partition: the window itself), else each piece on its own.
    int64_t need_lo = INT64_MAX, need_hi = 0;
    in_file_order(asked, k, [&](const Piece& p, size_t, int64_t) {
      need_lo = std::min(need_lo, p.offset);
      need_hi = std::max(need_hi, p.offset + p.length);
    });
    if (st.is_ok() && l.total > 0 && need_hi - need_lo <= dom.window) {
      st = file.read_at(need_lo, span.get(), need_hi - need_lo);
      if (st.is_ok())
        in_file_order(asked, k, [&](const Piece& p, size_t sender, int64_t pos) {
          std::memcpy(reply.get() + l.displs[sender] + pos, span.get() + (p.offset - need_lo),
                      static_cast<size_t>(p.length));
        });
    } else if (st.is_ok() && l.total > 0) {
      in_file_order(asked, k, [&](const Piece& p, size_t sender, int64_t pos) {
        if (st.is_ok()) st = file.read_at(p.offset, reply.get() + l.displs[sender] + pos, p.length);
      });
    }
    cells_of_round(want, dom, k, &rb, &rd);
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Alltoallv(reply.get(), l.bytes.data(), l.displs.data(), MPI_BYTE, packed,
                                              rb.data(), rd.data(), MPI_BYTE, comm)));
  }
  // Each owner's outcome to the ranks it served.
  std::vector<int> codes_out(static_cast<size_t>(nprocs), st.code()), codes_in(static_cast<size_t>(nprocs));
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Alltoall(codes_out.data(), 1, MPI_INT, codes_in.data(), 1, MPI_INT, comm)));
  if (!st.is_ok()) return st;
  for (size_t r = 0; r < codes_in.size(); ++r)
    if (codes_in[r] != NC_NOERR && want.bytes[r] > 0)
      return {codes_in[r], "two-phase get: rank " + std::to_string(r) + " could not read its domain"};
  return Status::ok();
}

}  // namespace exa::io
