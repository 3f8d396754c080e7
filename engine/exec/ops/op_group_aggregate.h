/*
 * op_group_aggregate.h - unbounded group aggregation with retraction, after
 * Flink's GroupAggFunction: one accumulator per group key in keyed state;
 * every input row updates its group and emits the change of the group's
 * result row (+I first, then -U old / +U new, -D when the group empties).
 */
#ifndef JOINERY_EXEC_OPS_OP_GROUP_AGGREGATE_H
#define JOINERY_EXEC_OPS_OP_GROUP_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/exec/operator.h"

typedef struct GroupAggregateSpec {
    uint32_t input_field_count;
    const DataType *input_types;
    const uint32_t *group_keys;
    uint32_t group_key_count; /* 0 = global aggregate */
    const AggregateCall *calls;
    uint32_t call_count;
    bool input_is_update; /* input may carry -U/-D: MIN/MAX keep a value multiset so retraction
                             works */
    int64_t ttl_millis;   /* 0 = keep forever */
    /* > 0: Flink's MiniBatchGroupAggFunction: input rows are buffered per group key, at
       most this many, and folded per key when the batch ends (full, a watermark, a
       barrier, the end of input): one state lookup and write and at most one change per
       group per batch. 0: row by row. */
    int64_t mini_batch_size;
    /* GlobalGroupAggregate (Flink's MiniBatchGlobalGroupAggFunction): the input rows are
       a LocalGroupAggregate's partial accumulators [group key fields, row_count, then per
       call: value, count] (op_local_group_aggregate.h), group_keys the first fields,
       each call's argument its value field; they are merged into the group's accumulator
       instead of applied. Needs mini_batch_size > 0 and no DISTINCT call. */
    bool merges_partials;
} GroupAggregateSpec;

/*
 * Creates the operator (operator_init inside; one input). Output rows: the
 * group key fields, then one field per call of its result_type.
 *
 * Semantics (Flink's GroupAggFunction with generateUpdateBefore):
 * - the first row of a group emits +I; a retraction for a group not in
 *   state is ignored (counted in metrics.skipped_rows);
 * - a change emits -U old, +U new; an unchanged result emits nothing when
 *   ttl_millis is 0 (with a TTL Flink re-emits -U/+U to refresh the
 *   downstream's state, and so does joinery);
 * - when a group's row count drops to 0 its last result is retracted (-D)
 *   and the group's state dropped.
 * Results: COUNT(*)/COUNT -> BIGINT; SUM/MIN/MAX/AVG over no non-NULL value
 * -> NULL; SUM of integers wraps to the result type like Java arithmetic;
 * DECIMAL SUM/AVG raise JOINERY_ERROR_RUNTIME on overflow of the result
 * precision; integer AVG truncates; DECIMAL AVG rounds half up to the
 * result scale. DISTINCT and MIN/MAX over an updating input keep per-group
 * value counts in state; LISTAGG, FIRST_VALUE and LAST_VALUE over an
 * updating input keep the live values in arrival order (Flink's retracting
 * forms: a retraction removes the earliest equal value), refused with a
 * ttl_millis (JOINERY_ERROR_UNSUPPORTED). With merges_partials a partial accumulator counts
 * as the rows it folded: one whose row_count is below 0 for a group not in
 * state is skipped (counted in metrics.skipped_rows), and the group goes
 * once its merged row count drops to 0 or below.
 *
 * Returns NULL with diag set (JOINERY_ERROR_VALIDATE for an inconsistent
 * spec, JOINERY_ERROR_UNSUPPORTED for a result type it cannot produce,
 * JOINERY_ERROR_NO_MEMORY). The spec's arrays are borrowed for the
 * operator's life. Free with operator_close and then free(op).
 */
Operator *group_aggregate_operator_create(const GroupAggregateSpec *spec, Diag *diag);

/* The accumulator state accesses of `op` (a GroupAggregate) so far: lookups and writes
   (set or remove). Value-count accesses (DISTINCT, MIN/MAX over updates) are not in
   them. For benchmarks and tests. */
void group_aggregate_state_accesses(const Operator *op, uint64_t *reads, uint64_t *writes);

#endif
