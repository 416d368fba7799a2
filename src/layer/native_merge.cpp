// Native connector: the merge at enddef of independent define mode. The
// steps, each agreed across ranks before the next (the MPI-free parts are in
// model/define_merge):
//   1. objects of earlier define phases: if any rank changed one, every rank
//      must have changed them alike (one digest, one allreduce);
//   2. each new object's fixed-size record goes to the rank its name hash
//      picks (alltoallv); that rank checks names defined on several ranks and
//      tells the losing ranks which records to drop (alltoallv);
//   3. owners send their dimensions to every rank (allgatherv), then their
//      variables and global attributes, with dimension ids as file positions.
// Global ids: rank order, then each rank's definition order.
#include <mpi.h>

#include <array>

#include "io/collective.hpp"
#include "io/exchange.hpp"
#include "io/mpi_errors.hpp"
#include "model/define_merge.hpp"
#include "layer/native_internal.hpp"

namespace exa::layer {

namespace {

Status check_old_objects(NativeFile& nf) {
  int touched = nf.old_touched ? 1 : 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, &touched, 1, MPI_INT, MPI_MAX, nf.comm())));
  if (!touched) return Status::ok();
  uint64_t d = model::digest_old_objects(nf.ds, nf.define_base);
  uint64_t both[2] = {d, ~d};
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, both, 2, MPI_UINT64_T, MPI_MAX, nf.comm())));
  if (both[0] != ~both[1])
    return {NC_EMULTIDEFINE, "ranks changed objects of an earlier define phase differently"};
  return Status::ok();
}

// Step 2: which of this rank's new objects it owns.
Status find_owners(NativeFile& nf, model::OwnObjects* own) {
  const int nprocs = nf.file.nprocs(), rank = nf.file.rank();
  const auto& base = nf.define_base;
  // The records, grouped by checking rank (a counting sort).
  std::vector<model::ObjectRecord> records = model::describe_new_objects(nf.ds, base, rank);
  nf.enddef_now.new_objects = static_cast<int64_t>(records.size());
  std::vector<int> counts(static_cast<size_t>(nprocs), 0);
  for (const auto& r : records) ++counts[static_cast<size_t>(model::checking_rank(r, nprocs))];
  std::vector<model::ObjectRecord> send(records.size());
  {
    std::vector<int64_t> next(static_cast<size_t>(nprocs), 0);
    for (size_t r = 1; r < next.size(); ++r) next[r] = next[r - 1] + counts[r - 1];
    for (const auto& r : records)
      send[static_cast<size_t>(next[static_cast<size_t>(model::checking_rank(r, nprocs))]++)] = r;
  }
  records = {};
  std::vector<model::ObjectRecord> received;
  EXA_RETURN_IF_ERROR(io::exchange_records(nf.comm(), send, counts, &received));
  send = {};
  std::vector<std::vector<model::DroppedRecord>> dropped(static_cast<size_t>(nprocs));
  Status checked = model::check_records(received, &dropped);
  received = {};
  std::vector<model::DroppedRecord> drops;
  for (size_t r = 0; r < dropped.size(); ++r) {
    counts[r] = static_cast<int>(dropped[r].size());
    drops.insert(drops.end(), dropped[r].begin(), dropped[r].end());
  }
  std::vector<model::DroppedRecord> mine_dropped;
  EXA_RETURN_IF_ERROR(io::exchange_records(nf.comm(), drops, counts, &mine_dropped));
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), checked));

  const size_t ndims = static_cast<size_t>(nf.ds.ndims() - base.ndims);
  const size_t nvars = static_cast<size_t>(nf.ds.nvars() - base.nvars);
  const size_t ngatts = nf.ds.header().gatts.size() - static_cast<size_t>(base.ngatts);
  std::vector<uint8_t> lost[3] = {std::vector<uint8_t>(ndims), std::vector<uint8_t>(nvars),
                                  std::vector<uint8_t>(ngatts)};
  for (const auto& d : mine_dropped) lost[d.kind][static_cast<size_t>(d.index)] = 1;
  for (size_t i = 0; i < ndims; ++i)
    if (!lost[0][i]) own->dims.push_back(base.ndims + static_cast<int>(i));
  for (size_t i = 0; i < nvars; ++i)
    if (!lost[1][i]) own->vars.push_back(base.nvars + static_cast<int>(i));
  for (size_t i = 0; i < ngatts; ++i)
    if (!lost[2][i]) own->gatts.push_back(base.ngatts + static_cast<int>(i));
  nf.enddef_now.owned_objects = static_cast<int64_t>(own->dims.size() + own->vars.size() + own->gatts.size());
  return Status::ok();
}

// Step 3. Changes the dataset; on error the caller undoes it.
Status exchange_objects(NativeFile& nf, const model::OwnObjects& own) {
  std::vector<uint8_t> all;
  std::vector<std::span<const uint8_t>> segments;
  {
    std::vector<uint8_t> mine = model::encode_dims(nf.ds, own.dims);
    EXA_RETURN_IF_ERROR(io::allgather_bytes(nf.comm(), mine, &all, &segments));
  }
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), model::apply_dims(nf.ds, nf.define_base, own, nf.file.rank(), segments)));
  {
    std::vector<uint8_t> mine =
        model::encode_vars_and_gatts(nf.ds, own.vars, nf.ds.dim_file_positions(), own.gatts);
    EXA_RETURN_IF_ERROR(io::allgather_bytes(nf.comm(), mine, &all, &segments));
  }
  return io::agree(nf.comm(), model::apply_vars_and_gatts(nf.ds, nf.define_base, own,
                                                         nf.file.rank(), segments));
}

}  // namespace

Status check_same_definitions(NativeFile& nf) {
  const auto digests = model::digest_definitions(nf.ds);
  // Per aspect the largest digest and the largest complement: equal on
  // every rank exactly when max == ~max(~d), i.e. max == min.
  std::array<uint64_t, 2 * model::kDefinitionAspects> both;
  for (size_t k = 0; k < digests.size(); ++k) {
    both[k] = digests[k];
    both[digests.size() + k] = ~digests[k];
  }
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Allreduce(MPI_IN_PLACE, both.data(), int(both.size()), MPI_UINT64_T, MPI_MAX, nf.comm())));
  for (size_t k = 0; k < digests.size(); ++k)
    if (both[k] != ~both[digests.size() + k]) return model::definition_conflict(k);
  return Status::ok();
}

Status merge_independent_definitions(NativeFile& nf) {
  if (nf.file.nprocs() == 1) {
    // One rank: nothing to merge; its definitions are the file's.
    const auto& b = nf.define_base;
    nf.enddef_now.new_objects = nf.enddef_now.owned_objects =
        nf.ds.ndims() - b.ndims + nf.ds.nvars() - b.nvars +
        static_cast<int64_t>(nf.ds.header().gatts.size()) - b.ngatts;
    return Status::ok();
  }
  double t = MPI_Wtime();
  EXA_RETURN_IF_ERROR(io::agree(nf.comm(), check_old_objects(nf)));
  model::OwnObjects own;
  EXA_RETURN_IF_ERROR(find_owners(nf, &own));
  nf.enddef_now.merge_check = MPI_Wtime() - t;
  t = MPI_Wtime();
  Status st = exchange_objects(nf, own);
  nf.enddef_now.merge_exchange = MPI_Wtime() - t;
  return st;
}

}  // namespace exa::layer
