// Collective exchanges of plain records and byte payloads: records sent to
// chosen ranks (alltoallv), and one payload from every rank to every rank
// (allgatherv) or to one (gatherv), also past 2 GiB in total.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "util/status.hpp"

namespace exa::io {

// Displacements of counts laid back to back (for the v-collectives).
std::vector<int> displacements(const std::vector<int>& counts);

// The two steps of an exchange of records grouped by destination (counts[r]
// records for rank r, in rank order): how many records come from each rank
// (recv_counts, total), then the records themselves into `recv` (room for
// total records of record_size bytes). Collective.
Status exchange_counts(MPI_Comm comm, const std::vector<int>& counts, std::vector<int>* recv_counts,
                       int64_t* total);
Status exchange_payload(MPI_Comm comm, int record_size, const void* send,
                        const std::vector<int>& counts, const std::vector<int>& recv_counts,
                        void* recv);

// Sends `send`, grouped by destination, and returns in `in` what every rank
// sent here, in rank order.
template <typename T>
Status exchange_records(MPI_Comm comm, const std::vector<T>& send, const std::vector<int>& counts,
                        std::vector<T>* in) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<int> recv_counts;
  int64_t total = 0;
  EXA_RETURN_IF_ERROR(exchange_counts(comm, counts, &recv_counts, &total));
  in->resize(static_cast<size_t>(total));
  return exchange_payload(comm, static_cast<int>(sizeof(T)), send.data(), counts, recv_counts,
                          in->data());
}

// Every rank's payload on every rank: `all` holds them back to back,
// `segments` views into it in rank order. Collective.
Status allgather_bytes(MPI_Comm comm, std::span<const uint8_t> mine, std::vector<uint8_t>* all,
                       std::vector<std::span<const uint8_t>>* segments);

// Every rank's payload on `root` only (elsewhere `all` and `segments` stay
// empty). Collective.
Status gather_bytes(MPI_Comm comm, int root, std::span<const uint8_t> mine, std::vector<uint8_t>* all,
                    std::vector<std::span<const uint8_t>>* segments);

}  // namespace exa::io
