// Helpers shared by the native connector's source files.
#pragma once

#include "io/fill.hpp"
#include "io/partitioned_io.hpp"
#include "layer/native_connector.hpp"

namespace exa::layer {

inline NativeFile& native(FileState& f) { return static_cast<NativeFile&>(f); }

// Opens this rank's MPI_COMM_SELF handle if it is not open yet. Local.
Status open_indep_handle(NativeFile& nf);
// A partitioned file's index as io::read_partitioned_root gave it: the
// superblock and the PagedIndex (other pages read on use through this
// rank's own handle) the connector and the dataset share. Local.
void attach_index(NativeFile& nf, io::OpenedIndex opened);
// What the dataset of a partitioned file reads a block with (this rank's own handle).
model::Dataset::BlockReader block_reader(NativeFile& nf);
// A partitioned file's layout from its superblock (data mode). Local.
void set_partitioned_layout(NativeFile& nf);
// Tells the file's handles the committed end of the current superblock:
// data reads that find the file shorter are NC_ETRUNC (docs/format.md).
void note_committed_end(NativeFile& nf);

// A partitioned file: loads every page of the index table not yet loaded
// on every rank, each read once and shared (collective; io::share_extents),
// and gives the whole table.
Status load_whole_index(NativeFile& nf, format::partitioned::IndexTable* out);
// Collective: these index pages (the same list on every rank) loaded on
// every rank, each missing one read once and shared.
Status load_index_pages(NativeFile& nf, const std::vector<size_t>& pages);

// A lazily opened partitioned file: loads every block not yet loaded on
// every rank, each read once and shared (collective; io::share_extents).
Status load_every_block(NativeFile& nf);

// A collective data call on a lazily opened partitioned file: the index
// pages, then the blocks, of the variables the ranks name that some rank
// has not loaded yet are read once each and shared (an allgather and an
// allreduce when none is missing).
Status share_blocks_of_var(NativeFile& nf, int varid);

// The fill regions of variables with id >= first_new that are to be filled
// (partitioned files: not compact ones, whose fill is in their block).
std::vector<io::FillRegion> fill_regions_for_new_vars(const NativeFile& nf, int first_new);
// Which variables of a partitioned file keep their data in their block
// (compact), by local id: those that are compact on disk already (offset
// 0), and new fixed-size ones of at most exa_compact_max bytes when the
// file has no record variable (a compact block rewritten past the end of
// the file would land where records grow). Record variables cannot join
// compact ones (NC_ENOTSUPPORT).
Status compact_variables(const NativeFile& nf, int first_new, std::vector<uint8_t>* compact);
// The layout hints of an enddef: info hints, then ncmpi__enddef's arguments.
format::LayoutHints layout_hints(const NativeFile& nf, const format::LayoutHints* explicit_args);
// Records the number of records on disk: the numrecs field of a classic
// header, a new superblock of a partitioned file (collective). !agreed: the
// classic header's field is written by rank 0 with no MPI call (data calls).
// `carried` (agreed only): this rank's I/O outcome, returned by every rank if any failed.
// `ordered` (collective; always so for a partitioned file and for an SWMR
// writer): what the records hold is synced on every rank before numrecs is
// written, and numrecs is synced after -- a crash or a reader never sees a
// count of records not on disk. Unordered (classic, PnetCDF's behaviour and
// MPI calls): rank 0 writes the field, no sync.
Status write_numrecs(NativeFile& nf, int64_t numrecs, bool agreed = true,
                     const Status& carried = Status::ok(), bool ordered = false);
// Collective: this rank's independent handle (local), then every rank's
// writes through the file, synced; agreed.
Status sync_written(NativeFile& nf);

// An SWMR writer of a partitioned file (exa_swmr_commit_interval): whether
// its commit timer has run out (local: the caller agrees), and the commit
// it then makes, the same as ncmpi_flush's (collective).
bool swmr_commit_due(NativeFile& nf);
Status swmr_timer_commit(NativeFile& nf);
// An SWMR reader's view older than its refresh bound: NC_ECANTREAD (data
// reads and blocks first read after the bound; native_data_ops.cpp).
Status check_view_age(const NativeFile& nf);

// Encodes the header in file order on rank 0 and writes it there
// (collective; `carried`: this rank's error from before, agreed with the
// write unless !agreed: io::write_header).
Status write_file_header(NativeFile& nf, const Status& carried = Status::ok(), bool agreed = true);

// Independent define mode: merges what every rank defined since the last
// enddef into every rank's dataset (collective; the same outcome on every
// rank; on error the caller undoes it with model::undo_merge). layer/native_merge.cpp.
Status merge_independent_definitions(NativeFile& nf);
// Collective define mode of a partitioned file on several ranks: that every
// rank defined the file alike (each lays out and writes blocks from its own
// definitions). The first difference as its NC_EMULTIDEFINE_* code, on every
// rank; one allreduce.
Status check_same_definitions(NativeFile& nf);
// The first enddef of a new partitioned file in independent define mode on
// several ranks when every block was defined by one rank only: each rank writes its own
// blocks, rank 0 the index table from their summaries, and each rank keeps
// only its own objects (collective; layer/native_private_blocks.cpp).
// *done false: the ranks' definitions do not allow it (a block or the root
// defined on two ranks, an unlimited dimension); nothing happened and the
// caller merges instead.
Status enddef_private_blocks(NativeFile& nf, const format::LayoutHints& hints, bool* done);

// Index blocks of a partitioned file (layer/native_index_blocks.cpp). At a
// writable open of a file that has them: the superblock's writer-open flag
// set by a new generation -- or, when a writer that had it open never closed
// it (the flag already set), the index blocks dropped, since data may have
// changed under them. Collective.
Status adopt_index_blocks(NativeFile& nf);
// At close, after the other commits: the writer-open flag cleared when this
// handle set it and the query engine applied its puts. Collective.
Status release_index_blocks(NativeFile& nf);

// Split independent puts (layer/native_split.cpp, extension "split_put"):
// the plan step; the extra lanes' writes synced (local; wherever `indep` is
// synced), closed (at close and abort), and their byte and call counts added.
Status split_put(NativeFile& nf, SplitPut* args);
Status sync_lanes(NativeFile& nf);
Status close_lanes(NativeFile& nf);
void lane_counts(const NativeFile& nf, int64_t* written, int64_t* calls);

}  // namespace exa::layer
