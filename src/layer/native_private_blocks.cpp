// Native connector: the first enddef of a new partitioned file in
// independent define mode when every block was defined by one rank only
// (the common case: each rank defines its own samples). The merge
// (native_merge.cpp) would give every rank the whole file's metadata;
// instead:
//   0. global attributes are allgathered and merged on every rank (they all
//      go into the root block; usually every rank defines the same few);
//   1. each rank plans its own blocks (format::plan_image on its own
//      objects) and sends rank 0 one summary per block (gatherv);
//   2. rank 0 merges the summaries by path and places blocks, index table
//      and data (format/partitioned_assembly). A path two ranks sent voids
//      the plan (a root block with dimensions or variables of two ranks
//      too): every rank falls back to the merge, nothing was written;
//   3. rank 0 scatters each rank its placements; each rank encodes its own
//      blocks and writes them (independently, a chunk at a time); rank 0 gathers the
//      CRCs and writes the index table; each rank writes the fill values of
//      its own variables; sync, and rank 0 writes the superblock;
//   4. rank 0 broadcasts the new index's head and page 0, the root block's
//      writer the root block (what an open would read, from memory), and
//      every rank's dataset keeps its own objects under the ids its define
//      calls returned and reads everything else from the new index on use,
//      as after an open (model::Dataset::keep_own_go_lazy).
// A failure before the superblock leaves nothing on disk that counts (the
// ranks stay in define mode with their own definitions, as after a failed
// merge); step 4 only decodes what every rank already has.
// Rank 0 handles one summary per block; everything else a rank does follows
// its own objects.
#include <mpi.h>

#include "format/partitioned_assembly.hpp"
#include "io/fill.hpp"
#include "io/collective.hpp"
#include "io/exchange.hpp"
#include "io/mpi_errors.hpp"
#include "layer/native_internal.hpp"
#include "model/define_merge.hpp"
#include "util/crc32c.hpp"

namespace exa::layer {

namespace {

namespace pf = format::partitioned;

// What rank 0 tells every rank after assembling (uint64 words).
enum PlanWord { kCode, kShared, kNdims, kNvars, kNblocks, kIndexOffset, kIndexSize, kDataEnd, kRootWriter, kPlanWords };

// Step 1 and 2: the summaries to rank 0, its plan back. On rank 0 *a is the
// whole plan; everywhere `words` holds what every rank needs of it.
Status assemble_on_rank0(NativeFile& nf, const std::vector<pf::BlockSummary>& mine, int64_t align,
                         pf::Assembly* a, uint64_t words[kPlanWords]) {
  std::vector<uint8_t> all;
  std::vector<std::span<const uint8_t>> segments;
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), io::gather_bytes(nf.comm(), 0, pf::encode_summaries(mine), &all, &segments)));
  Status st;
  if (nf.file.rank() == 0) {
    std::vector<std::vector<pf::BlockSummary>> per_rank(segments.size());
    for (size_t r = 0; r < segments.size() && st.is_ok(); ++r) st = pf::decode_summaries(segments[r], &per_rank[r]);
    all = {};
    if (st.is_ok()) st = pf::assemble(std::move(per_rank), nf.ds.header().gatts, align, a);
    words[kCode] = uint64_t(int64_t(st.code()));
    words[kShared] = a->shared_path.empty() ? 0 : 1;
    words[kNdims] = a->ndims;
    words[kNvars] = a->nvars;
    words[kNblocks] = a->index.blocks.size();
    words[kIndexOffset] = uint64_t(a->index_offset);
    words[kIndexSize] = uint64_t(a->index_size);
    words[kDataEnd] = uint64_t(a->data_end);
    words[kRootWriter] = 0;  // rank 0 if no rank claimed the root block
    for (size_t r = 0; r < a->placements.size(); ++r)
      if (!a->placements[r].empty() && a->placements[r][0].block == 0) words[kRootWriter] = r;
  }
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(words, kPlanWords, MPI_UINT64_T, 0, nf.comm())));
  const int code = int(int64_t(words[kCode]));
  if (code != NC_NOERR) return {code, nf.file.rank() == 0 ? st.message() : "rank 0 could not place the blocks"};
  return Status::ok();
}

// Step 3: rank 0 sends each rank its placements (in its summaries' order).
Status scatter_placements(NativeFile& nf, const pf::Assembly& a, size_t mine,
                          std::vector<pf::BlockPlacement>* placed) {
  const int p = nf.file.nprocs();
  std::vector<uint64_t> flat;
  std::vector<int> counts, displs;
  if (nf.file.rank() == 0) {
    for (int r = 0; r < p; ++r) {
      counts.push_back(int(a.placements[size_t(r)].size() * pf::kPlacementWords));
      for (const pf::BlockPlacement& pl : a.placements[size_t(r)])
        flat.insert(flat.end(), {pl.block, pl.first_dim, pl.first_var, pl.offset, pl.data});
    }
    displs = io::displacements(counts);
  }
  std::vector<uint64_t> got(mine * pf::kPlacementWords);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Scatterv(flat.data(), counts.data(), displs.data(), MPI_UINT64_T,
                                           got.data(), int(got.size()), MPI_UINT64_T, 0, nf.comm())));
  placed->resize(mine);
  for (size_t k = 0; k < mine; ++k) {
    const uint64_t* w = got.data() + k * pf::kPlacementWords;
    (*placed)[k] = {w[0], w[1], w[2], w[3], w[4]};
  }
  return Status::ok();
}

// What step 4 needs of what was written: the index table (rank 0) and the
// root block (the rank that wrote it).
struct Written {
  std::vector<uint8_t> table;
  std::vector<uint8_t> root;
  // Runs of blocks holding compact variables (file offset, bytes), for the
  // first compact commit (CompactStore::hold_written): it writes into them
  // instead of reading them back. Their data is written once, usually right
  // after the enddef, and every block holding one is rewritten then. At most
  // io::kHoldWrittenMax bytes a rank, else none: a rank's memory after the enddef stays
  // its objects plus a constant (a file of millions of compact variables
  // that are never written keeps nothing).
  io::WrittenRuns compact_runs;
  size_t held = 0;
  bool over = false;  // more than io::kHoldWrittenMax: nothing kept
};

// Step 3: own blocks (and rank 0 the root if no rank claimed it), each rank
// on its own: blocks that lie back to back are encoded into one buffer of
// up to kWriteChunk bytes, which is written and reused -- a rank's memory
// for this step is one chunk, not its whole share (~100 MB per rank for
// dataset_1G at 8 ranks). Independent writes: the runs are large and
// disjoint, so MPI-IO's collective buffering would only copy every byte
// once more through the aggregators (dataset_1G at 8 ranks on 2 cores:
// 1.5-1.8 s against 2.1-2.2 s for its 808 MB). Rank 0 gathers the CRCs and
// writes the index table. Fills the superblock's index fields. A failure
// leaves blocks written that nothing points at yet (no superblock).
constexpr size_t kWriteChunk = size_t(8) << 20;

Status write_blocks(NativeFile& nf, const pf::Image& image, const std::vector<size_t>& blocks,
                    const std::vector<pf::BlockSummary>& summaries, const std::vector<pf::BlockPlacement>& placed,
                    pf::Assembly& a, pf::Superblock* sb, Written* out) {
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());  // a data call may have left its view
  std::vector<uint8_t> run;  // encoded blocks from file offset run_at on
  int64_t run_at = 0;
  std::vector<uint32_t> crcs;
  Status st;
  bool run_compact = false;  // whether a block of the run holds compact variables
  auto flush = [&] {
    if (!run.empty() && st.is_ok()) st = nf.file.write_at(run_at, run.data(), int64_t(run.size()));
    if (run_compact && st.is_ok() && !out->over) {
      out->held += run.size();
      out->over = out->held > io::kHoldWrittenMax;
      if (out->over) {
        out->compact_runs = {};
      } else {
        if (run.size() < run.capacity() / 4 * 3) run.shrink_to_fit();
        out->compact_runs.emplace_back(uint64_t(run_at), std::move(run));
        run = {};
      }
    }
    run.clear();
    run_compact = false;
  };
  for (size_t i = 0; i < blocks.size() && st.is_ok(); ++i) {
    const bool follows = int64_t(placed[i].offset) == run_at + int64_t(run.size());
    if (!run.empty() && (!follows || run.size() + summaries[i].size > kWriteChunk)) flush();
    if (!st.is_ok()) break;
    if (run.empty()) {
      run_at = int64_t(placed[i].offset);
      run.reserve(std::max(kWriteChunk, size_t(summaries[i].size)));
    }
    const size_t at = run.size();
    pf::append_image_block(nf.ds.header(), image, blocks[i], &run);
    run_compact = run_compact || pf::image_block_has_compact(image, blocks[i]);
    if (run.size() - at != summaries[i].size)
      st = {NC_EINTERNAL, "block '" + summaries[i].path + "' encoded to an unplanned size"};
    crcs.push_back(crc32c(run.data() + at, run.size() - at));
    io::note_metadata_written(1, int64_t(run.size() - at));
    if (placed[i].block == 0) out->root.assign(run.begin() + ptrdiff_t(at), run.end());
  }
  flush();
  run = {};
  if (st.is_ok() && nf.file.rank() == 0 && a.root_by_rank0) {
    out->root = pf::root_block(nf.ds.header().gatts);
    a.index.blocks[0].crc = crc32c(out->root.data(), out->root.size());
    st = nf.file.write_at(int64_t(a.index.blocks[0].offset), out->root.data(), int64_t(out->root.size()));
    io::note_metadata_written(1, int64_t(out->root.size()));
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  // The CRCs, in every rank's summary order, to rank 0.
  const int p = nf.file.nprocs();
  std::vector<int> counts;
  std::vector<uint32_t> all;
  if (nf.file.rank() == 0)
    for (int r = 0; r < p; ++r) counts.push_back(int(a.placements[size_t(r)].size()));
  std::vector<int> displs = io::displacements(counts);
  all.resize(nf.file.rank() == 0 ? size_t(a.index.blocks.size()) : 0);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gatherv(crcs.data(), int(crcs.size()), MPI_UINT32_T, all.data(),
                                          counts.data(), displs.data(), MPI_UINT32_T, 0, nf.comm())));
  uint64_t head[2] = {0, 0};  // head size, head CRC
  if (nf.file.rank() == 0) {
    for (int r = 0; r < p; ++r)
      for (size_t k = 0; k < a.placements[size_t(r)].size(); ++k)
        a.index.blocks[a.placements[size_t(r)][k].block].crc = all[size_t(displs[size_t(r)]) + k];
    all = {};  // (rank 0's per-block memory: only the index entries while the table is encoded)
    a.placements = {};
    out->table = pf::encode_index(a.index, pf::kIndexPageEntries, &head[0]);
    head[1] = crc32c(out->table.data(), size_t(head[0]));
    st = nf.file.write_at(a.index_offset, out->table.data(), int64_t(out->table.size()));
    io::note_metadata_written(0, int64_t(out->table.size()));
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(head, 2, MPI_UINT64_T, 0, nf.comm())));
  sb->index_head_size = head[0];
  sb->index_crc = uint32_t(head[1]);
  return Status::ok();
}

// Step 0: every rank's global attributes, merged (the same list on every rank).
Status merge_gatts(NativeFile& nf, std::vector<format::Attribute>* merged) {
  std::vector<uint8_t> all;
  std::vector<std::span<const uint8_t>> segments;
  EXA_RETURN_IF_ERROR(io::allgather_bytes(nf.comm(), model::encode_global_atts(nf.ds), &all, &segments));
  return model::merge_global_atts(segments, merged);
}

// Steps 1 to 4; on error or when the plan is void (*done false) the dataset
// is as before except for its variables' offsets.
Status write_private_blocks(NativeFile& nf, const format::LayoutHints& hints, bool* done) {
  double t = MPI_Wtime();
  pf::Image image;
  std::vector<uint8_t> compact;
  std::vector<pf::BlockSummary> summaries;
  std::vector<size_t> blocks;
  Status st = compact_variables(nf, 0, &compact);
  if (st.is_ok()) st = pf::plan_image(nf.ds.header(), &image, &compact);
  if (st.is_ok()) st = pf::summarize_image(nf.ds.header(), image, &summaries, &blocks);
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  nf.enddef_now.layout = MPI_Wtime() - t;

  // Step 2: rank 0 places everything.
  t = MPI_Wtime();
  const int64_t align = hints.header_align > 0 ? hints.header_align : 4096;
  pf::Assembly a;
  uint64_t words[kPlanWords] = {};
  EXA_RETURN_IF_ERROR(assemble_on_rank0(nf, summaries, align, &a, words));
  if (words[kShared]) return Status::ok();  // a block of several ranks: merge
  std::vector<pf::BlockPlacement> placed;
  EXA_RETURN_IF_ERROR(scatter_placements(nf, a, summaries.size(), &placed));
  std::vector<int64_t> dim_positions, var_positions;
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), pf::apply_placements(nf.ds.mutable_header(), image, blocks, placed,
                                                               &dim_positions, &var_positions)));
  nf.enddef_now.merge_check += MPI_Wtime() - t;

  // Step 3: blocks, index table, fill values, superblock.
  t = MPI_Wtime();
  pf::Superblock sb;
  sb.generation = nf.superblock.generation + 1;
  sb.ndims = words[kNdims];
  sb.nvars = words[kNvars];
  sb.index_offset = words[kIndexOffset];
  sb.index_size = words[kIndexSize];
  sb.nblocks = words[kNblocks];
  sb.file_end = std::max(words[kDataEnd], words[kIndexOffset] + words[kIndexSize]);
  Written written;
  EXA_RETURN_IF_ERROR(write_blocks(nf, image, blocks, summaries, placed, a, &sb, &written));
  // The plan is spent: its memory goes before the dataset's id maps are made.
  a = {};
  image = {};
  summaries = {};
  blocks = {};
  // Fill values of own variables (a sync only if some rank has any: the
  // superblock's commit syncs anyway).
  const auto regions = fill_regions_for_new_vars(nf, 0);
  int any_fill = regions.empty() ? 0 : 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &any_fill, 1, MPI_INT, MPI_MAX, nf.comm())));
  if (any_fill) EXA_RETURN_IF_ERROR(io::write_own_fill(nf.file, regions));
  EXA_RETURN_IF_ERROR(io::commit_superblock(nf.file, sb));

  // Step 4: the dataset keeps its own objects, the rest is read on use; the
  // new index's head and page 0 and the root block come from memory.
  std::vector<size_t> own_blocks;
  for (const pf::BlockPlacement& pl : placed) own_blocks.push_back(size_t(pl.block));
  pf::Block root;
  io::OpenedIndex opened;
  EXA_RETURN_IF_ERROR(io::share_written_root(nf.file, sb, written.table, int(words[kRootWriter]), written.root,
                                             &opened, &root));
  auto compact_runs = std::move(written.compact_runs);
  written = {};
  attach_index(nf, std::move(opened));
  st = nf.ds.keep_own_go_lazy(nf.index, std::move(root), block_reader(nf), std::move(dim_positions),
                              std::move(var_positions), own_blocks);
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  set_partitioned_layout(nf);
  nf.compact.reset();
  for (auto& [offset, run] : compact_runs) nf.compact.hold_written(offset, std::move(run));
  nf.enddef_now.header_io = MPI_Wtime() - t;
  *done = true;
  return Status::ok();
}

}  // namespace

Status enddef_private_blocks(NativeFile& nf, const format::LayoutHints& hints, bool* done) {
  *done = false;
  // Record variables (an unlimited dimension) take the merge.
  int fit = nf.ds.unlimited_dim() < 0 ? 1 : 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &fit, 1, MPI_INT, MPI_MIN, nf.comm())));
  if (!fit) return Status::ok();
  const int64_t own_objects = nf.ds.ndims() + nf.ds.nvars() + int64_t(nf.ds.header().gatts.size());
  const double t = MPI_Wtime();
  std::vector<format::Attribute> mine = nf.ds.header().gatts, merged;
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), merge_gatts(nf, &merged)));
  nf.ds.set_global_atts(std::move(merged));
  nf.enddef_now.merge_check = MPI_Wtime() - t;
  Status st = write_private_blocks(nf, hints, done);
  if (!st.is_ok() || !*done) {
    nf.ds.set_global_atts(std::move(mine));  // as defined here: the merge (or a retry) starts over
    return st;
  }
  nf.enddef_now.new_objects = nf.enddef_now.owned_objects = own_objects;
  return Status::ok();
}

}  // namespace exa::layer
