/*
 * state_hashmap_multiset.c - the hashmap backend's multiset state (see
 * state.h).
 *
 * Keys: a StateTable (state_table.c) of key blocks. A key block (one slab
 * allocation per key) holds, for each of the state's parts, a HashKey and
 * storage for one entry (entries points there while the part's capacity is
 * 1, so a part with one row needs no vector), then the key row's bytes.
 * Key blocks never move while their key is stored: slots point to them.
 * Per part the state counts keys, entries, expired entries and payload
 * bytes (rows, vectors, indexes) for per-input metrics.
 *
 * Views are the stored entries themselves: a MultisetEntry * returned to a
 * caller points into the part's vector, and updates write it in place.
 * The vector's order is the contract's scan order (state.h): appended on
 * add, the last entry moved into a removed one's place, expiry from the
 * last entry down; the LMDB backend reproduces it (and the capacity rule
 * below, which decides whether a group scan gives every entry), so any
 * change here must be made there too.
 *
 * Per-key index (when the capacity > INDEX_THRESHOLD): 2 * capacity slots
 * of two uint32 words {position + 1, the entry's 32-bit hash}; a probe
 * compares the tag without touching the entry vector. A grouped part
 * (set_group_hash) has a second region with the rows' group hashes as
 * tags, where a tag may repeat.
 *
 * Invariants:
 * - every stored row (key, entry row) is a canonical row with kind +I,
 *   owned by the state's slab;
 * - some part of a stored key has entries, except transiently between
 *   insert_key and the first add_row, or after the operator emptied a part
 *   and before it releases the key (release_key / remove_key);
 * - a part's entries == its inline entry iff its capacity is 1;
 * - key->index is NULL when the capacity <= INDEX_THRESHOLD (or when
 *   memory for it ran out: lookups then scan); when present it holds
 *   exactly one slot per entry;
 * - key->oldest_access <= last_access of every entry of the part.
 */
#include "engine/state/state_hashmap_internal.h"

#include <stddef.h>
#include <stdlib.h>

enum {
    INDEX_THRESHOLD = 8,        /* entries before a key gets a hash index */
    KEY_MAX_CAPACITY = 1 << 26, /* entries of one key part: vector and index under 2^31 bytes */
};

/* One part of a key: the callers' MultisetKey, then what this backend keeps. */
typedef struct HashKey {
    MultisetKey pub;        /* entry_count, part; backend_byte: log2 of the capacity */
    MultisetEntry *entries; /* entry_count entries, in state.h's order (LMDB keeps it too) */
    uint32_t *index;        /* hash index over entries, or NULL */
    int64_t oldest_access;  /* lower bound of the entries' last_access */
} HashKey;

/* A part and room for one entry (64 bytes). */
typedef struct KeyPart {
    HashKey key;
    MultisetEntry inline_entry; /* the entries while the capacity is 1 */
} KeyPart;

/* A key's block: part_count KeyParts, then the key row's bytes. */
typedef struct KeyBlock {
    KeyPart parts[1]; /* part_count of them; a MultisetKey * of part 0 is its KeyBlock * */
} KeyBlock;

/* What the state keeps per part of its keys. */
typedef struct PartFigures {
    int64_t ttl_millis;
    MultisetGroupHash group_hash; /* NULL: the part's rows are not grouped */
    const void *group_context;
    uint64_t keys;          /* keys with at least one entry in the part */
    uint64_t entries;       /* entries of the part */
    uint64_t expired;       /* entries of the part dropped by TTL */
    uint64_t payload_bytes; /* rows, vectors and indexes of the part */
} PartFigures;

typedef struct HashMultiset {
    MultisetState base; /* first: a MultisetState * is a HashMultiset * */
    StateTable table;
    uint64_t entry_count;
    uint64_t expired;
    bool ttl_enabled; /* some part has a TTL */
    Slab slab;
    PartFigures parts[]; /* part_count */
} HashMultiset;

/* The scan's cursor in MultisetScan.backend. */
typedef struct HashScan {
    const uint32_t *group; /* the part's group index, or NULL */
    uint32_t slots;
    uint32_t position; /* next group index slot */
} HashScan;

_Static_assert(sizeof(KeyPart) == 64, "a key part is 64 bytes");
_Static_assert(sizeof(HashKey) == 32 && sizeof(MultisetEntry) == 32, "compact state");
_Static_assert(sizeof(HashScan) <= sizeof(((MultisetScan *)0)->backend), "scan cursor fits");
_Static_assert(offsetof(HashKey, pub) == 0, "a handle is its HashKey");

static inline HashMultiset *hash_multiset(MultisetState *state)
{
    return (HashMultiset *)state;
}

static inline const HashMultiset *hash_multiset_const(const MultisetState *state)
{
    return (const HashMultiset *)state;
}

static inline HashKey *hash_key(MultisetKey *key)
{
    return (HashKey *)key;
}

static inline KeyBlock *key_block_of(HashKey *key)
{
    return (KeyBlock *)key;
}

static inline const Row *block_key_row(const HashMultiset *state, const KeyBlock *block)
{
    return state_table_key_row(&state->table, block);
}

static inline uint32_t key_capacity(const HashKey *key)
{
    return 1u << key->pub.backend_byte;
}

/* The entry room inside the key part. */
static inline MultisetEntry *key_inline_entry(HashKey *key)
{
    return &((KeyPart *)key)->inline_entry;
}

/* Slots of the key's index (a power of two; valid while key->index is set). */
static inline uint32_t key_index_slots(const HashKey *key)
{
    return key_capacity(key) * 2;
}

static inline uint32_t key_block_size(const HashMultiset *state, const Row *key_row)
{
    return state->table.key_row_offset + row_size(key_row);
}

static inline uint32_t entry_vector_size(uint32_t capacity)
{
    return capacity * (uint32_t)sizeof(MultisetEntry);
}

/* Bytes of a part's index of `slots` slots: the row index, then the group index if any. */
static inline uint32_t key_index_size(const HashMultiset *state, const HashKey *key, uint32_t slots)
{
    uint32_t regions = state->parts[key->pub.part].group_hash ? 2 : 1;
    return regions * slots * 2 * (uint32_t)sizeof(uint32_t);
}

static inline uint32_t capacity_log2_of(uint32_t capacity)
{
    return (uint32_t)__builtin_ctz(capacity);
}

/* ---- freeing ----------------------------------------------------------- */

/* Frees the part's vector and index (not its rows). */
static void key_free_vectors(HashMultiset *state, HashKey *key)
{
    PartFigures *part = &state->parts[key->pub.part];
    if (key_capacity(key) > 1) {
        slab_free(&state->slab, key->entries, entry_vector_size(key_capacity(key)));
        part->payload_bytes -= entry_vector_size(key_capacity(key));
    }
    if (key->index) {
        slab_free(&state->slab, key->index, key_index_size(state, key, key_index_slots(key)));
        part->payload_bytes -= key_index_size(state, key, key_index_slots(key));
    }
}

/* Frees every part's rows, vectors and indexes, and the block; updates the figures. */
static void key_block_free(HashMultiset *state, KeyBlock *block)
{
    for (uint32_t p = 0; p < state->base.part_count; p++) {
        HashKey *key = &block->parts[p].key;
        PartFigures *part = &state->parts[p];
        for (uint32_t i = 0; i < key->pub.entry_count; i++) {
            part->payload_bytes -= row_size(key->entries[i].row);
            slab_free_row(&state->slab, key->entries[i].row);
        }
        if (key->pub.entry_count) {
            part->keys--;
            part->entries -= key->pub.entry_count;
            state->entry_count -= key->pub.entry_count;
        }
        key_free_vectors(state, key);
    }
    slab_free(&state->slab, block, key_block_size(state, block_key_row(state, block)));
}

static void hash_multiset_destroy(MultisetState *base)
{
    HashMultiset *state = hash_multiset(base);
    /* slab chunks go wholesale; only blocks above the largest class are freed one by one,
       and only when there is one (heap_bytes counts them): else no key is touched */
    for (uint32_t i = 0; state->slab.heap_bytes != 0 && i < state->table.capacity; i++) {
        KeyBlock *block = state->table.slots[i].block;
        if (!block)
            continue;
        for (uint32_t p = 0; p < state->base.part_count; p++) {
            HashKey *key = &block->parts[p].key;
            for (uint32_t e = 0; e < key->pub.entry_count; e++)
                if (row_size(key->entries[e].row) > SLAB_MAX_BLOCK)
                    slab_free_row(&state->slab, key->entries[e].row);
            if (key_capacity(key) > 1 && entry_vector_size(key_capacity(key)) > SLAB_MAX_BLOCK)
                slab_free(&state->slab, key->entries, entry_vector_size(key_capacity(key)));
            if (key->index && key_index_size(state, key, key_index_slots(key)) > SLAB_MAX_BLOCK)
                slab_free(&state->slab, key->index,
                          key_index_size(state, key, key_index_slots(key)));
        }
        uint32_t size = key_block_size(state, block_key_row(state, block));
        if (size > SLAB_MAX_BLOCK)
            slab_free(&state->slab, block, size);
    }
    slab_release_all(&state->slab);
    state_table_free(&state->table);
    free(state);
}

/* ---- keys -------------------------------------------------------------- */

static void hash_multiset_prefetch(const MultisetState *base, uint64_t hash, uint64_t row_hash,
                                   MultisetPrefetch level)
{
    const HashMultiset *state = hash_multiset_const(base);
    uint32_t mask = state->table.capacity - 1;
    uint32_t i = (uint32_t)hash & mask;
    const StateTableSlot *slot = &state->table.slots[i];
    if (level == MULTISET_PREFETCH_SLOT) {
        __builtin_prefetch(slot);
        return;
    }
    /* the slot is in cache by now: find the key block by hash alone */
    for (uint32_t step = 0; step < 4 && slot->block; step++) {
        if (slot->hash == hash) {
            const KeyBlock *block = slot->block;
            if (level == MULTISET_PREFETCH_KEY) {
                __builtin_prefetch(block);
                __builtin_prefetch((const char *)block + 64);
                __builtin_prefetch((const char *)block_key_row(state, block));
                return;
            }
            const HashKey *key = &block->parts[0].key;
            if (key_capacity(key) == 1) {
                __builtin_prefetch(key->entries[0].row); /* the entry is in the block */
            } else {
                /* a small vector is scanned whole; a large one is reached through its index */
                const char *start = (const char *)key->entries;
                const char *end = (const char *)&key->entries[key->pub.entry_count];
                if (!key->index)
                    for (const char *line = start; line < end; line += 64)
                        __builtin_prefetch(line);
                else
                    __builtin_prefetch(start);
                __builtin_prefetch(end); /* where add_row appends */
            }
            if (key->index)
                __builtin_prefetch(
                    &key->index[2 * ((uint32_t)row_hash & (key_index_slots(key) - 1))]);
            return;
        }
        i = (i + 1) & mask;
        slot = &state->table.slots[i];
    }
}

/* Removes the key in `slot`: frees its block, then shifts the table. */
static void hash_multiset_remove_slot(HashMultiset *state, uint32_t slot)
{
    key_block_free(state, state->table.slots[slot].block);
    state_table_remove_slot(&state->table, slot);
}

/* ---- the entries of one key part ---- */

/*
 * An index region: `slots` pairs {position + 1, tag} (0: empty) with linear
 * probing from tag & (slots - 1) and backward-shift deletion by the stored
 * tags. The row index's tags are the entries' hashes; the group index's
 * (grouped parts, right after the row index) the rows' group hashes, and a
 * tag may repeat there: a probe visits every slot up to the next empty one.
 */
static void index_insert(uint32_t *index, uint32_t slots, uint32_t tag, uint32_t position)
{
    uint32_t mask = slots - 1;
    uint32_t i = tag & mask;
    while (index[2 * i])
        i = (i + 1) & mask;
    index[2 * i] = position + 1;
    index[2 * i + 1] = tag;
}

static uint32_t index_slot_of(const uint32_t *index, uint32_t slots, uint32_t tag,
                              uint32_t position)
{
    uint32_t mask = slots - 1;
    uint32_t i = tag & mask;
    while (index[2 * i] != position + 1)
        i = (i + 1) & mask;
    return i;
}

static void index_delete_slot(uint32_t *index, uint32_t slots, uint32_t slot)
{
    uint32_t mask = slots - 1;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        uint32_t value = index[2 * next];
        if (!value)
            break;
        uint32_t home = index[2 * next + 1] & mask;
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            index[2 * hole] = value;
            index[2 * hole + 1] = index[2 * next + 1];
            hole = next;
        }
    }
    index[2 * hole] = 0;
    index[2 * hole + 1] = 0;
}

/* The group index of a grouped part with an index (after the row index), else NULL. */
static inline uint32_t *key_group_index(const HashMultiset *state, const HashKey *key)
{
    if (!key->index || !state->parts[key->pub.part].group_hash)
        return NULL;
    return key->index + 2 * key_index_slots(key);
}

static inline uint32_t key_group_tag(const HashMultiset *state, const HashKey *key, const Row *row)
{
    const PartFigures *part = &state->parts[key->pub.part];
    return part->group_hash(row, part->group_context);
}

/* Enters entry `position` into the part's indexes. */
static void key_index_add(const HashMultiset *state, HashKey *key, uint32_t position)
{
    uint32_t slots = key_index_slots(key);
    index_insert(key->index, slots, key->entries[position].hash, position);
    uint32_t *group = key_group_index(state, key);
    if (group)
        index_insert(group, slots, key_group_tag(state, key, key->entries[position].row), position);
}

/* Takes entry `position` out of the part's indexes and renumbers `last` to `position`. */
static void key_index_remove(const HashMultiset *state, HashKey *key, uint32_t position,
                             uint32_t last)
{
    uint32_t slots = key_index_slots(key);
    const MultisetEntry *entries = key->entries;
    index_delete_slot(key->index, slots,
                      index_slot_of(key->index, slots, entries[position].hash, position));
    if (position != last)
        key->index[2 * index_slot_of(key->index, slots, entries[last].hash, last)] = position + 1;
    uint32_t *group = key_group_index(state, key);
    if (!group)
        return;
    index_delete_slot(
        group, slots,
        index_slot_of(group, slots, key_group_tag(state, key, entries[position].row), position));
    if (position != last)
        group[2 * index_slot_of(group, slots, key_group_tag(state, key, entries[last].row), last)] =
            position + 1;
}

/*
 * Rebuilds (or drops) the index for the current capacity; the old index,
 * if any, had `old_slots` slots.
 */
static bool key_index_rebuild(HashMultiset *state, HashKey *key, uint32_t old_slots)
{
    PartFigures *part = &state->parts[key->pub.part];
    if (key->index) {
        slab_free(&state->slab, key->index, key_index_size(state, key, old_slots));
        part->payload_bytes -= key_index_size(state, key, old_slots);
        key->index = NULL;
    }
    if (key_capacity(key) <= INDEX_THRESHOLD)
        return true;
    uint32_t slots = key_index_slots(key);
    uint32_t bytes = key_index_size(state, key, slots);
    uint32_t *index = slab_alloc(&state->slab, bytes);
    if (!index)
        return false;
    memset(index, 0, bytes);
    part->payload_bytes += bytes;
    key->index = index;
    for (uint32_t i = 0; i < key->pub.entry_count; i++)
        key_index_add(state, key, i);
    return true;
}

/* Moves the entries into a vector of `capacity` (1: the inline entry) and rebuilds the index. */
static bool key_set_capacity(HashMultiset *state, HashKey *key, uint32_t capacity)
{
    PartFigures *part = &state->parts[key->pub.part];
    uint32_t old_capacity = key_capacity(key);
    uint32_t old_index_slots = key_index_slots(key);
    MultisetEntry *entries;
    if (capacity == 1) {
        entries = key_inline_entry(key);
    } else if (old_capacity > 1 && entry_vector_size(old_capacity) > SLAB_MAX_BLOCK &&
               entry_vector_size(capacity) > SLAB_MAX_BLOCK) {
        entries = slab_realloc_large(&state->slab, key->entries, entry_vector_size(old_capacity),
                                     entry_vector_size(capacity));
        if (!entries)
            return false;
        part->payload_bytes += entry_vector_size(capacity);
        part->payload_bytes -= entry_vector_size(old_capacity);
        key->entries = entries;
        key->pub.backend_byte = (uint8_t)capacity_log2_of(capacity);
        (void)key_index_rebuild(state, key, old_index_slots); /* no memory: linear search */
        return true;
    } else {
        entries = slab_alloc(&state->slab, entry_vector_size(capacity));
        if (!entries)
            return false;
        part->payload_bytes += entry_vector_size(capacity);
    }
    if (entries != key->entries) {
        memcpy(entries, key->entries, (size_t)key->pub.entry_count * sizeof(MultisetEntry));
        if (old_capacity > 1) {
            slab_free(&state->slab, key->entries, entry_vector_size(old_capacity));
            part->payload_bytes -= entry_vector_size(old_capacity);
        }
    }
    key->entries = entries;
    key->pub.backend_byte = (uint8_t)capacity_log2_of(capacity);
    (void)key_index_rebuild(state, key, old_index_slots); /* no memory: linear search */
    return true;
}

static const MultisetEntry *hash_multiset_find_row(MultisetState *base, MultisetKey *handle,
                                                   const Row *row, uint64_t hash)
{
    (void)base;
    const HashKey *key = hash_key(handle);
    uint32_t tag = (uint32_t)hash; /* what entries keep of the hash */
    if (key->index) {
        uint32_t mask = key_index_slots(key) - 1;
        uint32_t i = tag & mask;
        for (uint32_t value; (value = key->index[2 * i]) != 0; i = (i + 1) & mask) {
            if (key->index[2 * i + 1] != tag)
                continue;
            const MultisetEntry *entry = &key->entries[value - 1];
            if (state_row_equals(entry->row, row))
                return entry;
        }
        return NULL;
    }
    for (uint32_t i = 0; i < key->pub.entry_count; i++) {
        const MultisetEntry *entry = &key->entries[i];
        if (entry->hash == tag && state_row_equals(entry->row, row))
            return entry;
    }
    return NULL;
}

static void hash_multiset_set_group_hash(MultisetState *base, uint32_t part, MultisetGroupHash hash,
                                         const void *context)
{
    HashMultiset *state = hash_multiset(base);
    if (part >= state->base.part_count || state->table.count > 0)
        return;
    state->parts[part].group_hash = hash;
    state->parts[part].group_context = context;
}

static void hash_multiset_scan_begin(MultisetState *base, MultisetKey *handle, MultisetScan *scan)
{
    HashMultiset *state = hash_multiset(base);
    HashKey *key = hash_key(handle);
    HashScan *cursor = (HashScan *)scan->backend;
    cursor->group = scan->grouped ? key_group_index(state, key) : NULL;
    if (!cursor->group) { /* every entry is a candidate: one span */
        scan->span = key->entries;
        scan->span_count = key->pub.entry_count;
        return;
    }
    cursor->slots = key_index_slots(key);
    cursor->position = scan->group_hash & (cursor->slots - 1);
}

static const MultisetEntry *hash_multiset_scan_refill(MultisetScan *scan)
{
    HashScan *cursor = (HashScan *)scan->backend;
    if (!cursor->group)
        return NULL;
    const HashKey *key = hash_key(scan->key);
    uint32_t mask = cursor->slots - 1;
    for (;;) {
        uint32_t i = cursor->position;
        uint32_t value = cursor->group[2 * i];
        if (!value)
            return NULL;
        cursor->position = (i + 1) & mask;
        if (cursor->group[2 * i + 1] == scan->group_hash)
            return &key->entries[value - 1];
    }
}

static const MultisetEntry *hash_multiset_add_row(MultisetState *base, MultisetKey *handle,
                                                  const Row *row, uint64_t hash, int32_t count,
                                                  int64_t association_count, int64_t now)
{
    HashMultiset *state = hash_multiset(base);
    HashKey *key = hash_key(handle);
    if (key->pub.entry_count == key_capacity(key)) {
        uint32_t capacity = key_capacity(key) * 2;
        /* vectors and indexes stay below 2^32 bytes (32-bit sizes): at most 2^26 entries */
        if (capacity > KEY_MAX_CAPACITY) {
            state_store_set_error(state->base.store, JOINERY_ERROR_NO_MEMORY,
                                  "more than %d rows under one key", KEY_MAX_CAPACITY);
            return NULL;
        }
        if (!key_set_capacity(state, key, capacity))
            return NULL;
    }
    Row *copy = slab_copy_row(&state->slab, row);
    if (!copy)
        return NULL;
    PartFigures *part = &state->parts[key->pub.part];
    uint32_t position = key->pub.entry_count++;
    MultisetEntry *entry = &key->entries[position];
    entry->row = copy;
    entry->hash = (uint32_t)hash;
    entry->count = count;
    entry->association_count = association_count;
    entry->last_access = now;
    if (key->index)
        key_index_add(state, key, position);
    if (now < key->oldest_access || key->pub.entry_count == 1)
        key->oldest_access = now;
    if (key->pub.entry_count == 1)
        part->keys++;
    part->entries++;
    part->payload_bytes += row_size(copy);
    state->entry_count++;
    return entry;
}

static int hash_multiset_update(MultisetState *base, MultisetKey *handle,
                                const MultisetEntry *entry, int32_t count,
                                int64_t association_count, int64_t now)
{
    (void)base;
    (void)handle;
    MultisetEntry *stored = (MultisetEntry *)entry; /* a view is the stored entry */
    stored->count = count;
    stored->association_count = association_count;
    stored->last_access = now;
    return JOINERY_OK;
}

static int hash_multiset_remove_entry(MultisetState *base, MultisetKey *handle,
                                      const MultisetEntry *entry)
{
    HashMultiset *state = hash_multiset(base);
    HashKey *key = hash_key(handle);
    PartFigures *part = &state->parts[key->pub.part];
    uint32_t position = (uint32_t)(entry - key->entries);
    uint32_t last = key->pub.entry_count - 1;
    if (key->index)
        key_index_remove(state, key, position, last);
    part->payload_bytes -= row_size(entry->row);
    slab_free_row(&state->slab, entry->row);
    if (position != last)
        key->entries[position] = key->entries[last];
    key->pub.entry_count--;
    part->entries--;
    if (key->pub.entry_count == 0)
        part->keys--;
    state->entry_count--;
    /* give memory back when the vector is mostly empty */
    if (key_capacity(key) > 4 && key->pub.entry_count * 4 < key_capacity(key))
        (void)key_set_capacity(state, key, key_capacity(key) / 2);
    return JOINERY_OK;
}

/* Drops the expired entries of a key part; returns how many. */
static uint64_t key_expire(HashMultiset *state, HashKey *key, int64_t now)
{
    PartFigures *part = &state->parts[key->pub.part];
    uint64_t dropped = 0;
    int64_t oldest = INT64_MAX;
    for (uint32_t i = key->pub.entry_count; i-- > 0;) {
        MultisetEntry *entry = &key->entries[i];
        if (state_is_expired(part->ttl_millis, entry->last_access, now)) {
            hash_multiset_remove_entry(&state->base, &key->pub, entry);
            dropped++;
        }
    }
    for (uint32_t i = 0; i < key->pub.entry_count; i++)
        if (key->entries[i].last_access < oldest)
            oldest = key->entries[i].last_access;
    key->oldest_access = oldest;
    part->expired += dropped;
    state->expired += dropped;
    return dropped;
}

/*
 * Expires the parts of the block whose oldest entry is due; returns the
 * entries dropped and sets *empty when no part has an entry left.
 */
static uint64_t key_block_expire(HashMultiset *state, KeyBlock *block, int64_t now, bool *empty)
{
    uint64_t dropped = 0;
    bool any = false;
    for (uint32_t p = 0; p < state->base.part_count; p++) {
        HashKey *key = &block->parts[p].key;
        if (key->pub.entry_count &&
            state_is_expired(state->parts[p].ttl_millis, key->oldest_access, now))
            dropped += key_expire(state, key, now);
        if (key->pub.entry_count)
            any = true;
    }
    *empty = !any;
    return dropped;
}

static MultisetKey *hash_multiset_find(MultisetState *base, const Row *key, uint64_t hash,
                                       int64_t now)
{
    HashMultiset *state = hash_multiset(base);
    uint32_t slot = state_table_probe(&state->table, key, hash);
    KeyBlock *block = state->table.slots[slot].block;
    if (!block)
        return NULL;
    if (state->ttl_enabled) {
        bool empty;
        if (key_block_expire(state, block, now, &empty) > 0 && empty) {
            hash_multiset_remove_slot(state, slot);
            state_table_maybe_shrink(&state->table);
            return NULL;
        }
    }
    return &block->parts[0].key.pub;
}

static MultisetKey *hash_multiset_insert_key(MultisetState *base, const Row *key, uint64_t hash,
                                             int64_t now)
{
    HashMultiset *state = hash_multiset(base);
    MultisetKey *found = hash_multiset_find(base, key, hash, now);
    if (found)
        return found;
    if (!state_table_reserve(&state->table))
        return NULL;
    KeyBlock *block = slab_alloc(&state->slab, key_block_size(state, key));
    if (!block)
        return NULL;
    uint32_t parts_bytes = state->table.key_row_offset;
    memset(block, 0, parts_bytes);
    Row *key_copy = (Row *)((char *)block + parts_bytes);
    memcpy(key_copy, key, row_size(key));
    row_set_kind(key_copy, ROW_KIND_INSERT);
    for (uint32_t p = 0; p < state->base.part_count; p++) {
        HashKey *part = &block->parts[p].key;
        part->entries = key_inline_entry(part);
        part->pub.backend_byte = 0;
        part->pub.part = (uint8_t)p;
        part->oldest_access = now;
    }
    state_table_fill(&state->table, state_table_probe(&state->table, key, hash), hash, block);
    return &block->parts[0].key.pub;
}

static MultisetKey *hash_multiset_key_part(MultisetState *base, MultisetKey *key, uint32_t part)
{
    (void)base;
    return &((KeyPart *)key)[part].key.pub;
}

static int hash_multiset_remove_key(MultisetState *base, MultisetKey *handle)
{
    HashMultiset *state = hash_multiset(base);
    KeyBlock *block = key_block_of(hash_key(handle));
    uint64_t hash = row_content_hash(block_key_row(state, block));
    hash_multiset_remove_slot(state, state_table_slot_of(&state->table, block, hash));
    state_table_maybe_shrink(&state->table);
    return JOINERY_OK;
}

static int hash_multiset_release_key(MultisetState *base, MultisetKey *handle)
{
    KeyBlock *block = key_block_of(hash_key(handle));
    for (uint32_t p = 0; p < base->part_count; p++)
        if (block->parts[p].key.pub.entry_count)
            return JOINERY_OK;
    return hash_multiset_remove_key(base, handle);
}

static int hash_multiset_scan_keys(MultisetState *base, MultisetKeyVisit visit, void *context)
{
    HashMultiset *state = hash_multiset(base);
    for (uint32_t i = 0; i < state->table.capacity; i++) {
        KeyBlock *block = state->table.slots[i].block;
        if (!block)
            continue;
        int status = visit(context, block_key_row(state, block), &block->parts[0].key.pub);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static uint64_t hash_multiset_cleanup(MultisetState *base, int64_t now, uint32_t max_keys)
{
    HashMultiset *state = hash_multiset(base);
    if (!state->ttl_enabled)
        return 0;
    StateTable *table = &state->table;
    uint64_t dropped = 0;
    uint32_t examined = 0;
    uint32_t slot = table->cleanup_cursor & (table->capacity - 1);
    while (examined < max_keys && examined < table->capacity) {
        examined++;
        KeyBlock *block = table->slots[slot].block;
        if (block) {
            bool empty;
            dropped += key_block_expire(state, block, now, &empty);
            if (empty) {
                hash_multiset_remove_slot(state, slot);
                examined--; /* another key may have shifted into this slot: look again */
                continue;
            }
        }
        slot = (slot + 1) & (table->capacity - 1);
    }
    table->cleanup_cursor = slot;
    state_table_maybe_shrink(table);
    return dropped;
}

static StateCounters hash_multiset_counters(const MultisetState *base)
{
    const HashMultiset *state = hash_multiset_const(base);
    StateCounters counters;
    counters.bytes = sizeof *state + state->base.part_count * sizeof(PartFigures) +
                     state_table_bytes(&state->table) + state->slab.chunk_bytes +
                     state->slab.heap_bytes;
    counters.keys = state->table.count;
    counters.entries = state->entry_count;
    counters.expired = state->expired;
    return counters;
}

static StateCounters hash_multiset_part_counters(const MultisetState *base, uint32_t part)
{
    const HashMultiset *state = hash_multiset_const(base);
    StateCounters counters = {0, 0, 0, 0};
    if (part >= state->base.part_count)
        return counters;
    const PartFigures *figures = &state->parts[part];
    counters.keys = figures->keys;
    counters.entries = figures->entries;
    counters.expired = figures->expired;
    /* the part's own payload, plus a share of what its keys have in common (table, key
       blocks, slab slack) in proportion to the keys it is present in */
    StateCounters total = hash_multiset_counters(base);
    uint64_t payload = 0, keys = 0;
    for (uint32_t p = 0; p < state->base.part_count; p++) {
        payload += state->parts[p].payload_bytes;
        keys += state->parts[p].keys;
    }
    uint64_t shared = total.bytes > payload ? total.bytes - payload : 0;
    counters.bytes = figures->payload_bytes +
                     (keys ? (uint64_t)((double)shared * (double)figures->keys / (double)keys)
                           : (part == 0 ? shared : 0));
    return counters;
}

static const MultisetStateOps HASH_MULTISET_OPS = {
    .destroy = hash_multiset_destroy,
    .set_group_hash = hash_multiset_set_group_hash,
    .find = hash_multiset_find,
    .insert_key = hash_multiset_insert_key,
    .key_part = hash_multiset_key_part,
    .remove_key = hash_multiset_remove_key,
    .release_key = hash_multiset_release_key,
    .find_row = hash_multiset_find_row,
    .add_row = hash_multiset_add_row,
    .update = hash_multiset_update,
    .remove_entry = hash_multiset_remove_entry,
    .scan_begin = hash_multiset_scan_begin,
    .scan_refill = hash_multiset_scan_refill,
    .scan_end = NULL,
    .scan_keys = hash_multiset_scan_keys,
    .cleanup = hash_multiset_cleanup,
    .counters = hash_multiset_counters,
    .part_counters = hash_multiset_part_counters,
    .prefetch = hash_multiset_prefetch,
};

MultisetState *state_hashmap_create_multiset(StateStore *store, uint32_t part_count,
                                             const int64_t *ttl_millis)
{
    StateMemory memory = state_hashmap_memory(store);
    HashMultiset *state = calloc(1, sizeof *state + part_count * sizeof(PartFigures));
    if (!state) {
        state_memory_exhausted(&memory);
        return NULL;
    }
    state->base.ops = &HASH_MULTISET_OPS;
    state->base.store = store;
    state->base.part_count = part_count;
    slab_init(&state->slab, &memory);
    if (!state_table_init(&state->table, part_count * (uint32_t)sizeof(KeyPart), &memory)) {
        free(state);
        return NULL;
    }
    for (uint32_t p = 0; p < part_count; p++) {
        state->parts[p].ttl_millis = ttl_millis && ttl_millis[p] > 0 ? ttl_millis[p] : 0;
        if (state->parts[p].ttl_millis > 0)
            state->ttl_enabled = true;
    }
    return &state->base;
}
