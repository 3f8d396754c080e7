/*
 * op_temporal_sort.c - the TemporalSort operator (see op_temporal_sort.h).
 * State: a SortedState under the empty key, entries at their rowtime (0 in
 * processing time, arrival order by sequence); a ValueState entry with the
 * last time released (event time). Timers are operator-wide.
 */
#include "engine/exec/ops/op_temporal_sort.h"

#include <stdlib.h>
#include <string.h>

#include "engine/state/state.h"

typedef struct TemporalSortOperator {
    Operator base;
    TemporalSortSpec spec;
    RowOrder secondary; /* keys[1..] */
    SortedState *rows;
    ValueState *released; /* event time: BIGINT row, the last time released */
    RowBuilder builder;
    Row *empty_key; /* malloc'ed */
    uint64_t empty_hash;
    Arena scratch;
} TemporalSortOperator;

static int64_t temporal_sort_last_released(TemporalSortOperator *sort, int64_t now)
{
    const ValueEntry *entry =
        value_state_find(sort->released, sort->empty_key, sort->empty_hash, now);
    return entry && entry->value ? row_get_int64(entry->value, 0) : INT64_MIN;
}

static int temporal_sort_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    TemporalSortOperator *sort = self->impl;
    int64_t now = operator_now_millis(self);
    int64_t last = sort->spec.rowtime ? temporal_sort_last_released(sort, now) : INT64_MIN;
    uint32_t time_field = sort->spec.keys[0].field;
    bool buffered = false;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        if (row_kind(row) != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "TemporalSort received a %s row; its input must be insert-only",
                                 row_kind_name(row_kind(row)));
        int64_t time = 0;
        if (sort->spec.rowtime) {
            if (row_is_null(row, time_field))
                return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                     "TemporalSort: a row has a NULL rowtime");
            time = row_get_int64(row, time_field);
            if (time <= last)
                continue; /* late: its time was released already */
        }
        if (sorted_state_add(sort->rows, sort->empty_key, sort->empty_hash, time, row, 0) !=
            JOINERY_OK)
            return operator_fail_state(self, "temporal sort state");
        int status = JOINERY_OK;
        if (sort->spec.rowtime)
            status = operator_register_timer(self, TIMER_EVENT_TIME, time, NULL);
        else if (!buffered)
            status = operator_register_timer(self, TIMER_PROCESSING_TIME, now + 1, NULL);
        buffered = true;
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* Emits the buffered rows with time in [from, to], sorted by the other keys, and drops them. */
static int temporal_sort_release(TemporalSortOperator *sort, int64_t from, int64_t to)
{
    Operator *self = &sort->base;
    uint32_t count = 0, capacity = 64;
    const Row **rows = malloc(capacity * sizeof *rows);
    if (!rows)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    SortedScan scan;
    sorted_scan_begin(sort->rows, sort->empty_key, sort->empty_hash, from, to, &scan);
    int status = JOINERY_OK;
    for (const SortedEntry *entry; status == JOINERY_OK && (entry = sorted_scan_next(&scan));) {
        Row *copy = row_copy(&sort->scratch, entry->row);
        if (copy && count == capacity) {
            const Row **grown = realloc(rows, 2 * (size_t)capacity * sizeof *rows);
            if (grown) {
                rows = grown;
                capacity *= 2;
            } else {
                copy = NULL;
            }
        }
        if (!copy) {
            status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
            break;
        }
        rows[count++] = copy;
    }
    sorted_scan_end(&scan);
    if (status == JOINERY_OK && state_store_failed(self->context->state_store))
        status = operator_fail_state(self, "temporal sort state");
    if (status == JOINERY_OK) {
        /* one time per release in event time; every buffered row (time 0) in processing time */
        row_order_sort(&sort->secondary, rows, count, true);
        for (uint32_t i = 0; i < count && status == JOINERY_OK; i++)
            status = operator_emit(self, rows[i], ROW_KIND_INSERT);
    }
    free(rows);
    if (status == JOINERY_OK && count &&
        sorted_state_remove_range(sort->rows, sort->empty_key, sort->empty_hash, from, to, NULL) !=
            JOINERY_OK)
        status = operator_fail_state(self, "temporal sort state");
    arena_reset(&sort->scratch);
    return status;
}

static int temporal_sort_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                  const Row *key)
{
    (void)key;
    TemporalSortOperator *sort = self->impl;
    if (domain == TIMER_PROCESSING_TIME)
        return sort->spec.rowtime ? JOINERY_OK : temporal_sort_release(sort, INT64_MIN, INT64_MAX);
    if (!sort->spec.rowtime)
        return JOINERY_OK;
    int status = temporal_sort_release(sort, timestamp, timestamp);
    if (status != JOINERY_OK)
        return status;
    int64_t now = operator_now_millis(self);
    const ValueEntry *entry =
        value_state_find(sort->released, sort->empty_key, sort->empty_hash, now);
    if (!entry)
        entry = value_state_insert(sort->released, sort->empty_key, sort->empty_hash, now);
    row_builder_begin(&sort->builder, 1, ROW_KIND_INSERT);
    row_builder_set_int64(&sort->builder, 0, timestamp);
    const Row *value = row_builder_finish(&sort->builder);
    if (!entry || !value || value_state_set(sort->released, entry, value, now) != JOINERY_OK)
        return operator_fail_state(self, "temporal sort state");
    return JOINERY_OK;
}

/* End of input: processing time releases what it holds (the timer would never fire); in
   event time the last watermark (+infinity) has released everything. */
static int temporal_sort_finish(Operator *self)
{
    TemporalSortOperator *sort = self->impl;
    return sort->spec.rowtime ? JOINERY_OK : temporal_sort_release(sort, INT64_MIN, INT64_MAX);
}

static void temporal_sort_report_state(Operator *self)
{
    TemporalSortOperator *sort = self->impl;
    StateCounters counters = sorted_state_counters(sort->rows);
    self->metrics.state_bytes = counters.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries;
}

static int temporal_sort_open(Operator *self, ExecContext *context)
{
    TemporalSortOperator *sort = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "temporal sort: no state store");
    sort->rows = sorted_state_create(context->state_store);
    sort->released = value_state_create(context->state_store, 0);
    if (!sort->rows || !sort->released)
        return operator_fail_state(self, "temporal sort state");
    row_builder_begin(&sort->builder, 0, ROW_KIND_INSERT);
    const Row *key = row_builder_finish(&sort->builder);
    sort->empty_key = key ? malloc(row_size(key)) : NULL;
    if (!sort->empty_key)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    memcpy(sort->empty_key, key, row_size(key));
    sort->empty_hash = row_content_hash(sort->empty_key);
    return JOINERY_OK;
}

static int temporal_sort_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    TemporalSortOperator *sort = self->impl;
    int status = sorted_state_snapshot(sort->rows, writer, self->context->diag);
    return status == JOINERY_OK ? value_state_snapshot(sort->released, writer, self->context->diag)
                                : status;
}

static int temporal_sort_restore(Operator *self, const StateReader *reader)
{
    TemporalSortOperator *sort = self->impl;
    int status = sorted_state_restore(sort->rows, reader, self->context->diag);
    return status == JOINERY_OK ? value_state_restore(sort->released, reader, self->context->diag)
                                : status;
}

static void temporal_sort_close(Operator *self)
{
    TemporalSortOperator *sort = self->impl;
    sorted_state_destroy(sort->rows);
    value_state_destroy(sort->released);
    row_builder_free(&sort->builder);
    free(sort->empty_key);
    arena_destroy(&sort->scratch);
    free(sort);
}

static const OperatorVtable TEMPORAL_SORT_VTABLE = {
    .open = temporal_sort_open,
    .process = temporal_sort_process,
    .on_timer = temporal_sort_on_timer,
    .finish = temporal_sort_finish,
    .snapshot = temporal_sort_snapshot,
    .restore = temporal_sort_restore,
    .report_state = temporal_sort_report_state,
    .close = temporal_sort_close,
};

Operator *temporal_sort_operator_create(const TemporalSortSpec *spec, Diag *diag)
{
    if (spec->key_count == 0) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "temporal sort: no time key");
        return NULL;
    }
    TemporalSortOperator *sort = calloc(1, sizeof *sort);
    if (!sort) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    sort->spec = *spec;
    sort->secondary.keys = spec->keys + 1;
    sort->secondary.key_count = spec->key_count - 1;
    row_builder_init(&sort->builder);
    arena_init(&sort->scratch, 0);
    operator_init(&sort->base, &TEMPORAL_SORT_VTABLE, "TemporalSort", 1, sort);
    sort->base.uses_timers = true;
    return &sort->base;
}
