// libFuzzer target for the checkpoint manifest decoder. Whatever it accepts
// must re-encode to exactly the same bytes (the encoding is canonical), and
// every accepted entry must name a safe file (no '..', no absolute path).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "relation/pure/manifest.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exa::relation;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Manifest m;
  const exa::Status st = decode_manifest(bytes, &m);
  if (!st.is_ok()) {
    require(st.code() == NC_ENOTNC);
    return 0;
  }
  for (const ManifestEntry& e : m.entries) {
    require(valid_relation_name(e.relation) && valid_entry_file(e.file));
    require(e.file.find("..") == std::string::npos && e.file[0] != '/');
    require(e.iteration <= m.iteration);
  }
  require(encode_manifest(m) == bytes);
  return 0;
}
