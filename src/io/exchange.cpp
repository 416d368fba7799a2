#include "io/exchange.hpp"

#include <climits>
#include <cstring>

#include "io/mpi_errors.hpp"

namespace exa::io {

namespace {

// A committed contiguous MPI type of `bytes` bytes (the caller frees it).
Status unit_type(int bytes, MPI_Datatype* t) {
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_contiguous(bytes, MPI_BYTE, t)));
  Status st = EXA_MPI(MPI_Type_commit(t));
  if (!st.is_ok()) EXA_MPI(MPI_Type_free(t)).set_aside("the commit's error is reported");
  return st;
}

// Runs one exchange over a unit type of `bytes` bytes and frees the type.
template <typename Exchange>
Status with_unit_type(int bytes, Exchange&& exchange) {
  MPI_Datatype t;
  EXA_RETURN_IF_ERROR(unit_type(bytes, &t));
  Status st = exchange(t);
  Status freed = EXA_MPI(MPI_Type_free(&t));
  return st.is_ok() ? freed : st;
}

}  // namespace

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size());
  int64_t at = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    displs[r] = static_cast<int>(at);
    at += counts[r];
  }
  return displs;
}

Status exchange_counts(MPI_Comm comm, const std::vector<int>& counts, std::vector<int>* recv_counts,
                       int64_t* total) {
  int nprocs = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &nprocs)));
  recv_counts->assign(static_cast<size_t>(nprocs), 0);
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Alltoall(counts.data(), 1, MPI_INT, recv_counts->data(), 1, MPI_INT, comm)));
  int64_t sent = 0, got = 0;
  for (int c : counts) sent += c;
  for (int c : *recv_counts) got += c;
  // Displacements are ints, in records: at most INT_MAX records per rank.
  int too_many = sent > INT_MAX || got > INT_MAX ? 1 : 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &too_many, 1, MPI_INT, MPI_MAX, comm)));
  if (too_many) return {NC_ENOMEM, "more than 2^31 records for one rank"};
  *total = got;
  return Status::ok();
}

Status exchange_payload(MPI_Comm comm, int record_size, const void* send,
                        const std::vector<int>& counts, const std::vector<int>& recv_counts,
                        void* recv) {
  std::vector<int> sdispl = displacements(counts), rdispl = displacements(recv_counts);
  return with_unit_type(record_size, [&](MPI_Datatype t) {
    return EXA_MPI(MPI_Alltoallv(send, counts.data(), sdispl.data(), t, recv, recv_counts.data(),
                                 rdispl.data(), t, comm));
  });
}

namespace {

// Every rank's payload on `root` (root < 0: on every rank), as allgather_bytes.
Status gather_payloads(MPI_Comm comm, int root, std::span<const uint8_t> mine, std::vector<uint8_t>* all,
                       std::vector<std::span<const uint8_t>>* segments) {
  int nprocs = 0, rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &nprocs)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  int64_t size = static_cast<int64_t>(mine.size());
  std::vector<int64_t> sizes(static_cast<size_t>(nprocs));
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Allgather(&size, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm)));
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  // Counts are ints: past 2 GiB, exchange in units of 4 KiB (segments padded).
  const int64_t unit = total + nprocs * 4096 > INT_MAX ? 4096 : 1;
  std::vector<int> counts(static_cast<size_t>(nprocs)), displs(static_cast<size_t>(nprocs));
  int64_t units = 0;
  for (size_t r = 0; r < sizes.size(); ++r) {
    int64_t n = (sizes[r] + unit - 1) / unit;
    if (units > INT_MAX || n > INT_MAX) return {NC_ENOMEM, "payloads beyond 8 TiB"};
    counts[r] = static_cast<int>(n);
    displs[r] = static_cast<int>(units);
    units += n;
  }
  const bool receives = root < 0 || rank == root;
  all->resize(receives ? static_cast<size_t>(units * unit) : 0);
  std::vector<uint8_t> padded;
  const void* send = mine.data();
  if (unit > 1) {
    padded.assign(static_cast<size_t>(counts[static_cast<size_t>(rank)] * unit), 0);
    if (!mine.empty()) std::memcpy(padded.data(), mine.data(), mine.size());
    send = padded.data();
  }
  EXA_RETURN_IF_ERROR(with_unit_type(static_cast<int>(unit), [&](MPI_Datatype t) {
    const int n = counts[static_cast<size_t>(rank)];
    return root < 0 ? EXA_MPI(MPI_Allgatherv(send, n, t, all->data(), counts.data(), displs.data(),
                                             t, comm))
                    : EXA_MPI(MPI_Gatherv(send, n, t, all->data(), counts.data(), displs.data(), t,
                                          root, comm));
  }));
  segments->clear();
  if (!receives) return Status::ok();
  for (size_t r = 0; r < sizes.size(); ++r)
    segments->emplace_back(all->data() + displs[r] * unit, static_cast<size_t>(sizes[r]));
  return Status::ok();
}

}  // namespace

Status allgather_bytes(MPI_Comm comm, std::span<const uint8_t> mine, std::vector<uint8_t>* all,
                       std::vector<std::span<const uint8_t>>* segments) {
  return gather_payloads(comm, -1, mine, all, segments);
}

Status gather_bytes(MPI_Comm comm, int root, std::span<const uint8_t> mine, std::vector<uint8_t>* all,
                    std::vector<std::span<const uint8_t>>* segments) {
  return gather_payloads(comm, root, mine, all, segments);
}

}  // namespace exa::io
