/*
 * lookup_cache.h - the rows of a lookup join's table by key, kept in the
 * operator (Flink's LookupCache: DefaultLookupCache for PARTIAL, the
 * FULL cache's table image). Not keyed state: like Flink's caches it is
 * not checkpointed (a restored job starts with an empty cache, or loads
 * the FULL image again).
 *
 * Entries: key row -> its rows (0 rows: a cached miss), with the time it
 * was written and last read. PARTIAL: a get past expire-after-write or
 * expire-after-access drops the entry (a miss); a put beyond max_rows keys
 * evicts the least recently used. FULL: lookup_cache_append builds the
 * image row by row, nothing expires. Keys and rows are heap copies owned
 * by the cache; what get returns is valid until the next put / clear.
 */
#ifndef JOINERY_EXEC_LOOKUP_LOOKUP_CACHE_H
#define JOINERY_EXEC_LOOKUP_LOOKUP_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/row.h"

typedef struct LookupCache LookupCache;

typedef struct LookupCacheLimits {
    int64_t max_rows;                   /* keys kept; 0 = no bound */
    int64_t expire_after_write_millis;  /* 0 = never */
    int64_t expire_after_access_millis; /* 0 = never */
} LookupCacheLimits;

/* An empty cache; NULL on no memory. */
LookupCache *lookup_cache_create(LookupCacheLimits limits);
/* Frees it and everything it holds. NULL is a no-op. */
void lookup_cache_destroy(LookupCache *cache);
/* Drops every entry. */
void lookup_cache_clear(LookupCache *cache);
/*
 * The entry of `key` at time `now`: true with rows[0..*count) (borrowed), or false (not
 * cached, or expired: the entry is dropped). A hit refreshes its access time and its
 * place in the LRU order.
 */
bool lookup_cache_get(LookupCache *cache, const Row *key, int64_t now, Row *const **rows,
                      uint32_t *count);
/* Caches rows[0..count) (copied) for `key` at `now`, replacing what it held; false on no
   memory. */
bool lookup_cache_put(LookupCache *cache, const Row *key, Row *const *rows, uint32_t count,
                      int64_t now);
/* FULL image: adds one row (copied) under `key`; false on no memory. */
bool lookup_cache_append(LookupCache *cache, const Row *key, const Row *row, int64_t now);
/* Keys and rows held. */
uint64_t lookup_cache_keys(const LookupCache *cache);
uint64_t lookup_cache_rows(const LookupCache *cache);

#endif
