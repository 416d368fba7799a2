// Helpers shared by the native connector's source files.
#pragma once

#include "layer/native_connector.hpp"

namespace exa::layer {

inline NativeFile& native(FileState& f) { return static_cast<NativeFile&>(f); }

// Opens this rank's MPI_COMM_SELF handle if it is not open yet. Local.
Status open_indep_handle(NativeFile& nf);

}  // namespace exa::layer
