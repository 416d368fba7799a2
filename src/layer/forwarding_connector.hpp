// A connector that passes every call to the next one. Stackable connectors
// derive from it and override only what they change.
#pragma once

#include "layer/connector.hpp"

namespace exa::layer {

class ForwardingConnector : public Connector {
 public:
  explicit ForwardingConnector(Connector* next) : next_(next) {}

  Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                std::unique_ptr<FileState>* out) override {
    return next_->create(comm, path, cmode, info, out);
  }
  Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
              std::unique_ptr<FileState>* out) override {
    return next_->open(comm, path, omode, info, out);
  }
  Status enddef(FileState& f, const format::LayoutHints* a) override { return next_->enddef(f, a); }
  Status redef(FileState& f) override { return next_->redef(f); }
  Status sync(FileState& f) override { return next_->sync(f); }
  Status flush(FileState& f) override { return next_->flush(f); }
  Status sync_numrecs(FileState& f) override { return next_->sync_numrecs(f); }
  Status begin_indep(FileState& f) override { return next_->begin_indep(f); }
  Status end_indep(FileState& f) override { return next_->end_indep(f); }
  Status close(FileState& f) override { return next_->close(f); }
  Status abort(FileState& f) override { return next_->abort(f); }
  Status set_fill(FileState& f, int mode, int* old) override { return next_->set_fill(f, mode, old); }
  Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) override {
    return next_->fill_var_rec(f, varid, recno);
  }
  Status file_info(FileState& f, MPI_Info* info) override { return next_->file_info(f, info); }
  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override {
    return next_->def_dim(f, name, len, id);
  }
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids,
                 int* id) override {
    return next_->def_var(f, name, type, ndims, dimids, id);
  }
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* value) override {
    return next_->def_var_fill(f, varid, no_fill, value);
  }
  Status rename_dim(FileState& f, int dimid, const char* name) override {
    return next_->rename_dim(f, dimid, name);
  }
  Status rename_var(FileState& f, int varid, const char* name) override {
    return next_->rename_var(f, varid, name);
  }
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override {
    return next_->put_att(f, varid, name, xtype, nelems, values, memtype);
  }
  Status del_att(FileState& f, int varid, const char* name) override {
    return next_->del_att(f, varid, name);
  }
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override {
    return next_->rename_att(f, varid, name, new_name);
  }
  const model::Dataset& dataset(FileState& f) override { return next_->dataset(f); }
  FileFacts facts(FileState& f) override { return next_->facts(f); }
  MPI_Offset io_calls(FileState& f) override { return next_->io_calls(f); }
  Status get_att(FileState& f, int varid, const char* name, void* values, nc_type memtype) override {
    return next_->get_att(f, varid, name, values, memtype);
  }
  void prepare_collective(FileState& f, int varid) override { next_->prepare_collective(f, varid); }
  Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) override {
    return next_->check_data(f, req, put, call_only);
  }
  Status put(FileState& f, const DataRequest& req) override { return next_->put(f, req); }
  Status get(FileState& f, const DataRequest& req) override { return next_->get(f, req); }
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override {
    return next_->vard(f, varid, filetype, buf, bufcount, buftype, put, collective);
  }
  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override {
    return next_->post(f, req, kind, reqid);
  }
  Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) override {
    return next_->wait(f, num, reqids, statuses, collective);
  }
  Status cancel(FileState& f, int num, int* reqids, int* statuses) override {
    return next_->cancel(f, num, reqids, statuses);
  }
  Status inq_nreqs(FileState& f, int* nreqs) override { return next_->inq_nreqs(f, nreqs); }
  Status buffer_attach(FileState& f, MPI_Offset size) override { return next_->buffer_attach(f, size); }
  Status buffer_detach(FileState& f) override { return next_->buffer_detach(f); }
  Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) override {
    return next_->buffer_usage(f, usage, size);
  }

 protected:
  Connector* next() const { return next_; }

 private:
  Connector* next_;
};

}  // namespace exa::layer
