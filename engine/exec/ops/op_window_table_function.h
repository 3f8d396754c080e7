/*
 * op_window_table_function.h - WindowTableFunction, Flink's
 * AlignedWindowTableFunctionOperator: every input row goes out once per
 * window its time attribute falls into (TUMBLE: one, HOP: size/slide,
 * CUMULATE: the steps up to the max size), with window_start, window_end
 * and window_time (window_end - 1 ms) appended. Stateless.
 *
 * Rows are +I (the planner refuses updating input). A row whose time is
 * NULL is dropped and counted (metrics.skipped_rows; Flink's
 * numNullRowTimeRecordsDropped). No row is late here: lateness is decided
 * by the operator that consumes the windows (the window join).
 */
#ifndef JOINERY_EXEC_OPS_OP_WINDOW_TABLE_FUNCTION_H
#define JOINERY_EXEC_OPS_OP_WINDOW_TABLE_FUNCTION_H

#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/window_spec.h"

typedef struct WindowTableFunctionSpec {
    WindowSpec window; /* TUMBLE, HOP or CUMULATE */
    uint32_t time_field;
    uint32_t input_field_count;
    const DataType *input_types; /* borrowed for the operator's life */
} WindowTableFunctionSpec;

/* NULL with diag set on no memory or a SESSION spec. Free with operator_close. */
Operator *window_table_function_operator_create(const WindowTableFunctionSpec *spec, Diag *diag);

#endif
