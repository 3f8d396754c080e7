/*
 * state_hashmap_sorted.c - the hashmap backend's sorted state (see
 * state.h): per key, a vector of entries kept in (time, sequence) order.
 *
 * A StateTable of key blocks; a block holds the entry count, the vector's
 * capacity and pointer, then the key row. Rows come from the state's slab.
 * Adding finds its place by binary search from the end (rows mostly arrive
 * in time order, so that is an append); a range is found by two binary
 * searches, and removing it moves the later entries down once. The
 * sequence is a per-state counter, so rows of one time keep arrival order.
 *
 * Invariants: entries[0 .. count) are ordered by (time, sequence), all
 * sequences distinct; a stored key has count > 0.
 */
#include "engine/state/state_hashmap_internal.h"

#include <stdlib.h>

typedef struct SortedBlock {
    SortedEntry *entries;
    uint32_t count;
    uint32_t capacity;
    /* the key row follows */
} SortedBlock;

typedef struct HashSortedState {
    SortedState base; /* first: a SortedState * is a HashSortedState * */
    StateTable table;
    uint64_t entry_count;
    uint64_t next_sequence;
    Slab slab;
} HashSortedState;

_Static_assert(sizeof(SortedBlock) % 8 == 0, "key rows stay 8-byte aligned");

static inline HashSortedState *hash_sorted(SortedState *state)
{
    return (HashSortedState *)state;
}

static inline const Row *sorted_block_key(const SortedBlock *block)
{
    return (const Row *)(block + 1);
}

static inline uint32_t sorted_vector_size(uint32_t capacity)
{
    return capacity * (uint32_t)sizeof(SortedEntry);
}

static void sorted_block_free(HashSortedState *state, SortedBlock *block)
{
    for (uint32_t i = 0; i < block->count; i++)
        slab_free_row(&state->slab, block->entries[i].row);
    state->entry_count -= block->count;
    slab_free(&state->slab, block->entries, sorted_vector_size(block->capacity));
    slab_free(&state->slab, block, (uint32_t)sizeof *block + row_size(sorted_block_key(block)));
}

static void hash_sorted_destroy(SortedState *base)
{
    HashSortedState *state = hash_sorted(base);
    for (uint32_t i = 0; i < state->table.capacity; i++)
        if (state->table.slots[i].block)
            sorted_block_free(state, state->table.slots[i].block);
    slab_release_all(&state->slab);
    state_table_free(&state->table);
    free(state);
}

/* The first position whose time is > `time` (upper) or >= `time` (lower). */
static uint32_t sorted_bound(const SortedBlock *block, int64_t time, bool upper)
{
    uint32_t low = 0, high = block->count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        int64_t at = block->entries[middle].time;
        if (upper ? at <= time : at < time)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

static SortedBlock *hash_sorted_find(HashSortedState *state, const Row *key, uint64_t hash,
                                     uint32_t *slot)
{
    uint32_t found = state_table_probe(&state->table, key, hash);
    if (slot)
        *slot = found;
    return state->table.slots[found].block;
}

/* Removes a key block left without entries (after a failed add). */
static void hash_sorted_drop_if_empty(HashSortedState *state, SortedBlock *block, uint64_t hash)
{
    if (block->count > 0)
        return;
    uint32_t slot = state_table_slot_of(&state->table, block, hash);
    sorted_block_free(state, block);
    state_table_remove_slot(&state->table, slot);
}

/* Makes room for one more entry in the block's vector. */
static bool hash_sorted_reserve(HashSortedState *state, SortedBlock *block)
{
    if (block->count < block->capacity)
        return true;
    uint32_t capacity = block->capacity ? block->capacity * 2 : 2;
    if (capacity > (1u << 26)) {
        state_store_set_error(state->base.store, JOINERY_ERROR_NO_MEMORY,
                              "more than 2^26 rows under one key");
        return false;
    }
    SortedEntry *entries = slab_alloc(&state->slab, sorted_vector_size(capacity));
    if (!entries)
        return false;
    if (block->count) /* a new key has no vector yet (memcpy from NULL is undefined) */
        memcpy(entries, block->entries, (size_t)block->count * sizeof *entries);
    slab_free(&state->slab, block->entries, sorted_vector_size(block->capacity));
    block->entries = entries;
    block->capacity = capacity;
    return true;
}

static int hash_sorted_add(SortedState *base, const Row *key, uint64_t hash, int64_t time,
                           const Row *row, int64_t tag)
{
    HashSortedState *state = hash_sorted(base);
    SortedBlock *block = hash_sorted_find(state, key, hash, NULL);
    if (!block) {
        if (!state_table_reserve(&state->table))
            return JOINERY_ERROR_NO_MEMORY;
        block = slab_alloc(&state->slab, (uint32_t)sizeof *block + row_size(key));
        if (!block)
            return JOINERY_ERROR_NO_MEMORY;
        memset(block, 0, sizeof *block);
        Row *key_copy = (Row *)(block + 1);
        memcpy(key_copy, key, row_size(key));
        row_set_kind(key_copy, ROW_KIND_INSERT);
        state_table_fill(&state->table, state_table_probe(&state->table, key, hash), hash, block);
    }
    Row *copy = hash_sorted_reserve(state, block) ? slab_copy_row(&state->slab, row) : NULL;
    if (!copy) {
        hash_sorted_drop_if_empty(state, block, hash);
        return JOINERY_ERROR_NO_MEMORY;
    }
    uint32_t position = block->count;
    if (position > 0 && block->entries[position - 1].time > time)
        position = sorted_bound(block, time, true);
    memmove(&block->entries[position + 1], &block->entries[position],
            (size_t)(block->count - position) * sizeof(SortedEntry));
    block->entries[position] =
        (SortedEntry){.row = copy, .time = time, .sequence = state->next_sequence++, .tag = tag};
    block->count++;
    state->entry_count++;
    return JOINERY_OK;
}

static void hash_sorted_scan_begin(SortedState *base, const Row *key, uint64_t hash,
                                   SortedScan *scan)
{
    HashSortedState *state = hash_sorted(base);
    SortedBlock *block = hash_sorted_find(state, key, hash, NULL);
    if (!block)
        return;
    uint32_t first = sorted_bound(block, scan->from, false);
    uint32_t end = scan->to == INT64_MAX ? block->count : sorted_bound(block, scan->to, true);
    if (first < end) {
        scan->span = &block->entries[first];
        scan->span_count = end - first;
    }
}

static const SortedEntry *hash_sorted_scan_refill(SortedScan *scan)
{
    (void)scan;
    return NULL; /* one span holds the whole range */
}

static int hash_sorted_set_tag(SortedScan *scan, const SortedEntry *entry, int64_t tag)
{
    (void)scan;
    ((SortedEntry *)entry)->tag = tag; /* a view is the stored entry */
    return JOINERY_OK;
}

static int hash_sorted_remove_range(SortedState *base, const Row *key, uint64_t hash, int64_t from,
                                    int64_t to, uint64_t *removed)
{
    HashSortedState *state = hash_sorted(base);
    if (removed)
        *removed = 0;
    uint32_t slot;
    SortedBlock *block = hash_sorted_find(state, key, hash, &slot);
    if (!block || from > to)
        return JOINERY_OK;
    uint32_t first = sorted_bound(block, from, false);
    uint32_t end = to == INT64_MAX ? block->count : sorted_bound(block, to, true);
    if (first >= end)
        return JOINERY_OK;
    for (uint32_t i = first; i < end; i++)
        slab_free_row(&state->slab, block->entries[i].row);
    memmove(&block->entries[first], &block->entries[end],
            (size_t)(block->count - end) * sizeof(SortedEntry));
    uint32_t gone = end - first;
    block->count -= gone;
    state->entry_count -= gone;
    if (removed)
        *removed = gone;
    if (block->count == 0) {
        sorted_block_free(state, block);
        state_table_remove_slot(&state->table, slot);
        state_table_maybe_shrink(&state->table);
    } else if (block->capacity > 4 && block->count * 4 < block->capacity) {
        uint32_t capacity = block->capacity / 2;
        SortedEntry *entries = slab_alloc(&state->slab, sorted_vector_size(capacity));
        if (entries) { /* no memory: keep the larger vector */
            memcpy(entries, block->entries, (size_t)block->count * sizeof *entries);
            slab_free(&state->slab, block->entries, sorted_vector_size(block->capacity));
            block->entries = entries;
            block->capacity = capacity;
        }
    }
    return JOINERY_OK;
}

static int hash_sorted_scan_keys(SortedState *base,
                                 int (*visit)(void *context, const Row *key, uint64_t entry_count),
                                 void *context)
{
    HashSortedState *state = hash_sorted(base);
    for (uint32_t i = 0; i < state->table.capacity; i++) {
        const SortedBlock *block = state->table.slots[i].block;
        if (!block)
            continue;
        int status = visit(context, sorted_block_key(block), block->count);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static StateCounters hash_sorted_counters(const SortedState *base)
{
    const HashSortedState *state = (const HashSortedState *)base;
    StateCounters counters;
    counters.bytes = sizeof *state + state_table_bytes(&state->table) + state->slab.chunk_bytes +
                     state->slab.heap_bytes;
    counters.keys = state->table.count;
    counters.entries = state->entry_count;
    counters.expired = 0;
    return counters;
}

static const SortedStateOps HASH_SORTED_OPS = {
    .destroy = hash_sorted_destroy,
    .add = hash_sorted_add,
    .scan_begin = hash_sorted_scan_begin,
    .scan_refill = hash_sorted_scan_refill,
    .scan_end = NULL,
    .set_tag = hash_sorted_set_tag,
    .remove_range = hash_sorted_remove_range,
    .scan_keys = hash_sorted_scan_keys,
    .counters = hash_sorted_counters,
};

SortedState *state_hashmap_create_sorted(StateStore *store)
{
    StateMemory memory = state_hashmap_memory(store);
    HashSortedState *state = calloc(1, sizeof *state);
    if (!state) {
        state_memory_exhausted(&memory);
        return NULL;
    }
    state->base.ops = &HASH_SORTED_OPS;
    state->base.store = store;
    slab_init(&state->slab, &memory);
    if (!state_table_init(&state->table, (uint32_t)sizeof(SortedBlock), &memory)) {
        free(state);
        return NULL;
    }
    return &state->base;
}
