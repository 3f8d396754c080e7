/*
 * state_lmdb_multiset.c - the LMDB backend's multiset state (see state.h):
 * one DBI holding, per key, a key record followed by its entries.
 *
 * Records (keys big-endian, values host order):
 *   key record   [key id 10] -> [part_count u32][0 u32]
 *                               part_count x {entry_count u32, 0 u32, oldest_access i64}
 *                               [key row]
 *   entry        [key id 10][part 1][group hash 4][row hash low 32 bits 4][row sequence 2]
 *                -> [count i32][0 u32][association_count i64][last_access i64][row]
 * where key id = [masked row_content_hash(key) 8][collision sequence 2]:
 * keys whose hashes collide get different sequences and are told apart by
 * their stored key rows (lmdb_find_key), rows of one part whose hashes
 * collide likewise by their row sequence. A key's record sorts right before
 * its entries; a part's entries are the range [key id][part], a group's the
 * range [key id][part][group hash] (ungrouped parts use group hash 0).
 *
 * Handles: a MultisetKey * is part 0 of an LmdbKey, the backend's copy of
 * the key (key row, per part entry count and oldest last_access) kept in a
 * per-unit cache by key hash, so finding a key twice in a unit gives the
 * same handle. The cache writes back: the key record is written (or
 * rewritten, in key order) at commit - and before scan_keys and cleanup
 * walk the key records - for keys whose figures changed (dirty), so adding
 * a row costs one put. A key inserted in this unit may have entries in
 * LMDB before its record is written; lookups treat such a sequence as taken.
 * The cache and everything hanging from it is freed at commit. Walks over
 * keys that are not cached (scan_keys, cleanup) decode into one temporary
 * handle instead, so they need no memory per key.
 *
 * Views: find_row and add_row return copies (LMDB memory dies on the next
 * write) kept on the part's handle; when an entry of the part is added or
 * removed, the part's views become reusable (view_generation), which the
 * contract allows and which keeps a unit that adds many rows to one key
 * (a restore) from holding a copy of each. Scans decode chunks of up to
 * LMDB_SCAN_CHUNK entries into a buffer of the state's pool and seek again
 * from the last key returned at each refill. An update finds its record
 * again by key id, part, group hash and row hash, and the row itself
 * (first checking whether the state's cursor is still on it).
 *
 * Invariants:
 * - a live cached LmdbKey's figures are the truth for its key (LMDB's key
 *   record may be older until commit); an uncached key's record is exact;
 * - entries exist in LMDB only under a key that has a record or a live
 *   cached handle;
 * - per part, oldest_access <= last_access of every entry (a lower bound:
 *   TTL checks on find read no entries unless it says some may expire);
 * - keys, entries, expired and the per-part figures are exact at all times;
 *   key_bytes and the parts' payload_bytes are the lmdb_record_bytes of the
 *   key and entry records (a cached key's record counted from its creation,
 *   before commit writes it).
 */
#include "engine/state/state_lmdb_internal.h"

#include <stddef.h>
#include <stdlib.h>

enum {
    ENTRY_PART_OFFSET = LMDB_KEY_ID_SIZE,          /* 10 */
    ENTRY_GROUP_OFFSET = ENTRY_PART_OFFSET + 1,    /* 11 */
    ENTRY_HASH_OFFSET = ENTRY_GROUP_OFFSET + 4,    /* 15 */
    ENTRY_SEQUENCE_OFFSET = ENTRY_HASH_OFFSET + 4, /* 19: the row prefix ends here */
    ENTRY_KEY_SIZE = ENTRY_SEQUENCE_OFFSET + 2,    /* 21 */
    ENTRY_HEADER_SIZE = 24,                        /* count, 0, association, last_access */
    KEY_HEADER_SIZE = 8,
    PART_META_SIZE = 16,
    KEY_MAX_ENTRIES = 1 << 26, /* as the hashmap: a part holds at most 2^26 rows */
    VIEW_REUSE_PROBES = 8,     /* views of a part looked through for one to reuse */
    CACHE_INITIAL_CAPACITY = 64,
    CACHE_KEEP_CAPACITY = 4096, /* a larger cache's slot array is freed at commit */
};

_Static_assert((int)ENTRY_KEY_SIZE <= (int)LMDB_MAX_RECORD_KEY, "entry keys fit a range walk");

/* A find_row / add_row result: the caller's MultisetEntry, then the row's copy. */
typedef struct LmdbView {
    MultisetEntry entry; /* first: a view is its entry */
    struct LmdbView *next;
    uint32_t generation; /* the part's view_generation when handed out */
    uint32_t capacity;   /* bytes of row room */
    uint64_t row[];
} LmdbView;

/* One part of a cached key: the callers' MultisetKey first. */
typedef struct LmdbKeyPart {
    MultisetKey pub;          /* entry_count, part */
    uint32_t view_generation; /* bumped when the part gains or loses an entry */
    int64_t oldest_access;    /* lower bound of the entries' last_access */
    LmdbView *views;
} LmdbKeyPart;

typedef struct LmdbKey {
    uint64_t hash; /* masked: the key id's first 8 bytes */
    uint16_t sequence;
    bool dirty; /* figures changed since the key record was written */
    bool dead;  /* removed: kept until commit for handles still around, never found */
    uint32_t key_capacity;
    Row *key_row; /* after the parts, in the same block */
    LmdbKeyPart parts[];
} LmdbKey;

typedef struct PartFigures {
    int64_t ttl_millis;
    MultisetGroupHash group_hash; /* NULL: the part's rows are not grouped */
    const void *group_context;
    uint64_t keys;          /* keys with at least one entry in the part */
    uint64_t entries;       /* entries of the part */
    uint64_t expired;       /* entries of the part dropped by TTL */
    uint64_t payload_bytes; /* lmdb_record_bytes of the part's entry records */
} PartFigures;

/* Open addressing by key hash; dead keys stay in their slots until the cache is cleared. */
typedef struct KeyCache {
    LmdbKey **slots;
    uint32_t capacity;
    uint32_t count;
} KeyCache;

typedef struct LmdbMultiset {
    MultisetState base; /* first: a MultisetState * is an LmdbMultiset * */
    LmdbState lmdb;
    KeyCache cache;
    LmdbKey *temp; /* walks over uncached keys decode here */
    LmdbScanPool scans;
    uint64_t keys;
    uint64_t entries;
    uint64_t expired;
    uint64_t key_bytes; /* lmdb_record_bytes of the keys' records (written or due at commit) */
    uint8_t cleanup_position[LMDB_KEY_ID_SIZE]; /* the last key cleanup examined */
    bool cleanup_started;
    bool ttl_enabled;
    PartFigures parts[]; /* part_count */
} LmdbMultiset;

/* The scan's cursor in MultisetScan.backend. */
typedef struct LmdbMultisetCursor {
    LmdbScanBuffer *buffer;
    uint8_t last[ENTRY_KEY_SIZE]; /* the last entry key returned */
    uint8_t prefix_size;          /* 11 (a part) or 15 (a group of a grouped part) */
    bool started;
    bool done;
} LmdbMultisetCursor;

_Static_assert(sizeof(LmdbMultisetCursor) <= sizeof(((MultisetScan *)0)->backend),
               "the scan cursor fits");
_Static_assert(offsetof(LmdbKeyPart, pub) == 0, "a handle is its part");
_Static_assert(sizeof(LmdbKeyPart) % 8 == 0 && sizeof(LmdbKey) % 8 == 0, "key rows stay aligned");

static inline LmdbMultiset *lmdb_multiset(MultisetState *state)
{
    return (LmdbMultiset *)state;
}

static inline LmdbKeyPart *key_part_of(MultisetKey *handle)
{
    return (LmdbKeyPart *)handle;
}

static inline LmdbKey *key_of(MultisetKey *handle)
{
    LmdbKeyPart *part0 = key_part_of(handle) - handle->part;
    return (LmdbKey *)((char *)part0 - offsetof(LmdbKey, parts));
}

static inline size_t key_row_offset(const LmdbMultiset *state)
{
    return KEY_HEADER_SIZE + (size_t)state->base.part_count * PART_META_SIZE;
}

/* What the key record of a key row of `size` bytes holds (lmdb_record_bytes). */
static inline uint64_t key_record_bytes(const LmdbMultiset *state, uint32_t size)
{
    return lmdb_record_bytes(LMDB_KEY_ID_SIZE, key_row_offset(state) + size);
}

static inline uint32_t group_of(const LmdbMultiset *state, uint32_t part, const Row *row)
{
    const PartFigures *figures = &state->parts[part];
    return figures->group_hash ? figures->group_hash(row, figures->group_context) : 0;
}

/* [key id][part][group hash][row hash]: the prefix of the records of one row hash. */
static void entry_row_prefix(uint8_t *to, const LmdbKey *key, uint32_t part, uint32_t group,
                             uint32_t hash)
{
    lmdb_key_id(to, key->hash, key->sequence);
    to[ENTRY_PART_OFFSET] = (uint8_t)part;
    lmdb_put_be32(to + ENTRY_GROUP_OFFSET, group);
    lmdb_put_be32(to + ENTRY_HASH_OFFSET, hash);
}

static inline bool key_rows_equal(const Row *a, const Row *b)
{
    return a->header.size == b->header.size && a->header.field_count == b->header.field_count &&
           memcmp((const char *)a + sizeof(RowHeader), (const char *)b + sizeof(RowHeader),
                  a->header.size - sizeof(RowHeader)) == 0;
}

/* ---- handles and the per-unit cache ---------------------------------------- */

static void key_free_views(LmdbKey *key, uint32_t part_count)
{
    for (uint32_t p = 0; p < part_count; p++) {
        for (LmdbView *view = key->parts[p].views, *next; view; view = next) {
            next = view->next;
            free(view);
        }
        key->parts[p].views = NULL;
    }
}

static void key_free(LmdbKey *key, uint32_t part_count)
{
    if (!key)
        return;
    key_free_views(key, part_count);
    free(key);
}

/* A handle with room for a key row of `size` bytes (figures not set); NULL without memory. */
static LmdbKey *key_alloc(const LmdbMultiset *state, uint32_t size)
{
    size_t parts = (size_t)state->base.part_count * sizeof(LmdbKeyPart);
    LmdbKey *key = malloc(sizeof *key + parts + size);
    if (!key)
        return NULL;
    memset(key, 0, sizeof *key + parts);
    key->key_capacity = size;
    key->key_row = (Row *)((char *)key->parts + parts);
    for (uint32_t p = 0; p < state->base.part_count; p++)
        key->parts[p].pub.part = (uint8_t)p;
    return key;
}

/* Fills `key` from a key record; false when the record is malformed. */
static bool key_decode(const LmdbMultiset *state, LmdbKey *key, uint64_t hash, uint16_t sequence,
                       const MDB_val *record)
{
    size_t offset = key_row_offset(state);
    const char *bytes = record->mv_data;
    if (record->mv_size < offset || lmdb_get_u32(bytes) != state->base.part_count)
        return false;
    uint32_t size = lmdb_stored_row_size(bytes + offset, record->mv_size - offset);
    if (size == 0 || size > key->key_capacity)
        return false;
    key->hash = hash;
    key->sequence = sequence;
    key->dirty = false;
    key->dead = false;
    for (uint32_t p = 0; p < state->base.part_count; p++) {
        const char *meta = bytes + KEY_HEADER_SIZE + (size_t)p * PART_META_SIZE;
        LmdbKeyPart *part = &key->parts[p];
        part->pub.entry_count = lmdb_get_u32(meta);
        part->oldest_access = lmdb_get_i64(meta + 8);
        part->view_generation++;
    }
    memcpy(key->key_row, bytes + offset, size);
    return true;
}

/* The key row size of a key record, or 0 when malformed. */
static uint32_t key_record_row_size(const LmdbMultiset *state, const MDB_val *record)
{
    size_t offset = key_row_offset(state);
    if (record->mv_size < offset)
        return 0;
    return lmdb_stored_row_size((const char *)record->mv_data + offset, record->mv_size - offset);
}

static uint32_t cache_mask(const KeyCache *cache)
{
    return cache->capacity - 1;
}

static LmdbKey *cache_find_row(const KeyCache *cache, uint64_t hash, const Row *row)
{
    if (!cache->count)
        return NULL;
    for (uint32_t i = (uint32_t)hash & cache_mask(cache);; i = (i + 1) & cache_mask(cache)) {
        LmdbKey *key = cache->slots[i];
        if (!key)
            return NULL;
        if (key->hash == hash && !key->dead && key_rows_equal(key->key_row, row))
            return key;
    }
}

static LmdbKey *cache_find_id(const KeyCache *cache, uint64_t hash, uint16_t sequence)
{
    if (!cache->count)
        return NULL;
    for (uint32_t i = (uint32_t)hash & cache_mask(cache);; i = (i + 1) & cache_mask(cache)) {
        LmdbKey *key = cache->slots[i];
        if (!key)
            return NULL;
        if (key->hash == hash && key->sequence == sequence && !key->dead)
            return key;
    }
}

static bool cache_sequence_taken(void *context, uint64_t hash, uint16_t sequence)
{
    return cache_find_id(&((LmdbMultiset *)context)->cache, hash, sequence) != NULL;
}

static bool cache_insert(KeyCache *cache, LmdbKey *key)
{
    if ((cache->count + 1) * 2 > cache->capacity) {
        uint32_t capacity = cache->capacity ? cache->capacity * 2 : CACHE_INITIAL_CAPACITY;
        LmdbKey **slots = calloc(capacity, sizeof *slots);
        if (!slots)
            return false;
        for (uint32_t i = 0; i < cache->capacity; i++) {
            LmdbKey *moved = cache->slots[i];
            if (!moved)
                continue;
            uint32_t j = (uint32_t)moved->hash & (capacity - 1);
            while (slots[j])
                j = (j + 1) & (capacity - 1);
            slots[j] = moved;
        }
        free(cache->slots);
        cache->slots = slots;
        cache->capacity = capacity;
    }
    uint32_t i = (uint32_t)key->hash & cache_mask(cache);
    while (cache->slots[i])
        i = (i + 1) & cache_mask(cache);
    cache->slots[i] = key;
    cache->count++;
    return true;
}

/* Frees every cached handle (commit, destroy). */
static void cache_clear(LmdbMultiset *state)
{
    KeyCache *cache = &state->cache;
    if (!cache->count)
        return;
    for (uint32_t i = 0; i < cache->capacity; i++) {
        key_free(cache->slots[i], state->base.part_count);
        cache->slots[i] = NULL;
    }
    cache->count = 0;
    if (cache->capacity > CACHE_KEEP_CAPACITY) {
        free(cache->slots);
        cache->slots = NULL;
        cache->capacity = 0;
    }
}

/* Caches a handle made from a key record; NULL (store failed) without memory or on a bad record. */
static LmdbKey *key_load(LmdbMultiset *state, uint64_t hash, uint16_t sequence,
                         const MDB_val *record)
{
    uint32_t size = key_record_row_size(state, record);
    if (size == 0) {
        lmdb_fail_corrupt(state->lmdb.store, "a multiset key record is malformed");
        return NULL;
    }
    LmdbKey *key = key_alloc(state, size);
    if (!key || !key_decode(state, key, hash, sequence, record) ||
        !cache_insert(&state->cache, key)) {
        free(key);
        lmdb_fail_memory(state->lmdb.store);
        return NULL;
    }
    return key;
}

/* Decodes a key record into the temporary handle (grown as needed); NULL when the store failed. */
static LmdbKey *temp_load(LmdbMultiset *state, uint64_t hash, uint16_t sequence,
                          const MDB_val *record)
{
    uint32_t size = key_record_row_size(state, record);
    if (size == 0) {
        lmdb_fail_corrupt(state->lmdb.store, "a multiset key record is malformed");
        return NULL;
    }
    if (state->temp && state->temp->key_capacity < size) {
        key_free(state->temp, state->base.part_count);
        state->temp = NULL;
    }
    if (state->temp)
        key_free_views(state->temp, state->base.part_count);
    else if (!(state->temp = key_alloc(state, size < 256 ? 256 : size))) {
        lmdb_fail_memory(state->lmdb.store);
        return NULL;
    }
    if (!key_decode(state, state->temp, hash, sequence, record)) {
        lmdb_fail_corrupt(state->lmdb.store, "a multiset key record is malformed");
        return NULL;
    }
    return state->temp;
}

/* Writes the key record of `key`. JOINERY_OK or the failure. */
static int key_write(LmdbMultiset *state, LmdbKey *key)
{
    LmdbStore *store = state->lmdb.store;
    size_t offset = key_row_offset(state);
    size_t size = offset + row_size(key->key_row);
    if (!lmdb_state_reserve(&state->lmdb, lmdb_put_pages(store, LMDB_KEY_ID_SIZE, size)))
        return store->base.error_status;
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return store->base.error_status;
    uint8_t id[LMDB_KEY_ID_SIZE];
    lmdb_key_id(id, key->hash, key->sequence);
    MDB_val record_key = {sizeof id, id}, record = {size, NULL};
    int rc = mdb_cursor_put(cursor, &record_key, &record, MDB_RESERVE);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "put (multiset key)");
    char *bytes = record.mv_data;
    uint32_t header[2] = {state->base.part_count, 0};
    memcpy(bytes, header, sizeof header);
    for (uint32_t p = 0; p < state->base.part_count; p++) {
        char *meta = bytes + KEY_HEADER_SIZE + (size_t)p * PART_META_SIZE;
        uint32_t count[2] = {key->parts[p].pub.entry_count, 0};
        memcpy(meta, count, sizeof count);
        memcpy(meta + 8, &key->parts[p].oldest_access, sizeof(int64_t));
    }
    lmdb_write_row(bytes + offset, key->key_row);
    key->dirty = false;
    return JOINERY_OK;
}

static int key_id_order(const void *a, const void *b)
{
    const LmdbKey *x = *(const LmdbKey *const *)a, *y = *(const LmdbKey *const *)b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (int)x->sequence - (int)y->sequence;
}

/* Writes the records of the dirty cached keys, in key order (neighbours share pages). */
static void multiset_before_commit(LmdbState *lmdb)
{
    LmdbMultiset *state = lmdb->owner;
    KeyCache *cache = &state->cache;
    uint32_t dirty = 0;
    for (uint32_t i = 0; i < cache->capacity; i++) {
        LmdbKey *key = cache->slots[i];
        dirty += key && key->dirty && !key->dead;
    }
    if (!dirty)
        return;
    LmdbKey **order = malloc(dirty * sizeof *order);
    if (order) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < cache->capacity; i++) {
            LmdbKey *key = cache->slots[i];
            if (key && key->dirty && !key->dead)
                order[count++] = key;
        }
        qsort(order, count, sizeof *order, key_id_order);
        for (uint32_t i = 0; i < count && !lmdb_failed(lmdb); i++)
            (void)key_write(state, order[i]);
        free(order);
        return;
    }
    for (uint32_t i = 0; i < cache->capacity && !lmdb_failed(lmdb); i++) { /* no memory: as found */
        LmdbKey *key = cache->slots[i];
        if (key && key->dirty && !key->dead)
            (void)key_write(state, key);
    }
}

static void multiset_after_commit(LmdbState *lmdb)
{
    cache_clear(lmdb->owner);
}

/* ---- views ---------------------------------------------------------------------- */

/* A view of part `part` with room for a row of `size` bytes; NULL (store failed) without memory. */
static LmdbView *view_take(LmdbMultiset *state, LmdbKeyPart *part, uint32_t size)
{
    uint32_t probes = 0;
    for (LmdbView *view = part->views; view && probes < VIEW_REUSE_PROBES;
         view = view->next, probes++) {
        if (view->generation != part->view_generation && view->capacity >= size) {
            view->generation = part->view_generation;
            return view;
        }
    }
    uint32_t capacity = size < 64 ? 64 : size;
    LmdbView *view = malloc(sizeof *view + capacity);
    if (!view) {
        lmdb_fail_memory(state->lmdb.store);
        return NULL;
    }
    view->capacity = capacity;
    view->generation = part->view_generation;
    view->next = part->views;
    part->views = view;
    return view;
}

/* Fills a view from an entry record's value (and the row, copied from `row`). */
static void view_fill(LmdbView *view, const void *value, const Row *row, uint32_t hash)
{
    lmdb_write_row(view->row, row);
    view->entry.row = (const Row *)view->row;
    memcpy(&view->entry.count, value, sizeof(int32_t));
    view->entry.association_count = lmdb_get_i64((const char *)value + 8);
    view->entry.last_access = lmdb_get_i64((const char *)value + 16);
    view->entry.hash = hash;
}

/* Writes an entry record's value at `to`. */
static void entry_write(void *to, int32_t count, int64_t association_count, int64_t last_access,
                        const Row *row)
{
    char *bytes = to;
    uint32_t zero = 0;
    memcpy(bytes, &count, sizeof count);
    memcpy(bytes + 4, &zero, sizeof zero);
    memcpy(bytes + 8, &association_count, sizeof association_count);
    memcpy(bytes + 16, &last_access, sizeof last_access);
    lmdb_write_row(bytes + ENTRY_HEADER_SIZE, row);
}

/* ---- figures -------------------------------------------------------------------- */

static void part_lost_entries(LmdbMultiset *state, LmdbKey *key, uint32_t p, uint32_t count)
{
    LmdbKeyPart *part = &key->parts[p];
    PartFigures *figures = &state->parts[p];
    if (!count)
        return;
    part->pub.entry_count -= count;
    figures->entries -= count;
    state->entries -= count;
    if (part->pub.entry_count == 0)
        figures->keys--;
    part->view_generation++;
    key->dirty = true;
}

/* ---- TTL ------------------------------------------------------------------------ */

/* Drops the expired entries of part p of `key`; returns how many. */
static uint64_t part_expire(LmdbMultiset *state, LmdbKey *key, uint32_t p, int64_t now)
{
    PartFigures *figures = &state->parts[p];
    LmdbKeyPart *part = &key->parts[p];
    uint8_t prefix[ENTRY_GROUP_OFFSET];
    lmdb_key_id(prefix, key->hash, key->sequence);
    prefix[ENTRY_PART_OFFSET] = (uint8_t)p;
    LmdbRange range;
    lmdb_range_begin(&range, &state->lmdb, prefix, sizeof prefix, NULL, 0);
    uint32_t dropped = 0;
    int64_t oldest = INT64_MAX;
    int found;
    while ((found = lmdb_range_next(&range)) == 1) {
        if (range.key.mv_size != ENTRY_KEY_SIZE || range.data.mv_size < ENTRY_HEADER_SIZE) {
            lmdb_fail_corrupt(state->lmdb.store, "a multiset entry record is malformed");
            break;
        }
        int64_t last_access = lmdb_get_i64((const char *)range.data.mv_data + 16);
        if (!state_is_expired(figures->ttl_millis, last_access, now)) {
            if (last_access < oldest)
                oldest = last_access;
            continue;
        }
        uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
        if (lmdb_range_delete(&range) != JOINERY_OK)
            break;
        figures->payload_bytes -= bytes;
        dropped++;
    }
    if (dropped > part->pub.entry_count) { /* the figures were wrong */
        lmdb_fail_corrupt(state->lmdb.store, "a multiset key's entry count is wrong");
        return 0;
    }
    part_lost_entries(state, key, p, dropped);
    figures->expired += dropped;
    state->expired += dropped;
    if (oldest != part->oldest_access) {
        part->oldest_access = oldest;
        key->dirty = true;
    }
    return dropped;
}

/*
 * Expires the parts of `key` whose oldest entry is due; returns the entries
 * dropped and sets *empty when no part has an entry left.
 */
static uint64_t key_expire(LmdbMultiset *state, LmdbKey *key, int64_t now, bool *empty)
{
    uint64_t dropped = 0;
    bool any = false;
    for (uint32_t p = 0; p < state->base.part_count && !lmdb_failed(&state->lmdb); p++) {
        LmdbKeyPart *part = &key->parts[p];
        if (part->pub.entry_count &&
            state_is_expired(state->parts[p].ttl_millis, part->oldest_access, now))
            dropped += part_expire(state, key, p, now);
        if (part->pub.entry_count)
            any = true;
    }
    *empty = !any;
    return dropped;
}

/* ---- keys ----------------------------------------------------------------------- */

/* Deletes the key's record and every entry; the handle becomes dead. JOINERY_OK or the failure. */
static int key_remove(LmdbMultiset *state, LmdbKey *key)
{
    uint8_t id[LMDB_KEY_ID_SIZE];
    lmdb_key_id(id, key->hash, key->sequence);
    LmdbRange range;
    lmdb_range_begin(&range, &state->lmdb, id, sizeof id, NULL, 0);
    int found;
    while ((found = lmdb_range_next(&range)) == 1) {
        uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
        uint32_t part = range.key.mv_size == ENTRY_KEY_SIZE
                            ? ((const uint8_t *)range.key.mv_data)[ENTRY_PART_OFFSET]
                            : UINT32_MAX;
        if (lmdb_range_delete(&range) != JOINERY_OK)
            return state->lmdb.store->base.error_status;
        if (part < state->base.part_count)
            state->parts[part].payload_bytes -= bytes;
    }
    if (found < 0)
        return state->lmdb.store->base.error_status;
    for (uint32_t p = 0; p < state->base.part_count; p++)
        part_lost_entries(state, key, p, key->parts[p].pub.entry_count);
    state->key_bytes -= key_record_bytes(state, row_size(key->key_row));
    state->keys--;
    key->dead = true;
    key->dirty = false;
    return JOINERY_OK;
}

/* A new cached key (no entries) with sequence `sequence`; NULL (store failed) without memory. */
static LmdbKey *key_create(LmdbMultiset *state, uint64_t hash, uint16_t sequence, const Row *row,
                           int64_t now)
{
    LmdbKey *key = key_alloc(state, row_size(row));
    if (!key) {
        lmdb_fail_memory(state->lmdb.store);
        return NULL;
    }
    key->hash = hash;
    key->sequence = sequence;
    key->dirty = true; /* its record is written at commit */
    lmdb_write_row(key->key_row, row);
    for (uint32_t p = 0; p < state->base.part_count; p++)
        key->parts[p].oldest_access = now;
    if (!cache_insert(&state->cache, key)) {
        free(key);
        lmdb_fail_memory(state->lmdb.store);
        return NULL;
    }
    state->key_bytes += key_record_bytes(state, row_size(row));
    state->keys++;
    return key;
}

/* The key `row` (hash masked), expired entries dropped; created when absent and `insert`. */
static LmdbKey *multiset_lookup(LmdbMultiset *state, const Row *row, uint64_t hash, int64_t now,
                                bool insert)
{
    LmdbKey *key = cache_find_row(&state->cache, hash, row);
    if (!key) {
        uint16_t sequence = 0, free_sequence = 0;
        MDB_val record;
        int found =
            lmdb_find_key(&state->lmdb, hash, row, key_row_offset(state), &sequence, &record,
                          insert ? &free_sequence : NULL, cache_sequence_taken, state);
        if (found < 0)
            return NULL;
        if (found == 0)
            return insert ? key_create(state, hash, free_sequence, row, now) : NULL;
        key = key_load(state, hash, sequence, &record);
        if (!key)
            return NULL;
    }
    if (state->ttl_enabled) {
        bool empty;
        uint64_t dropped = key_expire(state, key, now, &empty);
        if (lmdb_failed(&state->lmdb))
            return NULL;
        if (dropped > 0 && empty) {
            if (key_remove(state, key) != JOINERY_OK)
                return NULL;
            return insert ? multiset_lookup(state, row, hash, now, true) : NULL;
        }
    }
    return key;
}

static MultisetKey *lmdb_multiset_find(MultisetState *base, const Row *row, uint64_t hash,
                                       int64_t now)
{
    LmdbMultiset *state = lmdb_multiset(base);
    if (lmdb_failed(&state->lmdb))
        return NULL;
    LmdbKey *key = multiset_lookup(state, row, lmdb_key_hash(state->lmdb.store, hash), now, false);
    return key ? &key->parts[0].pub : NULL;
}

static MultisetKey *lmdb_multiset_insert_key(MultisetState *base, const Row *row, uint64_t hash,
                                             int64_t now)
{
    LmdbMultiset *state = lmdb_multiset(base);
    if (lmdb_failed(&state->lmdb))
        return NULL;
    LmdbKey *key = multiset_lookup(state, row, lmdb_key_hash(state->lmdb.store, hash), now, true);
    return key ? &key->parts[0].pub : NULL;
}

static MultisetKey *lmdb_multiset_key_part(MultisetState *base, MultisetKey *handle, uint32_t part)
{
    (void)base;
    return &key_of(handle)->parts[part].pub;
}

static int lmdb_multiset_remove_key(MultisetState *base, MultisetKey *handle)
{
    LmdbMultiset *state = lmdb_multiset(base);
    if (lmdb_failed(&state->lmdb))
        return state->lmdb.store->base.error_status;
    return key_remove(state, key_of(handle));
}

static int lmdb_multiset_release_key(MultisetState *base, MultisetKey *handle)
{
    LmdbKey *key = key_of(handle);
    for (uint32_t p = 0; p < base->part_count; p++)
        if (key->parts[p].pub.entry_count)
            return JOINERY_OK;
    return lmdb_multiset_remove_key(base, handle);
}

static void lmdb_multiset_set_group_hash(MultisetState *base, uint32_t part, MultisetGroupHash hash,
                                         const void *context)
{
    LmdbMultiset *state = lmdb_multiset(base);
    if (part >= state->base.part_count || state->keys > 0)
        return;
    state->parts[part].group_hash = hash;
    state->parts[part].group_context = context;
}

/* ---- entries -------------------------------------------------------------------- */

/*
 * Positions a range on the record of `row` in part `part` of `key` (the
 * state's cursor is on it): 1 found, 0 absent, -1 failed.
 */
static int entry_locate(LmdbMultiset *state, LmdbKey *key, uint32_t part, const Row *row,
                        uint32_t hash, LmdbRange *range)
{
    uint8_t prefix[ENTRY_SEQUENCE_OFFSET];
    entry_row_prefix(prefix, key, part, group_of(state, part, row), hash);
    lmdb_range_begin(range, &state->lmdb, prefix, sizeof prefix, NULL, 0);
    int found;
    while ((found = lmdb_range_next(range)) == 1) {
        if (range->key.mv_size != ENTRY_KEY_SIZE || range->data.mv_size < ENTRY_HEADER_SIZE) {
            lmdb_fail_corrupt(state->lmdb.store, "a multiset entry record is malformed");
            return -1;
        }
        if (lmdb_row_matches((const char *)range->data.mv_data + ENTRY_HEADER_SIZE,
                             range->data.mv_size - ENTRY_HEADER_SIZE, row))
            return 1;
    }
    return found;
}

/*
 * The fast path of update and remove: the state's cursor is usually still
 * on the record find_row (or the seek before) positioned it at. True when
 * its current record is the one of `row` under `prefix` (checked by
 * content, so a cursor moved elsewhere only costs the seek it saves);
 * *key then holds that record's key.
 */
static bool entry_is_current(LmdbMultiset *state, const uint8_t prefix[ENTRY_SEQUENCE_OFFSET],
                             const Row *row, uint8_t key[ENTRY_KEY_SIZE])
{
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return false;
    MDB_val record_key, record;
    if (mdb_cursor_get(cursor, &record_key, &record, MDB_GET_CURRENT) != MDB_SUCCESS)
        return false;
    if (record_key.mv_size != ENTRY_KEY_SIZE ||
        memcmp(record_key.mv_data, prefix, ENTRY_SEQUENCE_OFFSET) != 0 ||
        record.mv_size < ENTRY_HEADER_SIZE ||
        !lmdb_row_matches((const char *)record.mv_data + ENTRY_HEADER_SIZE,
                          record.mv_size - ENTRY_HEADER_SIZE, row))
        return false;
    memcpy(key, record_key.mv_data, ENTRY_KEY_SIZE);
    return true;
}

/* How a record key orders against a row prefix (-1 before, 0 under it, 1 after). */
static int prefix_order(const MDB_val *record_key, const uint8_t prefix[ENTRY_SEQUENCE_OFFSET])
{
    size_t size =
        record_key->mv_size < ENTRY_SEQUENCE_OFFSET ? record_key->mv_size : ENTRY_SEQUENCE_OFFSET;
    int order = memcmp(record_key->mv_data, prefix, size);
    if (order != 0)
        return order < 0 ? -1 : 1;
    return size < ENTRY_SEQUENCE_OFFSET ? -1 : 0;
}

/*
 * The fast path of add_row after find_row missed: the cursor is on the
 * first record after where `prefix` would be. True when that record and
 * the one before are both outside the prefix, i.e. no row has it yet (the
 * first sequence, 0, is free).
 */
static bool prefix_is_free(LmdbMultiset *state, const uint8_t prefix[ENTRY_SEQUENCE_OFFSET])
{
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return false;
    MDB_val record_key, record;
    if (mdb_cursor_get(cursor, &record_key, &record, MDB_GET_CURRENT) != MDB_SUCCESS ||
        prefix_order(&record_key, prefix) <= 0)
        return false;
    int rc = mdb_cursor_get(cursor, &record_key, &record, MDB_PREV);
    return rc == MDB_NOTFOUND || (rc == MDB_SUCCESS && prefix_order(&record_key, prefix) < 0);
}

static const MultisetEntry *lmdb_multiset_find_row(MultisetState *base, MultisetKey *handle,
                                                   const Row *row, uint64_t hash)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbKeyPart *part = key_part_of(handle);
    if (lmdb_failed(&state->lmdb) || part->pub.entry_count == 0)
        return NULL;
    LmdbRange range;
    uint32_t row_hash = lmdb_row_hash(state->lmdb.store, hash);
    if (entry_locate(state, key_of(handle), handle->part, row, row_hash, &range) != 1)
        return NULL;
    LmdbView *view = view_take(state, part, row_size(row));
    if (!view)
        return NULL;
    view_fill(view, range.data.mv_data, row, (uint32_t)hash);
    return &view->entry;
}

static const MultisetEntry *lmdb_multiset_add_row(MultisetState *base, MultisetKey *handle,
                                                  const Row *row, uint64_t hash, int32_t count,
                                                  int64_t association_count, int64_t now)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbStore *store = state->lmdb.store;
    LmdbKeyPart *part = key_part_of(handle);
    LmdbKey *key = key_of(handle);
    uint32_t p = handle->part;
    if (lmdb_failed(&state->lmdb))
        return NULL;
    if (part->pub.entry_count >= KEY_MAX_ENTRIES) {
        state_store_set_error(&store->base, JOINERY_ERROR_NO_MEMORY,
                              "more than %d rows under one key", KEY_MAX_ENTRIES);
        return NULL;
    }
    size_t size = ENTRY_HEADER_SIZE + row_size(row);
    if (!lmdb_state_reserve(&state->lmdb, lmdb_put_pages(store, ENTRY_KEY_SIZE, size)))
        return NULL;
    /* the first free row sequence under [key id][part][group][row hash] */
    uint8_t entry_key[ENTRY_KEY_SIZE];
    entry_row_prefix(entry_key, key, p, group_of(state, p, row), lmdb_row_hash(store, hash));
    LmdbRange range;
    lmdb_range_begin(&range, &state->lmdb, entry_key, ENTRY_SEQUENCE_OFFSET, NULL, 0);
    uint32_t sequence = 0;
    int found = prefix_is_free(state, entry_key) ? 0 : 1;
    while (found == 1 && (found = lmdb_range_next(&range)) == 1) {
        if (range.key.mv_size != ENTRY_KEY_SIZE)
            continue;
        uint16_t at = lmdb_get_be16((const uint8_t *)range.key.mv_data + ENTRY_SEQUENCE_OFFSET);
        if (at != sequence)
            break;
        sequence++;
    }
    if (found < 0)
        return NULL;
    if (sequence > UINT16_MAX) {
        state_store_set_error(&store->base, JOINERY_ERROR_RUNTIME,
                              "LMDB state: more than 65536 rows of one key share a row hash");
        return NULL;
    }
    lmdb_put_be16(entry_key + ENTRY_SEQUENCE_OFFSET, (uint16_t)sequence);
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return NULL;
    MDB_val record_key = {sizeof entry_key, entry_key}, record = {size, NULL};
    int rc = mdb_cursor_put(cursor, &record_key, &record, MDB_RESERVE);
    if (rc != MDB_SUCCESS) {
        lmdb_fail(store, rc, "put (multiset entry)");
        return NULL;
    }
    entry_write(record.mv_data, count, association_count, now, row);
    part->view_generation++; /* the part's other views are stale now */
    LmdbView *view = view_take(state, part, row_size(row));
    if (!view)
        return NULL;
    view_fill(view, record.mv_data, row, (uint32_t)hash);
    PartFigures *figures = &state->parts[p];
    if (part->pub.entry_count == 0 || now < part->oldest_access)
        part->oldest_access = now;
    if (part->pub.entry_count++ == 0)
        figures->keys++;
    figures->entries++;
    figures->payload_bytes += lmdb_record_bytes(ENTRY_KEY_SIZE, size);
    state->entries++;
    key->dirty = true;
    return &view->entry;
}

static int lmdb_multiset_update(MultisetState *base, MultisetKey *handle,
                                const MultisetEntry *entry, int32_t count,
                                int64_t association_count, int64_t now)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbStore *store = state->lmdb.store;
    LmdbKeyPart *part = key_part_of(handle);
    LmdbKey *key = key_of(handle);
    if (lmdb_failed(&state->lmdb))
        return store->base.error_status;
    size_t size = ENTRY_HEADER_SIZE + row_size(entry->row);
    if (!lmdb_state_reserve(&state->lmdb, lmdb_put_pages(store, ENTRY_KEY_SIZE, size)))
        return store->base.error_status;
    uint8_t prefix[ENTRY_SEQUENCE_OFFSET], record_key_bytes[ENTRY_KEY_SIZE];
    uint32_t row_hash = lmdb_row_hash(store, entry->hash);
    entry_row_prefix(prefix, key, handle->part, group_of(state, handle->part, entry->row),
                     row_hash);
    if (!entry_is_current(state, prefix, entry->row, record_key_bytes)) {
        LmdbRange range;
        int found = entry_locate(state, key, handle->part, entry->row, row_hash, &range);
        if (found == 0)
            return lmdb_fail_corrupt(store, "an updated multiset entry is not stored");
        if (found < 0)
            return store->base.error_status;
        memcpy(record_key_bytes, range.last, sizeof record_key_bytes);
    }
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb); /* on the record */
    MDB_val record_key = {sizeof record_key_bytes, record_key_bytes}, record = {size, NULL};
    int rc = mdb_cursor_put(cursor, &record_key, &record, MDB_CURRENT | MDB_RESERVE);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "put (multiset entry update)");
    entry_write(record.mv_data, count, association_count, now, entry->row);
    MultisetEntry *view = (MultisetEntry *)entry; /* a view is the backend's copy */
    view->count = count;
    view->association_count = association_count;
    view->last_access = now;
    if (now < part->oldest_access) { /* keep the lower bound a lower bound */
        part->oldest_access = now;
        key->dirty = true;
    }
    return JOINERY_OK;
}

static int lmdb_multiset_remove_entry(MultisetState *base, MultisetKey *handle,
                                      const MultisetEntry *entry)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbStore *store = state->lmdb.store;
    LmdbKey *key = key_of(handle);
    uint32_t p = handle->part;
    if (lmdb_failed(&state->lmdb))
        return store->base.error_status;
    uint64_t bytes = lmdb_record_bytes(ENTRY_KEY_SIZE, ENTRY_HEADER_SIZE + row_size(entry->row));
    uint8_t prefix[ENTRY_SEQUENCE_OFFSET], record_key[ENTRY_KEY_SIZE];
    uint32_t row_hash = lmdb_row_hash(store, entry->hash);
    entry_row_prefix(prefix, key, p, group_of(state, p, entry->row), row_hash);
    if (!lmdb_state_reserve(&state->lmdb, LMDB_DELETE_PAGES))
        return store->base.error_status;
    if (entry_is_current(state, prefix, entry->row, record_key)) {
        int rc = mdb_cursor_del(lmdb_state_cursor(&state->lmdb), 0);
        if (rc != MDB_SUCCESS)
            return lmdb_fail(store, rc, "cursor_del (multiset entry)");
    } else {
        LmdbRange range;
        int found = entry_locate(state, key, p, entry->row, row_hash, &range);
        if (found == 0)
            return lmdb_fail_corrupt(store, "a removed multiset entry is not stored");
        if (found < 0 || lmdb_range_delete(&range) != JOINERY_OK)
            return store->base.error_status;
    }
    state->parts[p].payload_bytes -= bytes;
    part_lost_entries(state, key, p, 1);
    return JOINERY_OK;
}

/* ---- scans ---------------------------------------------------------------------- */

static void lmdb_multiset_scan_begin(MultisetState *base, MultisetKey *handle, MultisetScan *scan)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbMultisetCursor *cursor = (LmdbMultisetCursor *)scan->backend;
    cursor->buffer = NULL;
    cursor->started = false;
    cursor->done = handle->entry_count == 0 || lmdb_failed(&state->lmdb);
    bool grouped = scan->grouped && state->parts[handle->part].group_hash;
    cursor->prefix_size = grouped ? ENTRY_HASH_OFFSET : ENTRY_GROUP_OFFSET;
}

static const MultisetEntry *lmdb_multiset_scan_refill(MultisetScan *scan)
{
    LmdbMultiset *state = lmdb_multiset(scan->state);
    LmdbStore *store = state->lmdb.store;
    LmdbMultisetCursor *cursor = (LmdbMultisetCursor *)scan->backend;
    if (cursor->done || lmdb_failed(&state->lmdb)) {
        cursor->done = true;
        return NULL;
    }
    if (!cursor->buffer && !(cursor->buffer = lmdb_scan_buffer_take(&state->scans))) {
        lmdb_fail_memory(store);
        return NULL;
    }
    LmdbScanBuffer *buffer = cursor->buffer;
    buffer->used = 0;
    uint8_t prefix[ENTRY_HASH_OFFSET];
    LmdbKey *key = key_of(scan->key);
    lmdb_key_id(prefix, key->hash, key->sequence);
    prefix[ENTRY_PART_OFFSET] = scan->key->part;
    lmdb_put_be32(prefix + ENTRY_GROUP_OFFSET, scan->group_hash);
    MDB_cursor *lmdb_cursor = lmdb_state_cursor(&state->lmdb);
    if (!lmdb_cursor)
        return NULL;
    MDB_val record_key, record;
    int rc;
    if (!cursor->started) {
        record_key = (MDB_val){cursor->prefix_size, prefix};
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_SET_RANGE);
    } else {
        /* seek again: puts since the last refill may have moved the cursor */
        record_key = (MDB_val){sizeof cursor->last, cursor->last};
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_SET_RANGE);
        if (rc == MDB_SUCCESS && record_key.mv_size == sizeof cursor->last &&
            memcmp(record_key.mv_data, cursor->last, sizeof cursor->last) == 0)
            rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    }
    cursor->started = true;
    uint32_t count = 0;
    MultisetEntry *entries = buffer->entries.multiset;
    while (rc == MDB_SUCCESS && count < LMDB_SCAN_CHUNK && buffer->used < LMDB_SCAN_CHUNK_BYTES) {
        if (record_key.mv_size != ENTRY_KEY_SIZE ||
            memcmp(record_key.mv_data, prefix, cursor->prefix_size) != 0) {
            rc = MDB_NOTFOUND; /* past the part (or group) */
            break;
        }
        const char *value = record.mv_data;
        uint32_t size = record.mv_size < ENTRY_HEADER_SIZE
                            ? 0
                            : lmdb_stored_row_size(value + ENTRY_HEADER_SIZE,
                                                   record.mv_size - ENTRY_HEADER_SIZE);
        if (size == 0) {
            lmdb_fail_corrupt(store, "a multiset entry record is malformed");
            cursor->done = true;
            return NULL;
        }
        size_t offset = lmdb_scan_buffer_add_row(buffer, value + ENTRY_HEADER_SIZE, size);
        if (offset == SIZE_MAX) {
            lmdb_fail_memory(store);
            cursor->done = true;
            return NULL;
        }
        MultisetEntry *entry = &entries[count];
        memcpy(&entry->count, value, sizeof(int32_t));
        entry->association_count = lmdb_get_i64(value + 8);
        entry->last_access = lmdb_get_i64(value + 16);
        const uint8_t *key_bytes = record_key.mv_data;
        entry->hash = (uint32_t)key_bytes[ENTRY_HASH_OFFSET] << 24 |
                      (uint32_t)key_bytes[ENTRY_HASH_OFFSET + 1] << 16 |
                      (uint32_t)key_bytes[ENTRY_HASH_OFFSET + 2] << 8 |
                      key_bytes[ENTRY_HASH_OFFSET + 3];
        buffer->offsets[count] = (uint32_t)offset;
        memcpy(cursor->last, key_bytes, sizeof cursor->last);
        count++;
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    }
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
        lmdb_fail(store, rc, "cursor_get (multiset scan)");
        cursor->done = true;
        return NULL;
    }
    if (rc == MDB_NOTFOUND)
        cursor->done = true; /* nothing after this chunk: no seek next time */
    if (count == 0)
        return NULL;
    for (uint32_t i = 0; i < count; i++)
        entries[i].row = lmdb_scan_buffer_row(buffer, buffer->offsets[i]);
    scan->span = entries;
    scan->span_count = count;
    scan->position = 1;
    return &entries[0];
}

static void lmdb_multiset_scan_end(MultisetScan *scan)
{
    LmdbMultisetCursor *cursor = (LmdbMultisetCursor *)scan->backend;
    if (cursor->buffer)
        lmdb_scan_buffer_give(&lmdb_multiset(scan->state)->scans, cursor->buffer);
    cursor->buffer = NULL;
}

/* ---- walks over keys ------------------------------------------------------------ */

/*
 * The key record at or after `from` (NULL: the first): its handle (cached,
 * or the temporary one) and id, 1; 0 past the last key; -1 failed.
 */
static int key_at_or_after(LmdbMultiset *state, const uint8_t *from, LmdbKey **handle,
                           uint8_t id[LMDB_KEY_ID_SIZE])
{
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return -1;
    uint8_t seek[LMDB_KEY_ID_SIZE];
    if (from)
        memcpy(seek, from, sizeof seek);
    MDB_val record_key = {sizeof seek, seek}, record;
    int rc = mdb_cursor_get(cursor, &record_key, &record, from ? MDB_SET_RANGE : MDB_FIRST);
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc != MDB_SUCCESS) {
        lmdb_fail(state->lmdb.store, rc, "cursor_get (multiset keys)");
        return -1;
    }
    if (record_key.mv_size < LMDB_KEY_ID_SIZE) {
        lmdb_fail_corrupt(state->lmdb.store, "a multiset record key is malformed");
        return -1;
    }
    memcpy(id, record_key.mv_data, LMDB_KEY_ID_SIZE);
    uint64_t hash = lmdb_get_be64(id);
    uint16_t sequence = lmdb_get_be16(id + 8);
    *handle = cache_find_id(&state->cache, hash, sequence);
    if (*handle)
        return 1;
    if (record_key.mv_size != LMDB_KEY_ID_SIZE) {
        /* entries without a record belong to a key of this unit, which is cached */
        lmdb_fail_corrupt(state->lmdb.store, "multiset entries without their key");
        return -1;
    }
    *handle = temp_load(state, hash, sequence, &record);
    return *handle ? 1 : -1;
}

static int lmdb_multiset_scan_keys(MultisetState *base, MultisetKeyVisit visit, void *context)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbStore *store = state->lmdb.store;
    if (lmdb_failed(&state->lmdb))
        return store->base.error_status;
    multiset_before_commit(&state->lmdb); /* keys of this unit get their records */
    uint8_t position[LMDB_KEY_ID_SIZE];
    bool first = true;
    for (;;) {
        LmdbKey *key;
        uint8_t id[LMDB_KEY_ID_SIZE];
        int found = key_at_or_after(state, first ? NULL : position, &key, id);
        if (found < 0)
            return store->base.error_status;
        if (found == 0)
            return JOINERY_OK;
        int status = visit(context, key->key_row, &key->parts[0].pub);
        if (status != JOINERY_OK)
            return status;
        if (lmdb_failed(&state->lmdb))
            return store->base.error_status;
        memcpy(position, id, sizeof position);
        if (!lmdb_key_id_next(position))
            return JOINERY_OK;
        first = false;
    }
}

static uint64_t lmdb_multiset_cleanup(MultisetState *base, int64_t now, uint32_t max_keys)
{
    LmdbMultiset *state = lmdb_multiset(base);
    if (!state->ttl_enabled || lmdb_failed(&state->lmdb))
        return 0;
    multiset_before_commit(&state->lmdb); /* keys of this unit get their records */
    uint64_t dropped = 0;
    uint32_t examined = 0;
    bool wrapped = false;
    uint8_t position[LMDB_KEY_ID_SIZE];
    bool from_start = !state->cleanup_started;
    if (!from_start) {
        memcpy(position, state->cleanup_position, sizeof position);
        from_start = !lmdb_key_id_next(position);
    }
    uint64_t keys = state->keys; /* each key at most once a call */
    while (examined < max_keys && examined < keys) {
        LmdbKey *key;
        uint8_t id[LMDB_KEY_ID_SIZE];
        int found = key_at_or_after(state, from_start ? NULL : position, &key, id);
        if (found < 0)
            break;
        if (found == 0) {
            if (wrapped)
                break;
            wrapped = true;
            from_start = true;
            continue;
        }
        examined++;
        bool empty;
        dropped += key_expire(state, key, now, &empty);
        if (lmdb_failed(&state->lmdb))
            break;
        int status = JOINERY_OK;
        if (empty) /* as the hashmap: a key left without entries goes */
            status = key_remove(state, key);
        if (status == JOINERY_OK && key == state->temp && key->dirty && !key->dead)
            status = key_write(state, key); /* an uncached key's record is the truth */
        if (status != JOINERY_OK)
            break;
        memcpy(state->cleanup_position, id, sizeof id);
        state->cleanup_started = true;
        memcpy(position, id, sizeof position);
        from_start = !lmdb_key_id_next(position);
        if (from_start) {
            if (wrapped)
                break;
            wrapped = true;
        }
    }
    return dropped;
}

/* ---- figures -------------------------------------------------------------------- */

static StateCounters lmdb_multiset_counters(const MultisetState *base)
{
    const LmdbMultiset *state = (const LmdbMultiset *)base;
    StateCounters counters;
    counters.bytes = state->key_bytes;
    for (uint32_t p = 0; p < state->base.part_count; p++)
        counters.bytes += state->parts[p].payload_bytes;
    counters.keys = state->keys;
    counters.entries = state->entries;
    counters.expired = state->expired;
    return counters;
}

static StateCounters lmdb_multiset_part_counters(const MultisetState *base, uint32_t part)
{
    const LmdbMultiset *state = (const LmdbMultiset *)base;
    StateCounters counters = {0, 0, 0, 0};
    if (part >= state->base.part_count)
        return counters;
    const PartFigures *figures = &state->parts[part];
    counters.keys = figures->keys;
    counters.entries = figures->entries;
    counters.expired = figures->expired;
    /* as the hashmap: the part's own records, plus a share of the key records in
       proportion to the keys it is present in */
    uint64_t keys = 0;
    for (uint32_t p = 0; p < state->base.part_count; p++)
        keys += state->parts[p].keys;
    uint64_t shared = state->key_bytes;
    counters.bytes = figures->payload_bytes +
                     (keys ? (uint64_t)((double)shared * (double)figures->keys / (double)keys)
                           : (part == 0 ? shared : 0));
    return counters;
}

/* ---- creation ------------------------------------------------------------------- */

static void lmdb_multiset_destroy(MultisetState *base)
{
    LmdbMultiset *state = lmdb_multiset(base);
    cache_clear(state);
    free(state->cache.slots);
    key_free(state->temp, state->base.part_count);
    lmdb_scan_pool_free(&state->scans);
    lmdb_state_close(&state->lmdb);
    free(state);
}

static const MultisetStateOps LMDB_MULTISET_OPS = {
    .destroy = lmdb_multiset_destroy,
    .set_group_hash = lmdb_multiset_set_group_hash,
    .find = lmdb_multiset_find,
    .insert_key = lmdb_multiset_insert_key,
    .key_part = lmdb_multiset_key_part,
    .remove_key = lmdb_multiset_remove_key,
    .release_key = lmdb_multiset_release_key,
    .find_row = lmdb_multiset_find_row,
    .add_row = lmdb_multiset_add_row,
    .update = lmdb_multiset_update,
    .remove_entry = lmdb_multiset_remove_entry,
    .scan_begin = lmdb_multiset_scan_begin,
    .scan_refill = lmdb_multiset_scan_refill,
    .scan_end = lmdb_multiset_scan_end,
    .scan_keys = lmdb_multiset_scan_keys,
    .cleanup = lmdb_multiset_cleanup,
    .counters = lmdb_multiset_counters,
    .part_counters = lmdb_multiset_part_counters,
    .prefetch = NULL,
};

MultisetState *state_lmdb_create_multiset(StateStore *base, uint32_t part_count,
                                          const int64_t *ttl_millis)
{
    LmdbStore *store = lmdb_store(base);
    if (base->failed)
        return NULL;
    LmdbMultiset *state = calloc(1, sizeof *state + part_count * sizeof(PartFigures));
    if (!state) {
        lmdb_fail_memory(store);
        return NULL;
    }
    state->base.ops = &LMDB_MULTISET_OPS;
    state->base.store = base;
    state->base.part_count = part_count;
    for (uint32_t p = 0; p < part_count; p++) {
        state->parts[p].ttl_millis = ttl_millis && ttl_millis[p] > 0 ? ttl_millis[p] : 0;
        if (state->parts[p].ttl_millis > 0)
            state->ttl_enabled = true;
    }
    if (!lmdb_state_open(store, &state->lmdb, 'm', state)) {
        free(state);
        return NULL;
    }
    state->lmdb.before_commit = multiset_before_commit;
    state->lmdb.after_commit = multiset_after_commit;
    return &state->base;
}
