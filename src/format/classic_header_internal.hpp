// Constants shared by the classic header encoder, decoder and layout.
#pragma once

#include <cstdint>

#include "format/classic_header.hpp"

namespace exa::format {

inline constexpr uint32_t kTagDimension = 0x0A;
inline constexpr uint32_t kTagVariable = 0x0B;
inline constexpr uint32_t kTagAttribute = 0x0C;

// Largest vsize a 32-bit field holds; above it CDF-1/CDF-2 store 2^32-1.
inline constexpr int64_t kMaxVsize32 = 4294967292LL;

// Width in bytes of NON_NEG fields: 8 in CDF-5, 4 otherwise.
inline int nonneg_width(Version v) { return v == Version::kCdf5 ? 8 : 4; }

}  // namespace exa::format
