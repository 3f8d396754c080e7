/*
 * op_temporal_join.c - the event-time temporal join (see the header for
 * the semantics). Invariants: the versioned state holds at most one entry
 * per (key, time); a key has an event-time timer registered exactly when
 * its ValueState entry says which one; the scratch arena holds copies of
 * the rows one timer emits and is reset per timer.
 */
#include "engine/exec/ops/op_temporal_join.h"

#include <stdlib.h>
#include <string.h>

#include "engine/exec/expr_eval.h"
#include "engine/exec/key_extractor.h"
#include "engine/state/state.h"

typedef struct TemporalSide {
    KeyExtractor key;
    uint32_t field_count;
    uint32_t time_field;
    bool *variable_length;
    SortedState *state;
} TemporalSide;

/* A probe row taken out of state by a timer, in arrival order. */
typedef struct PendingRow {
    const Row *row;
    int64_t time;
    uint64_t sequence;
    RowKind kind;
} PendingRow;

/* A version of the key a timer works on. */
typedef struct Version {
    const Row *row;
    int64_t time;
    RowKind kind;
} Version;

typedef struct TemporalJoinOperator {
    Operator base;
    TemporalJoinSpec spec;
    TemporalSide sides[2];
    ValueState *timers; /* key -> the one event-time timer it has, a row (BIGINT) */
    RowBuilder output_builder;
    RowBuilder timer_builder;
    Arena scratch; /* copies of the rows one timer handles */
    Arena eval_arena;
    ExprEvalContext eval_context;
} TemporalJoinOperator;

static const Row *temporal_build_output(TemporalJoinOperator *join, const Row *left,
                                        const Row *right)
{
    RowBuilder *builder = &join->output_builder;
    uint32_t left_count = join->sides[0].field_count;
    uint32_t right_count = join->sides[1].field_count;
    row_builder_begin(builder, left_count + right_count, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < left_count; i++)
        row_builder_copy_field(builder, i, left, i, join->sides[0].variable_length[i]);
    for (uint32_t i = 0; i < right_count; i++) {
        if (right)
            row_builder_copy_field(builder, left_count + i, right, i,
                                   join->sides[1].variable_length[i]);
        else
            row_builder_set_null(builder, left_count + i);
    }
    return row_builder_finish(builder);
}

static int temporal_emit(TemporalJoinOperator *join, const Row *left, const Row *right,
                         RowKind kind)
{
    const Row *row = temporal_build_output(join, left, right);
    if (!row)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return operator_emit(&join->base, row, kind);
}

/* Registers an event-time timer for `key` at `time` unless one at or before it is (Flink's
   registerSmallestTimer). */
static int temporal_register_smallest(TemporalJoinOperator *join, const Row *key, uint64_t hash,
                                      int64_t time)
{
    Operator *self = &join->base;
    const ValueEntry *entry = value_state_find(join->timers, key, hash, 0);
    if (!entry && state_store_failed(join->timers->store))
        return operator_fail_state(self, "temporal join timers");
    if (entry && entry->value) {
        int64_t registered = row_get_int64(entry->value, 0);
        if (registered <= time)
            return JOINERY_OK;
        int status = operator_delete_timer(self, TIMER_EVENT_TIME, registered, key);
        if (status != JOINERY_OK)
            return status;
    }
    if (!entry)
        entry = value_state_insert(join->timers, key, hash, 0);
    if (!entry)
        return operator_fail_state(self, "temporal join timers");
    row_builder_begin(&join->timer_builder, 1, ROW_KIND_INSERT);
    row_builder_set_int64(&join->timer_builder, 0, time);
    const Row *value = row_builder_finish(&join->timer_builder);
    if (!value)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (value_state_set(join->timers, entry, value, 0) != JOINERY_OK)
        return operator_fail_state(self, "temporal join timers");
    return operator_register_timer(self, TIMER_EVENT_TIME, time, key);
}

static int temporal_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    TemporalJoinOperator *join = self->impl;
    TemporalSide *side = &join->sides[input];
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        if (row_is_null(row, side->time_field))
            /* Flink fails the job at the watermark generator; a delete without its time
               (an upsert tombstone whose time is a value column) would be lost */
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "RowTime field should not be null: a row of the %s side of the "
                                 "temporal join has no time%s",
                                 input == 0 ? "probe" : "versioned",
                                 input == 1 && row_kind(row) == ROW_KIND_DELETE
                                     ? " (an upsert delete carries only its key: declare the "
                                       "time as METADATA FROM 'timestamp')"
                                     : "");
        int64_t time = row_get_int64(row, side->time_field);
        const Row *key = key_extractor_build(&side->key, row, NULL);
        if (!key)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        uint64_t hash = row_content_hash(key);
        int status = JOINERY_OK;
        /* a version replaces the one of the same time (Flink's MapState put) */
        if (input == 1)
            status = sorted_state_remove_range(side->state, key, hash, time, time, NULL);
        if (status == JOINERY_OK)
            status = sorted_state_add(side->state, key, hash, time, row, (int64_t)row_kind(row));
        if (status != JOINERY_OK)
            return operator_fail_state(self, "temporal join state");
        status = temporal_register_smallest(join, key, hash, time);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int compare_pending(const void *a, const void *b)
{
    uint64_t x = ((const PendingRow *)a)->sequence, y = ((const PendingRow *)b)->sequence;
    return x < y ? -1 : x > y;
}

/* Index of the version with the largest time <= time, or -1. */
static int64_t temporal_version_at(const Version *versions, uint32_t count, int64_t time)
{
    int64_t low = 0, high = (int64_t)count - 1, found = -1;
    while (low <= high) {
        int64_t middle = low + (high - low) / 2;
        if (versions[middle].time <= time) {
            found = middle;
            low = middle + 1;
        } else {
            high = middle - 1;
        }
    }
    return found;
}

/* Grows *array (of `size`-byte items, *capacity of them) in the scratch arena to hold one more. */
static bool temporal_reserve(Arena *arena, void **array, uint32_t count, uint32_t *capacity,
                             size_t size)
{
    if (count < *capacity)
        return true;
    uint32_t grown = *capacity ? *capacity * 2 : 16;
    void *bigger = arena_alloc(arena, grown * size);
    if (!bigger)
        return false;
    if (count)
        memcpy(bigger, *array, count * size);
    *array = bigger;
    *capacity = grown;
    return true;
}

/*
 * The key's timer: emits the probe rows at or before the watermark, drops the versions
 * no probe row can ask for any more, and registers the next timer when probe rows wait.
 */
static int temporal_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    (void)timestamp;
    if (domain != TIMER_EVENT_TIME)
        return JOINERY_OK;
    TemporalJoinOperator *join = self->impl;
    TemporalSide *left = &join->sides[0], *right = &join->sides[1];
    int64_t watermark = timer_service_time(self->timers, TIMER_EVENT_TIME);
    uint64_t hash = row_content_hash(key);
    Arena *scratch = &join->scratch;
    arena_reset(scratch);
    /* the key row is only valid during the call and state calls may move it */
    Row *own_key = row_copy(scratch, key);
    if (!own_key)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    const ValueEntry *entry = value_state_find(join->timers, own_key, hash, 0);
    if (entry && value_state_remove(join->timers, entry) != JOINERY_OK)
        return operator_fail_state(self, "temporal join timers");

    /* the probe rows that are due, and the earliest one that is not */
    PendingRow *pending = NULL;
    uint32_t pending_count = 0, pending_capacity = 0;
    int64_t next_time = INT64_MAX;
    SortedScan scan;
    sorted_scan_begin(left->state, own_key, hash, INT64_MIN, INT64_MAX, &scan);
    for (const SortedEntry *item; (item = sorted_scan_next(&scan));) {
        if (item->time > watermark) {
            next_time = item->time;
            break;
        }
        if (!temporal_reserve(scratch, (void **)&pending, pending_count, &pending_capacity,
                              sizeof *pending)) {
            sorted_scan_end(&scan);
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        Row *copy = row_copy(scratch, item->row);
        if (!copy) {
            sorted_scan_end(&scan);
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        pending[pending_count++] =
            (PendingRow){copy, item->time, item->sequence, (RowKind)item->tag};
    }
    sorted_scan_end(&scan);
    if (pending_count && sorted_state_remove_range(left->state, own_key, hash, INT64_MIN, watermark,
                                                   NULL) != JOINERY_OK)
        return operator_fail_state(self, "temporal join state");

    /* the key's versions, by time */
    Version *versions = NULL;
    uint32_t version_count = 0, version_capacity = 0;
    sorted_scan_begin(right->state, own_key, hash, INT64_MIN, INT64_MAX, &scan);
    for (const SortedEntry *item; (item = sorted_scan_next(&scan));) {
        if (!temporal_reserve(scratch, (void **)&versions, version_count, &version_capacity,
                              sizeof *versions)) {
            sorted_scan_end(&scan);
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        Row *copy = row_copy(scratch, item->row);
        if (!copy) {
            sorted_scan_end(&scan);
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        versions[version_count++] = (Version){copy, item->time, (RowKind)item->tag};
    }
    sorted_scan_end(&scan);

    /* emit in arrival order */
    if (pending_count > 1)
        qsort(pending, pending_count, sizeof *pending, compare_pending);
    bool key_has_null = false;
    for (uint32_t f = 0; f < row_field_count(own_key); f++)
        key_has_null |= row_is_null(own_key, f);
    arena_reset(&join->eval_arena);
    join->eval_context.now_millis = operator_now_millis(self);
    for (uint32_t i = 0; i < pending_count; i++) {
        const Row *probe = pending[i].row;
        int64_t at =
            key_has_null ? -1 : temporal_version_at(versions, version_count, pending[i].time);
        const Row *match = NULL;
        if (at >= 0 && row_kind_is_accumulate(versions[at].kind)) {
            match = versions[at].row;
            if (join->spec.residual &&
                !expr_eval_predicate(join->spec.residual, probe, left->field_count, match,
                                     &join->eval_context)) {
                if (join->eval_context.failed)
                    return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                         "temporal join condition failed to evaluate");
                match = NULL;
            }
        }
        int status = JOINERY_OK;
        if (match)
            status = temporal_emit(join, probe, match, pending[i].kind);
        else if (join->spec.join_type == JOIN_TYPE_LEFT)
            status = temporal_emit(join, probe, NULL, pending[i].kind);
        if (status != JOINERY_OK)
            return status;
    }

    /* keep the latest version at or before the watermark and every later one */
    int64_t keep = temporal_version_at(versions, version_count, watermark);
    if (keep > 0 && sorted_state_remove_range(right->state, own_key, hash, INT64_MIN,
                                              versions[keep].time - 1, NULL) != JOINERY_OK)
        return operator_fail_state(self, "temporal join state");
    if (next_time != INT64_MAX)
        return temporal_register_smallest(join, own_key, hash, next_time);
    return JOINERY_OK;
}

static void temporal_report_state(Operator *self)
{
    TemporalJoinOperator *join = self->impl;
    if (!join->sides[0].state || !join->sides[1].state || !join->timers)
        return;
    StateCounters left = sorted_state_counters(join->sides[0].state);
    StateCounters right = sorted_state_counters(join->sides[1].state);
    StateCounters timers = value_state_counters(join->timers);
    self->metrics.state_bytes = left.bytes + right.bytes + timers.bytes;
    self->metrics.state_keys = left.keys > right.keys ? left.keys : right.keys;
    self->metrics.state_rows = left.entries + right.entries;
}

static int temporal_open(Operator *self, ExecContext *context)
{
    TemporalJoinOperator *join = self->impl;
    join->eval_context.arena = &join->eval_arena;
    join->eval_context.diag = context->diag;
    join->eval_context.failed = false;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "temporal join: no state store");
    join->sides[0].state = sorted_state_create(context->state_store);
    join->sides[1].state = join->sides[0].state ? sorted_state_create(context->state_store) : NULL;
    join->timers = join->sides[1].state ? value_state_create(context->state_store, 0) : NULL;
    if (!join->timers)
        return operator_fail_state(self, "temporal join state");
    return JOINERY_OK;
}

/* The snapshot: probe rows, versions, registered timer per key (the framework adds timers). */
static int temporal_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    TemporalJoinOperator *join = self->impl;
    Diag *diag = self->context->diag;
    int status = sorted_state_snapshot(join->sides[0].state, writer, diag);
    if (status == JOINERY_OK)
        status = sorted_state_snapshot(join->sides[1].state, writer, diag);
    if (status == JOINERY_OK)
        status = value_state_snapshot(join->timers, writer, diag);
    return status;
}

static int temporal_restore(Operator *self, const StateReader *reader)
{
    TemporalJoinOperator *join = self->impl;
    Diag *diag = self->context->diag;
    int status = sorted_state_restore(join->sides[0].state, reader, diag);
    if (status == JOINERY_OK)
        status = sorted_state_restore(join->sides[1].state, reader, diag);
    if (status == JOINERY_OK)
        status = value_state_restore(join->timers, reader, diag);
    return status;
}

static void temporal_close(Operator *self)
{
    TemporalJoinOperator *join = self->impl;
    for (int s = 0; s < 2; s++) {
        sorted_state_destroy(join->sides[s].state);
        key_extractor_free(&join->sides[s].key);
        free(join->sides[s].variable_length);
    }
    value_state_destroy(join->timers);
    row_builder_free(&join->output_builder);
    row_builder_free(&join->timer_builder);
    arena_destroy(&join->scratch);
    arena_destroy(&join->eval_arena);
    free(join);
}

static const OperatorVtable TEMPORAL_JOIN_VTABLE = {
    .open = temporal_open,
    .process = temporal_process,
    .on_watermark = NULL, /* timers fire first, then the merged watermark goes on */
    .on_timer = temporal_on_timer,
    .snapshot = temporal_snapshot,
    .restore = temporal_restore,
    .report_state = temporal_report_state,
    .close = temporal_close,
};

void temporal_join_operator_side_state(const Operator *op, uint32_t side, uint64_t *bytes,
                                       uint64_t *keys, uint64_t *rows)
{
    StateCounters counters = {0, 0, 0, 0};
    if (op && op->vtable == &TEMPORAL_JOIN_VTABLE && side < 2) {
        const TemporalJoinOperator *join = op->impl;
        if (join->sides[side].state)
            counters = sorted_state_counters(join->sides[side].state);
    }
    if (bytes)
        *bytes = counters.bytes;
    if (keys)
        *keys = counters.keys;
    if (rows)
        *rows = counters.entries;
}

static bool temporal_side_init(TemporalSide *side, uint32_t field_count, const DataType *types,
                               const uint32_t *keys, uint32_t key_count, uint32_t time_field)
{
    side->field_count = field_count;
    side->time_field = time_field;
    side->variable_length = calloc(field_count + 1, sizeof(bool));
    if (!side->variable_length)
        return false;
    for (uint32_t i = 0; i < field_count; i++)
        side->variable_length[i] = type_is_variable_length(types[i].id);
    return key_extractor_init(&side->key, key_count, keys, types, NULL);
}

Operator *temporal_join_operator_create(const TemporalJoinSpec *spec, Diag *diag)
{
    if (spec->join_type != JOIN_TYPE_INNER && spec->join_type != JOIN_TYPE_LEFT) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "A temporal join is INNER or LEFT, not %s",
                   join_type_name(spec->join_type));
        return NULL;
    }
    if (spec->left_time_field >= spec->left_field_count ||
        spec->right_time_field >= spec->right_field_count) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "temporal join: time field out of range");
        return NULL;
    }
    TemporalJoinOperator *join = calloc(1, sizeof *join);
    if (!join) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    join->spec = *spec;
    row_builder_init(&join->output_builder);
    row_builder_init(&join->timer_builder);
    arena_init(&join->scratch, 16384);
    arena_init(&join->eval_arena, 4096);
    bool ready = temporal_side_init(&join->sides[0], spec->left_field_count, spec->left_types,
                                    spec->left_keys, spec->key_count, spec->left_time_field) &&
                 temporal_side_init(&join->sides[1], spec->right_field_count, spec->right_types,
                                    spec->right_keys, spec->key_count, spec->right_time_field);
    operator_init(&join->base, &TEMPORAL_JOIN_VTABLE, "TemporalJoin", 2, join);
    join->base.uses_timers = true;
    if (!ready) {
        temporal_close(&join->base);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return &join->base;
}
