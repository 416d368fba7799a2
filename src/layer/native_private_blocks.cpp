// Native connector: the first enddef of a new partitioned file in
// independent define mode when every block was defined by one rank only
// (the common case: each rank defines its own samples). The merge
// (native_merge.cpp) would give every rank the whole file's metadata;
// instead:
//   0. global attributes are allgathered and merged on every rank (they all
//      go into the root block; usually every rank defines the same few);
//   1. each rank plans its own blocks (format::plan_image on its own
//      objects) and sends rank 0 one summary per block, a chunk at a time;
//   2. rank 0 merges the summaries by path as they arrive and places blocks,
//      index table and data (format::BlockPlacer), sending each rank its
//      placements in the same rounds (io/private_rounds). A path two ranks
//      sent voids the plan (a root block with dimensions or variables of
//      two ranks too): every rank falls back to the merge, nothing was written;
//   3. each rank encodes its own blocks and writes them (independently, a
//      chunk at a time); every rank sends rank 0 its index entries with their
//      CRCs, a batch of pages at a time, and rank 0 writes those pages, then
//      the head; each rank writes the fill values of its own variables;
//      sync, and rank 0 writes the superblock;
//   4. rank 0 broadcasts the new index's head and page 0, the root block's
//      writer the root block (what an open would read, from memory), and
//      every rank's dataset keeps its own objects under the ids its define
//      calls returned and reads everything else from the new index on use,
//      as after an open (model::Dataset::keep_own_go_lazy).
// A failure before the superblock leaves nothing on disk that counts (the
// ranks stay in define mode with their own definitions, as after a failed
// merge); step 4 only decodes what every rank already has.
// Rank 0 holds a chunk of summaries per rank and a batch of index pages at a
// time (and the page directory); everything else a rank does follows its own
// objects.
#include <mpi.h>

#include "format/partitioned_assembly.hpp"
#include "io/fill.hpp"
#include "io/collective.hpp"
#include "io/exchange.hpp"
#include "io/mpi_errors.hpp"
#include "io/private_rounds.hpp"
#include "layer/native_internal.hpp"
#include "model/define_merge.hpp"
#include "util/crc32c.hpp"

namespace exa::layer {

namespace {

namespace pf = format::partitioned;

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

// The bytes write_blocks would keep for the first compact commit: the runs
// it forms (blocks back to back, at most kWriteChunk bytes unless one block
// is larger) that hold a compact variable, from the planned sizes alone.
size_t compact_run_bytes(const pf::Image& image, const std::vector<size_t>& blocks,
                         const std::vector<pf::BlockSummary>& summaries,
                         const std::vector<pf::BlockPlacement>& placed) {
  size_t held = 0, run = 0;
  int64_t run_at = 0;
  bool run_compact = false;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const bool follows = int64_t(placed[i].offset) == run_at + int64_t(run);
    if (run > 0 && (!follows || run + summaries[i].size > kWriteChunk)) {
      if (run_compact) held += run;
      run = 0;
      run_compact = false;
    }
    if (run == 0) run_at = int64_t(placed[i].offset);
    run += summaries[i].size;
    run_compact = run_compact || pf::image_block_has_compact(image, blocks[i]);
  }
  return run_compact ? held + run : held;
}

Status write_blocks(NativeFile& nf, const pf::Image& image, const std::vector<size_t>& blocks,
                    const std::vector<pf::BlockSummary>& summaries, const std::vector<pf::BlockPlacement>& placed,
                    const io::PrivatePlan& plan, const pf::BlockPlacer& placer, pf::Superblock* sb, Written* out) {
  EXA_RETURN_IF_ERROR(nf.file.use_byte_view());  // a data call may have left its view
  // Known beforehand: a rank whose runs with compact variables would come to
  // more than io::kHoldWrittenMax keeps none, so its one write buffer is
  // reused from the first run on (kept runs would each take a fresh buffer,
  // up to 64 MiB of pages touched once and dropped: dataset_1G at 8 ranks).
  out->over = compact_run_bytes(image, blocks, summaries, placed) > io::kHoldWrittenMax;
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
  uint32_t root_crc = 0;
  if (st.is_ok() && nf.file.rank() == 0 && placer.root_by_rank0()) {
    out->root = pf::root_block(nf.ds.header().gatts);
    root_crc = crc32c(out->root.data(), out->root.size());
    st = nf.file.write_at(pf::kFirstRegion, out->root.data(), int64_t(out->root.size()));
    io::note_metadata_written(1, int64_t(out->root.size()));
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  // The index table: every rank's entries (with their CRCs) to rank 0, a
  // batch of pages at a time.
  std::vector<io::OwnEntry> entries;
  entries.reserve(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) entries.push_back({&summaries[i], &placed[i], crcs[i]});
  crcs = {};
  return io::write_index_in_rounds(nf.file, plan, placer, entries, root_crc, sb, &out->table);
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
  std::vector<pf::BlockSummary> summaries;
  std::vector<size_t> blocks;
  // The plan first: it finds each variable's size once, and the compact
  // decision reads it there (plan_image only records `compact`). It is
  // compact_variables' rule for a file whose every variable is new and none
  // a record variable (this path has no record dimension): at most
  // exa_compact_max bytes, no data yet.
  Status st = pf::plan_image(nf.ds.header(), &image);
  if (st.is_ok()) {
    image.compact.assign(image.var_size.size(), pf::kNotCompact);
    if (nf.hints.compact_max > 0)
      for (size_t id = 0; id < image.var_size.size(); ++id)
        if (image.var_size[id] <= nf.hints.compact_max) image.compact[id] = pf::kCompactPending;
  }
  if (st.is_ok()) st = pf::summarize_image(nf.ds.header(), image, &summaries, &blocks);
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), st));
  nf.enddef_now.layout = MPI_Wtime() - t;

  // Step 2: rank 0 places everything, a chunk of summaries at a time.
  t = MPI_Wtime();
  const int64_t align = hints.header_align > 0 ? hints.header_align : 4096;
  pf::BlockPlacer placer(nf.ds.header().gatts);  // (rank 0's: the totals of the placement)
  io::PrivatePlan plan;
  std::vector<pf::BlockPlacement> placed;
  EXA_RETURN_IF_ERROR(io::place_in_rounds(nf.comm(), summaries, nf.ds.header().gatts, align, &plan, &placed, &placer));
  if (plan.shared) return Status::ok();  // a block of several ranks: merge
  std::vector<int64_t> dim_positions, var_positions;
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), pf::apply_placements(nf.ds.mutable_header(), image, blocks, placed,
                                                               &dim_positions, &var_positions)));
  nf.enddef_now.merge_check += MPI_Wtime() - t;

  // Step 3: blocks, index table, fill values, superblock.
  t = MPI_Wtime();
  pf::Superblock sb;
  sb.generation = nf.superblock.generation + 1;
  sb.ndims = plan.ndims;
  sb.nvars = plan.nvars;
  sb.index_offset = uint64_t(plan.index_offset);
  sb.index_size = uint64_t(plan.index_size);
  sb.nblocks = plan.nblocks;
  sb.file_end = uint64_t(std::max(plan.data_end, plan.index_offset + plan.index_size));
  Written written;
  EXA_RETURN_IF_ERROR(write_blocks(nf, image, blocks, summaries, placed, plan, placer, &sb, &written));
  // The plan is spent: its memory goes before the dataset's id maps are made.
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
  EXA_RETURN_IF_ERROR(io::share_written_root(nf.file, sb, written.table, plan.root_writer, written.root,
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
