/*
 * op_sink.c - sink operators (see op_sink.h).
 */
#include "engine/exec/ops/op_sink.h"

#include <stdlib.h>

typedef struct SinkOperator {
    Operator base;
    SinkWriter *writer;
    SinkCollectFunction collect;
    void *collect_context;
    uint64_t rows;
    bool stopped;
} SinkOperator;

static int sink_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    SinkOperator *sink = self->impl;
    if (sink->writer) {
        int status = sink->writer->vtable->write(sink->writer, batch, self->context->diag);
        if (status != JOINERY_OK)
            return status;
        sink->rows += batch->count;
        return JOINERY_OK;
    }
    for (uint32_t r = 0; r < batch->count; r++) {
        if (sink->collect(sink->collect_context, batch->rows[r]) != 0) {
            sink->stopped = true;
            return JOINERY_CANCELLED;
        }
        sink->rows++;
    }
    return JOINERY_OK;
}

/* A last checkpoint before the output becomes visible (snapshot.h: final_id). */
static int sink_final_checkpoint(Operator *self)
{
    SinkOperator *sink = self->impl;
    const SnapshotStorage *storage = self->context->snapshots;
    if (!storage || !storage->final_id || !sink->writer || !sink->writer->vtable->prepare_commit)
        return JOINERY_OK;
    Barrier barrier = {storage->final_id(storage->context), operator_now_millis(self)};
    if (barrier.checkpoint_id <= 0)
        return JOINERY_OK;
    SnapshotBuffer buffer = {0};
    StateWriter writer = snapshot_buffer_writer(&buffer);
    int status = operator_snapshot(self, &barrier, &writer);
    if (status == JOINERY_OK)
        status =
            storage->store_final(storage->context, self, &barrier, buffer.bytes, buffer.length);
    snapshot_buffer_free(&buffer);
    return status;
}

static int sink_finish(Operator *self)
{
    SinkOperator *sink = self->impl;
    int status = sink_final_checkpoint(self);
    if (status == JOINERY_OK && sink->writer && sink->writer->vtable->finish)
        status = sink->writer->vtable->finish(sink->writer, self->context->diag);
    return status;
}

/*
 * The snapshot: a flag, then (exactly-once writers) the pending transactions
 * of prepare_commit (connector.h). An at-least-once writer has none.
 */
static int sink_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    SinkOperator *sink = self->impl;
    if (sink->writer && sink->writer->vtable->flush) {
        int status = sink->writer->vtable->flush(sink->writer, self->context->diag);
        if (status != JOINERY_OK)
            return status;
    }
    uint8_t pending = sink->writer && sink->writer->vtable->prepare_commit;
    int status = writer->write(writer->context, &pending, 1);
    if (status != JOINERY_OK)
        return operator_fail(self, status, "could not write a state snapshot");
    if (!pending)
        return JOINERY_OK;
    return sink->writer->vtable->prepare_commit(sink->writer, barrier->checkpoint_id, writer,
                                                self->context->diag);
}

static int sink_restore(Operator *self, const StateReader *reader)
{
    SinkOperator *sink = self->impl;
    uint8_t pending = 0;
    if (reader->read(reader->context, &pending, 1) != JOINERY_OK)
        return operator_fail(self, JOINERY_ERROR, "the state snapshot of %s is cut short",
                             self->name);
    if (!pending)
        return JOINERY_OK;
    if (!sink->writer || !sink->writer->vtable->restore_pending)
        return operator_fail(self, JOINERY_ERROR,
                             "the checkpoint holds pending output for another sink");
    return sink->writer->vtable->restore_pending(sink->writer, reader, self->context->diag);
}

int sink_operator_commit(Operator *op, int64_t checkpoint_id)
{
    SinkOperator *sink = op->impl;
    if (!sink->writer || !sink->writer->vtable->commit)
        return JOINERY_OK;
    return sink->writer->vtable->commit(sink->writer, checkpoint_id, op->context->diag);
}

const char *sink_operator_checkpoint_refusal(const Operator *op)
{
    const SinkOperator *sink = op->impl;
    return sink->writer ? sink->writer->checkpoint_refusal : NULL;
}

bool sink_operator_exactly_once(const Operator *op)
{
    const SinkOperator *sink = op->impl;
    return sink->writer && sink->writer->vtable->prepare_commit;
}

void sink_operator_abort(Operator *op, StrBuf *note)
{
    SinkOperator *sink = op->impl;
    if (sink->writer && sink->writer->vtable->abort)
        sink->writer->vtable->abort(sink->writer, note);
}

static void sink_close(Operator *self)
{
    SinkOperator *sink = self->impl;
    if (sink->writer)
        sink->writer->vtable->close(sink->writer);
    free(sink);
}

static const OperatorVtable SINK_VTABLE = {
    .process = sink_process,
    .finish = sink_finish,
    .snapshot = sink_snapshot,
    .restore = sink_restore,
    .close = sink_close,
};

static SinkOperator *sink_new(Diag *diag)
{
    SinkOperator *sink = calloc(1, sizeof *sink);
    if (!sink) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    operator_init(&sink->base, &SINK_VTABLE, "Sink", 1, sink);
    return sink;
}

Operator *sink_operator_create_writer(SinkWriter *writer, Diag *diag)
{
    SinkOperator *sink = sink_new(diag);
    if (!sink)
        return NULL;
    sink->writer = writer;
    return &sink->base;
}

Operator *sink_operator_create_collector(SinkCollectFunction collect, void *context, Diag *diag)
{
    SinkOperator *sink = sink_new(diag);
    if (!sink)
        return NULL;
    sink->collect = collect;
    sink->collect_context = context;
    return &sink->base;
}

uint64_t sink_operator_rows(const Operator *op)
{
    return ((const SinkOperator *)op->impl)->rows;
}

bool sink_operator_stopped(const Operator *op)
{
    return ((const SinkOperator *)op->impl)->stopped;
}
