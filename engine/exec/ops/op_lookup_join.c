/*
 * op_lookup_join.c - the lookup join operator (op_lookup_join.h).
 *
 * Invariants (async): slots[0..capacity) hold the rows waiting for their
 * lookup or, ordered, for the rows before them; `async` (async_slots.h)
 * counts them, keeps their input order (read only when ordered) and
 * names each use of a slot by a request id, so a stale completion is
 * recognised; a slot is submitted (its request in the function), or
 * waiting for a retry (retry_at > 0), or done (rows ready). The
 * function's descriptor is watched while it has requests in flight.
 * in_flight_area is the integral of the function's in_flight over
 * [window_start, window_last] (microseconds), ticked at every submit and
 * poll: its mean over that span is how full the async window was kept.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/value.h"
#include "engine/connector/connector.h"
#include "engine/connector/lookup.h"
#include "engine/exec/async_slots.h"
#include "engine/exec/exec_io.h"
#include "engine/exec/expr_eval.h"
#include "engine/exec/lookup/lookup_cache.h"
#include "engine/exec/ops/op_lookup_join.h"

enum {
    SYNC_RESULT_CAPACITY = 65536, /* rows one key may match */
    LATENCY_SAMPLES = 4096,       /* the latest lookups' latencies, for p50 / p99 */
    WAIT_SLICE_MILLIS = 50,       /* waits watch cancel this often */
};

typedef struct PendingRow {
    bool used, submitted, done;
    Row *input;
    Row *key;
    bool key_null;
    Row **rows;
    uint32_t count;
    uint32_t attempts;    /* lookups asked so far */
    int64_t started_at;   /* processing time of the first submission (ms) */
    uint64_t sent_micros; /* monotonic time of the last submission */
    int64_t retry_at;     /* > 0: asked again at this processing time */
    uint64_t request_id;
} PendingRow;

typedef struct LookupJoinOperator {
    Operator base;
    LookupJoinSpec spec;
    LookupSpec lookup_spec;
    uint32_t *key_columns;
    DataType *key_types;
    LookupFunction *function;
    LookupCache *cache;     /* PARTIAL or FULL; NULL: none */
    int64_t next_reload_at; /* FULL with a reload interval */
    bool *variable_length;  /* of input ++ right fields */
    RowBuilder key_builder, output_builder;
    Arena eval_arena, lookup_arena;
    ExprEvalContext eval_context;
    Row **sync_slots;
    /* async */
    PendingRow *slots; /* async.capacity of them */
    AsyncSlots async;
    int watched_fd;
    uint32_t watched_events;
    int64_t timer_at; /* the processing-time timer registered; 0: none */
    /* figures */
    uint64_t requests, cache_hits, cache_misses, retries, reloads;
    int64_t latencies[LATENCY_SAMPLES];
    uint64_t latency_count, latency_sum_micros;
    double in_flight_area;
    uint64_t window_start, window_last;
} LookupJoinOperator;

static uint64_t monotonic_micros(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

static void record_latency(LookupJoinOperator *join, uint64_t since)
{
    uint64_t latency = monotonic_micros() - since;
    join->latencies[join->latency_count % LATENCY_SAMPLES] = (int64_t)latency;
    join->latency_count++;
    join->latency_sum_micros += latency;
}

/* Adds the requests in flight since the last tick to the window's integral (async). */
static void window_tick(LookupJoinOperator *join)
{
    uint64_t now = monotonic_micros();
    if (!join->window_start)
        join->window_start = join->window_last = now;
    join->in_flight_area += (double)join->function->in_flight * (double)(now - join->window_last);
    join->window_last = now;
}

static bool cancelled(const LookupJoinOperator *join)
{
    const volatile int *flag = join->base.context->cancel_requested;
    return flag && *flag;
}

static void sleep_millis(int64_t millis)
{
    struct timespec pause = {millis / 1000, (millis % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* ---------------------------------------------------------------- keys and output */

/* The key row of an input row (valid until the next build); NULL on a failure. */
static const Row *build_key(LookupJoinOperator *join, const Row *input, bool *has_null)
{
    const LookupJoinSpec *spec = &join->spec;
    RowBuilder *builder = &join->key_builder;
    row_builder_begin(builder, spec->key_count, ROW_KIND_INSERT);
    *has_null = false;
    for (uint32_t k = 0; k < spec->key_count; k++) {
        Value value = expr_eval(spec->key_values[k], input, 0, NULL, &join->eval_context);
        if (join->eval_context.failed)
            return NULL;
        *has_null |= value.is_null;
        value_to_builder(builder, k, spec->right_types[spec->key_fields[k]], value);
    }
    return row_builder_finish(builder);
}

/* The key row of a right row (the FULL image). */
static const Row *right_key(LookupJoinOperator *join, const Row *right, bool *has_null)
{
    const LookupJoinSpec *spec = &join->spec;
    RowBuilder *builder = &join->key_builder;
    row_builder_begin(builder, spec->key_count, ROW_KIND_INSERT);
    *has_null = false;
    for (uint32_t k = 0; k < spec->key_count; k++) {
        uint32_t field = spec->key_fields[k];
        *has_null |= row_is_null(right, field);
        row_builder_copy_field(builder, k, right, field,
                               join->variable_length[spec->input_field_count + field]);
    }
    return row_builder_finish(builder);
}

static int emit_joined(LookupJoinOperator *join, const Row *input, const Row *right)
{
    const LookupJoinSpec *spec = &join->spec;
    RowBuilder *builder = &join->output_builder;
    uint32_t input_count = spec->input_field_count;
    row_builder_begin(builder, input_count + spec->right_field_count, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < input_count; i++)
        row_builder_copy_field(builder, i, input, i, join->variable_length[i]);
    for (uint32_t i = 0; i < spec->right_field_count; i++) {
        if (right)
            row_builder_copy_field(builder, input_count + i, right, i,
                                   join->variable_length[input_count + i]);
        else
            row_builder_set_null(builder, input_count + i);
    }
    const Row *row = row_builder_finish(builder);
    if (!row)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return operator_emit(&join->base, row, row_kind(input));
}

/* The output of one input row and the rows its key found. */
static int emit_matches(LookupJoinOperator *join, const Row *input, Row *const *rows,
                        uint32_t count)
{
    const LookupJoinSpec *spec = &join->spec;
    bool matched = false;
    for (uint32_t i = 0; i < count; i++) {
        if (spec->where && !expr_eval_predicate(spec->where, rows[i], 0, NULL, &join->eval_context))
            goto rejected;
        if (spec->condition && !expr_eval_predicate(spec->condition, input, spec->input_field_count,
                                                    rows[i], &join->eval_context))
            goto rejected;
        matched = true;
        int status = emit_joined(join, input, rows[i]);
        if (status != JOINERY_OK)
            return status;
        continue;
    rejected:
        if (join->eval_context.failed)
            return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                 "LookupJoin(table=[%s]): a condition failed to evaluate",
                                 spec->table_path);
    }
    if (!matched && spec->join_type == JOIN_TYPE_LEFT)
        return emit_joined(join, input, NULL);
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- caches */

static int64_t now_millis(const LookupJoinOperator *join)
{
    return operator_now_millis(&join->base);
}

static bool cache_get(LookupJoinOperator *join, const Row *key, Row *const **rows, uint32_t *count)
{
    if (!join->cache)
        return false;
    if (lookup_cache_get(join->cache, key, now_millis(join), rows, count)) {
        join->cache_hits++;
        return true;
    }
    join->cache_misses++;
    return false;
}

static void cache_put(LookupJoinOperator *join, const Row *key, Row *const *rows, uint32_t count)
{
    const LookupCacheOptions *cache = &join->spec.options->cache;
    if (!join->cache || cache->kind != LOOKUP_CACHE_PARTIAL ||
        (count == 0 && !cache->cache_missing_key))
        return;
    lookup_cache_put(join->cache, key, rows, count, now_millis(join));
}

/* Loads the whole table into the FULL cache through its scan source. */
static int full_cache_load(LookupJoinOperator *join)
{
    const LookupJoinSpec *spec = &join->spec;
    Diag *diag = join->base.context->diag;
    const Connector *connector = connector_find(catalog_table_option(spec->table, "connector"));
    if (!connector || !connector->create_source)
        return operator_fail(&join->base, JOINERY_ERROR_UNSUPPORTED,
                             "LookupJoin(table=[%s]): the table cannot be scanned into a FULL "
                             "cache",
                             spec->table_path);
    SourceSpec source = {
        .table = spec->table,
        .field_count = spec->right_field_count,
        .columns = spec->columns,
        .types = spec->right_types,
        .subtask_index = 0,
        .parallelism = 1,
        .cancel_requested = join->base.context->cancel_requested,
    };
    SourceReader *reader = NULL;
    int status = connector->create_source(&source, &reader, diag);
    if (status != JOINERY_OK)
        return status;
    lookup_cache_clear(join->cache);
    Row *slots[1024];
    Arena arena;
    arena_init(&arena, 65536);
    int64_t loaded_at = now_millis(join);
    for (;;) {
        RowBatch out = {slots, 0, 1024};
        arena_reset(&arena);
        int64_t next_poll = 0;
        int result =
            reader->vtable->poll(reader, &out, &arena, 1024, now_millis(join), &next_poll, diag);
        if (result < 0) {
            status = result;
            break;
        }
        if (result == SOURCE_POLL_END)
            break;
        if (result == SOURCE_POLL_IDLE) {
            if (cancelled(join)) {
                status = diag_error(diag, JOINERY_CANCELLED, "cancelled");
                break;
            }
            int64_t wait = next_poll - now_millis(join);
            sleep_millis(wait < 1 ? 1 : wait > WAIT_SLICE_MILLIS ? WAIT_SLICE_MILLIS : wait);
            continue;
        }
        for (uint32_t i = 0; i < out.count && status == JOINERY_OK; i++) {
            bool has_null;
            const Row *key = right_key(join, out.rows[i], &has_null);
            if (!key ||
                (!has_null && !lookup_cache_append(join->cache, key, out.rows[i], loaded_at)))
                status =
                    operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY,
                                  "out of memory loading the FULL cache of %s", spec->table_path);
        }
        if (status != JOINERY_OK)
            break;
    }
    reader->vtable->close(reader);
    arena_destroy(&arena);
    join->reloads++;
    int64_t interval = spec->options->cache.reload_interval_millis;
    join->next_reload_at = interval > 0 ? now_millis(join) + interval : 0;
    return status;
}

/* ---------------------------------------------------------------- sync */

static int lookup_sync(LookupJoinOperator *join, const Row *input)
{
    bool has_null;
    const Row *built = build_key(join, input, &has_null);
    if (!built)
        return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                             "LookupJoin(table=[%s]): a lookup key failed to evaluate",
                             join->spec.table_path);
    if (has_null)
        return emit_matches(join, input, NULL, 0);
    Row *const *rows;
    uint32_t count;
    if (cache_get(join, built, &rows, &count))
        return emit_matches(join, input, rows, count);
    if (join->spec.options->cache.kind == LOOKUP_CACHE_FULL)
        return emit_matches(join, input, NULL, 0); /* the image has every key */
    Row *key = row_copy_heap(built);
    if (!key)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    const PlanLookupOptions *options = join->spec.options;
    RowBatch out = {join->sync_slots, 0, SYNC_RESULT_CAPACITY};
    int status = JOINERY_OK;
    for (uint32_t attempt = 1;; attempt++) {
        out.count = 0;
        arena_reset(&join->lookup_arena);
        uint64_t started = monotonic_micros();
        join->requests++;
        status = join->function->vtable->lookup(join->function, key, &out, &join->lookup_arena,
                                                join->base.context->diag);
        record_latency(join, started);
        if (status != JOINERY_OK || out.count > 0 || !options->retry ||
            attempt > (uint32_t)options->max_attempts)
            break;
        join->retries++;
        for (int64_t waited = 0; waited < options->retry_delay_millis && !cancelled(join);
             waited += WAIT_SLICE_MILLIS) {
            int64_t left = options->retry_delay_millis - waited;
            sleep_millis(left < WAIT_SLICE_MILLIS ? left : WAIT_SLICE_MILLIS);
        }
        if (cancelled(join)) {
            status = diag_error(join->base.context->diag, JOINERY_CANCELLED, "cancelled");
            break;
        }
    }
    if (status == JOINERY_OK) {
        cache_put(join, key, out.rows, out.count);
        status = emit_matches(join, input, out.rows, out.count);
    }
    free(key);
    return status;
}

/* ---------------------------------------------------------------- async */

static void pending_release(LookupJoinOperator *join, PendingRow *pending)
{
    for (uint32_t i = 0; i < pending->count; i++)
        free(pending->rows[i]);
    free(pending->rows);
    free(pending->input);
    free(pending->key);
    memset(pending, 0, sizeof *pending);
    async_slots_release(&join->async, (uint32_t)(pending - join->slots));
}

static int pending_emit(LookupJoinOperator *join, PendingRow *pending)
{
    int status = emit_matches(join, pending->input, pending->rows, pending->count);
    pending_release(join, pending);
    return status;
}

/* Ordered: the done rows at the head of the input order. */
static int emit_ready(LookupJoinOperator *join)
{
    uint32_t oldest;
    while (join->spec.ordered && async_slots_oldest(&join->async, &oldest)) {
        PendingRow *head = &join->slots[oldest];
        if (!head->done)
            break;
        async_slots_pop_oldest(&join->async);
        int status = pending_emit(join, head);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* A slot's rows are known: emit now (unordered) or when its turn comes (ordered). */
static int pending_done(LookupJoinOperator *join, PendingRow *pending)
{
    pending->done = true;
    if (!join->spec.ordered)
        return pending_emit(join, pending);
    return emit_ready(join);
}

static int schedule_timer(LookupJoinOperator *join, int64_t at)
{
    if (join->timer_at && join->timer_at <= at)
        return JOINERY_OK;
    join->timer_at = at;
    return operator_register_timer(&join->base, TIMER_PROCESSING_TIME, at, NULL);
}

static int on_complete(void *context, uint64_t request_id, Row *const *rows, uint32_t count)
{
    LookupJoinOperator *join = context;
    uint32_t slot;
    if (!async_slots_index(&join->async, request_id, &slot))
        return JOINERY_OK;
    PendingRow *pending = &join->slots[slot];
    if (!pending->used || pending->request_id != request_id || !pending->submitted)
        return JOINERY_OK;
    pending->submitted = false;
    record_latency(join, pending->sent_micros);
    const PlanLookupOptions *options = join->spec.options;
    if (count == 0 && options->retry && pending->attempts <= (uint32_t)options->max_attempts) {
        join->retries++;
        pending->retry_at = now_millis(join) + options->retry_delay_millis;
        return schedule_timer(join, pending->retry_at);
    }
    if (count) {
        pending->rows = calloc(count, sizeof *pending->rows);
        if (!pending->rows)
            return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
        for (uint32_t i = 0; i < count; i++) {
            pending->rows[i] = row_copy_heap(rows[i]);
            if (!pending->rows[i])
                return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
            pending->count++;
        }
    }
    cache_put(join, pending->key, pending->rows, pending->count);
    return pending_done(join, pending);
}

static int on_descriptor(Operator *op, int fd, uint32_t events);

/* Watches the function's descriptor while it has requests in flight. */
static int sync_watch(LookupJoinOperator *join)
{
    LookupFunction *function = join->function;
    int fd = function->in_flight > 0 ? function->descriptor : -1;
    uint32_t events = EXEC_FD_READ;
    if (function->wait_events & LOOKUP_WAIT_WRITE)
        events |= EXEC_FD_WRITE;
    if (fd == join->watched_fd && (fd < 0 || events == join->watched_events))
        return JOINERY_OK;
    ExecContext *context = join->base.context;
    if (join->watched_fd >= 0 && context->io)
        exec_unwatch_fd(context, join->watched_fd);
    join->watched_fd = -1;
    if (fd >= 0 && context->io) {
        int status = exec_watch_fd(context, fd, events, on_descriptor, &join->base);
        if (status != JOINERY_OK)
            return status;
        join->watched_fd = fd;
        join->watched_events = events;
    }
    return JOINERY_OK;
}

static int poll_function(LookupJoinOperator *join)
{
    window_tick(join);
    int status =
        join->function->vtable->poll(join->function, on_complete, join, join->base.context->diag);
    if (status == JOINERY_OK)
        status = sync_watch(join);
    return status;
}

static int on_descriptor(Operator *op, int fd, uint32_t events)
{
    (void)fd;
    (void)events;
    return poll_function(op->impl);
}

static int submit(LookupJoinOperator *join, PendingRow *pending)
{
    window_tick(join);
    pending->attempts++;
    pending->submitted = true;
    pending->sent_micros = monotonic_micros();
    join->requests++;
    return join->function->vtable->submit(join->function, pending->key, pending->request_id,
                                          join->base.context->diag);
}

/* Asks again the lookups whose retry is due, and fails on a timed-out request. */
static int check_deadlines(LookupJoinOperator *join)
{
    int64_t now = now_millis(join);
    int64_t timeout = join->spec.options->timeout_millis;
    int64_t next = 0;
    bool resent = false;
    for (uint32_t s = 0; s < join->async.capacity; s++) {
        PendingRow *pending = &join->slots[s];
        if (!pending->used || pending->done)
            continue;
        if (now - pending->started_at >= timeout)
            return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                                 "LookupJoin(table=[%s]): Async function call has timed out. (a "
                                 "lookup took longer than 'timeout' = %lld ms)",
                                 join->spec.table_path, (long long)timeout);
        if (pending->retry_at && pending->retry_at <= now) {
            pending->retry_at = 0;
            int status = submit(join, pending);
            if (status != JOINERY_OK)
                return status;
            resent = true;
        }
        int64_t deadline = pending->started_at + timeout;
        if (pending->retry_at && pending->retry_at < deadline)
            deadline = pending->retry_at;
        if (!next || deadline < next)
            next = deadline;
    }
    int status = resent ? poll_function(join) : JOINERY_OK;
    if (status == JOINERY_OK && next)
        status = schedule_timer(join, next);
    return status;
}

/* Waits for completions of this operator's requests (one slice), then its deadlines. */
static int wait_once(LookupJoinOperator *join)
{
    if (cancelled(join))
        return diag_error(join->base.context->diag, JOINERY_CANCELLED, "cancelled");
    int status;
    if (join->base.context->io && join->watched_fd >= 0) {
        status = exec_wait_io(&join->base, WAIT_SLICE_MILLIS);
    } else if (join->function->in_flight > 0 && join->function->descriptor >= 0) {
        struct pollfd fd = {.fd = join->function->descriptor, .events = POLLIN};
        if (join->function->wait_events & LOOKUP_WAIT_WRITE)
            fd.events |= POLLOUT;
        poll(&fd, 1, WAIT_SLICE_MILLIS);
        status = poll_function(join);
    } else {
        sleep_millis(join->function->in_flight > 0 ? 1 : 10); /* retries waiting */
        status = join->function->in_flight > 0 ? poll_function(join) : JOINERY_OK;
    }
    if (status == JOINERY_OK)
        status = check_deadlines(join);
    return status;
}

static int lookup_async(LookupJoinOperator *join, const Row *input)
{
    if (async_slots_full(&join->async)) {
        int status = poll_function(join); /* sends what submit buffered, before waiting */
        if (status != JOINERY_OK)
            return status;
    }
    while (async_slots_full(&join->async)) {
        int status = wait_once(join);
        if (status != JOINERY_OK)
            return status;
    }
    uint64_t request_id;
    PendingRow *pending = &join->slots[async_slots_acquire(&join->async, &request_id)];
    memset(pending, 0, sizeof *pending);
    pending->used = true;
    pending->request_id = request_id;
    pending->input = row_copy_heap(input);
    bool has_null;
    const Row *key = build_key(join, input, &has_null);
    if (!key)
        return operator_fail(&join->base, JOINERY_ERROR_RUNTIME,
                             "LookupJoin(table=[%s]): a lookup key failed to evaluate",
                             join->spec.table_path);
    pending->key = row_copy_heap(key);
    if (!pending->input || !pending->key)
        return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    pending->started_at = now_millis(join);
    Row *const *rows;
    uint32_t count;
    if (has_null)
        return pending_done(join, pending);
    if (cache_get(join, pending->key, &rows, &count)) {
        if (count) {
            pending->rows = calloc(count, sizeof *pending->rows);
            if (!pending->rows)
                return operator_fail(&join->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
            for (uint32_t i = 0; i < count; i++)
                if ((pending->rows[pending->count] = row_copy_heap(rows[i])) != NULL)
                    pending->count++;
        }
        return pending_done(join, pending);
    }
    int status = submit(join, pending);
    if (status == JOINERY_OK)
        status = schedule_timer(join, pending->started_at + join->spec.options->timeout_millis);
    return status;
}

/* Every request done and its rows emitted. */
static int drain(LookupJoinOperator *join)
{
    int status = JOINERY_OK;
    while (status == JOINERY_OK && join->async.used > 0)
        status = wait_once(join);
    return status;
}

/* ---------------------------------------------------------------- vtable */

static int lookup_join_open(Operator *self, ExecContext *context)
{
    (void)context;
    LookupJoinOperator *join = self->impl;
    const LookupJoinSpec *spec = &join->spec;
    const LookupCacheOptions *cache = &spec->options->cache;
    if (cache->kind != LOOKUP_CACHE_NONE) {
        LookupCacheLimits limits = {0, 0, 0};
        if (cache->kind == LOOKUP_CACHE_PARTIAL)
            limits = (LookupCacheLimits){cache->max_rows, cache->expire_after_write_millis,
                                         cache->expire_after_access_millis};
        join->cache = lookup_cache_create(limits);
        if (!join->cache)
            return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    if (cache->kind == LOOKUP_CACHE_FULL)
        return full_cache_load(join);
    join->lookup_spec = (LookupSpec){
        .table = spec->table,
        .key_count = spec->key_count,
        .key_columns = join->key_columns,
        .key_types = join->key_types,
        .field_count = spec->right_field_count,
        .columns = spec->columns,
        .types = spec->right_types,
        .cancel_requested = self->context->cancel_requested,
        .async_capacity = spec->options->async ? join->async.capacity : 0,
    };
    return lookup_function_create(&join->lookup_spec, &join->function, self->context->diag);
}

static int lookup_join_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    LookupJoinOperator *join = self->impl;
    int status = JOINERY_OK;
    if (join->next_reload_at && now_millis(join) >= join->next_reload_at) {
        status = full_cache_load(join);
        if (status != JOINERY_OK)
            return status;
    }
    arena_reset(&join->eval_arena);
    join->eval_context.now_millis = now_millis(join);
    bool async = join->function && join->spec.options->async;
    for (uint32_t i = 0; i < batch->count && status == JOINERY_OK; i++)
        status = async ? lookup_async(join, batch->rows[i]) : lookup_sync(join, batch->rows[i]);
    if (status == JOINERY_OK && async)
        status = poll_function(join); /* sends what submit buffered */
    return status;
}

static int lookup_join_on_timer(Operator *self, TimerDomain domain, int64_t timestamp,
                                const Row *key)
{
    (void)domain;
    (void)key;
    LookupJoinOperator *join = self->impl;
    if (timestamp == join->timer_at)
        join->timer_at = 0;
    if (!join->function || !join->spec.options->async)
        return JOINERY_OK;
    return check_deadlines(join);
}

static int lookup_join_finish(Operator *self)
{
    LookupJoinOperator *join = self->impl;
    return join->function && join->spec.options->async ? drain(join) : JOINERY_OK;
}

static int lookup_join_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    (void)writer;
    LookupJoinOperator *join = self->impl;
    return join->function && join->spec.options->async ? drain(join) : JOINERY_OK;
}

static int lookup_join_restore(Operator *self, const StateReader *reader)
{
    (void)self;
    (void)reader;
    return JOINERY_OK; /* nothing was written: requests were drained at the barrier */
}

static void lookup_join_close(Operator *self)
{
    LookupJoinOperator *join = self->impl;
    if (join->watched_fd >= 0 && self->context && self->context->io)
        exec_unwatch_fd(self->context, join->watched_fd);
    for (uint32_t s = 0; join->slots && s < join->async.capacity; s++)
        if (join->slots[s].used)
            pending_release(join, &join->slots[s]);
    if (join->function)
        join->function->vtable->close(join->function);
    lookup_cache_destroy(join->cache);
    row_builder_free(&join->key_builder);
    row_builder_free(&join->output_builder);
    arena_destroy(&join->eval_arena);
    arena_destroy(&join->lookup_arena);
    free(join->sync_slots);
    free(join->slots);
    async_slots_free(&join->async);
    free(join->key_columns);
    free(join->key_types);
    free(join->variable_length);
    free(join);
}

static const OperatorVtable LOOKUP_JOIN_VTABLE = {
    .open = lookup_join_open,
    .process = lookup_join_process,
    .on_timer = lookup_join_on_timer,
    .snapshot = lookup_join_snapshot,
    .restore = lookup_join_restore,
    .finish = lookup_join_finish,
    .close = lookup_join_close,
};

Operator *lookup_join_operator_create(const LookupJoinSpec *spec, Diag *diag)
{
    LookupJoinOperator *join = calloc(1, sizeof *join);
    if (!join) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    join->spec = *spec;
    join->watched_fd = -1;
    row_builder_init(&join->key_builder);
    row_builder_init(&join->output_builder);
    arena_init(&join->eval_arena, 4096);
    arena_init(&join->lookup_arena, 65536);
    join->eval_context.arena = &join->eval_arena;
    join->eval_context.diag = diag;
    uint32_t total = spec->input_field_count + spec->right_field_count;
    uint32_t capacity = spec->options->async ? (uint32_t)spec->options->capacity : 1;
    join->key_columns = calloc(spec->key_count + 1, sizeof *join->key_columns);
    join->key_types = calloc(spec->key_count + 1, sizeof *join->key_types);
    join->variable_length = calloc(total + 1, sizeof *join->variable_length);
    join->sync_slots = calloc(SYNC_RESULT_CAPACITY, sizeof *join->sync_slots);
    join->slots = calloc(capacity, sizeof *join->slots);
    int slots_status = async_slots_init(&join->async, capacity);
    operator_init(&join->base, &LOOKUP_JOIN_VTABLE, "LookupJoin", 1, join);
    join->base.uses_timers = spec->options->async;
    if (!join->key_columns || !join->key_types || !join->variable_length || !join->sync_slots ||
        !join->slots || slots_status != JOINERY_OK) {
        lookup_join_close(&join->base);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t k = 0; k < spec->key_count; k++) {
        join->key_columns[k] = spec->columns[spec->key_fields[k]];
        join->key_types[k] = spec->right_types[spec->key_fields[k]];
    }
    for (uint32_t i = 0; i < total; i++) {
        DataType type = i < spec->input_field_count
                            ? spec->input_types[i]
                            : spec->right_types[i - spec->input_field_count];
        join->variable_length[i] = type_is_variable_length(type.id);
    }
    return &join->base;
}

void lookup_join_operator_figures(const Operator *op, LookupJoinFigures *figures)
{
    const LookupJoinOperator *join = op->impl;
    memset(figures, 0, sizeof *figures);
    figures->requests = join->requests;
    figures->cache_hits = join->cache_hits;
    figures->cache_misses = join->cache_misses;
    figures->cache_keys = lookup_cache_keys(join->cache);
    figures->cache_rows = lookup_cache_rows(join->cache);
    figures->in_flight = join->function ? join->function->in_flight : 0;
    figures->connections = join->function ? join->function->connections : 0;
    figures->reconnects = join->function ? join->function->reconnects : 0;
    figures->retries = join->retries;
    figures->reloads = join->reloads;
    uint64_t samples =
        join->latency_count < LATENCY_SAMPLES ? join->latency_count : LATENCY_SAMPLES;
    figures->latency_count = join->latency_count;
    figures->latency_sum_micros = join->latency_sum_micros;
    figures->async = join->function && join->spec.options->async;
    figures->in_flight_area = join->in_flight_area;
    figures->window_micros = join->window_last - join->window_start;
    figures->latency_p50_micros = figures->latency_p99_micros = -1;
    if (samples == 0)
        return;
    int64_t *sorted = malloc(samples * sizeof *sorted);
    if (!sorted)
        return;
    memcpy(sorted, join->latencies, samples * sizeof *sorted);
    for (uint64_t i = 1; i < samples; i++) /* insertion sort: at most 4096 samples */
        for (uint64_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            int64_t swap = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = swap;
        }
    figures->latency_p50_micros = sorted[(samples - 1) / 2];
    figures->latency_p99_micros = sorted[(samples - 1) * 99 / 100];
    free(sorted);
}
