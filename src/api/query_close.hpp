// ncmpi_close with the query layer around it: the sidecars this process
// trusts take its last puts before the close and the data file's final
// fingerprint after it (query/mpi/index_store.hpp), so a later process
// trusts them.
#pragma once

#include <functional>

namespace exa::api {

// close(): the close itself; its code first, then the query layer's.
int close_with_query_stamp(const char* fn, int ncid, const std::function<int()>& close);

}  // namespace exa::api
