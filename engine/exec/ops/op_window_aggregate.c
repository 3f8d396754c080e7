/*
 * op_window_aggregate.c - the window aggregate operator (see
 * op_window_aggregate.h).
 *
 * Per row: the windows of its time (window_assign); for each window that
 * has not fired, the state key
 * [start, end, group keys...] is built, its accumulator looked up (or
 * started, with the window's timer), decoded into working Values (strings
 * point into the stored accumulator or the input row, both alive until the
 * new accumulator is encoded), the calls applied, and the accumulator
 * written back. A DISTINCT call is applied only when the row's value is new
 * to the window (exec/aggregate/distinct_values.h). A timer emits the final
 * row and removes the accumulator and the window's distinct values.
 */
#include "engine/exec/ops/op_window_aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/exec/aggregate/aggregate_accumulator.h"
#include "engine/exec/aggregate/collection_aggregate.h"
#include "engine/exec/aggregate/distinct_values.h"
#include "engine/exec/window/window_assigner.h"
#include "engine/state/state.h"

typedef struct WindowAggregateOperator {
    Operator base;
    WindowAggregateOperatorSpec spec;
    AggregateAccumulator accumulator; /* the calls' accumulator row and working copy */
    DistinctValues distinct;          /* the DISTINCT calls' values per window */
    bool *skip;                       /* per call: left out of the row being applied */
    bool *key_variable_length;        /* per group key */
    ValueState *accumulators;
    WindowBounds *windows; /* a row's windows */
    uint32_t window_capacity;
    uint64_t late_rows;
    RowBuilder key_builder;
    RowBuilder output_builder;
} WindowAggregateOperator;

static const OperatorVtable WINDOW_AGGREGATE_VTABLE;

static int window_aggregate_overflow(WindowAggregateOperator *agg)
{
    return operator_fail(&agg->base, JOINERY_ERROR_RUNTIME, "%s",
                         aggregate_accumulator_message(&agg->accumulator, JOINERY_ERROR_RUNTIME));
}

/* A failure of the distinct values (distinct_values_update's status). */
static int window_aggregate_distinct_failed(WindowAggregateOperator *agg, int status)
{
    if (status == JOINERY_ERROR_NO_MEMORY)
        return operator_fail(&agg->base, status, "out of memory");
    if (status == JOINERY_ERROR_RUNTIME)
        return operator_fail(&agg->base, status, "more than %d copies of one value in a window",
                             MULTISET_COUNT_MAX);
    return operator_fail_state(&agg->base, "window aggregate state");
}

/* [start, end, the row's group key fields]. */
static const Row *window_aggregate_key(WindowAggregateOperator *agg, const Row *input,
                                       WindowBounds window)
{
    RowBuilder *builder = &agg->key_builder;
    uint32_t key_count = agg->spec.group_key_count;
    row_builder_begin(builder, key_count + 2, ROW_KIND_INSERT);
    row_builder_set_int64(builder, 0, window.start);
    row_builder_set_int64(builder, 1, window.end);
    for (uint32_t k = 0; k < key_count; k++)
        row_builder_copy_field(builder, k + 2, input, agg->spec.group_keys[k],
                               agg->key_variable_length[k]);
    return row_builder_finish(builder);
}

/* Adds `input` to the window's accumulator, starting it (and its timer) if new. */
static int window_aggregate_add(WindowAggregateOperator *agg, const Row *input, WindowBounds window)
{
    const Row *key = window_aggregate_key(agg, input, window);
    if (!key)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (distinct_values_used(&agg->distinct)) {
        /* before the lookup: the entry is valid only until another state call */
        int counted = distinct_values_update_row(&agg->distinct, agg->spec.calls,
                                                 agg->spec.call_count, key, input, true, agg->skip);
        if (counted != JOINERY_OK)
            return window_aggregate_distinct_failed(agg, counted);
    }
    uint64_t hash = row_content_hash(key);
    const ValueEntry *entry = value_state_find(agg->accumulators, key, hash, 0);
    if (!entry && state_store_failed(agg->accumulators->store))
        return operator_fail_state(&agg->base, "window aggregate state");
    bool first = entry == NULL;
    if (first)
        aggregate_accumulator_reset(&agg->accumulator);
    else
        aggregate_accumulator_decode(&agg->accumulator, entry->value);
    int applied = aggregate_accumulator_apply_except(&agg->accumulator, input, true, agg->skip);
    if (applied == JOINERY_ERROR_NO_MEMORY)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (applied != JOINERY_OK)
        return window_aggregate_overflow(agg);
    const Row *accumulator = aggregate_accumulator_encode(&agg->accumulator);
    if (!accumulator)
        return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (first) {
        entry = value_state_insert(agg->accumulators, key, hash, 0);
        if (!entry)
            return operator_fail_state(&agg->base, "window aggregate state");
    }
    if (value_state_set(agg->accumulators, entry, accumulator, 0) != JOINERY_OK) {
        if (first)
            (void)value_state_remove(agg->accumulators, entry);
        return operator_fail_state(&agg->base, "window aggregate state");
    }
    return first ? operator_register_timer(&agg->base, TIMER_EVENT_TIME, window.end - 1, key)
                 : JOINERY_OK;
}

static int window_aggregate_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    WindowAggregateOperator *agg = self->impl;
    const WindowAggregateOperatorSpec *spec = &agg->spec;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        if (row_kind(row) != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR,
                                 "WindowAggregate received a %s row: its input must be "
                                 "append-only",
                                 row_kind_name(row_kind(row)));
        if (row_is_null(row, spec->time_field)) {
            agg->late_rows++;
            continue;
        }
        int64_t time = row_get_int64(row, spec->time_field);
        uint32_t count;
        if (spec->windows_from_fields) {
            agg->windows[0].start = row_get_int64(row, spec->window_start_field);
            agg->windows[0].end = row_get_int64(row, spec->window_end_field);
            count = 1;
        } else {
            count = window_assign(&spec->window, time, agg->windows, agg->window_capacity);
        }
        if (count == 0)
            continue;
        /* Flink's isWindowFired: a window whose timer (window_end - 1) is due takes no more
           rows; the row goes to the others (HOP and CUMULATE windows that end later) */
        int64_t watermark = self->input_watermark;
        bool accepted = false;
        for (uint32_t w = 0; w < count; w++) {
            if (watermark != INT64_MIN && watermark >= agg->windows[w].end - 1)
                continue;
            accepted = true;
            int status = window_aggregate_add(agg, row, agg->windows[w]);
            if (status != JOINERY_OK)
                return status;
        }
        if (!accepted)
            agg->late_rows++;
    }
    return JOINERY_OK;
}

/* The window of `key` fired: emit its row and drop its accumulator. */
static int window_aggregate_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                     const Row *key)
{
    (void)timestamp;
    WindowAggregateOperator *agg = self->impl;
    if (domain != TIMER_EVENT_TIME)
        return JOINERY_OK;
    uint64_t hash = row_content_hash(key);
    const ValueEntry *entry = value_state_find(agg->accumulators, key, hash, 0);
    if (!entry)
        return state_store_failed(agg->accumulators->store)
                   ? operator_fail_state(self, "window aggregate state")
                   : JOINERY_OK;
    const WindowAggregateOperatorSpec *spec = &agg->spec;
    uint32_t key_count = spec->group_key_count, call_count = spec->call_count;
    int64_t start = row_get_int64(key, 0), end = row_get_int64(key, 1);
    RowBuilder *builder = &agg->output_builder;
    uint32_t total = key_count + call_count + (spec->emits_window_time ? 3 : 2);
    row_builder_begin(builder, total, ROW_KIND_INSERT);
    for (uint32_t k = 0; k < key_count; k++)
        row_builder_copy_field(builder, k, key, k + 2, agg->key_variable_length[k]);
    if (aggregate_accumulator_results(&agg->accumulator, entry->value, builder, key_count) !=
        JOINERY_OK)
        return window_aggregate_overflow(agg);
    row_builder_set_int64(builder, key_count + call_count, start);
    row_builder_set_int64(builder, key_count + call_count + 1, end);
    if (spec->emits_window_time)
        row_builder_set_int64(builder, key_count + call_count + 2, end - 1);
    const Row *out = row_builder_finish(builder);
    if (!out)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int status = operator_emit(self, out, ROW_KIND_INSERT);
    if (status == JOINERY_OK && value_state_remove(agg->accumulators, entry) != JOINERY_OK)
        status = operator_fail_state(self, "window aggregate state");
    if (status == JOINERY_OK && distinct_values_drop(&agg->distinct, key) != JOINERY_OK)
        status = operator_fail_state(self, "window aggregate state");
    return status;
}

static int window_aggregate_open(Operator *self, ExecContext *context)
{
    WindowAggregateOperator *agg = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "window aggregate: no state store");
    /* never subject to table.exec.state.ttl: a window's state goes when it fires */
    agg->accumulators = value_state_create(context->state_store, 0);
    if (!agg->accumulators || !distinct_values_open(&agg->distinct, context->state_store))
        return operator_fail_state(self, "window aggregate state");
    return JOINERY_OK;
}

static void window_aggregate_report_state(Operator *self)
{
    WindowAggregateOperator *agg = self->impl;
    if (!agg->accumulators)
        return;
    StateCounters counters = value_state_counters(agg->accumulators);
    StateCounters values = distinct_values_counters(&agg->distinct);
    self->metrics.state_bytes = counters.bytes + values.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries + values.entries;
}

static int window_aggregate_snapshot(Operator *self, const Barrier *barrier,
                                     const StateWriter *writer)
{
    (void)barrier;
    WindowAggregateOperator *agg = self->impl;
    int status = value_state_snapshot(agg->accumulators, writer, self->context->diag);
    if (status == JOINERY_OK)
        status = distinct_values_snapshot(&agg->distinct, writer, self->context->diag);
    return status;
}

static int window_aggregate_restore(Operator *self, const StateReader *reader)
{
    WindowAggregateOperator *agg = self->impl;
    int status = value_state_restore(agg->accumulators, reader, self->context->diag);
    if (status == JOINERY_OK)
        status = distinct_values_restore(&agg->distinct, reader, self->context->diag);
    return status;
}

static void window_aggregate_close(Operator *self)
{
    WindowAggregateOperator *agg = self->impl;
    value_state_destroy(agg->accumulators);
    aggregate_accumulator_free(&agg->accumulator);
    distinct_values_free(&agg->distinct);
    free(agg->skip);
    free(agg->key_variable_length);
    free(agg->windows);
    row_builder_free(&agg->key_builder);
    row_builder_free(&agg->output_builder);
    free(agg);
}

static const OperatorVtable WINDOW_AGGREGATE_VTABLE = {
    .open = window_aggregate_open,
    .process = window_aggregate_process,
    .on_watermark = NULL, /* the timers fire before the watermark goes on */
    .on_timer = window_aggregate_on_timer,
    .snapshot = window_aggregate_snapshot,
    .restore = window_aggregate_restore,
    .report_state = window_aggregate_report_state,
    .close = window_aggregate_close,
};

uint64_t window_aggregate_operator_late_rows(const Operator *op)
{
    if (!op || op->vtable != &WINDOW_AGGREGATE_VTABLE)
        return 0;
    return ((const WindowAggregateOperator *)op->impl)->late_rows;
}

Operator *window_aggregate_operator_create(const WindowAggregateOperatorSpec *spec, Diag *diag)
{
    if (spec->time_field >= spec->input_field_count ||
        spec->group_key_count + spec->call_count > UINT16_MAX / 2 ||
        (spec->group_key_count && !spec->group_keys) || (spec->call_count && !spec->calls)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "window aggregate: inconsistent spec");
        return NULL;
    }
    if (spec->windows_from_fields && (spec->window_start_field >= spec->input_field_count ||
                                      spec->window_end_field >= spec->input_field_count)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "window aggregate: inconsistent spec");
        return NULL;
    }
    if (spec->window.kind == WINDOW_SESSION && !spec->windows_from_fields) {
        diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                   "window aggregate: SESSION windows are not supported yet");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->group_key_count; k++)
        if (spec->group_keys[k] >= spec->input_field_count) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "window aggregate: group key out of range");
            return NULL;
        }
    WindowAggregateOperator *agg = calloc(1, sizeof *agg);
    if (!agg) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    agg->spec = *spec;
    operator_init(&agg->base, &WINDOW_AGGREGATE_VTABLE, "WindowAggregate", 1, agg);
    agg->base.uses_timers = true;
    row_builder_init(&agg->key_builder);
    row_builder_init(&agg->output_builder);
    uint32_t keys = spec->group_key_count ? spec->group_key_count : 1;
    agg->window_capacity = window_assign_max(&spec->window);
    agg->windows = calloc(agg->window_capacity ? agg->window_capacity : 1, sizeof(WindowBounds));
    agg->key_variable_length = calloc(keys, sizeof(bool));
    agg->skip = calloc(spec->call_count ? spec->call_count : 1, sizeof(bool));
    if (!agg->windows || !agg->key_variable_length || !agg->skip) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        operator_close(&agg->base);
        return NULL;
    }
    for (uint32_t k = 0; k < spec->group_key_count; k++)
        agg->key_variable_length[k] =
            type_is_variable_length(spec->input_types[spec->group_keys[k]].id);
    if (aggregate_accumulator_init(&agg->accumulator, spec->calls, spec->call_count,
                                   spec->input_field_count, diag) != JOINERY_OK ||
        distinct_values_init(&agg->distinct, spec->calls, spec->call_count, diag) != JOINERY_OK) {
        operator_close(&agg->base);
        return NULL;
    }
    return &agg->base;
}
