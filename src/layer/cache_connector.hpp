// The cache connector (`cache{dir=...;size=...;durable=process|node;
// drain=eager|close|manual;close=sync|detach;recover=off|auto;prefetch=N;
// ghost=W[,W...]}`): puts are appended to a per-rank log on a fast tier and
// return; a mover drains the log into the file below in order; strided chunk
// reads are prefetched into the tier and served from there (see
// docs/architecture.md, "The cache connector"). Everything else passes
// through, after the log is drained where the call depends on it.
#pragma once

#include <memory>

#include "layer/connector.hpp"
#include "layer/connector_spec.hpp"

namespace exa::layer {

Status make_cache_connector(Connector* below, const ConnectorSettings& settings,
                            std::unique_ptr<Connector>* out);

}  // namespace exa::layer
