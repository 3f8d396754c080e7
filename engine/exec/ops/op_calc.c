/*
 * op_calc.c - Calc: evaluates the condition, then the projections, per row.
 * The row kind passes through unchanged. Projections that are plain input
 * references are copied slot by slot without evaluation. CURRENT_WATERMARK
 * evaluates to the watermark the Calc has received (NULL before the first).
 */
#include "engine/exec/ops/op_calc.h"

#include <stdlib.h>

#include "engine/exec/expr_eval.h"

typedef struct CalcOperator {
    Operator base;
    CalcSpec spec;
    RowBuilder builder;
    Arena scratch;
    Diag *diag;
} CalcOperator;

static int calc_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    CalcOperator *calc = self->impl;
    ExprEvalContext eval = {.arena = &calc->scratch,
                            .diag = self->context->diag,
                            .now_millis = operator_now_millis(self)};
    /* CURRENT_WATERMARK sees the watermark this Calc has received so far */
    if (self->current_watermark != INT64_MIN) {
        eval.has_watermark = true;
        eval.watermark = self->current_watermark;
    }
    const CalcSpec *spec = &calc->spec;
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < batch->count && status == JOINERY_OK; r++) {
        const Row *row = batch->rows[r];
        if (spec->condition &&
            !expr_eval_predicate(spec->condition, row, spec->input_field_count, NULL, &eval)) {
            if (eval.failed)
                return self->context->diag->status;
            continue;
        }
        row_builder_begin(&calc->builder, spec->project_count, row_kind(row));
        for (uint32_t i = 0; i < spec->project_count; i++) {
            const Expr *expr = spec->projects[i];
            if (expr->kind == EXPR_INPUT_REF) {
                row_builder_copy_field(&calc->builder, i, row, expr->input_index,
                                       type_is_variable_length(spec->output_types[i].id));
                continue;
            }
            Value value = expr_eval(expr, row, spec->input_field_count, NULL, &eval);
            if (eval.failed)
                return self->context->diag->status;
            value_to_builder(&calc->builder, i, spec->output_types[i], value);
        }
        Row *out = row_builder_finish(&calc->builder);
        if (!out)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        status = operator_emit(self, out, row_kind(row));
    }
    arena_reset(&calc->scratch);
    return status;
}

static void calc_close(Operator *self)
{
    CalcOperator *calc = self->impl;
    row_builder_free(&calc->builder);
    arena_destroy(&calc->scratch);
    free(calc);
}

static const OperatorVtable CALC_VTABLE = {
    .process = calc_process,
    .close = calc_close,
};

Operator *calc_operator_create(const CalcSpec *spec, Diag *diag)
{
    CalcOperator *calc = calloc(1, sizeof *calc);
    if (!calc) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    calc->spec = *spec;
    row_builder_init(&calc->builder);
    arena_init(&calc->scratch, 16 * 1024);
    operator_init(&calc->base, &CALC_VTABLE, "Calc", 1, calc);
    return &calc->base;
}
