/*
 * operator.c - the framework around operator vtables: batching of output,
 * metrics, watermark, watermark status and end-of-input propagation (see
 * operator.h). Watermarks go through a valve over the upstream channels:
 * op->input_watermark is the merged watermark (never decreases; an aligned
 * channel is active and not behind it); each advance reaches the operator
 * through on_watermark, whose default forwards it, so op->current_watermark
 * (what was sent) equals it unless the operator holds watermarks back.
 */
#include "engine/exec/operator.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/state/state.h"

void operator_init(Operator *op, const OperatorVtable *vtable, const char *name,
                   uint32_t input_count, void *impl)
{
    memset(op, 0, sizeof *op);
    op->vtable = vtable;
    op->name = name;
    op->input_count = input_count;
    op->channel_count = input_count;
    op->impl = impl;
    op->current_watermark = INT64_MIN;
    op->input_watermark = INT64_MIN;
    op->watermark_status = WATERMARK_STATUS_ACTIVE;
    arena_init(&op->output_arena, 64 * 1024);
}

void operator_connect(Operator *op, Operator *target, uint32_t input)
{
    op->target.op = target;
    op->target.input = input;
    op->target.channel = input;
}

int operator_open(Operator *op, ExecContext *context)
{
    op->context = context;
    op->output.capacity = ROW_BATCH_CAPACITY;
    op->output.count = 0;
    /* the row array outlives arena resets: it has its own allocation */
    Row **rows = malloc(sizeof(Row *) * ROW_BATCH_CAPACITY);
    if (!rows)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    op->output.rows = rows;
    if (op->vtable->open)
        return op->vtable->open(op, context);
    return JOINERY_OK;
}

int operator_flush(Operator *op)
{
    if (op->output.count == 0)
        return JOINERY_OK;
    int status = operator_push_downstream(op, &op->output);
    op->output.count = 0;
    arena_reset(&op->output_arena);
    return status;
}

int operator_push_downstream(Operator *op, const RowBatch *batch)
{
    int status = JOINERY_OK;
    if (op->target.op)
        status = operator_push_channel(op->target.op, op->target.input, op->target.channel, batch);
    for (uint32_t i = 0; i < op->fanout_count && status == JOINERY_OK; i++)
        status = operator_push_channel(op->fanout[i].op, op->fanout[i].input, op->fanout[i].channel,
                                       batch);
    return status;
}

int operator_push(Operator *op, uint32_t input, const RowBatch *batch)
{
    return operator_push_channel(op, input, input, batch);
}

/* ---- barriers: blocked channels keep what arrives (direct calls) ---- */

/* Keeps `what` (its rows copied) at the end of its blocked channel's queue. */
static int operator_defer(Operator *op, const StreamElement *what)
{
    OperatorTarget target = {op, what->input, what->channel};
    StreamElement *kept = stream_element_new(what->kind, &target, &what->batch);
    if (!kept)
        return operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
    kept->watermark = what->watermark;
    kept->watermark_status = what->watermark_status;
    kept->barrier = what->barrier;
    ChannelFlow *flow = &op->channel_flows[what->channel];
    if (flow->deferred_tail)
        flow->deferred_tail->next = kept;
    else
        flow->deferred_head = kept;
    flow->deferred_tail = kept;
    return JOINERY_OK;
}

int operator_push_channel(Operator *op, uint32_t input, uint32_t channel, const RowBatch *batch)
{
    if (batch->count == 0)
        return JOINERY_OK;
    if (operator_channel_blocked(op, channel)) {
        StreamElement what = {.kind = STREAM_BATCH, .input = input, .channel = channel};
        what.batch = *batch;
        return operator_defer(op, &what);
    }
    op->metrics.rows_in += batch->count;
    int64_t start = datetime_monotonic_nanos();
    int status = op->vtable->process(op, input, batch);
    int64_t elapsed = datetime_monotonic_nanos() - start;
    op->metrics.busy_nanos += (uint64_t)elapsed;
    if (status != JOINERY_OK)
        return status;
    /* flushing the last output batch happens outside the timed call; batches flushed
       while process runs (a full output batch) count in this operator's time too */
    return operator_flush(op);
}

int operator_emit(Operator *op, const Row *row, RowKind kind)
{
    if (op->output.count == op->output.capacity) {
        int status = operator_flush(op);
        if (status != JOINERY_OK)
            return status;
    }
    Row *copy = row_copy(&op->output_arena, row);
    if (!copy)
        return operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
    row_set_kind(copy, kind);
    op->output.rows[op->output.count++] = copy;
    op->metrics.rows_out++;
    return JOINERY_OK;
}

/*
 * Delivers `element` (its kind and payload) to every downstream target of
 * op: the broadcast list, else the single target and the fanout targets.
 */
static int operator_send(Operator *op, StreamElement *element)
{
    uint32_t count = op->broadcast_count ? op->broadcast_count : op->target.op ? 1 : 0;
    const OperatorTarget *targets = op->broadcast_count ? op->broadcast : &op->target;
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < count && status == JOINERY_OK; i++) {
        element->target = targets[i].op;
        element->input = targets[i].input;
        element->channel = targets[i].channel;
        status = operator_deliver(element);
    }
    for (uint32_t i = 0; i < op->fanout_count && status == JOINERY_OK; i++) {
        element->target = op->fanout[i].op;
        element->input = op->fanout[i].input;
        element->channel = op->fanout[i].channel;
        status = operator_deliver(element);
    }
    return status;
}

int operator_emit_watermark_status(Operator *op, WatermarkStatus watermark_status)
{
    if (watermark_status == op->watermark_status)
        return JOINERY_OK;
    int status = operator_flush(op);
    if (status != JOINERY_OK)
        return status;
    op->watermark_status = watermark_status;
    StreamElement element = {.kind = STREAM_WATERMARK_STATUS, .watermark_status = watermark_status};
    return operator_send(op, &element);
}

int operator_emit_watermark(Operator *op, int64_t watermark)
{
    /* a watermark means the stream is active again (Flink's WatermarkToDataOutput) */
    int status = operator_emit_watermark_status(op, WATERMARK_STATUS_ACTIVE);
    if (status == JOINERY_OK)
        status = operator_flush(op);
    if (status != JOINERY_OK)
        return status;
    if (watermark > op->current_watermark)
        op->current_watermark = watermark;
    StreamElement element = {.kind = STREAM_WATERMARK, .watermark = watermark};
    return operator_send(op, &element);
}

/* The valve's record of `channel`, allocated for every channel at first use. */
static ChannelWatermark *operator_channel_watermark(Operator *op, uint32_t channel)
{
    if (channel >= op->channel_watermark_count) {
        uint32_t count = op->channel_count > channel ? op->channel_count : channel + 1;
        ChannelWatermark *grown = realloc(op->channel_watermarks, count * sizeof *grown);
        if (!grown)
            return NULL;
        for (uint32_t i = op->channel_watermark_count; i < count; i++) {
            /* a channel that sent nothing yet holds the minimum at "no watermark" */
            grown[i].watermark = INT64_MIN;
            grown[i].idle = false;
            grown[i].aligned = true;
        }
        op->channel_watermarks = grown;
        op->channel_watermark_count = count;
    }
    return &op->channel_watermarks[channel];
}

/* Runs a due timer of `op` (the timer service's callback). */
static int operator_fire_timer(void *context, TimerDomain domain, int64_t timestamp, const Row *key)
{
    Operator *op = context;
    if (!op->vtable->on_timer)
        return operator_fail(op, JOINERY_ERROR, "%s has timers but no on_timer", op->name);
    return op->vtable->on_timer(op, domain, timestamp, key);
}

/* Fires op's timers of `domain` due at `time`, timed as op's work. */
static int operator_fire_timers(Operator *op, TimerDomain domain, int64_t time)
{
    if (!op->timers)
        return JOINERY_OK;
    int64_t start = datetime_monotonic_nanos();
    int status = timer_service_advance(op->timers, domain, time, operator_fire_timer, op);
    op->metrics.busy_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    if (status == JOINERY_OK || status == JOINERY_CANCELLED)
        return status;
    /* a failing on_timer filled the diag already; otherwise the store failed */
    const Diag *diag = op->context ? op->context->diag : NULL;
    return diag && diag->status != JOINERY_OK ? diag->status : operator_fail_state(op, "timers");
}

/*
 * The merged watermark advanced: event-time timers due at it fire first,
 * then the operator reacts (on_watermark) or it is forwarded.
 */
static int valve_emit(Operator *op, int64_t watermark)
{
    op->input_watermark = watermark;
    int status = operator_fire_timers(op, TIMER_EVENT_TIME, watermark);
    if (status != JOINERY_OK)
        return status;
    if (op->vtable->on_watermark)
        return op->vtable->on_watermark(op, watermark);
    if (watermark <= op->current_watermark)
        return JOINERY_OK; /* a generator already sent a later one of its own */
    return operator_emit_watermark(op, watermark);
}

/* Advances to the minimum over the aligned channels when it is ahead of the merged watermark. */
static int valve_advance(Operator *op)
{
    bool any = false;
    int64_t minimum = INT64_MAX;
    for (uint32_t i = 0; i < op->channel_watermark_count; i++) {
        const ChannelWatermark *channel = &op->channel_watermarks[i];
        if (!channel->aligned)
            continue;
        any = true;
        if (channel->watermark < minimum)
            minimum = channel->watermark;
    }
    if (!any || minimum <= op->input_watermark)
        return JOINERY_OK;
    return valve_emit(op, minimum);
}

static int valve_status(Operator *op, uint32_t channel, WatermarkStatus watermark_status)
{
    ChannelWatermark *state = operator_channel_watermark(op, channel);
    if (!state)
        return operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (watermark_status == WATERMARK_STATUS_ACTIVE) {
        if (!state->idle)
            return JOINERY_OK;
        state->idle = false;
        /* a channel that comes back behind the merged watermark waits until it catches up */
        state->aligned = state->watermark >= op->input_watermark;
        return operator_emit_watermark_status(op, WATERMARK_STATUS_ACTIVE);
    }
    if (state->idle)
        return JOINERY_OK;
    state->idle = true;
    state->aligned = false;
    bool any_active = false;
    for (uint32_t i = 0; i < op->channel_watermark_count && !any_active; i++)
        any_active = !op->channel_watermarks[i].idle;
    if (any_active)
        return valve_advance(op); /* it may have held the minimum */
    /* every channel idle: none advances any more, so when the last active one held the
       merged watermark, it goes to the largest channel watermark; then the operator is idle */
    int status = JOINERY_OK;
    if (state->watermark == op->input_watermark) {
        int64_t maximum = INT64_MIN;
        for (uint32_t i = 0; i < op->channel_watermark_count; i++)
            if (op->channel_watermarks[i].watermark > maximum)
                maximum = op->channel_watermarks[i].watermark;
        if (maximum > op->input_watermark)
            status = valve_emit(op, maximum);
    }
    if (status == JOINERY_OK)
        status = operator_emit_watermark_status(op, WATERMARK_STATUS_IDLE);
    return status;
}

static int valve_watermark(Operator *op, uint32_t channel, int64_t watermark)
{
    ChannelWatermark *state = operator_channel_watermark(op, channel);
    if (!state)
        return operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (state->idle) {
        /* a watermark on an idle channel makes it active again */
        int status = valve_status(op, channel, WATERMARK_STATUS_ACTIVE);
        if (status != JOINERY_OK)
            return status;
    }
    if (watermark <= state->watermark)
        return JOINERY_OK; /* never backwards per channel */
    state->watermark = watermark;
    if (!state->aligned && watermark >= op->input_watermark)
        state->aligned = true; /* caught up */
    return valve_advance(op);
}

int operator_push_watermark(Operator *op, uint32_t input, uint32_t channel, int64_t watermark)
{
    if (op->vtable->watermark)
        return op->vtable->watermark(op, input, watermark);
    if (operator_channel_blocked(op, channel)) {
        StreamElement what = {.kind = STREAM_WATERMARK, .input = input, .channel = channel};
        what.watermark = watermark;
        return operator_defer(op, &what);
    }
    return valve_watermark(op, channel, watermark);
}

int operator_push_watermark_status(Operator *op, uint32_t input, uint32_t channel,
                                   WatermarkStatus watermark_status)
{
    if (op->vtable->watermark_status)
        return op->vtable->watermark_status(op, input, watermark_status);
    if (op->vtable->watermark)
        return operator_emit_watermark_status(op, watermark_status);
    if (operator_channel_blocked(op, channel)) {
        StreamElement what = {.kind = STREAM_WATERMARK_STATUS, .input = input, .channel = channel};
        what.watermark_status = watermark_status;
        return operator_defer(op, &what);
    }
    return valve_status(op, channel, watermark_status);
}

int operator_end_input(Operator *op, uint32_t input)
{
    return operator_end_channel(op, input, input);
}

static int align_check(Operator *op);

int operator_end_channel(Operator *op, uint32_t input, uint32_t channel)
{
    if (operator_channel_blocked(op, channel)) {
        StreamElement what = {.kind = STREAM_END_OF_INPUT, .input = input, .channel = channel};
        return operator_defer(op, &what);
    }
    op->inputs_ended++;
    /* an ended channel counts as having delivered the barrier being aligned */
    int status = op->aligning ? align_check(op) : JOINERY_OK;
    if (status != JOINERY_OK || op->inputs_ended < op->channel_count || op->finished)
        return status;
    op->finished = true;
    const SnapshotStorage *storage = op->context ? op->context->snapshots : NULL;
    if (storage && storage->finished)
        storage->finished(storage->context, op);
    if (op->vtable->finish) {
        int64_t start = datetime_monotonic_nanos();
        status = op->vtable->finish(op);
        op->metrics.busy_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    }
    if (status == JOINERY_OK)
        status = operator_flush(op);
    StreamElement element = {.kind = STREAM_END_OF_INPUT};
    return status == JOINERY_OK ? operator_send(op, &element) : status;
}

StreamElement *stream_element_new(StreamElementKind kind, const OperatorTarget *target,
                                  const RowBatch *batch)
{
    size_t pointers = 0, bytes = 0;
    uint32_t count = kind == STREAM_BATCH && batch ? batch->count : 0;
    if (count) {
        pointers = sizeof(Row *) * count;
        for (uint32_t i = 0; i < count; i++)
            bytes += row_size(batch->rows[i]);
    }
    /* rows are 8-byte multiples; the pointer array keeps them 8-aligned */
    StreamElement *element = malloc(sizeof *element + pointers + bytes + (count ? 8 : 0));
    if (!element)
        return NULL;
    memset(element, 0, sizeof *element);
    element->kind = kind;
    element->target = target->op;
    element->input = target->input;
    element->channel = target->channel;
    if (!count)
        return element;
    unsigned char *memory = (unsigned char *)(element + 1);
    Row **rows = (Row **)memory;
    unsigned char *cursor = memory + ((pointers + 7) & ~(size_t)7);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t size = row_size(batch->rows[i]);
        memcpy(cursor, batch->rows[i], size);
        rows[i] = (Row *)cursor;
        cursor += size;
    }
    element->batch.rows = rows;
    element->batch.count = count;
    element->batch.capacity = count;
    return element;
}

void stream_element_free_list(StreamElement *head)
{
    while (head) {
        StreamElement *next = head->next;
        free(head);
        head = next;
    }
}

int operator_deliver(const StreamElement *element)
{
    Operator *target = element->target;
    switch (element->kind) {
    case STREAM_BATCH:
        return operator_push_channel(target, element->input, element->channel, &element->batch);
    case STREAM_WATERMARK:
        return operator_push_watermark(target, element->input, element->channel,
                                       element->watermark);
    case STREAM_WATERMARK_STATUS:
        return operator_push_watermark_status(target, element->input, element->channel,
                                              element->watermark_status);
    case STREAM_BARRIER:
        return operator_push_barrier(target, element->input, element->channel, &element->barrier);
    case STREAM_END_OF_INPUT:
        return operator_end_channel(target, element->input, element->channel);
    }
    return JOINERY_OK;
}

/* ---- barriers: alignment, snapshots ---- */

/* The alignment record of every channel, allocated at the first barrier; false on no memory. */
static bool operator_flows_ready(Operator *op, uint32_t channel)
{
    if (channel < op->channel_flow_count)
        return true;
    uint32_t count = op->channel_count > channel ? op->channel_count : channel + 1;
    ChannelFlow *grown = realloc(op->channel_flows, count * sizeof *grown);
    if (!grown)
        return false;
    memset(grown + op->channel_flow_count, 0, (count - op->channel_flow_count) * sizeof *grown);
    op->channel_flows = grown;
    op->channel_flow_count = count;
    return true;
}

/*
 * Delivers what the channels kept while blocked, channel by channel and in
 * order; a channel that blocks again (a later barrier among what it kept)
 * keeps the rest.
 */
static int align_replay(Operator *op)
{
    for (uint32_t i = 0; i < op->channel_flow_count; i++) {
        while (!op->channel_flows[i].blocked && op->channel_flows[i].deferred_head) {
            ChannelFlow *flow = &op->channel_flows[i];
            StreamElement *element = flow->deferred_head;
            flow->deferred_head = element->next;
            if (!flow->deferred_head)
                flow->deferred_tail = NULL;
            int status = operator_deliver(element);
            free(element);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

static void align_unblock(Operator *op)
{
    for (uint32_t i = 0; i < op->channel_flow_count; i++)
        op->channel_flows[i].blocked = false;
}

/* Tells the snapshot storage (if any) what op's snapshot at `barrier` holds. */
static int operator_store_snapshot(Operator *op, const Barrier *barrier)
{
    const SnapshotStorage *storage = op->context ? op->context->snapshots : NULL;
    if (!storage)
        return JOINERY_OK;
    SnapshotBuffer buffer = {0};
    StateWriter writer = snapshot_buffer_writer(&buffer);
    int64_t start = datetime_monotonic_nanos();
    StateStore *states = op->context->state_store;
    if (states)
        state_store_begin_snapshots(states, barrier->checkpoint_id,
                                    storage->states_by_copy &&
                                        storage->states_by_copy(storage->context, barrier));
    int status = operator_snapshot(op, barrier, &writer);
    if (states)
        state_store_end_snapshots(states);
    op->metrics.busy_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    if (status == JOINERY_OK && storage->store_buffer)
        return storage->store_buffer(storage->context, op, barrier, &buffer);
    if (status == JOINERY_OK)
        status = storage->store(storage->context, op, barrier, buffer.bytes, buffer.length);
    snapshot_buffer_free(&buffer);
    return status;
}

/* op has the barrier from every channel (or is a source): snapshot, then pass it on. */
static int operator_reach_barrier(Operator *op, const Barrier *barrier)
{
    int status = operator_flush(op);
    if (status == JOINERY_OK)
        status = operator_store_snapshot(op, barrier);
    if (status == JOINERY_OK)
        status = operator_emit_barrier(op, barrier);
    return status;
}

/* Completes the alignment once every channel delivered the barrier or ended. */
static int align_check(Operator *op)
{
    if (!op->aligning || op->barriers_received + op->inputs_ended < op->channel_count)
        return JOINERY_OK;
    op->aligning = false;
    op->last_alignment_nanos = datetime_monotonic_nanos() - op->aligning_since_nanos;
    Barrier barrier = op->aligning_barrier;
    int status = operator_reach_barrier(op, &barrier);
    if (status != JOINERY_OK)
        return status;
    align_unblock(op);
    return align_replay(op);
}

int operator_push_barrier(Operator *op, uint32_t input, uint32_t channel, const Barrier *barrier)
{
    if (op->vtable->barrier)
        return op->vtable->barrier(op, input, barrier);
    if (operator_channel_blocked(op, channel)) {
        StreamElement what = {.kind = STREAM_BARRIER, .input = input, .channel = channel};
        what.barrier = *barrier;
        return operator_defer(op, &what);
    }
    if (!operator_flows_ready(op, channel))
        return operator_fail(op, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int64_t id = barrier->checkpoint_id;
    if (id < op->checkpoint_id || (id == op->checkpoint_id && !op->aligning))
        return JOINERY_OK; /* obsolete: that checkpoint was aligned or given up */
    op->channel_flows[channel].blocked = true;
    if (id == op->checkpoint_id) {
        op->barriers_received++;
        return align_check(op);
    }
    /* the first barrier of a newer checkpoint; one still aligning is given up (subsumed,
       as Flink does): its channels flow again, up to their own barrier of this one */
    bool subsumed = op->aligning;
    if (subsumed) {
        align_unblock(op);
        op->channel_flows[channel].blocked = true;
    }
    op->checkpoint_id = id;
    op->aligning = true;
    op->aligning_since_nanos = datetime_monotonic_nanos();
    op->aligning_barrier = *barrier;
    op->barriers_received = 1;
    int status = subsumed ? align_replay(op) : JOINERY_OK;
    return status == JOINERY_OK ? align_check(op) : status;
}

int operator_emit_barrier(Operator *op, const Barrier *barrier)
{
    int status = operator_flush(op);
    if (status != JOINERY_OK)
        return status;
    StreamElement element = {.kind = STREAM_BARRIER, .barrier = *barrier};
    return operator_send(op, &element);
}

int operator_inject_barrier(Operator *op, const Barrier *barrier)
{
    op->last_alignment_nanos = 0; /* a source: nothing to align */
    return op->finished ? JOINERY_OK : operator_reach_barrier(op, barrier);
}

static TimerService *operator_timers(Operator *op);
static int operator_timers_failed(Operator *op);

int operator_snapshot(Operator *op, const Barrier *barrier, const StateWriter *writer)
{
    if (!op->vtable->snapshot)
        return JOINERY_OK;
    int status = op->vtable->snapshot(op, barrier, writer);
    uint8_t has_timers = op->timers != NULL;
    if (status == JOINERY_OK && writer->write(writer->context, &has_timers, 1) != JOINERY_OK)
        status = operator_fail(op, JOINERY_ERROR, "could not write a state snapshot");
    if (status == JOINERY_OK && has_timers)
        status = timer_service_snapshot(op->timers, writer, op->context->diag);
    return status;
}

int operator_restore(Operator *op, const StateReader *reader)
{
    if (!op->vtable->restore)
        return operator_fail(op, JOINERY_ERROR, "%s keeps no state to restore", op->name);
    int status = op->vtable->restore(op, reader);
    uint8_t has_timers = 0;
    if (status == JOINERY_OK && reader->read(reader->context, &has_timers, 1) != JOINERY_OK)
        status =
            operator_fail(op, JOINERY_ERROR, "the state snapshot of %s is cut short", op->name);
    if (status != JOINERY_OK || !has_timers)
        return status;
    TimerService *timers = operator_timers(op);
    if (!timers)
        return operator_timers_failed(op);
    return timer_service_restore(timers, reader, op->context->diag);
}

/* op's timer service, created from the task's store at first use; NULL when it fails. */
static TimerService *operator_timers(Operator *op)
{
    if (op->timers)
        return op->timers;
    StateStore *store = op->context ? op->context->state_store : NULL;
    if (!store) {
        operator_fail(op, JOINERY_ERROR, "%s: timers need the task's state store", op->name);
        return NULL;
    }
    op->timers = timer_service_create(store);
    if (!op->timers)
        operator_fail_state(op, "timers");
    return op->timers;
}

static int operator_timers_failed(Operator *op)
{
    int status = op->context && op->context->diag ? op->context->diag->status : JOINERY_OK;
    return status != JOINERY_OK ? status : JOINERY_ERROR;
}

int operator_register_timer(Operator *op, TimerDomain domain, int64_t timestamp, const Row *key)
{
    TimerService *timers = operator_timers(op);
    if (!timers)
        return operator_timers_failed(op);
    if (timer_service_register(timers, domain, timestamp, key) != JOINERY_OK)
        return operator_fail_state(op, "timers");
    return JOINERY_OK;
}

int operator_delete_timer(Operator *op, TimerDomain domain, int64_t timestamp, const Row *key)
{
    if (!op->timers)
        return JOINERY_OK;
    if (timer_service_delete(op->timers, domain, timestamp, key) != JOINERY_OK)
        return operator_fail_state(op, "timers");
    return JOINERY_OK;
}

int64_t operator_next_processing_timer(const Operator *op)
{
    return op->timers ? timer_service_next(op->timers, TIMER_PROCESSING_TIME) : INT64_MAX;
}

int operator_advance_processing_time(Operator *op, int64_t now_millis)
{
    int status = operator_fire_timers(op, TIMER_PROCESSING_TIME, now_millis);
    if (status == JOINERY_OK)
        status = operator_flush(op);
    return status;
}

int64_t operator_timer_now(const Operator *op)
{
    int64_t advanced =
        op->timers ? timer_service_time(op->timers, TIMER_PROCESSING_TIME) : INT64_MIN;
    return advanced != INT64_MIN ? advanced : operator_now_millis(op);
}

int operator_schedule_cleanup(Operator *op)
{
    return operator_register_timer(op, TIMER_PROCESSING_TIME,
                                   operator_timer_now(op) + OPERATOR_CLEANUP_INTERVAL_MILLIS, NULL);
}

void operator_close(Operator *op)
{
    if (op->output.capacity)
        free(op->output.rows);
    op->output.rows = NULL;
    op->output.capacity = 0;
    arena_destroy(&op->output_arena);
    free(op->channel_watermarks);
    op->channel_watermarks = NULL;
    op->channel_watermark_count = 0;
    timer_service_destroy(op->timers);
    op->timers = NULL;
    for (uint32_t i = 0; i < op->channel_flow_count; i++)
        stream_element_free_list(op->channel_flows[i].deferred_head);
    free(op->channel_flows);
    op->channel_flows = NULL;
    op->channel_flow_count = 0;
    /* last: the operator's close frees the operator itself */
    if (op->vtable && op->vtable->close)
        op->vtable->close(op);
}

int64_t operator_now_millis(const Operator *op)
{
    if (op->context && op->context->now_millis)
        return op->context->now_millis(op->context->clock_context);
    return datetime_now_millis();
}

int operator_fail(Operator *op, JoineryStatus status, const char *format, ...)
{
    Diag *diag = op->context ? op->context->diag : NULL;
    if (!diag)
        return status;
    if (diag->status != JOINERY_OK)
        return diag->status;
    va_list args;
    va_start(args, format);
    char message[DIAG_MESSAGE_MAX];
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return diag_error(diag, status, "%s", message);
}

int operator_fail_state(Operator *op, const char *what)
{
    StateStore *store = op->context ? op->context->state_store : NULL;
    const char *reason = store ? state_store_error(store) : "";
    int status = store ? state_store_error_status(store) : JOINERY_OK;
    if (status == JOINERY_OK)
        status = JOINERY_ERROR_NO_MEMORY;
    if (op->vtable->report_state)
        op->vtable->report_state(op);
    double mib = (double)op->metrics.state_bytes / (1024.0 * 1024.0);
    /* the allocator itself failed (no budget, or the rest of the process took the memory) */
    if (!reason[0] || strcmp(reason, "out of memory") == 0)
        return operator_fail(op, status,
                             "%s holds %.1f MiB of %s: out of memory; set 'state.backend.type' "
                             "= 'lmdb' for state larger than memory, or bound the state with "
                             "'table.exec.state.ttl' or a time-bounded join",
                             op->name ? op->name : "an operator", mib, what);
    return operator_fail(op, status, "%s holds %.1f MiB of %s: %s",
                         op->name ? op->name : "an operator", mib, what, reason);
}
