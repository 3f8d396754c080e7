/*
 * op_window_join.h - the window join, Flink's WindowJoinOperator: two
 * windowed inputs joined per (join key, window); a window's rows are
 * joined and emitted when the watermark passes its end, and its state is
 * released then.
 *
 * Semantics (as Flink's operator):
 * - A row arriving when its window has fired already (watermark >=
 *   window_end - 1, Flink's isWindowFired) is late: dropped and counted per
 *   side (window_join_operator_late_rows; Flink's leftNumLateRecordsDropped
 *   / rightNumLateRecordsDropped). So is a row whose window_end is NULL.
 * - Otherwise it is kept in its side's state under its key at its
 *   window_end, and an event-time timer (key, window_end - 1) is set.
 * - When the timer fires: the window's left rows and right rows (each in
 *   arrival order) are joined: INNER emits every matching pair, left rows
 *   outer; LEFT also each left row without a match padded with NULLs right
 *   after its pairs; RIGHT likewise for right rows (looping over right
 *   rows); FULL emits the left rows' pairs and padded left rows, then every
 *   right row that matched nothing, padded; SEMI / ANTI emit each left row
 *   once if it has a match / none. Then both sides' rows of the window go.
 * - A pair matches when the equi keys are equal (a NULL key field that is
 *   not null-safe matches nothing) and the residual is TRUE.
 * Output is append-only (+I); input rows must be +I (the planner ensures
 * it). State: a SortedState per side (rows by window end) on the task's
 * store, any backend; snapshot: left then right (the framework adds the
 * timers).
 */
#ifndef JOINERY_EXEC_OPS_OP_WINDOW_JOIN_H
#define JOINERY_EXEC_OPS_OP_WINDOW_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"
#include "engine/plan/join_type.h"

typedef struct WindowJoinOperatorSpec {
    JoinType join_type; /* INNER, LEFT, RIGHT, FULL, SEMI, ANTI */
    uint32_t left_field_count, right_field_count;
    const DataType *left_types, *right_types;
    const uint32_t *left_keys, *right_keys; /* equi keys; may be 0 of them */
    uint32_t key_count;
    const bool *null_safe_keys;                 /* per key: IS NOT DISTINCT FROM; NULL = none */
    const Expr *residual;                       /* over left ++ right fields; NULL when none */
    uint32_t left_window_end, right_window_end; /* each input's window_end field */
} WindowJoinOperatorSpec;

/*
 * Creates the operator (input 0 = left, 1 = right). Output: left ++ right
 * fields (NULL-padded for outer rows); SEMI / ANTI: left fields only. The
 * spec's arrays and residual are borrowed for the operator's life. NULL
 * with diag set on no memory or an inconsistent spec.
 */
Operator *window_join_operator_create(const WindowJoinOperatorSpec *spec, Diag *diag);

/* Rows dropped as late on side 0 (left) or 1 (right); 0 when `op` is not a window join. */
uint64_t window_join_operator_late_rows(const Operator *op, uint32_t side);

#endif
