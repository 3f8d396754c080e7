/*
 * node_interval_join.c - IntervalJoin: a join whose condition bounds the
 * time attributes of both inputs against each other (Flink's
 * StreamPhysicalIntervalJoin). Made by convert_join (node_join.c) when the
 * condition has interval bounds (interval_bounds.h) and both inputs are
 * insert-only; its rows are kept only while the other input can still bring
 * matches, so its state is bounded by time, not by a TTL.
 *
 * Attributes: join.* as a regular Join's (equi keys, residual = what is
 * left of the condition besides the keys and the time predicates,
 * condition = the whole condition for printing) and join.interval.
 * Output: left fields then right fields, insert-only; the time attributes
 * of both inputs stay time attributes (Flink keeps them, so a window
 * aggregate can follow); with event time the output watermark is held
 * back by the larger relative size (exec/ops/op_interval_join.h).
 */
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

static void explain_interval_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const PlanIntervalBounds *bounds = &node->join.interval;
    strbuf_printf(out,
                  "joinType=[%s], windowBounds=[isRowTime=%s, leftLowerBound=%lld, "
                  "leftUpperBound=%lld, leftTimeIndex=%u, rightTimeIndex=%u], where=[",
                  join_type_name(node->join.join_type), bounds->rowtime ? "true" : "false",
                  (long long)bounds->left_lower, (long long)bounds->left_upper, bounds->left_time,
                  bounds->right_time);
    if (node->join.condition)
        explain_expr(context, node->join.condition, plan_join_input_names(context->arena, node));
    else
        strbuf_append_cstr(out, "true");
    strbuf_append_cstr(out, "], select=[");
    explain_field_list(context, node);
    strbuf_append_cstr(out, "]");
}

static double estimate_interval_join(const PlanNode *node)
{
    double rows[2] = {cost_node_rows(node->inputs[0]), cost_node_rows(node->inputs[1])};
    double selectivity = cost_join_selectivity(node->join.condition, node->inputs, 2, rows);
    return cost_join_rows(node->join.join_type, rows[0], rows[1], selectivity);
}

static int derive_interval_join(PlannerContext *context, PlanNode *node)
{
    (void)context;
    /* every joined or NULL-padded row is final when it is emitted */
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_estimate(node);
    /* state is released by time, not by table.exec.state.ttl */
    node->state_ttl_millis = node->state_ttl_right_millis = 0;
    node->ttl_from_hint = false;
    return JOINERY_OK;
}

static bool interval_join_calls_current_watermark(const PlanNode *node)
{
    return expr_calls(node->join.condition, FUNCTION_CURRENT_WATERMARK);
}

const PlanKindInfo plan_kind_interval_join = {
    .kind = PLAN_INTERVAL_JOIN,
    .name = "IntervalJoin",
    .physical = true,
    .stateful = true,
    .explain = explain_interval_join,
    .derive = derive_interval_join,
    .calls_current_watermark = interval_join_calls_current_watermark,
    .estimate = estimate_interval_join,
    .trace_field = cost_trace_to_inputs,
};
