// libFuzzer target: the partitioned format's superblock pair. Whatever is
// picked re-encodes to a superblock that decodes to the same fields.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "format/partitioned.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pf = exa::format::partitioned;
  std::span<const uint8_t> in(data, size);
  std::span<const uint8_t> slot0 = in.first(std::min<size_t>(size, 128));
  std::span<const uint8_t> slot1 = in.subspan(slot0.size());
  pf::Superblock sb;
  int slot = -1;
  if (!pf::pick_superblock(slot0, slot1, &sb, &slot).is_ok()) return 0;
  if (slot != 0 && slot != 1) std::abort();
  auto bytes = pf::encode_superblock(sb);
  pf::Superblock again;
  if (!pf::decode_superblock(bytes, &again).is_ok() || !(again == sb)) std::abort();
  return 0;
}
