/*
 * mini_batch_fold.h - the fold of a mini-batch join (Flink 1.19's
 * MiniBatchStreamingJoinOperator, FLIP-415), shared by Join and MultiJoin:
 * over one input's buffered rows, each keyed by its own content, a
 * retraction (-U/-D) cancels the latest earlier accumulation (+I/+U) of the
 * same row content in the batch that no other retraction cancelled; both
 * then never reach the operator's state. Running such a pair would store
 * and remove the row and emit each of its joined (or padded) rows and then
 * their retraction, so the materialized output and the state are the same
 * without them. A retraction with nothing to cancel (of a row stored by an
 * earlier batch) and every accumulation left survive, in arrival order.
 *
 * Not for upsert inputs: an upsert row replaces the stored row of its key,
 * so cancelling it against a later tombstone would lose that retraction.
 *
 * Ownership: the fold owns its scratch arrays (kept between batches); the
 * survivors it hands out point into the buffer's copies and are valid until
 * mini_batch_buffer_clear.
 */
#ifndef JOINERY_EXEC_MINI_BATCH_FOLD_H
#define JOINERY_EXEC_MINI_BATCH_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/row_batch.h"
#include "engine/exec/mini_batch_buffer.h"

typedef struct MiniBatchFold {
    bool *folded;          /* per buffered row: cancelled */
    uint32_t *open_rows;   /* a key's accumulations not cancelled yet (a stack) */
    const Row **survivors; /* the rows that reach the state, in arrival order */
    uint32_t capacity;     /* of the three arrays, in rows */
    uint64_t folded_rows;  /* rows cancelled so far, both of each pair */
} MiniBatchFold;

/*
 * Folds `buffer` (its rows keyed by their content) and sets `survivors` to
 * what is left, in arrival order (rows borrowed from the buffer; the batch's
 * array belongs to the fold). JOINERY_OK, or JOINERY_ERROR_NO_MEMORY.
 */
int mini_batch_fold_rows(MiniBatchFold *fold, const MiniBatchBuffer *buffer, RowBatch *survivors);
void mini_batch_fold_free(MiniBatchFold *fold);

#endif
