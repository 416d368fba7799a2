// Connectors by name: the built-in ones, those a program registers, and
// plugins found in EXACDF_PLUGIN_PATH (layer/plugin_connector.cpp). The
// stack of a file (connector_stack.cpp) is made from these by name.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "layer/connector.hpp"
#include "layer/connector_spec.hpp"  // ConnectorSettings: from name{k=v;k2=v2}

namespace exa::layer {

// Makes a connector stacked on `below` (never null; native is the terminal one).
using ConnectorFactory = Status (*)(Connector* below, const ConnectorSettings& settings,
                                    std::unique_ptr<Connector>* out);
// Built-in and plugin connectors are found by name. Thread-safe; returns false if taken.
bool register_connector(const std::string& name, ConnectorFactory factory);

// What the registry keeps per name (a plugin's factory carries its table).
using ConnectorMaker = std::function<Status(Connector* below, const ConnectorSettings& settings,
                                            std::unique_ptr<Connector>* out)>;
bool register_connector_maker(const std::string& name, ConnectorMaker maker);

// The maker registered under `name`; if none, a plugin of that name is
// looked for in EXACDF_PLUGIN_PATH and registered. NC_EINVAL when neither
// exists (the message lists the known names), or the plugin's own error.
Status find_connector(const std::string& name, ConnectorMaker* out);

// The registered names, sorted (for messages).
std::vector<std::string> registered_connectors();

}  // namespace exa::layer
