/*
 * op_deduplicate.c - the row kept per key in ValueState (see the header);
 * a row replaces it or is dropped, and a replacement is emitted at once
 * (on event time by the time field, on processing time by arrival).
 */
#include "engine/exec/ops/op_deduplicate.h"

#include <stdlib.h>

#include "engine/exec/key_extractor.h"
#include "engine/state/state.h"

enum { DEDUPLICATE_CLEANUP_KEYS = 1024 };

typedef struct DeduplicateOperator {
    Operator base;
    DeduplicateSpec spec;
    ValueState *state;
    KeyExtractor key;
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

static int deduplicate_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    DeduplicateOperator *dedup = self->impl;
    const DeduplicateSpec *spec = &dedup->spec;
    int64_t now = operator_now_millis(self);
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        if (row_kind(row) != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "Deduplicate received a %s row: its input must be append-only",
                                 row_kind_name(row_kind(row)));
        if (!spec->processing_time && row_is_null(row, spec->time_field)) {
            self->metrics.skipped_rows++;
            continue;
        }
        const Row *key = key_extractor_build(&dedup->key, row, NULL);
        if (!key)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        uint64_t hash = row_content_hash(key);
        const ValueEntry *entry = value_state_find(dedup->state, key, hash, now);
        if (!entry && state_store_failed(dedup->state->store))
            return operator_fail_state(self, "deduplicate state");
        const Row *previous = entry ? entry->value : NULL;
        if (previous && !replaces_kept(spec, previous, row))
            continue;
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
    }
    return JOINERY_OK;
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
    operator_init(&dedup->base, &DEDUPLICATE_VTABLE, "Deduplicate", 1, dedup);
    dedup->base.uses_timers = spec->ttl_millis > 0;
    return &dedup->base;
}
