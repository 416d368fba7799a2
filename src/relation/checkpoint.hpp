// Checkpoints of relations (docs/relations.md, "Checkpoints"): each one a
// fresh netCDF file holding every relation written into it and the manifest
// (pure/manifest.hpp), written and synced at the commit, then made current by
// rank 0 atomically renaming a symbolic link MANIFEST -> file over the old
// one. Checkpoints of the layout before it (a directory of one-relation
// files and a text MANIFEST) still restore.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.hpp"

namespace exa::relation {

Status checkpoint_begin(MPI_Comm comm, const std::string& dir, int64_t iteration, MPI_Info info, int* ckid);
Status checkpoint_write(int ckid, const std::string& name, int kind, int arity, uint64_t nlocal,
                        const uint64_t* tuples);
Status checkpoint_commit(int ckid);
Status checkpoint_abort(int ckid);
Status checkpoint_restore(MPI_Comm comm, const std::string& dir, int64_t* iteration, int* nrelations, int* ckid);
Status checkpoint_inq_relation(int ckid, int i, std::string* name, int* arity);
Status checkpoint_read(int ckid, const std::string& name, int hash_column, std::vector<uint64_t>* out,
                       int* arity_out);
Status checkpoint_close(int ckid);
void set_kill_after(int nth);

}  // namespace exa::relation
