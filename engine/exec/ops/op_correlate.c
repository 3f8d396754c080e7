/*
 * op_correlate.c - Correlate (op_correlate.h), as Flink's
 * StreamExecCorrelate: per input row, the arguments are evaluated over it
 * and the function's rows are emitted, each as the input row's fields then
 * the function row's, with the input row's kind (so -U / -D of an input
 * row retract exactly what its +I / +U gave: the functions are
 * deterministic). UNNEST of NULL gives no rows; of an ARRAY or MULTISET one
 * row per element (a MULTISET's element as many times as it occurs), a ROW
 * element spread over its fields (a NULL element: NULL fields); of a MAP
 * one row per entry (key, value). LEFT: an input row without rows gives one
 * with NULL function fields. INNER with a condition: only the joined rows it
 * holds for. Keeps no state.
 *
 * A C table function has one instance per operator (udf.h), opened in open
 * with the job's parameters. An async one (Flink's AsyncCorrelate): each
 * input row takes a slot (at most async_capacity, then process waits for
 * this operator's completions only: exact backpressure) and starts a call;
 * completions fill the slot's rows in any order; slots are emitted strictly
 * in input order (async_slots.h keeps it, and names each use of a slot by
 * a request id, so a stale completion is refused), so the output is the
 * sync one. The instance's descriptor is watched while calls are in
 * flight; a processing-time timer fails a call older than the timeout.
 * A call that fails (Flink's FIXED_DELAY retry strategy) waits
 * async_retry_delay_millis with retry_at set, not in flight, and is started
 * again under the same request id (its failed call completed, so no stale
 * completion can come) by check_deadlines, which the timer runs; the
 * timeout counts from the first start. `retrying` counts the slots waiting.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/exec/ops/op_correlate.h"
#include "engine/exec/async_slots.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/composite.h"
#include "engine/base/map.h"
#include "engine/exec/exec_io.h"
#include "engine/exec/expr_eval.h"

enum { CORRELATE_MAX_ARGUMENTS = 64, WAIT_SLICE_MILLIS = 50 };

/* An input row of an async function waiting for its call or for the rows before it. */
typedef struct CorrelateSlot {
    bool used, done;
    Row *input; /* heap copy */
    Row **rows; /* the function's rows (heap, function_field_count fields each) */
    uint32_t count;
    int64_t started_at; /* processing time of the first start */
    int64_t retry_at;   /* > 0: failed, to be started again at this processing time */
    uint32_t failures;  /* failed calls so far */
    uint64_t request;
} CorrelateSlot;

typedef struct CorrelateOperator {
    Operator base;
    CorrelateSpec spec;
    RowBuilder builder;
    RowBuilder function_builder;
    Arena scratch;
    Arena call_arena; /* an async start's and poll's scratch */
    const Row *row;   /* the input row being expanded */
    uint64_t emitted; /* rows emitted for it */
    UdfInstance *instance;
    /* async */
    CorrelateSlot *slots; /* async.capacity of them */
    AsyncSlots async;
    uint32_t retrying; /* slots waiting for their retry_at */
    int watched_fd;
    uint32_t watched_events;
    int64_t timer_at; /* the processing-time timer registered; 0: none */
} CorrelateOperator;

/* Emits the current input row joined with one function row (NULL: the padded row). */
static int correlate_emit(CorrelateOperator *correlate, const Value *fields)
{
    const CorrelateSpec *spec = &correlate->spec;
    const Row *row = correlate->row;
    uint32_t input_count = spec->input_field_count;
    row_builder_begin(&correlate->builder, input_count + spec->function_field_count, row_kind(row));
    for (uint32_t i = 0; i < input_count; i++)
        row_builder_copy_field(&correlate->builder, i, row, i,
                               type_is_variable_length(spec->input_types[i].id));
    for (uint32_t i = 0; i < spec->function_field_count; i++) {
        if (!fields || fields[i].is_null)
            row_builder_set_null(&correlate->builder, input_count + i);
        else
            value_to_builder(&correlate->builder, input_count + i, spec->function_types[i],
                             fields[i]);
    }
    Row *out = row_builder_finish(&correlate->builder);
    if (!out)
        return operator_fail(&correlate->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (fields && spec->condition) {
        ExprEvalContext eval = {.arena = &correlate->scratch,
                                .diag = correlate->base.context->diag,
                                .now_millis = operator_now_millis(&correlate->base)};
        if (!expr_eval_predicate(spec->condition, out, input_count + spec->function_field_count,
                                 NULL, &eval))
            return eval.failed ? correlate->base.context->diag->status : JOINERY_OK;
    }
    correlate->emitted++;
    return operator_emit(&correlate->base, out, row_kind(row));
}

static int correlate_sink(void *context, const Value *fields)
{
    return correlate_emit(context, fields);
}

static int correlate_bad_value(CorrelateOperator *correlate)
{
    return operator_fail(&correlate->base, JOINERY_ERROR_RUNTIME,
                         "UNNEST: malformed collection value");
}

static int correlate_unnest(CorrelateOperator *correlate, DataType type, Value collection)
{
    if (collection.is_null)
        return JOINERY_OK;
    const CorrelateSpec *spec = &correlate->spec;
    Value fields[CORRELATE_MAX_ARGUMENTS + 1];
    uint32_t element_fields = spec->function_field_count - (spec->with_ordinality ? 1u : 0u);
    int32_t position = 0; /* WITH ORDINALITY: fields[element_fields] */
    if (type.id == TYPE_MAP) {
        MapReader reader;
        if (!map_reader_init(&reader, type, collection.s.ptr, collection.s.len))
            return correlate_bad_value(correlate);
        MapEntry entry;
        while (map_reader_next(&reader, &entry)) {
            fields[0] = entry.key;
            fields[1] = entry.value;
            if (spec->with_ordinality)
                fields[element_fields] = value_int(++position);
            int status = correlate_emit(correlate, fields);
            if (status != JOINERY_OK)
                return status;
        }
        return JOINERY_OK;
    }
    CollectionReader reader;
    if (!collection_reader_init(&reader, type, collection.s.ptr, collection.s.len))
        return correlate_bad_value(correlate);
    DataType element_type = type_element(type);
    bool spread = element_type.id == TYPE_ROW;
    Value element;
    int64_t multiplicity;
    while (collection_reader_next(&reader, &element, &multiplicity)) {
        if (!spread) {
            fields[0] = element;
        } else {
            for (uint32_t f = 0; f < element_fields; f++) {
                fields[f] = value_null();
                if (!element.is_null &&
                    !row_value_field(element_type, element.s.ptr, element.s.len, f, &fields[f]))
                    return correlate_bad_value(correlate);
            }
        }
        for (int64_t m = 0; m < multiplicity; m++) {
            if (spec->with_ordinality)
                fields[element_fields] = value_int(++position);
            int status = correlate_emit(correlate, fields);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

static int correlate_process_async(CorrelateOperator *correlate, const RowBatch *batch);

static int correlate_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    CorrelateOperator *correlate = self->impl;
    const CorrelateSpec *spec = &correlate->spec;
    if (spec->function && spec->function->async)
        return correlate_process_async(correlate, batch);
    ExprEvalContext eval = {.arena = &correlate->scratch,
                            .diag = self->context->diag,
                            .now_millis = operator_now_millis(self)};
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < batch->count && status == JOINERY_OK; r++) {
        const Row *row = batch->rows[r];
        Value arguments[CORRELATE_MAX_ARGUMENTS + 1];
        for (uint32_t i = 0; i < spec->argument_count; i++) {
            arguments[i] = expr_eval(spec->arguments[i], row, spec->input_field_count, NULL, &eval);
            if (eval.failed)
                return self->context->diag->status;
        }
        correlate->row = row;
        correlate->emitted = 0;
        if (!spec->function) {
            status = correlate_unnest(correlate, spec->arguments[0]->type, arguments[0]);
        } else {
            Diag local;
            diag_clear(&local);
            status = udf_instance_call_table(correlate->instance, arguments, &correlate->scratch,
                                             correlate_sink, correlate, &local);
            if (status != JOINERY_OK && local.status != JOINERY_OK)
                status = operator_fail(self, local.status, "%s", local.message);
        }
        if (status == JOINERY_OK && spec->left && correlate->emitted == 0)
            status = correlate_emit(correlate, NULL);
    }
    arena_reset(&correlate->scratch);
    return status;
}

/* ---------------------------------------------------------------- async */

static int64_t correlate_now(const CorrelateOperator *correlate)
{
    return operator_now_millis(&correlate->base);
}

static bool correlate_cancelled(const CorrelateOperator *correlate)
{
    const volatile int *flag = correlate->base.context->cancel_requested;
    return flag && *flag;
}

static void slot_release(CorrelateOperator *correlate, CorrelateSlot *slot)
{
    if (slot->retry_at)
        correlate->retrying--;
    for (uint32_t i = 0; i < slot->count; i++)
        free(slot->rows[i]);
    free(slot->rows);
    free(slot->input);
    memset(slot, 0, sizeof *slot);
    async_slots_release(&correlate->async, (uint32_t)(slot - correlate->slots));
}

/* The output of one done slot: its function rows (or the LEFT padding) over its input row. */
static int slot_emit(CorrelateOperator *correlate, CorrelateSlot *slot)
{
    const CorrelateSpec *spec = &correlate->spec;
    Value fields[CORRELATE_MAX_ARGUMENTS + 1];
    correlate->row = slot->input;
    correlate->emitted = 0;
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < slot->count && status == JOINERY_OK; r++) {
        for (uint32_t f = 0; f < spec->function_field_count; f++)
            fields[f] = value_from_row(slot->rows[r], f, spec->function_types[f]);
        status = correlate_emit(correlate, fields);
    }
    if (status == JOINERY_OK && spec->left && correlate->emitted == 0)
        status = correlate_emit(correlate, NULL);
    correlate->row = NULL;
    slot_release(correlate, slot);
    return status;
}

/* Emits the done slots at the head of the input order. */
static int emit_ready(CorrelateOperator *correlate)
{
    uint32_t oldest;
    while (async_slots_oldest(&correlate->async, &oldest)) {
        CorrelateSlot *head = &correlate->slots[oldest];
        if (!head->done)
            break;
        async_slots_pop_oldest(&correlate->async);
        int status = slot_emit(correlate, head);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* The arguments of a slot's input row (in the scratch arena); false when one failed. */
static bool slot_arguments(CorrelateOperator *correlate, const CorrelateSlot *slot,
                           Value *arguments)
{
    const CorrelateSpec *spec = &correlate->spec;
    ExprEvalContext eval = {.arena = &correlate->scratch,
                            .diag = correlate->base.context->diag,
                            .now_millis = correlate_now(correlate)};
    for (uint32_t i = 0; i < spec->argument_count; i++) {
        arguments[i] =
            expr_eval(spec->arguments[i], slot->input, spec->input_field_count, NULL, &eval);
        if (eval.failed)
            return false;
    }
    return true;
}

static int schedule_timer(CorrelateOperator *correlate, int64_t at);

/*
 * A slot's call failed with `message` (already naming the function and
 * arguments when `formatted`, else the function's own words): it waits for
 * its retry, or, past async_max_retries, fails the job with the message.
 */
static int slot_call_failed(CorrelateOperator *correlate, CorrelateSlot *slot, const char *message,
                            bool formatted)
{
    const CorrelateSpec *spec = &correlate->spec;
    slot->failures++;
    if (slot->failures <= spec->async_max_retries) {
        slot->retry_at = correlate_now(correlate) + spec->async_retry_delay_millis;
        correlate->retrying++;
        return schedule_timer(correlate, slot->retry_at);
    }
    Diag local;
    diag_clear(&local);
    if (formatted) {
        diag_error(&local, JOINERY_ERROR_RUNTIME, "%s", message);
    } else {
        Value arguments[CORRELATE_MAX_ARGUMENTS + 1];
        if (!slot_arguments(correlate, slot, arguments))
            return correlate->base.context->diag->status;
        udf_call_error(spec->function, arguments, message, &local);
    }
    if (slot->failures > 1)
        return operator_fail(&correlate->base, local.status,
                             "%s (the last of %u attempts: 'table.exec.async-table.max-retries' "
                             "= %u)",
                             local.message, slot->failures, spec->async_max_retries);
    return operator_fail(&correlate->base, local.status, "%s", local.message);
}

/* Starts a slot's call (again, after a failure). A NULL argument: done, no call, no rows. */
static int slot_start(CorrelateOperator *correlate, CorrelateSlot *slot)
{
    Value arguments[CORRELATE_MAX_ARGUMENTS + 1];
    if (!slot_arguments(correlate, slot, arguments))
        return correlate->base.context->diag->status;
    bool called = false;
    Diag local;
    diag_clear(&local);
    int status = udf_instance_start(correlate->instance, arguments, slot->request,
                                    &correlate->call_arena, &called, &local);
    arena_reset(&correlate->call_arena);
    arena_reset(&correlate->scratch);
    if (status != JOINERY_OK)
        return correlate->base.context->diag->status != JOINERY_OK
                   ? correlate->base.context->diag->status
                   : slot_call_failed(correlate, slot, local.message, true);
    if (!called)
        slot->done = true;
    return JOINERY_OK;
}

static int on_complete(void *context, uint64_t request, const Value *rows, uint32_t row_count,
                       const char *error)
{
    CorrelateOperator *correlate = context;
    const CorrelateSpec *spec = &correlate->spec;
    uint32_t index;
    CorrelateSlot *slot =
        async_slots_index(&correlate->async, request, &index) ? &correlate->slots[index] : NULL;
    if (!slot || !slot->used || slot->done || slot->request != request)
        return operator_fail(&correlate->base, JOINERY_ERROR_RUNTIME,
                             "Function '%s' completed request %llu, which is not in flight",
                             spec->function->name, (unsigned long long)request);
    if (slot->retry_at)
        return operator_fail(&correlate->base, JOINERY_ERROR_RUNTIME,
                             "Function '%s' completed request %llu, which waits for its retry",
                             spec->function->name, (unsigned long long)request);
    if (error)
        return slot_call_failed(correlate, slot, error, false);
    if (row_count) {
        slot->rows = calloc(row_count, sizeof *slot->rows);
        if (!slot->rows)
            return operator_fail(&correlate->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    for (uint32_t r = 0; r < row_count; r++) {
        RowBuilder *builder = &correlate->function_builder;
        row_builder_begin(builder, spec->function_field_count, ROW_KIND_INSERT);
        for (uint32_t f = 0; f < spec->function_field_count; f++) {
            const Value *value = &rows[(size_t)r * spec->function_field_count + f];
            if (value->is_null)
                row_builder_set_null(builder, f);
            else
                value_to_builder(builder, f, spec->function_types[f], *value);
        }
        const Row *built = row_builder_finish(builder);
        slot->rows[r] = built ? row_copy_heap(built) : NULL;
        if (!slot->rows[r])
            return operator_fail(&correlate->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
        slot->count++;
    }
    slot->done = true;
    return JOINERY_OK; /* emitted in order by the caller of start / poll */
}

static int on_descriptor(Operator *op, int fd, uint32_t events);

/* Watches the instance's descriptor while calls are in flight (none: a timer polls). */
static int sync_watch(CorrelateOperator *correlate)
{
    uint32_t wanted = 0;
    bool in_flight = correlate->async.used > correlate->retrying;
    int fd = in_flight ? udf_instance_descriptor(correlate->instance, &wanted) : -1;
    uint32_t events = EXEC_FD_READ | ((wanted & UDF_WAIT_WRITE) ? EXEC_FD_WRITE : 0u);
    if (fd < 0 && in_flight) {
        /* calls in flight but nothing to watch: poll again at the next millisecond */
        int status = schedule_timer(correlate, correlate_now(correlate) + 1);
        if (status != JOINERY_OK)
            return status;
    }
    if (fd == correlate->watched_fd && (fd < 0 || events == correlate->watched_events))
        return JOINERY_OK;
    ExecContext *context = correlate->base.context;
    if (correlate->watched_fd >= 0 && context->io)
        exec_unwatch_fd(context, correlate->watched_fd);
    correlate->watched_fd = -1;
    if (fd >= 0 && context->io) {
        int status = exec_watch_fd(context, fd, events, on_descriptor, &correlate->base);
        if (status != JOINERY_OK)
            return status;
        correlate->watched_fd = fd;
        correlate->watched_events = events;
    }
    return JOINERY_OK;
}

/* Lets the function complete what arrived, emits what is in order, re-watches. */
static int poll_function(CorrelateOperator *correlate)
{
    Diag local;
    diag_clear(&local);
    int status = udf_instance_poll(correlate->instance, &correlate->call_arena, &local);
    arena_reset(&correlate->call_arena);
    if (status != JOINERY_OK)
        return correlate->base.context->diag->status != JOINERY_OK
                   ? correlate->base.context->diag->status
                   : operator_fail(&correlate->base, local.status, "%s", local.message);
    status = emit_ready(correlate);
    if (status == JOINERY_OK)
        status = sync_watch(correlate);
    return status;
}

static int on_descriptor(Operator *op, int fd, uint32_t events)
{
    (void)fd;
    (void)events;
    return poll_function(op->impl);
}

static int schedule_timer(CorrelateOperator *correlate, int64_t at)
{
    if (correlate->timer_at && correlate->timer_at <= at)
        return JOINERY_OK;
    correlate->timer_at = at;
    return operator_register_timer(&correlate->base, TIMER_PROCESSING_TIME, at, NULL);
}

/*
 * Fails on a call past the timeout (its retries included), starts the
 * failed calls whose retry is due, then sets a timer at the next deadline
 * or retry.
 */
static int check_deadlines(CorrelateOperator *correlate)
{
    int64_t now = correlate_now(correlate);
    int64_t timeout = correlate->spec.async_timeout_millis;
    int64_t next = 0;
    bool started = false;
    for (uint32_t s = 0; s < correlate->async.capacity; s++) {
        CorrelateSlot *slot = &correlate->slots[s];
        if (!slot->used || slot->done)
            continue;
        if (slot->retry_at && slot->retry_at <= now && now - slot->started_at < timeout) {
            slot->retry_at = 0;
            correlate->retrying--;
            int status = slot_start(correlate, slot);
            if (status != JOINERY_OK)
                return status;
            started = true;
            if (slot->done)
                continue;
        }
        if (slot->retry_at && (!next || slot->retry_at < next))
            next = slot->retry_at;
        if (now - slot->started_at >= timeout)
            return operator_fail(
                &correlate->base, JOINERY_ERROR_RUNTIME,
                "AsyncCorrelate(invocation=[%s]): Async function call has timed out. "
                "(a call took longer than 'table.exec.async-table.timeout' = "
                "%lld ms)",
                correlate->spec.function->name, (long long)timeout);
        if (!next || slot->started_at + timeout < next)
            next = slot->started_at + timeout;
    }
    if (started) {
        int status = emit_ready(correlate);
        if (status == JOINERY_OK)
            status = sync_watch(correlate);
        if (status != JOINERY_OK)
            return status;
    }
    return next ? schedule_timer(correlate, next) : JOINERY_OK;
}

static void sleep_millis(int64_t millis)
{
    struct timespec pause = {millis / 1000, (millis % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* Waits one slice for this operator's completions, then checks its deadlines. */
static int wait_once(CorrelateOperator *correlate)
{
    if (correlate_cancelled(correlate))
        return diag_error(correlate->base.context->diag, JOINERY_CANCELLED, "cancelled");
    int status;
    if (correlate->base.context->io && correlate->watched_fd >= 0) {
        status = exec_wait_io(&correlate->base, WAIT_SLICE_MILLIS);
    } else {
        uint32_t wanted = 0;
        int fd = udf_instance_descriptor(correlate->instance, &wanted);
        if (fd >= 0) {
            struct pollfd ready = {.fd = fd, .events = POLLIN};
            if (wanted & UDF_WAIT_WRITE)
                ready.events |= POLLOUT;
            poll(&ready, 1, WAIT_SLICE_MILLIS);
        } else {
            sleep_millis(1);
        }
        status = poll_function(correlate);
    }
    if (status == JOINERY_OK)
        status = check_deadlines(correlate);
    return status;
}

static int correlate_start(CorrelateOperator *correlate, const Row *row)
{
    const CorrelateSpec *spec = &correlate->spec;
    while (async_slots_full(&correlate->async)) {
        int status = wait_once(correlate);
        if (status != JOINERY_OK)
            return status;
    }
    uint64_t request;
    CorrelateSlot *slot = &correlate->slots[async_slots_acquire(&correlate->async, &request)];
    memset(slot, 0, sizeof *slot);
    slot->used = true;
    slot->request = request;
    slot->started_at = correlate_now(correlate);
    slot->input = row_copy_heap(row);
    if (!slot->input)
        return operator_fail(&correlate->base, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int status = slot_start(correlate, slot);
    if (status == JOINERY_OK)
        status = emit_ready(correlate);
    if (status == JOINERY_OK && !slot->done && slot->used)
        status = schedule_timer(correlate, slot->started_at + spec->async_timeout_millis);
    return status;
}

static int correlate_process_async(CorrelateOperator *correlate, const RowBatch *batch)
{
    int status = JOINERY_OK;
    for (uint32_t r = 0; r < batch->count && status == JOINERY_OK; r++)
        status = correlate_start(correlate, batch->rows[r]);
    if (status == JOINERY_OK)
        status = poll_function(correlate);
    return status;
}

/* Every call done and its rows emitted. */
static int drain(CorrelateOperator *correlate)
{
    int status = JOINERY_OK;
    while (status == JOINERY_OK && correlate->async.used > 0)
        status = wait_once(correlate);
    return status;
}

static bool correlate_async(const CorrelateOperator *correlate)
{
    return correlate->spec.function && correlate->spec.function->async;
}

/* ---------------------------------------------------------------- vtable */

static int correlate_open(Operator *self, ExecContext *context)
{
    (void)context;
    CorrelateOperator *correlate = self->impl;
    const CorrelateSpec *spec = &correlate->spec;
    if (!spec->function)
        return JOINERY_OK;
    Diag local;
    diag_clear(&local);
    int status = udf_instance_open(spec->function, spec->job_parameters,
                                   spec->function->async ? on_complete : NULL, correlate,
                                   &correlate->instance, &local);
    if (status != JOINERY_OK)
        return operator_fail(self, local.status, "%s", local.message);
    return JOINERY_OK;
}

static int correlate_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    (void)domain;
    (void)key;
    CorrelateOperator *correlate = self->impl;
    if (timestamp == correlate->timer_at)
        correlate->timer_at = 0;
    if (!correlate_async(correlate) || correlate->async.used == 0)
        return JOINERY_OK;
    int status = poll_function(correlate);
    return status == JOINERY_OK ? check_deadlines(correlate) : status;
}

static int correlate_finish(Operator *self)
{
    CorrelateOperator *correlate = self->impl;
    return correlate_async(correlate) ? drain(correlate) : JOINERY_OK;
}

static int correlate_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    (void)barrier;
    (void)writer;
    CorrelateOperator *correlate = self->impl;
    return correlate_async(correlate) ? drain(correlate) : JOINERY_OK;
}

static int correlate_restore(Operator *self, const StateReader *reader)
{
    (void)self;
    (void)reader;
    return JOINERY_OK; /* nothing written: calls were drained at the barrier */
}

static void correlate_close(Operator *self)
{
    CorrelateOperator *correlate = self->impl;
    if (correlate->watched_fd >= 0 && self->context && self->context->io)
        exec_unwatch_fd(self->context, correlate->watched_fd);
    for (uint32_t s = 0; correlate->slots && s < correlate->async.capacity; s++)
        if (correlate->slots[s].used)
            slot_release(correlate, &correlate->slots[s]);
    udf_instance_close(correlate->instance);
    row_builder_free(&correlate->builder);
    row_builder_free(&correlate->function_builder);
    arena_destroy(&correlate->scratch);
    arena_destroy(&correlate->call_arena);
    free(correlate->slots);
    async_slots_free(&correlate->async);
    free(correlate);
}

static const OperatorVtable CORRELATE_VTABLE = {
    .open = correlate_open,
    .process = correlate_process,
    .on_timer = correlate_on_timer,
    .snapshot = correlate_snapshot,
    .restore = correlate_restore,
    .finish = correlate_finish,
    .close = correlate_close,
};

Operator *correlate_operator_create(const CorrelateSpec *spec, Diag *diag)
{
    if (spec->argument_count > CORRELATE_MAX_ARGUMENTS ||
        spec->function_field_count > CORRELATE_MAX_ARGUMENTS ||
        (!spec->function && spec->argument_count != 1)) {
        diag_error(diag, JOINERY_ERROR, "Correlate: bad spec");
        return NULL;
    }
    CorrelateOperator *correlate = calloc(1, sizeof *correlate);
    if (!correlate) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    correlate->spec = *spec;
    correlate->watched_fd = -1;
    row_builder_init(&correlate->builder);
    row_builder_init(&correlate->function_builder);
    arena_init(&correlate->scratch, 16 * 1024);
    arena_init(&correlate->call_arena, 4096);
    operator_init(&correlate->base, &CORRELATE_VTABLE, "Correlate", 1, correlate);
    if (spec->function && spec->function->async) {
        uint32_t capacity = spec->async_capacity ? spec->async_capacity : 10;
        if (correlate->spec.async_timeout_millis <= 0)
            correlate->spec.async_timeout_millis = 180000;
        correlate->slots = calloc(capacity, sizeof *correlate->slots);
        if (!correlate->slots || async_slots_init(&correlate->async, capacity) != JOINERY_OK) {
            correlate_close(&correlate->base);
            diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            return NULL;
        }
        correlate->base.uses_timers = true;
    }
    return &correlate->base;
}
