// The C entry points of relations and checkpoints (include/exacdf_relation.h);
// the store itself is src/relation/, built on the public ncmpi_* calls.
#include <pnetcdf.h>

#include <cstdlib>
#include <cstring>

#include "api/api_support.hpp"
#include "io/mpi_errors.hpp"
#include "exacdf_relation.h"
#include "relation/checkpoint.hpp"
#include "relation/exchange.hpp"
#include "relation/pure/manifest.hpp"
#include "relation/relation_io.hpp"

using exa::Status;
namespace rel = exa::relation;

namespace {

// Hands a vector's rows to C as malloc'd memory (the caller frees with exa_relation_free).
Status hand_out(const std::vector<uint64_t>& rows, int arity, MPI_Offset* nlocal, unsigned long long** tuples) {
  const size_t bytes = rows.size() * sizeof(uint64_t);
  auto* p = static_cast<unsigned long long*>(std::malloc(bytes > 0 ? bytes : 1));
  if (p == nullptr) return {NC_ENOMEM, "relation rows"};
  if (bytes > 0) std::memcpy(p, rows.data(), bytes);
  *tuples = p;
  *nlocal = static_cast<MPI_Offset>(rows.size() / static_cast<size_t>(arity));
  return Status::ok();
}

const uint64_t* u64(const unsigned long long* p) { return reinterpret_cast<const uint64_t*>(p); }

}  // namespace

extern "C" {

int exa_relation_write(int ncid, const char* name, int arity, MPI_Offset nlocal, const unsigned long long* tuples) {
  return exa::api::with_file("exa_relation_write", ncid, [&](exa::api::OpenFile& f) -> Status {
    if (name == nullptr || arity < 1 || arity > rel::kMaxArity || nlocal < 0 || (nlocal > 0 && tuples == nullptr))
      return {NC_EINVAL, "relation arguments"};
    MPI_Info info = MPI_INFO_NULL;
    unsigned mask = rel::kAllSteps;
    Status st = ncmpi_inq_file_info(ncid, &info) == NC_NOERR ? rel::policy_mask(info, &mask) : Status::ok();
    if (info != MPI_INFO_NULL) EXA_MPI(MPI_Info_free(&info)).set_aside("the hints were read");
    EXA_RETURN_IF_ERROR(st);
    return rel::write_relation(ncid, f.state->comm(), name, arity, static_cast<uint64_t>(nlocal), u64(tuples), mask);
  });
}

int exa_relation_inq(int ncid, const char* name, int* arity, MPI_Offset* nrows) {
  return exa::api::guarded("exa_relation_inq", [&]() -> Status {
    if (name == nullptr) return {NC_EINVAL, "null name"};
    int varid = -1, a = 0;
    uint64_t rows = 0;
    EXA_RETURN_IF_ERROR(rel::inquire_relation(ncid, name, &varid, &a, &rows));
    if (arity != nullptr) *arity = a;
    if (nrows != nullptr) *nrows = static_cast<MPI_Offset>(rows);
    return Status::ok();
  });
}

int exa_relation_read(int ncid, const char* name, int hash_column, MPI_Offset* nlocal, unsigned long long** tuples) {
  return exa::api::with_file("exa_relation_read", ncid, [&](exa::api::OpenFile& f) -> Status {
    if (name == nullptr || nlocal == nullptr || tuples == nullptr) return {NC_EINVAL, "null argument"};
    std::vector<uint64_t> rows;
    int arity = 1;
    EXA_RETURN_IF_ERROR(rel::read_relation(ncid, f.state->comm(), name, hash_column, &rows, &arity));
    return hand_out(rows, arity, nlocal, tuples);
  });
}

int exa_relation_owner(unsigned long long v, int nranks) { return nranks < 1 ? 0 : rel::owner_of(v, nranks); }

void exa_relation_free(void* tuples) { std::free(tuples); }

int exa_checkpoint_begin_info(MPI_Comm comm, const char* dir, long long iteration, MPI_Info info, int* ckid) {
  return exa::api::guarded("exa_checkpoint_begin", [&]() -> Status {
    if (dir == nullptr) return {NC_EINVAL, "null directory"};
    return rel::checkpoint_begin(comm, dir, iteration, info, ckid);
  });
}

int exa_checkpoint_begin(MPI_Comm comm, const char* dir, long long iteration, int* ckid) {
  return exa_checkpoint_begin_info(comm, dir, iteration, MPI_INFO_NULL, ckid);
}

int exa_checkpoint_write(int ckid, const char* name, int kind, int arity, MPI_Offset nlocal,
                         const unsigned long long* tuples) {
  return exa::api::guarded("exa_checkpoint_write", [&]() -> Status {
    if (name == nullptr || nlocal < 0) return {NC_EINVAL, "checkpoint arguments"};
    return rel::checkpoint_write(ckid, name, kind, arity, static_cast<uint64_t>(nlocal), u64(tuples));
  });
}

int exa_checkpoint_commit(int ckid) {
  return exa::api::guarded("exa_checkpoint_commit", [&] { return rel::checkpoint_commit(ckid); });
}

int exa_checkpoint_abort(int ckid) {
  return exa::api::guarded("exa_checkpoint_abort", [&] { return rel::checkpoint_abort(ckid); });
}

int exa_checkpoint_restore(MPI_Comm comm, const char* dir, long long* iteration, int* nrelations, int* ckid) {
  return exa::api::guarded("exa_checkpoint_restore", [&]() -> Status {
    if (dir == nullptr) return {NC_EINVAL, "null directory"};
    int64_t it = 0;
    EXA_RETURN_IF_ERROR(rel::checkpoint_restore(comm, dir, &it, nrelations, ckid));
    if (iteration != nullptr) *iteration = it;
    return Status::ok();
  });
}

int exa_checkpoint_inq_relation(int ckid, int i, char* name, int* arity) {
  return exa::api::guarded("exa_checkpoint_inq_relation", [&]() -> Status {
    std::string n;
    EXA_RETURN_IF_ERROR(rel::checkpoint_inq_relation(ckid, i, &n, arity));
    if (name != nullptr) std::snprintf(name, NC_MAX_NAME + 1, "%s", n.c_str());
    return Status::ok();
  });
}

int exa_checkpoint_read(int ckid, const char* name, int hash_column, MPI_Offset* nlocal, unsigned long long** tuples) {
  return exa::api::guarded("exa_checkpoint_read", [&]() -> Status {
    if (name == nullptr || nlocal == nullptr || tuples == nullptr) return {NC_EINVAL, "null argument"};
    std::vector<uint64_t> rows;
    int arity = 1;
    EXA_RETURN_IF_ERROR(rel::checkpoint_read(ckid, name, hash_column, &rows, &arity));
    return hand_out(rows, arity, nlocal, tuples);
  });
}

int exa_checkpoint_close(int ckid) {
  return exa::api::guarded("exa_checkpoint_close", [&] { return rel::checkpoint_close(ckid); });
}

void exa_debug_checkpoint_kill_after(int nth) { rel::set_kill_after(nth); }

void exa_debug_relation_exchange_limit(long long rows) { rel::set_exchange_limit(rows > 0 ? static_cast<uint64_t>(rows) : 0); }

}  // extern "C"
