// exacdf._core: a thin nanobind layer over the ncmpi_* C API.
//
// Only what must be native lives here: the communicator (mpi4py's C API), MPI_Info, the
// ncmpi_* calls with the numpy buffers they read or fill, and NC_* codes -> exceptions.
// Every Pythonic rule (indexing, define/data mode switching, attributes as properties,
// dtype choice) lives in the Python package. Buffers arrive C-contiguous with the element
// type the caller names (memtype, an nc_type); the GIL is released around I/O.
#include <exacdf.h>
#include <mpi.h>
#include <mpi4py/mpi4py.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace {

// An NC_* code on its way to Python; the translator below makes it exacdf.NCError.
struct NcError {
  int code;
};

void check(int rc) {
  if (rc != NC_NOERR) throw NcError{rc};
}

int world_rank() {
  int initialized = 0;
  int finalized = 0;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized) return -1;
  if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return -1;
  int rank = -1;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) return -1;
  return rank;
}

MPI_Comm comm_of(nb::handle comm) {
  MPI_Comm *c = PyMPIComm_Get(comm.ptr());
  if (c == nullptr) throw nb::python_error();
  return *c;
}

// The hints of a create/open as an MPI_Info freed on scope exit.
class Info {
 public:
  explicit Info(const std::vector<std::pair<std::string, std::string>> &items) {
    if (items.empty()) return;
    if (MPI_Info_create(&info_) != MPI_SUCCESS) throw NcError{NC_EFILE};
    for (const auto &[key, value] : items) {
      if (MPI_Info_set(info_, key.c_str(), value.c_str()) != MPI_SUCCESS) {
        release();
        throw nb::value_error(("MPI_Info_set rejected hint " + key).c_str());
      }
    }
  }
  Info(const Info &) = delete;
  Info &operator=(const Info &) = delete;
  ~Info() { release(); }
  MPI_Info get() const { return info_; }

 private:
  void release() {
    if (info_ != MPI_INFO_NULL) (void)MPI_Info_free(&info_);  // nothing to report at cleanup
    info_ = MPI_INFO_NULL;
  }
  MPI_Info info_ = MPI_INFO_NULL;
};

MPI_Datatype mpi_type(int memtype) {
  switch (memtype) {
    case NC_BYTE: return MPI_SIGNED_CHAR;
    case NC_CHAR: return MPI_CHAR;
    case NC_SHORT: return MPI_SHORT;
    case NC_INT: return MPI_INT;
    case NC_FLOAT: return MPI_FLOAT;
    case NC_DOUBLE: return MPI_DOUBLE;
    case NC_UBYTE: return MPI_UNSIGNED_CHAR;
    case NC_USHORT: return MPI_UNSIGNED_SHORT;
    case NC_UINT: return MPI_UNSIGNED;
    case NC_INT64: return MPI_LONG_LONG_INT;
    case NC_UINT64: return MPI_UNSIGNED_LONG_LONG;
    default: throw NcError{NC_EBADTYPE};
  }
}

// Any C-contiguous CPU array; the Python side has converted it to memtype's dtype. Read-only
// arrays are accepted (a put's data is often a broadcast view); gets are given buffers the
// Python side made and owns, so writing through data() is safe.
using Buffer = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using Offsets = std::vector<MPI_Offset>;

struct Request {
  MPI_Offset nelems;
  MPI_Datatype type;
  void *data;
};

Request request_of(Buffer &buf, int memtype) {
  return Request{static_cast<MPI_Offset>(buf.size()), mpi_type(memtype), const_cast<void *>(buf.data())};
}

const MPI_Offset *or_null(const Offsets &v) { return v.empty() ? nullptr : v.data(); }

int create(nb::handle comm, const std::string &path, int cmode,
           const std::vector<std::pair<std::string, std::string>> &hints) {
  MPI_Comm c = comm_of(comm);
  Info info(hints);
  int ncid = -1;
  int rc;
  {
    nb::gil_scoped_release unlocked;
    rc = ncmpi_create(c, path.c_str(), cmode, info.get(), &ncid);
  }
  check(rc);
  return ncid;
}

int open(nb::handle comm, const std::string &path, int omode,
         const std::vector<std::pair<std::string, std::string>> &hints) {
  MPI_Comm c = comm_of(comm);
  Info info(hints);
  int ncid = -1;
  int rc;
  {
    nb::gil_scoped_release unlocked;
    rc = ncmpi_open(c, path.c_str(), omode, info.get(), &ncid);
  }
  check(rc);
  return ncid;
}

// A collective call on the file alone (close, enddef, redef, sync, ...), GIL released.
template <int (*Fn)(int)>
void file_call(int ncid) {
  int rc;
  {
    nb::gil_scoped_release unlocked;
    rc = Fn(ncid);
  }
  check(rc);
}

nb::tuple inq(int ncid) {
  int ndims = 0, nvars = 0, ngatts = 0, unlimdim = -1;
  check(ncmpi_inq(ncid, &ndims, &nvars, &ngatts, &unlimdim));
  return nb::make_tuple(ndims, nvars, ngatts, unlimdim);
}

// Names may carry a path in the partitioned format.
constexpr std::size_t kNameBuf = EXA_MAX_PATH + NC_MAX_NAME + 2;

std::pair<std::string, MPI_Offset> inq_dim(int ncid, int dimid) {
  std::string name(kNameBuf, '\0');
  MPI_Offset len = 0;
  check(ncmpi_inq_dim(ncid, dimid, name.data(), &len));
  name.resize(name.find('\0'));
  return {name, len};
}

nb::tuple inq_var(int ncid, int varid) {
  std::string name(kNameBuf, '\0');
  nc_type xtype = NC_NAT;
  int ndims = 0, natts = 0;
  check(ncmpi_inq_var(ncid, varid, name.data(), &xtype, &ndims, nullptr, &natts));
  std::vector<int> dimids(static_cast<std::size_t>(ndims));
  check(ncmpi_inq_vardimid(ncid, varid, dimids.data()));
  name.resize(name.find('\0'));
  return nb::make_tuple(name, static_cast<int>(xtype), dimids, natts);
}

std::string inq_attname(int ncid, int varid, int attnum) {
  std::string name(kNameBuf, '\0');
  check(ncmpi_inq_attname(ncid, varid, attnum, name.data()));
  name.resize(name.find('\0'));
  return name;
}

std::pair<int, MPI_Offset> inq_att(int ncid, int varid, const std::string &name) {
  nc_type xtype = NC_NAT;
  MPI_Offset len = 0;
  check(ncmpi_inq_att(ncid, varid, name.c_str(), &xtype, &len));
  return {static_cast<int>(xtype), len};
}

// Attribute values in the attribute's own type (text as bytes, uint8 arrays).
void get_att(int ncid, int varid, const std::string &name, int xtype, Buffer out) {
  if (xtype == NC_CHAR)
    check(ncmpi_get_att_text(ncid, varid, name.c_str(), static_cast<char *>(const_cast<void *>(out.data()))));
  else
    check(ncmpi_get_att(ncid, varid, name.c_str(), const_cast<void *>(out.data())));
}

void put_att(int ncid, int varid, const std::string &name, int xtype, Buffer values) {
  const auto n = static_cast<MPI_Offset>(values.size());
  if (xtype == NC_CHAR)
    check(ncmpi_put_att_text(ncid, varid, name.c_str(), n, static_cast<const char *>(values.data())));
  else
    check(ncmpi_put_att(ncid, varid, name.c_str(), static_cast<nc_type>(xtype), n, values.data()));
}

int inq_id(int (*fn)(int, const char *, int *), int ncid, const std::string &name) {
  int id = -1;
  check(fn(ncid, name.c_str(), &id));
  return id;
}

int def_dim(int ncid, const std::string &name, MPI_Offset len) {
  int id = -1;
  check(ncmpi_def_dim(ncid, name.c_str(), len, &id));
  return id;
}

int def_var(int ncid, const std::string &name, int xtype, const std::vector<int> &dimids) {
  int id = -1;
  check(ncmpi_def_var(ncid, name.c_str(), static_cast<nc_type>(xtype),
                      static_cast<int>(dimids.size()), dimids.data(), &id));
  return id;
}

// A strided access: write (put) or read (get), collective (_all) or independent.
void vars(int ncid, int varid, const Offsets &start, const Offsets &count, const Offsets &stride,
          Buffer buf, int memtype, bool write, bool collective) {
  Request r = request_of(buf, memtype);
  int rc;
  {
    nb::gil_scoped_release unlocked;
    const MPI_Offset *s = or_null(start), *c = or_null(count), *st = or_null(stride);
    if (write)
      rc = collective ? ncmpi_put_vars_all(ncid, varid, s, c, st, r.data, r.nelems, r.type)
                      : ncmpi_put_vars(ncid, varid, s, c, st, r.data, r.nelems, r.type);
    else
      rc = collective ? ncmpi_get_vars_all(ncid, varid, s, c, st, r.data, r.nelems, r.type)
                      : ncmpi_get_vars(ncid, varid, s, c, st, r.data, r.nelems, r.type);
  }
  check(rc);
}

// The rows of a (num, ndims) start or count table as the pointer array varn takes.
std::vector<MPI_Offset *> rows(std::vector<Offsets> &table) {
  std::vector<MPI_Offset *> p;
  p.reserve(table.size());
  for (auto &row : table) p.push_back(row.empty() ? nullptr : row.data());
  return p;
}

// Many subarrays in one call: request k's elements follow request k-1's in buf.
void varn(int ncid, int varid, std::vector<Offsets> starts, std::vector<Offsets> counts, Buffer buf,
          int memtype, bool write, bool collective) {
  if (starts.size() != counts.size()) throw nb::value_error("starts and counts differ in length");
  Request r = request_of(buf, memtype);
  auto s = rows(starts);
  auto c = rows(counts);
  const int num = static_cast<int>(s.size());
  MPI_Offset *const *sp = num ? s.data() : nullptr;
  MPI_Offset *const *cp = num ? c.data() : nullptr;
  int rc;
  {
    nb::gil_scoped_release unlocked;
    if (write)
      rc = collective ? ncmpi_put_varn_all(ncid, varid, num, sp, cp, r.data, r.nelems, r.type)
                      : ncmpi_put_varn(ncid, varid, num, sp, cp, r.data, r.nelems, r.type);
    else
      rc = collective ? ncmpi_get_varn_all(ncid, varid, num, sp, cp, r.data, r.nelems, r.type)
                      : ncmpi_get_varn(ncid, varid, num, sp, cp, r.data, r.nelems, r.type);
  }
  check(rc);
}

// Posts a nonblocking strided put or get; the caller keeps buf alive until the wait.
// Returns (code, request): a put with out-of-range values is posted (a request id) and
// returns NC_ERANGE, which the Python side reports with the request at wait_all.
std::pair<int, int> ivars(int ncid, int varid, const Offsets &start, const Offsets &count, const Offsets &stride,
          Buffer buf, int memtype, bool write) {
  Request r = request_of(buf, memtype);
  int req = NC_REQ_NULL;
  const MPI_Offset *s = or_null(start), *c = or_null(count), *st = or_null(stride);
  const int rc = write ? ncmpi_iput_vars(ncid, varid, s, c, st, r.data, r.nelems, r.type, &req)
                       : ncmpi_iget_vars(ncid, varid, s, c, st, r.data, r.nelems, r.type, &req);
  if (rc != NC_NOERR && req == NC_REQ_NULL) throw NcError{rc};
  return {rc, req};
}

// Posts a nonblocking varn put or get (a list index: the product of runs, one request);
// request k's elements follow request k-1's in buf. Returns (code, request) as ivars.
std::pair<int, int> ivarn(int ncid, int varid, std::vector<Offsets> starts, std::vector<Offsets> counts, Buffer buf,
                          int memtype, bool write) {
  if (starts.size() != counts.size()) throw nb::value_error("starts and counts differ in length");
  Request r = request_of(buf, memtype);
  auto s = rows(starts);
  auto c = rows(counts);
  const int num = static_cast<int>(s.size());
  MPI_Offset *const *sp = num ? s.data() : nullptr;
  MPI_Offset *const *cp = num ? c.data() : nullptr;
  int req = NC_REQ_NULL;
  const int rc = write ? ncmpi_iput_varn(ncid, varid, num, sp, cp, r.data, r.nelems, r.type, &req)
                       : ncmpi_iget_varn(ncid, varid, num, sp, cp, r.data, r.nelems, r.type, &req);
  if (rc != NC_NOERR && req == NC_REQ_NULL) throw NcError{rc};
  return {rc, req};
}

// Completes requests; returns the call's code and each request's status (Python reports).
std::pair<int, std::vector<int>> wait(int ncid, std::vector<int> reqs, bool collective) {
  std::vector<int> statuses(reqs.size(), NC_NOERR);
  const int n = static_cast<int>(reqs.size());
  int rc;
  {
    nb::gil_scoped_release unlocked;
    int *rp = n ? reqs.data() : nullptr;
    int *sp = n ? statuses.data() : nullptr;
    rc = collective ? ncmpi_wait_all(ncid, n, rp, sp) : ncmpi_wait(ncid, n, rp, sp);
  }
  return {rc, statuses};
}

int set_fill(int ncid, int mode) {
  int old = 0;
  check(ncmpi_set_fill(ncid, mode, &old));
  return old;
}

void def_var_fill(int ncid, int varid, int no_fill, nb::object fill) {
  if (fill.is_none()) {
    check(ncmpi_def_var_fill(ncid, varid, no_fill, nullptr));
    return;
  }
  Buffer value = nb::cast<Buffer>(fill);
  check(ncmpi_def_var_fill(ncid, varid, no_fill, value.data()));
}

int inq_format(int ncid) {
  int format = 0;
  check(ncmpi_inq_format(ncid, &format));
  return format;
}

MPI_Offset inq_dimlen(int ncid, int dimid) {
  MPI_Offset len = 0;
  check(ncmpi_inq_dimlen(ncid, dimid, &len));
  return len;
}

std::string inq_path(int ncid) {
  int len = 0;
  check(ncmpi_inq_path(ncid, &len, nullptr));
  std::string path(static_cast<std::size_t>(len) + 1, '\0');
  check(ncmpi_inq_path(ncid, &len, path.data()));
  path.resize(static_cast<std::size_t>(len));
  return path;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return "unknown";
  return std::string(text, static_cast<std::size_t>(len));
}

void add_constants(nb::module_ &m) {
#define EXACDF_CONST_(NAME) m.attr(#NAME) = static_cast<long long>(NAME)
  EXACDF_CONST_(NC_NOERR);
  EXACDF_CONST_(NC_NOWRITE);
  EXACDF_CONST_(NC_WRITE);
  EXACDF_CONST_(NC_CLOBBER);
  EXACDF_CONST_(NC_NOCLOBBER);
  EXACDF_CONST_(NC_64BIT_OFFSET);
  EXACDF_CONST_(NC_64BIT_DATA);
  EXACDF_CONST_(NC_FILL);
  EXACDF_CONST_(NC_NOFILL);
  EXACDF_CONST_(NC_GLOBAL);
  EXACDF_CONST_(NC_UNLIMITED);
  EXACDF_CONST_(NC_FORMAT_CLASSIC);
  EXACDF_CONST_(NC_FORMAT_CDF2);
  EXACDF_CONST_(NC_FORMAT_CDF5);
  EXACDF_CONST_(EXA_FORMAT_PARTITIONED_V1);
  EXACDF_CONST_(EXA_FORMAT_PARTITIONED);
  EXACDF_CONST_(EXA_INDEP_DEFINE);
  EXACDF_CONST_(NC_BYTE);
  EXACDF_CONST_(NC_CHAR);
  EXACDF_CONST_(NC_SHORT);
  EXACDF_CONST_(NC_INT);
  EXACDF_CONST_(NC_FLOAT);
  EXACDF_CONST_(NC_DOUBLE);
  EXACDF_CONST_(NC_UBYTE);
  EXACDF_CONST_(NC_USHORT);
  EXACDF_CONST_(NC_UINT);
  EXACDF_CONST_(NC_INT64);
  EXACDF_CONST_(NC_UINT64);
  EXACDF_CONST_(NC_EINVAL);
  EXACDF_CONST_(NC_ENOTVAR);
  EXACDF_CONST_(NC_EBADTYPE);
#undef EXACDF_CONST_
}

// --- queries over values (exacdf_query.h) ---------------------------------------------------

int query_parse(int ncid, const std::string &text) {
  int qid = -1;
  check(exa_query_parse(ncid, text.c_str(), &qid));
  return qid;
}

int query_combine(int q1, int how, int q2) {
  int qid = -1;
  check(exa_query_combine(q1, how, q2, &qid));
  return qid;
}

int query_not(int q) {
  int qid = -1;
  check(exa_query_not(q, &qid));
  return qid;
}

int query_ndims(int qid) {
  int ndims = 0;
  check(exa_query_inq(qid, &ndims));
  return ndims;
}

// Collective: this rank's box (empty start/count: the library's split), the number of hits.
MPI_Offset query_eval(int ncid, int qid, const Offsets &start, const Offsets &count) {
  MPI_Offset nhits = 0;
  int rc;
  {
    nb::gil_scoped_release unlocked;
    rc = exa_query_eval(ncid, qid, or_null(start), or_null(count), &nhits);
  }
  check(rc);
  return nhits;
}

// The hits' coordinates into buf (int64, nhits * ndims, made by the caller).
void query_hits(int ncid, int qid, Buffer buf) {
  check(exa_query_hits(ncid, qid, static_cast<MPI_Offset>(buf.size()),
                       static_cast<MPI_Offset *>(const_cast<void *>(buf.data()))));
}

// Collective: another variable's values at the hits into buf (nhits values of memtype).
void query_get(int ncid, int qid, int varid, Buffer buf, int memtype) {
  int rc;
  {
    nb::gil_scoped_release unlocked;
    rc = exa_query_get(ncid, qid, varid, const_cast<void *>(buf.data()), memtype);
  }
  check(rc);
}

void index_create(int ncid, int varid, const std::string &spec) {
  int rc;
  {
    nb::gil_scoped_release unlocked;
    rc = exa_index_create(ncid, varid, spec.c_str());
  }
  check(rc);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "exacdf's native layer (ncmpi_* calls); use the exacdf package, not this module.";
  if (import_mpi4py() < 0) throw nb::python_error();
  add_constants(m);

  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const NcError &e) {
      nb::object cls = nb::module_::import_("exacdf._errors").attr("NCError");
      nb::object err = cls(e.code, ncmpi_strerror(e.code), world_rank());
      PyErr_SetObject(cls.ptr(), err.ptr());
    }
  });

  m.def("create", &create);
  m.def("open", &open);
  m.def("close", &file_call<ncmpi_close>);
  m.def("abort", &file_call<ncmpi_abort>);
  m.def("enddef", &file_call<ncmpi_enddef>);
  m.def("redef", &file_call<ncmpi_redef>);
  m.def("sync", &file_call<ncmpi_sync>);
  m.def("begin_indep_data", &file_call<ncmpi_begin_indep_data>);
  m.def("end_indep_data", &file_call<ncmpi_end_indep_data>);
  m.def("inq", &inq);
  m.def("inq_format", &inq_format);
  m.def("inq_path", &inq_path);
  m.def("inq_dim", &inq_dim);
  m.def("inq_dimlen", &inq_dimlen);
  m.def("inq_var", &inq_var);
  m.def("inq_varid", [](int ncid, const std::string &n) { return inq_id(ncmpi_inq_varid, ncid, n); });
  m.def("inq_dimid", [](int ncid, const std::string &n) { return inq_id(ncmpi_inq_dimid, ncid, n); });
  m.def("inq_varnatts", [](int ncid, int varid) {
    int n = 0;
    check(ncmpi_inq_varnatts(ncid, varid, &n));
    return n;
  });
  m.def("inq_attname", &inq_attname);
  m.def("inq_att", &inq_att);
  m.def("get_att", &get_att);
  m.def("put_att", &put_att);
  m.def("del_att", [](int ncid, int varid, const std::string &n) { check(ncmpi_del_att(ncid, varid, n.c_str())); });
  m.def("rename_att", [](int ncid, int varid, const std::string &a, const std::string &b) {
    check(ncmpi_rename_att(ncid, varid, a.c_str(), b.c_str()));
  });
  m.def("rename_dim", [](int ncid, int id, const std::string &n) { check(ncmpi_rename_dim(ncid, id, n.c_str())); });
  m.def("rename_var", [](int ncid, int id, const std::string &n) { check(ncmpi_rename_var(ncid, id, n.c_str())); });
  m.def("def_dim", &def_dim);
  m.def("def_var", &def_var);
  m.def("set_fill", &set_fill);
  m.def("def_var_fill", &def_var_fill);
  m.def("vars", &vars);
  m.def("varn", &varn);
  m.def("ivars", &ivars);
  m.def("ivarn", &ivarn);
  m.def("wait", &wait);
  m.def("query_parse", &query_parse);
  m.def("query_combine", &query_combine);
  m.def("query_not", &query_not);
  m.def("query_free", [](int qid) { check(exa_query_free(qid)); });
  m.def("query_ndims", &query_ndims);
  m.def("query_eval", &query_eval);
  m.def("query_hits", &query_hits);
  m.def("query_get", &query_get);
  m.def("index_create", &index_create);
  m.def("index_drop", [](int ncid, int varid) {
    int rc;
    {
      nb::gil_scoped_release unlocked;
      rc = exa_index_drop(ncid, varid);
    }
    check(rc);
  });
  m.attr("QUERY_AND") = EXA_QUERY_AND;
  m.attr("QUERY_OR") = EXA_QUERY_OR;
  m.def("strerror", [](int code) { return std::string(ncmpi_strerror(code)); });
  m.def("strerrno", [](int code) { return std::string(ncmpi_strerrno(code)); });
  m.def("libvers", [] { return std::string(exa_inq_libvers()); });
  m.def("pnetcdf_api_version", [] { return std::string(ncmpi_inq_libvers()); });
  m.def("mpi_library_version", &mpi_library_version);
}
