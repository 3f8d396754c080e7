/*
 * op_interval_join.c - the interval join (see op_interval_join.h), after
 * Flink's TimeIntervalJoin.
 *
 * State, from the task's store in open (any backend):
 *   rows[side]  SortedState: join key row -> the side's kept rows ordered
 *               by their time; tag 1 once an outer row matched (Flink's
 *               emitted flag), 0 before;
 *   cleanup     ValueState: join key row -> a row of two BIGINTs, the
 *               cleanup timer registered for the left rows and for the
 *               right rows of the key (NULL: none), as Flink's per-key
 *               timer states; timers are keyed by the key row and fire
 *               through on_timer, which frees the sides whose recorded time
 *               it is (right side first, then left, as Flink).
 * Invariants: a side's kept rows of a key have a cleanup timer recorded;
 * rows are +I; every output row is built left ++ right in output_builder.
 */
#include "engine/exec/ops/op_interval_join.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec/expr_eval.h"
#include "engine/exec/key_extractor.h"
#include "engine/state/state.h"

typedef struct IntervalSide {
    SortedState *rows;
    KeyExtractor key;
    uint32_t field_count;
    uint32_t time_field;
    bool outer;
    bool *variable_length;
    int64_t relative_size; /* left: -left_lower; right: left_upper */
    uint64_t late;
} IntervalSide;

typedef struct IntervalJoinOperator {
    Operator base; /* first: the Operator * is the IntervalJoinOperator * */
    IntervalJoinOperatorSpec spec;
    IntervalSide sides[2];
    ValueState *cleanup;
    int64_t min_cleanup_interval;
    int64_t watermark_delay;
    bool empty_window; /* upper bound below lower bound: nothing matches */
    RowBuilder output_builder;
    RowBuilder cleanup_builder;
    Arena eval_arena; /* strings made by the residual; reset per batch */
    ExprEvalContext eval_context;
    char name[64];
} IntervalJoinOperator;

static int64_t saturating_add(int64_t a, int64_t b)
{
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return sum;
}

static int64_t saturating_sub(int64_t a, int64_t b)
{
    int64_t difference;
    if (__builtin_sub_overflow(a, b, &difference))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return difference;
}

/* The operator time: the watermark (0 before it passes 0, as Flink) or the clock. */
static int64_t interval_operator_time(const IntervalJoinOperator *join, int64_t clock)
{
    if (!join->spec.rowtime)
        return clock;
    int64_t watermark = join->base.input_watermark;
    return watermark > 0 ? watermark : 0;
}

/* Rows of a side with time <= this can meet nothing that is not late (Flink's formula). */
static int64_t interval_expiration(int64_t operator_time, int64_t relative_size)
{
    if (operator_time == INT64_MAX)
        return INT64_MAX; /* the end of the input: everything goes */
    return saturating_sub(saturating_sub(operator_time, relative_size), 1);
}

/* ---- output ---- */

static int interval_emit(IntervalJoinOperator *join, const Row *left, const Row *right)
{
    RowBuilder *builder = &join->output_builder;
    const IntervalSide *l = &join->sides[0], *r = &join->sides[1];
    row_builder_begin(builder, l->field_count + r->field_count, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < l->field_count; i++) {
        if (left)
            row_builder_copy_field(builder, i, left, i, l->variable_length[i]);
        else
            row_builder_set_null(builder, i);
    }
    for (uint32_t i = 0; i < r->field_count; i++) {
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

static int interval_emit_padded(IntervalJoinOperator *join, uint32_t side, const Row *row)
{
    return side == 0 ? interval_emit(join, row, NULL) : interval_emit(join, NULL, row);
}

/* ---- cleanup timers ---- */

/* The recorded cleanup time of `side`'s rows of the key; false when none. */
static bool interval_cleanup_time(IntervalJoinOperator *join, const Row *key, uint64_t hash,
                                  uint32_t side, int64_t *time)
{
    const ValueEntry *entry = value_state_find(join->cleanup, key, hash, 0);
    if (!entry || !entry->value || row_is_null(entry->value, side))
        return false;
    *time = row_get_int64(entry->value, side);
    return true;
}

/* Records `time` (has_time false: none) as `side`'s cleanup time of the key. */
static int interval_set_cleanup_time(IntervalJoinOperator *join, const Row *key, uint64_t hash,
                                     uint32_t side, bool has_time, int64_t time)
{
    const ValueEntry *entry = value_state_find(join->cleanup, key, hash, 0);
    if (!entry && state_store_failed(join->cleanup->store))
        return operator_fail_state(&join->base, "interval join state");
    bool present[2] = {false, false};
    int64_t times[2] = {0, 0};
    for (uint32_t s = 0; entry && entry->value && s < 2; s++)
        if (!row_is_null(entry->value, s)) {
            present[s] = true;
            times[s] = row_get_int64(entry->value, s);
        }
    present[side] = has_time;
    times[side] = time;
    if (!present[0] && !present[1]) {
        if (entry && value_state_remove(join->cleanup, entry) != JOINERY_OK)
            return operator_fail_state(&join->base, "interval join state");
        return JOINERY_OK;
    }
    if (!entry)
        entry = value_state_insert(join->cleanup, key, hash, 0);
    if (!entry)
        return operator_fail_state(&join->base, "interval join state");
    RowBuilder *builder = &join->cleanup_builder;
    row_builder_begin(builder, 2, ROW_KIND_INSERT);
    for (uint32_t s = 0; s < 2; s++) {
        if (present[s])
            row_builder_set_int64(builder, s, times[s]);
        else
            row_builder_set_null(builder, s);
    }
    const Row *value = row_builder_finish(builder);
    if (!value)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (value_state_set(join->cleanup, entry, value, 0) != JOINERY_OK)
        return operator_fail_state(&join->base, "interval join state");
    return JOINERY_OK;
}

/* Registers the timer that frees `side`'s rows of the key from row time `time` on. */
static int interval_register_cleanup(IntervalJoinOperator *join, const Row *key, uint64_t hash,
                                     uint32_t side, int64_t time)
{
    int64_t at =
        saturating_add(saturating_add(saturating_add(time, join->sides[side].relative_size),
                                      join->min_cleanup_interval),
                       1);
    int status = operator_register_timer(
        &join->base, join->spec.rowtime ? TIMER_EVENT_TIME : TIMER_PROCESSING_TIME, at, key);
    if (status != JOINERY_OK)
        return status;
    return interval_set_cleanup_time(join, key, hash, side, true, at);
}

/*
 * Removes `side`'s rows of the key with time <= expiration, emitting the
 * unmatched outer ones padded. *earliest_left (may be NULL) gets the time
 * of the first row that remains, *remains whether any does.
 */
static int interval_expire(IntervalJoinOperator *join, const Row *key, uint64_t hash, uint32_t side,
                           int64_t expiration, bool *remains, int64_t *earliest_left)
{
    IntervalSide *own = &join->sides[side];
    SortedScan scan;
    bool any_expired = false;
    int status = JOINERY_OK;
    sorted_scan_begin(own->rows, key, hash, INT64_MIN, expiration, &scan);
    for (const SortedEntry *entry; status == JOINERY_OK && (entry = sorted_scan_next(&scan));) {
        any_expired = true;
        if (own->outer && entry->tag == 0)
            status = interval_emit_padded(join, side, entry->row);
    }
    sorted_scan_end(&scan);
    if (status != JOINERY_OK)
        return status;
    if (state_store_failed(own->rows->store))
        return operator_fail_state(&join->base, "interval join state");
    if (any_expired &&
        sorted_state_remove_range(own->rows, key, hash, INT64_MIN, expiration, NULL) != JOINERY_OK)
        return operator_fail_state(&join->base, "interval join state");
    if (!remains)
        return JOINERY_OK;
    *remains = false;
    if (expiration == INT64_MAX)
        return JOINERY_OK;
    sorted_scan_begin(own->rows, key, hash, expiration + 1, INT64_MAX, &scan);
    const SortedEntry *first = sorted_scan_next(&scan);
    if (first) {
        *remains = true;
        *earliest_left = first->time;
    }
    sorted_scan_end(&scan);
    if (!first && state_store_failed(own->rows->store))
        return operator_fail_state(&join->base, "interval join state");
    return JOINERY_OK;
}

/* ---- processing ---- */

/* True when the pair satisfies the residual condition (no residual: always). */
static bool interval_residual_accepts(IntervalJoinOperator *join, const Row *left, const Row *right)
{
    if (!join->spec.residual)
        return true;
    return expr_eval_predicate(join->spec.residual, left, join->spec.left_field_count, right,
                               &join->eval_context);
}

static int interval_process_row(IntervalJoinOperator *join, uint32_t input, const Row *row,
                                int64_t clock)
{
    if (row_kind(row) != ROW_KIND_INSERT)
        return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                             "IntervalJoin received a %s row: its inputs must be insert-only",
                             row_kind_name(row_kind(row)));
    IntervalSide *own = &join->sides[input];
    uint32_t other_input = 1 - input;
    IntervalSide *other = &join->sides[other_input];
    int64_t operator_time = interval_operator_time(join, clock);
    if (join->empty_window)
        return own->outer ? interval_emit_padded(join, input, row) : JOINERY_OK;
    if (join->spec.rowtime && row_is_null(row, own->time_field))
        return own->outer ? interval_emit_padded(join, input, row) : JOINERY_OK;
    int64_t time = join->spec.rowtime ? row_get_int64(row, own->time_field) : clock;
    bool has_null = false;
    const Row *key = key_extractor_build(&own->key, row, &has_null);
    if (!key)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint64_t hash = row_content_hash(key);
    /* the other side's rows this row can meet: [time - other's size, time + own size] */
    int64_t lower = saturating_sub(time, other->relative_size);
    int64_t upper = saturating_add(time, own->relative_size);
    bool emitted = false;
    int status = JOINERY_OK;
    if (!has_null) {
        SortedScan scan;
        sorted_scan_begin(other->rows, key, hash, lower, upper, &scan);
        for (const SortedEntry *entry; status == JOINERY_OK && (entry = sorted_scan_next(&scan));) {
            const Row *left = input == 0 ? row : entry->row;
            const Row *right = input == 0 ? entry->row : row;
            if (!interval_residual_accepts(join, left, right)) {
                if (join->eval_context.failed)
                    status = operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                           "interval join condition failed to evaluate");
                continue;
            }
            emitted = true;
            status = interval_emit(join, left, right);
            if (status == JOINERY_OK && other->outer && entry->tag == 0 &&
                sorted_scan_set_tag(&scan, entry, 1) != JOINERY_OK)
                status = operator_fail_state(&join->base, "interval join state");
        }
        sorted_scan_end(&scan);
        if (status != JOINERY_OK)
            return status;
        if (state_store_failed(other->rows->store))
            return operator_fail_state(&join->base, "interval join state");
        /* the other side's rows that can no longer meet anything go now */
        status =
            interval_expire(join, key, hash, other_input,
                            interval_expiration(operator_time, other->relative_size), NULL, NULL);
        if (status != JOINERY_OK)
            return status;
    }
    /* kept while the other side can still bring matches */
    if (operator_time < upper) {
        if (has_null && !own->outer)
            return JOINERY_OK; /* matches nothing and is never padded */
        if (sorted_state_add(own->rows, key, hash, time, row, emitted ? 1 : 0) != JOINERY_OK)
            return operator_fail_state(&join->base, "interval join state");
        int64_t registered;
        if (!interval_cleanup_time(join, key, hash, input, &registered)) {
            if (state_store_failed(join->cleanup->store))
                return operator_fail_state(&join->base, "interval join state");
            return interval_register_cleanup(join, key, hash, input, time);
        }
        return JOINERY_OK;
    }
    if (join->spec.rowtime && time < operator_time)
        own->late++;
    if (own->outer && !emitted)
        return interval_emit_padded(join, input, row);
    return JOINERY_OK;
}

static int interval_join_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    if (input > 1)
        return operator_fail(self, JOINERY_ERROR, "interval join has no input %u", input);
    int64_t clock = operator_now_millis(self);
    if (join->spec.residual) {
        arena_reset(&join->eval_arena);
        join->eval_context.now_millis = clock;
    }
    for (uint32_t i = 0; i < batch->count; i++) {
        int status = interval_process_row(join, input, batch->rows[i], clock);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* A cleanup timer of a key: frees the sides whose recorded time it is. */
static int interval_join_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                  const Row *key)
{
    (void)domain;
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    int64_t operator_time = interval_operator_time(join, operator_timer_now(self));
    uint64_t hash = row_content_hash(key);
    if (join->spec.residual)
        arena_reset(&join->eval_arena);
    /* the right rows first, then the left rows (Flink's order) */
    for (int step = 0; step < 2; step++) {
        uint32_t side = step == 0 ? 1 : 0;
        int64_t recorded;
        if (!interval_cleanup_time(join, key, hash, side, &recorded)) {
            if (state_store_failed(join->cleanup->store))
                return operator_fail_state(self, "interval join state");
            continue;
        }
        if (recorded != timestamp)
            continue;
        bool remains = false;
        int64_t earliest = 0;
        int status =
            interval_expire(join, key, hash, side,
                            interval_expiration(operator_time, join->sides[side].relative_size),
                            &remains, &earliest);
        if (status == JOINERY_OK)
            status = remains ? interval_register_cleanup(join, key, hash, side, earliest)
                             : interval_set_cleanup_time(join, key, hash, side, false, 0);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* Event time: the watermark held back by the larger relative size; +infinity as is. */
static int interval_join_on_watermark(Operator *self, int64_t watermark)
{
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    int64_t out = watermark;
    if (watermark != INT64_MAX && watermark != INT64_MIN)
        out = saturating_sub(watermark, join->watermark_delay);
    if (out <= self->current_watermark)
        return JOINERY_OK;
    return operator_emit_watermark(self, out);
}

static int interval_join_open(Operator *self, ExecContext *context)
{
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    join->eval_context.arena = &join->eval_arena;
    join->eval_context.diag = context->diag;
    join->eval_context.failed = false;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "interval join: no state store");
    for (int side = 0; side < 2; side++) {
        join->sides[side].rows = sorted_state_create(context->state_store);
        if (!join->sides[side].rows)
            return operator_fail_state(self, "interval join state");
    }
    join->cleanup = value_state_create(context->state_store, 0);
    if (!join->cleanup)
        return operator_fail_state(self, "interval join state");
    return JOINERY_OK;
}

static void interval_join_report_state(Operator *self)
{
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    if (!join->sides[0].rows || !join->sides[1].rows || !join->cleanup)
        return;
    StateCounters left = sorted_state_counters(join->sides[0].rows);
    StateCounters right = sorted_state_counters(join->sides[1].rows);
    StateCounters cleanup = value_state_counters(join->cleanup);
    self->metrics.state_bytes = left.bytes + right.bytes + cleanup.bytes;
    self->metrics.state_keys = cleanup.keys;
    self->metrics.state_rows = left.entries + right.entries;
}

/* The snapshot: left rows, right rows, the cleanup times (the framework adds the timers). */
static int interval_join_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    int status = JOINERY_OK;
    for (int side = 0; side < 2 && status == JOINERY_OK; side++)
        status = sorted_state_snapshot(join->sides[side].rows, writer, self->context->diag);
    if (status == JOINERY_OK)
        status = value_state_snapshot(join->cleanup, writer, self->context->diag);
    return status;
}

static int interval_join_restore(Operator *self, const StateReader *reader)
{
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    int status = JOINERY_OK;
    for (int side = 0; side < 2 && status == JOINERY_OK; side++)
        status = sorted_state_restore(join->sides[side].rows, reader, self->context->diag);
    if (status == JOINERY_OK)
        status = value_state_restore(join->cleanup, reader, self->context->diag);
    return status;
}

static void interval_join_close(Operator *self)
{
    IntervalJoinOperator *join = (IntervalJoinOperator *)self;
    for (int side = 0; side < 2; side++) {
        sorted_state_destroy(join->sides[side].rows);
        join->sides[side].rows = NULL;
        free(join->sides[side].variable_length);
        join->sides[side].variable_length = NULL;
        key_extractor_free(&join->sides[side].key);
    }
    value_state_destroy(join->cleanup);
    join->cleanup = NULL;
    row_builder_free(&join->output_builder);
    row_builder_free(&join->cleanup_builder);
    arena_destroy(&join->eval_arena);
    free(join);
}

static const OperatorVtable INTERVAL_JOIN_VTABLE = {
    .open = interval_join_open,
    .process = interval_join_process,
    .on_watermark = interval_join_on_watermark,
    .on_timer = interval_join_on_timer,
    .snapshot = interval_join_snapshot,
    .restore = interval_join_restore,
    .report_state = interval_join_report_state,
    .close = interval_join_close,
};

static const OperatorVtable INTERVAL_JOIN_UNDELAYED_VTABLE = {
    .open = interval_join_open,
    .process = interval_join_process,
    .on_watermark = NULL, /* processing time, empty window: the watermark passes as is */
    .on_timer = interval_join_on_timer,
    .snapshot = interval_join_snapshot,
    .restore = interval_join_restore,
    .report_state = interval_join_report_state,
    .close = interval_join_close,
};

IntervalJoinSideMetrics interval_join_operator_side_metrics(const Operator *op, uint32_t side)
{
    IntervalJoinSideMetrics metrics = {0, 0, 0, 0};
    if (!op || side > 1 ||
        (op->vtable != &INTERVAL_JOIN_VTABLE && op->vtable != &INTERVAL_JOIN_UNDELAYED_VTABLE))
        return metrics;
    const IntervalJoinOperator *join = (const IntervalJoinOperator *)op;
    metrics.late = join->sides[side].late;
    if (join->sides[side].rows) {
        StateCounters counters = sorted_state_counters(join->sides[side].rows);
        metrics.rows = counters.entries;
        metrics.keys = counters.keys;
        metrics.bytes = counters.bytes;
    }
    return metrics;
}

static bool *interval_variable_flags(const DataType *types, uint32_t count)
{
    bool *flags = calloc(count ? count : 1, sizeof(bool));
    if (flags)
        for (uint32_t i = 0; i < count; i++)
            flags[i] = type_is_variable_length(types[i].id);
    return flags;
}

Operator *interval_join_operator_create(const IntervalJoinOperatorSpec *spec, Diag *diag)
{
    if (!join_type_emits_right(spec->join_type)) {
        diag_error(diag, JOINERY_ERROR_UNSUPPORTED, "interval join: %s is not supported yet",
                   join_type_name(spec->join_type));
        return NULL;
    }
    if (spec->key_count > 0 && (!spec->left_keys || !spec->right_keys)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "interval join: key indexes missing");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->key_count; k++)
        if (spec->left_keys[k] >= spec->left_field_count ||
            spec->right_keys[k] >= spec->right_field_count) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "interval join: key field out of range");
            return NULL;
        }
    if (spec->rowtime && (spec->left_time_field >= spec->left_field_count ||
                          spec->right_time_field >= spec->right_field_count)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "interval join: time field out of range");
        return NULL;
    }
    if (spec->left_field_count + spec->right_field_count > UINT16_MAX) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "interval join: too many fields");
        return NULL;
    }
    IntervalJoinOperator *join = calloc(1, sizeof *join);
    if (!join) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    join->spec = *spec;
    join->sides[0] = (IntervalSide){.field_count = spec->left_field_count,
                                    .time_field = spec->left_time_field,
                                    .outer = join_type_preserves_left(spec->join_type),
                                    .relative_size = saturating_sub(0, spec->left_lower_bound)};
    join->sides[1] = (IntervalSide){.field_count = spec->right_field_count,
                                    .time_field = spec->right_time_field,
                                    .outer = join_type_preserves_right(spec->join_type),
                                    .relative_size = spec->left_upper_bound};
    join->empty_window = spec->left_upper_bound < spec->left_lower_bound;
    join->min_cleanup_interval = spec->min_cleanup_interval > 0 ? spec->min_cleanup_interval : 0;
    int64_t delay = join->sides[0].relative_size > join->sides[1].relative_size
                        ? join->sides[0].relative_size
                        : join->sides[1].relative_size;
    join->watermark_delay = join->empty_window || delay < 0 ? 0 : delay;
    bool keys_ready = key_extractor_init(&join->sides[0].key, spec->key_count, spec->left_keys,
                                         spec->left_types, spec->null_safe_keys) &&
                      key_extractor_init(&join->sides[1].key, spec->key_count, spec->right_keys,
                                         spec->right_types, spec->null_safe_keys);
    join->sides[0].variable_length =
        interval_variable_flags(spec->left_types, spec->left_field_count);
    join->sides[1].variable_length =
        interval_variable_flags(spec->right_types, spec->right_field_count);
    row_builder_init(&join->output_builder);
    row_builder_init(&join->cleanup_builder);
    arena_init(&join->eval_arena, 4096);
    snprintf(join->name, sizeof join->name, "IntervalJoin(joinType=[%s])",
             join_type_name(spec->join_type));
    bool rowtime_delay = spec->rowtime && !join->empty_window;
    operator_init(&join->base,
                  rowtime_delay ? &INTERVAL_JOIN_VTABLE : &INTERVAL_JOIN_UNDELAYED_VTABLE,
                  join->name, 2, join);
    join->base.uses_timers = true;
    if (!join->sides[0].variable_length || !join->sides[1].variable_length || !keys_ready) {
        operator_close(&join->base);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return &join->base;
}
