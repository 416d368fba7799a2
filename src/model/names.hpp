// netCDF object-name rules, shared by every define call.
#pragma once

#include <string_view>

#include "util/status.hpp"

namespace exa::model {

// Checks a dimension, variable or attribute name as netCDF does: non-empty,
// at most NC_MAX_NAME bytes (NC_EMAXNAME), valid UTF-8, first character a
// letter, digit, '_' or multi-byte character, no control character or '/',
// no trailing white space (NC_EBADNAME otherwise).
Status check_name(std::string_view name);

}  // namespace exa::model
