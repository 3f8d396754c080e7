/*
 * operator.c - the framework around operator vtables: batching of output,
 * metrics, watermark and end-of-input propagation (see operator.h).
 */
#include "engine/exec/operator.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"

void operator_init(Operator *op, const OperatorVtable *vtable, const char *name,
                   uint32_t input_count, void *impl)
{
    memset(op, 0, sizeof *op);
    op->vtable = vtable;
    op->name = name;
    op->input_count = input_count;
    op->channel_count = input_count;
    op->impl = impl;
    op->current_watermark = INT64_MIN;
    for (uint32_t i = 0; i < OPERATOR_MAX_INPUTS; i++)
        op->input_watermarks[i] = INT64_MIN;
    arena_init(&op->output_arena, 64 * 1024);
}

void operator_connect(Operator *op, Operator *target, uint32_t input)
{
    op->target.op = target;
    op->target.input = input;
}

int operator_open(Operator *op, ExecContext *context)
{
    op->context = context;
    op->output.capacity = ROW_BATCH_CAPACITY;
    op->output.count = 0;
    /* the row array outlives arena resets: it has its own allocation */
    Row **rows = malloc(sizeof(Row *) * ROW_BATCH_CAPACITY);
    if (!rows)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    op->output.rows = rows;
    if (op->vtable->open)
        return op->vtable->open(op, context);
    return JOINERY_OK;
}

int operator_flush(Operator *op)
{
    if (op->output.count == 0)
        return JOINERY_OK;
    int status = JOINERY_OK;
    if (op->target.op)
        status = operator_push(op->target.op, op->target.input, &op->output);
    op->output.count = 0;
    arena_reset(&op->output_arena);
    return status;
}

int operator_push(Operator *op, uint32_t input, const RowBatch *batch)
{
    if (batch->count == 0)
        return JOINERY_OK;
    op->metrics.rows_in += batch->count;
    int64_t start = datetime_monotonic_nanos();
    int status = op->vtable->process(op, input, batch);
    int64_t elapsed = datetime_monotonic_nanos() - start;
    op->metrics.busy_nanos += (uint64_t)elapsed;
    if (status != JOINERY_OK)
        return status;
    /* flushing the last output batch happens outside the timed call; batches flushed
       while process runs (a full output batch) count in this operator's time too */
    return operator_flush(op);
}

int operator_emit(Operator *op, const Row *row, RowKind kind)
{
    if (op->output.count == op->output.capacity) {
        int status = operator_flush(op);
        if (status != JOINERY_OK)
            return status;
    }
    Row *copy = row_copy(&op->output_arena, row);
    if (!copy)
        return operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
    row_set_kind(copy, kind);
    op->output.rows[op->output.count++] = copy;
    op->metrics.rows_out++;
    return JOINERY_OK;
}

int operator_emit_watermark(Operator *op, int64_t watermark)
{
    int status = operator_flush(op);
    for (uint32_t i = 0; i < op->broadcast_count && status == JOINERY_OK; i++)
        status = operator_push_watermark(op->broadcast[i].op, op->broadcast[i].input, watermark);
    if (status == JOINERY_OK && !op->broadcast_count && op->target.op)
        status = operator_push_watermark(op->target.op, op->target.input, watermark);
    return status;
}

int operator_push_watermark(Operator *op, uint32_t input, int64_t watermark)
{
    if (input < OPERATOR_MAX_INPUTS && watermark > op->input_watermarks[input])
        op->input_watermarks[input] = watermark;
    if (op->vtable->watermark)
        return op->vtable->watermark(op, input, watermark);
    int64_t minimum = INT64_MAX;
    for (uint32_t i = 0; i < op->input_count && i < OPERATOR_MAX_INPUTS; i++)
        if (op->input_watermarks[i] < minimum)
            minimum = op->input_watermarks[i];
    if (minimum > op->current_watermark && minimum != INT64_MIN) {
        op->current_watermark = minimum;
        return operator_emit_watermark(op, minimum);
    }
    return JOINERY_OK;
}

int operator_end_input(Operator *op, uint32_t input)
{
    (void)input;
    op->inputs_ended++;
    if (op->inputs_ended < op->channel_count)
        return JOINERY_OK;
    int status = JOINERY_OK;
    if (op->vtable->finish) {
        int64_t start = datetime_monotonic_nanos();
        status = op->vtable->finish(op);
        op->metrics.busy_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    }
    if (status == JOINERY_OK)
        status = operator_flush(op);
    for (uint32_t i = 0; i < op->broadcast_count && status == JOINERY_OK; i++)
        status = operator_end_input(op->broadcast[i].op, op->broadcast[i].input);
    if (status == JOINERY_OK && !op->broadcast_count && op->target.op)
        status = operator_end_input(op->target.op, op->target.input);
    return status;
}

int operator_timer(Operator *op, int64_t now_millis)
{
    if (!op->vtable->timer)
        return JOINERY_OK;
    int64_t start = datetime_monotonic_nanos();
    int status = op->vtable->timer(op, now_millis);
    op->metrics.busy_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    if (status == JOINERY_OK)
        status = operator_flush(op);
    return status;
}

void operator_close(Operator *op)
{
    if (op->output.capacity)
        free(op->output.rows);
    op->output.rows = NULL;
    op->output.capacity = 0;
    arena_destroy(&op->output_arena);
    /* last: the operator's close frees the operator itself */
    if (op->vtable && op->vtable->close)
        op->vtable->close(op);
}

int64_t operator_now_millis(const Operator *op)
{
    if (op->context && op->context->now_millis)
        return op->context->now_millis(op->context->clock_context);
    return datetime_now_millis();
}

int operator_fail(Operator *op, JoineryStatus status, const char *format, ...)
{
    Diag *diag = op->context ? op->context->diag : NULL;
    if (!diag)
        return status;
    if (diag->status != JOINERY_OK)
        return diag->status;
    va_list args;
    va_start(args, format);
    char message[DIAG_MESSAGE_MAX];
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return diag_error(diag, status, "%s", message);
}
