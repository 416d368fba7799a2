#include "io/two_phase.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

#include "io/mpi_errors.hpp"

namespace exa::io {

namespace {

// Above this many contiguous runs one write through a view beats a call per run.
constexpr size_t kSeparateWrites = 8;
// "Many small pieces": at least this many, smaller than this on average.
constexpr int64_t kManyPieces = 256;
constexpr int64_t kSmallPiece = 64 * 1024;
// Segments of a coalesced write sorted together (a slice of posting order).
constexpr size_t kSortSlice = size_t{1} << 16;
// Bytes staged between two writes of a coalesced write.
constexpr int64_t kStagingChunk = int64_t{256} << 10;
// A segment's description in the exchange: its offset and length.
constexpr int64_t kPieceHeader = 2 * sizeof(int64_t);

// [lo, hi) cut into n contiguous domains of `size` bytes (the last one open-ended).
struct Domains {
  int64_t lo = 0;
  int64_t size = 1;
  int n = 1;
  int owner(int64_t offset) const {
    return static_cast<int>(std::min<int64_t>(n - 1, (offset - lo) / size));
  }
  int64_t end(int r) const { return r == n - 1 ? INT64_MAX : lo + (r + 1) * size; }
};

// Bytes are not zeroed: every byte of a staging buffer is copied in before use.
std::unique_ptr<uint8_t[]> uninitialized(int64_t bytes) {
  return std::unique_ptr<uint8_t[]>(new uint8_t[static_cast<size_t>(std::max<int64_t>(bytes, 1))]);
}

void put_i64(uint8_t*& at, int64_t v) {
  std::memcpy(at, &v, sizeof v);
  at += sizeof v;
}

int64_t get_i64(const uint8_t*& at) {
  int64_t v = 0;
  std::memcpy(&v, at, sizeof v);
  at += sizeof v;
  return v;
}

// The message to each domain's owner, back to back in rank order:
// [count][count x (offset, length)][their bytes]. `sizes` gets each message's size.
std::unique_ptr<uint8_t[]> pack_by_owner(const std::vector<Segment>& sorted, const Domains& dom,
                                         std::vector<int>* sizes) {
  std::vector<Segment> pieces;  // split at domain boundaries; owners ascending
  pieces.reserve(sorted.size() + static_cast<size_t>(dom.n));
  std::vector<int64_t> count(static_cast<size_t>(dom.n), 0), bytes(count);
  for (const Segment& s : sorted) {
    for (int64_t off = s.offset, left = s.length; left > 0;) {
      const int r = dom.owner(off);
      const int64_t take = std::min(left, dom.end(r) - off);
      pieces.push_back({off, take, s.data + (off - s.offset)});
      ++count[static_cast<size_t>(r)];
      bytes[static_cast<size_t>(r)] += take;
      off += take;
      left -= take;
    }
  }
  int64_t total = 0;
  sizes->assign(static_cast<size_t>(dom.n), 0);
  for (size_t r = 0; r < count.size(); ++r) {
    const int64_t size = static_cast<int64_t>(sizeof(int64_t)) + kPieceHeader * count[r] + bytes[r];
    (*sizes)[r] = static_cast<int>(size);  // fits: fits_two_phase was agreed
    total += size;
  }
  auto out = uninitialized(total);
  uint8_t* at = out.get();
  size_t next = 0;
  for (size_t r = 0; r < count.size(); ++r) {
    put_i64(at, count[r]);
    for (size_t i = next; i < next + static_cast<size_t>(count[r]); ++i) {
      put_i64(at, pieces[i].offset);
      put_i64(at, pieces[i].length);
    }
    for (size_t i = next; i < next + static_cast<size_t>(count[r]); ++i) {
      std::memcpy(at, pieces[i].data, static_cast<size_t>(pieces[i].length));
      at += pieces[i].length;
    }
    next += static_cast<size_t>(count[r]);
  }
  return out;
}

// The segments of every message received (in rank order), pointing into `in`.
std::vector<Segment> unpack(uint8_t* in, const std::vector<int>& sizes) {
  std::vector<Segment> out;
  uint8_t* block = in;
  for (int size : sizes) {
    const uint8_t* at = block;
    const int64_t n = get_i64(at);
    uint8_t* data = block + sizeof(int64_t) + kPieceHeader * n;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t offset = get_i64(at), length = get_i64(at);
      out.push_back({offset, length, data});
      data += length;
    }
    block += size;
  }
  return out;
}

}  // namespace

WriteShape shape_of(const std::vector<Segment>& segments) {
  WriteShape w;
  for (const Segment& s : segments) {
    if (s.length <= 0) continue;
    ++w.segments;
    w.bytes += s.length;
    w.lo = std::min(w.lo, s.offset);
    w.hi = std::max(w.hi, s.offset + s.length);
  }
  return w;
}

bool many_small_pieces(int64_t segments, int64_t bytes) {
  return segments >= kManyPieces && bytes < segments * kSmallPiece;
}

bool fits_two_phase(int64_t segments, int64_t bytes, int nprocs) {
  // What one rank sends (each piece may be split once more per domain boundary),
  // and what one owner receives from all ranks, must fit an int.
  const int64_t p = nprocs;
  const int64_t sent = bytes + kPieceHeader * (segments + p) + static_cast<int64_t>(sizeof(int64_t)) * p;
  return sent <= INT_MAX / p;
}

namespace {

// Writes the runs staged so far (contiguous in the file and in staging) and empties them.
Status flush_runs(MpiFile& file, std::vector<Segment>* runs) {
  Status st;
  if (runs->size() > kSeparateWrites) {
    st = write_segments(file, std::move(*runs), false);
  } else {
    for (const Segment& r : *runs)
      if (st.is_ok()) st = file.write_at(r.offset, r.data, r.length);
  }
  runs->clear();
  return st;
}

}  // namespace

Status write_coalesced(MpiFile& file, const std::vector<Segment>& segments,
                       const std::vector<size_t>& request_ends) {
  int64_t total = 0;
  for (const Segment& s : segments) total += std::max<int64_t>(s.length, 0);
  if (total == 0) return Status::ok();
  // Staged a chunk at a time: a chunk the size of a cache is still in it when
  // the kernel copies it into the page cache (one staging buffer of a whole
  // E3SM step -- 20 MB -- made every byte travel through memory twice more).
  const int64_t chunk = std::min(total, kStagingChunk);
  auto staging = uninitialized(chunk);
  std::vector<Segment> runs;  // contiguous in the file, in staging order
  int64_t used = 0;
  // Sorted a slice of posting order at a time: a slice stays in cache while it
  // is sorted and staged, where sorting a whole E3SM step (600,000 segments)
  // at once did not. Any cut is right: a later slice's bytes are staged after
  // an earlier one's and written after them (flush_runs keeps staging order),
  // so on overlap the later posting still wins. Slices end where requests
  // do, so a request's runs, sorted together, still join into long ones.
  size_t next_end = 0;
  for (size_t first = 0, last = 0; first < segments.size(); first = last) {
    last = segments.size();
    while (next_end < request_ends.size() && request_ends[next_end] <= first) ++next_end;
    for (size_t e = next_end; e < request_ends.size(); ++e) {
      if (request_ends[e] - first >= kSortSlice) {
        last = std::min(last, std::max(request_ends[e], first + 1));
        break;
      }
    }
    std::vector<Segment> slice(segments.begin() + static_cast<std::ptrdiff_t>(first),
                               segments.begin() + static_cast<std::ptrdiff_t>(last));
    for (const Segment& s : resolve_overlaps(std::move(slice))) {
      if (s.length <= 0) continue;
      if (used + s.length > chunk) {
        EXA_RETURN_IF_ERROR(flush_runs(file, &runs));
        used = 0;
      }
      if (s.length > chunk) {  // large enough to go as it is
        EXA_RETURN_IF_ERROR(file.write_at(s.offset, s.data, s.length));
        continue;
      }
      uint8_t* at = staging.get() + used;
      std::memcpy(at, s.data, static_cast<size_t>(s.length));
      if (!runs.empty() && runs.back().offset + runs.back().length == s.offset)
        runs.back().length += s.length;
      else
        runs.push_back({s.offset, s.length, at});
      used += s.length;
    }
  }
  return flush_runs(file, &runs);
}

Status write_two_phase(MPI_Comm comm, MpiFile* own, std::vector<Segment> segments, int64_t lo,
                       int64_t hi) {
  if (hi <= lo) return Status::ok();  // nothing anywhere (every rank sees the same extent)
  int nprocs = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &nprocs)));
  const Domains dom{lo, std::max<int64_t>(1, (hi - lo + nprocs - 1) / nprocs), nprocs};
  std::vector<int> send_sizes, recv_sizes(static_cast<size_t>(nprocs), 0);
  // Overlaps within a rank resolve in its posting order; between ranks (which
  // MPI leaves undefined) the higher rank's bytes win.
  auto send = pack_by_owner(resolve_overlaps(std::move(segments)), dom, &send_sizes);
  EXA_RETURN_IF_ERROR(EXA_MPI(
      MPI_Alltoall(send_sizes.data(), 1, MPI_INT, recv_sizes.data(), 1, MPI_INT, comm)));
  std::vector<int> send_displs(send_sizes.size()), recv_displs(recv_sizes.size());
  int64_t received = 0;
  for (size_t r = 0, sent = 0; r < send_sizes.size(); ++r) {
    send_displs[r] = static_cast<int>(sent);
    sent += static_cast<size_t>(send_sizes[r]);
    recv_displs[r] = static_cast<int>(received);
    received += recv_sizes[r];
  }
  auto in = uninitialized(received);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Alltoallv(send.get(), send_sizes.data(), send_displs.data(),
                                            MPI_BYTE, in.get(), recv_sizes.data(),
                                            recv_displs.data(), MPI_BYTE, comm)));
  send.reset();
  if (own == nullptr) return Status::ok();
  return write_coalesced(*own, unpack(in.get(), recv_sizes));
}

}  // namespace exa::io
