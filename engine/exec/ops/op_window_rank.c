/*
 * op_window_rank.c - rows kept per partition key in SortedState by
 * window_end until the window's timer, then ranked and emitted (see the
 * header). Invariant: the state holds only rows of windows that have not
 * fired; each such (key, window_end) has its timer registered.
 */
#include "engine/exec/ops/op_window_rank.h"

#include <stdlib.h>
#include <string.h>

#include "engine/exec/key_extractor.h"
#include "engine/state/state.h"

typedef struct WindowRankOperator {
    Operator base;
    WindowRankSpec spec;
    RowOrderKey *keys;
    RowOrder order;
    SortedState *state;
    KeyExtractor key;
    RowBuilder builder;
    Arena arena; /* one window's rows while it fires */
    bool *variable_length;
    uint64_t late_rows;
} WindowRankOperator;

static const OperatorVtable WINDOW_RANK_VTABLE;

static int window_rank_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    WindowRankOperator *rank = self->impl;
    const WindowRankSpec *spec = &rank->spec;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        if (row_kind(row) != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "WindowRank received a %s row: its input must be append-only",
                                 row_kind_name(row_kind(row)));
        if (row_is_null(row, spec->window_end_field)) {
            rank->late_rows++;
            continue;
        }
        int64_t window_end = row_get_int64(row, spec->window_end_field);
        int64_t watermark = self->input_watermark;
        if (watermark != INT64_MIN && watermark >= window_end - 1) {
            rank->late_rows++; /* Flink's isWindowFired */
            continue;
        }
        const Row *key = key_extractor_build(&rank->key, row, NULL);
        if (!key)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        uint64_t hash = row_content_hash(key);
        if (sorted_state_add(rank->state, key, hash, window_end, row, 0) != JOINERY_OK)
            return operator_fail_state(self, "window rank state");
        int status = operator_register_timer(self, TIMER_EVENT_TIME, window_end - 1, key);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int emit_ranked(WindowRankOperator *rank, const Row *row, int64_t rank_number)
{
    const WindowRankSpec *spec = &rank->spec;
    uint32_t count = spec->field_count;
    row_builder_begin(&rank->builder, count + (spec->output_rank_number ? 1 : 0), ROW_KIND_INSERT);
    for (uint32_t f = 0; f < count; f++)
        row_builder_copy_field(&rank->builder, f, row, f, rank->variable_length[f]);
    if (spec->output_rank_number)
        row_builder_set_int64(&rank->builder, count, rank_number);
    const Row *out = row_builder_finish(&rank->builder);
    if (!out)
        return operator_fail(&rank->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return operator_emit(&rank->base, out, ROW_KIND_INSERT);
}

/* The window ending at timestamp + 1 fired for `key`: rank its rows, emit, free them. */
static int window_rank_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                const Row *key)
{
    WindowRankOperator *rank = self->impl;
    const WindowRankSpec *spec = &rank->spec;
    if (domain != TIMER_EVENT_TIME)
        return JOINERY_OK;
    int64_t window_end = timestamp + 1;
    uint64_t hash = row_content_hash(key);
    arena_reset(&rank->arena);
    uint32_t count = 0, capacity = 64;
    const Row **rows = malloc(capacity * sizeof *rows);
    if (!rows)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    SortedScan scan;
    sorted_scan_begin(rank->state, key, hash, window_end, window_end, &scan);
    const SortedEntry *entry;
    int status = JOINERY_OK;
    while (status == JOINERY_OK && (entry = sorted_scan_next(&scan)) != NULL) {
        if (count == capacity) {
            const Row **grown = realloc(rows, 2 * capacity * sizeof *rows);
            if (!grown) {
                status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
                break;
            }
            rows = grown, capacity *= 2;
        }
        rows[count] = row_copy(&rank->arena, entry->row);
        if (!rows[count++])
            status = operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    sorted_scan_end(&scan);
    if (status == JOINERY_OK && state_store_failed(rank->state->store))
        status = operator_fail_state(self, "window rank state");
    if (status == JOINERY_OK) {
        /* the scan gives arrival order; a LastRow deduplication ranks the latest first */
        for (uint32_t i = 0; spec->ties_latest_first && i < count / 2; i++) {
            const Row *swap = rows[i];
            rows[i] = rows[count - 1 - i];
            rows[count - 1 - i] = swap;
        }
        row_order_sort(&rank->order, rows, count, true);
        for (int64_t r = spec->rank_start;
             r <= spec->rank_end && r <= count && status == JOINERY_OK; r++)
            status = emit_ranked(rank, rows[r - 1], r);
    }
    free(rows);
    if (status == JOINERY_OK && sorted_state_remove_range(rank->state, key, hash, window_end,
                                                          window_end, NULL) != JOINERY_OK)
        status = operator_fail_state(self, "window rank state");
    return status;
}

static void window_rank_report_state(Operator *self)
{
    WindowRankOperator *rank = self->impl;
    if (!rank->state)
        return;
    StateCounters counters = sorted_state_counters(rank->state);
    self->metrics.state_bytes = counters.bytes;
    self->metrics.state_keys = counters.keys;
    self->metrics.state_rows = counters.entries;
}

static int window_rank_open(Operator *self, ExecContext *context)
{
    WindowRankOperator *rank = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "window rank: no state store");
    rank->state = sorted_state_create(context->state_store);
    return rank->state ? JOINERY_OK : operator_fail_state(self, "window rank state");
}

static int window_rank_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    WindowRankOperator *rank = self->impl;
    return sorted_state_snapshot(rank->state, writer, self->context->diag);
}

static int window_rank_restore(Operator *self, const StateReader *reader)
{
    WindowRankOperator *rank = self->impl;
    return sorted_state_restore(rank->state, reader, self->context->diag);
}

static void window_rank_close(Operator *self)
{
    WindowRankOperator *rank = self->impl;
    sorted_state_destroy(rank->state);
    key_extractor_free(&rank->key);
    row_builder_free(&rank->builder);
    arena_destroy(&rank->arena);
    free(rank->variable_length);
    free(rank->keys);
    free(rank);
}

static const OperatorVtable WINDOW_RANK_VTABLE = {
    .open = window_rank_open,
    .process = window_rank_process,
    .on_timer = window_rank_on_timer,
    .snapshot = window_rank_snapshot,
    .restore = window_rank_restore,
    .report_state = window_rank_report_state,
    .close = window_rank_close,
};

Operator *window_rank_operator_create(const WindowRankSpec *spec, Diag *diag)
{
    bool valid = spec->sort_count > 0 && spec->rank_start >= 1 &&
                 spec->rank_end >= spec->rank_start && spec->window_end_field < spec->field_count;
    for (uint32_t i = 0; valid && i < spec->sort_count; i++)
        valid = spec->sort_fields[i].field < spec->field_count;
    for (uint32_t i = 0; valid && i < spec->partition_count; i++)
        valid = spec->partition_fields[i] < spec->field_count;
    if (!valid) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "window rank: invalid spec");
        return NULL;
    }
    WindowRankOperator *rank = calloc(1, sizeof *rank);
    bool *variable_length = calloc(spec->field_count + 1, sizeof(bool));
    RowOrderKey *keys = calloc(spec->sort_count + 1, sizeof(RowOrderKey));
    if (!rank || !variable_length || !keys ||
        !key_extractor_init(&rank->key, spec->partition_count, spec->partition_fields, spec->types,
                            NULL)) {
        free(rank);
        free(variable_length);
        free(keys);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t f = 0; f < spec->field_count; f++)
        variable_length[f] = type_is_variable_length(spec->types[f].id);
    rank->variable_length = variable_length;
    rank->spec = *spec;
    for (uint32_t k = 0; k < spec->sort_count; k++) {
        keys[k] = spec->sort_fields[k];
        keys[k].type = spec->types[spec->sort_fields[k].field];
    }
    rank->keys = keys;
    rank->order = (RowOrder){keys, spec->sort_count};
    row_builder_init(&rank->builder);
    arena_init(&rank->arena, 16384);
    operator_init(&rank->base, &WINDOW_RANK_VTABLE, "WindowRank", 1, rank);
    rank->base.uses_timers = true;
    return &rank->base;
}

uint64_t window_rank_operator_late_rows(const Operator *op)
{
    if (!op || op->vtable != &WINDOW_RANK_VTABLE)
        return 0;
    return ((const WindowRankOperator *)op->impl)->late_rows;
}
