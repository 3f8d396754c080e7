/*
 * state_hashmap_value.c - the hashmap backend's value state (see state.h).
 *
 * A StateTable of value blocks; a block (slab memory) holds the callers'
 * ValueEntry, the last write time and the value's capacity, then the key
 * row. The value itself is a separate slab block, reused while the new
 * value fits (and is not less than half of it). A lookup touches the slot
 * array and one block.
 *
 * Bytes reported are the live blocks (with an estimated 16 bytes of
 * bookkeeping each, as a malloc'd block would have) and the table, so they
 * fall as soon as a group goes; the budget counts the slab's chunks.
 *
 * Invariants: every stored row (key, value) has kind +I and lives in the
 * state's slab; value_capacity is the size the value block was allocated
 * with (0 while there is no value); payload_bytes is the sum of
 * value_block_bytes over the stored blocks.
 */
#include "engine/state/state_hashmap_internal.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct ValueBlock {
    ValueEntry entry; /* first: a ValueEntry * is its ValueBlock * */
    int64_t last_access;
    uint32_t value_capacity;
    uint32_t reserved;
    /* the key row follows */
} ValueBlock;

typedef struct HashValueState {
    ValueState base; /* first: a ValueState * is a HashValueState * */
    StateTable table;
    int64_t ttl_millis;
    uint64_t expired;
    uint64_t payload_bytes; /* live blocks and values, with bookkeeping estimates */
    Slab slab;
} HashValueState;

enum { VALUE_BLOCK_OVERHEAD = 16 }; /* estimated bookkeeping per block, as malloc's */

_Static_assert(offsetof(ValueBlock, entry) == 0, "a ValueEntry * is its block");
_Static_assert(sizeof(ValueBlock) % 8 == 0, "key rows stay 8-byte aligned");

static inline HashValueState *hash_value_state(ValueState *state)
{
    return (HashValueState *)state;
}

static inline const Row *value_block_key(const ValueBlock *block)
{
    return (const Row *)(block + 1);
}

static inline uint32_t value_block_size(const Row *key)
{
    return (uint32_t)sizeof(ValueBlock) + row_size(key);
}

/* What a block and its value count in payload_bytes. */
static uint64_t value_block_bytes(const ValueBlock *block)
{
    uint64_t bytes = value_block_size(value_block_key(block)) + VALUE_BLOCK_OVERHEAD;
    if (block->entry.value)
        bytes += block->value_capacity + VALUE_BLOCK_OVERHEAD;
    return bytes;
}

static void value_block_free(HashValueState *state, ValueBlock *block)
{
    state->payload_bytes -= value_block_bytes(block);
    if (block->entry.value)
        slab_free(&state->slab, (void *)block->entry.value, block->value_capacity);
    slab_free(&state->slab, block, value_block_size(value_block_key(block)));
}

static void hash_value_destroy(ValueState *base)
{
    HashValueState *state = hash_value_state(base);
    /* slab chunks go wholesale; blocks above the largest class one by one, and only when
       there is one (heap_bytes counts them): else no key is touched */
    for (uint32_t i = 0; state->slab.heap_bytes != 0 && i < state->table.capacity; i++) {
        ValueBlock *block = state->table.slots[i].block;
        if (!block)
            continue;
        if (block->entry.value && block->value_capacity > SLAB_MAX_BLOCK)
            slab_free(&state->slab, (void *)block->entry.value, block->value_capacity);
        uint32_t size = value_block_size(value_block_key(block));
        if (size > SLAB_MAX_BLOCK)
            slab_free(&state->slab, block, size);
    }
    slab_release_all(&state->slab);
    state_table_free(&state->table);
    free(state);
}

static void hash_value_remove_slot(HashValueState *state, uint32_t slot)
{
    value_block_free(state, state->table.slots[slot].block);
    state_table_remove_slot(&state->table, slot);
}

static const ValueEntry *hash_value_find(ValueState *base, const Row *key, uint64_t hash,
                                         int64_t now)
{
    HashValueState *state = hash_value_state(base);
    uint32_t slot = state_table_probe(&state->table, key, hash);
    ValueBlock *block = state->table.slots[slot].block;
    if (!block)
        return NULL;
    if (state_is_expired(state->ttl_millis, block->last_access, now)) {
        state->expired++;
        hash_value_remove_slot(state, slot);
        state_table_maybe_shrink(&state->table);
        return NULL;
    }
    return &block->entry;
}

static const ValueEntry *hash_value_insert(ValueState *base, const Row *key, uint64_t hash,
                                           int64_t now)
{
    HashValueState *state = hash_value_state(base);
    if (!state_table_reserve(&state->table))
        return NULL;
    ValueBlock *block = slab_alloc(&state->slab, value_block_size(key));
    if (!block)
        return NULL;
    memset(block, 0, sizeof *block);
    block->last_access = now;
    Row *key_copy = (Row *)(block + 1);
    memcpy(key_copy, key, row_size(key));
    row_set_kind(key_copy, ROW_KIND_INSERT);
    state_table_fill(&state->table, state_table_probe(&state->table, key, hash), hash, block);
    state->payload_bytes += value_block_bytes(block);
    return &block->entry;
}

static int hash_value_set(ValueState *base, const ValueEntry *entry, const Row *value, int64_t now)
{
    HashValueState *state = hash_value_state(base);
    ValueBlock *block = (ValueBlock *)entry;
    uint32_t size = row_size(value);
    Row *stored = (Row *)block->entry.value;
    if (!stored || block->value_capacity < size || block->value_capacity > size * 2) {
        Row *copy = slab_alloc(&state->slab, size);
        if (!copy)
            return JOINERY_ERROR_NO_MEMORY;
        memcpy(copy, value, size);
        state->payload_bytes -= value_block_bytes(block);
        if (stored)
            slab_free(&state->slab, stored, block->value_capacity);
        stored = copy;
        block->entry.value = stored;
        block->value_capacity = size;
        state->payload_bytes += value_block_bytes(block);
    } else if (stored != value) {
        memmove(stored, value, size);
    }
    row_set_kind(stored, ROW_KIND_INSERT);
    block->last_access = now;
    return JOINERY_OK;
}

static int hash_value_remove(ValueState *base, const ValueEntry *entry)
{
    HashValueState *state = hash_value_state(base);
    const ValueBlock *block = (const ValueBlock *)entry;
    uint64_t hash = row_content_hash(value_block_key(block));
    hash_value_remove_slot(state, state_table_slot_of(&state->table, block, hash));
    state_table_maybe_shrink(&state->table);
    return JOINERY_OK;
}

static int hash_value_scan(ValueState *base,
                           int (*visit)(void *context, const Row *key, const Row *value,
                                        int64_t last_access),
                           void *context)
{
    HashValueState *state = hash_value_state(base);
    for (uint32_t i = 0; i < state->table.capacity; i++) {
        const ValueBlock *block = state->table.slots[i].block;
        if (!block)
            continue;
        int status = visit(context, value_block_key(block), block->entry.value, block->last_access);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static uint64_t hash_value_cleanup(ValueState *base, int64_t now, uint32_t max_keys)
{
    HashValueState *state = hash_value_state(base);
    if (state->ttl_millis <= 0)
        return 0;
    StateTable *table = &state->table;
    uint64_t dropped = 0;
    uint32_t examined = 0;
    uint32_t slot = table->cleanup_cursor & (table->capacity - 1);
    while (examined < max_keys && examined < table->capacity) {
        examined++;
        const ValueBlock *block = table->slots[slot].block;
        if (block && state_is_expired(state->ttl_millis, block->last_access, now)) {
            hash_value_remove_slot(state, slot);
            dropped++;
            examined--; /* another key may have shifted into this slot: look again */
            continue;
        }
        slot = (slot + 1) & (table->capacity - 1);
    }
    table->cleanup_cursor = slot;
    state->expired += dropped;
    state_table_maybe_shrink(table);
    return dropped;
}

static StateCounters hash_value_counters(const ValueState *base)
{
    const HashValueState *state = (const HashValueState *)base;
    StateCounters counters;
    counters.bytes = sizeof *state + state_table_bytes(&state->table) + state->payload_bytes;
    counters.keys = state->table.count;
    counters.entries = state->table.count;
    counters.expired = state->expired;
    return counters;
}

static const ValueStateOps HASH_VALUE_OPS = {
    .destroy = hash_value_destroy,
    .find = hash_value_find,
    .insert = hash_value_insert,
    .set = hash_value_set,
    .remove = hash_value_remove,
    .scan = hash_value_scan,
    .cleanup = hash_value_cleanup,
    .counters = hash_value_counters,
};

ValueState *state_hashmap_create_value(StateStore *store, int64_t ttl_millis)
{
    StateMemory memory = state_hashmap_memory(store);
    HashValueState *state = calloc(1, sizeof *state);
    if (!state) {
        state_memory_exhausted(&memory);
        return NULL;
    }
    state->base.ops = &HASH_VALUE_OPS;
    state->base.store = store;
    state->ttl_millis = ttl_millis > 0 ? ttl_millis : 0;
    slab_init(&state->slab, &memory);
    if (!state_table_init(&state->table, (uint32_t)sizeof(ValueBlock), &memory)) {
        free(state);
        return NULL;
    }
    return &state->base;
}
