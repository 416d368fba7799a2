// Relations as 2-D NC_UINT64 variables, written and read through the public
// ncmpi_* API (an application-level store: every format that holds NC_UINT64
// works, and any netCDF reader sees an ordinary variable). The policy
// (pure/policy.hpp) is applied here: the steps possible on an open file by
// write_relation, all of them by write_relation_file, which creates the file.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "relation/pure/policy.hpp"
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

// Creates path (clobbering) holding one relation, with every policy step in
// mask that applies, synced before it returns. *total gets the row count.
Status write_relation_file(MPI_Comm comm, const std::string& path, const std::string& name, int arity,
                           uint64_t nlocal, const uint64_t* tuples, unsigned mask, uint64_t* total);

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
