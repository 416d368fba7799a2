// The trace connector (`trace{dir=DIR;events=N}`): records every call of
// every rank per file and per variable (API kind, collective or not, bytes,
// time, Darshan's access-size bins, common sizes and strides, sequential and
// consecutive accesses, the MPI-IO calls made underneath, a time line of
// operations) and at close writes one JSON report per dataset into DIR
// (trace_report.hpp has the schema). Everything else passes through.
#pragma once

#include <memory>

#include "layer/connector.hpp"
#include "layer/connector_spec.hpp"

namespace exa::layer {

// Settings: dir (default "."), events (time-line events kept per rank and
// file, default 4096; later ones are counted as dropped). Unknown keys and
// bad values are NC_EINVAL.
Status make_trace_connector(Connector* below, const ConnectorSettings& settings,
                            std::unique_ptr<Connector>* out);

}  // namespace exa::layer
