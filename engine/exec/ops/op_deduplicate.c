/*
 * op_deduplicate.c - the row kept per key in ValueState (see the header);
 * a row replaces it or is dropped, and a replacement is emitted at once
 * (on event time by the time field, on processing time by arrival); with
 * mini-batch the batch's rows are grouped by key first (mini_batch_buffer.h).
 */
#include "engine/exec/ops/op_deduplicate.h"

#include <stdlib.h>

#include "engine/exec/key_extractor.h"
#include "engine/exec/mini_batch_buffer.h"
#include "engine/state/state.h"

enum { DEDUPLICATE_CLEANUP_KEYS = 1024 };

typedef struct DeduplicateOperator {
    Operator base;
    DeduplicateSpec spec;
    ValueState *state;
    KeyExtractor key;
    MiniBatchBuffer batch; /* mini-batch mode: the open batch's rows by key */
} DeduplicateOperator;

/* Whether `row` replaces `kept`, the row kept for its key: on processing time a later row is
   newer (keep last replaces, keep first never does); on event time by the time field. */
static bool replaces_kept(const DeduplicateSpec *spec, const Row *kept, const Row *row)
{
    if (spec->processing_time)
        return spec->keep_last;
    int64_t kept_time = row_get_int64(kept, spec->time_field);
    int64_t time = row_get_int64(row, spec->time_field);
    return spec->keep_last ? kept_time <= time : time < kept_time;
}

/* A row's key into dedup->key's row; NULL (reported) on no memory, *skip set for a row that
   is dropped before any state access (a NULL time on event time, counted). */
static const Row *deduplicate_check(DeduplicateOperator *dedup, const Row *row, bool *skip,
                                    int *status)
{
    Operator *self = &dedup->base;
    *skip = false;
    *status = JOINERY_OK;
    if (row_kind(row) != ROW_KIND_INSERT) {
        *status = operator_fail(self, JOINERY_ERROR_RUNTIME,
                                "Deduplicate received a %s row: its input must be append-only",
                                row_kind_name(row_kind(row)));
        return NULL;
    }
    if (!dedup->spec.processing_time && row_is_null(row, dedup->spec.time_field)) {
        self->metrics.skipped_rows++;
        *skip = true;
        return NULL;
    }
    const Row *key = key_extractor_build(&dedup->key, row, NULL);
    if (!key)
        *status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return key;
}

/* The row-by-row step for one checked row under `key`: it replaces the kept row and is
   emitted, or is dropped (see the header). */
static int deduplicate_apply(DeduplicateOperator *dedup, const Row *row, const Row *key,
                             uint64_t hash, int64_t now)
{
    Operator *self = &dedup->base;
    const DeduplicateSpec *spec = &dedup->spec;
    const ValueEntry *entry = value_state_find(dedup->state, key, hash, now);
    if (!entry && state_store_failed(dedup->state->store))
        return operator_fail_state(self, "deduplicate state");
    const Row *previous = entry ? entry->value : NULL;
    if (previous && !replaces_kept(spec, previous, row))
        return JOINERY_OK;
    int status = JOINERY_OK;
    if (!previous) {
        status = operator_emit(self, row, ROW_KIND_INSERT);
    } else {
        if (spec->generate_update_before)
            status = operator_emit(self, previous, ROW_KIND_UPDATE_BEFORE);
        if (status == JOINERY_OK)
            status = operator_emit(self, row, ROW_KIND_UPDATE_AFTER);
    }
    if (status != JOINERY_OK)
        return status;
    if (!entry)
        entry = value_state_insert(dedup->state, key, hash, now);
    if (!entry || value_state_set(dedup->state, entry, row, now) != JOINERY_OK)
        return operator_fail_state(self, "deduplicate state");
    return JOINERY_OK;
}

static int deduplicate_flush(DeduplicateOperator *dedup);

/* Each checked row is applied at once, or (mini-batch) buffered under its key until the
   batch ends. */
static int deduplicate_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    DeduplicateOperator *dedup = self->impl;
    int64_t now = operator_now_millis(self);
    for (uint32_t r = 0; r < batch->count; r++) {
        bool skip;
        int status;
        const Row *key = deduplicate_check(dedup, batch->rows[r], &skip, &status);
        if (status != JOINERY_OK)
            return status;
        if (skip)
            continue;
        uint64_t hash = row_content_hash(key);
        if (dedup->spec.mini_batch_size <= 0) {
            status = deduplicate_apply(dedup, batch->rows[r], key, hash, now);
        } else if (mini_batch_buffer_add(&dedup->batch, key, hash, batch->rows[r]) != 0) {
            status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        } else if ((int64_t)dedup->batch.row_count >= dedup->spec.mini_batch_size) {
            status = deduplicate_flush(dedup);
        }
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* ---- mini-batch ---- */

/* Applies the open batch: per key (first-row order) its first or last row on processing
   time, each of its rows on event time. */
static int deduplicate_flush(DeduplicateOperator *dedup)
{
    MiniBatchBuffer *buffer = &dedup->batch;
    int64_t now = operator_now_millis(&dedup->base);
    int status = JOINERY_OK;
    for (uint32_t k = 0; k < buffer->key_count && status == JOINERY_OK; k++) {
        const MiniBatchKey *key = &buffer->keys[k];
        if (dedup->spec.processing_time) {
            uint32_t chosen = dedup->spec.keep_last ? key->last : key->first;
            status = deduplicate_apply(dedup, buffer->rows[chosen].row, key->key, key->hash, now);
            continue;
        }
        for (uint32_t r = key->first; r != UINT32_MAX && status == JOINERY_OK;
             r = buffer->rows[r].next)
            status = deduplicate_apply(dedup, buffer->rows[r].row, key->key, key->hash, now);
    }
    mini_batch_buffer_clear(buffer);
    return status;
}

/* A watermark ends the mini-batch: apply it, then forward the watermark. */
static int deduplicate_mini_batch_on_watermark(Operator *self, int64_t watermark)
{
    int status = deduplicate_flush(self->impl);
    return status == JOINERY_OK ? operator_emit_watermark(self, watermark) : status;
}

static int deduplicate_mini_batch_finish(Operator *self)
{
    return deduplicate_flush(self->impl);
}

/* The recurring TTL cleanup timer (the only timer it registers). */
static int deduplicate_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    DeduplicateOperator *dedup = self->impl;
    self->metrics.expired_rows +=
        value_state_cleanup(dedup->state, operator_timer_now(self), DEDUPLICATE_CLEANUP_KEYS);
    return operator_schedule_cleanup(self);
}

static void deduplicate_report_state(Operator *self)
{
    DeduplicateOperator *dedup = self->impl;
    if (!dedup->state)
        return;
    StateCounters counters = value_state_counters(dedup->state);
    self->metrics.state_bytes = counters.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries;
}

static int deduplicate_open(Operator *self, ExecContext *context)
{
    DeduplicateOperator *dedup = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "deduplicate: no state store");
    dedup->state = value_state_create(context->state_store, dedup->spec.ttl_millis);
    if (!dedup->state)
        return operator_fail_state(self, "deduplicate state");
    return dedup->spec.ttl_millis > 0 ? operator_schedule_cleanup(self) : JOINERY_OK;
}

static int deduplicate_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    DeduplicateOperator *dedup = self->impl;
    return value_state_snapshot(dedup->state, writer, self->context->diag);
}

/* The open batch is applied first: its changes go out before the barrier. */
static int deduplicate_mini_batch_snapshot(Operator *self, const Barrier *barrier,
                                           const StateWriter *writer)
{
    int status = deduplicate_flush(self->impl);
    return status == JOINERY_OK ? deduplicate_snapshot(self, barrier, writer) : status;
}

static int deduplicate_restore(Operator *self, const StateReader *reader)
{
    DeduplicateOperator *dedup = self->impl;
    return value_state_restore(dedup->state, reader, self->context->diag);
}

static void deduplicate_close(Operator *self)
{
    DeduplicateOperator *dedup = self->impl;
    value_state_destroy(dedup->state);
    key_extractor_free(&dedup->key);
    mini_batch_buffer_free(&dedup->batch);
    free(dedup);
}

static const OperatorVtable DEDUPLICATE_VTABLE = {
    .open = deduplicate_open,
    .process = deduplicate_process,
    .on_timer = deduplicate_on_timer,
    .snapshot = deduplicate_snapshot,
    .restore = deduplicate_restore,
    .report_state = deduplicate_report_state,
    .close = deduplicate_close,
};

static const OperatorVtable DEDUPLICATE_MINI_BATCH_VTABLE = {
    .open = deduplicate_open,
    .process = deduplicate_process,
    .on_watermark = deduplicate_mini_batch_on_watermark,
    .on_timer = deduplicate_on_timer,
    .snapshot = deduplicate_mini_batch_snapshot,
    .restore = deduplicate_restore,
    .finish = deduplicate_mini_batch_finish,
    .report_state = deduplicate_report_state,
    .close = deduplicate_close,
};

Operator *deduplicate_operator_create(const DeduplicateSpec *spec, Diag *diag)
{
    if (spec->time_field >= spec->field_count) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "deduplicate: time field out of range");
        return NULL;
    }
    DeduplicateOperator *dedup = calloc(1, sizeof *dedup);
    if (!dedup ||
        !key_extractor_init(&dedup->key, spec->key_count, spec->key_fields, spec->types, NULL)) {
        free(dedup);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    dedup->spec = *spec;
    mini_batch_buffer_init(&dedup->batch);
    operator_init(&dedup->base,
                  spec->mini_batch_size > 0 ? &DEDUPLICATE_MINI_BATCH_VTABLE : &DEDUPLICATE_VTABLE,
                  "Deduplicate", 1, dedup);
    dedup->base.uses_timers = spec->ttl_millis > 0;
    return &dedup->base;
}
