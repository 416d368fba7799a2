// Connectors built outside exacdf as shared libraries (include/exacdf_connector.h):
// libexacdf_connector_<name>.so in a directory of EXACDF_PLUGIN_PATH,
// exporting exacdf_connector_info. Loaded on first use, kept for the program.
#pragma once

#include "layer/connector_registry.hpp"

namespace exa::layer {

// Looks for the plugin `name`. *found false (and OK) when no directory of
// EXACDF_PLUGIN_PATH has its library; a library that fails to load, lacks
// the symbol or has an unknown table version is NC_EINVAL with the reason.
Status load_plugin_connector(const std::string& name, ConnectorMaker* out, bool* found);

}  // namespace exa::layer
