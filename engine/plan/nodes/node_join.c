/*
 * node_join.c - LogicalJoin and Join: the regular streaming join of two
 * inputs (Flink's StreamingJoinOperator), keyed by its equi keys.
 */
#include "engine/plan/nodes/nodes.h"

static void explain_logical_join(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "condition=[");
    if (node->join.condition)
        explain_expr(context, node->join.condition, explain_input_names(context, node));
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
        explain_expr(context, node->join.condition, plan_join_input_names(context->arena, node));
    else
        strbuf_append_cstr(out, "true");
    strbuf_append_cstr(out, "], select=[");
    explain_field_list(context, node);
    strbuf_printf(out, "], leftInputSpec=[%s], rightInputSpec=[%s]",
                  join_input_spec_name(node->join.left_spec),
                  join_input_spec_name(node->join.right_spec));
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_right_millis);
}

const PlanKindInfo plan_kind_logical_join = {
    .kind = PLAN_LOGICAL_JOIN,
    .name = "LogicalJoin",
    .explain = explain_logical_join,
};

const PlanKindInfo plan_kind_join = {
    .kind = PLAN_JOIN,
    .name = "Join",
    .physical = true,
    .stateful = true,
    .explain = explain_join,
};
