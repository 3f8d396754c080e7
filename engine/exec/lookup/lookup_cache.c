/*
 * lookup_cache.c - a chained hash table of key rows with an intrusive LRU
 * list (lookup_cache.h). Invariants: every entry is in exactly one bucket
 * chain and in the LRU list (most recent at the head); `keys` counts the
 * entries and `rows` their rows; buckets double when keys exceed them.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/exec/lookup/lookup_cache.h"

typedef struct CacheEntry {
    Row *key;
    uint64_t hash;
    Row **rows;
    uint32_t count, capacity;
    int64_t written_at, read_at;
    struct CacheEntry *chain;         /* next in the bucket */
    struct CacheEntry *newer, *older; /* LRU list */
} CacheEntry;

struct LookupCache {
    LookupCacheLimits limits;
    CacheEntry **buckets;
    uint64_t bucket_count; /* a power of two */
    uint64_t keys, rows;
    CacheEntry *newest, *oldest;
};

LookupCache *lookup_cache_create(LookupCacheLimits limits)
{
    LookupCache *cache = calloc(1, sizeof *cache);
    if (!cache)
        return NULL;
    cache->limits = limits;
    cache->bucket_count = 64;
    cache->buckets = calloc(cache->bucket_count, sizeof *cache->buckets);
    if (!cache->buckets) {
        free(cache);
        return NULL;
    }
    return cache;
}

static void entry_free_rows(CacheEntry *entry)
{
    for (uint32_t i = 0; i < entry->count; i++)
        free(entry->rows[i]);
    entry->count = 0;
}

static void lru_unlink(LookupCache *cache, CacheEntry *entry)
{
    if (entry->newer)
        entry->newer->older = entry->older;
    else
        cache->newest = entry->older;
    if (entry->older)
        entry->older->newer = entry->newer;
    else
        cache->oldest = entry->newer;
    entry->newer = entry->older = NULL;
}

static void lru_push(LookupCache *cache, CacheEntry *entry)
{
    entry->older = cache->newest;
    entry->newer = NULL;
    if (cache->newest)
        cache->newest->newer = entry;
    cache->newest = entry;
    if (!cache->oldest)
        cache->oldest = entry;
}

static void entry_remove(LookupCache *cache, CacheEntry *entry)
{
    CacheEntry **slot = &cache->buckets[entry->hash & (cache->bucket_count - 1)];
    while (*slot && *slot != entry)
        slot = &(*slot)->chain;
    if (*slot)
        *slot = entry->chain;
    lru_unlink(cache, entry);
    cache->rows -= entry->count;
    cache->keys--;
    entry_free_rows(entry);
    free(entry->rows);
    free(entry->key);
    free(entry);
}

void lookup_cache_clear(LookupCache *cache)
{
    while (cache && cache->newest)
        entry_remove(cache, cache->newest);
}

void lookup_cache_destroy(LookupCache *cache)
{
    if (!cache)
        return;
    lookup_cache_clear(cache);
    free(cache->buckets);
    free(cache);
}

static CacheEntry *entry_find(const LookupCache *cache, const Row *key, uint64_t hash)
{
    for (CacheEntry *entry = cache->buckets[hash & (cache->bucket_count - 1)]; entry;
         entry = entry->chain)
        if (entry->hash == hash && row_content_equals(entry->key, key))
            return entry;
    return NULL;
}

static void grow(LookupCache *cache)
{
    uint64_t count = cache->bucket_count * 2;
    CacheEntry **buckets = calloc(count, sizeof *buckets);
    if (!buckets)
        return; /* longer chains, still correct */
    for (uint64_t b = 0; b < cache->bucket_count; b++)
        for (CacheEntry *entry = cache->buckets[b], *next; entry; entry = next) {
            next = entry->chain;
            entry->chain = buckets[entry->hash & (count - 1)];
            buckets[entry->hash & (count - 1)] = entry;
        }
    free(cache->buckets);
    cache->buckets = buckets;
    cache->bucket_count = count;
}

static CacheEntry *entry_create(LookupCache *cache, const Row *key, uint64_t hash, int64_t now)
{
    CacheEntry *entry = calloc(1, sizeof *entry);
    if (!entry)
        return NULL;
    entry->key = row_copy_heap(key);
    if (!entry->key) {
        free(entry);
        return NULL;
    }
    entry->hash = hash;
    entry->written_at = entry->read_at = now;
    if (cache->keys + 1 > cache->bucket_count)
        grow(cache);
    CacheEntry **bucket = &cache->buckets[hash & (cache->bucket_count - 1)];
    entry->chain = *bucket;
    *bucket = entry;
    lru_push(cache, entry);
    cache->keys++;
    return entry;
}

static bool entry_add_row(LookupCache *cache, CacheEntry *entry, const Row *row)
{
    if (entry->count == entry->capacity) {
        uint32_t capacity = entry->capacity ? entry->capacity * 2 : 2;
        Row **rows = realloc(entry->rows, capacity * sizeof *rows);
        if (!rows)
            return false;
        entry->rows = rows;
        entry->capacity = capacity;
    }
    Row *copy = row_copy_heap(row);
    if (!copy)
        return false;
    entry->rows[entry->count++] = copy;
    cache->rows++;
    return true;
}

bool lookup_cache_get(LookupCache *cache, const Row *key, int64_t now, Row *const **rows,
                      uint32_t *count)
{
    CacheEntry *entry = entry_find(cache, key, row_content_hash(key));
    if (!entry)
        return false;
    const LookupCacheLimits *limits = &cache->limits;
    if ((limits->expire_after_write_millis &&
         now - entry->written_at >= limits->expire_after_write_millis) ||
        (limits->expire_after_access_millis &&
         now - entry->read_at >= limits->expire_after_access_millis)) {
        entry_remove(cache, entry);
        return false;
    }
    entry->read_at = now;
    lru_unlink(cache, entry);
    lru_push(cache, entry);
    *rows = entry->rows;
    *count = entry->count;
    return true;
}

bool lookup_cache_put(LookupCache *cache, const Row *key, Row *const *rows, uint32_t count,
                      int64_t now)
{
    uint64_t hash = row_content_hash(key);
    CacheEntry *entry = entry_find(cache, key, hash);
    if (entry) {
        cache->rows -= entry->count;
        entry_free_rows(entry);
        entry->written_at = entry->read_at = now;
        lru_unlink(cache, entry);
        lru_push(cache, entry);
    } else {
        entry = entry_create(cache, key, hash, now);
        if (!entry)
            return false;
    }
    for (uint32_t i = 0; i < count; i++)
        if (!entry_add_row(cache, entry, rows[i]))
            return false;
    while (cache->limits.max_rows > 0 && cache->keys > (uint64_t)cache->limits.max_rows)
        entry_remove(cache, cache->oldest);
    return true;
}

bool lookup_cache_append(LookupCache *cache, const Row *key, const Row *row, int64_t now)
{
    uint64_t hash = row_content_hash(key);
    CacheEntry *entry = entry_find(cache, key, hash);
    if (!entry)
        entry = entry_create(cache, key, hash, now);
    return entry && entry_add_row(cache, entry, row);
}

uint64_t lookup_cache_keys(const LookupCache *cache)
{
    return cache ? cache->keys : 0;
}

uint64_t lookup_cache_rows(const LookupCache *cache)
{
    return cache ? cache->rows : 0;
}
