/*
 * op_mini_batch_assigner.h - MiniBatchAssigner: cuts the stream into
 * mini-batches for the mini-batch operators above it (Flink's
 * ProcTimeMiniBatchAssignerOperator and RowTimeMiniBatchAssginerOperator).
 * A batch ends where a watermark passes; the operators that buffer a batch
 * (the mini-batch GroupAggregate) fold and flush it when a watermark
 * arrives, when it is full and at the end of input.
 */
#ifndef JOINERY_EXEC_OPS_OP_MINI_BATCH_ASSIGNER_H
#define JOINERY_EXEC_OPS_OP_MINI_BATCH_ASSIGNER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/exec/operator.h"

/*
 * Creates the operator (one input; rows pass through unchanged).
 * - rowtime false (ProcTime mode): processing time is cut into intervals of
 *   `interval_millis`; the first row (or processing-time timer) of a new
 *   interval emits a watermark at that interval's start, before the row.
 *   Watermarks from upstream are dropped, except +infinity at the end.
 * - rowtime true (RowTime mode): upstream watermarks are forwarded only
 *   when they reach the end of the current interval (interval - 1, 2 *
 *   interval - 1, ...), so an event-time operator above sees one watermark
 *   per interval; +infinity is always forwarded.
 * interval_millis must be > 0 (JOINERY_ERROR_VALIDATE otherwise). NULL with
 * diag set on error. Free with operator_close.
 */
Operator *mini_batch_assigner_operator_create(bool rowtime, int64_t interval_millis, Diag *diag);

#endif
