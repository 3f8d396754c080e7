/*
 * op_mini_batch_assigner.c - see op_mini_batch_assigner.h.
 *
 * ProcTime mode keeps `emitted`, the start of the last interval it
 * announced, and one processing-time timer at the start of the next
 * interval (so an idle stream still closes its batch on time); a row or
 * the timer that finds the clock in a later interval announces it. RowTime
 * mode keeps the largest upstream watermark and `next`, the end of the
 * interval it is in; the watermark is forwarded once it reaches `next`.
 * Both only move forward.
 */
#include "engine/exec/ops/op_mini_batch_assigner.h"

#include <stdlib.h>

typedef struct MiniBatchAssigner {
    Operator base;
    bool rowtime;
    int64_t interval;
    int64_t emitted; /* ProcTime: interval start last announced (INT64_MIN: none) */
    int64_t timer;   /* ProcTime: the pending timer (0: none) */
    int64_t current; /* RowTime: the largest upstream watermark */
    int64_t next;    /* RowTime: the watermark that ends the current interval */
} MiniBatchAssigner;

/* Start of the interval holding `time` (floor, also for negative times). */
static int64_t mini_batch_start(int64_t time, int64_t interval)
{
    int64_t remainder = time % interval;
    if (remainder < 0)
        remainder += interval;
    return time - remainder;
}

/* ProcTime: announces the interval of `now` if it is new, and arms the timer for the next. */
static int mini_batch_announce(Operator *self, int64_t now)
{
    MiniBatchAssigner *assigner = self->impl;
    int64_t start = mini_batch_start(now, assigner->interval);
    int status = JOINERY_OK;
    if (start > assigner->emitted) {
        assigner->emitted = start;
        status = operator_emit_watermark(self, start);
    }
    int64_t due = start + assigner->interval;
    if (status == JOINERY_OK && assigner->timer != due) {
        assigner->timer = due;
        status = operator_register_timer(self, TIMER_PROCESSING_TIME, due, NULL);
    }
    return status;
}

static int mini_batch_open(Operator *self, ExecContext *context)
{
    (void)context;
    MiniBatchAssigner *assigner = self->impl;
    if (assigner->rowtime)
        return JOINERY_OK;
    /* the interval the job starts in is the first batch: it is not announced */
    int64_t now = operator_now_millis(self);
    assigner->emitted = mini_batch_start(now, assigner->interval);
    return mini_batch_announce(self, now);
}

static int mini_batch_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    MiniBatchAssigner *assigner = self->impl;
    int status = JOINERY_OK;
    if (!assigner->rowtime)
        status = mini_batch_announce(self, operator_now_millis(self));
    self->metrics.rows_out += batch->count;
    if (status == JOINERY_OK)
        status = operator_push_downstream(self, batch);
    return status;
}

static int mini_batch_on_watermark(Operator *self, int64_t watermark)
{
    MiniBatchAssigner *assigner = self->impl;
    if (watermark == INT64_MAX) /* the end of input releases everything */
        return operator_emit_watermark(self, INT64_MAX);
    if (!assigner->rowtime)
        return JOINERY_OK; /* processing-time batches: upstream watermarks are not batch ends */
    if (watermark > assigner->current)
        assigner->current = watermark;
    if (assigner->current < assigner->next)
        return JOINERY_OK;
    int64_t end = mini_batch_start(assigner->current, assigner->interval) + assigner->interval - 1;
    assigner->next = end > assigner->current ? end : end + assigner->interval;
    return operator_emit_watermark(self, assigner->current);
}

static int mini_batch_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                               const Row *key)
{
    (void)domain;
    (void)key;
    MiniBatchAssigner *assigner = self->impl;
    if (timestamp == assigner->timer)
        assigner->timer = 0;
    return mini_batch_announce(self, operator_timer_now(self));
}

static void mini_batch_close(Operator *self)
{
    free(self->impl);
}

static const OperatorVtable MINI_BATCH_ASSIGNER_VTABLE = {
    .open = mini_batch_open,
    .process = mini_batch_process,
    .on_watermark = mini_batch_on_watermark,
    .on_timer = mini_batch_on_timer,
    .close = mini_batch_close,
};

Operator *mini_batch_assigner_operator_create(bool rowtime, int64_t interval_millis, Diag *diag)
{
    if (interval_millis <= 0) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "MiniBatch Latency must be greater than 0 ms.");
        return NULL;
    }
    MiniBatchAssigner *assigner = calloc(1, sizeof *assigner);
    if (!assigner) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    assigner->rowtime = rowtime;
    assigner->interval = interval_millis;
    assigner->emitted = INT64_MIN;
    assigner->current = 0; /* as Flink: batches count from the epoch */
    assigner->next = interval_millis - 1;
    operator_init(&assigner->base, &MINI_BATCH_ASSIGNER_VTABLE,
                  rowtime ? "MiniBatchAssigner(RowTime)" : "MiniBatchAssigner(ProcTime)", 1,
                  assigner);
    assigner->base.uses_timers = !rowtime;
    return &assigner->base;
}
