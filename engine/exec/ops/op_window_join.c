/*
 * op_window_join.c - the window join operator (see op_window_join.h).
 *
 * State per side: a SortedState keyed by the join key row (the empty row
 * without keys), its entries ordered by time = the row's window_end; an
 * entry's tag is 1 when the row's key has a NULL in a field that is not
 * null-safe (it matches nothing). A window fires from the event-time timer
 * (key, window_end - 1); the rows of both sides are copied out of state
 * into the scratch arena (scans give views only until their next call),
 * joined, then removed with one range removal per side.
 */
#include "engine/exec/ops/op_window_join.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/expr_eval.h"
#include "engine/exec/key_extractor.h"
#include "engine/state/state.h"

/* One buffered row of a firing window. */
typedef struct WindowRow {
    const Row *row;
    bool never_matches;
    bool matched; /* FULL: the right row matched some left row */
} WindowRow;

typedef struct WindowJoinSide {
    SortedState *state;
    KeyExtractor key;
    uint32_t field_count;
    uint32_t window_end;
    bool *variable_length;
    uint64_t late_rows;
    WindowRow *rows; /* the firing window's rows */
    uint32_t row_count, row_capacity;
} WindowJoinSide;

typedef struct WindowJoinOperator {
    Operator base;
    WindowJoinOperatorSpec spec;
    WindowJoinSide sides[2];
    RowBuilder output_builder;
    Arena scratch; /* the firing window's row copies and the residual's strings */
    ExprEvalContext eval_context;
    char name[80];
} WindowJoinOperator;

static const OperatorVtable WINDOW_JOIN_VTABLE;

/* ---- output ---- */

static int window_join_emit(WindowJoinOperator *join, const Row *left, const Row *right)
{
    RowBuilder *builder = &join->output_builder;
    const WindowJoinSide *l = &join->sides[0], *r = &join->sides[1];
    bool left_only =
        join->spec.join_type == JOIN_TYPE_SEMI || join->spec.join_type == JOIN_TYPE_ANTI;
    uint32_t total = l->field_count + (left_only ? 0 : r->field_count);
    row_builder_begin(builder, total, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < l->field_count; i++) {
        if (left)
            row_builder_copy_field(builder, i, left, i, l->variable_length[i]);
        else
            row_builder_set_null(builder, i);
    }
    for (uint32_t i = 0; !left_only && i < r->field_count; i++) {
        if (right)
            row_builder_copy_field(builder, l->field_count + i, right, i, r->variable_length[i]);
        else
            row_builder_set_null(builder, l->field_count + i);
    }
    const Row *row = row_builder_finish(builder);
    if (!row)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return operator_emit(&join->base, row, ROW_KIND_INSERT);
}

/* True when the pair matches: keys (checked by the state's grouping) and the residual. */
static bool window_join_matches(WindowJoinOperator *join, const WindowRow *left,
                                const WindowRow *right)
{
    if (left->never_matches || right->never_matches)
        return false;
    if (!join->spec.residual)
        return true;
    return expr_eval_predicate(join->spec.residual, left->row, join->spec.left_field_count,
                               right->row, &join->eval_context);
}

/* ---- input ---- */

static int window_join_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    WindowJoinOperator *join = self->impl;
    WindowJoinSide *side = &join->sides[input];
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        if (row_kind(row) != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR,
                                 "WindowJoin received a %s row: its inputs must be append-only",
                                 row_kind_name(row_kind(row)));
        if (row_is_null(row, side->window_end)) {
            side->late_rows++;
            continue;
        }
        int64_t window_end = row_get_int64(row, side->window_end);
        /* Flink's isWindowFired: the window's timer (window_end - 1) is due already */
        if (self->input_watermark != INT64_MIN && self->input_watermark >= window_end - 1) {
            side->late_rows++;
            continue;
        }
        bool has_null = false;
        const Row *key = key_extractor_build(&side->key, row, &has_null);
        if (!key)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        uint64_t hash = row_content_hash(key);
        if (sorted_state_add(side->state, key, hash, window_end, row, has_null ? 1 : 0) !=
            JOINERY_OK)
            return operator_fail_state(self, "window join state");
        int status = operator_register_timer(self, TIMER_EVENT_TIME, window_end - 1, key);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* ---- firing a window ---- */

/* Copies the side's rows of `key` at `window_end` into side->rows (in arrival order). */
static int window_join_collect(WindowJoinOperator *join, WindowJoinSide *side, const Row *key,
                               uint64_t hash, int64_t window_end)
{
    side->row_count = 0;
    SortedScan scan;
    sorted_scan_begin(side->state, key, hash, window_end, window_end, &scan);
    const SortedEntry *entry;
    while ((entry = sorted_scan_next(&scan)) != NULL) {
        if (side->row_count == side->row_capacity) {
            uint32_t capacity = side->row_capacity ? side->row_capacity * 2 : 16;
            WindowRow *rows = realloc(side->rows, capacity * sizeof *rows);
            if (!rows) {
                sorted_scan_end(&scan);
                return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
            }
            side->rows = rows;
            side->row_capacity = capacity;
        }
        size_t size = row_size(entry->row);
        Row *copy = arena_alloc(&join->scratch, size);
        if (!copy) {
            sorted_scan_end(&scan);
            return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        memcpy(copy, entry->row, size);
        side->rows[side->row_count++] =
            (WindowRow){.row = copy, .never_matches = entry->tag != 0, .matched = false};
    }
    sorted_scan_end(&scan);
    if (state_store_failed(side->state->store))
        return operator_fail_state(&join->base, "window join state");
    return JOINERY_OK;
}

/* Joins the collected rows of both sides as the join type says (op_window_join.h). */
static int window_join_join(WindowJoinOperator *join)
{
    WindowJoinSide *l = &join->sides[0], *r = &join->sides[1];
    JoinType type = join->spec.join_type;
    int status = JOINERY_OK;
    if (type == JOIN_TYPE_RIGHT) {
        for (uint32_t j = 0; j < r->row_count && status == JOINERY_OK; j++) {
            bool matches = false;
            for (uint32_t i = 0; i < l->row_count && status == JOINERY_OK; i++) {
                if (!window_join_matches(join, &l->rows[i], &r->rows[j]))
                    continue;
                matches = true;
                status = window_join_emit(join, l->rows[i].row, r->rows[j].row);
            }
            if (status == JOINERY_OK && !matches)
                status = window_join_emit(join, NULL, r->rows[j].row);
        }
        return join->eval_context.failed ? join->base.context->diag->status : status;
    }
    for (uint32_t i = 0; i < l->row_count && status == JOINERY_OK; i++) {
        bool matches = false;
        for (uint32_t j = 0; j < r->row_count && status == JOINERY_OK; j++) {
            if (!window_join_matches(join, &l->rows[i], &r->rows[j]))
                continue;
            matches = true;
            r->rows[j].matched = true;
            if (type == JOIN_TYPE_SEMI || type == JOIN_TYPE_ANTI)
                break;
            status = window_join_emit(join, l->rows[i].row, r->rows[j].row);
        }
        if (status != JOINERY_OK)
            break;
        if ((type == JOIN_TYPE_SEMI && matches) || (type == JOIN_TYPE_ANTI && !matches) ||
            ((type == JOIN_TYPE_LEFT || type == JOIN_TYPE_FULL) && !matches))
            status = window_join_emit(join, l->rows[i].row, NULL);
    }
    if (type == JOIN_TYPE_FULL)
        for (uint32_t j = 0; j < r->row_count && status == JOINERY_OK; j++)
            if (!r->rows[j].matched)
                status = window_join_emit(join, NULL, r->rows[j].row);
    return join->eval_context.failed ? join->base.context->diag->status : status;
}

static int window_join_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                const Row *key)
{
    WindowJoinOperator *join = self->impl;
    if (domain != TIMER_EVENT_TIME)
        return JOINERY_OK;
    int64_t window_end = timestamp + 1;
    uint64_t hash = row_content_hash(key);
    int status = window_join_collect(join, &join->sides[0], key, hash, window_end);
    if (status == JOINERY_OK)
        status = window_join_collect(join, &join->sides[1], key, hash, window_end);
    if (status == JOINERY_OK)
        status = window_join_join(join);
    for (uint32_t s = 0; s < 2 && status == JOINERY_OK; s++)
        if (join->sides[s].row_count &&
            sorted_state_remove_range(join->sides[s].state, key, hash, window_end, window_end,
                                      NULL) != JOINERY_OK)
            status = operator_fail_state(self, "window join state");
    join->sides[0].row_count = join->sides[1].row_count = 0;
    arena_reset(&join->scratch);
    return status;
}

/* ---- lifecycle ---- */

static int window_join_open(Operator *self, ExecContext *context)
{
    WindowJoinOperator *join = self->impl;
    join->eval_context.arena = &join->scratch;
    join->eval_context.diag = context->diag;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "window join: no state store");
    for (uint32_t s = 0; s < 2; s++) {
        join->sides[s].state = sorted_state_create(context->state_store);
        if (!join->sides[s].state)
            return operator_fail_state(self, "window join state");
    }
    return JOINERY_OK;
}

static void window_join_report_state(Operator *self)
{
    WindowJoinOperator *join = self->impl;
    if (!join->sides[0].state || !join->sides[1].state)
        return;
    StateCounters left = sorted_state_counters(join->sides[0].state);
    StateCounters right = sorted_state_counters(join->sides[1].state);
    self->metrics.state_bytes = left.bytes + right.bytes;
    self->metrics.state_keys = left.keys + right.keys;
    self->metrics.state_rows = left.entries + right.entries;
}

static int window_join_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    WindowJoinOperator *join = self->impl;
    int status = JOINERY_OK;
    for (uint32_t s = 0; s < 2 && status == JOINERY_OK; s++)
        status = sorted_state_snapshot(join->sides[s].state, writer, self->context->diag);
    return status;
}

static int window_join_restore(Operator *self, const StateReader *reader)
{
    WindowJoinOperator *join = self->impl;
    int status = JOINERY_OK;
    for (uint32_t s = 0; s < 2 && status == JOINERY_OK; s++)
        status = sorted_state_restore(join->sides[s].state, reader, self->context->diag);
    return status;
}

static void window_join_close(Operator *self)
{
    WindowJoinOperator *join = self->impl;
    for (uint32_t s = 0; s < 2; s++) {
        sorted_state_destroy(join->sides[s].state);
        key_extractor_free(&join->sides[s].key);
        free(join->sides[s].variable_length);
        free(join->sides[s].rows);
    }
    row_builder_free(&join->output_builder);
    arena_destroy(&join->scratch);
    free(join);
}

static const OperatorVtable WINDOW_JOIN_VTABLE = {
    .open = window_join_open,
    .process = window_join_process,
    .on_watermark = NULL, /* the timers fire before the watermark goes on */
    .on_timer = window_join_on_timer,
    .snapshot = window_join_snapshot,
    .restore = window_join_restore,
    .report_state = window_join_report_state,
    .close = window_join_close,
};

uint64_t window_join_operator_late_rows(const Operator *op, uint32_t side)
{
    if (!op || op->vtable != &WINDOW_JOIN_VTABLE || side > 1)
        return 0;
    return ((const WindowJoinOperator *)op->impl)->sides[side].late_rows;
}

static bool *window_join_variable_flags(const DataType *types, uint32_t count)
{
    bool *flags = calloc(count ? count : 1, sizeof(bool));
    if (flags)
        for (uint32_t i = 0; i < count; i++)
            flags[i] = type_is_variable_length(types[i].id);
    return flags;
}

Operator *window_join_operator_create(const WindowJoinOperatorSpec *spec, Diag *diag)
{
    if (spec->left_window_end >= spec->left_field_count ||
        spec->right_window_end >= spec->right_field_count) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "window join: window_end field out of range");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->key_count; k++)
        if (spec->left_keys[k] >= spec->left_field_count ||
            spec->right_keys[k] >= spec->right_field_count) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "window join: key field out of range");
            return NULL;
        }
    WindowJoinOperator *join = calloc(1, sizeof *join);
    if (!join) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    join->spec = *spec;
    join->sides[0].field_count = spec->left_field_count;
    join->sides[0].window_end = spec->left_window_end;
    join->sides[1].field_count = spec->right_field_count;
    join->sides[1].window_end = spec->right_window_end;
    bool ready = key_extractor_init(&join->sides[0].key, spec->key_count, spec->left_keys,
                                    spec->left_types, spec->null_safe_keys) &&
                 key_extractor_init(&join->sides[1].key, spec->key_count, spec->right_keys,
                                    spec->right_types, spec->null_safe_keys);
    join->sides[0].variable_length =
        window_join_variable_flags(spec->left_types, spec->left_field_count);
    join->sides[1].variable_length =
        window_join_variable_flags(spec->right_types, spec->right_field_count);
    row_builder_init(&join->output_builder);
    arena_init(&join->scratch, 16 * 1024);
    snprintf(join->name, sizeof join->name, "WindowJoin(joinType=[%s])",
             join_type_name(spec->join_type));
    operator_init(&join->base, &WINDOW_JOIN_VTABLE, join->name, 2, join);
    join->base.uses_timers = true;
    if (!ready || !join->sides[0].variable_length || !join->sides[1].variable_length) {
        operator_close(&join->base);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return &join->base;
}
