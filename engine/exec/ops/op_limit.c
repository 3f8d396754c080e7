/*
 * op_limit.c - the Limit operator (see op_limit.h). State: one ValueState
 * entry under the empty key whose value is a one-field BIGINT row, the
 * number of input rows seen so far.
 */
#include "engine/exec/ops/op_limit.h"

#include <stdlib.h>
#include <string.h>

#include "engine/state/state.h"

typedef struct LimitOperator {
    Operator base;
    LimitSpec spec;
    ValueState *state;
    RowBuilder builder;
    Row *empty_key; /* the entry's key (malloc'ed) */
    uint64_t empty_hash;
} LimitOperator;

static int limit_request_end(LimitOperator *limit, int64_t seen)
{
    if (limit->spec.ends_job && limit->spec.fetch >= 0 &&
        seen >= limit->spec.offset + limit->spec.fetch && limit->base.context->end_requested)
        *limit->base.context->end_requested = 1;
    return JOINERY_OK;
}

static int limit_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    LimitOperator *limit = self->impl;
    int64_t now = operator_now_millis(self);
    const ValueEntry *entry =
        value_state_find(limit->state, limit->empty_key, limit->empty_hash, now);
    int64_t seen = entry && entry->value ? row_get_int64(entry->value, 0) : 0;
    int64_t before = seen;
    int64_t end = limit->spec.fetch < 0 ? INT64_MAX : limit->spec.offset + limit->spec.fetch;
    for (uint32_t i = 0; i < batch->count && seen < end; i++) {
        const Row *row = batch->rows[i];
        if (row_kind(row) != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "Limit received a %s row; its input must be insert-only",
                                 row_kind_name(row_kind(row)));
        if (seen++ < limit->spec.offset)
            continue;
        int status = operator_emit(self, row, ROW_KIND_INSERT);
        if (status != JOINERY_OK)
            return status;
    }
    if (seen != before) {
        if (!entry)
            entry = value_state_insert(limit->state, limit->empty_key, limit->empty_hash, now);
        row_builder_begin(&limit->builder, 1, ROW_KIND_INSERT);
        row_builder_set_int64(&limit->builder, 0, seen);
        const Row *value = row_builder_finish(&limit->builder);
        if (!entry || !value || value_state_set(limit->state, entry, value, now) != JOINERY_OK)
            return operator_fail_state(self, "limit state");
    }
    return limit_request_end(limit, seen);
}

static void limit_report_state(Operator *self)
{
    LimitOperator *limit = self->impl;
    StateCounters counters = value_state_counters(limit->state);
    self->metrics.state_bytes = counters.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries;
}

static int limit_open(Operator *self, ExecContext *context)
{
    LimitOperator *limit = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "limit: no state store");
    limit->state = value_state_create(context->state_store, 0);
    if (!limit->state)
        return operator_fail_state(self, "limit state");
    row_builder_begin(&limit->builder, 0, ROW_KIND_INSERT);
    const Row *key = row_builder_finish(&limit->builder);
    limit->empty_key = key ? malloc(row_size(key)) : NULL;
    if (!limit->empty_key)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    memcpy(limit->empty_key, key, row_size(key));
    limit->empty_hash = row_content_hash(limit->empty_key);
    return JOINERY_OK;
}

static int limit_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    LimitOperator *limit = self->impl;
    return value_state_snapshot(limit->state, writer, self->context->diag);
}

static int limit_restore(Operator *self, const StateReader *reader)
{
    LimitOperator *limit = self->impl;
    return value_state_restore(limit->state, reader, self->context->diag);
}

static void limit_close(Operator *self)
{
    LimitOperator *limit = self->impl;
    value_state_destroy(limit->state);
    row_builder_free(&limit->builder);
    free(limit->empty_key);
    free(limit);
}

static const OperatorVtable LIMIT_VTABLE = {
    .open = limit_open,
    .process = limit_process,
    .snapshot = limit_snapshot,
    .restore = limit_restore,
    .report_state = limit_report_state,
    .close = limit_close,
};

Operator *limit_operator_create(const LimitSpec *spec, Diag *diag)
{
    LimitOperator *limit = calloc(1, sizeof *limit);
    if (!limit) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    limit->spec = *spec;
    row_builder_init(&limit->builder);
    operator_init(&limit->base, &LIMIT_VTABLE, "Limit", 1, limit);
    return &limit->base;
}
