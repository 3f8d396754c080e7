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

static int sink_finish(Operator *self)
{
    SinkOperator *sink = self->impl;
    if (sink->writer && sink->writer->vtable->finish)
        return sink->writer->vtable->finish(sink->writer, self->context->diag);
    return JOINERY_OK;
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
