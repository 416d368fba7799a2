// netCDF object-name rules, shared by every define call.
#pragma once

#include <string_view>

#include "util/status.hpp"

namespace exa::model {

// Checks a dimension, variable or attribute name as the define calls do:
// NC_EMAXNAME when longer than NC_MAX_NAME, NC_EBADNAME when it breaks the
// netCDF naming rule (format::is_valid_name, shared with the decoder).
Status check_name(std::string_view name);

}  // namespace exa::model
