#include "io/data_mover.hpp"

#include <algorithm>

#include "io/collective.hpp"
#include "io/mpi_errors.hpp"

namespace exa::io {

std::vector<Move> plan_relocation(const format::Header& old_header, const format::Layout& old_layout,
                                  const format::Header& new_header, const format::Layout& new_layout,
                                  int64_t numrecs) {
  std::vector<Move> moves;
  for (size_t i = 0; i < old_header.vars.size(); ++i) {
    const auto& before = old_header.vars[i];
    const auto& after = new_header.vars[i];
    if (!format::is_record_var(old_header, before)) {
      if (before.begin != after.begin && before.vsize > 0)
        moves.push_back({before.begin, after.begin, before.vsize});
      continue;
    }
    for (int64_t r = 0; r < numrecs; ++r) {
      int64_t src = before.begin + r * old_layout.recsize;
      int64_t dst = after.begin + r * new_layout.recsize;
      if (src != dst && before.vsize > 0) moves.push_back({src, dst, before.vsize});
    }
  }
  return moves;
}

namespace {

// One round: the pieces it copies, tail-first order, and their total bytes.
struct Round {
  std::vector<Move> pieces;
  int64_t total = 0;
};

std::vector<Round> plan_rounds(std::vector<Move> moves, int64_t budget) {
  std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) { return a.src > b.src; });
  std::vector<Round> rounds(1);
  for (const Move& m : moves) {
    int64_t remaining = m.len;  // copied from the tail backwards
    while (remaining > 0) {
      if (rounds.back().total == budget) rounds.emplace_back();
      int64_t take = std::min(remaining, budget - rounds.back().total);
      remaining -= take;
      rounds.back().pieces.push_back({m.src + remaining, m.dst + remaining, take});
      rounds.back().total += take;
    }
  }
  if (rounds.back().total == 0) rounds.pop_back();
  return rounds;
}

// The part [lo, hi) of a round's byte sequence, as pieces.
std::vector<Move> slice(const Round& round, int64_t lo, int64_t hi) {
  std::vector<Move> out;
  int64_t pos = 0;
  for (const Move& p : round.pieces) {
    int64_t a = std::max(lo, pos), b = std::min(hi, pos + p.len);
    if (a < b) out.push_back({p.src + (a - pos), p.dst + (a - pos), b - a});
    pos += p.len;
  }
  return out;
}

}  // namespace

Status move_data(MpiFile& file, std::vector<Move> moves, int64_t bytes_per_rank) {
  EXA_RETURN_IF_ERROR(file.use_byte_view());
  // Bytes past the end of the file were never written: there is nothing to
  // move, and copying them would only lengthen the file.
  // Every rank must plan the same rounds: rank 0's view of the size, or its failure
  // to get one (then every rank returns it before moving anything).
  int64_t file_size = 0;
  Status sized = file.rank() == 0 ? file.size(&file_size) : Status::ok();
  int64_t answer[2] = {file_size, sized.code()};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(answer, 2, MPI_INT64_T, 0, file.comm())));
  if (answer[1] != NC_NOERR)
    return sized.is_ok() ? Status{int(answer[1]), "rank 0 could not get the file size"} : sized;
  file_size = answer[0];
  for (Move& m : moves) m.len = std::max<int64_t>(0, std::min(m.len, file_size - m.src));
  moves.erase(std::remove_if(moves.begin(), moves.end(),
                             [](const Move& m) { return m.len <= 0 || m.src == m.dst; }),
              moves.end());
  const int64_t nprocs = file.nprocs();
  Status st;
  std::vector<uint8_t> buffer;
  for (const Round& round : plan_rounds(std::move(moves), bytes_per_rank * nprocs)) {
    int64_t lo = round.total * file.rank() / nprocs, hi = round.total * (file.rank() + 1) / nprocs;
    std::vector<Move> mine = slice(round, lo, hi);
    buffer.resize(static_cast<size_t>(hi - lo));
    int64_t at = 0;
    for (const Move& p : mine) {
      if (st.is_ok()) st = file.read_at(p.src, buffer.data() + at, p.len);
      at += p.len;
    }
    // Every read of the round precedes every write.
    Status waited = EXA_MPI(MPI_Barrier(file.comm()));
    if (st.is_ok()) st = waited;
    at = 0;
    for (const Move& p : mine) {
      if (st.is_ok()) st = file.write_at(p.dst, buffer.data() + at, p.len);
      at += p.len;
    }
    Status synced = file.sync_all();
    if (st.is_ok()) st = synced;
  }
  return agree(file.comm(), st);
}

}  // namespace exa::io
