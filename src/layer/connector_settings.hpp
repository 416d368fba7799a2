// The settings of one connector in a stack, parsed from `name{k=v;k2=v2}`.
// (Temporary home until the layer's registry, connector_registry.hpp,
// defines the same alias: the merge keeps one.)
#pragma once

#include <map>
#include <string>

namespace exa::layer {

using ConnectorSettings = std::map<std::string, std::string>;

}  // namespace exa::layer
