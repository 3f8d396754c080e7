/* build_union.c - Union (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_union.h"

Operator *build_union(BuildContext *context, const PlanNode *node)
{
    return union_operator_create(node->input_count, context->diag);
}
