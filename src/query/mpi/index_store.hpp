// Index sidecars on disk: building one collectively, loading and checking
// it against the data file (size, modification time, digest of the first
// bytes, and this process's puts), reading its chunk blocks.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "query/index_format.hpp"
#include "query/mpi/engine.hpp"

namespace exa::query {

struct LoadedIndex {
  IndexHeader header;
  std::string path;
  // Inside the data file (a partitioned file's index blocks: chunk offsets
  // are offsets in the data file), read through ncid's connector stack.
  bool in_file = false;
  int ncid = -1;
  // Chunk c's block, checked against its CRC. Local.
  Status load_block(uint64_t c, std::vector<unsigned char>* out) const;
  // The first n bytes of chunk c's block, unchecked (the bin counts: only
  // used to choose reading the values, which is right whatever they say).
  Status load_block_head(uint64_t c, uint64_t n, std::vector<unsigned char>* out) const;
};

// The sidecars a closing file leaves trusted, to be given the data file's
// fingerprint after the close (the close's own writes change it).
struct CloseStamp {
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the file's (the file's goes with it)
  int rank = 0;
  std::string path;
  std::vector<IndexHeader> headers;
  std::vector<uint32_t> crcs;  // their stored CRCs on disk
};
// Whether this process trusts some sidecar of ncid (the same on every rank).
bool has_sessions(int ncid);
// Values per chunk of a new min/max record (EXACDF_QUERY_MINMAX_CHUNK
// overrides it: tests use small chunks; read at the first call).
uint64_t minmax_chunk_elems();
// Before ncid's close: every sidecar this process trusts takes the
// communicator's last puts (as a query would) and is noted. Collective when
// there is any such sidecar (sessions are the same on every rank); nothing
// otherwise. keep_notes (the same on every rank: close_keeps_notes): the
// min/max of puts into variables nobody queried is kept too -- a partitioned
// file this handle writes gets min/max records inside it, in the close's one
// commit of index blocks (which also clears the writer-open flag); a classic
// file's variables with a sidecar get their record extended (and with
// EXACDF_QUERY_MINMAX=put/always set explicitly, every variable with such
// puts gets one).
Status prepare_close(const FileCtx& ctx, CloseStamp* out, bool keep_notes = false);
// Whether ncid's close keeps the min/max of puts nobody queried (the
// keep_notes of prepare_close): a partitioned file this handle writes, when
// puts take their range (EXACDF_QUERY_MINMAX put/always, the default put);
// a classic file this handle writes that has some sidecar beside it, or
// with EXACDF_QUERY_MINMAX=put/always set. Local, the same on every rank
// (a directory scan; nothing collective).
bool close_keeps_notes(int ncid, const std::string& path);
// After the open of a classic file for writing: each min/max record sidecar
// beside it that is current now (its fingerprint equals the data file's) is trusted by this
// rank from here on, as if this process had just looked at it, so that its
// puts extend the record at the close (prepare_close) instead of beginning
// it anew. Local (a rank that looks after another rank's first put finds the
// file changed and trusts nothing: the ranks agree at the first load).
void trust_at_open(int ncid, const std::string& path);
// After the close: the noted sidecars still on disk as this process left
// them get the data file's fingerprint, so a later process trusts them.
// Frees stamp->comm. Collective over it.
Status finish_close(CloseStamp* stamp);

// ncid was closed: what this process trusted of its sidecars goes.
void forget_trust(int ncid);

// What load_index found. present: a sidecar that decodes; matches: it
// describes the variable (the header in LoadedIndex, e.g. for a rebuild's
// data CRCs); usable: it is current -- built from this file, or trusted by
// this process with every put since applied as stale chunks -- and queries
// use its fresh chunks.
// minmax: what was found is a min/max record (no bitmaps: a variable
// never indexed), not an index (present stays false).
struct IndexState {
  bool present = false, matches = false, usable = false, minmax = false;
};

// Loads varid's sidecar header (rank 0 reads, all decode), takes this
// communicator's put records and marks the chunks they touch stale,
// writing the marks back into the sidecar (after ncmpi_sync, with the
// data file's new fingerprint). Without a sidecar (or with an untrusted
// min/max record), the puts' bounds of the chunks they wrote whole become
// a min/max record. Errors only for failed MPI calls or writes. The writer
// of index blocks (docs/format.md "Index blocks": nobody else trusts them
// while it has the file open) keeps the marks in its session instead, and
// commits them when commit_marks (its close) or with its next build.
// Collective.
Status load_index(const FileCtx& ctx, const VarShape& v, LoadedIndex* out, IndexState* state,
                  bool commit_marks = false);

}  // namespace exa::query
