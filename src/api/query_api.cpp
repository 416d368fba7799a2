// C entry points of queries and indexes (include/exacdf_query.h): the query
// handle table, argument checks, and the calls into src/query.
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api/api_support.hpp"
#include "exacdf.h"
#include "pnetcdf.h"
#include "query/expr.hpp"
#include "query/mpi/engine.hpp"
#include "query/mpi/in_file.hpp"
#include "query/mpi/index_store.hpp"
#include "query/mpi/put_epoch.hpp"
#include "api/query_close.hpp"
#include "query/parser.hpp"

using exa::Status;

namespace {

struct Query {
  int ncid = -1;
  exa::query::Expr expr;
  bool evaluated = false;
  exa::query::Box box;
  exa::query::Bitset hits;
};

std::mutex g_mutex;
std::map<int, Query> g_queries;
int g_next_qid = 1;

int add_query(Query q) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const int id = g_next_qid++;
  g_queries.emplace(id, std::move(q));
  return id;
}

// The query qid (nullptr: NC_EINVAL). Entries are stable (std::map).
Query* find_query(int qid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_queries.find(qid);
  return it == g_queries.end() ? nullptr : &it->second;
}

Status context(int ncid, exa::api::OpenFile& f, exa::query::FileCtx* ctx) {
  ctx->ncid = ncid;
  ctx->comm = f.state->comm();
  int len = 0;
  int err = ncmpi_inq_path(ncid, &len, nullptr);
  if (err != NC_NOERR) return {err, "inq_path"};
  std::vector<char> path(static_cast<size_t>(len) + 1);
  err = ncmpi_inq_path(ncid, nullptr, path.data());
  if (err != NC_NOERR) return {err, "inq_path"};
  ctx->path = path.data();
  int rank = 0, size = 1;
  if (MPI_Comm_rank(ctx->comm, &rank) != MPI_SUCCESS || MPI_Comm_size(ctx->comm, &size) != MPI_SUCCESS)
    return {NC_EINTERNAL, "MPI_Comm_rank/size failed"};
  ctx->rank = rank;
  ctx->size = size;
  return Status::ok();
}

// Runs fn(ctx) for an open ncid.
template <typename Fn>
int with_ctx(const char* fn_name, int ncid, Fn&& fn) {
  return exa::api::with_file(fn_name, ncid, [&](exa::api::OpenFile& f) -> Status {
    exa::query::FileCtx ctx;
    EXA_RETURN_IF_ERROR(context(ncid, f, &ctx));
    return fn(ctx);
  });
}

Status bind_names(int ncid, exa::query::Expr* e) {
  for (exa::query::Node& n : e->nodes) {
    if (n.kind != exa::query::NodeKind::kLeaf) continue;
    if (n.var_name.size() > NC_MAX_NAME) return {NC_ENOTVAR, "no variable " + n.var_name};
    int varid = -1;
    int err = ncmpi_inq_varid(ncid, n.var_name.c_str(), &varid);
    if (err != NC_NOERR) return {err, "no variable " + n.var_name};
    n.varid = varid;
  }
  return Status::ok();
}

}  // namespace

extern "C" {

int exa_query_create(int ncid, int varid, int op, nc_type type, const void* value, int* qid) {
  return exa::api::with_file("exa_query_create", ncid, [&](exa::api::OpenFile&) -> Status {
    if (value == nullptr || qid == nullptr) return {NC_EINVAL, "null pointer"};
    if (!exa::query::valid_op(op)) return {NC_EINVAL, "unknown query operator"};
    if (!exa::query::numeric_type(type)) return {NC_EINVAL, "constant type is not numeric"};
    exa::query::VarShape v;
    EXA_RETURN_IF_ERROR(exa::query::var_shape(ncid, varid, &v));
    exa::query::Node n;
    n.op = static_cast<exa::query::Op>(op);
    n.constant.type = type;
    std::memcpy(n.constant.bytes, value, static_cast<size_t>(exa::query::type_size(type)));
    n.var_name = v.name;
    n.varid = varid;
    Query q;
    q.ncid = ncid;
    q.expr.nodes.push_back(std::move(n));
    *qid = add_query(std::move(q));
    return Status::ok();
  });
}

int exa_query_combine(int q1, int how, int q2, int* qid) {
  return exa::api::guarded("exa_query_combine", [&]() -> Status {
    Query* a = find_query(q1);
    Query* b = find_query(q2);
    if (a == nullptr || b == nullptr || qid == nullptr) return {NC_EINVAL, "bad query id"};
    if (how != EXA_QUERY_AND && how != EXA_QUERY_OR) return {NC_EINVAL, "how: EXA_QUERY_AND or _OR"};
    if (a->ncid != b->ncid) return {NC_EINVAL, "queries of different files"};
    if (a->expr.nodes.size() + b->expr.nodes.size() + 1 > exa::query::kMaxNodes)
      return {NC_EINVAL, "query too large"};
    Query q;
    q.ncid = a->ncid;
    q.expr = exa::query::combine(a->expr, how == EXA_QUERY_AND ? exa::query::NodeKind::kAnd
                                                              : exa::query::NodeKind::kOr, b->expr);
    *qid = add_query(std::move(q));
    return Status::ok();
  });
}

int exa_query_not(int q, int* qid) {
  return exa::api::guarded("exa_query_not", [&]() -> Status {
    Query* a = find_query(q);
    if (a == nullptr || qid == nullptr) return {NC_EINVAL, "bad query id"};
    if (a->expr.nodes.size() + 1 > exa::query::kMaxNodes) return {NC_EINVAL, "query too large"};
    Query n;
    n.ncid = a->ncid;
    n.expr = exa::query::negate(a->expr);
    *qid = add_query(std::move(n));
    return Status::ok();
  });
}

int exa_query_free(int qid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_queries.erase(qid) == 1 ? NC_NOERR : NC_EINVAL;
}

int exa_query_inq(int qid, int* ndims) {
  return exa::api::guarded("exa_query_inq", [&]() -> Status {
    Query* q = find_query(qid);
    if (q == nullptr || ndims == nullptr) return {NC_EINVAL, "bad query id or null ndims"};
    exa::query::VarShape v;
    EXA_RETURN_IF_ERROR(exa::query::var_shape(q->ncid, q->expr.nodes.front().varid, &v));
    *ndims = static_cast<int>(v.dims.size());
    return Status::ok();
  });
}

int exa_query_encode(int qid, void* buf, MPI_Offset* len) {
  return exa::api::guarded("exa_query_encode", [&]() -> Status {
    Query* q = find_query(qid);
    if (q == nullptr || len == nullptr) return {NC_EINVAL, "bad query id or null len"};
    const std::vector<unsigned char> bytes = exa::query::encode(q->expr);
    if (buf != nullptr) {
      if (*len < static_cast<MPI_Offset>(bytes.size())) return {NC_EINVAL, "buffer too small"};
      std::memcpy(buf, bytes.data(), bytes.size());
    }
    *len = static_cast<MPI_Offset>(bytes.size());
    return Status::ok();
  });
}

int exa_query_decode(int ncid, const void* buf, MPI_Offset len, int* qid) {
  return exa::api::with_file("exa_query_decode", ncid, [&](exa::api::OpenFile&) -> Status {
    if (buf == nullptr || qid == nullptr || len < 0) return {NC_EINVAL, "null pointer or negative length"};
    Query q;
    q.ncid = ncid;
    EXA_RETURN_IF_ERROR(exa::query::decode(static_cast<const unsigned char*>(buf),
                                           static_cast<size_t>(len), &q.expr));
    EXA_RETURN_IF_ERROR(bind_names(ncid, &q.expr));
    *qid = add_query(std::move(q));
    return Status::ok();
  });
}

int exa_query_parse(int ncid, const char* text, int* qid) {
  return exa::api::with_file("exa_query_parse", ncid, [&](exa::api::OpenFile&) -> Status {
    if (text == nullptr || qid == nullptr) return {NC_EINVAL, "null pointer"};
    Query q;
    q.ncid = ncid;
    EXA_RETURN_IF_ERROR(exa::query::parse(text, &q.expr));
    EXA_RETURN_IF_ERROR(bind_names(ncid, &q.expr));
    for (const exa::query::Node& n : q.expr.nodes) {
      if (n.kind != exa::query::NodeKind::kLeaf) continue;
      exa::query::VarShape v;
      EXA_RETURN_IF_ERROR(exa::query::var_shape(ncid, n.varid, &v));
    }
    *qid = add_query(std::move(q));
    return Status::ok();
  });
}

int exa_query_eval(int ncid, int qid, const MPI_Offset* start, const MPI_Offset* count,
                   MPI_Offset* nhits) {
  return with_ctx("exa_query_eval", ncid, [&](const exa::query::FileCtx& ctx) -> Status {
    Query* q = find_query(qid);
    int ok = q != nullptr && q->ncid == ncid && nhits != nullptr ? 1 : 0, all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx.comm) != MPI_SUCCESS)
      return {NC_EINTERNAL, "MPI_Allreduce failed"};
    if (!all) return {NC_EINVAL, ok ? "bad query id on another rank" : "bad query id, ncid or nhits"};
    q->evaluated = false;
    EXA_RETURN_IF_ERROR(exa::query::evaluate(ctx, q->expr, start, count, &q->box, &q->hits));
    q->evaluated = true;
    *nhits = static_cast<MPI_Offset>(q->hits.count());
    return Status::ok();
  });
}

int exa_query_hits(int ncid, int qid, MPI_Offset max, MPI_Offset* coords) {
  return exa::api::with_file("exa_query_hits", ncid, [&](exa::api::OpenFile&) -> Status {
    Query* q = find_query(qid);
    if (q == nullptr || q->ncid != ncid) return {NC_EINVAL, "bad query id"};
    if (!q->evaluated) return {NC_EINVAL, "query not evaluated"};
    if (max < 0 || (max > 0 && coords == nullptr)) return {NC_EINVAL, "bad max or null coords"};
    const size_t nd = q->box.count.size();
    MPI_Offset k = 0;
    q->hits.for_each([&](uint64_t p) {
      if (k >= max) return false;
      for (size_t d = nd; d-- > 0;) {
        const uint64_t n = static_cast<uint64_t>(q->box.count[d]);
        coords[static_cast<size_t>(k) * nd + d] = q->box.start[d] + static_cast<MPI_Offset>(p % n);
        p /= n;
      }
      ++k;
      return true;
    });
    return Status::ok();
  });
}

int exa_query_get(int ncid, int qid, int varid, void* buf, nc_type memtype) {
  return with_ctx("exa_query_get", ncid, [&](const exa::query::FileCtx& ctx) -> Status {
    Query* q = find_query(qid);
    int ok = q != nullptr && q->ncid == ncid && q->evaluated ? 1 : 0, all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx.comm) != MPI_SUCCESS)
      return {NC_EINTERNAL, "MPI_Allreduce failed"};
    if (!all) return {NC_EINVAL, "bad or unevaluated query id"};
    return exa::query::fetch(ctx, q->box, q->hits, varid, buf, memtype);
  });
}

int exa_index_create(int ncid, int varid, const char* spec) {
  return with_ctx("exa_index_create", ncid, [&](const exa::query::FileCtx& ctx) {
    return exa::query::index_create(ctx, varid, spec);
  });
}

int exa_index_drop(int ncid, int varid) {
  return with_ctx("exa_index_drop", ncid, [&](const exa::query::FileCtx& ctx) {
    return exa::query::index_drop(ctx, varid);
  });
}

int exa_index_inq(int ncid, int varid, int* present, int* current, int* nbins, MPI_Offset* bytes) {
  return with_ctx("exa_index_inq", ncid, [&](const exa::query::FileCtx& ctx) -> Status {
    exa::query::IndexInfo info;
    EXA_RETURN_IF_ERROR(exa::query::index_inq(ctx, varid, &info));
    if (present) *present = info.present ? 1 : 0;
    if (current) *current = info.current ? 1 : 0;
    if (nbins) *nbins = info.nbins;
    if (bytes) *bytes = info.bytes;
    return Status::ok();
  });
}

int exa_index_inq_chunks(int ncid, int varid, MPI_Offset* nchunks, MPI_Offset* nstale,
                         MPI_Offset* rebuilt, MPI_Offset* kept) {
  return with_ctx("exa_index_inq_chunks", ncid, [&](const exa::query::FileCtx& ctx) -> Status {
    exa::query::IndexInfo info;
    EXA_RETURN_IF_ERROR(exa::query::index_inq(ctx, varid, &info));
    if (nchunks) *nchunks = static_cast<MPI_Offset>(info.nchunks);
    if (nstale) *nstale = static_cast<MPI_Offset>(info.nstale);
    if (rebuilt) *rebuilt = static_cast<MPI_Offset>(info.last_rebuilt);
    if (kept) *kept = static_cast<MPI_Offset>(info.last_kept);
    return Status::ok();
  });
}

int exa_index_inq_minmax(int ncid, int varid, MPI_Offset* nchunks, MPI_Offset* nbounded) {
  return with_ctx("exa_index_inq_minmax", ncid, [&](const exa::query::FileCtx& ctx) -> Status {
    exa::query::IndexInfo info;
    EXA_RETURN_IF_ERROR(exa::query::index_inq(ctx, varid, &info));
    if (nchunks) *nchunks = static_cast<MPI_Offset>(info.minmax_chunks);
    if (nbounded) *nbounded = static_cast<MPI_Offset>(info.minmax_bounded);
    return Status::ok();
  });
}

long long exa_debug_query_values_tested(void) { return static_cast<long long>(exa::query::values_tested()); }

}  // extern "C"

int exa::api::close_with_query_stamp(const char* fn, int ncid, const std::function<int()>& close) {
  exa::query::CloseStamp stamp;
  int prep = NC_NOERR;
  // Only a file whose sidecars this process trusts (no inquiry otherwise),
  // in data mode (a close in define mode ends it first: those sidecars are
  // then not re-stamped, so a later process does not trust them).
  // (Also the writer of index blocks: it gives them its puts, so the close
  // may mark them trusted again.)
  // (And a file whose puts' min/max the close keeps although nobody queried
  // them: close_keeps_notes, the same on every rank.)
  const exa::api::OpenFile* open = exa::api::find_file(ncid);
  const bool keep = open != nullptr && exa::query::close_keeps_notes(ncid, open->path);
  if (keep || exa::query::has_sessions(ncid) || exa::query::index_blocks_writer(ncid))
    prep = exa::api::with_file(fn, ncid, [&](exa::api::OpenFile& f) -> Status {
      if (f.connector->modes(*f.state).define_mode) return Status::ok();
      exa::query::FileCtx ctx;
      EXA_RETURN_IF_ERROR(context(ncid, f, &ctx));
      return exa::query::prepare_close(ctx, &stamp, keep);
    });
  exa::query::forget_file(ncid);  // its put records and trusted index state
  const int rc = close();
  const int fin = exa::api::guarded(fn, [&] { return exa::query::finish_close(&stamp); });
  if (rc != NC_NOERR) return rc;
  return prep != NC_NOERR ? prep : fin;
}
