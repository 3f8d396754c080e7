/*
 * node_correlate.c - joins with a table function: `t CROSS JOIN UNNEST(t.arr)
 * AS u(x)`, `t, UNNEST(...)`, `t LEFT JOIN UNNEST(...) ON TRUE`, and the same
 * with `LATERAL TABLE(f(args))` of a user-defined C table function.
 *
 * Logical: LogicalCorrelate(correlation=[$cor0], joinType, requiredColumns)
 * over the left input and, for a LATERAL TABLE, a
 * LogicalTableFunctionScan(invocation, rowType) leaf whose arguments read the
 * left fields as $cor0.name; for UNNEST, as Flink's AST, [LogicalProject(s=[$0])]
 * over Uncollect over LogicalProject(c=[$cor0.c]) over LogicalValues(tuples=[[{ 0
 * }]]), the first three of this file's call kind printed by their part
 * (plan.h: PlanUnnestPart). The arguments are over the left input, so only the
 * correlate converts; the call alone is an error (a table function alone in
 * FROM is a correlate over Calcite's one-row Values(ZERO),
 * bind_table_function.c). Filters on the left fields go below the correlate;
 * of an INNER one, those on the function's fields only go into it (Flink's
 * condition=[...], evaluated per function row); the others stay above (a Calc
 * over the Correlate).
 *
 * Physical: Correlate(invocation, correlate, select, rowType, joinType) over
 * its input, as Flink's StreamPhysicalCorrelate: stateless, each input row
 * followed by the function's rows for it (LEFT: one NULL-padded row when
 * there are none), every output row of the input row's kind, so a
 * retraction of an input row retracts exactly the rows its insertion gave
 * (the function is deterministic). No unique key survives the expansion.
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"
#include "engine/udf/udf.h"

/* ---------------------------------------------------------------- printing */

static const char *const *correlate_names(Arena *arena, const PlanNode *node)
{
    uint32_t count = node->correlate.left_count;
    const char **names = arena_calloc(arena, count + 1, sizeof(char *));
    for (uint32_t i = 0; names && i < count; i++)
        names[i] = arena_printf(arena, "$cor0.%s", node->correlate.left_names[i]);
    return names;
}

/* $UNNEST_ROWS$1($cor0.c) (WITH ORDINALITY: $UNNEST_ROWS_WITH_ORDINALITY$1) or
   f($cor0.a, 'x'), in `style`. */
static void explain_invocation(ExplainContext *context, const PlanNode *node, ExprStyle style)
{
    StrBuf *out = context->out;
    const char *const *names = correlate_names(context->arena, node);
    const char *name = node->correlate.function          ? node->correlate.function->name
                       : node->correlate.with_ordinality ? "$UNNEST_ROWS_WITH_ORDINALITY$1"
                                                         : "$UNNEST_ROWS$1";
    strbuf_printf(out, "%s(", name);
    for (uint32_t i = 0; i < node->correlate.argument_count; i++) {
        if (i)
            strbuf_append_cstr(out, ", ");
        expr_print(node->correlate.arguments[i], names, style, out);
    }
    strbuf_append_char(out, ')');
}

/* RecordType(INTEGER a, ...) of fields [from, node->field_count), as Calcite writes it. */
static void explain_row_type(ExplainContext *context, const PlanNode *node, uint32_t from)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "RecordType(");
    for (uint32_t f = from; f < node->field_count; f++) {
        char type[256];
        DataType shown = node->fields[f].type;
        shown.nullable = true;
        strbuf_printf(out, "%s%s %s", f > from ? ", " : "",
                      type_format_as(shown, TYPE_FORMAT_CALCITE, type, sizeof type),
                      node->fields[f].name);
    }
    strbuf_append_char(out, ')');
}

static void explain_logical_correlate(ExplainContext *context, const PlanNode *node)
{
    uint32_t left_count = node->correlate.left_count;
    uint64_t *words = arena_calloc(context->arena, left_count / 64 + 1, sizeof(uint64_t));
    if (!words)
        return;
    for (uint32_t i = 0; i < node->correlate.argument_count; i++)
        expr_collect_inputs(node->correlate.arguments[i], words);
    strbuf_printf(context->out, "correlation=[$cor0], joinType=[%s], requiredColumns=[{",
                  join_type_logical_name(node->correlate.join_type));
    bool first = true;
    for (uint32_t i = 0; i < left_count; i++)
        if (words[i / 64] >> (i % 64) & 1) {
            strbuf_printf(context->out, "%s%u", first ? "" : ", ", i);
            first = false;
        }
    strbuf_append_cstr(context->out, "}]");
}

/* UNNEST's parts print as Flink's AST nodes (plan.h: PlanUnnestPart). */
static const char *function_call_name(const PlanNode *node)
{
    if (node->correlate.function)
        return NULL;
    return node->correlate.unnest_part == PLAN_UNNEST_UNCOLLECT ? "Uncollect" : "LogicalProject";
}

static void explain_unnest_part(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    switch (node->correlate.unnest_part) {
    case PLAN_UNNEST_UNCOLLECT: /* Calcite: Uncollect(withOrdinality=[true]) */
        if (node->correlate.with_ordinality)
            strbuf_append_cstr(out, "withOrdinality=[true]");
        return;
    case PLAN_UNNEST_ALIASES:
        for (uint32_t f = 0; f < node->field_count; f++)
            strbuf_printf(out, "%s%s=[$%u]", f ? ", " : "", node->fields[f].name, f);
        return;
    case PLAN_UNNEST_ARGUMENT:
        strbuf_printf(out, "%s=[", node->fields[0].name);
        expr_print(node->correlate.arguments[0], correlate_names(context->arena, node),
                   EXPR_STYLE_PREFIX, out);
        strbuf_append_char(out, ']');
        return;
    }
}

static void explain_function_call(ExplainContext *context, const PlanNode *node)
{
    if (!node->correlate.function) {
        explain_unnest_part(context, node);
        return;
    }
    strbuf_append_cstr(context->out, "invocation=[");
    explain_invocation(context, node, EXPR_STYLE_PREFIX);
    strbuf_append_cstr(context->out, "], rowType=[");
    explain_row_type(context, node, 0);
    strbuf_append_char(context->out, ']');
}

static void explain_correlate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "invocation=[");
    explain_invocation(context, node, EXPR_STYLE_PREFIX);
    strbuf_append_cstr(out, "], correlate=[table(");
    explain_invocation(context, node, EXPR_STYLE_INFIX);
    strbuf_append_cstr(out, ")], select=[");
    for (uint32_t f = 0; f < node->field_count; f++)
        strbuf_printf(out, "%s%s", f ? "," : "", node->fields[f].name);
    strbuf_append_cstr(out, "], rowType=[");
    explain_row_type(context, node, 0);
    strbuf_printf(out, "], joinType=[%s]", join_type_multi_join_name(node->correlate.join_type));
    if (node->correlate.condition) {
        /* over the function's fields, $0 the first, as Flink prints it in both sections */
        uint32_t left_count = node->correlate.left_count;
        const char **names = arena_calloc(context->arena, node->field_count + 1, sizeof(char *));
        for (uint32_t f = left_count; names && f < node->field_count; f++)
            names[f] = arena_printf(context->arena, "$%u", f - left_count);
        strbuf_append_cstr(out, ", condition=[");
        expr_print(node->correlate.condition, names, EXPR_STYLE_PREFIX, out);
        strbuf_append_char(out, ']');
    }
}

/* ---------------------------------------------------------------- rules */

/* Conjuncts on the left fields only go below; of an INNER correlate, those on the function's
   fields only into it; the rest stay above. */
static int push_filters_correlate(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                                  PlanNode **result)
{
    Arena *arena = context->arena;
    RuleConjuncts below = {0}, inside = {0}, above = {0};
    uint32_t left_count = node->correlate.left_count;
    if (node->correlate.condition &&
        rule_split_conjuncts(arena, node->correlate.condition, &inside) != JOINERY_OK)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t c = 0; c < conjuncts->count; c++) {
        Expr *conjunct = conjuncts->items[c];
        uint64_t *used = arena_calloc(arena, node->field_count / 64 + 1, sizeof(uint64_t));
        if (!used)
            return JOINERY_ERROR_NO_MEMORY;
        expr_collect_inputs(conjunct, used);
        bool reads_left = false, reads_function = false;
        for (uint32_t f = 0; f < node->field_count; f++)
            if (used[f / 64] >> (f % 64) & 1) {
                if (f < left_count)
                    reads_left = true;
                else
                    reads_function = true;
            }
        RuleConjuncts *target = &above;
        if (expr_is_deterministic(conjunct) && !reads_function)
            target = &below;
        else if (expr_is_deterministic(conjunct) && !reads_left &&
                 node->correlate.join_type == JOIN_TYPE_INNER)
            target = &inside;
        int status = rule_conjuncts_add(arena, target, conjunct);
        if (status != JOINERY_OK)
            return status;
    }
    PlanNode *copy = plan_node_copy(arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    copy->correlate.condition = expr_make_and(arena, inside.items, inside.count);
    int status = rule_push_filters_into(context, node->inputs[0], &below, &copy->inputs[0]);
    if (status != JOINERY_OK)
        return status;
    *result = rule_filter_above(context, copy, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/* ---------------------------------------------------------------- conversion */

static int convert_table_correlate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    PlanNode *input;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    if (input->field_count != node->correlate.left_count)
        return diag_error(context->diag, JOINERY_ERROR, "correlate: its input changed shape");
    PlanNode *correlate = physical_new_node(context, PLAN_CORRELATE, 1, node->field_count);
    if (!correlate)
        return JOINERY_ERROR_NO_MEMORY;
    correlate->inputs[0] = input;
    memcpy(correlate->fields, node->fields, node->field_count * sizeof(PlanField));
    correlate->correlate = node->correlate;
    *result = correlate;
    return JOINERY_OK;
}

static int convert_function_call(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    (void)node;
    (void)result;
    return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                      "A table function is supported only joined to a table: FROM t, "
                      "LATERAL TABLE(f(t.x)) or t CROSS JOIN UNNEST(t.arr)");
}

/* ---------------------------------------------------------------- derivation */

static int derive_correlate(PlannerContext *context, PlanNode *node)
{
    (void)context;
    const PlanNode *input = node->inputs[0];
    node->changelog_mode = input->changelog_mode;
    node->row_count = input->row_count;
    return JOINERY_OK;
}

static const PlanNode *trace_correlate(const PlanNode *node, uint32_t *field)
{
    if (*field < node->correlate.left_count)
        return node->inputs[0];
    return NULL;
}

static bool correlate_calls_current_watermark(const PlanNode *node)
{
    for (uint32_t i = 0; i < node->correlate.argument_count; i++)
        if (expr_calls(node->correlate.arguments[i], FUNCTION_CURRENT_WATERMARK))
            return true;
    return false;
}

const PlanKindInfo plan_kind_logical_table_correlate = {
    .kind = PLAN_LOGICAL_TABLE_CORRELATE,
    .name = "LogicalCorrelate",
    .explain = explain_logical_correlate,
    .convert = convert_table_correlate,
    .push_filters = push_filters_correlate,
};

const PlanKindInfo plan_kind_logical_table_function_call = {
    .kind = PLAN_LOGICAL_TABLE_FUNCTION_CALL,
    .name = "LogicalTableFunctionScan",
    .explain = explain_function_call,
    .display_name = function_call_name,
    .convert = convert_function_call,
};

/* An async C table function's is Flink's AsyncCorrelate (StreamPhysicalAsyncCorrelate). */
static const char *correlate_name(const PlanNode *node)
{
    return node->correlate.function && node->correlate.function->async ? "AsyncCorrelate" : NULL;
}

const PlanKindInfo plan_kind_correlate = {
    .kind = PLAN_CORRELATE,
    .name = "Correlate",
    .display_name = correlate_name,
    .physical = true,
    .forwards_changes = true,
    .explain = explain_correlate,
    .derive = derive_correlate,
    .trace_field = trace_correlate,
    .calls_current_watermark = correlate_calls_current_watermark,
};
