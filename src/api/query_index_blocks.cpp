// The query engine's calls into the connector stack for index blocks
// (query/mpi/in_file.hpp -> Connector::extension "index_blocks").
#include "api/api_support.hpp"
#include "api/handles.hpp"
#include "pnetcdf.h"
#include "query/mpi/in_file.hpp"
#include "query/mpi/put_epoch.hpp"
#include "layer/put_range.hpp"
#include "layer/connector_stack.hpp"

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

void settle_puts(int ncid) {
  api::OpenFile* f = api::find_file(ncid);
  if (f == nullptr || f->stack->writes_at_once()) return;
  layer::PutsSettledArgs a;
  Status st = f->connector->extension(*f->state, "puts_settled", &a);
  if (!st.is_ok()) st.set_aside("deferred puts not credited: their rows do not count as written whole");
  settle_deferred(ncid, st.is_ok() && a.settled);
}

}  // namespace exa::query

namespace exa::api {

void call_failed(int ncid, OpenFile& f) {
  if (!f.stack->writes_at_once()) exa::query::settle_deferred(ncid, false);
}

}  // namespace exa::api
