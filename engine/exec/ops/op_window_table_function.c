/*
 * op_window_table_function.c - the window table function operator (see
 * op_window_table_function.h): assigns windows with window_assign and
 * emits the row with the bounds of each, in the assigner's order.
 */
#include "engine/exec/ops/op_window_table_function.h"

#include <stdlib.h>

#include "engine/exec/window/window_assigner.h"

typedef struct WindowTableFunctionOperator {
    Operator base;
    WindowTableFunctionSpec spec;
    WindowBounds *windows; /* window_assign_max of them */
    uint32_t window_capacity;
    bool *variable_length; /* per input field */
    RowBuilder builder;
} WindowTableFunctionOperator;

static int window_table_function_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    WindowTableFunctionOperator *op = self->impl;
    const WindowTableFunctionSpec *spec = &op->spec;
    uint32_t fields = spec->input_field_count;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        if (row_is_null(row, spec->time_field)) {
            self->metrics.skipped_rows++;
            continue;
        }
        int64_t time = row_get_int64(row, spec->time_field);
        uint32_t count = window_assign(&spec->window, time, op->windows, op->window_capacity);
        for (uint32_t w = 0; w < count; w++) {
            row_builder_begin(&op->builder, fields + 3, row_kind(row));
            for (uint32_t f = 0; f < fields; f++)
                row_builder_copy_field(&op->builder, f, row, f, op->variable_length[f]);
            row_builder_set_int64(&op->builder, fields, op->windows[w].start);
            row_builder_set_int64(&op->builder, fields + 1, op->windows[w].end);
            row_builder_set_int64(&op->builder, fields + 2, op->windows[w].end - 1);
            Row *out = row_builder_finish(&op->builder);
            if (!out)
                return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
            int status = operator_emit(self, out, row_kind(row));
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

static void window_table_function_close(Operator *self)
{
    WindowTableFunctionOperator *op = self->impl;
    row_builder_free(&op->builder);
    free(op->windows);
    free(op->variable_length);
    free(op);
}

static const OperatorVtable WINDOW_TABLE_FUNCTION_VTABLE = {
    .process = window_table_function_process,
    .close = window_table_function_close,
};

Operator *window_table_function_operator_create(const WindowTableFunctionSpec *spec, Diag *diag)
{
    uint32_t capacity = window_assign_max(&spec->window);
    if (capacity == 0) {
        diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                   "WindowTableFunction assigns TUMBLE, HOP and CUMULATE windows only");
        return NULL;
    }
    WindowTableFunctionOperator *op = calloc(1, sizeof *op);
    if (op) {
        op->windows = calloc(capacity, sizeof *op->windows);
        op->variable_length = calloc(spec->input_field_count + 1, sizeof(bool));
    }
    if (!op || !op->windows || !op->variable_length) {
        if (op) {
            free(op->windows);
            free(op->variable_length);
        }
        free(op);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    op->spec = *spec;
    op->window_capacity = capacity;
    for (uint32_t f = 0; f < spec->input_field_count; f++)
        op->variable_length[f] = type_is_variable_length(spec->input_types[f].id);
    row_builder_init(&op->builder);
    operator_init(&op->base, &WINDOW_TABLE_FUNCTION_VTABLE, "WindowTableFunction", 1, op);
    return &op->base;
}
