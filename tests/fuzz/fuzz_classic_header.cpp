// libFuzzer target for the classic header decoder. Whatever decode()
// accepts must encode to a header that decodes to the same thing, and laying
// it out again must not crash.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "format/classic_header.hpp"
#include "format/layout.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exa::format;
  const DecodeResult first = decode(std::span<const uint8_t>(data, size));
  if (!first.status.is_ok()) {
    // A truncation asks for more than it had; other errors ask for nothing.
    require(first.need_bytes == 0 || first.need_bytes > int64_t(size));
    return 0;
  }
  require(first.consumed > 0 && first.consumed <= int64_t(size));
  const std::vector<uint8_t> bytes = encode(first.header);
  require(int64_t(bytes.size()) == encoded_size(first.header));
  require(int64_t(bytes.size()) == first.consumed);
  const DecodeResult second = decode(bytes);
  require(second.status.is_ok());
  require(second.consumed == int64_t(bytes.size()));
  require(second.header == first.header);

  const Layout previous = existing_layout(first.header);
  Header copy = first.header;
  Layout layout;
  if (compute_layout(copy, {}, &previous, &layout).is_ok()) {
    require(layout.header_extent >= layout.header_size || copy.vars.empty());
  }
  return 0;
}
