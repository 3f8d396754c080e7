/*
 * row_batch.h - a batch of rows, the unit operators, sources and sinks hand
 * each other (exec/operator.h, connector/connector.h).
 *
 * Invariants: rows[0..count) point to rows owned by whoever filled the batch
 * (a producer's output arena, a source's per-poll arena); they are valid only
 * during the call that receives the batch, so a receiver that keeps a row
 * copies it. count <= capacity; operators' batches hold at most
 * ROW_BATCH_CAPACITY rows.
 */
#ifndef JOINERY_BASE_ROW_BATCH_H
#define JOINERY_BASE_ROW_BATCH_H

#include <stdint.h>

#include "engine/base/row.h"

enum { ROW_BATCH_CAPACITY = 1024 };

typedef struct RowBatch {
    Row **rows;
    uint32_t count;
    uint32_t capacity;
} RowBatch;

#endif
