#include "relation/exchange.hpp"

#include <pnetcdf.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "io/mpi_errors.hpp"

namespace exa::relation {
namespace {

uint64_t limit_override = 0;  // 0: INT_MAX

uint64_t exchange_limit() { return limit_override > 0 ? limit_override : static_cast<uint64_t>(INT_MAX); }

// A committed datatype of n uint64 values (a row); freed by the destructor.
struct RowType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  ~RowType() {
    if (type != MPI_DATATYPE_NULL) EXA_MPI(MPI_Type_free(&type)).set_aside("destructor");
  }
  Status make(int n) {
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_contiguous(n, MPI_UINT64_T, &type)));
    return EXA_MPI(MPI_Type_commit(&type));
  }
};

uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t x : v) s += x;
  return s;
}

std::vector<uint64_t> prefix(const std::vector<uint64_t>& counts) {
  std::vector<uint64_t> at(counts.size(), 0);
  for (size_t p = 1; p < counts.size(); ++p) at[p] = at[p - 1] + counts[p - 1];
  return at;
}

// Every count and displacement fits an int: one MPI_Alltoallv.
Status exchange_once(MPI_Comm comm, const RowType& row, const std::vector<uint64_t>& send,
                     const std::vector<uint64_t>& scount, const std::vector<uint64_t>& rcount, uint64_t* into) {
  const size_t n = scount.size();
  std::vector<int> sc(n), sd(n), rc(n), rd(n);
  const std::vector<uint64_t> sat = prefix(scount), rat = prefix(rcount);
  for (size_t p = 0; p < n; ++p) {
    sc[p] = static_cast<int>(scount[p]);
    sd[p] = static_cast<int>(sat[p]);
    rc[p] = static_cast<int>(rcount[p]);
    rd[p] = static_cast<int>(rat[p]);
  }
  return EXA_MPI(MPI_Alltoallv(send.data(), sc.data(), sd.data(), row.type, into, rc.data(), rd.data(), row.type,
                               comm));
}

#if MPI_VERSION >= 4
// MPI-4 big counts: MPI_Count counts, MPI_Aint displacements, one call.
Status exchange_big(MPI_Comm comm, const RowType& row, const std::vector<uint64_t>& send,
                    const std::vector<uint64_t>& scount, const std::vector<uint64_t>& rcount, uint64_t* into) {
  const size_t n = scount.size();
  std::vector<MPI_Count> sc(n), rc(n);
  std::vector<MPI_Aint> sd(n), rd(n);
  const std::vector<uint64_t> sat = prefix(scount), rat = prefix(rcount);
  for (size_t p = 0; p < n; ++p) {
    sc[p] = static_cast<MPI_Count>(scount[p]);
    sd[p] = static_cast<MPI_Aint>(sat[p]);
    rc[p] = static_cast<MPI_Count>(rcount[p]);
    rd[p] = static_cast<MPI_Aint>(rat[p]);
  }
  return EXA_MPI(MPI_Alltoallv_c(send.data(), sc.data(), sd.data(), row.type, into, rc.data(), rd.data(), row.type,
                                 comm));
}
#endif

// Rounds of MPI_Alltoallv: in round k each peer pair moves its rows
// [k * per_round, (k+1) * per_round), packed into and unpacked from buffers of
// at most nranks * per_round rows (so every int count and displacement holds).
Status exchange_rounds(MPI_Comm comm, const RowType& row, int row_values, uint64_t rounds, uint64_t per_round,
                       const std::vector<uint64_t>& send, const std::vector<uint64_t>& scount,
                       const std::vector<uint64_t>& rcount, uint64_t* into) {
  const size_t n = scount.size();
  const size_t rv = static_cast<size_t>(row_values);
  const std::vector<uint64_t> sat = prefix(scount), rat = prefix(rcount);
  std::vector<uint64_t> sk(n), rk(n), sbuf, rbuf;
  for (uint64_t k = 0; k < rounds; ++k) {
    for (size_t p = 0; p < n; ++p) {
      sk[p] = round_share(scount[p], per_round, k);
      rk[p] = round_share(rcount[p], per_round, k);
    }
    sbuf.resize(sum(sk) * rv);
    rbuf.resize(sum(rk) * rv);
    const std::vector<uint64_t> skat = prefix(sk), rkat = prefix(rk);
    for (size_t p = 0; p < n; ++p)
      if (sk[p] > 0)
        std::memcpy(&sbuf[skat[p] * rv], &send[(sat[p] + k * per_round) * rv], sk[p] * rv * sizeof(uint64_t));
    EXA_RETURN_IF_ERROR(exchange_once(comm, row, sbuf, sk, rk, rbuf.data()));
    for (size_t p = 0; p < n; ++p)
      if (rk[p] > 0)
        std::memcpy(&into[(rat[p] + k * per_round) * rv], &rbuf[rkat[p] * rv], rk[p] * rv * sizeof(uint64_t));
  }
  return Status::ok();
}

}  // namespace

void set_exchange_limit(uint64_t rows) { limit_override = rows; }

Status exchange_rows(MPI_Comm comm, int row_values, const std::vector<uint64_t>& send,
                     const std::vector<uint64_t>& send_rows, std::vector<uint64_t>* out) {
  int size = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &size)));
  if (send_rows.size() != static_cast<size_t>(size)) return {NC_EINTERNAL, "exchange: one count per rank"};
  std::vector<uint64_t> recv_rows(size);
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Alltoall(send_rows.data(), 1, MPI_UINT64_T, recv_rows.data(), 1, MPI_UINT64_T, comm)));
  const uint64_t limit = exchange_limit();
  const uint64_t sent = sum(send_rows), got = sum(recv_rows);
  // Rounds this rank needs; every rank takes the largest (one allreduce), so all
  // make the same calls. 1: every rank's rows fit one MPI_Alltoallv.
  const uint64_t per_round = std::max<uint64_t>(1, limit / static_cast<uint64_t>(size));
  uint64_t need = 1;
  if (sent > limit || got > limit) {
    const uint64_t most = std::max(*std::max_element(send_rows.begin(), send_rows.end()),
                                   *std::max_element(recv_rows.begin(), recv_rows.end()));
    need = (most + per_round - 1) / per_round;
  }
  uint64_t rounds = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&need, &rounds, 1, MPI_UINT64_T, MPI_MAX, comm)));

  RowType row;
  EXA_RETURN_IF_ERROR(row.make(row_values));
  const size_t before = out->size();
  out->resize(before + got * static_cast<size_t>(row_values));
  uint64_t* into = out->data() + before;
  if (rounds <= 1) return exchange_once(comm, row, send, send_rows, recv_rows, into);
#if MPI_VERSION >= 4
  if (limit_override == 0) return exchange_big(comm, row, send, send_rows, recv_rows, into);
#endif
  return exchange_rounds(comm, row, row_values, rounds, per_round, send, send_rows, recv_rows, into);
}

}  // namespace exa::relation
