/*
 * node_multi_join.c - LogicalMultiJoin (made by rules/fuse_multi_join.c)
 * and MultiJoin (Flink 2.1's StreamingMultiJoinOperator): a left-deep
 * chain of joins sharing a common key, run as one operator that keeps
 * only its inputs in state.
 */
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

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
            explain_expr(context, node->multi_join.conditions[i], names);
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
                      explain_ttl_text(node->multi_join.ttl_millis[i], ttl, sizeof ttl));
    }
    strbuf_append_cstr(out, "]");
}

static double estimate_multi_join(const PlanNode *node)
{
    double rows[64];
    uint32_t count = node->input_count < 64 ? node->input_count : 64;
    double result = 0;
    for (uint32_t i = 0; i < count; i++) {
        rows[i] = cost_node_rows(node->inputs[i]);
        if (i == 0) {
            result = rows[0];
            continue;
        }
        /* step i: inputs 0..i-1 (result rows) with input i */
        double selectivity =
            cost_join_selectivity(node->multi_join.conditions[i], node->inputs, i + 1, rows);
        result = cost_join_rows(node->multi_join.join_types[i], result, rows[i], selectivity);
    }
    return result;
}

static int derive_multi_join(PlannerContext *context, PlanNode *node)
{
    int64_t default_ttl = context->config->state_ttl_millis;
    bool append_only = true;
    for (uint32_t i = 0; i < node->input_count; i++) {
        const PlanNode *in = node->inputs[i];
        append_only = append_only && in->changelog_mode == CHANGELOG_INSERT &&
                      (i == 0 || node->multi_join.join_types[i] == JOIN_TYPE_INNER);
        if (node->multi_join.ttl_millis[i] < 0)
            node->multi_join.ttl_millis[i] = default_ttl;
    }
    node->row_count = cost_node_estimate(node);
    node->changelog_mode = append_only ? CHANGELOG_INSERT
                                       : CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE |
                                             CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
    node->state_ttl_millis = default_ttl;
    return JOINERY_OK;
}

static int convert_multi_join(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    PlanNode *fused = physical_copy_as(context, node, PLAN_MULTI_JOIN);
    if (!fused)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->input_count; i++) {
        PlanNode *input = NULL;
        int status = i ? plan_check_join_type(context, node->multi_join.join_types[i]) : JOINERY_OK;
        if (status == JOINERY_OK)
            status = physical_convert(context, node->inputs[i], &input);
        if (status != JOINERY_OK)
            return status;
        fused->inputs[i] = plan_make_exchange(context, input, node->multi_join.key_fields[i],
                                              node->multi_join.common_key_count);
        if (!fused->inputs[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    *result = fused;
    return JOINERY_OK;
}

static bool multi_join_calls_current_watermark(const PlanNode *node)
{
    bool found = false;
    for (uint32_t i = 1; i < node->input_count; i++)
        found = found || expr_calls(node->multi_join.conditions[i], FUNCTION_CURRENT_WATERMARK);
    return found;
}

const PlanKindInfo plan_kind_logical_multi_join = {
    .kind = PLAN_LOGICAL_MULTI_JOIN,
    .name = "LogicalMultiJoin",
    .explain = explain_multi_join,
    .convert = convert_multi_join,
    .estimate = estimate_multi_join,
    .trace_field = cost_trace_to_inputs,
};

const PlanKindInfo plan_kind_multi_join = {
    .kind = PLAN_MULTI_JOIN,
    .name = "MultiJoin",
    .physical = true,
    .stateful = true,
    .explain = explain_multi_join,
    .derive = derive_multi_join,
    .calls_current_watermark = multi_join_calls_current_watermark,
    .estimate = estimate_multi_join,
    .trace_field = cost_trace_to_inputs,
};
