// The query engine's calls into the connector stack for index blocks
// (query/mpi/in_file.hpp -> Connector::extension "index_blocks").
#include "api/handles.hpp"
#include "pnetcdf.h"
#include "query/mpi/in_file.hpp"

namespace exa::query {

Status index_blocks(int ncid, layer::IndexBlocksArgs* args) {
  api::OpenFile* f = api::find_file(ncid);
  if (f == nullptr) return {NC_EBADID, "not an open file id"};
  return f->connector->extension(*f->state, "index_blocks", args);
}

layer::IndexBlocksArgs index_blocks_info(int ncid) {
  layer::IndexBlocksArgs a;
  a.op = layer::IndexBlocksArgs::Op::kInfo;
  if (!index_blocks(ncid, &a).is_ok()) a = layer::IndexBlocksArgs{};
  return a;
}

bool index_blocks_writer(int ncid) {
  const layer::IndexBlocksArgs a = index_blocks_info(ncid);
  return a.inside && a.writer;
}

}  // namespace exa::query
