/*
 * node_mini_batch_assigner.c - MiniBatchAssigner: where mini-batches end,
 * for the mini-batch operators above it (Flink's
 * StreamPhysicalMiniBatchAssigner). Placed by rules/assign_mini_batch.c
 * over the sources when table.exec.mini-batch.enabled is on; it forwards
 * rows and their changelog unchanged.
 */
#include "engine/plan/nodes/nodes.h"

static void explain_mini_batch_assigner(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "interval=[%lldms], mode=[%s]",
                  (long long)node->mini_batch.interval_millis,
                  node->mini_batch.rowtime ? "RowTime" : "ProcTime");
}

static bool mini_batch_generates_watermarks(const PlanNode *node)
{
    (void)node;
    return true;
}

const PlanKindInfo plan_kind_mini_batch_assigner = {
    .kind = PLAN_MINI_BATCH_ASSIGNER,
    .name = "MiniBatchAssigner",
    .physical = true,
    .explain = explain_mini_batch_assigner,
    .forwards_changes = true,
    .derive = derive_forward,
    .trace_field = cost_trace_to_input,
    .generates_watermarks = mini_batch_generates_watermarks,
};
