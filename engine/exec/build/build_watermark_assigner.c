/* build_watermark_assigner.c - WatermarkAssigner (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_watermark_assigner.h"

Operator *build_watermark_assigner(BuildContext *context, const PlanNode *node)
{
    return watermark_assigner_operator_create(node->watermark.watermark, node->field_count,
                                              context->idle_timeout_millis, context->diag);
}
