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

static bool watermark_calls_current_watermark(const PlanNode *node)
{
    return expr_calls(node->watermark.watermark, FUNCTION_CURRENT_WATERMARK);
}

/* Filters stay above the watermark assigner: watermarks see every row. */
static int push_watermark(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                          PlanNode **result)
{
    RuleConjuncts none = {0};
    return rule_push_through(context, node, &none, conjuncts, result);
}

/* The assigner reads its rowtime and watermark fields. */
static uint64_t *watermark_input_fields_used(Arena *arena, const PlanNode *node, uint32_t input,
                                             const uint64_t *used)
{
    uint64_t *fields = rule_fields_copy(arena, used, node->inputs[input]->field_count);
    if (fields) {
        rule_fields_add(fields, node->watermark.rowtime_field);
        rule_fields_add_expr(fields, node->watermark.watermark);
    }
    return fields;
}

static int prune_watermark(PlannerContext *context, PlanNode *node, uint64_t *used,
                           RulePruned *result)
{
    Arena *arena = context->arena;
    /* the assigner needs its rowtime and watermark fields; what only it needs is
       projected away right above it (rule_project_used) */
    uint64_t *needed = watermark_input_fields_used(arena, node, 0, used);
    if (!needed)
        return JOINERY_ERROR_NO_MEMORY;
    RulePruned input;
    PlanNode *assigner;
    int status = rule_prune_input(context, node, needed, &assigner, &input);
    if (status != JOINERY_OK)
        return status;
    assigner->field_count = input.node->field_count;
    assigner->fields = arena_calloc(arena, assigner->field_count + 1, sizeof(PlanField));
    if (!assigner->fields)
        return JOINERY_ERROR_NO_MEMORY;
    rule_compact_fields(node->fields, node->field_count, input.mapping, assigner->fields);
    assigner->watermark.rowtime_field = (uint32_t)input.mapping[node->watermark.rowtime_field];
    assigner->watermark.watermark =
        expr_remap_inputs(arena, node->watermark.watermark, input.mapping);
    if (!assigner->watermark.watermark)
        return JOINERY_ERROR_NO_MEMORY;
    return rule_project_used(context, assigner, node->field_count, used, input.mapping, result);
}

static bool assigner_generates_watermarks(const PlanNode *node)
{
    (void)node;
    return true;
}

const PlanKindInfo plan_kind_logical_watermark_assigner = {
    .kind = PLAN_LOGICAL_WATERMARK_ASSIGNER,
    .name = "LogicalWatermarkAssigner",
    .explain = explain_watermark,
    .twin = &plan_kind_watermark_assigner,
    .trace_field = cost_trace_to_input,
    .push_filters = push_watermark,
    .prune_fields = prune_watermark,
    .input_fields_used = watermark_input_fields_used,
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
    .generates_watermarks = assigner_generates_watermarks,
};
