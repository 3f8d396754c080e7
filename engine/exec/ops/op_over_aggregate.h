/*
 * op_over_aggregate.h - OverAggregate (Flink's StreamExecOverAggregate and its
 * process functions): each input row goes out with its fields followed by
 * the aggregates of its frame, the rows of its partition key up to it in
 * time-attribute order.
 *
 * Event time (RowTime*PrecedingFunction): a row is buffered in a
 * SortedState under its key at its rowtime, with an event-time timer there;
 * when the watermark passes that time the timer computes the rows of that
 * time in arrival order and emits them before the watermark goes on. A row
 * is late and dropped (counted, numLateRecordsDropped) when its time is not
 * after the watermark (UNBOUNDED frames) or after the last time its key
 * computed (bounded frames; 0 before the first, so a row at or before the
 * epoch is late there), as Flink drops them.
 * Processing time: rows are computed as they arrive (ROWS frames and
 * UNBOUNDED RANGE, as Flink's ProcTimeUnbounded / ProcTimeRowsBounded), or,
 * for RANGE n PRECEDING, buffered at their arrival millisecond and computed
 * together by a timer 1 ms later (ProcTimeRangeBoundedPrecedingFunction); at
 * the end of a bounded input the buffered ones are computed at once.
 *
 * Frames: ROWS: the row and the n rows before it (all before it when
 * UNBOUNDED); RANGE: the rows whose time is within n ms before the row's,
 * those of the same time included (rows of one time share their
 * aggregates). UNBOUNDED frames keep one accumulator per key
 * (aggregate_accumulator.h) in a ValueState with the state TTL (idle keys
 * forgotten, as Flink's cleanup does); bounded frames keep the rows still in
 * some later frame in the SortedState and recompute the frame's aggregates
 * from them (so MIN / MAX / FIRST_VALUE ... need no retraction), freeing the
 * rows' time buckets as they leave the frame; event time keeps the last
 * computed time per key in the ValueState. With a TTL, ROWS n PRECEDING
 * forgets a key idle that long (its rows and times; Flink's cleanup timer,
 * put off while event-time rows wait); RANGE n PRECEDING frees by time only,
 * as Flink's.
 *
 * Insert-only input (the planner refuses others, as Flink); insert-only
 * output. State and timers through state.h / timer_service.h, so both
 * backends give the same rows.
 */
#ifndef JOINERY_EXEC_OP_OVER_AGGREGATE_H
#define JOINERY_EXEC_OP_OVER_AGGREGATE_H

#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/exec/operator.h"

typedef struct OverAggregateSpec {
    uint32_t input_field_count;
    const DataType *input_types;    /* borrowed, input_field_count */
    const uint32_t *partition_keys; /* borrowed input fields */
    uint32_t partition_key_count;
    uint32_t time_field;        /* the ORDER BY time attribute */
    bool rowtime;               /* event time, else processing time */
    bool rows;                  /* ROWS frame, else RANGE */
    int64_t preceding;          /* rows (ROWS) or ms (RANGE) before the current row; -1 UNBOUNDED */
    const AggregateCall *calls; /* borrowed */
    uint32_t call_count;
    int64_t ttl_millis; /* UNBOUNDED and ROWS n frames: idle keys are forgotten; 0 = never */
} OverAggregateSpec;

/* Creates the operator; NULL with diag set on failure (an invalid call). */
Operator *over_aggregate_operator_create(const OverAggregateSpec *spec, Diag *diag);
/* Rows dropped as late (SHOW JOB METRICS' numLateRecordsDropped). */
uint64_t over_aggregate_operator_late_rows(const Operator *op);

#endif
