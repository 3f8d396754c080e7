/*
 * explain.c - EXPLAIN in Flink's shape: "== Abstract Syntax Tree ==" (the
 * logical plan as bound), "== Optimized Physical Plan ==" (prefix
 * expressions) and "== Optimized Execution Plan ==" (infix expressions).
 *
 * One printer per node kind (explain_attributes switches to them); the tree
 * drawing (":- ", "+- ", ":  ", "   ") is shared. Output is deterministic:
 * no pointers, no hash order. joinery adds stateTtl=[...] to every stateful
 * node of the physical and execution plans.
 */
#include <stdio.h>
#include <string.h>

#include "engine/base/duration.h"
#include "engine/plan/advice.h"
#include "engine/plan/planner.h"

typedef struct ExplainContext {
    Arena *arena;
    StrBuf *out;
    ExprStyle style;
    bool logical;
    unsigned details;
    const PlanAdvice *advice; /* PLAN_ADVICE: numbered 1.. in this order */
    uint32_t advice_count;
} ExplainContext;

/* Names used to print a node's input refs: $i for logical nodes, field names otherwise. */
static const char *const *input_names(ExplainContext *context, const PlanNode *node)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < node->input_count; i++)
        count += node->inputs[i]->field_count;
    if (context->logical) {
        const char **names = arena_calloc(context->arena, count + 1, sizeof(char *));
        for (uint32_t i = 0; names && i < count; i++)
            names[i] = arena_printf(context->arena, "$%u", i);
        return names;
    }
    if (node->kind == PLAN_JOIN)
        return plan_join_input_names(context->arena, node);
    if (node->kind == PLAN_TABLE_SOURCE_SCAN || node->input_count == 0)
        return plan_field_names(context->arena, node);
    return plan_field_names(context->arena, node->inputs[0]);
}

static void print_expr(ExplainContext *context, const Expr *expr, const char *const *names)
{
    expr_print(expr, names, context->style, context->out);
}

static void print_field_list(ExplainContext *context, const PlanNode *node)
{
    for (uint32_t i = 0; i < node->field_count; i++)
        strbuf_printf(context->out, "%s%s", i ? ", " : "", node->fields[i].name);
}

static const char *ttl_text(int64_t millis, char *buffer, size_t size)
{
    return millis == 0 ? "forever" : duration_format(millis, buffer, size);
}

static void print_ttl(ExplainContext *context, const PlanNode *node)
{
    char left[32], right[32];
    ttl_text(node->state_ttl_millis, left, sizeof left);
    if (node->kind == PLAN_JOIN && node->state_ttl_right_millis != node->state_ttl_millis) {
        ttl_text(node->state_ttl_right_millis, right, sizeof right);
        strbuf_printf(context->out, ", stateTtl=[left=%s, right=%s]", left, right);
    } else if (node->state_ttl_millis == 0) {
        strbuf_append_cstr(context->out, ", stateTtl=[forever]");
    } else {
        strbuf_printf(context->out, ", stateTtl=[%s]", left);
    }
}

static const char *aggregate_name(PlanAggregateKind kind)
{
    switch (kind) {
    case PLAN_AGGREGATE_COUNT_STAR:
    case PLAN_AGGREGATE_COUNT:
        return "COUNT";
    case PLAN_AGGREGATE_SUM:
        return "SUM";
    case PLAN_AGGREGATE_MIN:
        return "MIN";
    case PLAN_AGGREGATE_MAX:
        return "MAX";
    default:
        return "AVG";
    }
}

static void print_table_path(ExplainContext *context, const CatalogTable *table)
{
    strbuf_printf(context->out, "[default_catalog, default_database, %s", table->name);
}

/* ---------------------------------------------------------------- one printer per kind */

static void explain_scan(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "table=[");
    print_table_path(context, node->scan.table);
    if (!context->logical) {
        if (node->scan.filter) {
            /* the filter reads the scan's read columns */
            const CatalogTable *table = node->scan.table;
            uint32_t read = node->scan.read_count ? node->scan.read_count : node->scan.column_count;
            const char **names = arena_calloc(context->arena, read + 1, sizeof(char *));
            for (uint32_t i = 0; names && i < read; i++)
                names[i] = table->columns[node->scan.columns[i]].name;
            strbuf_append_cstr(out, ", filter=[");
            print_expr(context, node->scan.filter, names);
            strbuf_append_cstr(out, "]");
        }
        if (node->scan.projected) {
            strbuf_append_cstr(out, ", project=[");
            print_field_list(context, node);
            strbuf_append_cstr(out, "]");
        }
        if (node->scan.watermark) {
            /* Flink's WatermarkPushDownSpec digest */
            strbuf_append_cstr(out, ", watermark=[");
            print_expr(context, node->scan.watermark, input_names(context, node));
            strbuf_append_cstr(out, "]");
            if (node->scan.idle_timeout_millis > 0)
                strbuf_printf(out, ", idletimeout=[%lld]",
                              (long long)node->scan.idle_timeout_millis);
            strbuf_append_cstr(out, ", watermarkEmitStrategy=[on-periodic]");
        }
    }
    strbuf_append_cstr(out, "]]");
    if (!context->logical) {
        strbuf_append_cstr(out, ", fields=[");
        print_field_list(context, node);
        strbuf_append_cstr(out, "]");
    }
}

static void explain_watermark(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "rowtime=[%s], watermark=[",
                  node->fields[node->watermark.rowtime_field].name);
    print_expr(context, node->watermark.watermark, input_names(context, node));
    strbuf_append_cstr(context->out, "]");
}

static void explain_project(ExplainContext *context, const PlanNode *node)
{
    const char *const *names = input_names(context, node);
    for (uint32_t i = 0; i < node->calc.project_count; i++) {
        strbuf_printf(context->out, "%s%s=[", i ? ", " : "", node->fields[i].name);
        print_expr(context, node->calc.projects[i], names);
        strbuf_append_cstr(context->out, "]");
    }
}

static void explain_calc(ExplainContext *context, const PlanNode *node)
{
    const char *const *names = input_names(context, node);
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "select=[");
    for (uint32_t i = 0; i < node->calc.project_count; i++) {
        const Expr *expr = node->calc.projects[i];
        if (i)
            strbuf_append_cstr(out, ", ");
        print_expr(context, expr, names);
        bool same_name = expr->kind == EXPR_INPUT_REF &&
                         strcmp(names[expr->input_index], node->fields[i].name) == 0;
        if (!same_name)
            strbuf_printf(out, " AS %s", node->fields[i].name);
    }
    strbuf_append_cstr(out, "]");
    if (node->calc.condition) {
        strbuf_append_cstr(out, ", where=[");
        print_expr(context, node->calc.condition, names);
        strbuf_append_cstr(out, "]");
    }
}

static void explain_filter(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "condition=[");
    print_expr(context, node->filter.condition, input_names(context, node));
    strbuf_append_cstr(context->out, "]");
}

static void explain_logical_join(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "condition=[");
    if (node->join.condition)
        print_expr(context, node->join.condition, input_names(context, node));
    else
        strbuf_append_cstr(context->out, "true");
    strbuf_printf(context->out, "], joinType=[%s]", join_type_logical_name(node->join.join_type));
    if (node->join.state_ttl_hint)
        strbuf_printf(context->out, ", stateTtlHints=[[%s]]", node->join.state_ttl_hint);
}

static void explain_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_printf(out, "joinType=[%s], where=[", join_type_name(node->join.join_type));
    if (node->join.condition)
        print_expr(context, node->join.condition, input_names(context, node));
    else
        strbuf_append_cstr(out, "true");
    strbuf_append_cstr(out, "], select=[");
    print_field_list(context, node);
    strbuf_printf(out, "], leftInputSpec=[%s], rightInputSpec=[%s]",
                  join_input_spec_name(node->join.left_spec),
                  join_input_spec_name(node->join.right_spec));
    print_ttl(context, node);
}

static void explain_aggregate_calls(ExplainContext *context, const PlanNode *node,
                                    const char *const *names)
{
    uint32_t group_count = node->aggregate.group_key_count;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        strbuf_printf(context->out, ", %s(%s", aggregate_name(call->kind),
                      call->distinct ? "DISTINCT " : "");
        if (call->kind != PLAN_AGGREGATE_COUNT_STAR)
            strbuf_append_cstr(context->out, names[call->argument]);
        strbuf_printf(context->out, ") AS %s", node->fields[group_count + i].name);
    }
}

static void explain_logical_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "group=[{");
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        strbuf_printf(out, "%s%u", i ? ", " : "", node->aggregate.group_keys[i]);
    strbuf_append_cstr(out, "}]");
    uint32_t group_count = node->aggregate.group_key_count;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        strbuf_printf(out, ", %s=[%s(%s", node->fields[group_count + i].name,
                      aggregate_name(call->kind), call->distinct ? "DISTINCT " : "");
        if (call->kind != PLAN_AGGREGATE_COUNT_STAR)
            strbuf_printf(out, "$%u", call->argument);
        strbuf_append_cstr(out, ")]");
    }
}

static void explain_group_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = input_names(context, node);
    if (node->aggregate.group_key_count) {
        strbuf_append_cstr(out, "groupBy=[");
        for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    strbuf_append_cstr(out, "select=[");
    for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
        strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
    size_t before = out->length;
    explain_aggregate_calls(context, node, names);
    if (node->aggregate.group_key_count == 0 && out->length > before) {
        /* no keys: drop the leading ", " */
        memmove(out->data + before, out->data + before + 2, out->length - before - 1);
        out->length -= 2;
    }
    strbuf_append_cstr(out, "]");
    print_ttl(context, node);
}

static void explain_exchange(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    if (node->exchange.distribution == PLAN_DISTRIBUTION_SINGLE) {
        strbuf_append_cstr(out, "distribution=[single]");
        return;
    }
    strbuf_append_cstr(out, "distribution=[hash[");
    for (uint32_t i = 0; i < node->exchange.key_count; i++)
        strbuf_printf(out, "%s%s", i ? ", " : "", node->fields[node->exchange.keys[i]].name);
    strbuf_append_cstr(out, "]]");
}

static void explain_union(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "all=[true]");
    if (!context->logical) {
        strbuf_append_cstr(context->out, ", union=[");
        print_field_list(context, node);
        strbuf_append_cstr(context->out, "]");
    }
}

static void explain_values(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "tuples=[[");
    for (uint32_t r = 0; r < node->values.row_count; r++) {
        strbuf_append_cstr(out, r ? ", { " : "{ ");
        for (uint32_t c = 0; c < node->field_count; c++) {
            if (c)
                strbuf_append_cstr(out, ", ");
            print_expr(context, node->values.rows[r][c], NULL);
        }
        strbuf_append_cstr(out, " }");
    }
    strbuf_append_cstr(out, "]]");
    if (!context->logical) {
        strbuf_append_cstr(out, ", values=[");
        print_field_list(context, node);
        strbuf_append_cstr(out, "]");
    }
}

static void explain_sink(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, "table=[default_catalog.default_database.%s], fields=[",
                  node->sink.table ? node->sink.table->name : "collect");
    print_field_list(context, node);
    strbuf_append_cstr(context->out, "]");
}

static void explain_multi_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = plan_field_names(context->arena, node);
    strbuf_append_cstr(out, "commonJoinKey=[");
    for (uint32_t k = 0; k < node->multi_join.common_key_count; k++)
        strbuf_printf(out, "%s%s", k ? ", " : "", names[node->multi_join.key_fields[0][k]]);
    strbuf_append_cstr(out, "], joinTypes=[");
    for (uint32_t i = 1; i < node->input_count; i++)
        strbuf_printf(out, "%s%s", i > 1 ? ", " : "",
                      join_type_multi_join_name(node->multi_join.join_types[i]));
    strbuf_append_cstr(out, "], inputUniqueKeys=[");
    for (uint32_t i = 0; i < node->input_count; i++) {
        const PlanNode *input = node->inputs[i];
        if (i)
            strbuf_append_cstr(out, ", ");
        if (input->unique_key_count == 0) {
            strbuf_append_cstr(out, "noUniqueKey");
            continue;
        }
        strbuf_append_char(out, '(');
        for (uint32_t f = 0; f < input->unique_keys[0].count; f++)
            strbuf_printf(out, "%s%s", f ? ", " : "",
                          input->fields[input->unique_keys[0].fields[f]].name);
        strbuf_append_char(out, ')');
    }
    strbuf_append_cstr(out, "], joinConditions=[");
    for (uint32_t i = 1; i < node->input_count; i++) {
        if (i > 1)
            strbuf_append_cstr(out, ", ");
        if (node->multi_join.conditions[i])
            print_expr(context, node->multi_join.conditions[i], names);
        else
            strbuf_append_cstr(out, "true");
    }
    strbuf_append_cstr(out, "], select=[");
    for (uint32_t f = 0; f < node->field_count; f++)
        strbuf_printf(out, "%s%s", f ? "," : "", node->fields[f].name);
    strbuf_append_cstr(out, "], rowType=[RecordType(");
    for (uint32_t f = 0; f < node->field_count; f++) {
        char type[96];
        strbuf_printf(out, "%s%s %s", f ? ", " : "",
                      expr_type_name(node->fields[f].type, true, type, sizeof type),
                      node->fields[f].name);
    }
    strbuf_append_cstr(out, ")], stateTtl=[");
    for (uint32_t i = 0; i < node->input_count; i++) {
        char ttl[32];
        strbuf_printf(out, "%s%s", i ? ", " : "",
                      ttl_text(node->multi_join.ttl_millis[i], ttl, sizeof ttl));
    }
    strbuf_append_cstr(out, "]");
}

static void explain_attributes(ExplainContext *context, const PlanNode *node)
{
    switch (node->kind) {
    case PLAN_LOGICAL_TABLE_SCAN:
    case PLAN_TABLE_SOURCE_SCAN:
        explain_scan(context, node);
        break;
    case PLAN_LOGICAL_WATERMARK_ASSIGNER:
    case PLAN_WATERMARK_ASSIGNER:
        explain_watermark(context, node);
        break;
    case PLAN_LOGICAL_PROJECT:
        explain_project(context, node);
        break;
    case PLAN_CALC:
        explain_calc(context, node);
        break;
    case PLAN_LOGICAL_FILTER:
        explain_filter(context, node);
        break;
    case PLAN_LOGICAL_JOIN:
        explain_logical_join(context, node);
        break;
    case PLAN_JOIN:
        explain_join(context, node);
        break;
    case PLAN_LOGICAL_AGGREGATE:
        explain_logical_aggregate(context, node);
        break;
    case PLAN_GROUP_AGGREGATE:
        explain_group_aggregate(context, node);
        break;
    case PLAN_EXCHANGE:
        explain_exchange(context, node);
        break;
    case PLAN_LOGICAL_UNION:
    case PLAN_UNION:
        explain_union(context, node);
        break;
    case PLAN_LOGICAL_VALUES:
    case PLAN_VALUES:
        explain_values(context, node);
        break;
    case PLAN_LOGICAL_SINK:
    case PLAN_SINK:
        explain_sink(context, node);
        break;
    case PLAN_LOGICAL_MULTI_JOIN:
    case PLAN_MULTI_JOIN:
        explain_multi_join(context, node);
        break;
    case PLAN_CHANGELOG_NORMALIZE:
        strbuf_append_cstr(context->out, "key=[");
        for (uint32_t k = 0; k < node->exchange.key_count; k++)
            strbuf_printf(context->out, "%s%s", k ? ", " : "",
                          node->fields[node->exchange.keys[k]].name);
        strbuf_append_cstr(context->out, "]");
        print_ttl(context, node);
        break;
    }
}

static void explain_changelog_mode(ExplainContext *context, const PlanNode *node)
{
    static const char *const names[] = {"I", "UB", "UA", "D"};
    strbuf_append_cstr(context->out, ", changelogMode=[");
    bool first = true;
    for (int bit = 0; bit < 4; bit++)
        if (node->changelog_mode & (1u << bit)) {
            strbuf_printf(context->out, "%s%s", first ? "" : ",", names[bit]);
            first = false;
        }
    if (first)
        strbuf_append_cstr(context->out, "NONE");
    strbuf_append_cstr(context->out, "]");
}

static void format_estimate(double value, char *buffer, size_t size)
{
    /* Java's Double.toString for the magnitudes plans show */
    if (value >= 1e7 || (value > 0 && value < 1e-3)) {
        int exponent = 0;
        double mantissa = value;
        while (mantissa >= 10) {
            mantissa /= 10;
            exponent++;
        }
        while (mantissa < 1) {
            mantissa *= 10;
            exponent--;
        }
        snprintf(buffer, size, "%.10gE%d", mantissa, exponent);
        if (!strchr(buffer, '.')) {
            char *e = strchr(buffer, 'E');
            char tail[16];
            snprintf(tail, sizeof tail, "%s", e);
            snprintf(e, size - (size_t)(e - buffer), ".0%s", tail);
        }
    } else {
        snprintf(buffer, size, "%.1f", value);
    }
}

static double explain_cumulative_rows(const PlanNode *node)
{
    double total = node->row_count < 0 ? 0 : node->row_count;
    for (uint32_t i = 0; i < node->input_count; i++)
        total += explain_cumulative_rows(node->inputs[i]);
    return total;
}

static void explain_cost(ExplainContext *context, const PlanNode *node)
{
    char rows[32], cumulative[32], memory[32], network[32];
    double row_count = node->row_count < 0 ? 1e8 : node->row_count;
    format_estimate(row_count, rows, sizeof rows);
    double total = explain_cumulative_rows(node);
    format_estimate(total, cumulative, sizeof cumulative);
    double width = 8.0 * node->field_count + 8;
    double state = plan_node_is_stateful(node) ? row_count * width : 0;
    format_estimate(state, memory, sizeof memory);
    format_estimate(node->kind == PLAN_EXCHANGE ? row_count * width : 0, network, sizeof network);
    strbuf_printf(context->out,
                  ": rowcount = %s, cumulative cost = {%s rows, %s cpu, 0.0 io, %s network, %s "
                  "memory}",
                  rows, cumulative, cumulative, network, memory);
}

static void explain_tree(ExplainContext *context, const PlanNode *node, StrBuf *prefix,
                         bool is_root, bool is_last)
{
    StrBuf *out = context->out;
    if (!is_root) {
        strbuf_append(out, prefix->data ? prefix->data : "", prefix->length);
        strbuf_append_cstr(out, is_last ? "+- " : ":- ");
    }
    strbuf_printf(out, "%s(", plan_kind_name(node->kind));
    if (!context->logical && context->style == EXPR_STYLE_PREFIX) {
        /* advice=[1, 2] first, as Flink marks the nodes advice is about */
        bool first = true;
        for (uint32_t i = 0; i < context->advice_count; i++) {
            if (context->advice[i].node != node)
                continue;
            strbuf_printf(out, "%s%u", first ? "advice=[" : ", ", i + 1);
            first = false;
        }
        if (!first)
            strbuf_append_cstr(out, "], ");
    }
    explain_attributes(context, node);
    if (!context->logical && (context->details & AST_EXPLAIN_CHANGELOG_MODE) &&
        context->style == EXPR_STYLE_PREFIX)
        explain_changelog_mode(context, node);
    strbuf_append_cstr(out, ")");
    if (!context->logical && (context->details & AST_EXPLAIN_ESTIMATED_COST) &&
        context->style == EXPR_STYLE_PREFIX)
        explain_cost(context, node);
    strbuf_append_char(out, '\n');
    size_t saved = prefix->length;
    if (!is_root)
        strbuf_append_cstr(prefix, is_last ? "   " : ":  ");
    for (uint32_t i = 0; i < node->input_count; i++)
        explain_tree(context, node->inputs[i], prefix, false, i + 1 == node->input_count);
    prefix->length = saved;
    if (prefix->data)
        prefix->data[saved] = '\0';
}

static void explain_section(ExplainContext *context, const char *title, const PlanNode *node)
{
    StrBuf prefix = STRBUF_INIT;
    strbuf_printf(context->out, "== %s ==\n", title);
    explain_tree(context, node, &prefix, true, true);
    strbuf_free(&prefix);
}

int plan_explain(PlannerContext *context, const PlanNode *logical, const PlanNode *physical,
                 unsigned details, StrBuf *out)
{
    if (details & AST_EXPLAIN_JSON_EXECUTION_PLAN)
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "EXPLAIN JSON_EXECUTION_PLAN is not supported yet");
    ExplainContext explain = {context->arena, out, EXPR_STYLE_PREFIX, true, details, NULL, 0};
    explain_section(&explain, "Abstract Syntax Tree", logical);
    strbuf_append_char(out, '\n');
    explain.logical = false;
    if (details & AST_EXPLAIN_PLAN_ADVICE) {
        PlanAdvice *advice = NULL;
        uint32_t advice_count = 0;
        int status = plan_collect_advice(context, logical, physical, &advice, &advice_count);
        if (status != JOINERY_OK)
            return status;
        explain.advice = advice;
        explain.advice_count = advice_count;
        explain_section(&explain, "Optimized Physical Plan With Advice", physical);
        strbuf_append_char(out, '\n');
        for (uint32_t i = 0; i < advice_count; i++)
            strbuf_printf(out, "advice[%u]: [%s] %s\n", i + 1,
                          advice[i].level == PLAN_ADVICE_WARNING ? "WARNING" : "ADVICE",
                          advice[i].text);
        if (advice_count == 0)
            strbuf_append_cstr(out, "No available advice...\n");
        strbuf_append_char(out, '\n');
        explain.advice = NULL;
        explain.advice_count = 0;
    } else {
        explain_section(&explain, "Optimized Physical Plan", physical);
        strbuf_append_char(out, '\n');
    }
    explain.style = EXPR_STYLE_INFIX;
    explain_section(&explain, "Optimized Execution Plan", physical);
    return JOINERY_OK;
}
