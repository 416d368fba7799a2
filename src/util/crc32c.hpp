// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, initial value and
// final xor 0xFFFFFFFF), the checksum of the partitioned format
// (docs/format.md). crc32c("123456789") == 0xE3069283. The CPU's CRC32
// instruction where there is one (x86-64 SSE 4.2), else eight table
// lookups per 8 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace exa {

// Continues a CRC over n more bytes (start with crc = 0).
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);

namespace detail {
// The table-driven version (what runs without the instruction), for tests.
uint32_t crc32c_portable(const void* data, size_t n, uint32_t crc = 0);
}  // namespace detail

}  // namespace exa
