// The connector stack a file asks for, as text: EXACDF_CONNECTORS or the
// hint exa_connectors, "top,next,...,native", each entry `name` or
// `name{key=value;key2=value2}`. No MPI: unit-tested alone (tests/unit).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.hpp"

namespace exa::layer {

// A connector's own settings, from name{k=v;k2=v2}.
using ConnectorSettings = std::map<std::string, std::string>;

struct ConnectorEntry {
  std::string name;
  ConnectorSettings settings;
};

// Parses `spec` into entries, top of the stack first. "native" ends every
// stack: it may be given, only last and without settings, and is not
// returned. Blank text is the native connector alone (no entries).
// Names and keys are [A-Za-z0-9_.-]+; a value is any text without ',' '{'
// '}' ';' '='; blanks around names, keys and values are dropped. A
// malformed spec is NC_EINVAL with a message that says where.
Status parse_connector_spec(std::string_view spec, std::vector<ConnectorEntry>* out);

// The entries written back as a spec (canonical: no blanks, keys sorted).
std::string format_connector_spec(const std::vector<ConnectorEntry>& entries);

}  // namespace exa::layer
