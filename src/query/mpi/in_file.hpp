// Index blocks inside partitioned files (docs/format.md "Index blocks"):
// the query engine's way to the native connector's index-block calls
// (layer/index_blocks.hpp) through the file's connector stack.
#pragma once

#include "layer/index_blocks.hpp"
#include "util/status.hpp"

namespace exa::query {

// One index-block call on ncid (collective or local as its op says).
// NC_ENOTSUPPORT when no connector of the stack keeps index blocks.
Status index_blocks(int ncid, layer::IndexBlocksArgs* args);

// kInfo, with every failure read as "not inside" (a stack without the
// native connector, a classic file).
layer::IndexBlocksArgs index_blocks_info(int ncid);

// Whether this process is the writer of ncid's index blocks (it must give
// them its puts before the close: prepare_close). Local.
bool index_blocks_writer(int ncid);

// Settles ncid's deferred puts (put_epoch.hpp, settle_deferred): on a stack
// that does not write at once (async, cache), asks it to complete them
// (extension "puts_settled", layer/put_range.hpp) and credits them when it
// did without an error left unreported. Collective; nothing on other stacks.
void settle_puts(int ncid);

}  // namespace exa::query
