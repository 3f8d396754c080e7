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

/* Deterministic conjuncts go into every input. */
static int push_union(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                      PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    RuleConjuncts below = {0}, above = {0};
    for (uint32_t i = 0; i < conjuncts->count; i++)
        if (rule_conjuncts_add(arena, expr_is_deterministic(conjuncts->items[i]) ? &below : &above,
                               conjuncts->items[i]) != JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->input_count; i++) {
        RuleConjuncts copy_list = below;
        int status = rule_push_filters_into(context, node->inputs[i], &copy_list, &copy->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    *result = rule_filter_above(context, copy, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

const PlanKindInfo plan_kind_logical_union = {
    .kind = PLAN_LOGICAL_UNION,
    .name = "LogicalUnion",
    .explain = explain_union,
    .twin = &plan_kind_union,
    .estimate = estimate_union,
    .push_filters = push_union,
};

const PlanKindInfo plan_kind_union = {
    .kind = PLAN_UNION,
    .name = "Union",
    .physical = true,
    .explain = explain_union,
    .derive = derive_union,
    .estimate = estimate_union,
};
