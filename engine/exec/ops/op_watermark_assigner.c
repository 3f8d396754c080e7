/*
 * op_watermark_assigner.c - see op_watermark_assigner.h. Rows pass through
 * unchanged; a row whose watermark expression is NULL does not move the
 * watermark. At end of input the watermark jumps to +infinity (as Flink's
 * bounded sources do), releasing any event-time state downstream. Status:
 * ACTIVE is announced before the rows that end an idle period, IDLE by the
 * idle timer; the watermark never moves backwards across either.
 *
 * The idle timer: one processing-time timer at a time (idle_timer, 0 when
 * none). Rows only record their time; when the timer fires before the
 * timeout has passed since the last row, it is registered again at
 * last row + timeout, so a busy stream costs one timer per timeout.
 */
#include "engine/exec/ops/op_watermark_assigner.h"

#include <stdlib.h>

#include "engine/exec/expr_eval.h"

typedef struct WatermarkAssigner {
    Operator base;
    const Expr *watermark;
    uint32_t field_count;
    int64_t max_watermark;
    int64_t emitted;
    int64_t idle_timeout_millis; /* 0: never idle */
    int64_t last_row_millis;     /* processing time of the last row (of open before one) */
    int64_t idle_timer;          /* when the pending idle timer fires; 0: none pending */
    Arena scratch;
} WatermarkAssigner;

/* Registers the idle timer at the last row + the timeout unless one is pending. */
static int watermark_assigner_arm(Operator *self)
{
    WatermarkAssigner *assigner = self->impl;
    if (assigner->idle_timeout_millis <= 0 || assigner->idle_timer)
        return JOINERY_OK;
    assigner->idle_timer = assigner->last_row_millis + assigner->idle_timeout_millis;
    return operator_register_timer(self, TIMER_PROCESSING_TIME, assigner->idle_timer, NULL);
}

static int watermark_assigner_open(Operator *self, ExecContext *context)
{
    (void)context;
    WatermarkAssigner *assigner = self->impl;
    assigner->last_row_millis = operator_now_millis(self);
    return watermark_assigner_arm(self);
}

static int watermark_assigner_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    WatermarkAssigner *assigner = self->impl;
    int64_t now = operator_now_millis(self);
    ExprEvalContext eval = {
        .arena = &assigner->scratch, .diag = self->context->diag, .now_millis = now};
    assigner->last_row_millis = now;
    for (uint32_t r = 0; r < batch->count; r++) {
        Value value =
            expr_eval(assigner->watermark, batch->rows[r], assigner->field_count, NULL, &eval);
        if (eval.failed)
            return self->context->diag->status;
        if (!value.is_null && value.i > assigner->max_watermark)
            assigner->max_watermark = value.i;
    }
    arena_reset(&assigner->scratch);
    self->metrics.rows_out += batch->count;
    /* rows: active again, announced before them */
    int status = watermark_assigner_arm(self);
    if (status == JOINERY_OK)
        status = operator_emit_watermark_status(self, WATERMARK_STATUS_ACTIVE);
    if (status == JOINERY_OK)
        status = operator_push_downstream(self, batch);
    if (status == JOINERY_OK && assigner->max_watermark > assigner->emitted) {
        assigner->emitted = assigner->max_watermark;
        status = operator_emit_watermark(self, assigner->emitted);
    }
    return status;
}

/* The idle timer: idle when the timeout passed since the last row, else checked again later. */
static int watermark_assigner_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                       const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    WatermarkAssigner *assigner = self->impl;
    assigner->idle_timer = 0;
    if (operator_timer_now(self) - assigner->last_row_millis < assigner->idle_timeout_millis)
        return watermark_assigner_arm(self);
    return operator_emit_watermark_status(self, WATERMARK_STATUS_IDLE);
}

static int watermark_assigner_finish(Operator *self)
{
    return operator_emit_watermark(self, INT64_MAX);
}

static void watermark_assigner_close(Operator *self)
{
    WatermarkAssigner *assigner = self->impl;
    arena_destroy(&assigner->scratch);
    free(assigner);
}

static const OperatorVtable WATERMARK_ASSIGNER_VTABLE = {
    .open = watermark_assigner_open,
    .process = watermark_assigner_process,
    .on_timer = watermark_assigner_on_timer,
    .finish = watermark_assigner_finish,
    .close = watermark_assigner_close,
};

Operator *watermark_assigner_operator_create(const Expr *watermark, uint32_t field_count,
                                             int64_t idle_timeout_millis, Diag *diag)
{
    WatermarkAssigner *assigner = calloc(1, sizeof *assigner);
    if (!assigner) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    assigner->watermark = watermark;
    assigner->field_count = field_count;
    assigner->max_watermark = INT64_MIN;
    assigner->emitted = INT64_MIN;
    assigner->idle_timeout_millis = idle_timeout_millis > 0 ? idle_timeout_millis : 0;
    arena_init(&assigner->scratch, 4096);
    operator_init(&assigner->base, &WATERMARK_ASSIGNER_VTABLE, "WatermarkAssigner", 1, assigner);
    assigner->base.uses_timers = assigner->idle_timeout_millis > 0;
    return &assigner->base;
}
