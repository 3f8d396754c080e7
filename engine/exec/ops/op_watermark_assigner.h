/*
 * op_watermark_assigner.h - WatermarkAssigner: computes the watermark
 * expression of every row and sends the largest value seen so far
 * downstream after each batch (bounded out-of-orderness, as Flink's
 * WatermarkAssignerOperator with a per-batch emit interval).
 */
#ifndef JOINERY_EXEC_OP_WATERMARK_ASSIGNER_H
#define JOINERY_EXEC_OP_WATERMARK_ASSIGNER_H

#include "engine/exec/operator.h"
#include "engine/plan/expr.h"

/* The expression is borrowed for the operator's life. NULL on no memory. */
Operator *watermark_assigner_operator_create(const Expr *watermark, uint32_t field_count,
                                             Diag *diag);

#endif
