/*
 * explain.c - EXPLAIN in Flink's shape: "== Abstract Syntax Tree ==" (the
 * logical plan as bound), "== Optimized Physical Plan ==" (prefix
 * expressions) and "== Optimized Execution Plan ==" (infix expressions).
 *
 * One printer per node kind, its descriptor's explain hook (nodes/); the
 * tree drawing (":- ", "+- ", ":  ", "   "), changelog modes and costs are
 * shared, here. Output is deterministic:
 * no pointers, no hash order. joinery adds stateTtl=[...] to every stateful
 * node of the physical and execution plans.
 */
#include <stdio.h>
#include <string.h>

#include "engine/base/duration.h"
#include "engine/plan/advice.h"
#include "engine/plan/nodes/nodes.h"

/* ---------------------------------------------------------------- helpers of the printers */

const char *const *explain_input_names(ExplainContext *context, const PlanNode *node)
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
    if (node->input_count == 0)
        return plan_field_names(context->arena, node);
    return plan_field_names(context->arena, node->inputs[0]);
}

void explain_expr(ExplainContext *context, const Expr *expr, const char *const *names)
{
    expr_print(expr, names, context->style, context->out);
}

void explain_field_list(ExplainContext *context, const PlanNode *node)
{
    for (uint32_t i = 0; i < node->field_count; i++)
        strbuf_printf(context->out, "%s%s", i ? ", " : "", node->fields[i].name);
}

const char *explain_ttl_text(int64_t millis, char *buffer, size_t size)
{
    return millis == 0 ? "forever" : duration_format(millis, buffer, size);
}

void explain_ttl(ExplainContext *context, int64_t left_millis, int64_t right_millis)
{
    char left[32], right[32];
    const char *left_text = explain_ttl_text(left_millis, left, sizeof left);
    if (right_millis != left_millis)
        strbuf_printf(context->out, ", stateTtl=[left=%s, right=%s]", left_text,
                      explain_ttl_text(right_millis, right, sizeof right));
    else
        strbuf_printf(context->out, ", stateTtl=[%s]", left_text);
}

/* ---------------------------------------------------------------- the tree */

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
    const PlanKindInfo *info = plan_kind_info(node->kind);
    format_estimate(info->stateful ? row_count * width : 0, memory, sizeof memory);
    format_estimate(info->shuffles ? row_count * width : 0, network, sizeof network);
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
    const PlanKindInfo *info = plan_kind_info(node->kind);
    bool physical_section = !context->logical && context->style == EXPR_STYLE_PREFIX;
    strbuf_printf(out, "%s(",
                  physical_section && info->physical_plan_name ? info->physical_plan_name
                                                               : info->name);
    size_t attributes_start = out->length;
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
    info->explain(context, node);
    if (!context->logical && (context->details & AST_EXPLAIN_CHANGELOG_MODE) &&
        context->style == EXPR_STYLE_PREFIX)
        explain_changelog_mode(context, node);
    if (!context->logical && out->length == attributes_start) {
        /* a physical node without attributes prints its bare name (DropUpdateBefore) */
        out->length--;
        out->data[out->length] = '\0';
    } else {
        strbuf_append_cstr(out, ")");
    }
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
