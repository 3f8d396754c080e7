/*
 * op_changelog_normalize.c - keeps the last row per key (ValueState, created
 * in open from the task's store) and emits the retractions an upsert stream
 * leaves out (see the header).
 */
#include "engine/exec/ops/op_changelog_normalize.h"

#include <stdlib.h>

#include "engine/exec/key_extractor.h"
#include "engine/state/state.h"

enum { NORMALIZE_CLEANUP_KEYS = 1024 };

typedef struct NormalizeOperator {
    Operator base;
    ChangelogNormalizeSpec spec;
    ValueState *state;
    KeyExtractor key; /* the primary key of input rows */
} NormalizeOperator;

static int normalize_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    NormalizeOperator *normalize = self->impl;
    ValueState *state = normalize->state;
    int64_t now = operator_now_millis(self);
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        const Row *key = key_extractor_build(&normalize->key, row, NULL);
        if (!key)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        uint64_t hash = row_content_hash(key);
        const ValueEntry *entry = value_state_find(state, key, hash, now);
        if (!entry && state_store_failed(state->store))
            return operator_fail_state(self, "normalize state");
        int status = JOINERY_OK;
        bool stored = true;
        if (row_kind(row) == ROW_KIND_DELETE || row_kind(row) == ROW_KIND_UPDATE_BEFORE) {
            if (!entry || !entry->value) {
                self->metrics.skipped_rows++;
                continue;
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
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
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
    operator_init(&normalize->base, &NORMALIZE_VTABLE, "ChangelogNormalize", 1, normalize);
    normalize->base.uses_timers = spec->ttl_millis > 0;
    return &normalize->base;
}
