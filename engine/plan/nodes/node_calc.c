/*
 * node_calc.c - LogicalProject, LogicalFilter and the Calc both become:
 * projections and a condition over one input.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

static void explain_project(ExplainContext *context, const PlanNode *node)
{
    const char *const *names = explain_input_names(context, node);
    for (uint32_t i = 0; i < node->calc.project_count; i++) {
        strbuf_printf(context->out, "%s%s=[", i ? ", " : "", node->fields[i].name);
        explain_expr(context, node->calc.projects[i], names);
        strbuf_append_cstr(context->out, "]");
    }
}

static void explain_filter(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "condition=[");
    explain_expr(context, node->filter.condition, explain_input_names(context, node));
    strbuf_append_cstr(context->out, "]");
}

static void explain_calc(ExplainContext *context, const PlanNode *node)
{
    const char *const *names = explain_input_names(context, node);
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "select=[");
    for (uint32_t i = 0; i < node->calc.project_count; i++) {
        const Expr *expr = node->calc.projects[i];
        if (i)
            strbuf_append_cstr(out, ", ");
        explain_expr(context, expr, names);
        bool same_name = expr->kind == EXPR_INPUT_REF &&
                         strcmp(names[expr->input_index], node->fields[i].name) == 0;
        if (!same_name)
            strbuf_printf(out, " AS %s", node->fields[i].name);
    }
    strbuf_append_cstr(out, "]");
    if (node->calc.condition) {
        strbuf_append_cstr(out, ", where=[");
        explain_expr(context, node->calc.condition, names);
        strbuf_append_cstr(out, "]");
    }
}

static int derive_calc(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    node->changelog_mode = input->changelog_mode;
    node->row_count = input->row_count * cost_predicate_selectivity(node->calc.condition, input);
    for (uint32_t k = 0; k < input->unique_key_count; k++) {
        const PlanKey *key = &input->unique_keys[k];
        uint32_t fields[64];
        uint32_t found = 0;
        for (uint32_t f = 0; f < key->count && f < 64; f++)
            for (uint32_t p = 0; p < node->calc.project_count; p++) {
                const Expr *expr = node->calc.projects[p];
                if (expr->kind == EXPR_INPUT_REF && expr->input_index == key->fields[f]) {
                    fields[found++] = p;
                    break;
                }
            }
        if (found == key->count)
            derive_add_unique_key(context->arena, node, fields, found);
    }
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_project = {
    .kind = PLAN_LOGICAL_PROJECT,
    .name = "LogicalProject",
    .explain = explain_project,
};

const PlanKindInfo plan_kind_logical_filter = {
    .kind = PLAN_LOGICAL_FILTER,
    .name = "LogicalFilter",
    .explain = explain_filter,
};

const PlanKindInfo plan_kind_calc = {
    .kind = PLAN_CALC,
    .name = "Calc",
    .physical = true,
    .explain = explain_calc,
    .forwards_changes = true,
    .derive = derive_calc,
};
