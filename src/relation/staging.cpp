#include "relation/staging.hpp"

#include <sys/mman.h>

namespace exa::relation {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}

StagedRows allocate_rows(size_t values) {
  if (values > SIZE_MAX / sizeof(uint64_t) - kHugePage) return nullptr;
  const size_t bytes = values == 0 ? sizeof(uint64_t) : values * sizeof(uint64_t);
  if (bytes < kHugePage) return StagedRows(static_cast<uint64_t*>(std::malloc(bytes)));
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(kHugePage, rounded);
  // A hint: EINVAL where the kernel has no transparent huge pages leaves 4 KiB pages.
  if (p != nullptr) (void)::madvise(p, rounded, MADV_HUGEPAGE);
  return StagedRows(static_cast<uint64_t*>(p));
}

}  // namespace exa::relation
