/*
 * op_local_group_aggregate.h - the first phase of a two-phase group
 * aggregation, after Flink's MiniBatchLocalGroupAggFunction: the rows of
 * each mini-batch are folded per group key into a partial accumulator and
 * sent on (to a GlobalGroupAggregate over a hash exchange) when the batch
 * ends. No state: what a batch folded is gone once it is sent.
 */
#ifndef JOINERY_EXEC_OPS_OP_LOCAL_GROUP_AGGREGATE_H
#define JOINERY_EXEC_OPS_OP_LOCAL_GROUP_AGGREGATE_H

#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/exec/operator.h"

typedef struct LocalGroupAggregateSpec {
    uint32_t input_field_count;
    const DataType *input_types;
    const uint32_t *group_keys;
    uint32_t group_key_count;   /* 0 = global aggregate: one partial accumulator per batch */
    const AggregateCall *calls; /* COUNT(*), COUNT, SUM, AVG, MIN, MAX; no DISTINCT */
    uint32_t call_count;
    int64_t mini_batch_size; /* > 0: rows buffered per batch (table.exec.mini-batch.size) */
} LocalGroupAggregateSpec;

/*
 * Creates the operator (operator_init inside; one input).
 *
 * A batch ends when it holds mini_batch_size rows, at a watermark (the
 * MiniBatchAssigner's batch marks; forwarded after the batch), at a barrier
 * (folded before it goes on, as Flink's prepareSnapshotPreBarrier) and at
 * the end of input. Then, for each group key in the order it first came:
 * one +I row [group key fields..., row_count BIGINT, then per call: value,
 * count BIGINT] (aggregate_accumulator.h's layout after the keys), where
 * +I/+U rows add and -U/-D rows subtract: counts may be 0 or negative and a
 * SUM / AVG keeps its partial sum (aggregate_function_subtract). A
 * retraction is never dropped here: the global phase knows whether its row
 * was counted.
 *
 * Returns NULL with diag set (JOINERY_ERROR_VALIDATE for an inconsistent
 * spec, a DISTINCT call or a kind without a merge, JOINERY_ERROR_NO_MEMORY).
 * The spec's arrays are borrowed for the operator's life. Free with
 * operator_close.
 */
Operator *local_group_aggregate_operator_create(const LocalGroupAggregateSpec *spec, Diag *diag);

#endif
