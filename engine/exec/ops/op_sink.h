/*
 * op_sink.h - the end of a job's data flow: a connector's SinkWriter
 * (INSERT INTO) or a collector that hands every row to the client (SELECT).
 */
#ifndef JOINERY_EXEC_OP_SINK_H
#define JOINERY_EXEC_OP_SINK_H

#include "engine/connector/connector.h"
#include "engine/exec/operator.h"
#include "engine/exec/upsert_materializer.h"

/* Receives result rows of a SELECT; non-zero stops the job. */
typedef int (*SinkCollectFunction)(void *context, const Row *row);

/* Creates a sink that owns `writer`. NULL on no memory. */
Operator *sink_operator_create_writer(SinkWriter *writer, Diag *diag);
/*
 * Creates a sink of `count` inputs that owns the writers, input i writing
 * writers[i] (a statement set; tables[i] names its table for metrics and
 * messages, copied pointers that must outlive the sink). NULL on no memory:
 * the writers are then still the caller's.
 */
Operator *sink_operator_create_writers(SinkWriter *const *writers, const char *const *tables,
                                       uint32_t count, Diag *diag);
/*
 * Input `input` of a writer sink goes through an upsert materializer keyed by
 * spec's fields (the Sink's upsertMaterialize=[true]); the spec's arrays must
 * outlive the sink. Before open. JOINERY_OK, JOINERY_ERROR_NO_MEMORY, or
 * JOINERY_ERROR for a collector, an input out of range or an empty key.
 */
int sink_operator_materialize(Operator *op, uint32_t input, const UpsertMaterializerSpec *spec);
/* Creates a collector. NULL on no memory. */
Operator *sink_operator_create_collector(SinkCollectFunction collect, void *context, Diag *diag);
/*
 * Checkpoint `checkpoint_id` completed: the writer makes the output pending
 * for it and earlier ones visible (connector.h: commit). On the sink's
 * thread. JOINERY_OK or the error (diag filled).
 */
int sink_operator_commit(Operator *op, int64_t checkpoint_id);
/* Why a writer of the sink cannot take part in checkpoints (connector.h); NULL: they can. */
const char *sink_operator_checkpoint_refusal(const Operator *op);
/* The table of the first writer that refuses (sinks of statement sets); NULL otherwise. */
const char *sink_operator_refusing_table(const Operator *op);
/* Appends "rows written to <table>" lines, one per writer of a statement set's sink. */
void sink_operator_format_tables(const Operator *op, StrBuf *out);
/* SHOW JOB METRICS: each writer's own lines (SinkWriterVtable.format_metrics). */
void sink_operator_format_writers(const Operator *op, StrBuf *out);
/* Rows writer `index` took (0 past the last). */
uint64_t sink_operator_table_rows(const Operator *op, uint32_t index);
/* True when a writer of the sink is exactly-once (two-phase, connector.h). */
bool sink_operator_exactly_once(const Operator *op);
/* Rows the sink has taken. */
uint64_t sink_operator_rows(const Operator *op);
/* True when the collector's client asked to stop. */
bool sink_operator_stopped(const Operator *op);
/* The job did not finish: the writer discards its uncommitted output and appends what is
   left to `note` (SinkWriterVtable.abort); nothing for a collector. */
void sink_operator_abort(Operator *op, StrBuf *note);

#endif
