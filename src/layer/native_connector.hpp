// The terminal connector: files in the netCDF classic formats through
// MPI-IO, with the in-memory model kept identical on every rank.
#pragma once

#include <atomic>

#include <chrono>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#include "convert/external.hpp"
#include "io/access_plan.hpp"
#include "io/hints.hpp"
#include "io/kept_datatype.hpp"
#include "util/buffer_pool.hpp"
#include "util/byte_buffer.hpp"
#include "io/mpi_file.hpp"
#include "layer/compact_store.hpp"
#include "layer/connector.hpp"
#include "model/dataset.hpp"
#include "format/partitioned.hpp"
#include "format/reusable_space.hpp"
#include "model/define_merge.hpp"

namespace exa::layer {

// A posted nonblocking request, with copies of everything the caller may
// free after posting (start/count/stride/imap live in the selection).
struct PendingRequest {
  bool put = false;
  bool buffered = false;           // bput: `external` already holds the data
  int varid = 0;
  io::VarGeometry geo;
  std::vector<io::Selection> pieces;  // one, or the subarrays of a varn call
  std::vector<MPI_Offset> imap;       // only with one piece
  void* buf = nullptr;              // gets only: puts are converted at post
  MPI_Offset bufcount = -1;
  io::KeptDatatype buftype;        // gets: our own duplicate (the caller may free its type)
  nc_type memtype = NC_NAT;
  nc_type xtype = NC_NAT;
  int64_t nelems = 0;
  bool cdf5 = false;
  convert::ErangeFill erange = convert::ErangeFill::type_default();  // what NC_ERANGE elements become
  ByteBuffer external;             // puts: converted at post
};

// Everything the native connector knows about one open file.
class NativeFile : public FileState {
 public:
  MPI_Comm comm() const override { return file.comm(); }

  io::MpiFile file;   // opened on the file's communicator: collective I/O, header
  io::MpiFile indep;  // opened on MPI_COMM_SELF while independent data mode needs it
  // Split independent puts (extension "split_put", layer/native_split.cpp):
  // the I/O steps of several puts run at once, each on a handle of its own
  // (Open MPI serialises the calls on one MPI_File: a lock per handle). Lane
  // 0 is `indep`; more are opened on MPI_COMM_SELF as needed and synced and
  // closed wherever `indep` is (sync_lanes, close_lanes). lane_busy[k]: lane
  // k's I/O step is running (changed by the plan and finish steps only).
  std::vector<std::unique_ptr<io::MpiFile>> lanes;
  std::vector<bool> lane_busy;
  io::Hints hints;
  model::Dataset ds;
  std::string path;
  int mode = 0;
  bool define_mode = false;
  bool indep_mode = false;
  bool never_ended = false;  // created and not yet through enddef: abort deletes it
  bool in_redef = false;
  bool numrecs_dirty = false;  // grown by independent puts, not yet agreed
  // PNETCDF_SAFE_MODE=1 when the file was created or opened: a nonblocking flush
  // then also agrees on a write that failed on one rank (an allreduce PnetCDF
  // makes only in safe mode).
  bool safe_mode = false;
  // Single writer, multiple readers (include/exacdf_swmr.h, docs/format.md):
  // a writer orders every commit (data synced, then numrecs or superblock,
  // synced); a reader follows the writer's commits by refreshing.
  enum class Swmr { kOff, kWrite, kRead };
  Swmr swmr = Swmr::kOff;
  std::chrono::steady_clock::time_point refreshed_at;  // a reader's view: opened or refreshed then
  // A writer with a refresh bound (exa_swmr_refresh_bound): space older
  // generations referenced, written again once no reader can be using it.
  format::ReusableSpace reusable;
  // A reader's decoded blocks by (offset, size, CRC), kept across refreshes
  // while the view uses them: a refresh reads again only blocks that changed.
  struct CachedBlock {
    format::partitioned::Block block;
    uint64_t used_in = 0;  // the last view (refreshes) that used it
  };
  std::map<std::tuple<uint64_t, uint64_t, uint32_t>, CachedBlock> block_cache;
  uint64_t refreshes = 0;
  // A writer's commit timer (exa_swmr_commit_interval): started by the first
  // collective record put after the commit of generation timer_generation.
  uint64_t timer_generation = 0;
  std::chrono::steady_clock::time_point timer_started;
  // Independent define mode (EXA_INDEP_DEFINE or exa_define_mode=independent):
  // define calls are local and enddef merges (layer/native_merge.cpp).
  bool independent_define = false;
  model::NewObjectBase define_base;  // where this define phase's new objects start
  bool old_touched = false;  // this define phase changed objects of an earlier one
  // During an independent enddef: this rank's objects end here (local ids
  // below are its own, those from define_base on new in this phase).
  model::NewObjectBase own_end;
  // The partitioned format (docs/format.md): the current superblock.
  bool partitioned = false;
  format::partitioned::Superblock superblock;
  // The generation an open settled on when it passed over a newer, damaged
  // one (0: none); what it passed over (rank 0). A commit overwrites that slot.
  uint64_t opened_below_damage = 0;
  std::string damage_passed_over;
  // The index table as on disk: a reader's loads its pages on use; the
  // dataset of a lazily opened file shares it.
  std::shared_ptr<format::partitioned::PagedIndex> index;
  CompactStore compact;  // data of compact variables: reads kept, writes until committed
  // Index blocks (layer/index_blocks.hpp): this handle set the superblock's
  // writer-open flag (at its open, or by committing index blocks) and clears
  // it at close once the query engine has applied this process's puts to
  // them (index_marks_applied); pieces stored for the next index commit end
  // at index_store_end (0: none).
  bool index_writer = false;
  bool index_marks_applied = false;
  uint64_t index_store_end = 0;
  // Space index commits of a writer without SWMR stopped referencing (old
  // header blocks, chunk pieces, index tables, record blocks moved): index
  // commits write there again two generations later (an SWMR writer uses
  // `reusable`, with its refresh bound).
  format::ReusableSpace index_reusable;
  // Positions in the index table of the blocks that hold record variables
  // (those an index commit writes anew, native_index_blocks.cpp), once
  // found; forgotten whenever a new table replaces the index (open, enddef).
  std::optional<std::vector<uint64_t>> record_blocks;
  EnddefStats last_enddef;   // of the last successful enddef
  EnddefStats enddef_now;    // being measured
  int fill_mode = NC_NOFILL;
  format::Header before_redef;  // the header as on disk when redef began
  format::Layout layout_before_redef;
  std::map<int, PendingRequest> pending;  // by request id (per kind: posting order)
  // Request ids as PnetCDF 1.12.3 gives them: puts (iput, bput) 0, 2, 4, ...,
  // gets 1, 3, 5, ...; a kind's sequence starts again when none of its
  // requests is pending. Taken by post, or ahead of it by reserve_request_id
  // (a put's, from the program's thread while a connector's thread posts
  // below: under ids_mutex).
  struct RequestIds {
    std::mutex mutex;
    int next_put = 0, next_get = 0;  // the kind's next sequence number
    int pending_puts = 0, pending_gets = 0;  // posted or reserved, not yet done
    int take(bool put);                       // a new id of the kind, counted pending
    void done(bool put);                      // one of the kind completed or cancelled
    void clear();                             // none pending (close)
  } request_ids;
  MPI_Offset attached_size = -1;  // bput buffer size; -1: none attached
  MPI_Offset attached_used = 0;
  ByteBuffer scratch;  // external bytes of blocking calls, reused call to call
  // The external bytes of completed puts, for the next posts (a step of
  // nonblocking puts needs the same buffers again; new ones were new pages).
  BufferPool put_buffers{int64_t{64} << 20};
};

class NativeConnector final : public Connector {
 public:
  const char* name() const override { return "native"; }

  Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                std::unique_ptr<FileState>* out) override;
  Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
              std::unique_ptr<FileState>* out) override;
  Status enddef(FileState& f, const format::LayoutHints* explicit_args) override;
  Status redef(FileState& f) override;
  Status sync(FileState& f) override;
  Status flush(FileState& f) override;
  Status sync_numrecs(FileState& f) override;
  Status refresh(FileState& f) override;
  Status begin_indep(FileState& f) override;
  Status end_indep(FileState& f) override;
  Status close(FileState& f) override;
  Status abort(FileState& f) override;
  Status set_fill(FileState& f, int fill_mode, int* old_mode) override;
  Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) override;
  Status file_info(FileState& f, MPI_Info* info_used) override;

  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override;
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids,
                 int* id) override;
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* fill_value) override;
  Status rename_dim(FileState& f, int dimid, const char* name) override;
  Status rename_var(FileState& f, int varid, const char* name) override;
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override;
  Status del_att(FileState& f, int varid, const char* name) override;
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override;

  const model::Dataset& dataset(FileState& f) override;
  FileFacts facts(FileState& f) override;
  MPI_Offset io_calls(FileState& f) override;
  CallModes modes(FileState& f) override;
  Status get_att(FileState& f, int varid, const char* name, void* values,
                 nc_type memtype) override;

  // A lazily opened partitioned file: the variable's block, if some rank
  // lacks it, read once and shared (share_blocks_of_var).
  void prepare_collective(FileState& f, int varid) override;
  Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) override;
  Status put(FileState& f, const DataRequest& req) override;
  Status get(FileState& f, const DataRequest& req) override;
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override;

  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override;
  int reserve_request_id(FileState& f) override;
  Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) override;
  Status cancel(FileState& f, int num, int* reqids, int* statuses) override;
  Status inq_nreqs(FileState& f, int* nreqs) override;
  Status buffer_attach(FileState& f, MPI_Offset bufsize) override;
  Status buffer_detach(FileState& f) override;
  Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) override;
  // "index_blocks" (layer/index_blocks.hpp; layer/native_index_blocks.cpp),
  // "split_put" (layer/connector.hpp SplitPut; layer/native_split.cpp).
  Status extension(FileState& f, const char* name, void* args) override;
};

// Default format of ncmpi_create when cmode names none (ncmpi_set_default_format).
int default_create_format();
void set_default_create_format(int format);

// exa_debug_concurrent_writes: the most I/O steps of split puts that ran at
// once in the process (since the last reset; reset: start again from those
// running now).
int split_io_peak(bool reset);

}  // namespace exa::layer
