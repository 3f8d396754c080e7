/*
 * op_deduplicate.h - Deduplicate on a rowtime attribute (Flink's
 * RowTimeDeduplicateFunction) or on a processing-time one (Flink's
 * ProcTimeDeduplicateKeepFirstRow/KeepLastRowFunction): the first or the
 * last row per key, what `ROW_NUMBER() OVER (PARTITION BY k ORDER BY t
 * [DESC]) = 1` keeps. Input is append-only (+I).
 *
 * On processing time (processing_time) the order is arrival order and the
 * time field is not read: keep first emits a key's first row (+I) and drops
 * every later one, so its output only inserts; keep last treats each row
 * as newer than the kept one (the replacement below).
 *
 * Per row of key k at time t, with p the row kept for k (ValueState):
 * - keep last (ORDER BY rt DESC): the row replaces p when there is none or
 *   p's time <= t; keep first (ASC): when there is none or t < p's time;
 *   otherwise it is dropped (a late row of a "last" dedup changes nothing);
 * - a replacement is emitted at once: +I when k had no row, else -U(p) (only
 *   with generate_update_before) then +U(row). A consumer that needs only
 *   the update-after rows (the versioned side of a temporal join) turns
 *   update-before rows off.
 * On event time, rows with a NULL time are skipped and counted
 * (metrics.skipped_rows). State: one row per key. State TTL (ttl_millis > 0)
 * expires kept rows as the other operators' state (a write refreshes it, so
 * keep first forgets a key ttl after its first row, and the next row of it
 * is a first row again, as Flink).
 * Reusable by the Top-N/deduplication issue: nothing here is temporal-join
 * specific.
 */
#ifndef JOINERY_EXEC_OPS_OP_DEDUPLICATE_H
#define JOINERY_EXEC_OPS_OP_DEDUPLICATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"

typedef struct DeduplicateSpec {
    uint32_t field_count;
    const DataType *types;
    const uint32_t *key_fields; /* PARTITION BY; key_count may be 0 (one global key) */
    uint32_t key_count;
    uint32_t time_field;  /* the ORDER BY time attribute */
    bool processing_time; /* ORDER BY a proctime attribute: arrival order, time_field unread */
    bool keep_last;
    bool generate_update_before;
    int64_t ttl_millis; /* 0 = keep forever */
    /* mini-batch (Flink's ProcTimeMiniBatchDeduplicateKeepFirstRow / KeepLastRowFunction and
       RowTimeMiniBatchDeduplicateFunction): rows are buffered per key until a watermark
       (the MiniBatchAssigner's), this many rows, a barrier or the end of input; then, key
       by key in the order of their first row, processing time applies only the key's first
       (keep first) or last (keep last) row of the batch, event time each of its rows in
       arrival order. 0 = row by row. */
    int64_t mini_batch_size;
} DeduplicateSpec;

/* Creates the operator; the spec's arrays are borrowed. NULL with diag set on failure. */
Operator *deduplicate_operator_create(const DeduplicateSpec *spec, Diag *diag);

#endif
