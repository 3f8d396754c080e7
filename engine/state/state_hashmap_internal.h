/*
 * state_hashmap_internal.h - what the hashmap backend's files share: the
 * store, memory accounting against the job's budget, the slab allocator
 * (state_slab.c) and the open-addressing key table (state_table.c).
 * Nothing outside engine/state/state_hashmap_*.c, state_slab.c and
 * state_table.c includes this header.
 */
#ifndef JOINERY_STATE_HASHMAP_INTERNAL_H
#define JOINERY_STATE_HASHMAP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "engine/state/state.h"

enum {
    SLAB_FINE_LIMIT = 256, /* size classes every 8 bytes up to here */
    SLAB_MAX_BLOCK = 1024, /* size classes every 32 bytes up to here; larger: malloc */
    SLAB_CLASS_COUNT = SLAB_FINE_LIMIT / 8 + (SLAB_MAX_BLOCK - SLAB_FINE_LIMIT) / 32,
    HUGE_PAGE_SIZE = 2 << 20, /* also the largest slab chunk */
    STATE_TABLE_INITIAL_CAPACITY = 16,
};

/* ---- memory accounting ------------------------------------------------- */

/*
 * Where a hashmap state's memory is counted: the store (for the error
 * text) and the job's budget (may be NULL). Every allocation of state
 * memory beyond small bookkeeping goes through state_memory_take first.
 */
typedef struct StateMemory {
    StateStore *store;
    StateBudget *budget;
} StateMemory;

/*
 * Reserves `bytes` in the budget: false (and the store's error set) when
 * the budget would pass its limit.
 */
bool state_memory_take(const StateMemory *memory, uint64_t bytes);
/* Gives back what state_memory_take reserved. */
void state_memory_give(const StateMemory *memory, uint64_t bytes);
/* Sets the store's error to "out of memory" (an allocation failed). */
void state_memory_exhausted(const StateMemory *memory);

/*
 * `size` bytes of state memory, counted in the budget; sizes of a huge page
 * or more are huge-page aligned and advised. NULL when memory or budget is
 * exhausted (the store says which). state_large_free gives it back.
 */
void *state_large_alloc(const StateMemory *memory, size_t size);
/* Zeroed state_large_alloc of count * size bytes. */
void *state_large_calloc(const StateMemory *memory, size_t count, size_t size);
void state_large_free(const StateMemory *memory, void *block, size_t size);

/* ---- slab -------------------------------------------------------------- */

typedef struct SlabChunk SlabChunk;

typedef struct SlabClass {
    void *free_list; /* freed blocks, linked through their first word */
    char *bump;      /* unused tail of the newest chunk */
    char *bump_end;
    SlabChunk *chunks;
    uint64_t live; /* blocks handed out and not freed */
    uint32_t next_chunk_size;
} SlabClass;

/*
 * A per-state size-class allocator: no malloc per stored row, no malloc
 * bookkeeping; freed blocks are reused by their class; a class whose last
 * block is freed gives its chunks back. Blocks above SLAB_MAX_BLOCK are
 * state_large_alloc'd.
 */
typedef struct Slab {
    StateMemory memory;
    SlabClass classes[SLAB_CLASS_COUNT];
    uint64_t chunk_bytes; /* all chunks of all classes */
    uint64_t heap_bytes;  /* blocks above SLAB_MAX_BLOCK */
} Slab;

void slab_init(Slab *slab, const StateMemory *memory);
/* `size` bytes, 8-byte aligned; NULL when memory or budget is exhausted. */
void *slab_alloc(Slab *slab, uint32_t size);
/* Gives back a block of `size` bytes (the size it was allocated with). */
void slab_free(Slab *slab, void *block, uint32_t size);
/*
 * Resizes a block above SLAB_MAX_BLOCK that stays above it (realloc);
 * NULL on failure, the old block kept.
 */
void *slab_realloc_large(Slab *slab, void *block, uint32_t old_size, uint32_t size);
/* Frees every chunk; blocks above SLAB_MAX_BLOCK are the caller's to slab_free. */
void slab_release_all(Slab *slab);
/* A copy of `row` with kind +I in slab memory; NULL when memory is exhausted. */
Row *slab_copy_row(Slab *slab, const Row *row);

static inline void slab_free_row(Slab *slab, const Row *row)
{
    slab_free(slab, (void *)row, row_size(row));
}

/* ---- key table --------------------------------------------------------- */

typedef struct StateTableSlot {
    uint64_t hash; /* the key's row_content_hash */
    void *block;   /* NULL: empty slot */
} StateTableSlot;

/*
 * An open-addressing table of key blocks: linear probing over 16-byte
 * slots {hash, block}, capacity a power of two, load at most 3/4,
 * backward-shift deletion (no tombstones), shrinking when 1/8 full. A
 * block holds its key row at key_row_offset; a probe compares full hashes
 * in the slot array and touches a block only on a hash match.
 */
typedef struct StateTable {
    StateTableSlot *slots;
    uint32_t capacity;
    uint32_t count;
    uint32_t key_row_offset;
    uint32_t cleanup_cursor; /* where the next incremental cleanup starts */
    StateMemory memory;
} StateTable;

/* An empty table; false when memory or budget is exhausted. */
bool state_table_init(StateTable *table, uint32_t key_row_offset, const StateMemory *memory);
/* Frees the slot array (not the blocks). */
void state_table_free(StateTable *table);

/* row_content_equals, inlined: small rows compare word by word. */
static inline bool state_row_equals(const Row *a, const Row *b)
{
    if (a->header.size != b->header.size || a->header.field_count != b->header.field_count)
        return false;
    uint32_t words = (a->header.size - (uint32_t)sizeof(RowHeader)) / 8;
    if (words > 8)
        return memcmp(a->words, b->words, (size_t)words * 8) == 0;
    for (uint32_t i = 0; i < words; i++)
        if (a->words[i] != b->words[i])
            return false;
    return true;
}

static inline const Row *state_table_key_row(const StateTable *table, const void *block)
{
    return (const Row *)((const char *)block + table->key_row_offset);
}

/* Slot of the key, or of the empty slot where it would go. */
static inline uint32_t state_table_probe(const StateTable *table, const Row *key, uint64_t hash)
{
    uint32_t mask = table->capacity - 1;
    uint32_t i = (uint32_t)hash & mask;
    for (;;) {
        const StateTableSlot *slot = &table->slots[i];
        if (!slot->block ||
            (slot->hash == hash && state_row_equals(state_table_key_row(table, slot->block), key)))
            return i;
        i = (i + 1) & mask;
    }
}

/* Makes room for one more key (grows at 3/4 load); false when memory or budget is exhausted. */
bool state_table_reserve(StateTable *table);
/* Puts `block` into the empty slot `slot` found by state_table_probe. */
static inline void state_table_fill(StateTable *table, uint32_t slot, uint64_t hash, void *block)
{
    table->slots[slot].hash = hash;
    table->slots[slot].block = block;
    table->count++;
}
/* The slot holding `block` (whose key hashes to `hash`). */
uint32_t state_table_slot_of(const StateTable *table, const void *block, uint64_t hash);
/*
 * Empties `slot` (its block already freed by the caller) with backward
 * shift; another key may move into it. No shrinking.
 */
void state_table_remove_slot(StateTable *table, uint32_t slot);
/* Shrinks the slot array when it is at most 1/8 full (failure keeps it). */
void state_table_maybe_shrink(StateTable *table);
/* Bytes of the slot array. */
static inline uint64_t state_table_bytes(const StateTable *table)
{
    return (uint64_t)table->capacity * sizeof(StateTableSlot);
}

/* ---- the backend's states ---------------------------------------------- */

MultisetState *state_hashmap_create_multiset(StateStore *store, uint32_t part_count,
                                             const int64_t *ttl_millis);
ValueState *state_hashmap_create_value(StateStore *store, int64_t ttl_millis);
SortedState *state_hashmap_create_sorted(StateStore *store);
TimerQueue *state_hashmap_create_timer_queue(StateStore *store);

/* The memory accounting of a state created from `store`. */
StateMemory state_hashmap_memory(StateStore *store);

#endif
