/*
 * op_sink.c - sink operators (see op_sink.h). A writer sink holds one
 * writer per input (a statement set's job writes several tables, input i
 * into writer i; an INSERT has one); its snapshot is each writer's in turn,
 * so a one-writer sink's snapshot is what it always was. A writer whose
 * Sink materializes (upsertMaterialize=[true]) gets its input through an
 * upsert materializer (upsert_materializer.h), created in open from the
 * task's store; its state follows the writer's part of the snapshot, and
 * its TTL is cleaned on the recurring cleanup timer.
 */
#include "engine/exec/ops/op_sink.h"

#include <stdlib.h>

enum { SINK_CLEANUP_KEYS = 1024 };

typedef struct SinkOperator {
    Operator base;
    SinkWriter *writer;   /* writers[0]: the one writer of an INSERT; NULL for a collector */
    SinkWriter **writers; /* one per input */
    const char **tables;  /* statement sets: the table of each writer; NULL otherwise */
    uint64_t *table_rows; /* rows each writer took */
    uint32_t writer_count;
    UpsertMaterializerSpec *materialize; /* per writer; key_count 0: none */
    UpsertMaterializer **materializers;  /* per writer, from open; NULL: none */
    SinkCollectFunction collect;
    void *collect_context;
    uint64_t rows;
    bool stopped;
} SinkOperator;

static int sink_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    SinkOperator *sink = self->impl;
    if (sink->writer) {
        uint32_t index = input < sink->writer_count ? input : 0;
        SinkWriter *writer = sink->writers[index];
        if (sink->materializers && sink->materializers[index]) {
            UpsertMaterializer *materializer = sink->materializers[index];
            uint64_t skipped = upsert_materializer_skipped(materializer);
            const RowBatch *rows = NULL;
            if (upsert_materializer_apply(materializer, batch, operator_now_millis(self), &rows) !=
                JOINERY_OK)
                return operator_fail_state(self, "the sink's upsert materializer state");
            self->metrics.skipped_rows += upsert_materializer_skipped(materializer) - skipped;
            batch = rows;
            if (batch->count == 0)
                return JOINERY_OK;
        }
        int status = writer->vtable->write(writer, batch, self->context->diag);
        if (status != JOINERY_OK)
            return status;
        sink->rows += batch->count;
        sink->table_rows[index] += batch->count;
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
    const SnapshotStorage *storage = self->context->snapshots;
    if (!storage || !storage->final_id || !sink_operator_exactly_once(self))
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
    for (uint32_t i = 0; i < sink->writer_count && status == JOINERY_OK; i++)
        if (sink->writers[i]->vtable->finish)
            status = sink->writers[i]->vtable->finish(sink->writers[i], self->context->diag);
    return status;
}

/*
 * The snapshot, per writer in input order: a flag, then (exactly-once
 * writers) the pending transactions of prepare_commit (connector.h). An
 * at-least-once writer has none. A collector writes one flag.
 */
static int sink_snapshot_writer(Operator *self, SinkWriter *sink_writer, const Barrier *barrier,
                                const StateWriter *writer)
{
    if (sink_writer && sink_writer->vtable->flush) {
        int status = sink_writer->vtable->flush(sink_writer, self->context->diag);
        if (status != JOINERY_OK)
            return status;
    }
    uint8_t pending = sink_writer && sink_writer->vtable->prepare_commit;
    int status = writer->write(writer->context, &pending, 1);
    if (status != JOINERY_OK)
        return operator_fail(self, status, "could not write a state snapshot");
    if (!pending)
        return JOINERY_OK;
    return sink_writer->vtable->prepare_commit(sink_writer, barrier->checkpoint_id, writer,
                                               self->context->diag);
}

static int sink_snapshot(Operator *self, const Barrier *barrier, const StateWriter *writer)
{
    SinkOperator *sink = self->impl;
    if (!sink->writer)
        return sink_snapshot_writer(self, NULL, barrier, writer);
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < sink->writer_count && status == JOINERY_OK; i++) {
        status = sink_snapshot_writer(self, sink->writers[i], barrier, writer);
        if (status == JOINERY_OK && sink->materializers && sink->materializers[i])
            status =
                upsert_materializer_snapshot(sink->materializers[i], writer, self->context->diag);
    }
    return status;
}

static int sink_restore_writer(Operator *self, SinkWriter *sink_writer, const StateReader *reader)
{
    uint8_t pending = 0;
    if (reader->read(reader->context, &pending, 1) != JOINERY_OK)
        return operator_fail(self, JOINERY_ERROR, "the state snapshot of %s is cut short",
                             self->name);
    if (!pending)
        return JOINERY_OK;
    if (!sink_writer || !sink_writer->vtable->restore_pending)
        return operator_fail(self, JOINERY_ERROR,
                             "the checkpoint holds pending output for another sink");
    return sink_writer->vtable->restore_pending(sink_writer, reader, self->context->diag);
}

static int sink_restore(Operator *self, const StateReader *reader)
{
    SinkOperator *sink = self->impl;
    if (!sink->writer)
        return sink_restore_writer(self, NULL, reader);
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < sink->writer_count && status == JOINERY_OK; i++) {
        status = sink_restore_writer(self, sink->writers[i], reader);
        if (status == JOINERY_OK && sink->materializers && sink->materializers[i])
            status =
                upsert_materializer_restore(sink->materializers[i], reader, self->context->diag);
    }
    return status;
}

/* Creates the materializers the writers need, over the task's store. */
static int sink_open(Operator *self, ExecContext *context)
{
    SinkOperator *sink = self->impl;
    if (!sink->materialize)
        return JOINERY_OK;
    if (!context->state_store)
        return operator_fail(self, JOINERY_ERROR, "Sink: no state store for its materializer");
    sink->materializers = calloc(sink->writer_count, sizeof *sink->materializers);
    if (!sink->materializers)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    bool ttl = false;
    for (uint32_t i = 0; i < sink->writer_count; i++) {
        if (sink->materialize[i].key_count == 0)
            continue;
        sink->materializers[i] =
            upsert_materializer_create(&sink->materialize[i], context->state_store, context->diag);
        if (!sink->materializers[i])
            return context->diag->status;
        ttl = ttl || sink->materialize[i].ttl_millis > 0;
    }
    return ttl ? operator_schedule_cleanup(self) : JOINERY_OK;
}

/* The recurring TTL cleanup timer of the materializers (the only timer a sink sets). */
static int sink_on_timer(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key)
{
    (void)domain;
    (void)timestamp;
    (void)key;
    SinkOperator *sink = self->impl;
    for (uint32_t i = 0; sink->materializers && i < sink->writer_count; i++)
        if (sink->materializers[i])
            self->metrics.expired_rows += upsert_materializer_cleanup(
                sink->materializers[i], operator_timer_now(self), SINK_CLEANUP_KEYS);
    return operator_schedule_cleanup(self);
}

static void sink_report_state(Operator *self)
{
    SinkOperator *sink = self->impl;
    if (!sink->materializers)
        return;
    self->metrics.state_bytes = self->metrics.state_keys = self->metrics.state_rows = 0;
    for (uint32_t i = 0; i < sink->writer_count; i++)
        if (sink->materializers[i]) {
            StateCounters counters = upsert_materializer_counters(sink->materializers[i]);
            self->metrics.state_bytes += counters.bytes;
            self->metrics.state_keys += counters.keys;
            self->metrics.state_rows += counters.entries;
        }
}

int sink_operator_materialize(Operator *op, uint32_t input, const UpsertMaterializerSpec *spec)
{
    SinkOperator *sink = op->impl;
    if (!sink->writer || input >= sink->writer_count || spec->key_count == 0)
        return JOINERY_ERROR;
    if (!sink->materialize) {
        sink->materialize = calloc(sink->writer_count, sizeof *sink->materialize);
        if (!sink->materialize)
            return JOINERY_ERROR_NO_MEMORY;
    }
    sink->materialize[input] = *spec;
    if (spec->ttl_millis > 0)
        op->uses_timers = true;
    return JOINERY_OK;
}

int sink_operator_commit(Operator *op, int64_t checkpoint_id)
{
    SinkOperator *sink = op->impl;
    int status = JOINERY_OK;
    for (uint32_t i = 0; i < sink->writer_count && status == JOINERY_OK; i++)
        if (sink->writers[i]->vtable->commit)
            status = sink->writers[i]->vtable->commit(sink->writers[i], checkpoint_id,
                                                      op->context->diag);
    return status;
}

const char *sink_operator_checkpoint_refusal(const Operator *op)
{
    const SinkOperator *sink = op->impl;
    for (uint32_t i = 0; i < sink->writer_count; i++)
        if (sink->writers[i]->checkpoint_refusal)
            return sink->writers[i]->checkpoint_refusal;
    return NULL;
}

const char *sink_operator_refusing_table(const Operator *op)
{
    const SinkOperator *sink = op->impl;
    for (uint32_t i = 0; sink->tables && i < sink->writer_count; i++)
        if (sink->writers[i]->checkpoint_refusal)
            return sink->tables[i];
    return NULL;
}

bool sink_operator_exactly_once(const Operator *op)
{
    const SinkOperator *sink = op->impl;
    for (uint32_t i = 0; i < sink->writer_count; i++)
        if (sink->writers[i]->vtable->prepare_commit)
            return true;
    return false;
}

void sink_operator_abort(Operator *op, StrBuf *note)
{
    SinkOperator *sink = op->impl;
    for (uint32_t i = 0; i < sink->writer_count; i++)
        if (sink->writers[i]->vtable->abort)
            sink->writers[i]->vtable->abort(sink->writers[i], note);
}

void sink_operator_format_tables(const Operator *op, StrBuf *out)
{
    const SinkOperator *sink = op->impl;
    for (uint32_t i = 0; sink->tables && i < sink->writer_count; i++)
        strbuf_printf(out, "%-4s   %llu rows written to %s\n", "",
                      (unsigned long long)sink->table_rows[i], sink->tables[i]);
}

void sink_operator_format_writers(const Operator *op, StrBuf *out)
{
    const SinkOperator *sink = op->impl;
    for (uint32_t i = 0; i < sink->writer_count; i++)
        if (sink->writers[i]->vtable->format_metrics)
            sink->writers[i]->vtable->format_metrics(sink->writers[i], out);
}

uint64_t sink_operator_table_rows(const Operator *op, uint32_t index)
{
    const SinkOperator *sink = op->impl;
    return index < sink->writer_count ? sink->table_rows[index] : 0;
}

static void sink_close(Operator *self)
{
    SinkOperator *sink = self->impl;
    for (uint32_t i = 0; i < sink->writer_count; i++)
        sink->writers[i]->vtable->close(sink->writers[i]);
    for (uint32_t i = 0; sink->materializers && i < sink->writer_count; i++)
        upsert_materializer_destroy(sink->materializers[i]);
    free(sink->materializers);
    free(sink->materialize);
    free(sink->writers);
    free(sink->tables);
    free(sink->table_rows);
    free(sink);
}

static const OperatorVtable SINK_VTABLE = {
    .open = sink_open,
    .process = sink_process,
    .on_timer = sink_on_timer,
    .report_state = sink_report_state,
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

Operator *sink_operator_create_writers(SinkWriter *const *writers, const char *const *tables,
                                       uint32_t count, Diag *diag)
{
    SinkOperator *sink = sink_new(diag);
    if (!sink)
        return NULL;
    sink->writers = calloc(count, sizeof *sink->writers);
    sink->table_rows = calloc(count, sizeof *sink->table_rows);
    sink->tables = tables ? calloc(count, sizeof *sink->tables) : NULL;
    if (!sink->writers || !sink->table_rows || (tables && !sink->tables)) {
        free(sink->writers);
        free(sink->table_rows);
        free(sink->tables);
        free(sink);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < count; i++) {
        sink->writers[i] = writers[i];
        if (tables)
            sink->tables[i] = tables[i];
    }
    sink->writer_count = count;
    sink->writer = writers[0];
    sink->base.input_count = count;
    return &sink->base;
}

Operator *sink_operator_create_writer(SinkWriter *writer, Diag *diag)
{
    return sink_operator_create_writers(&writer, NULL, 1, diag);
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
