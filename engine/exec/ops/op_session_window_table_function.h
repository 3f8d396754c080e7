/*
 * op_session_window_table_function.h - the SESSION window table function,
 * Flink's UnalignedWindowTableFunctionOperator: a session's windows are
 * known only once merged, so rows are kept per partition key until the
 * watermark passes the end of their session, then go out, in arrival
 * order, with window_start, window_end and window_time (window_end - 1 ms)
 * appended.
 *
 * Semantics (as Flink's operator): a row's window is [time, time + gap);
 * it merges every session of its key it intersects, ends included (so
 * sessions that touch become one; exec/window/window_assigner.h). A
 * session fires when the watermark reaches its end - 1; its rows are then
 * emitted and its state freed. A row whose session (after merging) would
 * end at or before watermark + 1 is late: dropped and counted
 * (session_window_operator_late_rows, Flink's numLateRecordsDropped). A
 * row whose time is NULL is dropped and counted in metrics.skipped_rows.
 * Rows are +I; the output is append-only.
 *
 * State, per partition key (the empty key without PARTITION BY): a
 * ValueState row [arrival counter, start0, end0, start1, end1, ...] with
 * the key's open sessions, and a SortedState of its rows by time (tag: the
 * arrival counter); an event-time timer at each session's end - 1.
 * Snapshot: the value state, then the sorted state (the framework adds the
 * timers).
 */
#ifndef JOINERY_EXEC_OPS_OP_SESSION_WINDOW_TABLE_FUNCTION_H
#define JOINERY_EXEC_OPS_OP_SESSION_WINDOW_TABLE_FUNCTION_H

#include "engine/base/type.h"
#include "engine/exec/operator.h"

typedef struct SessionWindowSpec {
    int64_t gap_millis; /* > 0 */
    uint32_t time_field;
    uint32_t input_field_count;
    const DataType *input_types;    /* borrowed for the operator's life */
    const uint32_t *partition_keys; /* input fields; may be 0 of them */
    uint32_t partition_key_count;
} SessionWindowSpec;

/* NULL with diag set on no memory or a bad spec. Free with operator_close. */
Operator *session_window_operator_create(const SessionWindowSpec *spec, Diag *diag);

/* Rows dropped as late; 0 when `op` is not a session window operator. */
uint64_t session_window_operator_late_rows(const Operator *op);

#endif
