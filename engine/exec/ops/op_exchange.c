/*
 * op_exchange.c - hash exchange. Rows are not copied: they are routed into
 * one batch per downstream subtask and every batch is delivered before
 * process returns, while the input rows are still valid.
 */
#include "engine/exec/ops/op_exchange.h"

#include <stdlib.h>

#include "engine/exec/key_extractor.h"

typedef struct ExchangeOperator {
    Operator base;
    ExchangeSpec spec;
    KeyExtractor key;
    RowBatch *batches; /* one per downstream subtask */
    uint32_t batch_count;
} ExchangeOperator;

uint32_t exchange_route(const Row *key_row, uint32_t parallelism)
{
    return (uint32_t)(row_content_hash(key_row) % parallelism);
}

static int exchange_open(Operator *self, ExecContext *context)
{
    (void)context;
    ExchangeOperator *exchange = self->impl;
    /* one batch per subtask of a consumer; with several consumers (broadcast_width) each
       batch goes to that subtask of every one */
    exchange->batch_count = self->broadcast_width ? self->broadcast_width : self->broadcast_count;
    exchange->batches = calloc(exchange->batch_count ? exchange->batch_count : 1, sizeof(RowBatch));
    if (!exchange->batches)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (uint32_t i = 0; i < exchange->batch_count; i++) {
        exchange->batches[i].rows = malloc(sizeof(Row *) * ROW_BATCH_CAPACITY);
        if (!exchange->batches[i].rows)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        exchange->batches[i].capacity = ROW_BATCH_CAPACITY;
    }
    return JOINERY_OK;
}

static int exchange_deliver(ExchangeOperator *exchange, uint32_t target)
{
    RowBatch *batch = &exchange->batches[target];
    if (batch->count == 0)
        return JOINERY_OK;
    exchange->base.metrics.rows_out += batch->count;
    int status = JOINERY_OK;
    for (uint32_t at = target; at < exchange->base.broadcast_count && status == JOINERY_OK;
         at += exchange->batch_count) {
        const OperatorTarget *to = &exchange->base.broadcast[at];
        status = operator_push_channel(to->op, to->input, to->channel, batch);
    }
    batch->count = 0;
    return status;
}

static int exchange_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    ExchangeOperator *exchange = self->impl;
    uint32_t parallelism = exchange->batch_count;
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < batch->count && status == JOINERY_OK; r++) {
        Row *row = batch->rows[r];
        uint32_t target = 0;
        if (parallelism > 1 && exchange->spec.key_count) {
            const Row *key = key_extractor_build(&exchange->key, row, NULL);
            if (!key)
                return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
            target = exchange_route(key, parallelism);
        }
        RowBatch *out = &exchange->batches[target];
        out->rows[out->count++] = row;
        if (out->count == out->capacity)
            status = exchange_deliver(exchange, target);
    }
    for (uint32_t t = 0; t < parallelism && status == JOINERY_OK; t++)
        status = exchange_deliver(exchange, t);
    return status;
}

static void exchange_close(Operator *self)
{
    ExchangeOperator *exchange = self->impl;
    for (uint32_t i = 0; exchange->batches && i < exchange->batch_count; i++)
        free(exchange->batches[i].rows);
    free(exchange->batches);
    key_extractor_free(&exchange->key);
    free(exchange);
}

static const OperatorVtable EXCHANGE_VTABLE = {
    .open = exchange_open,
    .process = exchange_process,
    .close = exchange_close,
};

Operator *exchange_operator_create(const ExchangeSpec *spec, Diag *diag)
{
    ExchangeOperator *exchange = calloc(1, sizeof *exchange);
    if (!exchange) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    exchange->spec = *spec;
    if (!key_extractor_init(&exchange->key, spec->key_count, spec->keys, spec->types, NULL)) {
        free(exchange);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    operator_init(&exchange->base, &EXCHANGE_VTABLE, "Exchange", 1, exchange);
    return &exchange->base;
}
