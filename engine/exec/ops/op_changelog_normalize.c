/*
 * op_changelog_normalize.c - keeps the last row per key (ValueState, created
 * in open from the task's store) and emits the retractions an upsert stream
 * leaves out (see the header); with mini-batch, each key's last row of a
 * batch (the mini-batch buffer groups the batch by key).
 */
#include "engine/exec/ops/op_changelog_normalize.h"

#include <stdlib.h>

#include "engine/exec/key_extractor.h"
#include "engine/exec/mini_batch_buffer.h"
#include "engine/state/state.h"

enum { NORMALIZE_CLEANUP_KEYS = 1024 };

typedef struct NormalizeOperator {
    Operator base;
    ChangelogNormalizeSpec spec;
    ValueState *state;
    KeyExtractor key;      /* the primary key of input rows */
    MiniBatchBuffer batch; /* mini-batch mode: the open batch's rows by key */
} NormalizeOperator;

/* The row-by-row step for one row under `key`: emits what the header says, updates the
   state. */
static int normalize_apply(NormalizeOperator *normalize, const Row *row, const Row *key,
                           uint64_t hash, int64_t now)
{
    Operator *self = &normalize->base;
    ValueState *state = normalize->state;
    const ValueEntry *entry = value_state_find(state, key, hash, now);
    if (!entry && state_store_failed(state->store))
        return operator_fail_state(self, "normalize state");
    int status = JOINERY_OK;
    bool stored = true;
    if (row_kind(row) == ROW_KIND_DELETE || row_kind(row) == ROW_KIND_UPDATE_BEFORE) {
        if (!entry || !entry->value) {
            self->metrics.skipped_rows++;
            return JOINERY_OK;
        }
        status = operator_emit(self, entry->value, ROW_KIND_DELETE);
        stored = status != JOINERY_OK || value_state_remove(state, entry) == JOINERY_OK;
    } else if (!entry || !entry->value) {
        if (!entry)
            entry = value_state_insert(state, key, hash, now);
        stored = entry && value_state_set(state, entry, row, now) == JOINERY_OK;
        if (stored)
            status = operator_emit(self, row, ROW_KIND_INSERT);
    } else if (row_content_equals(entry->value, row)) {
        stored = value_state_set(state, entry, row, now) == JOINERY_OK; /* refresh the TTL */
    } else {
        status = operator_emit(self, entry->value, ROW_KIND_UPDATE_BEFORE);
        if (status == JOINERY_OK)
            stored = value_state_set(state, entry, row, now) == JOINERY_OK;
        if (status == JOINERY_OK && stored)
            status = operator_emit(self, row, ROW_KIND_UPDATE_AFTER);
    }
    if (!stored)
        return operator_fail_state(self, "normalize state");
    return status;
}

static int normalize_flush(NormalizeOperator *normalize);

/* Each row is applied at once, or (mini-batch) buffered under its key until the batch
   ends. */
static int normalize_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    NormalizeOperator *normalize = self->impl;
    int64_t now = operator_now_millis(self);
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        const Row *key = key_extractor_build(&normalize->key, row, NULL);
        if (!key)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        uint64_t hash = row_content_hash(key);
        int status = JOINERY_OK;
        if (normalize->spec.mini_batch_size <= 0)
            status = normalize_apply(normalize, row, key, hash, now);
        else if (mini_batch_buffer_add(&normalize->batch, key, hash, row) != 0)
            status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        else if ((int64_t)normalize->batch.row_count >= normalize->spec.mini_batch_size)
            status = normalize_flush(normalize);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* ---- mini-batch: each key's last row of the batch ---- */

static int normalize_flush(NormalizeOperator *normalize)
{
    MiniBatchBuffer *buffer = &normalize->batch;
    int64_t now = operator_now_millis(&normalize->base);
    int status = JOINERY_OK;
    for (uint32_t k = 0; k < buffer->key_count && status == JOINERY_OK; k++) {
        const MiniBatchKey *key = &buffer->keys[k];
        status = normalize_apply(normalize, buffer->rows[key->last].row, key->key, key->hash, now);
    }
    mini_batch_buffer_clear(buffer);
    return status;
}

/* A watermark ends the mini-batch (MiniBatchAssigner): apply it, then forward the watermark. */
static int normalize_mini_batch_on_watermark(Operator *self, int64_t watermark)
{
    int status = normalize_flush(self->impl);
    return status == JOINERY_OK ? operator_emit_watermark(self, watermark) : status;
}

static int normalize_mini_batch_finish(Operator *self)
{
    return normalize_flush(self->impl);
}

/* The recurring TTL cleanup timer (the only timer it registers). */
static int normalize_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    NormalizeOperator *normalize = self->impl;
    self->metrics.expired_rows +=
        value_state_cleanup(normalize->state, operator_timer_now(self), NORMALIZE_CLEANUP_KEYS);
    return operator_schedule_cleanup(self);
}

static void normalize_report_state(Operator *self)
{
    NormalizeOperator *normalize = self->impl;
    if (!normalize->state)
        return;
    StateCounters counters = value_state_counters(normalize->state);
    self->metrics.state_bytes = counters.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries;
}

static int normalize_open(Operator *self, ExecContext *context)
{
    NormalizeOperator *normalize = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "normalize: no state store");
    normalize->state = value_state_create(context->state_store, normalize->spec.ttl_millis);
    if (!normalize->state)
        return operator_fail_state(self, "normalize state");
    return normalize->spec.ttl_millis > 0 ? operator_schedule_cleanup(self) : JOINERY_OK;
}

/* The snapshot: the last row of every key. */
static int normalize_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    NormalizeOperator *normalize = self->impl;
    return value_state_snapshot(normalize->state, writer, self->context->diag);
}

/* The open batch is applied first: its changes go out before the barrier. */
static int normalize_mini_batch_snapshot(Operator *self, const Barrier *barrier,
                                         const StateWriter *writer)
{
    int status = normalize_flush(self->impl);
    return status == JOINERY_OK ? normalize_snapshot(self, barrier, writer) : status;
}

static int normalize_restore(Operator *self, const StateReader *reader)
{
    NormalizeOperator *normalize = self->impl;
    return value_state_restore(normalize->state, reader, self->context->diag);
}

static void normalize_close(Operator *self)
{
    NormalizeOperator *normalize = self->impl;
    value_state_destroy(normalize->state);
    key_extractor_free(&normalize->key);
    mini_batch_buffer_free(&normalize->batch);
    free(normalize);
}

static const OperatorVtable NORMALIZE_VTABLE = {
    .open = normalize_open,
    .process = normalize_process,
    .on_timer = normalize_on_timer,
    .snapshot = normalize_snapshot,
    .restore = normalize_restore,
    .report_state = normalize_report_state,
    .close = normalize_close,
};

static const OperatorVtable NORMALIZE_MINI_BATCH_VTABLE = {
    .open = normalize_open,
    .process = normalize_process,
    .on_watermark = normalize_mini_batch_on_watermark,
    .on_timer = normalize_on_timer,
    .snapshot = normalize_mini_batch_snapshot,
    .restore = normalize_restore,
    .finish = normalize_mini_batch_finish,
    .report_state = normalize_report_state,
    .close = normalize_close,
};

Operator *changelog_normalize_operator_create(const ChangelogNormalizeSpec *spec, Diag *diag)
{
    NormalizeOperator *normalize = calloc(1, sizeof *normalize);
    if (!normalize || !key_extractor_init(&normalize->key, spec->key_count, spec->key_fields,
                                          spec->types, NULL)) {
        free(normalize);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    normalize->spec = *spec;
    mini_batch_buffer_init(&normalize->batch);
    operator_init(&normalize->base,
                  spec->mini_batch_size > 0 ? &NORMALIZE_MINI_BATCH_VTABLE : &NORMALIZE_VTABLE,
                  "ChangelogNormalize", 1, normalize);
    normalize->base.uses_timers = spec->ttl_millis > 0;
    return &normalize->base;
}
