// The rule for names of dimensions, variables and attributes in the classic
// formats (the rule netCDF-C's NC_check_name applies), shared by the header
// decoder and the define calls.
#pragma once

#include <string_view>

namespace exa::format {

// Whether `name` is a legal netCDF name: 1..NC_MAX_NAME bytes of valid UTF-8;
// the first character a letter, digit, '_' or any multi-byte character; no
// '/', no ASCII control character or DEL; no trailing ASCII space.
// (Unicode normalization to NFC is not checked.)
bool is_valid_name(std::string_view name);

}  // namespace exa::format
