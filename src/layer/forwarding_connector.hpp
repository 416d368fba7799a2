// A connector that passes every call to the next one. Stackable connectors
// derive from it and override only what they change.
//
// Per-file state wraps (HDF5 VOL wrap/unwrap): create/open make the next
// connector's FileState and hand it to wrap(), which returns this
// connector's own state holding it (a WrappedState, or a class derived from
// it with the connector's own per-file fields); every forwarded call passes
// below(f), the next layer's state, down. A connector thus never sees
// another layer's state, and the next one never sees this one's.
#pragma once

#include <utility>

#include "layer/connector.hpp"

namespace exa::layer {

// A stacked connector's per-file state: owns the state of the layer below.
class WrappedState : public FileState {
 public:
  explicit WrappedState(std::unique_ptr<FileState> lower) : below_(std::move(lower)) {}
  MPI_Comm comm() const override { return below_->comm(); }
  FileState& below() const { return *below_; }

 private:
  std::unique_ptr<FileState> below_;
};

class ForwardingConnector : public Connector {
 public:
  explicit ForwardingConnector(Connector* next) : next_(next) {}

  Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                std::unique_ptr<FileState>* out) override {
    std::unique_ptr<FileState> lower;
    Status st = next_->create(comm, path, cmode, info, &lower);
    // A file may come with an error (NC_EMULTIDEFINE_CMODE): wrapped all the same.
    if (lower) *out = wrap(std::move(lower));
    return st;
  }
  Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
              std::unique_ptr<FileState>* out) override {
    std::unique_ptr<FileState> lower;
    Status st = next_->open(comm, path, omode, info, &lower);
    if (lower) *out = wrap(std::move(lower));
    return st;
  }
  Status enddef(FileState& f, const format::LayoutHints* a) override { return next_->enddef(below(f), a); }
  Status redef(FileState& f) override { return next_->redef(below(f)); }
  Status sync(FileState& f) override { return next_->sync(below(f)); }
  Status flush(FileState& f) override { return next_->flush(below(f)); }
  Status sync_numrecs(FileState& f) override { return next_->sync_numrecs(below(f)); }
  Status begin_indep(FileState& f) override { return next_->begin_indep(below(f)); }
  Status end_indep(FileState& f) override { return next_->end_indep(below(f)); }
  Status refresh(FileState& f) override { return next_->refresh(below(f)); }
  Status close(FileState& f) override { return next_->close(below(f)); }
  Status abort(FileState& f) override { return next_->abort(below(f)); }
  Status set_fill(FileState& f, int mode, int* old) override { return next_->set_fill(below(f), mode, old); }
  Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) override {
    return next_->fill_var_rec(below(f), varid, recno);
  }
  Status file_info(FileState& f, MPI_Info* info) override { return next_->file_info(below(f), info); }
  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override {
    return next_->def_dim(below(f), name, len, id);
  }
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids,
                 int* id) override {
    return next_->def_var(below(f), name, type, ndims, dimids, id);
  }
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* value) override {
    return next_->def_var_fill(below(f), varid, no_fill, value);
  }
  Status rename_dim(FileState& f, int dimid, const char* name) override {
    return next_->rename_dim(below(f), dimid, name);
  }
  Status rename_var(FileState& f, int varid, const char* name) override {
    return next_->rename_var(below(f), varid, name);
  }
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override {
    return next_->put_att(below(f), varid, name, xtype, nelems, values, memtype);
  }
  Status del_att(FileState& f, int varid, const char* name) override {
    return next_->del_att(below(f), varid, name);
  }
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override {
    return next_->rename_att(below(f), varid, name, new_name);
  }
  const model::Dataset& dataset(FileState& f) override { return next_->dataset(below(f)); }
  FileFacts facts(FileState& f) override { return next_->facts(below(f)); }
  MPI_Offset io_calls(FileState& f) override { return next_->io_calls(below(f)); }
  CallModes modes(FileState& f) override { return next_->modes(below(f)); }
  Status get_att(FileState& f, int varid, const char* name, void* values, nc_type memtype) override {
    return next_->get_att(below(f), varid, name, values, memtype);
  }
  Status inquire(FileState& f, const char* call, InquiryAnswer answer) override {
    return next_->inquire(below(f), call, answer);
  }
  void prepare_collective(FileState& f, int varid) override { next_->prepare_collective(below(f), varid); }
  Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) override {
    return next_->check_data(below(f), req, put, call_only);
  }
  Status put(FileState& f, const DataRequest& req) override { return next_->put(below(f), req); }
  Status get(FileState& f, const DataRequest& req) override { return next_->get(below(f), req); }
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override {
    return next_->vard(below(f), varid, filetype, buf, bufcount, buftype, put, collective);
  }
  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override {
    return next_->post(below(f), req, kind, reqid);
  }
  int reserve_request_id(FileState& f) override { return next_->reserve_request_id(below(f)); }
  Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) override {
    return next_->wait(below(f), num, reqids, statuses, collective);
  }
  Status cancel(FileState& f, int num, int* reqids, int* statuses) override {
    return next_->cancel(below(f), num, reqids, statuses);
  }
  Status inq_nreqs(FileState& f, int* nreqs) override { return next_->inq_nreqs(below(f), nreqs); }
  Status buffer_attach(FileState& f, MPI_Offset size) override { return next_->buffer_attach(below(f), size); }
  Status buffer_detach(FileState& f) override { return next_->buffer_detach(below(f)); }
  Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) override {
    return next_->buffer_usage(below(f), usage, size);
  }
  Status extension(FileState& f, const char* name, void* args) override {
    return next_->extension(below(f), name, args);
  }

 protected:
  Connector* next() const { return next_; }
  // This connector's state for a new file whose next-layer state is `lower`.
  virtual std::unique_ptr<FileState> wrap(std::unique_ptr<FileState> lower) {
    return std::make_unique<WrappedState>(std::move(lower));
  }
  // The next layer's state of a file (f is this connector's own, made by wrap()).
  static FileState& below(FileState& f) { return static_cast<WrappedState&>(f).below(); }

 private:
  Connector* next_;
};

}  // namespace exa::layer
