// The names of a partitioned file's objects in the classic formats, where a
// name may not contain '/' (docs/format.md, "Converting to classic formats").
// `exacdf convert` maps names with these two functions in both directions.
#pragma once

#include <string>
#include <string_view>

namespace exa::format {

// Whether `full` is an object name ("x") or a path and a name ("/g/x"; not
// "/x" or "//x": partitioned::is_valid_full_name).
bool is_valid_path_name(std::string_view full);

// The classic name of a full object name ("/g00000/x" or "x"): the leading
// '/' is dropped, every other '/' is written "__", and a '_' that is followed
// by '_', '-' or '/' is written "_-". Other characters are kept, so names
// without '/', "__" or "_-" are unchanged. Empty when `full` is not a valid
// path name or its classic name is not a legal classic name (longer than
// NC_MAX_NAME).
std::string to_classic_name(std::string_view full);

// The inverse: the full name whose classic name is `classic`, read left to
// right ("__" is '/', "_-" is '_', anything else itself; a leading '/' when
// there was a "__"). A name that is the classic name of no full name (e.g.
// "a__", "x_-y") is returned unchanged.
std::string from_classic_name(std::string_view classic);

}  // namespace exa::format
