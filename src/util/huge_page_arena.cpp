#include "util/huge_page_arena.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace exa {

namespace {

constexpr size_t kPage = 4096;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

std::mutex& arena_mutex() {
  static std::mutex* mu = new std::mutex;  // (never destroyed: buffers may be freed at exit)
  return *mu;
}

// `bytes` (a multiple of the page) at a 2 MiB-aligned address, advised
// MADV_HUGEPAGE; null if the kernel refused the mapping.
uint8_t* map_aligned(size_t bytes) {
  const size_t align = HugePageArena::kChunkBytes;
  void* raw = mmap(nullptr, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = round_up(start, align);
  if (aligned > start) munmap(raw, aligned - start);
  size_t tail = start + bytes + align - (aligned + bytes);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  auto* p = reinterpret_cast<uint8_t*>(aligned);
  // Best effort: refused (THP "never", an old kernel), the pages are 4 KiB.
  (void)madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

#if defined(__SANITIZE_ADDRESS__)
#define EXA_ARENA_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXA_ARENA_UNDER_ASAN 1
#endif
#endif

// EXACDF_HUGEPAGES=0: every buffer from operator new, as before the arena
// (for paired benchmarks). Under AddressSanitizer too, so overruns of these
// buffers are still caught.
bool ordinary_pages() {
#ifdef EXA_ARENA_UNDER_ASAN
  return true;
#else
  static const bool off = [] {
    const char* v = std::getenv("EXACDF_HUGEPAGES");
    return v != nullptr && std::strcmp(v, "0") == 0;
  }();
  return off;
#endif
}

}  // namespace

bool HugePageArena::in_use() { return !ordinary_pages(); }

HugePageArena& HugePageArena::get() {
  static HugePageArena* arena = new HugePageArena;  // never destroyed: buffers may be freed at exit
  return *arena;
}

HugePageArena::~HugePageArena() {
  for (auto& [base, c] : chunks_) munmap(c.base, kChunkBytes);
  for (uint8_t* p : prepared_) munmap(p, kChunkBytes);
}

void HugePageArena::prepare_chunk() {
  if (ordinary_pages()) return;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(arena_mutex());
      if (prepared_.size() >= kPrepared) return;
    }
    uint8_t* base = map_aligned(kChunkBytes);  // (the faults outside the lock)
    if (base == nullptr) return;
    for (size_t at = 0; at < kChunkBytes; at += kPage) base[at] = 0;  // one fault with THP, else one per page
    std::lock_guard<std::mutex> lock(arena_mutex());
    if (prepared_.size() >= kPrepared) {
      munmap(base, kChunkBytes);  // other threads prepared enough meanwhile
      return;
    }
    prepared_.push_back(base);
  }
}

void* HugePageArena::allocate(size_t bytes) {
  if (bytes < kHugeMinBytes || ordinary_pages()) return ::operator new(bytes);
  const size_t size = round_up(bytes, kPage);
  std::lock_guard<std::mutex> lock(arena_mutex());
  if (bytes > kChunkBytes / 2) {
    uint8_t* p = map_aligned(size);
    if (p == nullptr) throw std::bad_alloc();
    ++own_mappings_;
    own_bytes_ += size;
    return p;
  }
  if (current_ == nullptr || current_->used + size > kChunkBytes) {
    if (current_ != nullptr && current_->live == 0) drop(current_);
    current_ = nullptr;
    uint8_t* base = nullptr;
    if (!prepared_.empty()) {
      base = prepared_.back();
      prepared_.pop_back();
    } else {
      base = map_aligned(kChunkBytes);
    }
    if (base == nullptr) throw std::bad_alloc();
    Chunk& c = chunks_[reinterpret_cast<uintptr_t>(base)];
    c.base = base;
    current_ = &c;
  }
  uint8_t* p = current_->base + current_->used;
  current_->used += size;
  ++current_->live;
  return p;
}

void HugePageArena::release(void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kHugeMinBytes || ordinary_pages()) {
    ::operator delete(p);
    return;
  }
  std::lock_guard<std::mutex> lock(arena_mutex());
  if (bytes > kChunkBytes / 2) {
    const size_t size = round_up(bytes, kPage);
    munmap(p, size);
    --own_mappings_;
    own_bytes_ -= size;
    return;
  }
  Chunk* c = chunk_of(p);
  if (c == nullptr || --c->live > 0) return;
  if (c == current_)
    c->used = 0;  // empty: carved again from its start (its pages stay mapped)
  else
    drop(c);
}

HugePageArena::Chunk* HugePageArena::chunk_of(const void* p) {
  auto it = chunks_.find(reinterpret_cast<uintptr_t>(p) & ~(uintptr_t{kChunkBytes} - 1));
  return it == chunks_.end() ? nullptr : &it->second;
}

void HugePageArena::drop(Chunk* c) {
  munmap(c->base, kChunkBytes);
  chunks_.erase(reinterpret_cast<uintptr_t>(c->base));
}

HugePageArena::Usage HugePageArena::usage() {
  std::lock_guard<std::mutex> lock(arena_mutex());
  const size_t chunks = chunks_.size() + prepared_.size();
  return {chunks, own_mappings_, chunks * kChunkBytes + own_bytes_, prepared_.size()};
}

}  // namespace exa
