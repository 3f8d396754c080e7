/*
 * op_source.h - the operators that start a job's data flow: a table scan
 * over a connector's SourceReader, and Values (constant rows). The job
 * drives them with source_operator_poll instead of pushing into them.
 *
 * A scan with a pushed-down watermark (ScanSpec.watermark, kafka) generates
 * it itself, one per split of its reader (split_watermarks.h): the
 * expression is evaluated on every decoded row (before the pushed filter),
 * the combined watermark is sent downstream after each batch that advances
 * it and at least every watermark_interval_millis of processing time (so an
 * idle split is released without new rows), and +infinity at the end of a
 * bounded input. With an idle timeout, a scan whose splits are all idle
 * announces WatermarkStatus IDLE downstream (operator.h), and ACTIVE before
 * the rows of its next poll that returns any.
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
    /* pushed-down watermark (plan scan.watermark): over the output columns; NULL: none */
    const Expr *watermark;
    int64_t idle_timeout_millis;       /* a split without records this long is idle; 0: never */
    int64_t watermark_interval_millis; /* periodic emission; 0: only after batches */
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
/*
 * Checkpoints: the name of the table whose reader cannot snapshot and
 * restore its position (connector.h), NULL when the source can resume.
 */
const char *source_operator_cannot_resume(const Operator *op);
/*
 * A source a restored checkpoint recorded as ended: it ends now (end of
 * input downstream, +infinity watermark when it generates them), without
 * reading. JOINERY_OK or the status of passing the end on.
 */
int source_operator_end_restored(Operator *op);
/*
 * Ends the source now, as if its input had ended (end of input downstream, +infinity
 * watermark when it generates them): the job's result is complete
 * (ExecContext.end_requested). Nothing when it has ended already.
 */
int source_operator_end_now(Operator *op);
/* Tells the source's reader that the job stopped cleanly (see SourceReader). */
void source_operator_mark_stopped_cleanly(Operator *op);
/* Rows skipped as bad records by the reader (json.ignore-parse-errors). */
uint64_t source_operator_skipped_rows(const Operator *op);
/* What the reader passed over and reports (SourceReader.warnings): lines, "" when none. */
const char *source_operator_warnings(const Operator *op);
/* Where the reader's skipped records were (SourceReader.skip_report): lines, "" when none. */
const char *source_operator_skip_report(const Operator *op);
/* The watermark a scan generated and sent so far; INT64_MIN when none (or no watermark). */
int64_t source_operator_watermark(const Operator *op);

#endif
