// Where the cache connector's logs live and how `exacdf recover` (and
// cache{recover=auto}) replays them: shared by the connector and the
// recovery, so both name and judge a log the same way.
#pragma once

#include <string>
#include <vector>

#include "layer/cache_log.hpp"
#include "util/status.hpp"

namespace exa::layer::cache {

// The default tier: a per-user directory under /dev/shm (made 0700 on use).
std::string default_dir();
// The target's absolute path (realpath; the file must exist).
Status absolute_path(const std::string& path, std::string* out);
// DIR/<hash of the absolute target path>.<rank>.log
std::string log_path(const std::string& dir, const std::string& target, int rank);
// Every log of this target in dir (any rank), sorted.
std::vector<std::string> find_logs(const std::string& dir, const std::string& target);
// Makes dir (and its parent) if missing.
Status make_dir(const std::string& dir);

// The manifest's view of the target as it is now: identity and header digest
// over `header_size` bytes (0: the digest is not checked).
Status describe_target(const std::string& target, int64_t header_size, cachelog::Manifest* out);
// The same, with the header's bytes as this rank knows them (the Dataset's
// encoding, what rank 0 writes) instead of read from the file: after a
// multi-rank enddef rank 0's header write may not have landed yet when another
// rank logs its first put (enddef makes no agreement after it).
Status describe_target(const std::string& target, const std::vector<uint8_t>& header, cachelog::Manifest* out);

// Replays every committed record of the target's logs (rank by rank, in
// order), syncs, and removes the logs. A log whose manifest does not match
// the file (other path, file, or header) is refused: NC_EINVAL, nothing
// written, logs kept. report gets one line per log.
Status recover(const std::string& target, const std::string& dir, std::string* report);

// Set while recover() opens the target: cache connectors stay passive then.
bool recovering();

// Test hook: EXACDF_CACHE_CRASH=point:n[:rank] kills this process with
// SIGKILL at the n-th (1-based) passage through `point` (put_mid, put_after,
// drain_mid, drain_after, close_synced) of the given rank (every rank if omitted).
void crash_point(const char* point, int rank);

}  // namespace exa::layer::cache
