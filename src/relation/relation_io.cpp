#include "relation/relation_io.hpp"

#include <pnetcdf.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "api/file_order_put.hpp"
#include "convert/byte_order.hpp"
#include "io/mpi_errors.hpp"
#include "relation/exchange.hpp"
#include "util/hash.hpp"

namespace exa::relation {
namespace {

Status nc(int code, const char* what) {
  if (code == NC_NOERR) return Status::ok();
  return {code, std::string(what) + ": " + ncmpi_strerror(code)};
}

bool verbose() {
  const char* v = std::getenv("EXACDF_VERBOSE");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

void log_decision(MPI_Comm comm, const char* where, const std::string& name, const PolicyInput& in,
                  const PolicyDecision& d) {
  int rank = 0;
  if (!verbose() || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != 0) return;
  std::fprintf(stderr, "exacdf: %s %s: %s\n", where, name.c_str(), describe(in, d).c_str());
}

// The per-rank moments one allreduce combines: exact row sums and extremes,
// and the sum of squared byte counts (a double: it overflows 64 bits).
struct Moments {
  uint64_t sum, max, min;
  double sum_sq;
};

void combine_moments(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<Moments*>(in);
  auto* b = static_cast<Moments*>(inout);
  for (int i = 0; i < *len; ++i) {
    b[i].sum += a[i].sum;
    b[i].max = std::max(a[i].max, b[i].max);
    b[i].min = std::min(a[i].min, b[i].min);
    b[i].sum_sq += a[i].sum_sq;
  }
}

// A committed datatype of n uint64 values (a row); freed by the destructor.
struct RowType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  ~RowType() {
    if (type != MPI_DATATYPE_NULL) EXA_MPI(MPI_Type_free(&type)).set_aside("destructor");
  }
  Status make(int n) {
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_contiguous(n, MPI_UINT64_T, &type)));
    return EXA_MPI(MPI_Type_commit(&type));
  }
};

std::vector<uint64_t> rows_with_ids(const uint64_t* tuples, uint64_t nlocal, int arity, uint64_t offset) {
  const size_t cols = static_cast<size_t>(arity) + 1;
  std::vector<uint64_t> rows(static_cast<size_t>(nlocal) * cols);
  for (uint64_t i = 0; i < nlocal; ++i) {
    std::memcpy(&rows[i * cols], &tuples[i * arity], sizeof(uint64_t) * arity);
    rows[i * cols + arity] = offset + i;
  }
  return rows;
}

const unsigned long long* ull(const uint64_t* p) { return reinterpret_cast<const unsigned long long*>(p); }

Status define_relation(int ncid, const std::string& name, int arity, uint64_t total, bool fixed_rows,
                       int nranks, bool no_fill, int* varid) {
  int dims[2];
  EXA_RETURN_IF_ERROR(nc(ncmpi_def_dim(ncid, (name + "_rows").c_str(),
                                       fixed_rows ? static_cast<MPI_Offset>(total) : NC_UNLIMITED, &dims[0]),
                         "rows dimension"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_def_dim(ncid, (name + "_cols").c_str(), arity + 1, &dims[1]), "columns dimension"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_def_var(ncid, name.c_str(), NC_UINT64, 2, dims, varid), "relation variable"));
  std::string columns;
  for (int c = 0; c < arity; ++c) columns += "c" + std::to_string(c) + ",";
  columns += "id";
  const std::string partitioning = "rank-contiguous row blocks (one MPI_Exscan); rows hash-partitioned by the writer";
  const std::string kind = "exacdf relation";
  EXA_RETURN_IF_ERROR(nc(ncmpi_put_att_text(ncid, *varid, "exa_kind", kind.size(), kind.c_str()), "attribute"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_put_att_int(ncid, *varid, "arity", NC_INT, 1, &arity), "attribute"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_put_att_text(ncid, *varid, "columns", columns.size(), columns.c_str()), "attribute"));
  EXA_RETURN_IF_ERROR(
      nc(ncmpi_put_att_text(ncid, *varid, "partitioning", partitioning.size(), partitioning.c_str()), "attribute"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_put_att_int(ncid, *varid, "writer_nranks", NC_INT, 1, &nranks), "attribute"));
  if (no_fill) {
    int old = 0;
    EXA_RETURN_IF_ERROR(nc(ncmpi_set_fill(ncid, NC_NOFILL, &old), "ncmpi_set_fill"));
  }
  return Status::ok();
}

// Rows to rank 0 (O1: the output is tiny, so int counts hold it).
// One rank: its rows are all of them, moved, not copied.
Status gather_rows(MPI_Comm comm, std::vector<uint64_t> rows, uint64_t total, int cols,
                   std::vector<uint64_t>* all) {
  int rank = 0, size = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &size)));
  if (size == 1) {
    *all = std::move(rows);
    return Status::ok();
  }
  if (total * static_cast<uint64_t>(cols) > INT_MAX) return {NC_EINTOVERFLOW, "gather of more than 2^31 values"};
  int mine = static_cast<int>(rows.size());
  std::vector<int> counts(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm)));
  if (rank == 0) {
    for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    all->resize(static_cast<size_t>(total) * cols);
  }
  return EXA_MPI(MPI_Gatherv(rows.data(), mine, MPI_UINT64_T, all->data(), counts.data(), displs.data(),
                             MPI_UINT64_T, 0, comm));
}

// The collective writes of an open file: one (O1: rank 0 writes every row) or
// d.phases rounds (O7: the ranks of block p write in round p, a barrier after each).
Status put_rows(int ncid, int varid, MPI_Comm comm, const WriteShape& s, int cols, const std::vector<uint64_t>& rows,
                const PolicyDecision& d) {
  int rank = 0, size = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &size)));
  MPI_Offset zero[2] = {0, 0}, none[2] = {0, cols};
  if (d.gather) {
    std::vector<uint64_t> all;
    EXA_RETURN_IF_ERROR(gather_rows(comm, rows, s.total, cols, &all));
    MPI_Offset count[2] = {rank == 0 ? static_cast<MPI_Offset>(s.total) : 0, cols};
    return nc(ncmpi_put_vara_ulonglong_all(ncid, varid, zero, count, ull(all.data())), "relation write");
  }
  const int my_phase = static_cast<int>(static_cast<int64_t>(rank) * d.phases / size);
  for (int p = 0; p < d.phases; ++p) {
    MPI_Offset start[2] = {static_cast<MPI_Offset>(s.offset), 0};
    MPI_Offset count[2] = {static_cast<MPI_Offset>(s.nlocal), cols};
    const bool mine = p == my_phase && s.nlocal > 0;
    EXA_RETURN_IF_ERROR(nc(ncmpi_put_vara_ulonglong_all(ncid, varid, mine ? start : zero, mine ? count : none,
                                                        ull(rows.data())),
                           "relation write"));
    if (d.phases > 1) EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Barrier(comm)));
  }
  return Status::ok();
}

// O5 and O6 as MPI-IO / exacdf hints.
Status policy_info(const PolicyDecision& d, MPI_Info* info) {
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_create(info)));
  auto set = [&](const char* k, const std::string& v) { return EXA_MPI(MPI_Info_set(*info, k, v.c_str())); };
  if (d.cb_nodes > 0) {
    EXA_RETURN_IF_ERROR(set("cb_nodes", std::to_string(d.cb_nodes)));
    EXA_RETURN_IF_ERROR(set("cb_buffer_size", std::to_string(d.cb_buffer_size)));
    EXA_RETURN_IF_ERROR(set("romio_cb_write", "enable"));
    EXA_RETURN_IF_ERROR(set("romio_ds_write", "disable"));
  }
  if (d.var_align > 0) EXA_RETURN_IF_ERROR(set("nc_var_align_size", std::to_string(d.var_align)));
  return Status::ok();
}

struct InfoGuard {
  MPI_Info info = MPI_INFO_NULL;
  ~InfoGuard() {
    if (info != MPI_INFO_NULL) EXA_MPI(MPI_Info_free(&info)).set_aside("destructor");
  }
};

// synced: the writes were independent, and ncmpi_end_indep_data has synced
// each rank's independent handle already (native end_indep: MPI_File_sync,
// an fsync, which makes every dirty page of the file durable, the header
// rank 0 wrote at the create included); a second sync cost 7% of the
// checkpoint time at 2 ranks (median of 10 alternated pairs, fe_ocean:2000).
Status sync_close(int ncid, Status st, bool synced = false) {
  if (st && !synced) st = nc(ncmpi_sync(ncid), "ncmpi_sync");
  Status closed = nc(ncmpi_close(ncid), "ncmpi_close");
  return st ? closed : st;
}

}  // namespace

int owner_of(uint64_t v, int nranks) { return static_cast<int>(mix64(v) % static_cast<uint64_t>(nranks)); }

Status agree(MPI_Comm comm, Status st) {
  int mine = st.code(), first = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm)));
  if (first == NC_NOERR) return Status::ok();
  if (!st) return st;
  return {first, "failed on another rank"};
}

Status measure(MPI_Comm comm, int arity, uint64_t nlocal, WriteShape* out) {
  int size = 1, rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &size)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  uint64_t offset = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Exscan(&nlocal, &offset, 1, MPI_UINT64_T, MPI_SUM, comm)));
  if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's result undefined

  static MPI_Op op = MPI_OP_NULL;  // created once, lives as long as MPI
  if (op == MPI_OP_NULL) EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Op_create(combine_moments, 1, &op)));
  RowType type;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_contiguous(sizeof(Moments), MPI_BYTE, &type.type)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_commit(&type.type)));
  const uint64_t row_bytes = (static_cast<uint64_t>(arity) + 1) * 8;
  const double bytes = static_cast<double>(nlocal * row_bytes);
  Moments m{nlocal, nlocal, nlocal, bytes * bytes}, all{};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(&m, &all, 1, type.type, op, comm)));

  out->nlocal = nlocal;
  out->offset = offset;
  out->total = all.sum;
  out->input.total_bytes = all.sum * row_bytes;
  out->input.nprocs = size;
  skew_from_moments(static_cast<double>(all.sum * row_bytes), all.sum_sq, static_cast<double>(all.max * row_bytes),
                    static_cast<double>(all.min * row_bytes), size, &out->input.ratio, &out->input.cv);
  return Status::ok();
}

Status policy_mask(MPI_Info info, unsigned* mask) {
  *mask = kAllSteps;
  const char* env = std::getenv("EXACDF_POLICY");
  if (env != nullptr && !parse_policy(env, mask)) return {NC_EINVAL, std::string("EXACDF_POLICY=") + env};
  if (info == MPI_INFO_NULL) return Status::ok();
  char value[256];
  int found = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Info_get(info, "exa_policy", sizeof value - 1, value, &found)));
  if (found && !parse_policy(value, mask)) return {NC_EINVAL, std::string("exa_policy=") + value};
  return Status::ok();
}

Status write_relation(int ncid, MPI_Comm comm, const std::string& name, int arity, uint64_t nlocal,
                      const uint64_t* tuples, unsigned mask) {
  int exists = -1;
  if (ncmpi_inq_varid(ncid, name.c_str(), &exists) == NC_NOERR) return {NC_ENAMEINUSE, "relation " + name};
  int format = 0;
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_format(ncid, &format), "ncmpi_inq_format"));
  if (format == NC_FORMAT_CLASSIC || format == NC_FORMAT_CDF2)  // checked before anything is defined
    return {NC_ESTRICTCDF2, "relations are NC_UINT64: CDF-5 or partitioned files only"};
  WriteShape s;
  EXA_RETURN_IF_ERROR(measure(comm, arity, nlocal, &s));
  // On an open file only O1 (gather) and O7 (phases) are the store's to decide.
  PolicyDecision d = decide(s.input, mask & (kO1Gather | kO7Phases));
  log_decision(comm, "exa_relation_write", name, s.input, d);

  const int redef = ncmpi_redef(ncid);
  if (redef != NC_NOERR && redef != NC_EINDEFINE) return nc(redef, "ncmpi_redef");
  int varid = -1;
  Status st = define_relation(ncid, name, arity, s.total, true, s.input.nprocs, false, &varid);
  Status ended = nc(ncmpi_enddef(ncid), "ncmpi_enddef");
  EXA_RETURN_IF_ERROR(st);
  EXA_RETURN_IF_ERROR(ended);
  const std::vector<uint64_t> rows = rows_with_ids(tuples, nlocal, arity, s.offset);
  return put_rows(ncid, varid, comm, s, arity + 1, rows, d);
}

Status stage_relation(const std::string& variable, int arity, uint64_t nlocal, const uint64_t* tuples,
                      StagedRelation* out) {
  out->variable = variable;
  out->arity = arity;
  out->shape = WriteShape{};
  out->shape.nlocal = nlocal;
  const size_t cols = static_cast<size_t>(arity) + 1;
  // Not a vector: the rows are written once, a zero-filling pass first cost a
  // tenth of a TC run's samples (perf record, fe_ocean:2000, 1 rank).
  if (nlocal > SIZE_MAX / cols) return {NC_ENOMEM, "staged rows"};
  out->rows = allocate_rows(static_cast<size_t>(nlocal) * cols);
  if (!out->rows) return {NC_ENOMEM, "staged rows"};
  // In the file's byte order (big-endian) as they are copied: the put then
  // writes them as they are (no swap in place before it and back after it).
  uint64_t* rows = out->rows.get();
  for (uint64_t i = 0; i < nlocal; ++i) {
    for (int c = 0; c < arity; ++c) rows[i * cols + c] = convert::to_from_big_endian(tuples[i * arity + c]);
    rows[i * cols + arity] = convert::to_from_big_endian(i);
  }
  return Status::ok();
}

Status measure_staged(MPI_Comm comm, std::vector<StagedRelation>& rels) {
  int size = 1, rank = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &size)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  const size_t n = rels.size();
  if (n > static_cast<size_t>(INT_MAX)) return {NC_EINTOVERFLOW, "too many relations in one checkpoint"};
  std::vector<uint64_t> mine(n), all(n * static_cast<size_t>(size));
  for (size_t i = 0; i < n; ++i) mine[i] = rels[i].shape.nlocal;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allgather(mine.data(), static_cast<int>(n), MPI_UINT64_T, all.data(),
                                            static_cast<int>(n), MPI_UINT64_T, comm)));
  for (size_t i = 0; i < n; ++i) {
    StagedRelation& r = rels[i];
    const uint64_t row_bytes = (static_cast<uint64_t>(r.arity) + 1) * 8;
    uint64_t offset = 0, total = 0, max = 0, min = UINT64_MAX;
    double sum_sq = 0.0;
    r.rank_rows.assign(static_cast<size_t>(size), 0);
    for (int p = 0; p < size; ++p) {
      const uint64_t rows = all[static_cast<size_t>(p) * n + i];
      r.rank_rows[p] = rows;
      if (p < rank) offset += rows;
      total += rows;
      max = std::max(max, rows);
      min = std::min(min, rows);
      const double bytes = static_cast<double>(rows * row_bytes);
      sum_sq += bytes * bytes;
    }
    r.shape.offset = offset;
    r.shape.total = total;
    r.shape.input.total_bytes = total * row_bytes;
    r.shape.input.nprocs = size;
    skew_from_moments(static_cast<double>(total * row_bytes), sum_sq, static_cast<double>(max * row_bytes),
                      static_cast<double>(min * row_bytes), size, &r.shape.input.ratio, &r.shape.input.cv);
    if (offset == 0) continue;
    const size_t cols = static_cast<size_t>(r.arity) + 1;
    for (uint64_t j = 0; j < r.shape.nlocal; ++j) {
      uint64_t& id = r.rows[j * cols + r.arity];
      id = convert::to_from_big_endian(convert::to_from_big_endian(id) + offset);
    }
  }
  return Status::ok();
}

namespace {

// Rows of a relation to rank 0 (O1: the checkpoint is tiny, so int counts
// hold it); the counts of every rank are known from measure_staged.
Status gather_staged(MPI_Comm comm, int rank, int size, StagedRelation& r) {
  if (size == 1) return Status::ok();
  const uint64_t cols = static_cast<uint64_t>(r.arity) + 1;
  if (r.shape.total * cols > INT_MAX) return {NC_EINTOVERFLOW, "gather of more than 2^31 values"};
  std::vector<int> counts(rank == 0 ? size : 0), displs(rank == 0 ? size : 0);
  StagedRows all;
  if (rank == 0) {
    for (int p = 0; p < size; ++p) {
      counts[p] = static_cast<int>(r.rank_rows[p] * cols);
      if (p > 0) displs[p] = displs[p - 1] + counts[p - 1];
    }
    all = allocate_rows(static_cast<size_t>(r.shape.total * cols));
    // As new[] did here before: the other ranks are already in the gather, so
    // there is no status to agree on without one more collective per checkpoint.
    if (!all) throw std::bad_alloc();
  }
  const Status st = EXA_MPI(MPI_Gatherv(r.rows.get(), static_cast<int>(r.shape.nlocal * cols), MPI_UINT64_T,
                                        all.get(), counts.data(), displs.data(), MPI_UINT64_T, 0, comm));
  r.rows = std::move(all);  // rank 0: every row; the others: none
  return st;
}

// The file's steps: decide() once for the whole checkpoint, on its total
// bytes with the rank count and skew of its largest relation. O1 when the
// checkpoint is tiny: every relation is gathered and rank 0 writes the file
// alone. Otherwise no relation is gathered: gathering some of them to rank 0
// only copied their rows once more before the same collective write.
PolicyDecision file_decision(const std::vector<StagedRelation>& rels, unsigned mask, int nprocs, PolicyInput* in) {
  size_t largest = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < rels.size(); ++i) {
    total += rels[i].shape.input.total_bytes;
    if (rels[i].shape.input.total_bytes > rels[largest].shape.input.total_bytes) largest = i;
  }
  if (!rels.empty()) *in = rels[largest].shape.input;
  in->nprocs = nprocs;
  in->total_bytes = total;
  return decide(*in, mask);
}

// Defines every staged relation and the manifest attribute, then enddef.
// CDF has one record dimension per file: without O4 the largest relation is
// the record variable, the others fixed-size.
Status define_checkpoint(int ncid, const std::vector<StagedRelation>& rels, const std::string& manifest,
                         const PolicyDecision& d, std::vector<int>* varids) {
  size_t record = rels.size();
  if (!d.fixed_rows)
    for (size_t i = 0; i < rels.size(); ++i)
      if (record == rels.size() || rels[i].shape.input.total_bytes > rels[record].shape.input.total_bytes) record = i;
  varids->assign(rels.size(), -1);
  for (size_t i = 0; i < rels.size(); ++i)
    EXA_RETURN_IF_ERROR(define_relation(ncid, rels[i].variable, rels[i].arity, rels[i].shape.total, i != record,
                                        rels[i].shape.input.nprocs, d.no_fill, &(*varids)[i]));
  EXA_RETURN_IF_ERROR(nc(ncmpi_put_att_text(ncid, NC_GLOBAL, kManifestAttribute,
                                            static_cast<MPI_Offset>(manifest.size()), manifest.c_str()),
                         "checkpoint manifest attribute"));
  return nc(ncmpi_enddef(ncid), "ncmpi_enddef");
}

Status create_checkpoint(MPI_Comm comm, const std::string& path, MPI_Info info,
                         const std::vector<StagedRelation>& rels, const std::string& manifest,
                         const PolicyDecision& d, int* ncid, std::vector<int>* varids) {
  EXA_RETURN_IF_ERROR(nc(ncmpi_create(comm, path.c_str(), NC_CLOBBER | NC_64BIT_DATA, info, ncid), "ncmpi_create"));
  Status st = define_checkpoint(*ncid, rels, manifest, d, varids);
  if (!st) nc(ncmpi_abort(*ncid), "abort after error").set_aside("the define error is reported");
  return st;
}

// This rank's part of every relation (rank is its rank in the checkpoint's
// communicator: with O1 rank 0 holds every row), one put per relation, each
// relation's rows released after its put: its rows are freed before the next
// relation's put (one ncmpi_wait_all for all of them held every buffer at
// once: 2.3 times the page faults of a TC run, measured). Collective puts,
// or with d.independent one independent put per relation this rank has rows
// of, between ncmpi_begin_indep_data and ncmpi_end_indep_data.
Status put_staged(int ncid, int rank, const PolicyDecision& d, std::vector<StagedRelation>& rels,
                  const std::vector<int>& varids) {
  const bool independent = d.independent && !d.gather;
  Status st;
  if (independent) st = nc(ncmpi_begin_indep_data(ncid), "ncmpi_begin_indep_data");  // agreed on every rank
  if (independent && !st) return st;
  for (size_t i = 0; i < rels.size(); ++i) {
    StagedRelation& r = rels[i];
    MPI_Offset start[2] = {0, 0}, count[2] = {0, r.arity + 1};
    if (d.gather) count[0] = rank == 0 ? static_cast<MPI_Offset>(r.shape.total) : 0;
    else {
      start[0] = static_cast<MPI_Offset>(r.shape.offset);
      count[0] = static_cast<MPI_Offset>(r.shape.nlocal);
    }
    // Collective: every rank calls for every relation, even after an error.
    if (!independent || (st && count[0] > 0)) {
      Status put = nc(api::put_vara_in_file_order(ncid, varids[i], start, count,
                                                  reinterpret_cast<unsigned long long*>(r.rows.get()),
                                                  static_cast<int64_t>(count[0] * count[1]), !independent),
                      "relation write");
      if (st) st = put;
    }
    r.rows.reset();
  }
  if (independent) {
    Status ended = nc(ncmpi_end_indep_data(ncid), "ncmpi_end_indep_data");
    if (st) st = ended;
  }
  return st;
}

Status bcast_text(MPI_Comm comm, std::string* text) {
  unsigned long long n = text->size();
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm)));
  if (n > INT_MAX) return {NC_EINTOVERFLOW, "checkpoint manifest too large"};
  text->resize(n);
  return EXA_MPI(MPI_Bcast(text->data(), static_cast<int>(n), MPI_CHAR, 0, comm));
}

}  // namespace

Status write_checkpoint_file(MPI_Comm comm, const std::string& path, std::vector<StagedRelation>& rels,
                             std::string manifest, unsigned mask) {
  int rank = 0, size = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &size)));
  PolicyInput in;
  const PolicyDecision d = file_decision(rels, mask, size, &in);
  log_decision(comm, "checkpoint file", path, in, d);
  InfoGuard info;
  EXA_RETURN_IF_ERROR(policy_info(d, &info.info));
  std::vector<int> varids;
  int ncid = -1;

  if (d.gather) {  // O1: the rows to rank 0; one rank, one create, one write, one sync
    Status st;
    for (StagedRelation& r : rels) {  // every rank takes part in every gather
      const Status gathered = gather_staged(comm, rank, size, r);
      if (st) st = gathered;
    }
    if (rank == 0 && st) {
      st = create_checkpoint(MPI_COMM_SELF, path, info.info, rels, manifest, d, &ncid, &varids);
      if (st) st = sync_close(ncid, put_staged(ncid, rank, d, rels, varids), d.independent);
    }
    return agree(comm, st);
  }
  if (!d.two_phase) {  // every rank creates, defines and writes
    EXA_RETURN_IF_ERROR(bcast_text(comm, &manifest));
    EXA_RETURN_IF_ERROR(create_checkpoint(comm, path, info.info, rels, manifest, d, &ncid, &varids));
    // Agreed: rank 0 makes the file current only if every rank's rows are in it.
    return agree(comm, sync_close(ncid, put_staged(ncid, rank, d, rels, varids), d.independent));
  }
  // O2: rank 0 creates and defines alone; then all open and write collectively,
  // each O7 phase on its own communicator (MPI_Comm_split), a barrier after each.
  Status st;
  if (rank == 0) {
    st = create_checkpoint(MPI_COMM_SELF, path, info.info, rels, manifest, d, &ncid, &varids);
    if (st) st = nc(ncmpi_close(ncid), "ncmpi_close");
  }
  EXA_RETURN_IF_ERROR(agree(comm, st));
  const int my_phase = static_cast<int>(static_cast<int64_t>(rank) * d.phases / size);
  MPI_Comm phase_comm = comm;  // one phase: the checkpoint's own communicator, no split
  if (d.phases > 1) EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_split(comm, my_phase, rank, &phase_comm)));
  // Independent writes into fixed-size variables (O5 with O4): each rank opens
  // the file on MPI_COMM_SELF and writes its rows there (collective over one
  // rank), then syncs and closes it: no collective open, no
  // begin/end_indep_data and their agreements. Not with a record dimension:
  // each handle would keep its own record count and its close write it.
  const bool own_handle = d.independent && d.fixed_rows;
  PolicyDecision on_handle = d;
  if (own_handle) on_handle.independent = false;
  const MPI_Comm open_comm = own_handle ? MPI_COMM_SELF : phase_comm;
  for (int p = 0; p < d.phases && st; ++p) {
    if (p == my_phase) {
      ncid = -1;
      st = nc(ncmpi_open(open_comm, path.c_str(), NC_WRITE, info.info, &ncid), "ncmpi_open");
      varids.assign(rels.size(), -1);
      for (size_t i = 0; i < rels.size() && st; ++i)
        st = nc(ncmpi_inq_varid(ncid, rels[i].variable.c_str(), &varids[i]), "ncmpi_inq_varid");
      if (st) st = sync_close(ncid, put_staged(ncid, rank, on_handle, rels, varids), on_handle.independent);
      else if (ncid >= 0) nc(ncmpi_close(ncid), "close after error").set_aside("the open error is reported");
    }
    st = agree(comm, st);  // the barrier of the phase
  }
  if (d.phases > 1) EXA_MPI(MPI_Comm_free(&phase_comm)).set_aside("the write's status is what matters");
  return st;
}

Status inquire_relation(int ncid, const std::string& name, int* varid, int* arity, uint64_t* rows) {
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_varid(ncid, name.c_str(), varid), "relation"));
  nc_type type = 0;
  int ndims = 0, dims[2];
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_vartype(ncid, *varid, &type), "relation"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_varndims(ncid, *varid, &ndims), "relation"));
  if (type != NC_UINT64 || ndims != 2) return {NC_EINVAL, name + " is not a relation (2-D NC_UINT64)"};
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_vardimid(ncid, *varid, dims), "relation"));
  MPI_Offset nrows = 0, ncols = 0;
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_dimlen(ncid, dims[0], &nrows), "relation rows"));
  EXA_RETURN_IF_ERROR(nc(ncmpi_inq_dimlen(ncid, dims[1], &ncols), "relation columns"));
  int a = 0;
  if (ncmpi_get_att_int(ncid, *varid, "arity", &a) != NC_NOERR || a < 1 || a > 64 || ncols != a + 1)
    return {NC_EINVAL, name + " is not a relation (arity attribute)"};
  *arity = a;
  *rows = static_cast<uint64_t>(nrows);
  return Status::ok();
}

Status read_relation(int ncid, MPI_Comm comm, const std::string& name, int hash_column,
                     std::vector<uint64_t>* out, int* arity_out) {
  int varid = -1, arity = 0;
  uint64_t nrows = 0;
  EXA_RETURN_IF_ERROR(inquire_relation(ncid, name, &varid, &arity, &nrows));
  *arity_out = arity;
  if (hash_column < -1 || hash_column >= arity) return {NC_EINVAL, "hash column out of range"};
  int rank = 0, size = 1;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_rank(comm, &rank)));
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Comm_size(comm, &size)));
  const uint64_t base = nrows / size, rem = nrows % size, r = static_cast<uint64_t>(rank);
  const uint64_t first = r * base + std::min(r, rem), mine = base + (r < rem ? 1 : 0);
  const int cols = arity + 1;
  std::vector<uint64_t> rows(mine * cols);
  MPI_Offset start[2] = {static_cast<MPI_Offset>(mine > 0 ? first : 0), 0};
  MPI_Offset count[2] = {static_cast<MPI_Offset>(mine), cols};
  EXA_RETURN_IF_ERROR(nc(ncmpi_get_vara_ulonglong_all(ncid, varid, start, count,
                                                      reinterpret_cast<unsigned long long*>(rows.data())),
                         "relation read"));
  // Rows by destination (the id column dropped); the contiguous share keeps them here.
  std::vector<uint64_t> send_rows(size, 0);
  std::vector<int> dest(mine, rank);
  if (hash_column >= 0)
    for (uint64_t i = 0; i < mine; ++i) dest[i] = owner_of(rows[i * cols + hash_column], size);
  for (uint64_t i = 0; i < mine; ++i) ++send_rows[dest[i]];
  std::vector<uint64_t> send(mine * arity);
  std::vector<uint64_t> fill(size, 0);
  for (int p = 1; p < size; ++p) fill[p] = fill[p - 1] + send_rows[p - 1];
  for (uint64_t i = 0; i < mine; ++i)
    std::memcpy(&send[fill[dest[i]]++ * arity], &rows[i * cols], sizeof(uint64_t) * arity);
  rows.clear();
  rows.shrink_to_fit();
  return exchange_rows(comm, arity, send, send_rows, out);
}

}  // namespace exa::relation
