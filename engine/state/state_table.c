/*
 * state_table.c - the hashmap backend's key table (see
 * state_hashmap_internal.h): growth, slot lookup by block, backward-shift
 * deletion and shrinking, shared by the multiset, value and sorted states.
 *
 * Invariants: every key sits in the probe chain that starts at its home
 * slot (hash & (capacity - 1)) with no empty slot before it; count is the
 * number of filled slots; load stays at most 3/4.
 */
#include "engine/state/state_hashmap_internal.h"

#include <stdlib.h>

bool state_table_init(StateTable *table, uint32_t key_row_offset, const StateMemory *memory)
{
    memset(table, 0, sizeof *table);
    table->memory = *memory;
    table->key_row_offset = key_row_offset;
    table->slots =
        state_large_calloc(&table->memory, STATE_TABLE_INITIAL_CAPACITY, sizeof(StateTableSlot));
    if (!table->slots)
        return false;
    table->capacity = STATE_TABLE_INITIAL_CAPACITY;
    return true;
}

void state_table_free(StateTable *table)
{
    state_large_free(&table->memory, table->slots, state_table_bytes(table));
    table->slots = NULL;
    table->capacity = 0;
    table->count = 0;
}

static bool state_table_resize(StateTable *table, uint32_t capacity)
{
    StateTableSlot *slots = state_large_calloc(&table->memory, capacity, sizeof(StateTableSlot));
    if (!slots)
        return false;
    uint32_t mask = capacity - 1;
    for (uint32_t i = 0; i < table->capacity; i++) {
        const StateTableSlot *old = &table->slots[i];
        if (!old->block)
            continue;
        uint32_t j = (uint32_t)old->hash & mask;
        while (slots[j].block)
            j = (j + 1) & mask;
        slots[j] = *old;
    }
    state_large_free(&table->memory, table->slots, state_table_bytes(table));
    table->slots = slots;
    table->capacity = capacity;
    table->cleanup_cursor = 0;
    return true;
}

bool state_table_reserve(StateTable *table)
{
    if ((uint64_t)(table->count + 1) * 4 <= (uint64_t)table->capacity * 3)
        return true;
    if (table->capacity >= (1u << 31)) {
        if (table->memory.store)
            state_store_set_error(table->memory.store, JOINERY_ERROR_NO_MEMORY,
                                  "more than 2^31 keys in one state");
        return false;
    }
    return state_table_resize(table, table->capacity * 2);
}

uint32_t state_table_slot_of(const StateTable *table, const void *block, uint64_t hash)
{
    uint32_t mask = table->capacity - 1;
    uint32_t slot = (uint32_t)hash & mask;
    while (table->slots[slot].block != block)
        slot = (slot + 1) & mask;
    return slot;
}

void state_table_remove_slot(StateTable *table, uint32_t slot)
{
    table->count--;
    uint32_t mask = table->capacity - 1;
    uint32_t hole = slot;
    uint32_t next = slot;
    for (;;) {
        next = (next + 1) & mask;
        StateTableSlot *candidate = &table->slots[next];
        if (!candidate->block)
            break;
        uint32_t home = (uint32_t)candidate->hash & mask;
        /* move it into the hole unless its home lies cyclically in (hole, next] */
        bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            table->slots[hole] = *candidate;
            hole = next;
        }
    }
    table->slots[hole].block = NULL;
    table->slots[hole].hash = 0;
}

void state_table_maybe_shrink(StateTable *table)
{
    if (table->capacity <= STATE_TABLE_INITIAL_CAPACITY ||
        (uint64_t)table->count * 8 >= table->capacity)
        return;
    uint32_t capacity = table->capacity;
    while (capacity > STATE_TABLE_INITIAL_CAPACITY && (uint64_t)table->count * 4 < capacity / 2)
        capacity /= 2;
    (void)state_table_resize(table, capacity); /* failure: keep the larger table */
}
