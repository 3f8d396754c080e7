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
        bool fits = true;
        for (uint32_t i = 0; i < count; i++) {
            merged[i] = expr_substitute_inputs(arena, projects[i], input->calc.projects);
            if (!merged[i])
                return NULL;
            fits = fits && expr_fits(merged[i]);
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
            fits = fits && merged_condition && expr_fits(merged_condition);
        }
        /* expressions too deep or too large merged stay two Calcs (see expr_fits) */
        if (fits)
            return plan_make_calc(context, input->inputs[0], merged, count, fields,
                                  merged_condition);
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

static int push_filter(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                       PlanNode **result)
{
    Arena *arena = context->arena;
    RuleConjuncts merged = {0};
    for (uint32_t i = 0; i < conjuncts->count; i++)
        if (rule_conjuncts_add(arena, &merged, conjuncts->items[i]) != JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
    if (rule_split_conjuncts(arena, node->filter.condition, &merged) != JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
    return rule_push_filters_into(context, node->inputs[0], &merged, result);
}

static int push_project(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                        PlanNode **result)
{
    Arena *arena = context->arena;
    RuleConjuncts below = {0}, above = {0};
    bool projects_deterministic = true;
    for (uint32_t i = 0; i < node->calc.project_count; i++)
        if (!expr_is_deterministic(node->calc.projects[i]))
            projects_deterministic = false;
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        Expr *conjunct = conjuncts->items[i];
        if (expr_is_deterministic(conjunct) && projects_deterministic) {
            Expr *substituted = expr_substitute_inputs(arena, conjunct, node->calc.projects);
            if (!substituted)
                return JOINERY_ERROR_NO_MEMORY;
            /* a conjunct too deep or too large through the projection stays above it */
            RuleConjuncts *side = expr_fits(substituted) ? &below : &above;
            if (rule_conjuncts_add(arena, side, side == &below ? substituted : conjunct) !=
                JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        } else if (rule_conjuncts_add(arena, &above, conjunct) != JOINERY_OK) {
            return JOINERY_ERROR_NO_MEMORY;
        }
    }
    return rule_push_through(context, node, &below, &above, result);
}

static uint64_t *project_input_fields_used(Arena *arena, const PlanNode *node, uint32_t input,
                                           const uint64_t *used)
{
    uint64_t *fields = rule_fields_new(arena, node->inputs[input]->field_count);
    for (uint32_t p = 0; fields && p < node->calc.project_count; p++)
        if (!used || rule_fields_has(used, p))
            rule_fields_add_expr(fields, node->calc.projects[p]);
    return fields;
}

static uint64_t *filter_input_fields_used(Arena *arena, const PlanNode *node, uint32_t input,
                                          const uint64_t *used)
{
    uint64_t *fields = rule_fields_copy(arena, used, node->inputs[input]->field_count);
    if (fields)
        rule_fields_add_expr(fields, node->filter.condition);
    return fields;
}

static int prune_project(PlannerContext *context, PlanNode *node, uint64_t *used,
                         RulePruned *result)
{
    Arena *arena = context->arena;
    PlanNode *input_node = node->inputs[0];
    uint64_t *input_used = rule_fields_new(arena, input_node->field_count);
    uint32_t count = 0;
    for (uint32_t i = 0; i < node->field_count; i++)
        if (rule_fields_has(used, i) || !expr_is_deterministic(node->calc.projects[i])) {
            rule_fields_add_expr(input_used, node->calc.projects[i]);
            count++;
        }
    RulePruned input;
    PlanNode *project;
    int status = rule_prune_input(context, node, input_used, &project, &input);
    if (status != JOINERY_OK)
        return status;
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    if (!mapping)
        return JOINERY_ERROR_NO_MEMORY;
    project->fields = arena_calloc(arena, count + 1, sizeof(PlanField));
    project->calc.projects = arena_calloc(arena, count + 1, sizeof(Expr *));
    if (!project->fields || !project->calc.projects)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t next = 0;
    for (uint32_t i = 0; i < node->field_count; i++) {
        if (!(rule_fields_has(used, i) || !expr_is_deterministic(node->calc.projects[i]))) {
            mapping[i] = -1;
            continue;
        }
        mapping[i] = (int32_t)next;
        project->fields[next] = node->fields[i];
        project->calc.projects[next] =
            expr_remap_inputs(arena, node->calc.projects[i], input.mapping);
        if (!project->calc.projects[next])
            return JOINERY_ERROR_NO_MEMORY;
        next++;
    }
    project->field_count = count;
    project->calc.project_count = count;
    result->node = project;
    result->mapping = mapping;
    return JOINERY_OK;
}

static int prune_filter(PlannerContext *context, PlanNode *node, uint64_t *used, RulePruned *result)
{
    Arena *arena = context->arena;
    uint64_t *input_used = filter_input_fields_used(arena, node, 0, used);
    if (!input_used)
        return JOINERY_ERROR_NO_MEMORY;
    RulePruned input;
    PlanNode *filter;
    int status = rule_prune_input(context, node, input_used, &filter, &input);
    if (status != JOINERY_OK)
        return status;
    filter->field_count = input.node->field_count;
    filter->fields = input.node->fields;
    filter->filter.condition = expr_remap_inputs(arena, node->filter.condition, input.mapping);
    if (!filter->filter.condition)
        return JOINERY_ERROR_NO_MEMORY;
    /* fields only the condition reads are dropped right after it */
    return rule_project_used(context, filter, node->field_count, used, input.mapping, result);
}

const PlanKindInfo plan_kind_logical_project = {
    .kind = PLAN_LOGICAL_PROJECT,
    .name = "LogicalProject",
    .explain = explain_project,
    .convert = convert_project,
    .trace_field = trace_projection,
    .push_filters = push_project,
    .prune_fields = prune_project,
    .input_fields_used = project_input_fields_used,
};

const PlanKindInfo plan_kind_logical_filter = {
    .kind = PLAN_LOGICAL_FILTER,
    .name = "LogicalFilter",
    .explain = explain_filter,
    .convert = convert_filter,
    .estimate = estimate_filter,
    .trace_field = cost_trace_to_input,
    .push_filters = push_filter,
    .prune_fields = prune_filter,
    .input_fields_used = filter_input_fields_used,
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
