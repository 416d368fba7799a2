// Relations as 2-D NC_UINT64 variables, written and read through the public
// ncmpi_* API (an application-level store: every format that holds NC_UINT64
// works, and any netCDF reader sees an ordinary variable). The policy
// (pure/policy.hpp) is applied here: the steps possible on an open file by
// write_relation, all of them by write_checkpoint_file, which creates the file.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "relation/pure/policy.hpp"
#include "relation/staging.hpp"
#include "util/status.hpp"

namespace exa::relation {

// What one collective write of nlocal rows per rank knows: this rank's
// first row (one MPI_Exscan), the total and the skew (one MPI_Allreduce).
struct WriteShape {
  uint64_t nlocal = 0;
  uint64_t offset = 0;
  uint64_t total = 0;
  PolicyInput input;
};
Status measure(MPI_Comm comm, int arity, uint64_t nlocal, WriteShape* out);

// The steps allowed: the info's exa_policy, else $EXACDF_POLICY, else all.
// NC_EINVAL for a value parse_policy refuses.
Status policy_mask(MPI_Info info, unsigned* mask);

// Collective on the file's communicator comm. The file may be in define or
// data mode; it is left in data mode.
Status write_relation(int ncid, MPI_Comm comm, const std::string& name, int arity, uint64_t nlocal,
                      const uint64_t* tuples, unsigned mask);

// One relation of a checkpoint, held from exa_checkpoint_write to the
// commit: this rank's rows with their ids, in the file's byte order
// (big-endian), in memory left uninitialized before they are copied in (no
// zero-filling pass). Until measure_staged the ids count from 0 on every
// rank; it adds the rank's first row to them.
struct StagedRelation {
  std::string variable;  // its netCDF variable in the checkpoint file
  int arity = 0;
  WriteShape shape;      // nlocal at once; offset, total and skew from measure_staged
  StagedRows rows;                   // shape.nlocal rows of arity + 1 values (staging.hpp)
  std::vector<uint64_t> rank_rows;   // every rank's nlocal (measure_staged)
};

// Local (no MPI): copies this rank's tuples (native order) into out->rows
// in the file's byte order, each row followed by its id.
Status stage_relation(const std::string& variable, int arity, uint64_t nlocal, const uint64_t* tuples,
                      StagedRelation* out);

// Collective: every staged relation's first row on this rank, total and
// skew from ONE MPI_Allgather of the per-rank row counts of all of them
// (exact 64-bit sums; before, one MPI_Exscan and one MPI_Allreduce per
// relation), and the ids made global.
Status measure_staged(MPI_Comm comm, std::vector<StagedRelation>& rels);

// The global text attribute of a checkpoint file holding its manifest.
inline constexpr const char* kManifestAttribute = "exa_checkpoint_manifest";

// Collective, after measure_staged: creates path (clobbering) holding every
// staged relation and the manifest attribute (its text significant on rank
// 0), written by one collective put per relation (each relation's rows
// released after its put), synced once by each writing rank and closed. The
// policy is decided once for the file, from its total size: when that is
// tiny (O1) every relation is gathered to rank 0, which alone creates and
// writes the file (MPI_COMM_SELF); else every rank writes its own rows.
Status write_checkpoint_file(MPI_Comm comm, const std::string& path, std::vector<StagedRelation>& rels,
                             std::string manifest, unsigned mask);

// Arity and rows of relation name in ncid (NC_ENOTVAR, NC_EINVAL).
Status inquire_relation(int ncid, const std::string& name, int* varid, int* arity, uint64_t* rows);

// Reads relation name, rows hash-partitioned on hash_column (-1: the
// contiguous share), appending arity values per row to *out.
Status read_relation(int ncid, MPI_Comm comm, const std::string& name, int hash_column,
                     std::vector<uint64_t>* out, int* arity);

int owner_of(uint64_t v, int nranks);

// Every rank gets the same status: the first (lowest) error code of any rank.
Status agree(MPI_Comm comm, Status st);

}  // namespace exa::relation
