// The private-blocks enddef's rank-0 work in rounds (see the header).
#include "io/private_rounds.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <string_view>

#include "io/collective.hpp"
#include "io/exchange.hpp"
#include "io/mpi_errors.hpp"
#include "util/crc32c.hpp"

namespace exa::io {

namespace pf = format::partitioned;

namespace {

constexpr int kChunkTag = 7301;  // summaries to rank 0 (the file's own communicator)

// Encoded summaries a rank sends per round: rank 0 holds at most one chunk
// per rank (the merge needs every rank's next path), about 4 MiB in all.
size_t chunk_bytes(int nprocs) {
  if (small_rounds()) return 1024;  // (a dozen summaries)
  return std::max<size_t>(size_t(64) << 10, (size_t(4) << 20) / size_t(std::max(nprocs, 1)));
}

// Index pages rank 0 encodes and writes per round.
size_t batch_pages() { return small_rounds() ? 1 : 16; }

// Rank 0's merge state: per rank the chunk it holds (its bytes, and views of
// its summaries into them: no allocation per summary) and where it is in it.
struct Merge {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<std::vector<pf::BlockSummaryView>> chunk;
  std::vector<size_t> used, received, total;
  std::vector<std::vector<uint64_t>> out;  // placements to send (kPlacementWords each)
  std::vector<uint8_t> starved;            // needs its next chunk before the merge can go on
  size_t nstarved = 0;
  // Ranks whose next summary is available, smallest path on top.
  struct Later {
    const Merge* m;
    bool operator()(int x, int y) const {
      return m->chunk[size_t(x)][m->used[size_t(x)]].path > m->chunk[size_t(y)][m->used[size_t(y)]].path;
    }
  };
  std::vector<int> heap;
  int root_writer = 0;

  void take(int r, std::vector<uint8_t> encoded, std::vector<pf::BlockSummaryView> summaries) {
    received[size_t(r)] += summaries.size();
    bytes[size_t(r)] = std::move(encoded);
    chunk[size_t(r)] = std::move(summaries);
    used[size_t(r)] = 0;
    starve(r, false);
    if (!chunk[size_t(r)].empty()) {
      heap.push_back(r);
      std::push_heap(heap.begin(), heap.end(), Later{this});
    }
  }
  void starve(int r, bool yes) {
    nstarved = nstarved - starved[size_t(r)] + (yes ? 1 : 0);
    starved[size_t(r)] = yes ? 1 : 0;
  }
  bool any_starved() const { return nstarved > 0; }

  // Places blocks while every rank that has more to send has a summary here.
  Status run(pf::BlockPlacer& placer) {
    while (!heap.empty() && !any_starved() && placer.shared_path().empty()) {
      std::pop_heap(heap.begin(), heap.end(), Later{this});
      const int r = heap.back();
      heap.pop_back();
      const size_t ur = size_t(r);
      pf::BlockPlacement p;
      EXA_RETURN_IF_ERROR(placer.place(chunk[ur][used[ur]], &p));
      if (!placer.shared_path().empty()) break;
      if (p.block == 0) root_writer = r;
      out[ur].insert(out[ur].end(), {p.block, p.first_dim, p.first_var, p.offset, p.data});
      if (++used[ur] < chunk[ur].size()) {
        heap.push_back(r);
        std::push_heap(heap.begin(), heap.end(), Later{this});
      } else {
        chunk[ur] = {};
        bytes[ur] = {};
        starve(r, received[ur] < total[ur]);
      }
    }
    return Status::ok();
  }
};

// This rank's summaries [*sent, end) up to chunk_bytes, encoded.
std::vector<uint8_t> next_chunk(const std::vector<pf::BlockSummary>& mine, size_t* sent, int nprocs) {
  const size_t limit = chunk_bytes(nprocs);
  size_t end = *sent, bytes = 0;
  while (end < mine.size() && (end == *sent || bytes + 48 + mine[end].path.size() <= limit))
    bytes += 48 + mine[end++].path.size();
  const std::span<const pf::BlockSummary> part(mine.data() + *sent, end - *sent);
  *sent = end;
  return pf::encode_summaries(part);
}

}  // namespace

bool small_rounds() {
  const char* v = std::getenv("EXACDF_DEBUG_SMALL_ROUNDS");
  return v && std::strcmp(v, "1") == 0;
}

Status place_in_rounds(MPI_Comm comm, const std::vector<pf::BlockSummary>& mine,
                       const std::vector<format::Attribute>& gatts, int64_t align, PrivatePlan* plan,
                       std::vector<pf::BlockPlacement>* placed, pf::BlockPlacer* placer) {
  int rank = 0, p = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &p)));
  const size_t np = size_t(p);
  Merge m;
  Status st;  // rank 0: why the plan failed
  uint64_t count = mine.size();
  if (rank == 0) {
    m.bytes.resize(np);
    m.chunk.resize(np);
    m.used.assign(np, 0);
    m.received.assign(np, 0);
    m.total.resize(np);
    m.out.resize(np);
    m.starved.assign(np, 0);
    *placer = pf::BlockPlacer(gatts);
  }
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gather(&count, 1, MPI_UINT64_T, m.total.data(), 1, MPI_UINT64_T, 0, comm)));
  if (rank == 0)
    for (size_t r = 0; r < np; ++r) m.starve(int(r), m.total[r] > 0);
  placed->clear();
  placed->reserve(mine.size());
  size_t sent = 0;
  // Round header: done, then per rank whether it sends its next chunk and
  // how many placement words it receives.
  std::vector<uint64_t> head(1 + 2 * np);
  for (;;) {
    if (rank == 0) {
      if (st.is_ok()) st = m.run(*placer);
      const bool finished = !st.is_ok() || !placer->shared_path().empty() || (m.heap.empty() && !m.any_starved());
      head[0] = finished ? 1 : 0;
      for (size_t r = 0; r < np; ++r) {
        head[1 + r] = finished ? 0 : m.starved[r];
        head[1 + np + r] = m.out[r].size();
      }
    }
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(head.data(), int(head.size()), MPI_UINT64_T, 0, comm)));
    // Placements made this round, to their ranks.
    bool any = false;
    for (size_t r = 0; r < np; ++r) any = any || head[1 + np + r] > 0;
    if (any) {
      std::vector<int> counts(np), displs;
      std::vector<uint64_t> flat;
      for (size_t r = 0; r < np; ++r) counts[r] = int(head[1 + np + r]);
      if (rank == 0) {
        displs = displacements(counts);
        for (auto& words : m.out) {
          flat.insert(flat.end(), words.begin(), words.end());
          words.clear();
        }
      } else {
        displs.assign(np, 0);
      }
      std::vector<uint64_t> got(static_cast<size_t>(counts[size_t(rank)]));
      EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Scatterv(flat.data(), counts.data(), displs.data(), MPI_UINT64_T, got.data(),
                                               int(got.size()), MPI_UINT64_T, 0, comm)));
      for (size_t k = 0; k + pf::kPlacementWords <= got.size(); k += pf::kPlacementWords)
        placed->push_back({got[k], got[k + 1], got[k + 2], got[k + 3], got[k + 4]});
    }
    if (head[0]) break;
    // The next chunks of the ranks the merge waits for.
    if (head[1 + size_t(rank)] && rank != 0) {
      const std::vector<uint8_t> bytes = next_chunk(mine, &sent, p);
      EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Send(bytes.data(), int(bytes.size()), MPI_BYTE, 0, kChunkTag, comm)));
    }
    if (rank == 0) {
      for (size_t r = 0; r < np; ++r) {
        if (!head[1 + r]) continue;
        std::vector<uint8_t> bytes;
        if (r == 0) {
          bytes = next_chunk(mine, &sent, p);
        } else {
          MPI_Status status;
          int n = 0;
          EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Probe(int(r), kChunkTag, comm, &status)));
          EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Get_count(&status, MPI_BYTE, &n)));
          bytes.resize(size_t(n));
          EXA_RETURN_IF_ERROR(
              EXA_MPI(MPI_Recv(bytes.data(), n, MPI_BYTE, int(r), kChunkTag, comm, MPI_STATUS_IGNORE)));
        }
        std::vector<pf::BlockSummaryView> got;
        Status dec = pf::decode_summary_views(bytes, &got);
        if (dec.is_ok() && got.empty()) dec = {NC_EINTERNAL, "a rank sent no block summaries"};
        if (dec.is_ok() && !std::is_sorted(got.begin(), got.end(), [](const auto& x, const auto& y) {
              return x.path < y.path;
            }))
          dec = {NC_EINTERNAL, "block summaries out of path order"};
        if (!dec.is_ok()) {
          if (st.is_ok()) st = dec;
          m.starve(int(r), false);  // (the next round ends the rounds)
          continue;
        }
        m.take(int(r), std::move(bytes), std::move(got));
      }
    }
  }
  // The totals, to every rank.
  uint64_t words[8] = {};
  if (rank == 0) {
    if (st.is_ok() && placer->shared_path().empty()) st = placer->finish(align);
    words[0] = uint64_t(int64_t(st.code()));
    words[1] = placer->shared_path().empty() ? 0 : 1;
    if (st.is_ok() && !words[1]) {
      words[2] = placer->ndims();
      words[3] = placer->nvars();
      words[4] = placer->nblocks();
      words[5] = uint64_t(placer->index_offset());
      words[6] = uint64_t(placer->index_size());
      words[7] = uint64_t(placer->data_begin());
    }
  }
  uint64_t tail[2] = {rank == 0 && st.is_ok() ? uint64_t(placer->data_end()) : 0, uint64_t(m.root_writer)};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(words, 8, MPI_UINT64_T, 0, comm)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(tail, 2, MPI_UINT64_T, 0, comm)));
  *plan = {};
  plan->code = int(int64_t(words[0]));
  plan->shared = words[1] != 0;
  if (plan->code != NC_NOERR || plan->shared) {
    placed->clear();
    if (plan->code != NC_NOERR)
      return {plan->code, rank == 0 ? st.message() : "rank 0 could not place the blocks"};
    return Status::ok();
  }
  plan->ndims = words[2];
  plan->nvars = words[3];
  plan->nblocks = words[4];
  plan->index_offset = int64_t(words[5]);
  plan->index_size = int64_t(words[6]);
  plan->data_end = int64_t(tail[0]);
  plan->root_writer = int(tail[1]);
  Status mine_ok;
  if (placed->size() != mine.size()) mine_ok = {NC_EINTERNAL, "placements do not match the block summaries"};
  for (pf::BlockPlacement& pl : *placed) pl.data += words[7];
  return agree(comm, mine_ok);
}

Status write_index_in_rounds(MpiFile& file, const PrivatePlan& plan, const pf::BlockPlacer& placer,
                             const std::vector<OwnEntry>& mine, uint32_t root_crc, pf::Superblock* sb,
                             std::vector<uint8_t>* table) {
  MPI_Comm comm = file.comm();
  const int rank = file.rank(), p = file.nprocs();
  const size_t np = size_t(p);
  const uint64_t per_batch = uint64_t(batch_pages()) * pf::kIndexPageEntries;
  Status st;  // rank 0's
  std::vector<pf::PageRef> refs;
  std::vector<uint8_t> page0;
  int64_t cursor = rank == 0 ? placer.index_head_size() : 0;  // next page, from the table's start
  uint64_t first_dim = 0, first_var = 0;
  size_t next = 0;  // this rank's next entry to send
  constexpr size_t kWords = 8;  // block, offset, size, crc, natts, ndims, nvars, path bytes
  for (uint64_t lo = 0; lo < plan.nblocks; lo += per_batch) {
    const uint64_t hi = std::min(plan.nblocks, lo + per_batch);
    // This rank's entries in [lo, hi), each as words then its path.
    std::vector<uint8_t> bytes;
    auto append = [&bytes](const uint64_t (&w)[kWords], std::string_view path) {
      const size_t at = bytes.size();
      bytes.resize(at + sizeof w + path.size());
      std::memcpy(bytes.data() + at, w, sizeof w);
      std::memcpy(bytes.data() + at + sizeof w, path.data(), path.size());
    };
    if (rank == 0 && lo == 0 && placer.root_by_rank0()) {
      const uint64_t w[kWords] = {0, uint64_t(pf::kFirstRegion), placer.root_size(), root_crc, placer.root_natts(), 0, 0, 1};
      append(w, "/");
    }
    while (next < mine.size() && mine[next].placement->block < hi) {
      const OwnEntry& e = mine[next++];
      const pf::BlockSummary& s = *e.summary;
      const uint64_t w[kWords] = {e.placement->block, e.placement->offset, s.size, e.crc, s.natts, s.ndims, s.nvars,
                                  s.path.size()};
      append(w, s.path);
    }
    std::vector<uint8_t> all;
    std::vector<std::span<const uint8_t>> segments;
    EXA_RETURN_IF_ERROR(gather_bytes(comm, 0, bytes, &all, &segments));
    if (rank != 0) continue;
    // Rank 0: the batch's entries by position, then its pages.
    std::vector<pf::BlockEntry> entries(size_t(hi - lo));
    std::vector<uint8_t> filled(size_t(hi - lo), 0);
    for (size_t r = 0; r < np && st.is_ok(); ++r) {
      std::span<const uint8_t> seg = segments[r];
      size_t at = 0;
      while (at < seg.size() && st.is_ok()) {
        uint64_t w[kWords];
        if (seg.size() - at < sizeof w) {
          st = {NC_EINTERNAL, "an index entry is cut short"};
          break;
        }
        std::memcpy(w, seg.data() + at, sizeof w);
        at += sizeof w;
        if (w[7] > seg.size() - at || w[0] < lo || w[0] >= hi || filled[size_t(w[0] - lo)]) {
          st = {NC_EINTERNAL, "a bad index entry from a rank"};
          break;
        }
        pf::BlockEntry& e = entries[size_t(w[0] - lo)];
        filled[size_t(w[0] - lo)] = 1;
        e.path.assign(reinterpret_cast<const char*>(seg.data() + at), size_t(w[7]));
        at += size_t(w[7]);
        e.offset = w[1];
        e.size = w[2];
        e.crc = uint32_t(w[3]);
        e.natts = uint32_t(w[4]);
        e.ndims = w[5];
        e.nvars = w[6];
      }
    }
    all = {};
    if (st.is_ok() && std::find(filled.begin(), filled.end(), 0) != filled.end())
      st = {NC_EINTERNAL, "an index entry came from no rank"};
    if (!st.is_ok()) continue;  // (the rounds go on: every rank takes part in each)
    std::vector<uint8_t> out;
    const int64_t out_at = cursor;
    for (uint64_t b = lo; b < hi; b += pf::kIndexPageEntries) {
      const size_t n = size_t(std::min<uint64_t>(pf::kIndexPageEntries, hi - b));
      const std::span<const pf::BlockEntry> page(entries.data() + (b - lo), n);
      std::vector<uint8_t> bytes_of_page = pf::encode_index_page(page);
      pf::PageRef ref;
      ref.offset = uint64_t(cursor);
      ref.size = bytes_of_page.size();
      ref.crc = crc32c(bytes_of_page.data(), bytes_of_page.size());
      ref.nentries = uint32_t(n);
      ref.first_block = b;
      ref.first_dim = first_dim;
      ref.first_var = first_var;
      ref.first_path = page.front().path;
      for (const pf::BlockEntry& e : page) {
        first_dim += e.ndims;
        first_var += e.nvars;
      }
      cursor += int64_t(ref.size);
      refs.push_back(std::move(ref));
      if (b == 0) page0 = bytes_of_page;
      out.insert(out.end(), bytes_of_page.begin(), bytes_of_page.end());
    }
    st = file.write_at(plan.index_offset + out_at, out.data(), int64_t(out.size()));
    note_metadata_written(0, int64_t(out.size()));
  }
  uint64_t head[2] = {0, 0};  // head size, head CRC
  if (rank == 0 && st.is_ok()) {
    std::vector<uint8_t> h = pf::encode_index_head(plan.nblocks, refs);
    if (int64_t(h.size()) != placer.index_head_size() || cursor != plan.index_size)
      st = {NC_EINTERNAL, "the index table came out of its planned size"};
    if (st.is_ok()) st = file.write_at(plan.index_offset, h.data(), int64_t(h.size()));
    note_metadata_written(0, int64_t(h.size()));
    head[0] = h.size();
    head[1] = crc32c(h.data(), h.size());
    *table = std::move(h);
    table->insert(table->end(), page0.begin(), page0.end());
  }
  EXA_RETURN_IF_ERROR(agree(comm, st));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(head, 2, MPI_UINT64_T, 0, comm)));
  sb->index_head_size = head[0];
  sb->index_crc = uint32_t(head[1]);
  return Status::ok();
}

}  // namespace exa::io
