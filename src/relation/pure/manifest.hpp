// The checkpoint manifest (docs/relations.md): the small text file whose
// atomic rename makes a checkpoint current. It lists, per relation, the
// files to load (the latest full snapshot and the deltas after it), and ends
// with a CRC-32C of everything before the CRC line. Pure (no MPI): encoded by
// rank 0, decoded on restore, fuzzed by tests/fuzz/fuzz_relation_manifest.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.hpp"

namespace exa::relation {

inline constexpr size_t kMaxManifestBytes = 1 << 20;
inline constexpr int kMaxArity = 64;

struct ManifestEntry {
  std::string relation;   // relation name (valid_relation_name)
  int arity = 0;
  bool delta = false;     // false: a full snapshot
  int64_t iteration = 0;  // the checkpoint that wrote it
  uint64_t rows = 0;
  std::string file;       // relative to the checkpoint directory (valid_entry_file)
};

// Where an entry's rows are: a checkpoint file "ck-<it>.<nonce>.nc" holding
// every relation of its checkpoint (variable <relation>, or <relation>.delta
// for a delta), or, in the layout before it, "ck-<it>.<nonce>/<rel>_full.nc"
// holding one relation (variable <relation>). Both restore.
std::string entry_variable(const ManifestEntry& e);
// The directory entry of DIR an entry keeps alive (the file, or the old layout's directory).
std::string entry_leaf(const ManifestEntry& e);

struct Manifest {
  int64_t iteration = 0;  // the current checkpoint
  int nranks = 0;         // ranks that wrote it (informative: any count restores)
  std::vector<ManifestEntry> entries;  // per relation: its full, then its deltas, in order
};

// A relation name usable as a netCDF name and in a file name: 1..128 of
// [A-Za-z0-9_-], not starting with '-'.
bool valid_relation_name(std::string_view name);
// A manifest file reference of the same characters plus '.', no component
// starting with '.': "ck-<name>.nc" (one file per checkpoint) or "<dir>/<file>"
// (the layout before it: a directory per checkpoint).
bool valid_entry_file(std::string_view file);

std::string encode_manifest(const Manifest& m);
// NC_ENOTNC (with a message) for anything but a well-formed manifest whose CRC matches.
Status decode_manifest(std::string_view bytes, Manifest* out);

// The manifest after a checkpoint: entries of `old` for relations the new
// checkpoint wrote no full snapshot of, then the new entries (a full drops
// the relation's older entries; a delta written beside a full in the same
// checkpoint is not needed to restore and is left out).
Manifest next_manifest(const Manifest& old, int64_t iteration, int nranks,
                       const std::vector<ManifestEntry>& written);

}  // namespace exa::relation
