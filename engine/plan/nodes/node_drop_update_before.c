/*
 * node_drop_update_before.c - DropUpdateBefore: the changes of its input
 * without the update-before rows. Made by the temporal join's conversion
 * (node_temporal_join.c) above a scan that sends -U rows the versioned side
 * does not need, as Flink's changelog inference inserts it. EXPLAIN prints
 * the bare name, as Flink does for a node without attributes.
 */
#include "engine/plan/nodes/nodes.h"

static void explain_drop_update_before(ExplainContext *context, const PlanNode *node)
{
    (void)context;
    (void)node;
}

static int derive_drop_update_before(PlannerContext *context, PlanNode *node)
{
    int status = derive_forward(context, node);
    node->changelog_mode &= ~(unsigned)CHANGELOG_UPDATE_BEFORE;
    return status;
}

const PlanKindInfo plan_kind_drop_update_before = {
    .kind = PLAN_DROP_UPDATE_BEFORE,
    .name = "DropUpdateBefore",
    .physical = true,
    .explain = explain_drop_update_before,
    .derive = derive_drop_update_before,
    .trace_field = cost_trace_to_input,
};
