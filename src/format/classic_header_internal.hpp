// Constants shared by the classic header encoder, decoder and layout.
#pragma once

#include <cstdint>

#include "format/classic_header.hpp"

namespace exa::format {

inline constexpr uint32_t kTagDimension = 0x0A;
inline constexpr uint32_t kTagVariable = 0x0B;
inline constexpr uint32_t kTagAttribute = 0x0C;

// Width in bytes of NON_NEG fields: 8 in CDF-5, 4 otherwise.
inline int nonneg_width(Version v) { return v == Version::kCdf5 ? 8 : 4; }

}  // namespace exa::format
