/*
 * mini_batch_buffer.c - see mini_batch_buffer.h. Invariants: slots holds
 * every key once (linear probing by hash), slot_capacity >= 2 * key_count
 * (so a probe always ends at an empty slot), and each key's rows form a
 * chain first -> ... -> last through MiniBatchRow.next.
 */
#include "engine/exec/mini_batch_buffer.h"

#include <stdlib.h>
#include <string.h>

enum { MINI_BATCH_ARENA_CHUNK = 64 * 1024, MINI_BATCH_FIRST_SLOTS = 64 };

void mini_batch_buffer_init(MiniBatchBuffer *buffer)
{
    memset(buffer, 0, sizeof *buffer);
    arena_init(&buffer->arena, MINI_BATCH_ARENA_CHUNK);
}

static const Row *mini_batch_copy(MiniBatchBuffer *buffer, const Row *row)
{
    uint32_t size = row_size(row);
    void *copy = arena_alloc(&buffer->arena, size);
    if (copy)
        memcpy(copy, row, size);
    return copy;
}

/* Doubles the slot table and re-inserts every key. -1 on no memory. */
static int mini_batch_grow_slots(MiniBatchBuffer *buffer)
{
    uint32_t capacity = buffer->slot_capacity ? buffer->slot_capacity * 2 : MINI_BATCH_FIRST_SLOTS;
    uint32_t *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t k = 0; k < buffer->key_count; k++) {
        uint32_t slot = (uint32_t)buffer->keys[k].hash & (capacity - 1);
        while (slots[slot])
            slot = (slot + 1) & (capacity - 1);
        slots[slot] = k + 1;
    }
    free(buffer->slots);
    buffer->slots = slots;
    buffer->slot_capacity = capacity;
    return 0;
}

static int mini_batch_grow(void **array, uint32_t *capacity, size_t element)
{
    uint32_t grown = *capacity ? *capacity * 2 : 64;
    void *bigger = realloc(*array, grown * element);
    if (!bigger)
        return -1;
    *array = bigger;
    *capacity = grown;
    return 0;
}

int mini_batch_buffer_add(MiniBatchBuffer *buffer, const Row *key, uint64_t hash, const Row *row)
{
    if (2 * (buffer->key_count + 1) > buffer->slot_capacity && mini_batch_grow_slots(buffer) != 0)
        return -1;
    if (buffer->row_count == buffer->row_capacity &&
        mini_batch_grow((void **)&buffer->rows, &buffer->row_capacity, sizeof *buffer->rows) != 0)
        return -1;
    uint32_t mask = buffer->slot_capacity - 1;
    uint32_t slot = (uint32_t)hash & mask;
    uint32_t found = UINT32_MAX;
    for (; buffer->slots[slot]; slot = (slot + 1) & mask) {
        const MiniBatchKey *candidate = &buffer->keys[buffer->slots[slot] - 1];
        if (candidate->hash == hash && row_content_equals(candidate->key, key)) {
            found = buffer->slots[slot] - 1;
            break;
        }
    }
    const Row *row_copy = mini_batch_copy(buffer, row);
    if (!row_copy)
        return -1;
    uint32_t index = buffer->row_count;
    if (found == UINT32_MAX) {
        if (buffer->key_count == buffer->key_capacity &&
            mini_batch_grow((void **)&buffer->keys, &buffer->key_capacity, sizeof *buffer->keys) !=
                0)
            return -1;
        const Row *key_copy = mini_batch_copy(buffer, key);
        if (!key_copy)
            return -1;
        found = buffer->key_count++;
        buffer->keys[found] = (MiniBatchKey){.key = key_copy, .hash = hash, .first = index};
        buffer->slots[slot] = found + 1;
    } else {
        buffer->rows[buffer->keys[found].last].next = index;
    }
    buffer->keys[found].last = index;
    buffer->rows[index] = (MiniBatchRow){.row = row_copy, .next = UINT32_MAX};
    buffer->row_count++;
    return 0;
}

void mini_batch_buffer_clear(MiniBatchBuffer *buffer)
{
    if (buffer->slots)
        memset(buffer->slots, 0, buffer->slot_capacity * sizeof *buffer->slots);
    buffer->key_count = 0;
    buffer->row_count = 0;
    arena_reset(&buffer->arena);
}

void mini_batch_buffer_free(MiniBatchBuffer *buffer)
{
    arena_destroy(&buffer->arena);
    free(buffer->keys);
    free(buffer->rows);
    free(buffer->slots);
    memset(buffer, 0, sizeof *buffer);
}
