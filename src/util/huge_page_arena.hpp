// Memory for large byte buffers in 2 MiB transparent huge pages. The first
// write to a new buffer faults its pages in: with 4 KiB pages a 512 KiB copy
// into new memory took 0.3-0.9 ms against 0.04-0.06 ms into mapped memory
// (128 faults, each zeroing a page); in a 2 MiB huge page one fault maps and
// zeroes the whole page (docs/perf/async_vpic_1rank.md). The async
// connector's copies of a program's first puts are such buffers.
//
// Buffers of at least kHugeMinBytes come from 2 MiB-aligned mappings advised
// MADV_HUGEPAGE (where the kernel's THP setting is "madvise" or "always";
// with "never" they are ordinary pages, as before). Up to kChunkBytes / 2
// they are carved from shared 2 MiB chunks (a chunk is unmapped when its last
// buffer is freed); larger ones get a mapping of their own. Smaller buffers
// come from operator new (all of them with EXACDF_HUGEPAGES=0). Thread-safe
// (one lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <new>
#include <utility>
#include <vector>

namespace exa {

class HugePageArena {
 public:
  static constexpr size_t kChunkBytes = size_t{2} << 20;
  static constexpr size_t kHugeMinBytes = size_t{64} << 10;

  static HugePageArena& get();
  // False under AddressSanitizer or with EXACDF_HUGEPAGES=0: every buffer
  // comes from operator new.
  static bool in_use();

  // `bytes` of memory (contents undefined); throws std::bad_alloc.
  void* allocate(size_t bytes);
  // Frees what allocate(bytes) gave.
  void release(void* p, size_t bytes) noexcept;

  // Maps chunks and faults their pages in, for the next chunks allocate
  // needs, until kPrepared are ready: the async connector's pool calls it
  // ahead, so the program's first copies do not fault (a 2 MiB fault zeroes
  // 2 MiB, 140-250 us here). Two: a step of 512 KiB puts used the first
  // chunk up before the pool had made the second when only one was kept.
  void prepare_chunk();
  static constexpr size_t kPrepared = 2;

  // What is mapped now: chunks (the one prepared ahead included) and
  // mappings of one buffer, and their bytes.
  struct Usage {
    size_t chunks = 0, own_mappings = 0, mapped_bytes = 0;
    size_t prepared = 0;  // chunks prepared ahead, not carved yet (counted in chunks)
  };
  Usage usage();

  HugePageArena() = default;
  HugePageArena(const HugePageArena&) = delete;
  HugePageArena& operator=(const HugePageArena&) = delete;
  ~HugePageArena();

 private:
  struct Chunk {
    uint8_t* base = nullptr;
    size_t used = 0;  // bytes carved (bump)
    size_t live = 0;  // buffers not yet freed
  };
  Chunk* chunk_of(const void* p);
  void drop(Chunk* c);

  std::map<uintptr_t, Chunk> chunks_;  // by base address (2 MiB-aligned)
  Chunk* current_ = nullptr;           // the chunk new buffers are carved from
  std::vector<uint8_t*> prepared_;     // prepare_chunk's, mapped and faulted in
  size_t own_mappings_ = 0, own_bytes_ = 0;
};

// For std::vector<uint8_t, HugePageAllocator<uint8_t>>: the arena above.
// Elements are default-initialised (resize does not zero bytes that a copy
// overwrites next): fill such a vector with resize and memcpy, not
// assign(first, last), which copies byte by byte with an allocator that is
// not std::allocator (143 us against 40 us per 512 KiB here).
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(HugePageArena::get().allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { HugePageArena::get().release(p, n * sizeof(T)); }
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: no zeroing
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

using HugePageBytes = std::vector<uint8_t, HugePageAllocator<uint8_t>>;

}  // namespace exa
