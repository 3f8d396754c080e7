/*
 * op_over_aggregate.c - the OverAggregate operator (see op_over_aggregate.h).
 * State: `rows`, a SortedState per partition key: rows waiting for the
 * watermark (event time, at their rowtime), rows waiting for their
 * millisecond's timer (processing-time RANGE) and the rows bounded frames
 * still need, at their time; `values`, a ValueState per key: the
 * accumulator row of UNBOUNDED frames (with the TTL), or [last computed
 * time, cleanup time] (BIGINTs, 0 = none) of bounded frames. Timers are per
 * key: event time at a row's time, processing time at arrival + 1 ms (RANGE
 * n PRECEDING) or at the cleanup time (ROWS n PRECEDING with a TTL, Flink's
 * cleanup timer of an idle key); the TTL cleanup of UNBOUNDED frames is the
 * operator-wide processing-time timer (the only one they register).
 */
#include "engine/exec/ops/op_over_aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/exec/aggregate/aggregate_accumulator.h"
#include "engine/exec/key_extractor.h"
#include "engine/state/state.h"

enum { OVER_CLEANUP_KEYS = 256 };

typedef struct OverAggregateOperator {
    Operator base;
    OverAggregateSpec spec;
    AggregateAccumulator accumulator;
    KeyExtractor keys;
    SortedState *rows;
    ValueState *values;
    RowBuilder builder;      /* output rows */
    RowBuilder time_builder; /* [last computed time] */
    bool *variable_length;   /* per input field */
    Arena scratch;           /* copies of the rows of one computation */
    const Row **frame;       /* the rows of one computation (malloc'ed) */
    int64_t *frame_times;    /* their times in state (malloc'ed) */
    uint32_t frame_capacity;
    uint64_t late_rows;
} OverAggregateOperator;

static bool over_unbounded(const OverAggregateOperator *over)
{
    return over->spec.preceding < 0;
}

/* Emits `input` with the results of the accumulator's working copy after it. */
static int over_emit(OverAggregateOperator *over, const Row *input)
{
    Operator *self = &over->base;
    const Row *stored = aggregate_accumulator_encode(&over->accumulator);
    if (!stored)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint32_t count = over->spec.input_field_count;
    row_builder_begin(&over->builder, count + over->spec.call_count, ROW_KIND_INSERT);
    for (uint32_t f = 0; f < count; f++)
        row_builder_copy_field(&over->builder, f, input, f, over->variable_length[f]);
    if (aggregate_accumulator_results(&over->accumulator, stored, &over->builder, count) !=
        JOINERY_OK)
        return operator_fail(
            self, JOINERY_ERROR_RUNTIME, "%s",
            aggregate_accumulator_message(&over->accumulator, JOINERY_ERROR_RUNTIME));
    const Row *out = row_builder_finish(&over->builder);
    if (!out)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return operator_emit(self, out, ROW_KIND_INSERT);
}

static int over_apply(OverAggregateOperator *over, const Row *row)
{
    int status = aggregate_accumulator_apply(&over->accumulator, row, true);
    if (status == JOINERY_OK)
        return JOINERY_OK;
    return operator_fail(&over->base, status, "%s",
                         aggregate_accumulator_message(&over->accumulator, status));
}

/* Copies the key's rows with time in [from, to] into over->frame (in time, then arrival
   order); *count gets their number. */
static int over_collect(OverAggregateOperator *over, const Row *key, uint64_t hash, int64_t from,
                        int64_t to, uint32_t *count)
{
    Operator *self = &over->base;
    *count = 0;
    if (from > to)
        return JOINERY_OK;
    SortedScan scan;
    sorted_scan_begin(over->rows, key, hash, from, to, &scan);
    int status = JOINERY_OK;
    for (const SortedEntry *entry; (entry = sorted_scan_next(&scan));) {
        if (*count == over->frame_capacity) {
            uint32_t capacity = over->frame_capacity ? 2 * over->frame_capacity : 64;
            const Row **grown = realloc(over->frame, capacity * sizeof *grown);
            if (grown)
                over->frame = grown;
            int64_t *times = grown ? realloc(over->frame_times, capacity * sizeof *times) : NULL;
            if (!times) {
                status = JOINERY_ERROR_NO_MEMORY;
                break;
            }
            over->frame_times = times;
            over->frame_capacity = capacity;
        }
        Row *copy = row_copy(&over->scratch, entry->row);
        if (!copy) {
            status = JOINERY_ERROR_NO_MEMORY;
            break;
        }
        over->frame_times[*count] = entry->time;
        over->frame[(*count)++] = copy;
    }
    sorted_scan_end(&scan);
    if (status != JOINERY_OK)
        return operator_fail(self, status, "out of memory");
    if (state_store_failed(self->context->state_store))
        return operator_fail_state(self, "over aggregate state");
    return JOINERY_OK;
}

static int over_remove_before(OverAggregateOperator *over, const Row *key, uint64_t hash,
                              int64_t bound)
{
    if (bound == INT64_MIN)
        return JOINERY_OK;
    if (sorted_state_remove_range(over->rows, key, hash, INT64_MIN, bound - 1, NULL) != JOINERY_OK)
        return operator_fail_state(&over->base, "over aggregate state");
    return JOINERY_OK;
}

/*
 * ROWS n PRECEDING: the `count` rows in over->frame end with `fresh` rows to compute (the
 * ones before them are the retained rows); each goes out with the aggregates of itself and
 * the n rows before it. Then the time buckets no later frame reaches are freed.
 */
static int over_compute_rows(OverAggregateOperator *over, const Row *key, uint64_t hash,
                             uint32_t count, uint32_t fresh)
{
    int64_t n = over->spec.preceding;
    int status = JOINERY_OK;
    for (uint32_t p = count - fresh; p < count && status == JOINERY_OK; p++) {
        aggregate_accumulator_reset(&over->accumulator);
        uint32_t first = (int64_t)p > n ? (uint32_t)(p - n) : 0;
        for (uint32_t i = first; i <= p && status == JOINERY_OK; i++)
            status = over_apply(over, over->frame[i]);
        if (status == JOINERY_OK)
            status = over_emit(over, over->frame[p]);
    }
    if (status != JOINERY_OK)
        return status;
    /* the next frames reach back to the last n rows */
    if ((int64_t)count <= n)
        return JOINERY_OK;
    if (n == 0) {
        if (sorted_state_remove_range(over->rows, key, hash, INT64_MIN, INT64_MAX, NULL) !=
            JOINERY_OK)
            return operator_fail_state(&over->base, "over aggregate state");
        return JOINERY_OK;
    }
    return over_remove_before(over, key, hash, over->frame_times[count - (uint32_t)n]);
}

/* RANGE n PRECEDING at time `time`: the rows of [time - n, time] computed once, each of the
   `fresh` rows of `time` (the last of over->frame) out with them; older rows freed. */
static int over_compute_range(OverAggregateOperator *over, const Row *key, uint64_t hash,
                              int64_t time)
{
    int64_t n = over->spec.preceding;
    int64_t from = time >= INT64_MIN + n ? time - n : INT64_MIN;
    uint32_t count = 0;
    int status = over_collect(over, key, hash, from, time, &count);
    if (status != JOINERY_OK)
        return status;
    aggregate_accumulator_reset(&over->accumulator);
    uint32_t fresh = 0;
    for (uint32_t i = 0; i < count && status == JOINERY_OK; i++) {
        status = over_apply(over, over->frame[i]);
        if (over->frame_times[i] == time)
            fresh++;
    }
    for (uint32_t i = count - fresh; i < count && status == JOINERY_OK; i++)
        status = over_emit(over, over->frame[i]);
    return status == JOINERY_OK ? over_remove_before(over, key, hash, from) : status;
}

/* UNBOUNDED frames: the key's accumulator into the working copy (empty when none or
   expired), decoded from a copy in the scratch arena: rows emitted meanwhile may make
   operators downstream write state, which may move what a state view points to. */
static int over_load_accumulator(OverAggregateOperator *over, const Row *key, uint64_t hash,
                                 int64_t now)
{
    const ValueEntry *entry = value_state_find(over->values, key, hash, now);
    if (!entry || !entry->value) {
        aggregate_accumulator_reset(&over->accumulator);
        return JOINERY_OK;
    }
    Row *copy = row_copy(&over->scratch, entry->value);
    if (!copy)
        return operator_fail(&over->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    aggregate_accumulator_decode(&over->accumulator, copy);
    return JOINERY_OK;
}

static int over_store_value(OverAggregateOperator *over, const Row *key, uint64_t hash,
                            const Row *value, int64_t now)
{
    const ValueEntry *entry = value_state_find(over->values, key, hash, now);
    if (!entry)
        entry = value_state_insert(over->values, key, hash, now);
    if (!value || !entry || value_state_set(over->values, entry, value, now) != JOINERY_OK)
        return operator_fail_state(&over->base, "over aggregate state");
    return JOINERY_OK;
}

static int over_store_accumulator(OverAggregateOperator *over, const Row *key, uint64_t hash,
                                  int64_t now)
{
    return over_store_value(over, key, hash, aggregate_accumulator_encode(&over->accumulator), now);
}

/* Bounded frames keep [last computed time, cleanup time] per key (0 = none). */
static int over_store_times(OverAggregateOperator *over, const Row *key, uint64_t hash,
                            int64_t last, int64_t cleanup, int64_t now)
{
    row_builder_begin(&over->time_builder, 2, ROW_KIND_INSERT);
    row_builder_set_int64(&over->time_builder, 0, last);
    row_builder_set_int64(&over->time_builder, 1, cleanup);
    return over_store_value(over, key, hash, row_builder_finish(&over->time_builder), now);
}

static int64_t over_cleanup_time(OverAggregateOperator *over, const Row *key, uint64_t hash,
                                 int64_t now)
{
    const ValueEntry *entry = value_state_find(over->values, key, hash, now);
    return entry && entry->value ? row_get_int64(entry->value, 1) : 0;
}

/* ROWS n PRECEDING with a TTL (Flink's registerProcessingCleanupTimer): the key's cleanup
   timer moves to now + 1.5 TTL once now + TTL passes it; one timer per key. */
static bool over_rows_expire(const OverAggregateOperator *over)
{
    return over->spec.rows && !over_unbounded(over) && over->spec.ttl_millis > 0;
}

static int over_touch(OverAggregateOperator *over, const Row *key, uint64_t hash, int64_t now)
{
    if (!over_rows_expire(over))
        return JOINERY_OK;
    const ValueEntry *entry = value_state_find(over->values, key, hash, now);
    int64_t last = entry && entry->value ? row_get_int64(entry->value, 0) : 0;
    int64_t cleanup = entry && entry->value ? row_get_int64(entry->value, 1) : 0;
    int64_t ttl = over->spec.ttl_millis;
    if (cleanup >= now + ttl)
        return JOINERY_OK;
    int status = cleanup ? operator_delete_timer(&over->base, TIMER_PROCESSING_TIME, cleanup, key)
                         : JOINERY_OK;
    cleanup = now + ttl + ttl / 2;
    if (status == JOINERY_OK)
        status = operator_register_timer(&over->base, TIMER_PROCESSING_TIME, cleanup, key);
    return status == JOINERY_OK ? over_store_times(over, key, hash, last, cleanup, now) : status;
}

/* The cleanup timer of an idle key (ROWS n PRECEDING with a TTL): its rows and times go,
   unless event-time rows still wait for the watermark (then it waits another TTL). */
static int over_expire(OverAggregateOperator *over, const Row *key, int64_t timestamp)
{
    uint64_t hash = row_content_hash(key);
    int64_t now = operator_timer_now(&over->base);
    const ValueEntry *entry = value_state_find(over->values, key, hash, now);
    if (!entry || !entry->value || row_get_int64(entry->value, 1) != timestamp)
        return JOINERY_OK; /* moved on since */
    int64_t last = row_get_int64(entry->value, 0);
    if (over->spec.rowtime) {
        uint32_t waiting = 0;
        int status = over_collect(over, key, hash, last + 1, INT64_MAX, &waiting);
        if (status != JOINERY_OK)
            return status;
        if (waiting) {
            int64_t cleanup = now + over->spec.ttl_millis;
            status = operator_register_timer(&over->base, TIMER_PROCESSING_TIME, cleanup, key);
            return status == JOINERY_OK ? over_store_times(over, key, hash, last, cleanup, now)
                                        : status;
        }
    }
    entry = value_state_find(over->values, key, hash, now);
    if ((entry && value_state_remove(over->values, entry) != JOINERY_OK) ||
        sorted_state_remove_range(over->rows, key, hash, INT64_MIN, INT64_MAX, NULL) != JOINERY_OK)
        return operator_fail_state(&over->base, "over aggregate state");
    over->base.metrics.expired_rows++;
    return JOINERY_OK;
}

/* Event time: the rows of `key` at `time`, now that the watermark passed it. */
static int over_fire_rowtime(OverAggregateOperator *over, const Row *key, int64_t time)
{
    uint64_t hash = row_content_hash(key);
    int64_t now = operator_timer_now(&over->base);
    uint32_t count = 0;
    int status = JOINERY_OK;
    if (over_unbounded(over)) {
        status = over_collect(over, key, hash, time, time, &count);
        if (status != JOINERY_OK || count == 0)
            return status;
        status = over_load_accumulator(over, key, hash, now);
        if (status != JOINERY_OK)
            return status;
        if (over->spec.rows) {
            for (uint32_t i = 0; i < count && status == JOINERY_OK; i++) {
                status = over_apply(over, over->frame[i]);
                if (status == JOINERY_OK)
                    status = over_emit(over, over->frame[i]);
            }
        } else {
            for (uint32_t i = 0; i < count && status == JOINERY_OK; i++)
                status = over_apply(over, over->frame[i]);
            for (uint32_t i = 0; i < count && status == JOINERY_OK; i++)
                status = over_emit(over, over->frame[i]);
        }
        if (status == JOINERY_OK)
            status = over_store_accumulator(over, key, hash, now);
        if (status == JOINERY_OK &&
            sorted_state_remove_range(over->rows, key, hash, time, time, NULL) != JOINERY_OK)
            status = operator_fail_state(&over->base, "over aggregate state");
        return status;
    }
    if (over->spec.rows) {
        status = over_collect(over, key, hash, INT64_MIN, time, &count);
        uint32_t fresh = 0;
        while (status == JOINERY_OK && fresh < count &&
               over->frame_times[count - 1 - fresh] == time)
            fresh++;
        if (status == JOINERY_OK && fresh)
            status = over_compute_rows(over, key, hash, count, fresh);
    } else {
        status = over_compute_range(over, key, hash, time);
    }
    if (status != JOINERY_OK)
        return status;
    return over_store_times(over, key, hash, time, over_cleanup_time(over, key, hash, now), now);
}

static int64_t over_last_computed(OverAggregateOperator *over, const Row *key, uint64_t hash,
                                  int64_t now)
{
    const ValueEntry *entry = value_state_find(over->values, key, hash, now);
    /* 0 before the first, as Flink's bounded functions start lastTriggeringTs: a row at or
       before the epoch is late there */
    return entry && entry->value ? row_get_int64(entry->value, 0) : 0;
}

static int over_process_row(OverAggregateOperator *over, const Row *row)
{
    Operator *self = &over->base;
    const Row *key = key_extractor_build(&over->keys, row, NULL);
    if (!key)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    uint64_t hash = row_content_hash(key);
    int64_t now = operator_now_millis(self);
    int status = over_touch(over, key, hash, now);
    if (status != JOINERY_OK)
        return status;
    if (over->spec.rowtime) {
        if (row_is_null(row, over->spec.time_field))
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "OverAggregate: a row has a NULL rowtime");
        int64_t time = row_get_int64(row, over->spec.time_field);
        int64_t last =
            over_unbounded(over) ? self->input_watermark : over_last_computed(over, key, hash, now);
        if (time <= last) {
            over->late_rows++;
            return JOINERY_OK;
        }
        if (sorted_state_add(over->rows, key, hash, time, row, 0) != JOINERY_OK)
            return operator_fail_state(self, "over aggregate state");
        return operator_register_timer(self, TIMER_EVENT_TIME, time, key);
    }
    if (over_unbounded(over)) {
        status = over_load_accumulator(over, key, hash, now);
        if (status == JOINERY_OK)
            status = over_apply(over, row);
        if (status == JOINERY_OK)
            status = over_emit(over, row);
        return status == JOINERY_OK ? over_store_accumulator(over, key, hash, now) : status;
    }
    if (sorted_state_add(over->rows, key, hash, now, row, 0) != JOINERY_OK)
        return operator_fail_state(self, "over aggregate state");
    if (!over->spec.rows)
        return operator_register_timer(self, TIMER_PROCESSING_TIME, now + 1, key);
    uint32_t count = 0;
    status = over_collect(over, key, hash, INT64_MIN, INT64_MAX, &count);
    return status == JOINERY_OK && count ? over_compute_rows(over, key, hash, count, 1) : status;
}

static int over_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    OverAggregateOperator *over = self->impl;
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < batch->count && status == JOINERY_OK; i++) {
        const Row *row = batch->rows[i];
        if (row_kind(row) != ROW_KIND_INSERT)
            return operator_fail(self, JOINERY_ERROR_RUNTIME,
                                 "OverAggregate received a %s row; its input must be insert-only",
                                 row_kind_name(row_kind(row)));
        status = over_process_row(over, row);
        arena_reset(&over->scratch);
    }
    return status;
}

static int over_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    OverAggregateOperator *over = self->impl;
    int status;
    if (domain == TIMER_EVENT_TIME) {
        status = over_fire_rowtime(over, key, timestamp);
    } else if (over_unbounded(over)) {
        /* the TTL cleanup round */
        self->metrics.expired_rows +=
            value_state_cleanup(over->values, operator_timer_now(self), OVER_CLEANUP_KEYS);
        status = operator_schedule_cleanup(self);
    } else if (over->spec.rows) {
        /* ROWS n PRECEDING with a TTL: an idle key's cleanup timer */
        status = over_expire(over, key, timestamp);
    } else {
        /* processing-time RANGE: the rows that arrived in millisecond timestamp - 1 */
        status = over_compute_range(over, key, row_content_hash(key), timestamp - 1);
    }
    arena_reset(&over->scratch);
    return status;
}

/* End of input: processing-time RANGE computes the rows still waiting for their timer (due
   within 1 ms); event time had the last watermark (+infinity) fire everything. */
static int over_finish(Operator *self)
{
    OverAggregateOperator *over = self->impl;
    if (over->spec.rowtime || over->spec.rows || over_unbounded(over))
        return JOINERY_OK;
    return operator_advance_processing_time(self, operator_now_millis(self) + 1);
}

static void over_report_state(Operator *self)
{
    OverAggregateOperator *over = self->impl;
    if (!over->rows || !over->values)
        return;
    StateCounters rows = sorted_state_counters(over->rows);
    StateCounters values = value_state_counters(over->values);
    self->metrics.state_bytes = rows.bytes + values.bytes;
    self->metrics.state_keys = rows.keys > values.keys ? rows.keys : values.keys;
    self->metrics.state_rows = rows.entries + values.entries;
}

static int over_open(Operator *self, ExecContext *context)
{
    OverAggregateOperator *over = self->impl;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "over aggregate: no state store");
    over->rows = sorted_state_create(context->state_store);
    over->values =
        value_state_create(context->state_store, over_unbounded(over) ? over->spec.ttl_millis : 0);
    if (!over->rows || !over->values)
        return operator_fail_state(self, "over aggregate state");
    return over_unbounded(over) && over->spec.ttl_millis > 0 ? operator_schedule_cleanup(self)
                                                             : JOINERY_OK;
}

static int over_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    OverAggregateOperator *over = self->impl;
    int status = sorted_state_snapshot(over->rows, writer, self->context->diag);
    return status == JOINERY_OK ? value_state_snapshot(over->values, writer, self->context->diag)
                                : status;
}

static int over_restore(Operator *self, const StateReader *reader)
{
    OverAggregateOperator *over = self->impl;
    int status = sorted_state_restore(over->rows, reader, self->context->diag);
    return status == JOINERY_OK ? value_state_restore(over->values, reader, self->context->diag)
                                : status;
}

static void over_close(Operator *self)
{
    OverAggregateOperator *over = self->impl;
    if (over->rows)
        sorted_state_destroy(over->rows);
    if (over->values)
        value_state_destroy(over->values);
    aggregate_accumulator_free(&over->accumulator);
    key_extractor_free(&over->keys);
    row_builder_free(&over->builder);
    row_builder_free(&over->time_builder);
    free(over->variable_length);
    free(over->frame);
    free(over->frame_times);
    arena_destroy(&over->scratch);
    free(over);
}

static const OperatorVtable OVER_AGGREGATE_VTABLE = {
    .open = over_open,
    .process = over_process,
    .on_timer = over_on_timer,
    .finish = over_finish,
    .snapshot = over_snapshot,
    .restore = over_restore,
    .report_state = over_report_state,
    .close = over_close,
};

Operator *over_aggregate_operator_create(const OverAggregateSpec *spec, Diag *diag)
{
    if (spec->time_field >= spec->input_field_count) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "over aggregate: no time field");
        return NULL;
    }
    OverAggregateOperator *over = calloc(1, sizeof *over);
    if (!over) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    over->spec = *spec;
    row_builder_init(&over->builder);
    row_builder_init(&over->time_builder);
    arena_init(&over->scratch, 0);
    operator_init(&over->base, &OVER_AGGREGATE_VTABLE, "OverAggregate", 1, over);
    over->base.uses_timers = true;
    over->variable_length = calloc(spec->input_field_count + 1, sizeof(bool));
    bool ready =
        over->variable_length && key_extractor_init(&over->keys, spec->partition_key_count,
                                                    spec->partition_keys, spec->input_types, NULL);
    if (!ready) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        over_close(&over->base);
        return NULL;
    }
    for (uint32_t f = 0; f < spec->input_field_count; f++)
        over->variable_length[f] = type_is_variable_length(spec->input_types[f].id);
    if (aggregate_accumulator_init(&over->accumulator, spec->calls, spec->call_count,
                                   spec->input_field_count, diag) != JOINERY_OK) {
        over_close(&over->base);
        return NULL;
    }
    return &over->base;
}

uint64_t over_aggregate_operator_late_rows(const Operator *op)
{
    return ((const OverAggregateOperator *)op->impl)->late_rows;
}
