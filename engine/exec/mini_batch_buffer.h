/*
 * mini_batch_buffer.h - the rows of one mini-batch grouped by key, for the
 * mini-batch operators (Flink's bundle of a MapBundleOperator): rows are
 * copied in, keys are visited in the order of their first row, and each
 * key's rows in arrival order, so a batch's output is deterministic.
 *
 * Ownership: the buffer owns its copies of keys and rows until
 * mini_batch_buffer_clear; views it returns are valid until then.
 */
#ifndef JOINERY_EXEC_MINI_BATCH_BUFFER_H
#define JOINERY_EXEC_MINI_BATCH_BUFFER_H

#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/row.h"

typedef struct MiniBatchKey {
    const Row *key;
    uint64_t hash;
    uint32_t first; /* index of its first row */
    uint32_t last;  /* index of its last row */
} MiniBatchKey;

typedef struct MiniBatchRow {
    const Row *row;
    uint32_t next; /* the key's next row; UINT32_MAX after its last */
} MiniBatchRow;

typedef struct MiniBatchBuffer {
    Arena arena; /* the copies */
    MiniBatchKey *keys;
    uint32_t key_count, key_capacity;
    MiniBatchRow *rows;
    uint32_t row_count, row_capacity;
    uint32_t *slots;        /* open addressing: key index + 1, 0 = empty */
    uint32_t slot_capacity; /* a power of two, at least twice key_count */
} MiniBatchBuffer;

void mini_batch_buffer_init(MiniBatchBuffer *buffer);
/* Copies `row` in under `key` (its content hash `hash`). 0, or -1 on no memory. */
int mini_batch_buffer_add(MiniBatchBuffer *buffer, const Row *key, uint64_t hash, const Row *row);
/* Forgets every row and key (memory kept for the next batch). */
void mini_batch_buffer_clear(MiniBatchBuffer *buffer);
void mini_batch_buffer_free(MiniBatchBuffer *buffer);

#endif
