// Helpers shared by the native connector's source files.
#pragma once

#include "layer/native_connector.hpp"

namespace exa::layer {

inline NativeFile& native(FileState& f) { return static_cast<NativeFile&>(f); }

}  // namespace exa::layer
