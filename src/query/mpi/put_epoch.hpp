// Puts seen by this process, per ncid (any variable: one small entry per
// open file, whatever the number of variables written): an index built or
// checked at put count k is not used once the count moved (the data it
// describes may have changed, perhaps still buffered in this process).
#pragma once

#include <cstdint>

namespace exa::query {

void note_put(int ncid, int varid);
uint64_t put_count(int ncid, int varid);

}  // namespace exa::query
