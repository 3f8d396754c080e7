/*
 * op_watermark_assigner.h - WatermarkAssigner: computes the watermark
 * expression of every row and sends the largest value seen so far
 * downstream after each batch (bounded out-of-orderness, as Flink's
 * WatermarkAssignerOperator with a per-batch emit interval). Used for
 * sources that do not generate watermarks themselves (filesystem, datagen).
 *
 * Idleness (table.exec.source.idle-timeout, as Flink's operator): when no
 * row arrived for idle_timeout_millis of processing time (counted from open
 * for the first one; a processing-time timer at the last activity + the
 * timeout checks it), it announces
 * WatermarkStatus IDLE downstream, so operators with several inputs stop
 * waiting for it; its next row announces ACTIVE first. 0: never idle.
 */
#ifndef JOINERY_EXEC_OP_WATERMARK_ASSIGNER_H
#define JOINERY_EXEC_OP_WATERMARK_ASSIGNER_H

#include "engine/exec/operator.h"
#include "engine/plan/expr.h"

/* The expression is borrowed for the operator's life. NULL on no memory. */
Operator *watermark_assigner_operator_create(const Expr *watermark, uint32_t field_count,
                                             int64_t idle_timeout_millis, Diag *diag);

#endif
