/*
 * op_group_window_aggregate.c - the merging window aggregate operator (see
 * op_group_window_aggregate.h).
 *
 * Per row: its windows (window_assign, or the key's sessions merged with
 * session_windows_add); for each, the accumulator under [start, end,
 * keys...] is looked up (or started, with the window's timer), decoded, the
 * row folded in (exec/aggregate/aggregate_accumulator.h) and written back.
 * Merging sessions folds the absorbed windows' accumulators into the merged
 * one, one at a time: each stored row is read while it is valid (a
 * ValueEntry lasts until the next call on its state), the working copy
 * encoded and copied into `held` before the next lookup. A timer emits the
 * window's row and removes its state. A DISTINCT call is
 * applied only when the row adds a value new to the window or retracts the
 * last occurrence of one (exec/aggregate/distinct_values.h); merging
 * sessions skips the DISTINCT calls of the windows merged away, moves their
 * values under the merged window and rebuilds those calls from its values.
 */
#include "engine/exec/ops/op_group_window_aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/exec/aggregate/aggregate_accumulator.h"
#include "engine/exec/aggregate/distinct_values.h"
#include "engine/exec/window/window_assigner.h"
#include "engine/state/state.h"

typedef struct GroupWindowAggregateOperator {
    Operator base;
    GroupWindowAggregateSpec spec;
    AggregateAccumulator accumulator;
    DistinctValues distinct;   /* the DISTINCT calls' values per window */
    bool *skip;                /* per call: left out of the row being applied */
    bool *key_variable_length; /* per group key */
    ValueState *accumulators;  /* [start, end, keys...] -> accumulator */
    ValueState *sessions;      /* SESSION: [keys...] -> the live sessions' bounds */
    WindowBounds *windows;     /* a row's windows (TUMBLE, HOP) */
    uint32_t window_capacity;
    SessionWindows session_set; /* the current key's sessions (SESSION) */
    WindowBounds *absorbed;
    uint32_t absorbed_capacity;
    uint64_t *held; /* a copy of the working accumulator's encoding while merging */
    uint32_t held_capacity;
    bool *distinct_calls; /* per call: DISTINCT (left out of merges, rebuilt from values) */
    uint64_t *target;     /* SESSION with DISTINCT: a copy of the merged window's key */
    uint32_t target_capacity;
    uint64_t late_rows;
    RowBuilder key_builder;
    RowBuilder group_builder;
    RowBuilder sessions_builder;
    RowBuilder output_builder;
} GroupWindowAggregateOperator;

static const OperatorVtable GROUP_WINDOW_AGGREGATE_VTABLE;

static int group_window_no_memory(GroupWindowAggregateOperator *agg)
{
    return operator_fail(&agg->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

static int group_window_state_failed(GroupWindowAggregateOperator *agg)
{
    return operator_fail_state(&agg->base, "group window aggregate state");
}

static int group_window_overflow(GroupWindowAggregateOperator *agg)
{
    return operator_fail(&agg->base, JOINERY_ERROR_RUNTIME, "%s",
                         aggregate_accumulator_message(&agg->accumulator, JOINERY_ERROR_RUNTIME));
}

/* A failure of the distinct values (distinct_values_update's status). */
static int group_window_distinct_failed(GroupWindowAggregateOperator *agg, int status)
{
    if (status == JOINERY_ERROR_NO_MEMORY)
        return group_window_no_memory(agg);
    if (status == JOINERY_ERROR_RUNTIME)
        return operator_fail(&agg->base, status, "more than %d copies of one value in a window",
                             MULTISET_COUNT_MAX);
    return group_window_state_failed(agg);
}

/* [start, end, the row's group key fields] from an input row. */
static const Row *group_window_key(GroupWindowAggregateOperator *agg, const Row *input,
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

/* [group key fields] from an input row (the sessions' state key). */
static const Row *group_window_group(GroupWindowAggregateOperator *agg, const Row *input)
{
    RowBuilder *builder = &agg->group_builder;
    uint32_t key_count = agg->spec.group_key_count;
    row_builder_begin(builder, key_count, ROW_KIND_INSERT);
    for (uint32_t k = 0; k < key_count; k++)
        row_builder_copy_field(builder, k, input, agg->spec.group_keys[k],
                               agg->key_variable_length[k]);
    return row_builder_finish(builder);
}

/* Keeps a copy of the working accumulator in agg->held and decodes it from there. */
static int group_window_hold(GroupWindowAggregateOperator *agg)
{
    const Row *encoded = aggregate_accumulator_encode(&agg->accumulator);
    if (!encoded)
        return group_window_no_memory(agg);
    uint32_t size = row_size(encoded);
    if (size > agg->held_capacity) {
        uint64_t *grown = realloc(agg->held, size);
        if (!grown)
            return group_window_no_memory(agg);
        agg->held = grown;
        agg->held_capacity = size;
    }
    memcpy(agg->held, encoded, size);
    aggregate_accumulator_decode(&agg->accumulator, (const Row *)agg->held);
    return JOINERY_OK;
}

/* Writes the working accumulator under `key` (entry: its current entry, or NULL for a new one). */
static int group_window_store(GroupWindowAggregateOperator *agg, const Row *key, uint64_t hash,
                              const ValueEntry *entry)
{
    const Row *encoded = aggregate_accumulator_encode(&agg->accumulator);
    if (!encoded)
        return group_window_no_memory(agg);
    bool first = entry == NULL;
    if (first) {
        entry = value_state_insert(agg->accumulators, key, hash, 0);
        if (!entry)
            return group_window_state_failed(agg);
    }
    if (value_state_set(agg->accumulators, entry, encoded, 0) != JOINERY_OK) {
        if (first)
            (void)value_state_remove(agg->accumulators, entry);
        return group_window_state_failed(agg);
    }
    return JOINERY_OK;
}

static TimerDomain group_window_domain(const GroupWindowAggregateOperator *agg)
{
    return agg->spec.proctime ? TIMER_PROCESSING_TIME : TIMER_EVENT_TIME;
}

/* Folds `input` into the window's accumulator (TUMBLE, HOP), starting it and its timer if new. */
static int group_window_apply(GroupWindowAggregateOperator *agg, const Row *input,
                              WindowBounds window, bool accumulate)
{
    const Row *key = group_window_key(agg, input, window);
    if (!key)
        return group_window_no_memory(agg);
    if (distinct_values_used(&agg->distinct)) {
        /* before the lookup: the entry is valid only until another state call */
        int counted =
            distinct_values_update_row(&agg->distinct, agg->spec.calls, agg->spec.call_count, key,
                                       input, accumulate, agg->skip);
        if (counted != JOINERY_OK)
            return group_window_distinct_failed(agg, counted);
    }
    uint64_t hash = row_content_hash(key);
    const ValueEntry *entry = value_state_find(agg->accumulators, key, hash, 0);
    if (!entry && state_store_failed(agg->accumulators->store))
        return group_window_state_failed(agg);
    if (!entry && !accumulate) {
        agg->base.metrics.skipped_rows++; /* a retraction for a window never accumulated */
        return JOINERY_OK;
    }
    if (entry)
        aggregate_accumulator_decode(&agg->accumulator, entry->value);
    else
        aggregate_accumulator_reset(&agg->accumulator);
    int applied =
        aggregate_accumulator_apply_except(&agg->accumulator, input, accumulate, agg->skip);
    if (applied != JOINERY_OK)
        return applied == JOINERY_ERROR_NO_MEMORY ? group_window_no_memory(agg)
                                                  : group_window_overflow(agg);
    bool first = entry == NULL;
    int status = group_window_store(agg, key, hash, entry);
    if (status == JOINERY_OK && first)
        status = operator_register_timer(&agg->base, group_window_domain(agg), window.end - 1, key);
    return status;
}

/* Reads the key's live sessions into agg->session_set. */
static int group_window_load_sessions(GroupWindowAggregateOperator *agg, const Row *group,
                                      uint64_t hash)
{
    SessionWindows *set = &agg->session_set;
    set->count = 0;
    const ValueEntry *entry = value_state_find(agg->sessions, group, hash, 0);
    if (!entry)
        return state_store_failed(agg->sessions->store) ? group_window_state_failed(agg)
                                                        : JOINERY_OK;
    uint32_t count = row_field_count(entry->value) / 2;
    if (!session_windows_reserve(set, count))
        return group_window_no_memory(agg);
    for (uint32_t w = 0; w < count; w++) {
        set->windows[w].start = row_get_int64(entry->value, 2 * w);
        set->windows[w].end = row_get_int64(entry->value, 2 * w + 1);
    }
    set->count = count;
    return JOINERY_OK;
}

/* Writes agg->session_set back as the key's sessions (removed when empty). */
static int group_window_save_sessions(GroupWindowAggregateOperator *agg, const Row *group,
                                      uint64_t hash)
{
    const SessionWindows *set = &agg->session_set;
    const ValueEntry *entry = value_state_find(agg->sessions, group, hash, 0);
    if (!entry && state_store_failed(agg->sessions->store))
        return group_window_state_failed(agg);
    if (set->count == 0) {
        if (entry && value_state_remove(agg->sessions, entry) != JOINERY_OK)
            return group_window_state_failed(agg);
        return JOINERY_OK;
    }
    RowBuilder *builder = &agg->sessions_builder;
    row_builder_begin(builder, 2 * set->count, ROW_KIND_INSERT);
    for (uint32_t w = 0; w < set->count; w++) {
        row_builder_set_int64(builder, 2 * w, set->windows[w].start);
        row_builder_set_int64(builder, 2 * w + 1, set->windows[w].end);
    }
    const Row *bounds = row_builder_finish(builder);
    if (!bounds)
        return group_window_no_memory(agg);
    bool first = entry == NULL;
    if (first) {
        entry = value_state_insert(agg->sessions, group, hash, 0);
        if (!entry)
            return group_window_state_failed(agg);
    }
    if (value_state_set(agg->sessions, entry, bounds, 0) != JOINERY_OK) {
        if (first)
            (void)value_state_remove(agg->sessions, entry);
        return group_window_state_failed(agg);
    }
    return JOINERY_OK;
}

/* Adds one distinct value to the call being rebuilt (distinct_values_each's visitor). */
typedef struct DistinctRebuild {
    AggregateAccumulator *accumulator;
    uint32_t call;
} DistinctRebuild;

static int group_window_rebuild_value(void *context, Value value)
{
    DistinctRebuild *rebuild = context;
    return aggregate_accumulator_add_value(rebuild->accumulator, rebuild->call, value);
}

/*
 * SESSION with DISTINCT calls: the merged window's distinct values are the
 * absorbed windows' (already moved under `target`); each DISTINCT call of
 * the working copy is rebuilt from them, every value once.
 */
static int group_window_rebuild_distinct(GroupWindowAggregateOperator *agg, const Row *target)
{
    for (uint32_t i = 0; i < agg->spec.call_count; i++) {
        if (!agg->distinct_calls[i])
            continue;
        aggregate_accumulator_reset_call(&agg->accumulator, i);
        DistinctRebuild rebuild = {&agg->accumulator, i};
        int status =
            distinct_values_each(&agg->distinct, i, target, group_window_rebuild_value, &rebuild);
        if (status == JOINERY_ERROR_RUNTIME)
            return group_window_overflow(agg);
        if (status == JOINERY_ERROR_UNSUPPORTED)
            return operator_fail(&agg->base, status,
                                 "COLLECT and ARRAY_AGG in a SESSION group window (sessions "
                                 "merged) are not supported yet");
        if (status != JOINERY_OK)
            return group_window_state_failed(agg);
    }
    return JOINERY_OK;
}

/* Keeps a copy of `key` in agg->target. */
static const Row *group_window_keep_target(GroupWindowAggregateOperator *agg, const Row *key)
{
    uint32_t size = row_size(key);
    if (size > agg->target_capacity) {
        uint64_t *grown = realloc(agg->target, size);
        if (!grown)
            return NULL;
        agg->target = grown;
        agg->target_capacity = size;
    }
    memcpy(agg->target, key, size);
    return (const Row *)agg->target;
}

/* Adds an +I row at `time` to its key's sessions, merging them (SESSION). */
static int group_window_add_session(GroupWindowAggregateOperator *agg, const Row *input,
                                    int64_t time)
{
    const Row *group = group_window_group(agg, input);
    if (!group)
        return group_window_no_memory(agg);
    uint64_t group_hash = row_content_hash(group);
    int status = group_window_load_sessions(agg, group, group_hash);
    if (status != JOINERY_OK)
        return status;
    SessionWindows *set = &agg->session_set;
    int64_t gap = agg->spec.window.gap_millis;
    int64_t watermark = agg->base.input_watermark;
    /* a late row that merges into no live session starts no session (Flink drops it) */
    bool intersects = false;
    for (uint32_t w = 0; w < set->count && !intersects; w++)
        intersects = set->windows[w].start <= time + gap && time <= set->windows[w].end;
    if (!agg->spec.proctime && !intersects && watermark != INT64_MIN &&
        watermark >= time + gap - 1) {
        agg->late_rows++;
        return JOINERY_OK;
    }
    if (set->count + 1 > agg->absorbed_capacity) {
        uint32_t capacity = (set->count + 1) * 2;
        WindowBounds *grown = realloc(agg->absorbed, capacity * sizeof *grown);
        if (!grown)
            return group_window_no_memory(agg);
        agg->absorbed = grown;
        agg->absorbed_capacity = capacity;
    }
    WindowBounds merged;
    uint32_t absorbed_count = 0;
    if (!session_windows_add(set, time, gap, &merged, agg->absorbed, agg->absorbed_capacity,
                             &absorbed_count))
        return group_window_no_memory(agg);
    /* the merged window's accumulator: the absorbed ones folded together, then the row */
    aggregate_accumulator_reset(&agg->accumulator);
    bool merged_exists = false, moved_distinct = false;
    bool distinct = distinct_values_used(&agg->distinct);
    const Row *target = NULL;
    if (distinct) {
        const Row *merged_key = group_window_key(agg, input, merged);
        target = merged_key ? group_window_keep_target(agg, merged_key) : NULL;
        if (!target)
            return group_window_no_memory(agg);
    }
    TimerDomain domain = group_window_domain(agg);
    for (uint32_t a = 0; a < absorbed_count; a++) {
        WindowBounds old = agg->absorbed[a];
        if (old.start == merged.start && old.end == merged.end) {
            merged_exists = true; /* the row fell inside this session: its state stays */
        }
        const Row *key = group_window_key(agg, input, old);
        if (!key)
            return group_window_no_memory(agg);
        uint64_t hash = row_content_hash(key);
        const ValueEntry *entry = value_state_find(agg->accumulators, key, hash, 0);
        if (!entry) {
            if (state_store_failed(agg->accumulators->store))
                return group_window_state_failed(agg);
            continue;
        }
        /* the DISTINCT calls of the windows merged away are rebuilt from their values below */
        bool is_target = old.start == merged.start && old.end == merged.end;
        int merged_status = aggregate_accumulator_merge_except(
            &agg->accumulator, entry->value, distinct && !is_target ? agg->distinct_calls : NULL);
        if (merged_status == JOINERY_ERROR_UNSUPPORTED)
            return operator_fail(&agg->base, merged_status,
                                 "COLLECT and ARRAY_AGG in a SESSION group window (sessions "
                                 "merged) are not supported yet");
        if (merged_status != JOINERY_OK)
            return group_window_overflow(agg);
        status = group_window_hold(agg);
        if (status != JOINERY_OK)
            return status;
        if (old.start == merged.start && old.end == merged.end)
            continue;
        if (value_state_remove(agg->accumulators, entry) != JOINERY_OK)
            return group_window_state_failed(agg);
        status = operator_delete_timer(&agg->base, domain, old.end - 1, key);
        if (status != JOINERY_OK)
            return status;
        if (distinct) {
            /* its distinct values join the merged window's */
            int moved = distinct_values_move(&agg->distinct, key, target);
            if (moved != JOINERY_OK)
                return group_window_distinct_failed(agg, moved);
            moved_distinct = true;
        }
    }
    if (distinct) {
        /* with the merged window's distinct values whole: rebuild its DISTINCT calls */
        if (moved_distinct || !merged_exists) {
            status = group_window_rebuild_distinct(agg, target);
            if (status != JOINERY_OK)
                return status;
        }
        int counted = distinct_values_update_row(
            &agg->distinct, agg->spec.calls, agg->spec.call_count, target, input, true, agg->skip);
        if (counted != JOINERY_OK)
            return group_window_distinct_failed(agg, counted);
    }
    int applied = aggregate_accumulator_apply_except(&agg->accumulator, input, true,
                                                     distinct ? agg->skip : NULL);
    if (applied != JOINERY_OK)
        return applied == JOINERY_ERROR_NO_MEMORY ? group_window_no_memory(agg)
                                                  : group_window_overflow(agg);
    const Row *key = group_window_key(agg, input, merged);
    if (!key)
        return group_window_no_memory(agg);
    uint64_t hash = row_content_hash(key);
    const ValueEntry *entry = NULL;
    if (merged_exists) {
        entry = value_state_find(agg->accumulators, key, hash, 0);
        if (!entry && state_store_failed(agg->accumulators->store))
            return group_window_state_failed(agg);
    }
    status = group_window_store(agg, key, hash, entry);
    if (status == JOINERY_OK && !entry)
        status = operator_register_timer(&agg->base, domain, merged.end - 1, key);
    if (status == JOINERY_OK)
        status = group_window_save_sessions(agg, group, group_hash);
    return status;
}

static int group_window_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    GroupWindowAggregateOperator *agg = self->impl;
    const GroupWindowAggregateSpec *spec = &agg->spec;
    bool session = spec->window.kind == WINDOW_SESSION;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        bool accumulate = row_kind_is_accumulate(row_kind(row));
        int64_t time;
        if (spec->proctime) {
            time = operator_now_millis(self);
        } else if (row_is_null(row, spec->time_field)) {
            agg->late_rows++;
            continue;
        } else {
            time = row_get_int64(row, spec->time_field);
        }
        if (session) {
            if (!accumulate)
                return operator_fail(self, JOINERY_ERROR,
                                     "session window aggregate received a %s row: its input "
                                     "must be append-only",
                                     row_kind_name(row_kind(row)));
            int status = group_window_add_session(agg, row, time);
            if (status != JOINERY_OK)
                return status;
            continue;
        }
        uint32_t count = window_assign(&spec->window, time, agg->windows, agg->window_capacity);
        int64_t watermark = self->input_watermark;
        bool accepted = false;
        for (uint32_t w = 0; w < count; w++) {
            /* Flink's isWindowLate: an event-time window whose end - 1 the watermark passed */
            if (!spec->proctime && watermark != INT64_MIN && watermark >= agg->windows[w].end - 1)
                continue;
            accepted = true;
            int status = group_window_apply(agg, row, agg->windows[w], accumulate);
            if (status != JOINERY_OK)
                return status;
        }
        if (!accepted)
            agg->late_rows++;
    }
    return JOINERY_OK;
}

/* Drops the fired session [start, end) from its key's live sessions. */
static int group_window_forget_session(GroupWindowAggregateOperator *agg, const Row *key,
                                       int64_t start, int64_t end)
{
    uint32_t key_count = agg->spec.group_key_count;
    RowBuilder *builder = &agg->group_builder;
    row_builder_begin(builder, key_count, ROW_KIND_INSERT);
    for (uint32_t k = 0; k < key_count; k++)
        row_builder_copy_field(builder, k, key, k + 2, agg->key_variable_length[k]);
    const Row *group = row_builder_finish(builder);
    if (!group)
        return group_window_no_memory(agg);
    uint64_t hash = row_content_hash(group);
    int status = group_window_load_sessions(agg, group, hash);
    if (status != JOINERY_OK)
        return status;
    SessionWindows *set = &agg->session_set;
    uint32_t kept = 0;
    for (uint32_t w = 0; w < set->count; w++)
        if (set->windows[w].start != start || set->windows[w].end != end)
            set->windows[kept++] = set->windows[w];
    set->count = kept;
    return group_window_save_sessions(agg, group, hash);
}

/* The window of `key` fired: emit its row (when it has rows) and drop its state. */
static int group_window_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                 const Row *key)
{
    (void)timestamp;
    GroupWindowAggregateOperator *agg = self->impl;
    if (domain != group_window_domain(agg))
        return JOINERY_OK;
    uint64_t hash = row_content_hash(key);
    const ValueEntry *entry = value_state_find(agg->accumulators, key, hash, 0);
    if (!entry)
        return state_store_failed(agg->accumulators->store) ? group_window_state_failed(agg)
                                                            : JOINERY_OK;
    const GroupWindowAggregateSpec *spec = &agg->spec;
    uint32_t key_count = spec->group_key_count, call_count = spec->call_count;
    int64_t start = row_get_int64(key, 0), end = row_get_int64(key, 1);
    int status = JOINERY_OK;
    if (aggregate_accumulator_row_count(entry->value) > 0) {
        RowBuilder *builder = &agg->output_builder;
        row_builder_begin(builder, key_count + call_count + spec->property_count, ROW_KIND_INSERT);
        for (uint32_t k = 0; k < key_count; k++)
            row_builder_copy_field(builder, k, key, k + 2, agg->key_variable_length[k]);
        if (aggregate_accumulator_results(&agg->accumulator, entry->value, builder, key_count) !=
            JOINERY_OK)
            return group_window_overflow(agg);
        for (uint32_t p = 0; p < spec->property_count; p++) {
            int64_t value = start;
            switch (spec->properties[p]) {
            case WINDOW_PROPERTY_START:
                value = start;
                break;
            case WINDOW_PROPERTY_END:
                value = end;
                break;
            case WINDOW_PROPERTY_ROWTIME:
                value = end - 1;
                break;
            case WINDOW_PROPERTY_PROCTIME:
                value = operator_timer_now(self);
                break;
            }
            row_builder_set_int64(builder, key_count + call_count + p, value);
        }
        const Row *out = row_builder_finish(builder);
        if (!out)
            return group_window_no_memory(agg);
        status = operator_emit(self, out, ROW_KIND_INSERT);
    }
    if (status == JOINERY_OK && value_state_remove(agg->accumulators, entry) != JOINERY_OK)
        status = group_window_state_failed(agg);
    if (status == JOINERY_OK && distinct_values_drop(&agg->distinct, key) != JOINERY_OK)
        status = group_window_state_failed(agg);
    if (status == JOINERY_OK && spec->window.kind == WINDOW_SESSION)
        status = group_window_forget_session(agg, key, start, end);
    return status;
}

static int group_window_open(Operator *self, ExecContext *context)
{
    GroupWindowAggregateOperator *agg = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "group window aggregate: no state store");
    /* never subject to table.exec.state.ttl: a window's state goes when it fires */
    agg->accumulators = value_state_create(context->state_store, 0);
    agg->sessions = agg->accumulators ? value_state_create(context->state_store, 0) : NULL;
    if (!agg->sessions || !distinct_values_open(&agg->distinct, context->state_store))
        return group_window_state_failed(agg);
    return JOINERY_OK;
}

static void group_window_report_state(Operator *self)
{
    GroupWindowAggregateOperator *agg = self->impl;
    if (!agg->accumulators || !agg->sessions)
        return;
    StateCounters windows = value_state_counters(agg->accumulators);
    StateCounters sessions = value_state_counters(agg->sessions);
    StateCounters values = distinct_values_counters(&agg->distinct);
    self->metrics.state_bytes = windows.bytes + sessions.bytes + values.bytes;
    self->metrics.state_keys = windows.keys;
    self->metrics.state_rows = windows.entries + values.entries;
}

static int group_window_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    GroupWindowAggregateOperator *agg = self->impl;
    int status = value_state_snapshot(agg->accumulators, writer, self->context->diag);
    if (status == JOINERY_OK)
        status = value_state_snapshot(agg->sessions, writer, self->context->diag);
    if (status == JOINERY_OK)
        status = distinct_values_snapshot(&agg->distinct, writer, self->context->diag);
    return status;
}

static int group_window_restore(Operator *self, const StateReader *reader)
{
    GroupWindowAggregateOperator *agg = self->impl;
    int status = value_state_restore(agg->accumulators, reader, self->context->diag);
    if (status == JOINERY_OK)
        status = value_state_restore(agg->sessions, reader, self->context->diag);
    if (status == JOINERY_OK)
        status = distinct_values_restore(&agg->distinct, reader, self->context->diag);
    return status;
}

static void group_window_close(Operator *self)
{
    GroupWindowAggregateOperator *agg = self->impl;
    value_state_destroy(agg->accumulators);
    value_state_destroy(agg->sessions);
    aggregate_accumulator_free(&agg->accumulator);
    distinct_values_free(&agg->distinct);
    free(agg->skip);
    free(agg->distinct_calls);
    free(agg->target);
    session_windows_free(&agg->session_set);
    free(agg->key_variable_length);
    free(agg->windows);
    free(agg->absorbed);
    free(agg->held);
    row_builder_free(&agg->key_builder);
    row_builder_free(&agg->group_builder);
    row_builder_free(&agg->sessions_builder);
    row_builder_free(&agg->output_builder);
    free(agg);
}

static const OperatorVtable GROUP_WINDOW_AGGREGATE_VTABLE = {
    .open = group_window_open,
    .process = group_window_process,
    .on_watermark = NULL, /* the timers fire before the watermark goes on */
    .on_timer = group_window_on_timer,
    .snapshot = group_window_snapshot,
    .restore = group_window_restore,
    .report_state = group_window_report_state,
    .close = group_window_close,
};

uint64_t group_window_aggregate_operator_late_rows(const Operator *op)
{
    if (!op || op->vtable != &GROUP_WINDOW_AGGREGATE_VTABLE)
        return 0;
    return ((const GroupWindowAggregateOperator *)op->impl)->late_rows;
}

Operator *group_window_aggregate_operator_create(const GroupWindowAggregateSpec *spec, Diag *diag)
{
    if ((!spec->proctime && spec->time_field >= spec->input_field_count) ||
        spec->group_key_count + spec->call_count > UINT16_MAX / 2 ||
        spec->property_count > GROUP_WINDOW_MAX_PROPERTIES ||
        (spec->group_key_count && !spec->group_keys) || (spec->call_count && !spec->calls) ||
        spec->window.kind == WINDOW_CUMULATE) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "group window aggregate: inconsistent spec");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->group_key_count; k++)
        if (spec->group_keys[k] >= spec->input_field_count) {
            diag_error(diag, JOINERY_ERROR_VALIDATE,
                       "group window aggregate: group key out of range");
            return NULL;
        }
    GroupWindowAggregateOperator *agg = calloc(1, sizeof *agg);
    if (!agg) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    agg->spec = *spec;
    operator_init(&agg->base, &GROUP_WINDOW_AGGREGATE_VTABLE,
                  spec->name ? spec->name : "GroupWindowAggregate", 1, agg);
    agg->base.uses_timers = true;
    row_builder_init(&agg->key_builder);
    row_builder_init(&agg->group_builder);
    row_builder_init(&agg->sessions_builder);
    row_builder_init(&agg->output_builder);
    uint32_t keys = spec->group_key_count ? spec->group_key_count : 1;
    agg->window_capacity = window_assign_max(&spec->window);
    agg->windows = calloc(agg->window_capacity ? agg->window_capacity : 1, sizeof(WindowBounds));
    agg->key_variable_length = calloc(keys, sizeof(bool));
    agg->skip = calloc(spec->call_count ? spec->call_count : 1, sizeof(bool));
    agg->distinct_calls = calloc(spec->call_count ? spec->call_count : 1, sizeof(bool));
    if (!agg->windows || !agg->key_variable_length || !agg->skip || !agg->distinct_calls) {
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
    for (uint32_t i = 0; i < spec->call_count; i++)
        agg->distinct_calls[i] = distinct_values_is_distinct(&agg->distinct, i);
    return &agg->base;
}
