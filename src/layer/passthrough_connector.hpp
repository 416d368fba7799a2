// The pass-through connector (as HDF5's pass-through VOL): every call goes
// to the connector below through this connector's own per-file state. It
// changes nothing; it proves the stack (tests rerun the MPI suite through
// it) and is the model for connectors that wrap the one below.
#pragma once

#include <memory>

#include "layer/connector_spec.hpp"
#include "layer/forwarding_connector.hpp"

namespace exa::layer {

class PassthroughConnector final : public ForwardingConnector {
 public:
  using ForwardingConnector::ForwardingConnector;
  const char* name() const override { return "passthrough"; }

 protected:
  std::unique_ptr<FileState> wrap(std::unique_ptr<FileState> lower) override;
};

// The factory the registry knows it by ("passthrough"; no settings).
Status make_passthrough_connector(Connector* below, const ConnectorSettings& settings,
                                  std::unique_ptr<Connector>* out);

}  // namespace exa::layer
