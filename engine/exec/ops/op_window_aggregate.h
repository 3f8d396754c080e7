/*
 * op_window_aggregate.h - window aggregation, Flink's WindowAggregate over
 * a window table function folded into it (Flink's
 * SlicingWindowOperator, one phase): rows are aggregated per (group key,
 * window) and one final row per window and key is emitted when the
 * watermark passes the window's end; the window's state is released then.
 *
 * Semantics (as Flink's operator):
 * - Each row's windows come from its time field under the spec (TUMBLE,
 *   HOP, CUMULATE; exec/window/window_assigner.h); over SESSION windows
 *   (windows_from_fields) a row's one window is its window_start and
 *   window_end fields, set by the session window table function below. A window that has fired
 *   (watermark >= window_end - 1, Flink's isWindowFired) takes no more
 *   rows; the row still goes to its other windows (a HOP or CUMULATE
 *   window ending later), as Flink's WindowAggregateTestPrograms expect. A
 *   row no window takes is late: dropped and counted
 *   (window_aggregate_operator_late_rows, Flink's numLateRecordsDropped);
 *   so is a row whose time is NULL.
 * - A window's event-time timer is (state key, window_end - 1); when it
 *   fires the row group key ++ results ++ window_start, window_end
 *   [, window_time = window_end - 1] is emitted as +I, and the window's
 *   accumulator removed. State is never subject to table.exec.state.ttl.
 * - Aggregates: the shared functions of exec/aggregate/aggregate_function.h;
 *   a DISTINCT call sees each non-NULL value once per window (Flink's
 *   distinct MapView per window); input rows must be +I.
 * State: a ValueState, [window_start, window_end, group keys...] ->
 * [row_count, then per call: value, count], and with DISTINCT calls a
 * MultisetState under the same key, a part per DISTINCT call holding its
 * values with their counts (exec/aggregate/distinct_values.h), both released
 * when the window fires; on the task's store, any backend; snapshot: both
 * states (the framework adds the timers).
 */
#ifndef JOINERY_EXEC_OPS_OP_WINDOW_AGGREGATE_H
#define JOINERY_EXEC_OPS_OP_WINDOW_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/aggregate/aggregate_function.h"
#include "engine/exec/operator.h"
#include "engine/plan/window_spec.h"

typedef struct WindowAggregateOperatorSpec {
    uint32_t input_field_count;
    const DataType *input_types;
    const uint32_t *group_keys; /* input fields; may be 0 of them */
    uint32_t group_key_count;
    const AggregateCall *calls;
    uint32_t call_count;
    WindowSpec window;      /* TUMBLE, HOP or CUMULATE */
    uint32_t time_field;    /* the input's rowtime field the windows are of */
    bool emits_window_time; /* a third window field, window_time */
    /* SESSION (the window table function below merged the sessions): a row's one window
       is [its window_start_field, its window_end_field) instead of assigned from its time */
    bool windows_from_fields;
    uint32_t window_start_field, window_end_field;
} WindowAggregateOperatorSpec;

/*
 * Creates the operator (one input). Output: the group key fields, one field
 * per call of its result_type, window_start, window_end (BIGINT millis as
 * timestamps are), and window_time when asked. The spec's arrays are
 * borrowed for the operator's life. NULL with diag set on no memory, an
 * inconsistent spec (JOINERY_ERROR_VALIDATE), more than 64 DISTINCT calls or
 * a SESSION window without windows_from_fields (JOINERY_ERROR_UNSUPPORTED).
 */
Operator *window_aggregate_operator_create(const WindowAggregateOperatorSpec *spec, Diag *diag);

/* Rows dropped as late; 0 when `op` is not a window aggregate. */
uint64_t window_aggregate_operator_late_rows(const Operator *op);

#endif
