/*
 * async_slots.c - an operator's asynchronous request slots (async_slots.h).
 */
#include "engine/exec/async_slots.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/diag.h"

int async_slots_init(AsyncSlots *slots, uint32_t capacity)
{
    memset(slots, 0, sizeof *slots);
    if (capacity == 0)
        capacity = 1;
    slots->order = calloc(capacity, sizeof *slots->order);
    slots->free_slots = calloc(capacity, sizeof *slots->free_slots);
    if (!slots->order || !slots->free_slots) {
        async_slots_free(slots);
        return JOINERY_ERROR_NO_MEMORY;
    }
    slots->capacity = capacity;
    for (uint32_t s = 0; s < capacity; s++)
        slots->free_slots[slots->free_count++] = capacity - 1 - s;
    return JOINERY_OK;
}

void async_slots_free(AsyncSlots *slots)
{
    free(slots->order);
    free(slots->free_slots);
    memset(slots, 0, sizeof *slots);
}

uint32_t async_slots_acquire(AsyncSlots *slots, uint64_t *request_id)
{
    uint32_t slot = slots->free_slots[--slots->free_count];
    slots->used++;
    slots->order[(slots->order_head + slots->used - 1) % slots->capacity] = slot;
    *request_id = ((uint64_t)++slots->generation << 32) | slot;
    return slot;
}

bool async_slots_index(const AsyncSlots *slots, uint64_t request_id, uint32_t *slot)
{
    uint32_t index = (uint32_t)(request_id & 0xffffffffu);
    if (index >= slots->capacity)
        return false;
    *slot = index;
    return true;
}

bool async_slots_oldest(const AsyncSlots *slots, uint32_t *slot)
{
    if (slots->used == 0)
        return false;
    *slot = slots->order[slots->order_head];
    return true;
}

void async_slots_pop_oldest(AsyncSlots *slots)
{
    slots->order_head = (slots->order_head + 1) % slots->capacity;
}

void async_slots_release(AsyncSlots *slots, uint32_t slot)
{
    slots->free_slots[slots->free_count++] = slot;
    slots->used--;
}
