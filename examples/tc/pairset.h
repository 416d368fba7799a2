/* An open-addressing hash set of (x, y) pairs of vertex ids (< 2^64 - 1),
 * the deduplicating index of a rank's shard of T. */
#ifndef TC_PAIRSET_H
#define TC_PAIRSET_H

#include <stdint.h>
#include <stdlib.h>

typedef struct {
  uint64_t *slots; /* 2 per slot; x == UINT64_MAX marks an empty slot */
  uint64_t cap, n;
} pairset;

static inline uint64_t tc_mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static inline void pairset_init(pairset *s, uint64_t cap) {
  s->cap = 1024;
  while (s->cap < 2 * cap) s->cap *= 2;
  s->n = 0;
  s->slots = malloc(sizeof *s->slots * 2 * s->cap);
  for (uint64_t i = 0; i < s->cap; i++) s->slots[2 * i] = UINT64_MAX;
}

static inline int pairset_insert_raw(pairset *s, uint64_t x, uint64_t y) {
  uint64_t i = tc_mix(x * 0x9e3779b97f4a7c15ULL ^ y) & (s->cap - 1);
  for (;; i = (i + 1) & (s->cap - 1)) {
    if (s->slots[2 * i] == UINT64_MAX) {
      s->slots[2 * i] = x;
      s->slots[2 * i + 1] = y;
      s->n++;
      return 1;
    }
    if (s->slots[2 * i] == x && s->slots[2 * i + 1] == y) return 0;
  }
}

/* 1 when (x, y) was new. */
static inline int pairset_insert(pairset *s, uint64_t x, uint64_t y) {
  if (2 * (s->n + 1) > s->cap) {
    pairset bigger;
    pairset_init(&bigger, s->cap);
    for (uint64_t i = 0; i < s->cap; i++)
      if (s->slots[2 * i] != UINT64_MAX) pairset_insert_raw(&bigger, s->slots[2 * i], s->slots[2 * i + 1]);
    free(s->slots);
    *s = bigger;
  }
  return pairset_insert_raw(s, x, y);
}

static inline void pairset_free(pairset *s) { free(s->slots); }

#endif
