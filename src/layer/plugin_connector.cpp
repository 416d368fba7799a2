// A connector written in C against include/exacdf_connector.h, loaded from
// EXACDF_PLUGIN_PATH, adapted to the C++ Connector: PluginConnector calls
// the plugin's table with the plugin's own per-file object; the plugin calls
// down through kLowerOps, which calls the C++ connector below with its state.
#include "layer/plugin_connector.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "exacdf_connector.h"
#include "layer/forwarding_connector.hpp"

// An inquiry on its way down (the opaque exacdf_inquiry of the C header):
// the answer reading the metadata, and whether the plugin forwarded it.
struct exacdf_inquiry {
  exa::layer::InquiryAnswer answer;
  bool forwarded = false;
};

namespace exa::layer {

namespace {

// ---- the layer below, as the plugin sees it ----------------------------------------------

// What exacdf_lower_file.file points at: the connector below and its state.
struct LowerHandle {
  Connector* connector = nullptr;
  std::unique_ptr<FileState> state;
};

LowerHandle& lower_of(void* file) { return *static_cast<LowerHandle*>(file); }

template <typename Call>
int lower_call(void* file, Call&& call) {
  LowerHandle& h = lower_of(file);
  try {
    return call(*h.connector, *h.state).code();
  } catch (const std::bad_alloc&) {
    return NC_ENOMEM;
  } catch (...) {
    return NC_EINTERNAL;
  }
}

DataRequest from_c(const exacdf_data_request& r) {
  DataRequest d;
  d.varid = r.varid;
  d.start = r.start;
  d.count = r.count;
  d.stride = r.stride;
  d.imap = r.imap;
  d.buf = r.buf;
  d.bufcount = r.bufcount;
  d.buftype = r.buftype;
  d.memtype = r.memtype;
  d.collective = r.collective != 0;
  d.varn = r.varn != 0;
  d.npieces = r.npieces;
  d.starts = r.starts;
  d.counts = r.counts;
  d.blocking = r.blocking != 0;
  return d;
}

exacdf_data_request to_c(const DataRequest& d) {
  exacdf_data_request r{};
  r.varid = d.varid;
  r.start = d.start;
  r.count = d.count;
  r.stride = d.stride;
  r.imap = d.imap;
  r.buf = d.buf;
  r.bufcount = d.bufcount;
  r.buftype = d.buftype;
  r.memtype = d.memtype;
  r.collective = d.collective ? 1 : 0;
  r.varn = d.varn ? 1 : 0;
  r.npieces = d.npieces;
  r.starts = d.starts;
  r.counts = d.counts;
  r.blocking = d.blocking ? 1 : 0;
  return r;
}

format::LayoutHints enddef_args(const MPI_Offset* a) {
  format::LayoutHints h;
  h.header_minfree = a[0];
  h.enddef_v_align = a[1];
  h.var_minfree = a[2];
  h.enddef_r_align = a[3];
  return h;
}

const MPI_Offset* enddef_args_c(const format::LayoutHints* h, MPI_Offset* a) {
  if (h == nullptr) return nullptr;
  a[0] = h->header_minfree;
  a[1] = h->enddef_v_align;
  a[2] = h->var_minfree;
  a[3] = h->enddef_r_align;
  return a;
}

PostKind post_kind(int kind) {
  return kind == EXACDF_IGET ? PostKind::kIget : kind == EXACDF_BPUT ? PostKind::kBput : PostKind::kIput;
}

int post_kind_c(PostKind kind) {
  return kind == PostKind::kIget ? EXACDF_IGET : kind == PostKind::kBput ? EXACDF_BPUT : EXACDF_IPUT;
}

using C = Connector;
using S = FileState;

const exacdf_file_ops kLowerOps = {
    [](void* f, const MPI_Offset* a) {
      return lower_call(f, [&](C& c, S& s) {
        if (a == nullptr) return c.enddef(s, nullptr);
        format::LayoutHints h = enddef_args(a);
        return c.enddef(s, &h);
      });
    },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.redef(s); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.sync(s); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.flush(s); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.sync_numrecs(s); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.begin_indep(s); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.end_indep(s); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.close(s); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.abort(s); }); },
    [](void* f, int mode, int* old) { return lower_call(f, [&](C& c, S& s) { return c.set_fill(s, mode, old); }); },
    [](void* f, int varid, MPI_Offset recno) {
      return lower_call(f, [&](C& c, S& s) { return c.fill_var_rec(s, varid, recno); });
    },
    [](void* f, MPI_Info* info) { return lower_call(f, [&](C& c, S& s) { return c.file_info(s, info); }); },
    [](void* f, const char* name, MPI_Offset len, int* id) {
      return lower_call(f, [&](C& c, S& s) { return c.def_dim(s, name, len, id); });
    },
    [](void* f, const char* name, nc_type type, int ndims, const int* dimids, int* id) {
      return lower_call(f, [&](C& c, S& s) { return c.def_var(s, name, type, ndims, dimids, id); });
    },
    [](void* f, int varid, int no_fill, const void* value) {
      return lower_call(f, [&](C& c, S& s) { return c.def_var_fill(s, varid, no_fill, value); });
    },
    [](void* f, int id, const char* name) { return lower_call(f, [&](C& c, S& s) { return c.rename_dim(s, id, name); }); },
    [](void* f, int id, const char* name) { return lower_call(f, [&](C& c, S& s) { return c.rename_var(s, id, name); }); },
    [](void* f, int varid, const char* name, nc_type xtype, MPI_Offset n, const void* v, nc_type mt) {
      return lower_call(f, [&](C& c, S& s) { return c.put_att(s, varid, name, xtype, n, v, mt); });
    },
    [](void* f, int varid, const char* name) { return lower_call(f, [&](C& c, S& s) { return c.del_att(s, varid, name); }); },
    [](void* f, int varid, const char* name, const char* new_name) {
      return lower_call(f, [&](C& c, S& s) { return c.rename_att(s, varid, name, new_name); });
    },
    [](void* f, int varid, const char* name, void* v, nc_type mt) {
      return lower_call(f, [&](C& c, S& s) { return c.get_att(s, varid, name, v, mt); });
    },
    [](void* f, const exacdf_data_request* r) { return lower_call(f, [&](C& c, S& s) { return c.put(s, from_c(*r)); }); },
    [](void* f, const exacdf_data_request* r) { return lower_call(f, [&](C& c, S& s) { return c.get(s, from_c(*r)); }); },
    [](void* f, int varid, MPI_Datatype ft, void* buf, MPI_Offset n, MPI_Datatype bt, int put, int coll) {
      return lower_call(f, [&](C& c, S& s) { return c.vard(s, varid, ft, buf, n, bt, put != 0, coll != 0); });
    },
    [](void* f, const exacdf_data_request* r, int kind, int* reqid) {
      return lower_call(f, [&](C& c, S& s) { return c.post(s, from_c(*r), post_kind(kind), reqid); });
    },
    [](void* f, int num, int* ids, int* st, int coll) {
      return lower_call(f, [&](C& c, S& s) { return c.wait(s, num, ids, st, coll != 0); });
    },
    [](void* f, int num, int* ids, int* st) { return lower_call(f, [&](C& c, S& s) { return c.cancel(s, num, ids, st); }); },
    [](void* f, int* n) { return lower_call(f, [&](C& c, S& s) { return c.inq_nreqs(s, n); }); },
    [](void* f, MPI_Offset size) { return lower_call(f, [&](C& c, S& s) { return c.buffer_attach(s, size); }); },
    [](void* f) { return lower_call(f, [](C& c, S& s) { return c.buffer_detach(s); }); },
    [](void* f, MPI_Offset* usage, MPI_Offset* size) {
      return lower_call(f, [&](C& c, S& s) { return c.buffer_usage(s, usage, size); });
    },
    [](void* f, const char* call, exacdf_inquiry* q) {
      if (q == nullptr) return static_cast<int>(NC_EINVAL);
      q->forwarded = true;
      return lower_call(f, [&](C& c, S& s) { return c.inquire(s, call, q->answer); });
    },
    [](void* f, int* reqid) {
      if (reqid == nullptr) return static_cast<int>(NC_EINVAL);
      LowerHandle& h = lower_of(f);
      *reqid = h.connector->reserve_request_id(*h.state);
      return static_cast<int>(*reqid >= 0 ? NC_NOERR : NC_EINTERNAL);
    },
};

// ---- the plugin as a C++ connector ---------------------------------------------------------

class PluginConnector;

// The plugin's per-file object, and the lower file it reaches (owned here:
// the WrappedState's below() is the handle's state).
class PluginFile final : public FileState {
 public:
  PluginFile(PluginConnector* owner, std::unique_ptr<LowerHandle> lower, void* mine)
      : owner_(owner), lower_(std::move(lower)), mine_(mine) {}
  ~PluginFile() override;
  MPI_Comm comm() const override { return lower_->state->comm(); }
  FileState& below() const { return *lower_->state; }
  void* lower() const { return lower_.get(); }
  void* mine() const { return mine_; }

 private:
  PluginConnector* owner_;
  std::unique_ptr<LowerHandle> lower_;
  void* mine_;
};

class PluginConnector final : public Connector {
 public:
  PluginConnector(const exacdf_connector_class* cls, Connector* below) : cls_(cls), below_(below) {
    c_below_.connector = this;
    c_below_.create = [](void* self, MPI_Comm comm, const char* path, int mode, MPI_Info info,
                         exacdf_lower_file* out) {
      return static_cast<PluginConnector*>(self)->lower_open(true, comm, path, mode, info, out);
    };
    c_below_.open = [](void* self, MPI_Comm comm, const char* path, int mode, MPI_Info info,
                       exacdf_lower_file* out) {
      return static_cast<PluginConnector*>(self)->lower_open(false, comm, path, mode, info, out);
    };
  }
  ~PluginConnector() override {
    if (instance_ != nullptr && cls_->term != nullptr) cls_->term(instance_);
  }

  Status init(const ConnectorSettings& settings) {
    std::vector<exacdf_setting> c_settings;
    for (const auto& [k, v] : settings) c_settings.push_back({k.c_str(), v.c_str()});
    if (cls_->init == nullptr) return Status::ok();
    return plugin_status("init", cls_->init(&c_below_, c_settings.data(), int(c_settings.size()), &instance_));
  }

  void release(void* mine) {
    if (mine != nullptr && cls_->release_file != nullptr) cls_->release_file(instance_, mine);
  }

  const char* name() const override { return cls_->name; }

  Status create(MPI_Comm comm, const std::string& path, int cmode, MPI_Info info,
                std::unique_ptr<FileState>* out) override {
    return open_with(true, comm, path, cmode, info, out);
  }
  Status open(MPI_Comm comm, const std::string& path, int omode, MPI_Info info,
              std::unique_ptr<FileState>* out) override {
    return open_with(false, comm, path, omode, info, out);
  }

  Status enddef(FileState& f, const format::LayoutHints* a) override {
    MPI_Offset args[4];
    return call("enddef", f, &exacdf_file_ops::enddef, enddef_args_c(a, args));
  }
  Status redef(FileState& f) override { return call("redef", f, &exacdf_file_ops::redef); }
  Status sync(FileState& f) override { return call("sync", f, &exacdf_file_ops::sync); }
  Status flush(FileState& f) override { return call("flush", f, &exacdf_file_ops::flush); }
  Status sync_numrecs(FileState& f) override { return call("sync_numrecs", f, &exacdf_file_ops::sync_numrecs); }
  Status begin_indep(FileState& f) override { return call("begin_indep", f, &exacdf_file_ops::begin_indep); }
  Status end_indep(FileState& f) override { return call("end_indep", f, &exacdf_file_ops::end_indep); }
  Status close(FileState& f) override { return call("close", f, &exacdf_file_ops::close); }
  Status abort(FileState& f) override { return call("abort", f, &exacdf_file_ops::abort); }
  Status set_fill(FileState& f, int mode, int* old) override {
    return call("set_fill", f, &exacdf_file_ops::set_fill, mode, old);
  }
  Status fill_var_rec(FileState& f, int varid, MPI_Offset recno) override {
    return call("fill_var_rec", f, &exacdf_file_ops::fill_var_rec, varid, recno);
  }
  Status file_info(FileState& f, MPI_Info* info) override { return call("file_info", f, &exacdf_file_ops::file_info, info); }
  Status def_dim(FileState& f, const char* name, MPI_Offset len, int* id) override {
    return call("def_dim", f, &exacdf_file_ops::def_dim, name, len, id);
  }
  Status def_var(FileState& f, const char* name, nc_type type, int ndims, const int* dimids, int* id) override {
    return call("def_var", f, &exacdf_file_ops::def_var, name, type, ndims, dimids, id);
  }
  Status def_var_fill(FileState& f, int varid, int no_fill, const void* value) override {
    return call("def_var_fill", f, &exacdf_file_ops::def_var_fill, varid, no_fill, value);
  }
  Status rename_dim(FileState& f, int dimid, const char* name) override {
    return call("rename_dim", f, &exacdf_file_ops::rename_dim, dimid, name);
  }
  Status rename_var(FileState& f, int varid, const char* name) override {
    return call("rename_var", f, &exacdf_file_ops::rename_var, varid, name);
  }
  Status put_att(FileState& f, int varid, const char* name, nc_type xtype, MPI_Offset nelems,
                 const void* values, nc_type memtype) override {
    return call("put_att", f, &exacdf_file_ops::put_att, varid, name, xtype, nelems, values, memtype);
  }
  Status del_att(FileState& f, int varid, const char* name) override {
    return call("del_att", f, &exacdf_file_ops::del_att, varid, name);
  }
  Status rename_att(FileState& f, int varid, const char* name, const char* new_name) override {
    return call("rename_att", f, &exacdf_file_ops::rename_att, varid, name, new_name);
  }
  // dataset/facts (what data calls and exa_inq_* read) are the layer below's.
  // An SWMR reader's refresh has no entry in version 1 of the table: the layer below does it.
  Status refresh(FileState& f) override { return below_->refresh(below(f)); }
  const model::Dataset& dataset(FileState& f) override { return below_->dataset(below(f)); }
  FileFacts facts(FileState& f) override { return below_->facts(below(f)); }
  MPI_Offset io_calls(FileState& f) override { return below_->io_calls(below(f)); }
  Status get_att(FileState& f, int varid, const char* name, void* values, nc_type memtype) override {
    return call("get_att", f, &exacdf_file_ops::get_att, varid, name, values, memtype);
  }
  // The plugin sees the inquiry and forwards it (or refuses it with a code).
  Status inquire(FileState& f, const char* call, InquiryAnswer answer) override {
    if (cls_->ops.inquire == nullptr) return below_->inquire(below(f), call, answer);
    exacdf_inquiry q{answer};
    const int rc = cls_->ops.inquire(static_cast<PluginFile&>(f).mine(), call, &q);
    if (rc == NC_NOERR && !q.forwarded)
      return {NC_EINTERNAL, std::string("connector ") + cls_->name + " answered " + call +
                                " without forwarding it: the results are unset"};
    return plugin_status(call, rc);
  }
  int reserve_request_id(FileState& f) override {
    if (cls_->ops.reserve_request == nullptr) return below_->reserve_request_id(below(f));
    int id = NC_REQ_NULL;
    if (cls_->ops.reserve_request(static_cast<PluginFile&>(f).mine(), &id) != NC_NOERR) return NC_REQ_NULL;
    return id;
  }
  void prepare_collective(FileState& f, int varid) override { below_->prepare_collective(below(f), varid); }
  Status check_data(FileState& f, const DataRequest& req, bool put, bool call_only) override {
    return below_->check_data(below(f), req, put, call_only);
  }
  Status put(FileState& f, const DataRequest& req) override {
    exacdf_data_request r = to_c(req);
    return call("put", f, &exacdf_file_ops::put, &r);
  }
  Status get(FileState& f, const DataRequest& req) override {
    exacdf_data_request r = to_c(req);
    return call("get", f, &exacdf_file_ops::get, &r);
  }
  Status vard(FileState& f, int varid, MPI_Datatype filetype, void* buf, MPI_Offset bufcount,
              MPI_Datatype buftype, bool put, bool collective) override {
    return call("vard", f, &exacdf_file_ops::vard, varid, filetype, buf, bufcount, buftype, put ? 1 : 0, collective ? 1 : 0);
  }
  Status post(FileState& f, const DataRequest& req, PostKind kind, int* reqid) override {
    exacdf_data_request r = to_c(req);
    return call("post", f, &exacdf_file_ops::post, &r, post_kind_c(kind), reqid);
  }
  Status wait(FileState& f, int num, int* reqids, int* statuses, bool collective) override {
    return call("wait", f, &exacdf_file_ops::wait, num, reqids, statuses, collective ? 1 : 0);
  }
  Status cancel(FileState& f, int num, int* reqids, int* statuses) override {
    return call("cancel", f, &exacdf_file_ops::cancel, num, reqids, statuses);
  }
  Status inq_nreqs(FileState& f, int* nreqs) override { return call("inq_nreqs", f, &exacdf_file_ops::inq_nreqs, nreqs); }
  Status buffer_attach(FileState& f, MPI_Offset size) override {
    return call("buffer_attach", f, &exacdf_file_ops::buffer_attach, size);
  }
  Status buffer_detach(FileState& f) override { return call("buffer_detach", f, &exacdf_file_ops::buffer_detach); }
  Status buffer_usage(FileState& f, MPI_Offset* usage, MPI_Offset* size) override {
    return call("buffer_usage", f, &exacdf_file_ops::buffer_usage, usage, size);
  }

 private:
  static FileState& below(FileState& f) { return static_cast<PluginFile&>(f).below(); }

  Status plugin_status(const char* what, int rc) const {
    if (rc == NC_NOERR) return Status::ok();
    return {rc, std::string("connector ") + cls_->name + ": " + what + " failed"};
  }

  // The plugin's op with its per-file object; a NULL op is the same call
  // on the layer below, made through the lower table as the plugin would.
  template <typename Op, typename... Args>
  Status call(const char* what, FileState& f, Op exacdf_file_ops::*member, Args... args) {
    auto& pf = static_cast<PluginFile&>(f);
    if (Op op = cls_->ops.*member; op != nullptr) return plugin_status(what, op(pf.mine(), args...));
    const int rc = (kLowerOps.*member)(pf.lower(), args...);
    return rc == NC_NOERR ? Status::ok() : Status{rc, std::string(what) + " failed below connector " + cls_->name};
  }

  // Called by the plugin (through c_below_) inside its create/open.
  int lower_open(bool create, MPI_Comm comm, const char* path, int mode, MPI_Info info, exacdf_lower_file* out) {
    if (pending_ != nullptr || out == nullptr || path == nullptr) return NC_EINVAL;
    auto handle = std::make_unique<LowerHandle>();
    handle->connector = below_;
    Status st = create ? below_->create(comm, path, mode, info, &handle->state)
                       : below_->open(comm, path, mode, info, &handle->state);
    if (handle->state) {
      out->ops = &kLowerOps;
      out->file = handle.get();
      pending_ = std::move(handle);
    }
    return st.code();
  }

  Status open_with(bool create, MPI_Comm comm, const std::string& path, int mode, MPI_Info info,
                   std::unique_ptr<FileState>* out) {
    auto fn = create ? cls_->create : cls_->open;
    void* mine = nullptr;
    pending_.reset();
    int rc = NC_NOERR;
    if (fn != nullptr) {
      rc = fn(instance_, comm, path.c_str(), mode, info, &mine);
    } else {  // no create/open of its own: the file below, and no object of its own
      exacdf_lower_file lower{};
      rc = lower_open(create, comm, path.c_str(), mode, info, &lower);
    }
    std::unique_ptr<LowerHandle> lower = std::move(pending_);
    if (lower == nullptr) {
      release(mine);
      if (rc != NC_NOERR) return plugin_status(create ? "create" : "open", rc);
      return {NC_EINTERNAL, std::string("connector ") + cls_->name + " did not " +
                                (create ? "create" : "open") + " the file in the layer below"};
    }
    if (mine == nullptr && fn != nullptr && rc == NC_NOERR)
      return {NC_EINTERNAL, std::string("connector ") + cls_->name + " gave no file object"};
    if (mine == nullptr && fn != nullptr) return plugin_status(create ? "create" : "open", rc);
    *out = std::make_unique<PluginFile>(this, std::move(lower), mine);
    return plugin_status(create ? "create" : "open", rc);
  }

  const exacdf_connector_class* cls_;
  Connector* below_;
  exacdf_lower_connector c_below_{};
  void* instance_ = nullptr;
  std::unique_ptr<LowerHandle> pending_;  // the lower file made during a create/open
};

PluginFile::~PluginFile() { owner_->release(mine_); }

// The size of a table of `version` (each version appended calls to ops).
size_t table_size(uint32_t version) {
  if (version == 1) return offsetof(exacdf_connector_class, ops) + offsetof(exacdf_file_ops, inquire);
  return sizeof(exacdf_connector_class);
}

// The plugin's table as one of this version: its own calls, the later ones
// NULL (forwarded). One per plugin, kept as long as the library (forever).
const exacdf_connector_class* full_table(const exacdf_connector_class* cls) {
  static std::mutex mu;
  static auto* tables = new std::map<const exacdf_connector_class*, exacdf_connector_class>;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, made] = tables->try_emplace(cls);
  if (made) std::memcpy(&it->second, cls, table_size(cls->version));
  return &it->second;
}

// The plugin's class, checked: its table must be a version this exacdf
// loads and at least that version's size.
Status check_class(const std::string& name, const std::string& file, const exacdf_connector_class* cls) {
  const std::string where = "plugin " + file + ": ";
  if (cls == nullptr) return {NC_EINVAL, where + EXACDF_CONNECTOR_INFO_SYMBOL " returned NULL"};
  if (cls->version < EXACDF_CONNECTOR_VERSION_MIN || cls->version > EXACDF_CONNECTOR_VERSION)
    return {NC_EINVAL, where + "connector table version " + std::to_string(cls->version) +
                           ", this exacdf loads versions " + std::to_string(EXACDF_CONNECTOR_VERSION_MIN) +
                           " to " + std::to_string(EXACDF_CONNECTOR_VERSION)};
  if (cls->size < table_size(cls->version))
    return {NC_EINVAL, where + "connector table of " + std::to_string(cls->size) + " bytes, expected " +
                           std::to_string(table_size(cls->version))};
  if (cls->name == nullptr || name != cls->name)
    return {NC_EINVAL, where + "the connector calls itself \"" + std::string(cls->name ? cls->name : "") +
                           "\", not \"" + name + "\""};
  return Status::ok();
}

// The first directory of EXACDF_PLUGIN_PATH holding the library, or "".
std::string find_library(const std::string& name) {
  const char* path = std::getenv("EXACDF_PLUGIN_PATH");
  if (path == nullptr) return "";
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::string file = dir + "/libexacdf_connector_" + name + ".so";
    if (access(file.c_str(), F_OK) == 0) return file;
  }
  return "";
}

}  // namespace

Status load_plugin_connector(const std::string& name, ConnectorMaker* out, bool* found) {
  *found = false;
  const std::string file = find_library(name);
  if (file.empty()) return Status::ok();
  *found = true;
  // Never closed: connectors made from it may live until the program ends.
  void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return {NC_EINVAL, "plugin " + file + " does not load: " + (why ? why : "?")};
  }
  void* sym = dlsym(lib, EXACDF_CONNECTOR_INFO_SYMBOL);
  if (sym == nullptr) return {NC_EINVAL, "plugin " + file + " has no symbol " EXACDF_CONNECTOR_INFO_SYMBOL};
  auto info = reinterpret_cast<exacdf_connector_info_fn>(sym);
  const exacdf_connector_class* cls = info();
  EXA_RETURN_IF_ERROR(check_class(name, file, cls));
  cls = full_table(cls);
  *out = [cls](Connector* below, const ConnectorSettings& settings, std::unique_ptr<Connector>* made) -> Status {
    auto c = std::make_unique<PluginConnector>(cls, below);
    EXA_RETURN_IF_ERROR(c->init(settings));
    *made = std::move(c);
    return Status::ok();
  };
  return Status::ok();
}

}  // namespace exa::layer
