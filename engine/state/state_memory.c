/*
 * state_memory.c - the in-memory keyed-state backend (see state.h).
 *
 * Tables: open addressing, linear probing, capacity a power of two, load at
 * most 3/4, backward-shift deletion (so no tombstones and probe chains stay
 * short after deletes); they shrink when they become 1/8 full. Slots hold
 * the key structures inline (no pointer chase on lookup); an empty slot has
 * key == NULL.
 *
 * Invariants:
 * - every stored row (key, entry row, value) is a malloc'd canonical row
 *   with kind +I, owned by the state;
 * - payload_bytes is the sum of what the state allocated besides the slot
 *   array (rows, entry vectors, indexes), plus MALLOC_OVERHEAD per block;
 * - a MultisetKey has entry_count > 0 except transiently between
 *   insert_key and the first add_row (the operator adds or removes it);
 * - key->index is NULL when entry_capacity <= INDEX_THRESHOLD (or when
 *   memory for it ran out: lookups then scan); when present it holds
 *   exactly one slot per entry (value = position + 1);
 * - key->oldest_access <= last_access of every entry of the key.
 */
#include "engine/state/state.h"

#include <stdlib.h>
#include <string.h>

enum {
    TABLE_INITIAL_CAPACITY = 16,
    INDEX_THRESHOLD = 8, /* entries before a key gets a hash index */
    VECTOR_INITIAL_CAPACITY = 2,
    MALLOC_OVERHEAD = 16, /* estimated bytes of bookkeeping per malloc block */
};

/* ---- configuration ---------------------------------------------------- */

void state_config_init(StateConfig *config)
{
    config->ttl_millis = 0;
    config->backend = "memory";
}

int state_config_validate(const StateConfig *config, Diag *diag)
{
    if (config->ttl_millis < 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "State TTL must not be negative: %lld ms",
                          (long long)config->ttl_millis);
    const char *backend = config->backend ? config->backend : "memory";
    if (strcmp(backend, "memory") == 0 || strcmp(backend, "hashmap") == 0)
        return JOINERY_OK;
    if (strcmp(backend, "lmdb") == 0 || strcmp(backend, "rocksdb") == 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "State backend '%s' is not supported yet; use 'memory'", backend);
    return diag_error(diag, JOINERY_ERROR_VALIDATE,
                      "Unknown state backend '%s' (supported: 'memory')", backend);
}

static inline uint64_t row_bytes(const Row *row)
{
    return (uint64_t)row_size(row) + MALLOC_OVERHEAD;
}

static Row *row_store_copy(const Row *row)
{
    Row *copy = row_copy_heap(row);
    if (copy)
        row_set_kind(copy, ROW_KIND_INSERT);
    return copy;
}

/* ---- multiset state --------------------------------------------------- */

struct MultisetState {
    MultisetKey *slots;
    uint32_t capacity; /* power of two */
    uint32_t key_count;
    uint64_t entry_count;
    uint64_t payload_bytes;
    uint64_t expired;
    int64_t ttl_millis;
    uint32_t cleanup_cursor;
};

MultisetState *multiset_state_create(int64_t ttl_millis)
{
    MultisetState *state = calloc(1, sizeof *state);
    if (!state)
        return NULL;
    state->slots = calloc(TABLE_INITIAL_CAPACITY, sizeof(MultisetKey));
    if (!state->slots) {
        free(state);
        return NULL;
    }
    state->capacity = TABLE_INITIAL_CAPACITY;
    state->ttl_millis = ttl_millis > 0 ? ttl_millis : 0;
    return state;
}

static void multiset_key_free(MultisetKey *key)
{
    for (uint32_t i = 0; i < key->entry_count; i++)
        free(key->entries[i].row);
    free(key->entries);
    free(key->index);
    free(key->key);
}

void multiset_state_destroy(MultisetState *state)
{
    if (!state)
        return;
    for (uint32_t i = 0; i < state->capacity; i++)
        if (state->slots[i].key)
            multiset_key_free(&state->slots[i]);
    free(state->slots);
    free(state);
}

int64_t multiset_state_ttl(const MultisetState *state)
{
    return state->ttl_millis;
}

static uint64_t multiset_key_bytes(const MultisetKey *key)
{
    uint64_t bytes = row_bytes(key->key);
    if (key->entries)
        bytes += (uint64_t)key->entry_capacity * sizeof(MultisetEntry) + MALLOC_OVERHEAD;
    if (key->index)
        bytes += (uint64_t)(key->index_mask + 1) * sizeof(uint32_t) + MALLOC_OVERHEAD;
    return bytes;
}

/* Slot of the key, or of the empty slot where it would go. */
static uint32_t multiset_probe(const MultisetState *state, const Row *key, uint64_t hash)
{
    uint32_t mask = state->capacity - 1;
    uint32_t i = (uint32_t)hash & mask;
    for (;;) {
        const MultisetKey *slot = &state->slots[i];
        if (!slot->key || (slot->hash == hash && row_content_equals(slot->key, key)))
            return i;
        i = (i + 1) & mask;
    }
}

static bool multiset_resize(MultisetState *state, uint32_t capacity)
{
    MultisetKey *slots = calloc(capacity, sizeof(MultisetKey));
    if (!slots)
        return false;
    uint32_t mask = capacity - 1;
    for (uint32_t i = 0; i < state->capacity; i++) {
        MultisetKey *old = &state->slots[i];
        if (!old->key)
            continue;
        uint32_t j = (uint32_t)old->hash & mask;
        while (slots[j].key)
            j = (j + 1) & mask;
        slots[j] = *old;
    }
    free(state->slots);
    state->slots = slots;
    state->capacity = capacity;
    state->cleanup_cursor = 0;
    return true;
}

/* Removes the key in `slot` with backward-shift deletion; no shrinking. */
static void multiset_remove_slot(MultisetState *state, uint32_t slot)
{
    MultisetKey *key = &state->slots[slot];
    state->entry_count -= key->entry_count;
    state->payload_bytes -= multiset_key_bytes(key);
    for (uint32_t i = 0; i < key->entry_count; i++)
        state->payload_bytes -= row_bytes(key->entries[i].row);
    multiset_key_free(key);
    state->key_count--;

    uint32_t mask = state->capacity - 1;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        MultisetKey *candidate = &state->slots[next];
        if (!candidate->key)
            break;
        uint32_t home = (uint32_t)candidate->hash & mask;
        /* move it into the hole unless its home lies cyclically in (hole, next] */
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            state->slots[hole] = *candidate;
            hole = next;
        }
    }
    memset(&state->slots[hole], 0, sizeof(MultisetKey));
}

static void multiset_maybe_shrink(MultisetState *state)
{
    if (state->capacity <= TABLE_INITIAL_CAPACITY ||
        (uint64_t)state->key_count * 8 >= state->capacity)
        return;
    uint32_t capacity = state->capacity;
    while (capacity > TABLE_INITIAL_CAPACITY && (uint64_t)state->key_count * 4 < capacity / 2)
        capacity /= 2;
    (void)multiset_resize(state, capacity); /* failure: keep the larger table */
}

/* ---- the entries of one key ---- */

static void key_index_insert(MultisetKey *key, uint32_t position)
{
    uint32_t mask = key->index_mask;
    uint32_t i = (uint32_t)key->entries[position].hash & mask;
    while (key->index[i])
        i = (i + 1) & mask;
    key->index[i] = position + 1;
}

static uint32_t key_index_slot_of(const MultisetKey *key, uint32_t position)
{
    uint32_t mask = key->index_mask;
    uint32_t i = (uint32_t)key->entries[position].hash & mask;
    while (key->index[i] != position + 1)
        i = (i + 1) & mask;
    return i;
}

static void key_index_delete_slot(MultisetKey *key, uint32_t slot)
{
    uint32_t mask = key->index_mask;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        uint32_t value = key->index[next];
        if (!value)
            break;
        uint32_t home = (uint32_t)key->entries[value - 1].hash & mask;
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            key->index[hole] = value;
            hole = next;
        }
    }
    key->index[hole] = 0;
}

/* Rebuilds (or drops) the index for the current entry_capacity. */
static bool key_index_rebuild(MultisetState *state, MultisetKey *key)
{
    if (key->index) {
        state->payload_bytes -=
            (uint64_t)(key->index_mask + 1) * sizeof(uint32_t) + MALLOC_OVERHEAD;
        free(key->index);
        key->index = NULL;
        key->index_mask = 0;
    }
    if (key->entry_capacity <= INDEX_THRESHOLD)
        return true;
    uint32_t capacity = key->entry_capacity * 2; /* entry_capacity is a power of two */
    uint32_t *index = calloc(capacity, sizeof(uint32_t));
    if (!index)
        return false;
    key->index = index;
    key->index_mask = capacity - 1;
    state->payload_bytes += (uint64_t)capacity * sizeof(uint32_t) + MALLOC_OVERHEAD;
    for (uint32_t i = 0; i < key->entry_count; i++)
        key_index_insert(key, i);
    return true;
}

static bool key_set_capacity(MultisetState *state, MultisetKey *key, uint32_t capacity)
{
    MultisetEntry *entries = realloc(key->entries, (size_t)capacity * sizeof(MultisetEntry));
    if (!entries)
        return false;
    if (key->entries)
        state->payload_bytes -= (uint64_t)key->entry_capacity * sizeof(MultisetEntry);
    else
        state->payload_bytes += MALLOC_OVERHEAD;
    state->payload_bytes += (uint64_t)capacity * sizeof(MultisetEntry);
    key->entries = entries;
    key->entry_capacity = capacity;
    (void)key_index_rebuild(state, key); /* without memory for an index: linear search */
    return true;
}

MultisetEntry *multiset_key_find_row(const MultisetKey *key, const Row *row, uint64_t hash)
{
    if (key->index) {
        uint32_t mask = key->index_mask;
        uint32_t i = (uint32_t)hash & mask;
        for (uint32_t value; (value = key->index[i]) != 0; i = (i + 1) & mask) {
            MultisetEntry *entry = &key->entries[value - 1];
            if (entry->hash == hash && row_content_equals(entry->row, row))
                return entry;
        }
        return NULL;
    }
    for (uint32_t i = 0; i < key->entry_count; i++) {
        MultisetEntry *entry = &key->entries[i];
        if (entry->hash == hash && row_content_equals(entry->row, row))
            return entry;
    }
    return NULL;
}

MultisetEntry *multiset_key_add_row(MultisetState *state, MultisetKey *key, const Row *row,
                                    uint64_t hash, int64_t now)
{
    if (key->entry_count == key->entry_capacity) {
        uint32_t capacity = key->entry_capacity ? key->entry_capacity * 2 : VECTOR_INITIAL_CAPACITY;
        if (capacity <= key->entry_capacity || !key_set_capacity(state, key, capacity))
            return NULL;
    }
    Row *copy = row_store_copy(row);
    if (!copy)
        return NULL;
    uint32_t position = key->entry_count++;
    MultisetEntry *entry = &key->entries[position];
    entry->row = copy;
    entry->hash = hash;
    entry->count = 0;
    entry->association_count = 0;
    entry->last_access = now;
    if (key->index)
        key_index_insert(key, position);
    if (now < key->oldest_access || key->entry_count == 1)
        key->oldest_access = now;
    state->entry_count++;
    state->payload_bytes += row_bytes(copy);
    return entry;
}

void multiset_key_remove_entry(MultisetState *state, MultisetKey *key, MultisetEntry *entry)
{
    uint32_t position = (uint32_t)(entry - key->entries);
    uint32_t last = key->entry_count - 1;
    if (key->index) {
        key_index_delete_slot(key, key_index_slot_of(key, position));
        if (position != last)
            key->index[key_index_slot_of(key, last)] = position + 1;
    }
    state->payload_bytes -= row_bytes(entry->row);
    free(entry->row);
    if (position != last)
        key->entries[position] = key->entries[last];
    key->entry_count--;
    state->entry_count--;
    /* give memory back when the vector is mostly empty */
    if (key->entry_capacity > VECTOR_INITIAL_CAPACITY * 2 &&
        key->entry_count * 4 < key->entry_capacity)
        (void)key_set_capacity(state, key, key->entry_capacity / 2);
}

/* Drops the expired entries of a key; returns how many. */
static uint64_t multiset_key_expire(MultisetState *state, MultisetKey *key, int64_t now)
{
    uint64_t dropped = 0;
    int64_t oldest = INT64_MAX;
    for (uint32_t i = key->entry_count; i-- > 0;) {
        MultisetEntry *entry = &key->entries[i];
        if (state_is_expired(state->ttl_millis, entry->last_access, now)) {
            multiset_key_remove_entry(state, key, entry);
            dropped++;
        }
    }
    for (uint32_t i = 0; i < key->entry_count; i++)
        if (key->entries[i].last_access < oldest)
            oldest = key->entries[i].last_access;
    key->oldest_access = oldest;
    state->expired += dropped;
    return dropped;
}

MultisetKey *multiset_state_find(MultisetState *state, const Row *key, uint64_t hash, int64_t now)
{
    uint32_t slot = multiset_probe(state, key, hash);
    MultisetKey *found = &state->slots[slot];
    if (!found->key)
        return NULL;
    if (state->ttl_millis > 0 && state_is_expired(state->ttl_millis, found->oldest_access, now)) {
        multiset_key_expire(state, found, now);
        if (found->entry_count == 0) {
            multiset_remove_slot(state, slot);
            multiset_maybe_shrink(state);
            return NULL;
        }
    }
    return found;
}

MultisetKey *multiset_state_insert_key(MultisetState *state, const Row *key, uint64_t hash,
                                       int64_t now)
{
    MultisetKey *found = multiset_state_find(state, key, hash, now);
    if (found)
        return found;
    if ((uint64_t)(state->key_count + 1) * 4 > (uint64_t)state->capacity * 3) {
        if (state->capacity >= (1u << 31) || !multiset_resize(state, state->capacity * 2))
            return NULL;
    }
    Row *copy = row_store_copy(key);
    if (!copy)
        return NULL;
    uint32_t slot = multiset_probe(state, key, hash);
    MultisetKey *created = &state->slots[slot];
    memset(created, 0, sizeof *created);
    created->key = copy;
    created->hash = hash;
    created->oldest_access = now;
    state->key_count++;
    state->payload_bytes += multiset_key_bytes(created);
    return created;
}

void multiset_state_remove_key(MultisetState *state, MultisetKey *key)
{
    multiset_remove_slot(state, (uint32_t)(key - state->slots));
    multiset_maybe_shrink(state);
}

uint64_t multiset_state_cleanup(MultisetState *state, int64_t now, uint32_t max_keys)
{
    if (state->ttl_millis <= 0)
        return 0;
    uint64_t dropped = 0;
    uint32_t examined = 0;
    uint32_t slot = state->cleanup_cursor & (state->capacity - 1);
    while (examined < max_keys && examined < state->capacity) {
        examined++;
        MultisetKey *key = &state->slots[slot];
        if (key->key && state_is_expired(state->ttl_millis, key->oldest_access, now)) {
            dropped += multiset_key_expire(state, key, now);
            if (key->entry_count == 0) {
                multiset_remove_slot(state, slot);
                examined--; /* another key may have shifted into this slot: look again */
                continue;
            }
        }
        slot = (slot + 1) & (state->capacity - 1);
    }
    state->cleanup_cursor = slot;
    multiset_maybe_shrink(state);
    return dropped;
}

StateCounters multiset_state_counters(const MultisetState *state)
{
    StateCounters counters;
    counters.bytes =
        state->payload_bytes + (uint64_t)state->capacity * sizeof(MultisetKey) + sizeof *state;
    counters.keys = state->key_count;
    counters.entries = state->entry_count;
    counters.expired = state->expired;
    return counters;
}

/* ---- value state ------------------------------------------------------ */

struct ValueState {
    ValueEntry *slots;
    uint32_t capacity;
    uint32_t key_count;
    uint64_t payload_bytes;
    uint64_t expired;
    int64_t ttl_millis;
    uint32_t cleanup_cursor;
};

ValueState *value_state_create(int64_t ttl_millis)
{
    ValueState *state = calloc(1, sizeof *state);
    if (!state)
        return NULL;
    state->slots = calloc(TABLE_INITIAL_CAPACITY, sizeof(ValueEntry));
    if (!state->slots) {
        free(state);
        return NULL;
    }
    state->capacity = TABLE_INITIAL_CAPACITY;
    state->ttl_millis = ttl_millis > 0 ? ttl_millis : 0;
    return state;
}

void value_state_destroy(ValueState *state)
{
    if (!state)
        return;
    for (uint32_t i = 0; i < state->capacity; i++) {
        free(state->slots[i].key);
        free(state->slots[i].value);
    }
    free(state->slots);
    free(state);
}

int64_t value_state_ttl(const ValueState *state)
{
    return state->ttl_millis;
}

static uint64_t value_entry_bytes(const ValueEntry *entry)
{
    uint64_t bytes = row_bytes(entry->key);
    if (entry->value)
        bytes += (uint64_t)entry->value_capacity + MALLOC_OVERHEAD;
    return bytes;
}

static uint32_t value_probe(const ValueState *state, const Row *key, uint64_t hash)
{
    uint32_t mask = state->capacity - 1;
    uint32_t i = (uint32_t)hash & mask;
    for (;;) {
        const ValueEntry *slot = &state->slots[i];
        if (!slot->key || (slot->hash == hash && row_content_equals(slot->key, key)))
            return i;
        i = (i + 1) & mask;
    }
}

static bool value_resize(ValueState *state, uint32_t capacity)
{
    ValueEntry *slots = calloc(capacity, sizeof(ValueEntry));
    if (!slots)
        return false;
    uint32_t mask = capacity - 1;
    for (uint32_t i = 0; i < state->capacity; i++) {
        ValueEntry *old = &state->slots[i];
        if (!old->key)
            continue;
        uint32_t j = (uint32_t)old->hash & mask;
        while (slots[j].key)
            j = (j + 1) & mask;
        slots[j] = *old;
    }
    free(state->slots);
    state->slots = slots;
    state->capacity = capacity;
    state->cleanup_cursor = 0;
    return true;
}

static void value_remove_slot(ValueState *state, uint32_t slot)
{
    ValueEntry *entry = &state->slots[slot];
    state->payload_bytes -= value_entry_bytes(entry);
    free(entry->key);
    free(entry->value);
    state->key_count--;
    uint32_t mask = state->capacity - 1;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        ValueEntry *candidate = &state->slots[next];
        if (!candidate->key)
            break;
        uint32_t home = (uint32_t)candidate->hash & mask;
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            state->slots[hole] = *candidate;
            hole = next;
        }
    }
    memset(&state->slots[hole], 0, sizeof(ValueEntry));
}

static void value_maybe_shrink(ValueState *state)
{
    if (state->capacity <= TABLE_INITIAL_CAPACITY ||
        (uint64_t)state->key_count * 8 >= state->capacity)
        return;
    uint32_t capacity = state->capacity;
    while (capacity > TABLE_INITIAL_CAPACITY && (uint64_t)state->key_count * 4 < capacity / 2)
        capacity /= 2;
    (void)value_resize(state, capacity); /* failure: keep the larger table */
}

ValueEntry *value_state_find(ValueState *state, const Row *key, uint64_t hash, int64_t now)
{
    uint32_t slot = value_probe(state, key, hash);
    ValueEntry *found = &state->slots[slot];
    if (!found->key)
        return NULL;
    if (state_is_expired(state->ttl_millis, found->last_access, now)) {
        state->expired++;
        value_remove_slot(state, slot);
        value_maybe_shrink(state);
        return NULL;
    }
    return found;
}

ValueEntry *value_state_insert(ValueState *state, const Row *key, uint64_t hash, int64_t now)
{
    if ((uint64_t)(state->key_count + 1) * 4 > (uint64_t)state->capacity * 3) {
        if (state->capacity >= (1u << 31) || !value_resize(state, state->capacity * 2))
            return NULL;
    }
    Row *copy = row_store_copy(key);
    if (!copy)
        return NULL;
    uint32_t slot = value_probe(state, key, hash);
    ValueEntry *entry = &state->slots[slot];
    memset(entry, 0, sizeof *entry);
    entry->key = copy;
    entry->hash = hash;
    entry->last_access = now;
    state->key_count++;
    state->payload_bytes += value_entry_bytes(entry);
    return entry;
}

int value_state_set(ValueState *state, ValueEntry *entry, const Row *value, int64_t now)
{
    uint32_t size = row_size(value);
    if (!entry->value || entry->value_capacity < size || entry->value_capacity > size * 2) {
        Row *copy = malloc(size);
        if (!copy)
            return JOINERY_ERROR_NO_MEMORY;
        state->payload_bytes -= value_entry_bytes(entry);
        free(entry->value);
        entry->value = copy;
        entry->value_capacity = size;
        state->payload_bytes += value_entry_bytes(entry);
    }
    memcpy(entry->value, value, size);
    row_set_kind(entry->value, ROW_KIND_INSERT);
    entry->last_access = now;
    return JOINERY_OK;
}

void value_state_remove(ValueState *state, ValueEntry *entry)
{
    value_remove_slot(state, (uint32_t)(entry - state->slots));
    value_maybe_shrink(state);
}

uint64_t value_state_cleanup(ValueState *state, int64_t now, uint32_t max_keys)
{
    if (state->ttl_millis <= 0)
        return 0;
    uint64_t dropped = 0;
    uint32_t examined = 0;
    uint32_t slot = state->cleanup_cursor & (state->capacity - 1);
    while (examined < max_keys && examined < state->capacity) {
        examined++;
        ValueEntry *entry = &state->slots[slot];
        if (entry->key && state_is_expired(state->ttl_millis, entry->last_access, now)) {
            value_remove_slot(state, slot);
            dropped++;
            examined--; /* another key may have shifted into this slot: look again */
            continue;
        }
        slot = (slot + 1) & (state->capacity - 1);
    }
    state->cleanup_cursor = slot;
    state->expired += dropped;
    value_maybe_shrink(state);
    return dropped;
}

StateCounters value_state_counters(const ValueState *state)
{
    StateCounters counters;
    counters.bytes =
        state->payload_bytes + (uint64_t)state->capacity * sizeof(ValueEntry) + sizeof *state;
    counters.keys = state->key_count;
    counters.entries = state->key_count;
    counters.expired = state->expired;
    return counters;
}
