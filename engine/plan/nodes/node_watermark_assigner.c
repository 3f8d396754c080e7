/*
 * node_watermark_assigner.c - LogicalWatermarkAssigner and
 * WatermarkAssigner: the table's WATERMARK generated over a scan that
 * cannot generate it itself (rules/push_watermark.c pushes it otherwise).
 */
#include "engine/plan/nodes/nodes.h"

static void explain_watermark(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "rowtime=[%s], watermark=[",
                  node->fields[node->watermark.rowtime_field].name);
    explain_expr(context, node->watermark.watermark, explain_input_names(context, node));
    strbuf_append_cstr(context->out, "]");
}

static int convert_watermark(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    return physical_convert_twin(context, node, PLAN_WATERMARK_ASSIGNER, result);
}

static bool watermark_calls_current_watermark(const PlanNode *node)
{
    return expr_calls(node->watermark.watermark, FUNCTION_CURRENT_WATERMARK);
}

const PlanKindInfo plan_kind_logical_watermark_assigner = {
    .kind = PLAN_LOGICAL_WATERMARK_ASSIGNER,
    .name = "LogicalWatermarkAssigner",
    .explain = explain_watermark,
    .convert = convert_watermark,
    .trace_field = cost_trace_to_input,
};

const PlanKindInfo plan_kind_watermark_assigner = {
    .kind = PLAN_WATERMARK_ASSIGNER,
    .name = "WatermarkAssigner",
    .physical = true,
    .explain = explain_watermark,
    .forwards_changes = true,
    .derive = derive_forward,
    .calls_current_watermark = watermark_calls_current_watermark,
    .trace_field = cost_trace_to_input,
};
