// Collective exchanges of plain records and byte payloads: records sent to
// chosen ranks (alltoallv), and one payload from every rank to every rank
// (allgatherv, also past 2 GiB in total).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "util/status.hpp"

namespace exa::io {

// Sends the records send[displ[r] .. displ[r] + counts[r]) to rank r (counts
// has one entry per rank, record_size bytes per record); returns in `in` what
// every rank sent to this one, in rank order. Collective.
Status exchange_raw(MPI_Comm comm, int record_size, const void* send, const std::vector<int>& counts,
                    std::vector<uint8_t>* in);

// out[r] goes to rank r; `in` receives what all ranks sent here, in rank order.
template <typename T>
Status exchange_records(MPI_Comm comm, const std::vector<std::vector<T>>& out, std::vector<T>* in) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<T> send;
  std::vector<int> counts;
  for (const auto& part : out) {
    counts.push_back(static_cast<int>(part.size()));
    send.insert(send.end(), part.begin(), part.end());
  }
  std::vector<uint8_t> got;
  EXA_RETURN_IF_ERROR(exchange_raw(comm, static_cast<int>(sizeof(T)), send.data(), counts, &got));
  in->resize(got.size() / sizeof(T));
  if (!got.empty()) std::memcpy(static_cast<void*>(in->data()), got.data(), got.size());
  return Status::ok();
}

// Every rank's payload on every rank: `all` holds them back to back,
// `segments` views into it in rank order. Collective.
Status allgather_bytes(MPI_Comm comm, std::span<const uint8_t> mine, std::vector<uint8_t>* all,
                       std::vector<std::span<const uint8_t>>* segments);

}  // namespace exa::io
