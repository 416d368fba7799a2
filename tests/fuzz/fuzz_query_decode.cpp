// libFuzzer target: the decoders of the query feature. The first byte picks
// one: 0 the encoded query (exa_query_decode), 1 the query text parser
// (`exacdf query`), 2 an index sidecar header (versions 1 and 2: chunk
// flags stale / no bounds / data CRC), 3 an index chunk block (3
// bins, 4096 positions). What decodes re-encodes to the same bytes (0, 2),
// or is one well-formed expression (1).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "query/expr.hpp"
#include "query/index_format.hpp"
#include "query/parser.hpp"

namespace q = exa::query;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t* p = data + 1;
  const size_t n = size - 1;
  switch (data[0] % 4) {
    case 0: {
      q::Expr e;
      if (q::decode(p, n, &e).is_ok()) {
        if (!q::well_formed(e)) std::abort();
        const auto again = q::encode(e);
        if (again.size() != n || !std::equal(again.begin(), again.end(), p)) std::abort();
      }
      break;
    }
    case 1: {
      q::Expr e;
      if (q::parse(std::string(reinterpret_cast<const char*>(p), n), &e).is_ok()) {
        if (!q::well_formed(e)) std::abort();
        q::Expr d;
        const auto bytes = q::encode(e);
        if (!q::decode(bytes.data(), bytes.size(), &d).is_ok()) std::abort();
      }
      break;
    }
    case 2: {
      q::IndexHeader h;
      if (q::decode_header(p, n, &h).is_ok()) {
        for (const q::ChunkEntry& c : h.chunks)  // what the decoder promises the engine
          if ((c.flags & q::kNoBounds) && !(c.flags & q::kStale)) std::abort();
        const auto again = q::encode_header(h);
        if (again.size() != n || !std::equal(again.begin(), again.end(), p)) std::abort();
      }
      break;
    }
    case 3: {
      q::ChunkBitmaps bm;
      if (q::ChunkBitmaps::decode(p, n, 3, 4096, &bm).is_ok() && bm.nbins() != 3) std::abort();
      break;
    }
  }
  return 0;
}
