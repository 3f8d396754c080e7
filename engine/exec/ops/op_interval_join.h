/*
 * op_interval_join.h - the interval (time-bounded) join of two insert-only
 * streams, Flink's TimeIntervalJoin (RowTimeIntervalJoin over event time,
 * ProcTimeIntervalJoin over processing time).
 *
 * A left row at time l and a right row at time r join when their keys are
 * equal, left_lower <= l - r <= left_upper, and the residual condition
 * holds. With leftRelativeSize = -left_lower and rightRelativeSize =
 * left_upper (Flink's names), a left row can meet right rows in
 * [l - rightRelativeSize, l + leftRelativeSize], a right row left rows in
 * [r - leftRelativeSize, r + rightRelativeSize].
 *
 * Operator time: the merged input watermark (event time; 0 before it
 * passes 0, as Flink) or the clock (processing time, where a row's time is
 * the clock when it arrives). Per arriving row (side S, other side O):
 *  - it joins O's rows of its key within its range; outer O rows it
 *    matches are marked matched;
 *  - O's rows with time <= operator time - O's relative size - 1 can no
 *    longer match anything that is not late: they are removed, an
 *    unmatched outer one emitted NULL-padded;
 *  - it is kept only while O can still bring matches (O's operator time <
 *    the top of its range); otherwise it is late: counted per input, not
 *    kept, and if S is outer and it matched nothing, emitted padded at once.
 * Kept rows are freed by timers (event time or processing time, per key):
 * the first row kept of a side registers one at its time + the side's
 * relative size + min_cleanup_interval + 1 (Flink's formula;
 * table.exec.interval-join.min-cleanup-interval, 0 by default since Flink
 * 1.18, delays it); when it fires the side's expired rows go (padded if
 * outer and unmatched) and, if rows remain, the next timer is registered
 * from the earliest of them. The final watermark (+infinity) frees all.
 * Rows whose key has a NULL (not null-safe) match nothing: an outer one is
 * kept and padded on expiry, an inner one dropped. A NULL event time
 * matches nothing (an outer row is padded at once).
 *
 * A window whose upper bound is below its lower bound matches nothing:
 * rows are never kept and outer rows are padded at once (Flink's
 * negative-window plan).
 *
 * Output: left fields then right fields, all +I. The event-time output
 * watermark is held back by max(leftRelativeSize, rightRelativeSize)
 * (Flink's KeyedCoProcessOperatorWithWatermarkDelay), so rows emitted on
 * expiry are never behind it; +infinity passes unchanged. Input rows must
 * be +I (the planner guarantees it); another kind fails the job.
 *
 * Differences from Flink, all in what is deterministic: Flink skips the
 * look-up of a row whose whole range lies below an operator-wide
 * expiration time and re-registers a side's timer only when its earliest
 * remaining time is > 0; here a row always looks up its range (the state
 * is ordered by time) and rows at times <= 0 are freed like any other.
 */
#ifndef JOINERY_EXEC_OPS_OP_INTERVAL_JOIN_H
#define JOINERY_EXEC_OPS_OP_INTERVAL_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"
#include "engine/plan/join_type.h"

typedef struct IntervalJoinOperatorSpec {
    JoinType join_type; /* INNER, LEFT, RIGHT or FULL */
    uint32_t left_field_count, right_field_count;
    const DataType *left_types, *right_types;
    /* equi keys (0: one global key, the planner runs it at parallelism 1) */
    const uint32_t *left_keys, *right_keys;
    uint32_t key_count;
    const bool *null_safe_keys;                 /* per key: IS NOT DISTINCT FROM; NULL = none */
    const Expr *residual;                       /* over left then right fields; NULL when none */
    bool rowtime;                               /* event time; false: processing time */
    int64_t left_lower_bound, left_upper_bound; /* ms: left_lower <= l - r <= left_upper */
    uint32_t left_time_field, right_time_field; /* event time: the inputs' time fields */
    int64_t min_cleanup_interval; /* table.exec.interval-join.min-cleanup-interval (ms, >= 0) */
} IntervalJoinOperatorSpec;

/* Per-input figures (SHOW JOB METRICS). */
typedef struct IntervalJoinSideMetrics {
    uint64_t rows;  /* rows kept now */
    uint64_t keys;  /* keys with rows kept */
    uint64_t bytes; /* state bytes of the side's rows */
    uint64_t late;  /* rows not kept: the other input's time had passed their range */
} IntervalJoinSideMetrics;

/*
 * Creates the operator (operator_init inside); input 0 = left, 1 = right.
 * The spec's arrays and the residual are borrowed for the operator's life.
 * NULL with diag set on failure (JOINERY_ERROR_NO_MEMORY, or
 * JOINERY_ERROR_VALIDATE for an inconsistent spec). Free with
 * operator_close.
 *
 * State (created in open from the task's store, any backend): per side a
 * SortedState of rows by key and time (tag: matched), and one ValueState
 * of the cleanup timer time registered per key and side. Snapshot: left
 * rows, right rows, timer times (the framework adds the timers).
 */
Operator *interval_join_operator_create(const IntervalJoinOperatorSpec *spec, Diag *diag);

/* The figures of side `side` (0 left, 1 right); zeros when `op` is no interval join. */
IntervalJoinSideMetrics interval_join_operator_side_metrics(const Operator *op, uint32_t side);

#endif
