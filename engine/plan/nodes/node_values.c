/*
 * node_values.c - LogicalValues and Values: constant rows (VALUES, and a
 * SELECT without FROM).
 */
#include "engine/plan/nodes/nodes.h"

static void explain_values(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "tuples=[[");
    for (uint32_t r = 0; r < node->values.row_count; r++) {
        strbuf_append_cstr(out, r ? ", { " : "{ ");
        for (uint32_t c = 0; c < node->field_count; c++) {
            if (c)
                strbuf_append_cstr(out, ", ");
            explain_expr(context, node->values.rows[r][c], NULL);
        }
        strbuf_append_cstr(out, " }");
    }
    strbuf_append_cstr(out, "]]");
    if (!context->logical) {
        strbuf_append_cstr(out, ", values=[");
        explain_field_list(context, node);
        strbuf_append_cstr(out, "]");
    }
}

static double estimate_values(const PlanNode *node)
{
    return node->values.row_count;
}

static int derive_values(PlannerContext *context, PlanNode *node)
{
    (void)context;
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = node->values.row_count;
    node->bounded = true;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_values = {
    .kind = PLAN_LOGICAL_VALUES,
    .name = "LogicalValues",
    .explain = explain_values,
    .twin = &plan_kind_values,
    .estimate = estimate_values,
};

const PlanKindInfo plan_kind_values = {
    .kind = PLAN_VALUES,
    .name = "Values",
    .physical = true,
    .explain = explain_values,
    .derive = derive_values,
    .estimate = estimate_values,
};
