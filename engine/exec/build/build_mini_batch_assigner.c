/* build_mini_batch_assigner.c - MiniBatchAssigner (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_mini_batch_assigner.h"

Operator *build_mini_batch_assigner(BuildContext *context, const PlanNode *node)
{
    return mini_batch_assigner_operator_create(node->mini_batch.rowtime,
                                               node->mini_batch.interval_millis, context->diag);
}
