/*
 * node_union.c - LogicalUnion and Union: UNION ALL of inputs with the same
 * row type.
 */
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

static void explain_union(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "all=[true]");
    if (!context->logical) {
        strbuf_append_cstr(context->out, ", union=[");
        explain_field_list(context, node);
        strbuf_append_cstr(context->out, "]");
    }
}

static double estimate_union(const PlanNode *node)
{
    double total = 0;
    for (uint32_t i = 0; i < node->input_count; i++)
        total += cost_node_rows(node->inputs[i]);
    return total;
}

static int derive_union(PlannerContext *context, PlanNode *node)
{
    (void)context;
    node->changelog_mode = 0;
    node->row_count = 0;
    for (uint32_t i = 0; i < node->input_count; i++) {
        node->changelog_mode |= node->inputs[i]->changelog_mode;
        node->row_count += node->inputs[i]->row_count;
    }
    return JOINERY_OK;
}

static int convert_union(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    return physical_convert_twin(context, node, PLAN_UNION, result);
}

const PlanKindInfo plan_kind_logical_union = {
    .kind = PLAN_LOGICAL_UNION,
    .name = "LogicalUnion",
    .explain = explain_union,
    .convert = convert_union,
    .estimate = estimate_union,
};

const PlanKindInfo plan_kind_union = {
    .kind = PLAN_UNION,
    .name = "Union",
    .physical = true,
    .explain = explain_union,
    .derive = derive_union,
    .estimate = estimate_union,
};
