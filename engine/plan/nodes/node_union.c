/*
 * node_union.c - LogicalUnion and Union: UNION ALL of inputs with the same
 * row type.
 */
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

const PlanKindInfo plan_kind_logical_union = {
    .kind = PLAN_LOGICAL_UNION,
    .name = "LogicalUnion",
    .explain = explain_union,
};

const PlanKindInfo plan_kind_union = {
    .kind = PLAN_UNION,
    .name = "Union",
    .physical = true,
    .explain = explain_union,
};
