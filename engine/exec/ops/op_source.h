/*
 * op_source.h - the operators that start a job's data flow: a table scan
 * over a connector's SourceReader, and Values (constant rows). The job
 * drives them with source_operator_poll instead of pushing into them.
 */
#ifndef JOINERY_EXEC_OP_SOURCE_H
#define JOINERY_EXEC_OP_SOURCE_H

#include "engine/connector/connector.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"

typedef struct ScanSpec {
    SourceSpec source;     /* what the reader reads (read columns) */
    uint32_t output_count; /* the first output_count read columns are emitted */
    const Expr *filter;    /* over the read columns; NULL: none */
} ScanSpec;

/*
 * Creates a scan that owns `reader` (closed with the operator). The spec is
 * borrowed for the operator's life. NULL on no memory.
 */
Operator *scan_operator_create(const ScanSpec *spec, SourceReader *reader, Diag *diag);
/* Creates a Values operator emitting `rows` (constant rows, borrowed). */
Operator *values_operator_create(Expr ***rows, uint32_t row_count, const DataType *types,
                                 uint32_t field_count, Diag *diag);

typedef enum SourceState {
    SOURCE_STATE_ACTIVE = 0, /* produced rows or may produce more right away */
    SOURCE_STATE_IDLE,       /* nothing until *next_poll_millis */
    SOURCE_STATE_ENDED,      /* bounded input finished; end of input was sent */
} SourceState;

/*
 * Reads at most one batch and pushes it downstream. Sets *state; when the
 * source ends, end of input is propagated. Returns JOINERY_OK or an error.
 */
int source_operator_poll(Operator *op, int64_t now_millis, SourceState *state,
                         int64_t *next_poll_millis);
/* Tells the source's reader that the job stopped cleanly (see SourceReader). */
void source_operator_mark_stopped_cleanly(Operator *op);
/* Rows skipped as bad records by the reader (json.ignore-parse-errors). */
uint64_t source_operator_skipped_rows(const Operator *op);

#endif
