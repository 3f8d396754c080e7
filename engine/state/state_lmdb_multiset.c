/*
 * state_lmdb_multiset.c - the LMDB backend's multiset state (see state.h):
 * one DBI holding, per key, a key record followed by its entries and their
 * indexes, the entries of a part in the order the hashmap keeps them.
 *
 * Records (keys big-endian, values host order):
 *   key record   [key id 10] -> [part_count u32][0 u32]
 *                               part_count x {entry_count u32, capacity log2 u32,
 *                                             oldest_access i64}
 *                               [key row]
 *   entry        [key id 10][part 1][position 4]
 *                -> [count i32][row hash u32][association_count i64][last_access i64][row]
 *   row index    [key id 10][part | 0x80 1][masked row hash 4][position 4] -> (empty)
 *   group index  [key id 10][part | 0x40 1][group hash 4][position 4] -> (empty)
 * with the index records only for parts whose capacity (below) is above
 * 32, the group index only for grouped parts,
 * and key id = [masked row_content_hash(key) 8][collision sequence 2]:
 * keys whose hashes collide get different sequences and are told apart by
 * their stored key rows (lmdb_find_key). A key's record sorts right before
 * its records; a part's entries are the range [key id][part] (parts are
 * below 64, so the index records sort after every part's entries). The row
 * hash in an entry's value is the low half of row_content_hash(row),
 * unmasked: views carry it; the row index is keyed by the hash the test
 * seam masks (lmdb_row_hash).
 *
 * Positions (the hashmap's order): a part's entries are numbered 0 ..
 * entry_count - 1 as the hashmap's vector holds them. add_row appends at
 * entry_count; remove_entry moves the last entry into the hole (its entry
 * record rewritten at the new position, its index records moved); TTL
 * expiry removes from the last position down, as the hashmap's does. A
 * scan of a part walks [key id][part] in position order: both backends
 * give a part's entries in one sequence.
 *
 * Capacity and indexes: the key record keeps, per part, the capacity the
 * hashmap's vector has (doubled when an add finds the part full, halved
 * when a removal leaves it less than a quarter full, from 4 up: the
 * hashmap's rules). Up to HASHMAP_INDEX_CAPACITY (8, the hashmap's index
 * threshold) a group scan gives every entry in position order - the
 * hashmap's sequence; beyond, the group's rows in position order, where
 * the hashmap walks its group index in probe order: the same rows, maybe
 * in another order (state.h). Up to INDEX_CAPACITY (32) a part has no
 * index records: find_row walks its entries comparing row hashes, and a
 * group scan walks them keeping its group's rows. When the capacity grows
 * past it the indexes are built (an index record per entry), kept on
 * every add, removal and move, and dropped when it falls back: find_row
 * then looks the row hash up (rows whose hashes collide are told apart by
 * their entries' rows), and a group scan walks [key id][part | 0x40][group
 * hash].
 *
 * Handles: a MultisetKey * is part 0 of an LmdbKey, the backend's copy of
 * the key (key row, per part entry count, capacity and oldest last_access)
 * kept in a per-unit cache by key hash, so finding a key twice in a unit
 * gives the same handle. The cache writes back: the key record is written
 * (or rewritten, in key order) at commit - and before scan_keys and cleanup
 * walk the key records - for keys whose figures changed (dirty), so adding
 * a row costs the puts of its records. A key inserted in this unit may have
 * entries in LMDB before its record is written; lookups treat such a
 * sequence as taken. The cache and everything hanging from it is freed at
 * commit. Walks over keys that are not cached (scan_keys, cleanup) decode
 * into one temporary handle instead, so they need no memory per key.
 *
 * Views: find_row and add_row return copies (LMDB memory dies on the next
 * write) kept on the part's handle; when an entry of the part is added or
 * removed, the part's views become reusable (view_generation), which the
 * contract allows and which keeps a unit that adds many rows to one key
 * (a restore) from holding a copy of each. Scans decode chunks of up to
 * LMDB_SCAN_CHUNK entries into a buffer of the state's pool and seek again
 * from the last key returned at each refill. Every view's row copy follows
 * a word holding the entry's position (LmdbView.position; a tagged row in
 * a scan buffer): update and remove_entry find the entry record by it, and
 * check that it holds the view's row.
 *
 * Invariants:
 * - a live cached LmdbKey's figures are the truth for its key (LMDB's key
 *   record may be older until commit); an uncached key's record is exact;
 * - entries exist in LMDB only under a key that has a record or a live
 *   cached handle;
 * - a part of n entries has entry records at positions 0 .. n-1 exactly;
 *   when its capacity is above INDEX_CAPACITY, one row index record per
 *   entry and, when grouped, one group index record per entry, each naming
 *   its entry's position, else none;
 * - per part, oldest_access <= last_access of every entry (a lower bound:
 *   TTL checks on find read no entries unless it says some may expire);
 * - per part, backend_byte is log2 of the capacity the hashmap's vector
 *   has after the same adds and removals;
 * - keys, entries, expired and the per-part figures are exact at all times;
 *   key_bytes and the parts' payload_bytes are the lmdb_record_bytes of the
 *   key records and of the parts' entry and index records (a cached key's
 *   record counted from its creation, before commit writes it).
 */
#include "engine/state/state_lmdb_internal.h"

#include <stddef.h>
#include <stdlib.h>

enum {
    ENTRY_PART_OFFSET = LMDB_KEY_ID_SIZE,          /* 10 */
    ENTRY_POSITION_OFFSET = ENTRY_PART_OFFSET + 1, /* 11 */
    ENTRY_KEY_SIZE = ENTRY_POSITION_OFFSET + 4,    /* 15 */
    INDEX_HASH_OFFSET = ENTRY_PART_OFFSET + 1,     /* 11: the row or group hash */
    INDEX_POSITION_OFFSET = INDEX_HASH_OFFSET + 4, /* 15 */
    INDEX_KEY_SIZE = INDEX_POSITION_OFFSET + 4,    /* 19 */
    PART_GROUP_INDEX = 0x40,                       /* the part byte of group index records */
    PART_ROW_INDEX = 0x80,                         /* the part byte of row index records */
    PART_NUMBER = 0x3f,                            /* the part number in a part byte */
    ENTRY_HEADER_SIZE = 24,                        /* count, row hash, association, last_access */
    KEY_HEADER_SIZE = 8,
    PART_META_SIZE = 16,
    KEY_MAX_ENTRIES = 1 << 26,  /* as the hashmap: a part holds at most 2^26 rows */
    HASHMAP_INDEX_CAPACITY = 8, /* the hashmap's group scans give every entry up to this capacity */
    INDEX_CAPACITY = 32,        /* parts of a larger capacity have index records */
    HASHMAP_SHRINK_FROM = 4,    /* the hashmap halves capacities above this, a quarter full */
    VIEW_REUSE_PROBES = 8,      /* views of a part looked through for one to reuse */
    CACHE_INITIAL_CAPACITY = 64,
    CACHE_KEEP_CAPACITY = 4096, /* a larger cache's slot array is freed at commit */
};

_Static_assert((int)INDEX_KEY_SIZE <= (int)LMDB_MAX_RECORD_KEY, "record keys fit a range walk");
_Static_assert((int)MULTISET_MAX_PARTS <= (int)PART_GROUP_INDEX,
               "part numbers leave the index bits free");

/*
 * A find_row / add_row result: the caller's MultisetEntry, then the entry's
 * position in the word right before the row's copy (as in scan spans).
 */
typedef struct LmdbView {
    MultisetEntry entry; /* first: a view is its entry */
    struct LmdbView *next;
    uint32_t generation; /* the part's view_generation when handed out */
    uint32_t capacity;   /* bytes of row room */
    uint64_t position;
    uint64_t row[];
} LmdbView;

_Static_assert(offsetof(LmdbView, row) == offsetof(LmdbView, position) + sizeof(uint64_t),
               "a view's position is the word before its row");

/* One part of a cached key: the callers' MultisetKey first. */
typedef struct LmdbKeyPart {
    MultisetKey pub;          /* entry_count, part; backend_byte: log2 of the hashmap's capacity */
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
    uint64_t *scratch;  /* an entry copied out of LMDB (moves, group hashes) */
    size_t scratch_capacity;
    uint8_t cleanup_position[LMDB_KEY_ID_SIZE]; /* the last key cleanup examined */
    bool cleanup_started;
    bool ttl_enabled;
    PartFigures parts[]; /* part_count */
} LmdbMultiset;

/* The scan's cursor in MultisetScan.backend. */
typedef struct LmdbMultisetCursor {
    LmdbScanBuffer *buffer;
    uint8_t last[INDEX_KEY_SIZE]; /* the last record walked: an entry's key, or a group index key */
    bool started;
    bool done;
    bool group;   /* only the group's rows (a grouped part beyond HASHMAP_INDEX_CAPACITY) */
    bool indexed; /* ... found through the group index */
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

/* [key id][part][position]: the key of an entry record. */
static void entry_key(uint8_t to[ENTRY_KEY_SIZE], const LmdbKey *key, uint32_t part,
                      uint32_t position)
{
    lmdb_key_id(to, key->hash, key->sequence);
    to[ENTRY_PART_OFFSET] = (uint8_t)part;
    lmdb_put_be32(to + ENTRY_POSITION_OFFSET, position);
}

/* [key id][part byte][hash][position]: the key of an index record. */
static void index_key(uint8_t to[INDEX_KEY_SIZE], const LmdbKey *key, uint32_t part_byte,
                      uint32_t hash, uint32_t position)
{
    lmdb_key_id(to, key->hash, key->sequence);
    to[ENTRY_PART_OFFSET] = (uint8_t)part_byte;
    lmdb_put_be32(to + INDEX_HASH_OFFSET, hash);
    lmdb_put_be32(to + INDEX_POSITION_OFFSET, position);
}

static inline bool part_grouped(const LmdbMultiset *state, uint32_t part)
{
    return state->parts[part].group_hash != NULL;
}

/* The capacity the hashmap's vector of this part has. */
static inline uint32_t part_capacity(const LmdbKeyPart *part)
{
    return 1u << part->pub.backend_byte;
}

/* True when the part has index records (the hashmap has an index for it). */
static inline bool part_indexed(const LmdbKeyPart *part)
{
    return part_capacity(part) > INDEX_CAPACITY;
}

/* The position of the entry a view (find_row, add_row or a scan's) shows. */
static inline uint32_t view_position(const MultisetEntry *entry)
{
    uint64_t position;
    memcpy(&position, (const char *)entry->row - sizeof position, sizeof position);
    return (uint32_t)position;
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
        uint32_t capacity_log2 = lmdb_get_u32(meta + 4);
        if (capacity_log2 > 26 || part->pub.entry_count > (1u << capacity_log2))
            return false;
        part->pub.backend_byte = (uint8_t)capacity_log2;
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
        uint32_t count[2] = {key->parts[p].pub.entry_count, key->parts[p].pub.backend_byte};
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

/* Fills a view of the entry at `position` from an entry record's value, the row copied from `row`.
 */
static void view_fill(LmdbView *view, const void *value, const Row *row, uint32_t position)
{
    lmdb_write_row(view->row, row);
    view->entry.row = (const Row *)view->row;
    memcpy(&view->entry.count, value, sizeof(int32_t));
    view->entry.hash = lmdb_get_u32((const char *)value + 4);
    view->entry.association_count = lmdb_get_i64((const char *)value + 8);
    view->entry.last_access = lmdb_get_i64((const char *)value + 16);
    view->position = position;
}

/* Writes an entry record's value at `to`. */
static void entry_write(void *to, int32_t count, uint32_t hash, int64_t association_count,
                        int64_t last_access, const Row *row)
{
    char *bytes = to;
    memcpy(bytes, &count, sizeof count);
    memcpy(bytes + 4, &hash, sizeof hash);
    memcpy(bytes + 8, &association_count, sizeof association_count);
    memcpy(bytes + 16, &last_access, sizeof last_access);
    lmdb_write_row(bytes + ENTRY_HEADER_SIZE, row);
}

/* The size of the row of an entry record's value, or 0 when the record is malformed. */
static uint32_t entry_row_size(const MDB_val *value)
{
    if (value->mv_size < ENTRY_HEADER_SIZE)
        return 0;
    uint32_t size = lmdb_stored_row_size((const char *)value->mv_data + ENTRY_HEADER_SIZE,
                                         value->mv_size - ENTRY_HEADER_SIZE);
    return size == value->mv_size - ENTRY_HEADER_SIZE ? size : 0;
}

/* Room for `size` bytes in the state's scratch memory (8-byte aligned); NULL (store failed). */
static void *scratch_take(LmdbMultiset *state, size_t size)
{
    if (size > state->scratch_capacity) {
        size_t capacity = state->scratch_capacity ? state->scratch_capacity : 256;
        while (capacity < size)
            capacity *= 2;
        uint64_t *scratch = malloc(capacity);
        if (!scratch) {
            lmdb_fail_memory(state->lmdb.store);
            return NULL;
        }
        free(state->scratch);
        state->scratch = scratch;
        state->scratch_capacity = capacity;
    }
    return state->scratch;
}

/* ---- records -------------------------------------------------------------------- */

/*
 * Puts a record of `size` bytes under `record_key` (replacing one that is
 * there): where to write its value, or NULL (the store failed).
 */
static void *record_put(LmdbMultiset *state, const uint8_t *record_key, size_t key_size,
                        size_t size, const char *what)
{
    LmdbStore *store = state->lmdb.store;
    if (!lmdb_state_reserve(&state->lmdb, lmdb_put_pages(store, key_size, size)))
        return NULL;
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return NULL;
    MDB_val lmdb_key = {key_size, (void *)record_key}, record = {size, NULL};
    int rc = mdb_cursor_put(cursor, &lmdb_key, &record, MDB_RESERVE);
    if (rc != MDB_SUCCESS) {
        lmdb_fail(store, rc, what);
        return NULL;
    }
    return record.mv_data;
}

/* Puts the index record [key id][part_byte][hash][position] (empty). */
static int index_put(LmdbMultiset *state, const LmdbKey *key, uint32_t part_byte, uint32_t hash,
                     uint32_t position)
{
    uint8_t record_key[INDEX_KEY_SIZE];
    index_key(record_key, key, part_byte, hash, position);
    if (!record_put(state, record_key, sizeof record_key, 0, "put (multiset index)"))
        return state->lmdb.store->base.error_status;
    state->parts[part_byte & PART_NUMBER].payload_bytes += lmdb_record_bytes(INDEX_KEY_SIZE, 0);
    return JOINERY_OK;
}

static int index_delete(LmdbMultiset *state, const LmdbKey *key, uint32_t part_byte, uint32_t hash,
                        uint32_t position)
{
    uint8_t record_key[INDEX_KEY_SIZE];
    index_key(record_key, key, part_byte, hash, position);
    int status =
        lmdb_state_delete(&state->lmdb, record_key, sizeof record_key, "del (multiset index)");
    if (status == JOINERY_OK)
        state->parts[part_byte & PART_NUMBER].payload_bytes -= lmdb_record_bytes(INDEX_KEY_SIZE, 0);
    return status;
}

/* Enters the entry at `position` (row hash `hash`, group `group`) into part p's indexes. */
static int entry_index_add(LmdbMultiset *state, const LmdbKey *key, uint32_t p, uint32_t hash,
                           uint32_t group, uint32_t position)
{
    int status =
        index_put(state, key, p | PART_ROW_INDEX, lmdb_row_hash(state->lmdb.store, hash), position);
    if (status == JOINERY_OK && part_grouped(state, p))
        status = index_put(state, key, p | PART_GROUP_INDEX, group, position);
    return status;
}

static int entry_index_remove(LmdbMultiset *state, const LmdbKey *key, uint32_t p, uint32_t hash,
                              uint32_t group, uint32_t position)
{
    int status = index_delete(state, key, p | PART_ROW_INDEX,
                              lmdb_row_hash(state->lmdb.store, hash), position);
    if (status == JOINERY_OK && part_grouped(state, p))
        status = index_delete(state, key, p | PART_GROUP_INDEX, group, position);
    return status;
}

/* The group hash of a row stored in LMDB (copied out first: LMDB memory is not aligned). */
static bool stored_row_group(LmdbMultiset *state, uint32_t p, const void *row, size_t size,
                             uint32_t *group)
{
    *group = 0;
    if (!part_grouped(state, p))
        return true;
    uint64_t *copy = scratch_take(state, size);
    if (!copy)
        return false;
    memcpy(copy, row, size);
    *group = group_of(state, p, (const Row *)copy);
    return true;
}

/*
 * Builds part p's indexes (its capacity just grew past INDEX_CAPACITY): an
 * index record per entry. JOINERY_OK or the failure.
 */
static int part_index_build(LmdbMultiset *state, const LmdbKey *key, uint32_t p)
{
    LmdbStore *store = state->lmdb.store;
    uint32_t positions[INDEX_CAPACITY + 1], hashes[INDEX_CAPACITY + 1], groups[INDEX_CAPACITY + 1];
    uint32_t count = 0;
    uint8_t prefix[ENTRY_POSITION_OFFSET];
    lmdb_key_id(prefix, key->hash, key->sequence);
    prefix[ENTRY_PART_OFFSET] = (uint8_t)p;
    LmdbRange range;
    lmdb_range_begin(&range, &state->lmdb, prefix, sizeof prefix, NULL, 0);
    int found;
    while ((found = lmdb_range_next(&range)) == 1) { /* read them all before writing */
        uint32_t size = entry_row_size(&range.data);
        if (range.key.mv_size != ENTRY_KEY_SIZE || size == 0 || count > INDEX_CAPACITY)
            return lmdb_fail_corrupt(store, "a multiset part outgrew its index threshold");
        const char *value = range.data.mv_data;
        positions[count] =
            lmdb_get_be32((const uint8_t *)range.key.mv_data + ENTRY_POSITION_OFFSET);
        hashes[count] = lmdb_get_u32(value + 4);
        if (!stored_row_group(state, p, value + ENTRY_HEADER_SIZE, size, &groups[count]))
            return store->base.error_status;
        count++;
    }
    if (found < 0)
        return store->base.error_status;
    for (uint32_t i = 0; i < count; i++) {
        int status = entry_index_add(state, key, p, hashes[i], groups[i], positions[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* Deletes part p's index records (its capacity fell back to INDEX_CAPACITY). */
static int part_index_drop(LmdbMultiset *state, const LmdbKey *key, uint32_t p)
{
    LmdbStore *store = state->lmdb.store;
    for (int region = 0; region < 2; region++) {
        uint8_t prefix[INDEX_HASH_OFFSET];
        lmdb_key_id(prefix, key->hash, key->sequence);
        prefix[ENTRY_PART_OFFSET] = (uint8_t)(p | (region ? PART_GROUP_INDEX : PART_ROW_INDEX));
        LmdbRange range;
        lmdb_range_begin(&range, &state->lmdb, prefix, sizeof prefix, NULL, 0);
        int found;
        while ((found = lmdb_range_next(&range)) == 1) {
            uint64_t bytes = lmdb_record_bytes(range.key.mv_size, range.data.mv_size);
            if (lmdb_range_delete(&range) != JOINERY_OK)
                return store->base.error_status;
            state->parts[p].payload_bytes -= bytes;
        }
        if (found < 0)
            return store->base.error_status;
    }
    return JOINERY_OK;
}

/*
 * Positions the state's cursor on the entry record `record_key` (no seek
 * when it is there already): 1 and *value, 0 absent, -1 failed (also on a
 * malformed record).
 */
static int entry_seek(LmdbMultiset *state, const uint8_t record_key[ENTRY_KEY_SIZE], MDB_val *value)
{
    LmdbStore *store = state->lmdb.store;
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return -1;
    MDB_val lmdb_key;
    int rc = mdb_cursor_get(cursor, &lmdb_key, value, MDB_GET_CURRENT);
    if (rc != MDB_SUCCESS || lmdb_key.mv_size != ENTRY_KEY_SIZE ||
        memcmp(lmdb_key.mv_data, record_key, ENTRY_KEY_SIZE) != 0) {
        lmdb_key = (MDB_val){ENTRY_KEY_SIZE, (void *)record_key};
        rc = mdb_cursor_get(cursor, &lmdb_key, value, MDB_SET);
        if (rc == MDB_NOTFOUND)
            return 0;
        if (rc != MDB_SUCCESS) {
            lmdb_fail(store, rc, "cursor_get (multiset entry)");
            return -1;
        }
    }
    if (entry_row_size(value) == 0) {
        lmdb_fail_corrupt(store, "a multiset entry record is malformed");
        return -1;
    }
    return 1;
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

/* ---- removing an entry: the last one moves into its place ----------------------- */

/*
 * Removes the entry at `position` of part p, as the hashmap does: the last
 * entry moves to `position` (its entry record rewritten there, its index
 * records renumbered), and the capacity shrinks by the hashmap's rule
 * (the indexes go when it falls to INDEX_CAPACITY). `expected`, when
 * given, is the row the entry must hold. JOINERY_OK or the failure.
 */
static int part_remove_at(LmdbMultiset *state, LmdbKey *key, uint32_t p, uint32_t position,
                          const Row *expected)
{
    LmdbStore *store = state->lmdb.store;
    LmdbKeyPart *part = &key->parts[p];
    bool indexed = part_indexed(part);
    if (position >= part->pub.entry_count)
        return lmdb_fail_corrupt(store, "a removed multiset entry is not stored");
    uint32_t last = part->pub.entry_count - 1;
    /* the entry's hashes and size, read before anything is written */
    if (!lmdb_state_reserve(&state->lmdb, LMDB_DELETE_PAGES))
        return store->base.error_status;
    uint8_t record_key[ENTRY_KEY_SIZE];
    entry_key(record_key, key, p, position);
    MDB_val value;
    int found = entry_seek(state, record_key, &value); /* usually no seek: find_row was there */
    if (found <= 0)
        return found == 0 ? lmdb_fail_corrupt(store, "a removed multiset entry is not stored")
                          : store->base.error_status;
    const char *bytes = value.mv_data;
    if (expected &&
        !lmdb_row_matches(bytes + ENTRY_HEADER_SIZE, value.mv_size - ENTRY_HEADER_SIZE, expected))
        return lmdb_fail_corrupt(store, "a removed multiset entry is not where its view says");
    size_t size = value.mv_size;
    uint32_t hash = lmdb_get_u32(bytes + 4);
    uint32_t group = 0;
    if (indexed) {
        if (expected)
            group = group_of(state, p, expected);
        else if (!stored_row_group(state, p, bytes + ENTRY_HEADER_SIZE, size - ENTRY_HEADER_SIZE,
                                   &group))
            return store->base.error_status;
    }
    int rc;
    if (position == last && (rc = mdb_cursor_del(lmdb_state_cursor(&state->lmdb), 0)) != 0)
        return lmdb_fail(store, rc, "cursor_del (multiset entry)");
    int status = indexed ? entry_index_remove(state, key, p, hash, group, position) : JOINERY_OK;
    if (status == JOINERY_OK && position != last) {
        /* the last entry, copied out, moves into the hole */
        if (!lmdb_state_reserve(&state->lmdb, LMDB_DELETE_PAGES))
            return store->base.error_status;
        uint8_t last_key[ENTRY_KEY_SIZE];
        entry_key(last_key, key, p, last);
        found = entry_seek(state, last_key, &value);
        if (found <= 0)
            return found == 0 ? lmdb_fail_corrupt(store, "a multiset part's entries have a gap")
                              : store->base.error_status;
        size_t last_size = value.mv_size;
        uint64_t *moved = scratch_take(state, last_size);
        if (!moved)
            return store->base.error_status;
        memcpy(moved, value.mv_data, last_size);
        if ((rc = mdb_cursor_del(lmdb_state_cursor(&state->lmdb), 0)) != 0)
            return lmdb_fail(store, rc, "cursor_del (multiset entry)");
        void *to = record_put(state, record_key, sizeof record_key, last_size,
                              "put (multiset entry move)");
        if (!to)
            return store->base.error_status;
        memcpy(to, moved, last_size);
        if (indexed) {
            uint32_t last_hash = lmdb_get_u32((const char *)moved + 4);
            const Row *last_row = (const Row *)((const char *)moved + ENTRY_HEADER_SIZE);
            uint32_t last_group = group_of(state, p, last_row);
            status = entry_index_remove(state, key, p, last_hash, last_group, last);
            if (status == JOINERY_OK)
                status = entry_index_add(state, key, p, last_hash, last_group, position);
        }
    }
    if (status != JOINERY_OK)
        return status;
    state->parts[p].payload_bytes -= lmdb_record_bytes(ENTRY_KEY_SIZE, size);
    part_lost_entries(state, key, p, 1);
    /* the hashmap gives memory back when the vector is mostly empty */
    if (part_capacity(part) > HASHMAP_SHRINK_FROM &&
        part->pub.entry_count * 4 < part_capacity(part)) {
        part->pub.backend_byte--;
        if (indexed && !part_indexed(part))
            return part_index_drop(state, key, p);
    }
    return JOINERY_OK;
}

/* ---- TTL ------------------------------------------------------------------------ */

/*
 * Drops the expired entries of part p of `key`, from the last position down
 * as the hashmap does (so the survivors end where the hashmap has them);
 * returns how many.
 */
static uint64_t part_expire(LmdbMultiset *state, LmdbKey *key, uint32_t p, int64_t now)
{
    PartFigures *figures = &state->parts[p];
    LmdbKeyPart *part = &key->parts[p];
    uint32_t count = part->pub.entry_count;
    int64_t *access = malloc((size_t)count * sizeof *access);
    if (!access) {
        lmdb_fail_memory(state->lmdb.store);
        return 0;
    }
    /* the entries' write times, in position order */
    uint8_t prefix[ENTRY_POSITION_OFFSET];
    lmdb_key_id(prefix, key->hash, key->sequence);
    prefix[ENTRY_PART_OFFSET] = (uint8_t)p;
    LmdbRange range;
    lmdb_range_begin(&range, &state->lmdb, prefix, sizeof prefix, NULL, 0);
    uint32_t seen = 0;
    int found;
    while ((found = lmdb_range_next(&range)) == 1) {
        if (range.key.mv_size != ENTRY_KEY_SIZE || entry_row_size(&range.data) == 0 ||
            seen == count ||
            lmdb_get_be32((const uint8_t *)range.key.mv_data + ENTRY_POSITION_OFFSET) != seen) {
            lmdb_fail_corrupt(state->lmdb.store, "a multiset part's entries are not 0..n-1");
            break;
        }
        access[seen++] = lmdb_get_i64((const char *)range.data.mv_data + 16);
    }
    if (found == 0 && seen != count)
        lmdb_fail_corrupt(state->lmdb.store, "a multiset key's entry count is wrong");
    uint32_t dropped = 0;
    for (uint32_t i = count; i-- > 0 && !lmdb_failed(&state->lmdb);) {
        if (!state_is_expired(figures->ttl_millis, access[i], now))
            continue;
        if (part_remove_at(state, key, p, i, NULL) != JOINERY_OK)
            break;
        access[i] = access[count - 1 - dropped]; /* the last entry moved here */
        dropped++;
    }
    int64_t oldest = INT64_MAX;
    for (uint32_t i = 0; i < count - dropped; i++)
        if (access[i] < oldest)
            oldest = access[i];
    free(access);
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
        /* an entry or index record (the key record is counted in key_bytes) */
        uint32_t part = range.key.mv_size > LMDB_KEY_ID_SIZE
                            ? ((const uint8_t *)range.key.mv_data)[ENTRY_PART_OFFSET] & PART_NUMBER
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

/* A view of the entry at `position` (its record's value `value`, its row `row`); NULL on failure.
 */
static const MultisetEntry *entry_view(LmdbMultiset *state, LmdbKeyPart *part, const Row *row,
                                       const void *value, uint32_t position)
{
    LmdbView *view = view_take(state, part, row_size(row));
    if (!view)
        return NULL;
    view_fill(view, value, row, position);
    return &view->entry;
}

static const MultisetEntry *lmdb_multiset_find_row(MultisetState *base, MultisetKey *handle,
                                                   const Row *row, uint64_t hash)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbStore *store = state->lmdb.store;
    LmdbKeyPart *part = key_part_of(handle);
    LmdbKey *key = key_of(handle);
    uint32_t p = handle->part;
    if (lmdb_failed(&state->lmdb) || part->pub.entry_count == 0)
        return NULL;
    if (!part_indexed(part)) { /* one walk over the part's few entries */
        uint8_t prefix[ENTRY_POSITION_OFFSET];
        lmdb_key_id(prefix, key->hash, key->sequence);
        prefix[ENTRY_PART_OFFSET] = (uint8_t)p;
        LmdbRange range;
        lmdb_range_begin(&range, &state->lmdb, prefix, sizeof prefix, NULL, 0);
        while (lmdb_range_next(&range) == 1) {
            if (range.key.mv_size != ENTRY_KEY_SIZE || entry_row_size(&range.data) == 0) {
                lmdb_fail_corrupt(store, "a multiset entry record is malformed");
                return NULL;
            }
            const char *value = range.data.mv_data;
            if (lmdb_get_u32(value + 4) == (uint32_t)hash &&
                lmdb_row_matches(value + ENTRY_HEADER_SIZE, range.data.mv_size - ENTRY_HEADER_SIZE,
                                 row))
                return entry_view(
                    state, part, row, value,
                    lmdb_get_be32((const uint8_t *)range.key.mv_data + ENTRY_POSITION_OFFSET));
        }
        return NULL;
    }
    /* the row index: the positions of the rows with this hash */
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb);
    if (!cursor)
        return NULL;
    uint32_t masked = lmdb_row_hash(store, hash);
    uint32_t from = 0;
    for (;;) {
        uint8_t seek[INDEX_KEY_SIZE];
        index_key(seek, key, p | PART_ROW_INDEX, masked, from);
        MDB_val record_key = {sizeof seek, seek}, record;
        int rc = mdb_cursor_get(cursor, &record_key, &record, MDB_SET_RANGE);
        if (rc == MDB_NOTFOUND)
            return NULL;
        if (rc != MDB_SUCCESS) {
            lmdb_fail(store, rc, "cursor_get (multiset row index)");
            return NULL;
        }
        if (record_key.mv_size != INDEX_KEY_SIZE ||
            memcmp(record_key.mv_data, seek, INDEX_POSITION_OFFSET) != 0)
            return NULL;
        uint32_t position =
            lmdb_get_be32((const uint8_t *)record_key.mv_data + INDEX_POSITION_OFFSET);
        uint8_t entry[ENTRY_KEY_SIZE];
        entry_key(entry, key, p, position);
        MDB_val value;
        int found = entry_seek(state, entry, &value);
        if (found <= 0) {
            if (found == 0)
                lmdb_fail_corrupt(store, "a multiset row index names no entry");
            return NULL;
        }
        if (lmdb_get_u32((const char *)value.mv_data + 4) == (uint32_t)hash &&
            lmdb_row_matches((const char *)value.mv_data + ENTRY_HEADER_SIZE,
                             value.mv_size - ENTRY_HEADER_SIZE, row))
            return entry_view(state, part, row, value.mv_data, position);
        if (position == UINT32_MAX)
            return NULL;
        from = position + 1; /* another row of this hash */
    }
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
    /* appended, as the hashmap's vector appends */
    uint32_t position = part->pub.entry_count;
    size_t size = ENTRY_HEADER_SIZE + row_size(row);
    uint8_t record_key[ENTRY_KEY_SIZE];
    entry_key(record_key, key, p, position);
    void *to = record_put(state, record_key, sizeof record_key, size, "put (multiset entry)");
    if (!to)
        return NULL;
    entry_write(to, count, (uint32_t)hash, association_count, now, row);
    state->parts[p].payload_bytes += lmdb_record_bytes(ENTRY_KEY_SIZE, size);
    bool grew = position == part_capacity(part);
    if (grew) /* the hashmap's vector doubles when full */
        part->pub.backend_byte++;
    int status = JOINERY_OK;
    if (grew && part_capacity(part) == 2 * INDEX_CAPACITY) /* and its index appears */
        status = part_index_build(state, key, p);
    else if (part_indexed(part))
        status = entry_index_add(state, key, p, (uint32_t)hash, group_of(state, p, row), position);
    if (status != JOINERY_OK)
        return NULL;
    part->view_generation++; /* the part's other views are stale now */
    LmdbView *view = view_take(state, part, row_size(row));
    if (!view)
        return NULL;
    lmdb_write_row(view->row, row);
    view->entry.row = (const Row *)view->row;
    view->entry.count = count;
    view->entry.hash = (uint32_t)hash;
    view->entry.association_count = association_count;
    view->entry.last_access = now;
    view->position = position;
    PartFigures *figures = &state->parts[p];
    if (part->pub.entry_count == 0 || now < part->oldest_access)
        part->oldest_access = now;
    if (part->pub.entry_count++ == 0)
        figures->keys++;
    figures->entries++;
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
    uint8_t record_key[ENTRY_KEY_SIZE];
    entry_key(record_key, key, handle->part, view_position(entry));
    MDB_val value;
    int found = entry_seek(state, record_key, &value); /* the cursor is usually on it */
    if (found < 0)
        return store->base.error_status;
    if (found == 0 || value.mv_size != size ||
        !lmdb_row_matches((const char *)value.mv_data + ENTRY_HEADER_SIZE,
                          value.mv_size - ENTRY_HEADER_SIZE, entry->row))
        return lmdb_fail_corrupt(store, "an updated multiset entry is not where its view says");
    uint32_t hash = lmdb_get_u32((const char *)value.mv_data + 4);
    MDB_cursor *cursor = lmdb_state_cursor(&state->lmdb); /* on the record */
    MDB_val lmdb_key = {sizeof record_key, record_key}, record = {size, NULL};
    int rc = mdb_cursor_put(cursor, &lmdb_key, &record, MDB_CURRENT | MDB_RESERVE);
    if (rc != MDB_SUCCESS)
        return lmdb_fail(store, rc, "put (multiset entry update)");
    entry_write(record.mv_data, count, hash, association_count, now, entry->row);
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
    if (lmdb_failed(&state->lmdb))
        return state->lmdb.store->base.error_status;
    return part_remove_at(state, key_of(handle), handle->part, view_position(entry), entry->row);
}

/* ---- scans ---------------------------------------------------------------------- */

static void lmdb_multiset_scan_begin(MultisetState *base, MultisetKey *handle, MultisetScan *scan)
{
    LmdbMultiset *state = lmdb_multiset(base);
    LmdbMultisetCursor *cursor = (LmdbMultisetCursor *)scan->backend;
    cursor->buffer = NULL;
    cursor->started = false;
    cursor->done = handle->entry_count == 0 || lmdb_failed(&state->lmdb);
    /* as the hashmap: every entry while the part's vector is small, the group beyond */
    LmdbKeyPart *part = key_part_of(handle);
    cursor->group = scan->grouped && part_grouped(state, handle->part) &&
                    part_capacity(part) > HASHMAP_INDEX_CAPACITY;
    cursor->indexed = cursor->group && part_indexed(part);
}

/* Decodes an entry record (at `position`) into the scan's buffer; false when the store failed. */
static bool scan_decode(LmdbMultiset *state, LmdbScanBuffer *buffer, uint32_t index,
                        const MDB_val *value, uint32_t position)
{
    LmdbStore *store = state->lmdb.store;
    uint32_t size = entry_row_size(value);
    if (size == 0) {
        lmdb_fail_corrupt(store, "a multiset entry record is malformed");
        return false;
    }
    const char *bytes = value->mv_data;
    size_t offset =
        lmdb_scan_buffer_add_tagged_row(buffer, position, bytes + ENTRY_HEADER_SIZE, size);
    if (offset == SIZE_MAX) {
        lmdb_fail_memory(store);
        return false;
    }
    MultisetEntry *entry = &buffer->entries.multiset[index];
    memcpy(&entry->count, bytes, sizeof(int32_t));
    entry->hash = lmdb_get_u32(bytes + 4);
    entry->association_count = lmdb_get_i64(bytes + 8);
    entry->last_access = lmdb_get_i64(bytes + 16);
    buffer->offsets[index] = (uint32_t)offset;
    return true;
}

/*
 * The next chunk of a group index walk: the group's positions (in position
 * order), then their entries. Returns the entries decoded, or -1 failed.
 */
static int scan_group_chunk(LmdbMultiset *state, MultisetScan *scan, LmdbScanBuffer *buffer)
{
    LmdbStore *store = state->lmdb.store;
    LmdbMultisetCursor *cursor = (LmdbMultisetCursor *)scan->backend;
    LmdbKey *key = key_of(scan->key);
    uint32_t p = scan->key->part;
    MDB_cursor *lmdb_cursor = lmdb_state_cursor(&state->lmdb);
    if (!lmdb_cursor)
        return -1;
    uint8_t prefix[INDEX_KEY_SIZE];
    index_key(prefix, key, p | PART_GROUP_INDEX, scan->group_hash, 0);
    MDB_val record_key, record;
    int rc;
    if (!cursor->started) {
        record_key = (MDB_val){INDEX_POSITION_OFFSET, prefix};
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_SET_RANGE);
    } else {
        record_key = (MDB_val){sizeof cursor->last, cursor->last};
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_SET_RANGE);
        if (rc == MDB_SUCCESS && record_key.mv_size == sizeof cursor->last &&
            memcmp(record_key.mv_data, cursor->last, sizeof cursor->last) == 0)
            rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    }
    cursor->started = true;
    uint32_t positions[LMDB_SCAN_CHUNK];
    uint32_t count = 0;
    while (rc == MDB_SUCCESS && count < LMDB_SCAN_CHUNK) {
        if (record_key.mv_size != INDEX_KEY_SIZE ||
            memcmp(record_key.mv_data, prefix, INDEX_POSITION_OFFSET) != 0) {
            rc = MDB_NOTFOUND; /* past the group */
            break;
        }
        positions[count++] =
            lmdb_get_be32((const uint8_t *)record_key.mv_data + INDEX_POSITION_OFFSET);
        memcpy(cursor->last, record_key.mv_data, sizeof cursor->last);
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    }
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
        lmdb_fail(store, rc, "cursor_get (multiset group scan)");
        return -1;
    }
    if (rc == MDB_NOTFOUND)
        cursor->done = true;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t entry[ENTRY_KEY_SIZE];
        entry_key(entry, key, p, positions[i]);
        MDB_val value;
        int found = entry_seek(state, entry, &value);
        if (found == 0)
            lmdb_fail_corrupt(store, "a multiset group index names no entry");
        if (found <= 0 || !scan_decode(state, buffer, i, &value, positions[i]))
            return -1;
    }
    return (int)count;
}

/*
 * The next chunk of a walk over the part's entries (only the group's when
 * the scan is for a group and the part has no group index); the entries
 * decoded, or -1 failed.
 */
static int scan_entries_chunk(LmdbMultiset *state, MultisetScan *scan, LmdbScanBuffer *buffer)
{
    LmdbStore *store = state->lmdb.store;
    LmdbMultisetCursor *cursor = (LmdbMultisetCursor *)scan->backend;
    LmdbKey *key = key_of(scan->key);
    MDB_cursor *lmdb_cursor = lmdb_state_cursor(&state->lmdb);
    if (!lmdb_cursor)
        return -1;
    uint8_t prefix[ENTRY_POSITION_OFFSET];
    lmdb_key_id(prefix, key->hash, key->sequence);
    prefix[ENTRY_PART_OFFSET] = scan->key->part;
    MDB_val record_key, record;
    int rc;
    if (!cursor->started) {
        record_key = (MDB_val){sizeof prefix, prefix};
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_SET_RANGE);
    } else {
        /* seek again: puts since the last refill may have moved the cursor */
        record_key = (MDB_val){ENTRY_KEY_SIZE, cursor->last};
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_SET_RANGE);
        if (rc == MDB_SUCCESS && record_key.mv_size == ENTRY_KEY_SIZE &&
            memcmp(record_key.mv_data, cursor->last, ENTRY_KEY_SIZE) == 0)
            rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    }
    cursor->started = true;
    uint32_t count = 0;
    while (rc == MDB_SUCCESS && count < LMDB_SCAN_CHUNK && buffer->used < LMDB_SCAN_CHUNK_BYTES) {
        if (record_key.mv_size != ENTRY_KEY_SIZE ||
            memcmp(record_key.mv_data, prefix, sizeof prefix) != 0) {
            rc = MDB_NOTFOUND; /* past the part */
            break;
        }
        const uint8_t *key_bytes = record_key.mv_data;
        size_t used = buffer->used;
        if (!scan_decode(state, buffer, count, &record,
                         lmdb_get_be32(key_bytes + ENTRY_POSITION_OFFSET)))
            return -1;
        memcpy(cursor->last, key_bytes, ENTRY_KEY_SIZE);
        if (!cursor->group ||
            group_of(state, scan->key->part,
                     lmdb_scan_buffer_row(buffer, buffer->offsets[count])) == scan->group_hash)
            count++;
        else
            buffer->used = used; /* another group's row */
        rc = mdb_cursor_get(lmdb_cursor, &record_key, &record, MDB_NEXT);
    }
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
        lmdb_fail(store, rc, "cursor_get (multiset scan)");
        return -1;
    }
    if (rc == MDB_NOTFOUND)
        cursor->done = true; /* nothing after this chunk: no seek next time */
    return (int)count;
}

static const MultisetEntry *lmdb_multiset_scan_refill(MultisetScan *scan)
{
    LmdbMultiset *state = lmdb_multiset(scan->state);
    LmdbMultisetCursor *cursor = (LmdbMultisetCursor *)scan->backend;
    if (cursor->done || lmdb_failed(&state->lmdb)) {
        cursor->done = true;
        return NULL;
    }
    if (!cursor->buffer && !(cursor->buffer = lmdb_scan_buffer_take(&state->scans))) {
        lmdb_fail_memory(state->lmdb.store);
        return NULL;
    }
    LmdbScanBuffer *buffer = cursor->buffer;
    buffer->used = 0;
    int count = cursor->indexed ? scan_group_chunk(state, scan, buffer)
                                : scan_entries_chunk(state, scan, buffer);
    if (count <= 0) {
        cursor->done = true;
        return NULL;
    }
    MultisetEntry *entries = buffer->entries.multiset;
    for (int i = 0; i < count; i++)
        entries[i].row = lmdb_scan_buffer_row(buffer, buffer->offsets[i]);
    scan->span = entries;
    scan->span_count = (uint32_t)count;
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
    free(state->scratch);
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

LmdbState *state_lmdb_multiset_lmdb(MultisetState *state)
{
    return &((LmdbMultiset *)state)->lmdb;
}
