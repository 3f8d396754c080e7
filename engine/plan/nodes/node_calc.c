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

static double estimate_filter(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]) *
           cost_predicate_selectivity(node->filter.condition, node->inputs[0]);
}

static double estimate_calc(const PlanNode *node)
{
    return cost_node_rows(node->inputs[0]) *
           cost_predicate_selectivity(node->calc.condition, node->inputs[0]);
}

/* A projected field comes from the input when it is a plain (implicitly cast) reference. */
static const PlanNode *trace_projection(const PlanNode *node, uint32_t *field)
{
    if (*field >= node->field_count)
        return NULL;
    const Expr *ref = cost_plain_ref(node->calc.projects[*field]);
    if (!ref)
        return NULL;
    *field = ref->input_index;
    return node->inputs[0];
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

static bool calc_is_identity(const PlanNode *calc, const PlanNode *input)
{
    if (calc->calc.condition || calc->calc.project_count != input->field_count)
        return false;
    for (uint32_t i = 0; i < calc->calc.project_count; i++) {
        const Expr *expr = calc->calc.projects[i];
        if (expr->kind != EXPR_INPUT_REF || expr->input_index != i ||
            strcmp(calc->fields[i].name, input->fields[i].name) != 0)
            return false;
    }
    return true;
}

static bool exprs_deterministic(Expr *const *exprs, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (!expr_is_deterministic(exprs[i]))
            return false;
    return true;
}

PlanNode *plan_make_calc(PlannerContext *context, PlanNode *input, Expr **projects, uint32_t count,
                         const PlanField *fields, Expr *condition)
{
    Arena *arena = context->arena;
    if (input->kind == PLAN_CALC &&
        exprs_deterministic(input->calc.projects, input->calc.project_count)) {
        Expr **merged = arena_calloc(arena, count + 1, sizeof(Expr *));
        if (!merged)
            return NULL;
        for (uint32_t i = 0; i < count; i++) {
            merged[i] = expr_substitute_inputs(arena, projects[i], input->calc.projects);
            if (!merged[i])
                return NULL;
        }
        Expr *merged_condition = input->calc.condition;
        if (condition) {
            Expr *substituted = expr_substitute_inputs(arena, condition, input->calc.projects);
            if (!substituted)
                return NULL;
            if (merged_condition) {
                Expr *both[2] = {merged_condition, substituted};
                merged_condition = expr_make_and(arena, both, 2);
            } else {
                merged_condition = substituted;
            }
        }
        return plan_make_calc(context, input->inputs[0], merged, count, fields, merged_condition);
    }
    PlanNode *calc = physical_new_node(context, PLAN_CALC, 1, count);
    if (!calc)
        return NULL;
    calc->inputs[0] = input;
    calc->calc.projects = projects;
    calc->calc.project_count = count;
    calc->calc.condition = condition;
    memcpy(calc->fields, fields, count * sizeof(PlanField));
    if (calc_is_identity(calc, input))
        return input;
    return calc;
}

static Expr **identity_projects(Arena *arena, const PlanNode *input)
{
    Expr **projects = arena_calloc(arena, input->field_count + 1, sizeof(Expr *));
    for (uint32_t i = 0; projects && i < input->field_count; i++)
        projects[i] = expr_make_input_ref(arena, i, input->fields[i].type);
    return projects;
}

static int convert_project(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    PlanNode *input = NULL;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    *result = plan_make_calc(context, input, node->calc.projects, node->calc.project_count,
                             node->fields, NULL);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static int convert_filter(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    PlanNode *input = NULL;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    *result = plan_make_calc(context, input, identity_projects(context->arena, input),
                             input->field_count, input->fields, node->filter.condition);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

const PlanKindInfo plan_kind_logical_project = {
    .kind = PLAN_LOGICAL_PROJECT,
    .name = "LogicalProject",
    .explain = explain_project,
    .convert = convert_project,
    .trace_field = trace_projection,
};

const PlanKindInfo plan_kind_logical_filter = {
    .kind = PLAN_LOGICAL_FILTER,
    .name = "LogicalFilter",
    .explain = explain_filter,
    .convert = convert_filter,
    .estimate = estimate_filter,
    .trace_field = cost_trace_to_input,
};

const PlanKindInfo plan_kind_calc = {
    .kind = PLAN_CALC,
    .name = "Calc",
    .physical = true,
    .explain = explain_calc,
    .forwards_changes = true,
    .derive = derive_calc,
    .estimate = estimate_calc,
    .trace_field = trace_projection,
};
