/* build_drop_update_before.c - DropUpdateBefore (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_drop_update_before.h"

Operator *build_drop_update_before(BuildContext *context, const PlanNode *node)
{
    (void)node;
    return drop_update_before_operator_create(context->diag);
}
