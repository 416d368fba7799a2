// Collective evaluation of queries and building of bitmap indexes. Reads
// data only through the public data calls (ncmpi_get_vara_*_all,
// ncmpi_get_varn_*_all), so it works on every format exacdf opens.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "query/bitset.hpp"
#include "query/expr.hpp"
#include "util/status.hpp"

namespace exa::query {

struct FileCtx {
  int ncid = -1;
  MPI_Comm comm = MPI_COMM_NULL;
  std::string path;
  int rank = 0, size = 1;
};

struct VarShape {
  int varid = -1;
  int type = 0;
  std::vector<MPI_Offset> dims;  // current lengths (record dimension: numrecs)
  std::string name;
};
Status var_shape(int ncid, int varid, VarShape* out);

// This rank's box; ndims 0 (a scalar): `scalar` says whether it holds the value.
struct Box {
  std::vector<MPI_Offset> start, count;
  bool scalar = false;
  uint64_t elems() const;
};

// Evaluates e (leaves bound to varids of ctx.ncid) on this rank's box
// (start/count null: the default split along dimension 0). Collective.
Status evaluate(const FileCtx& ctx, const Expr& e, const MPI_Offset* start, const MPI_Offset* count,
                Box* box, Bitset* hits);
// Reads varid at the hits into buf (nc_type memtype). Collective.
Status fetch(const FileCtx& ctx, const Box& box, const Bitset& hits, int varid, void* buf,
             int memtype);

Status index_create(const FileCtx& ctx, int varid, const char* spec);
Status index_drop(const FileCtx& ctx, int varid);
struct IndexInfo {
  bool present = false, current = false;
  int nbins = 0;
  int64_t bytes = 0;
  uint64_t nchunks = 0, nstale = 0;
  uint64_t last_rebuilt = 0, last_kept = 0;  // chunks of this process's last build of it
  uint64_t minmax_chunks = 0, minmax_bounded = 0;  // of a trusted min/max record (no index)
};
// Values this process tested one by one in queries so far.
uint64_t values_tested();
Status index_inq(const FileCtx& ctx, int varid, IndexInfo* info);

// FILE.exaidx.<varid>
std::string sidecar_path(const std::string& data_path, int varid);
// The varids that have a sidecar beside data_path, sorted: one scan of its
// directory (what a stat of sidecar_path per variable would find).
std::vector<int> sidecar_varids(const std::string& data_path);

}  // namespace exa::query
