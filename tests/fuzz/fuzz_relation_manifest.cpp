// libFuzzer target for the checkpoint manifest decoder. Whatever it accepts
// must re-encode to exactly the same bytes (the encoding is canonical), and
// every accepted entry must name a safe file (no '.', '..', hidden or absolute
// path; one directory level at most).
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>

#include "relation/pure/manifest.hpp"
#include "util/crc32c.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

void check(std::string_view bytes) {
  using namespace exa::relation;
  Manifest m;
  const exa::Status st = decode_manifest(bytes, &m);
  if (!st.is_ok()) {
    require(st.code() == NC_ENOTNC);
    return;
  }
  for (const ManifestEntry& e : m.entries) {
    require(valid_relation_name(e.relation) && valid_entry_file(e.file));
    // Either "<dir>/<file>" (a directory per checkpoint, the older layout) or
    // one "ck-*.nc" file per checkpoint; never ".", ".." or hidden.
    const size_t slash = e.file.find('/');
    require(e.file[0] != '.');
    if (slash == std::string::npos)
      require(e.file.size() > 6 && e.file.compare(0, 3, "ck-") == 0 &&
              e.file.compare(e.file.size() - 3, 3, ".nc") == 0);
    else
      require(slash > 0 && e.file[slash + 1] != '.' && e.file.find('/', slash + 1) == std::string::npos);
    require(e.iteration <= m.iteration);
  }
  require(encode_manifest(m) == bytes);
}

}  // namespace

// The input as it is (mostly stopped by the CRC), then with a valid CRC line
// appended, so the line parser behind the CRC is explored too.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check(bytes);
  char crc[32];
  std::snprintf(crc, sizeof crc, "crc32c %08x\n", exa::crc32c(data, size));
  check(std::string(bytes) + crc);
  return 0;
}
