#include "layer/passthrough_connector.hpp"

namespace exa::layer {

namespace {

// Its own per-file state: nothing but the state below (a connector with
// per-file fields would add them here).
class PassthroughFile final : public WrappedState {
 public:
  using WrappedState::WrappedState;
};

}  // namespace

std::unique_ptr<FileState> PassthroughConnector::wrap(std::unique_ptr<FileState> lower) {
  return std::make_unique<PassthroughFile>(std::move(lower));
}

Status make_passthrough_connector(Connector* below, const ConnectorSettings& settings,
                                  std::unique_ptr<Connector>* out) {
  if (!settings.empty())
    return {NC_EINVAL, "connector passthrough has no setting \"" + settings.begin()->first + "\""};
  *out = std::make_unique<PassthroughConnector>(below);
  return Status::ok();
}

}  // namespace exa::layer
