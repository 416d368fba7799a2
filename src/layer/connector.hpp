// The object layer: every ncmpi_* call reaches the file through a Connector.
// Connectors stack, each holding the next (native is the terminal one), so
// tracing, safe-mode checking, asynchronous I/O and caching can be added
// without touching the API. A connector is stateless per file except for
// what it keeps in its FileState.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include "format/layout.hpp"
#include "format/partitioned.hpp"
#include "model/dataset.hpp"
#include "util/status.hpp"

namespace exa::layer {

// Per-file state owned by the terminal connector; upper connectors may wrap it.
class FileState {
 public:
  virtual ~FileState() = default;
  virtual MPI_Comm comm() const = 0;
};

// What an open file is, besides its metadata (answers for ncmpi_inq_*).
// Where the last enddef spent its time (exa_inq_enddef_stats).
struct EnddefStats {
  double merge_check = 0, merge_exchange = 0, layout = 0, header_io = 0, total = 0;
  int64_t new_objects = 0, owned_objects = 0;
};

struct FileFacts {
  std::string path;
  int mode = 0;              // cmode/omode as given (NC_WRITE, NC_64BIT_DATA, ...)
  bool define_mode = false;
  bool indep_mode = false;
  bool independent_define = false;  // EXA_INDEP_DEFINE: define calls are local
  int fill_mode = NC_NOFILL;
  MPI_Offset put_bytes = 0;  // bytes written by data calls on this rank
  MPI_Offset get_bytes = 0;  // bytes read by data calls on this rank
  MPI_Offset io_calls = 0;   // MPI-IO read/write calls made by this rank
  int striping_size = 0;
  int striping_count = 0;
  EnddefStats last_enddef;
  // Partitioned files once written (loads its pages on use); null otherwise.
  format::partitioned::PagedIndex* blocks = nullptr;
  // Partitioned files: the generation of the current superblock (0 before
  // the first enddef, and for classic files), and whether the open passed
  // over a newer generation that is damaged (what: generation_problem, rank 0).
  int64_t generation = 0;
  bool newer_damaged = false;
  std::string generation_problem;
  int64_t heartbeat_us = 0;  // the SWMR writer's heartbeat of that generation (0: none)
};

// One data access: a variable, a selection, a memory buffer. Pointers not
// used by the access kind are null (stride null = 1, imap null = contiguous).
struct DataRequest {
  int varid = 0;
  const MPI_Offset* start = nullptr;
  const MPI_Offset* count = nullptr;
  const MPI_Offset* stride = nullptr;
  const MPI_Offset* imap = nullptr;
  void* buf = nullptr;             // for puts the layer only reads it
  MPI_Offset bufcount = -1;        // flexible API: elements of buftype; -1 for typed calls
  MPI_Datatype buftype = MPI_DATATYPE_NULL;
  nc_type memtype = NC_NAT;        // typed calls: memory type; NC_NAT: derive from buftype
  bool collective = true;
  // varn: npieces subarrays (starts[i], counts[i]) whose elements follow one
  // another in the buffer; start/count are then unused.
  bool varn = false;
  int npieces = 0;
  MPI_Offset* const* starts = nullptr;
  MPI_Offset* const* counts = nullptr;
  // A blocking call made of requests (varn): posting checks the data mode too.
  bool blocking = false;
  // The NC code of the argument checks made above the stack (layer/data_checks.hpp)
  // when they failed on a collective call that still takes part with nothing.
  int args_error = NC_NOERR;
  // The API call's name (for a connector's messages and error records), or null.
  const char* call = nullptr;
  // A put whose buffer (contiguous, memtype the variable's type) already holds
  // the values in the file's byte order: native writes it as it is. Set by a
  // connector right above native for its own copy (async's pool swaps it).
  bool external_order = false;
};

// The arguments of Connector::extension(f, "split_put", &args), which the
// native connector answers: an independent put cut into three steps so that
// the I/O of several puts of one file runs at once (layer/native_split.cpp).
// The extension call itself is the plan step; `finish` must be called once
// for every split put, with the outcome of `io`. Threading contract: the
// plan step and `finish` run serialised with every other call on the file;
// `io` touches no state of the file and may run beside other split puts'
// `io` steps (disjoint regions: the caller orders overlapping ones), but
// beside no other call on the file. Between the plan step and `finish` the
// put's buffer must stay as it is. split = false: not split (a collective
// put, a conversion, a compact variable...); the caller makes the put.
struct SplitPut {
  const DataRequest* req = nullptr;                 // in
  bool split = false;                               // out
  std::function<Status()> io;                       // out: the writes
  std::function<Status(const Status& io)> finish;   // out: numrecs; the put's outcome
};

// The modes a data call's checks need (layer/data_checks.hpp); no allocation.
struct CallModes {
  bool writable = false;
  bool define_mode = false;
  bool indep_mode = false;
};

// The answer of an inquiry: reads the metadata it is given (a borrowed
// callable, valid during the call; no allocation).
class InquiryAnswer {
 public:
  template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, InquiryAnswer>)
  InquiryAnswer(F& fn)  // NOLINT: implicit on purpose (a lambda at the call)
      : fn_(&fn), call_([](void* p, const model::Dataset& ds) { return (*static_cast<F*>(p))(ds); }) {}
  Status operator()(const model::Dataset& ds) const { return call_(fn_, ds); }

 private:
  void* fn_;
  Status (*call_)(void*, const model::Dataset&);
};

// The kinds of nonblocking request (ncmpi_iput_*, ncmpi_iget_*, ncmpi_bput_*).
enum class PostKind { kIput, kIget, kBput };

class Connector {
 public:
  virtual ~Connector() = default;
  virtual const char* name() const = 0;

  // Files (collective).
  virtual Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                        std::unique_ptr<FileState>* out) = 0;
  virtual Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
                      std::unique_ptr<FileState>* out) = 0;
  // explicit_args: the h_minfree/v_align/v_minfree/r_align of ncmpi__enddef, or null.
  virtual Status enddef(FileState& f, const format::LayoutHints* explicit_args) = 0;
  virtual Status redef(FileState& f) = 0;
  virtual Status sync(FileState& f) = 0;
  virtual Status flush(FileState& f) = 0;
  virtual Status sync_numrecs(FileState& f) = 0;
  // An SWMR reader moves to the newest committed generation (exa_refresh).
  virtual Status refresh(FileState&) { return {NC_ENOTSUPPORT, "refresh is not supported here"}; }
  virtual Status begin_indep(FileState& f) = 0;
  virtual Status end_indep(FileState& f) = 0;
  virtual Status close(FileState& f) = 0;
  virtual Status abort(FileState& f) = 0;
  virtual Status set_fill(FileState& f, int fill_mode, int* old_mode) = 0;
  virtual Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) = 0;
  virtual Status file_info(FileState& f, MPI_Info* info_used) = 0;

  // Define calls (collective in PnetCDF's sense: every rank makes the same call).
  virtual Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) = 0;
  virtual Status def_var(FileState& f, const char* name, nc_type type, int ndims,
                         const int* dimids, int* id) = 0;
  virtual Status def_var_fill(FileState& f, int varid, int no_fill, const void* fill_value) = 0;
  virtual Status rename_dim(FileState& f, int dimid, const char* name) = 0;
  virtual Status rename_var(FileState& f, int varid, const char* name) = 0;
  // memtype: the C type of `values` (NC_CHAR for text; the xtype itself for ncmpi_put_att).
  virtual Status put_att(FileState& f, int varid, const char* name, nc_type xtype,
                         MPI_Offset nelems, const void* values, nc_type memtype) = 0;
  virtual Status del_att(FileState& f, int varid, const char* name) = 0;
  virtual Status rename_att(FileState& f, int varid, const char* name, const char* new_name) = 0;

  // Inquiry (local). The references stay valid until the next call on f.
  virtual const model::Dataset& dataset(FileState& f) = 0;
  virtual FileFacts facts(FileState& f) = 0;
  // facts(f).io_calls without building the whole FileFacts (no allocation):
  // the trace connector asks it on every call.
  virtual MPI_Offset io_calls(FileState& f) { return facts(f).io_calls; }
  // The file's modes as the next call sees them (a connector that defers
  // define-mode changes answers with its own), cheaply: asked on every data call.
  virtual CallModes modes(FileState& f) {
    FileFacts x = facts(f);
    return {(x.mode & NC_WRITE) != 0, x.define_mode, x.indep_mode};
  }
  virtual Status get_att(FileState& f, int varid, const char* name, void* values,
                         nc_type memtype) = 0;
  // An inquiry (ncmpi_inq_*, the attribute inquiries) as one call through the
  // stack: `call` names the API function; `answer` reads the metadata. A
  // connector may see it (trace), answer it after the operations it depends
  // on (async), or from metadata of its own. Native: answer(dataset(f)).
  virtual Status inquire(FileState& f, const char* call, InquiryAnswer answer) { return answer(dataset(f)); }

  // Data.
  // Before a collective data call names `varid` (every rank calls it): a
  // connector may bring what the call needs onto every rank at once.
  virtual void prepare_collective(FileState& f, int varid) {}
  // The argument checks of a data call without its I/O (safe mode agrees on
  // them before any rank writes). call_only: mode and id only (vard).
  virtual Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) {
    return Status::ok();
  }
  virtual Status put(FileState& f, const DataRequest& req) = 0;
  virtual Status get(FileState& f, const DataRequest& req) = 0;
  // A user-built file type relative to the variable's begin (ncmpi_*_vard).
  virtual Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf,
                      MPI_Offset bufcount, MPI_Datatype buftype, bool put, bool collective) = 0;

  // Nonblocking requests. post() keeps the request (a bput converts and
  // copies the data into the attached buffer at once); wait() completes
  // them with one MPI-IO call for the puts and one for the gets (collective
  // in wait_all). num may be NC_REQ_ALL, NC_PUT_REQ_ALL or NC_GET_REQ_ALL.
  //
  // Requests are objects each layer keeps under one id, the one the user
  // sees (PnetCDF's: the terminal connector gives them out, puts 0, 2, 4,
  // ..., gets 1, 3, 5, ..., each kind starting again when none of it is
  // pending). *reqid on entry: NC_REQ_NULL -- the terminal connector gives the
  // next id -- or an id taken earlier with reserve_request_id, by a
  // connector that kept the request and posts it below only now (async).
  // On return *reqid is the request's id, NC_REQ_NULL if the post failed.
  virtual Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) = 0;
  // The id of a put request (iput, bput) posted later, taken now (forwarded to the terminal
  // connector; safe to call while another thread of the connector calls below).
  virtual int reserve_request_id(FileState& f) = 0;
  virtual Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) = 0;
  virtual Status cancel(FileState& f, int num, int* reqids, int* statuses) = 0;
  virtual Status inq_nreqs(FileState& f, int* nreqs) = 0;
  virtual Status buffer_attach(FileState& f, MPI_Offset bufsize) = 0;
  virtual Status buffer_detach(FileState& f) = 0;
  virtual Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) = 0;

  // An extension call that one connector of the stack answers (the async
  // connector's "async_wait", "async_error"): `args` is that call's own
  // struct. Forwarded down; NC_ENOTSUPPORT when no connector knows it.
  virtual Status extension(FileState& f, const char* name, void* args) {
    return {NC_ENOTSUPPORT, std::string("no connector of the stack answers ") + name};
  }
};

// The connector stack of a file is made per file from its name list
// (layer/connector_stack.hpp: build_connector_stack).

// Whether this rank's environment asks for safe mode (PNETCDF_SAFE_MODE=1).
bool safe_mode_requested();

}  // namespace exa::layer
