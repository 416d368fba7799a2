// In-place byte reversal: the whole external <-> native step for data whose
// memory type is its external type, so it must run at memory bandwidth.
#include <cstring>
#include <utility>

#include "convert/byte_order.hpp"
#include "convert/external.hpp"
#include "convert/kernels.hpp"

namespace exa::convert {

namespace {

template <class U>
void swap_words(unsigned char* __restrict p, int64_t n) {
  for_each_index(n, [&](int64_t i) {
    U v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(U)), sizeof v);
    v = bswap(v);
    std::memcpy(p + i * static_cast<int64_t>(sizeof(U)), &v, sizeof v);
  });
}

// Any other element size: reverse each element's bytes one by one.
void swap_generic(unsigned char* p, int64_t elem_size, int64_t n) {
  for (int64_t e = 0; e < n; ++e, p += elem_size)
    for (int64_t i = 0, j = elem_size - 1; i < j; ++i, --j) std::swap(p[i], p[j]);
}

}  // namespace

void swap_bytes_in_place(void* buf, int64_t elem_size, int64_t n) {
  if (n <= 0 || elem_size <= 1) return;
  auto* p = static_cast<unsigned char*>(buf);
  switch (elem_size) {
    case 2: swap_words<uint16_t>(p, n); break;
    case 4: swap_words<uint32_t>(p, n); break;
    case 8: swap_words<uint64_t>(p, n); break;
    default: swap_generic(p, elem_size, n); break;
  }
}

}  // namespace exa::convert
