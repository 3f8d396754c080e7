/*
 * node_global_group_aggregate.c - GlobalGroupAggregate, the second phase of
 * a two-phase group aggregation (rules/split_two_phase_aggregate.c): over
 * the hash exchange of a LocalGroupAggregate, it merges the partial
 * accumulators into its state per key and emits the changes of the
 * results, as a GroupAggregate does. EXPLAIN as Flink's
 * TwoStageAggregateTest: `GlobalGroupAggregate(groupBy=[b], select=[b,
 * COUNT(count$0) AS c, AVG((sum$1, count$2)) AS a])`, the calls with
 * _RETRACT when the local phase's input carries retractions, then the
 * state TTL as joinery prints it for every stateful node.
 *
 * Invariants: input 0 is an Exchange whose input is the LocalGroupAggregate
 * with the same calls (one array); the group keys are the first fields of
 * that input. Fields: the keys, then one per call, as the GroupAggregate it
 * replaces.
 */
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

const PlanNode *plan_global_aggregate_local(const PlanNode *global)
{
    const PlanNode *exchange = global->inputs[0];
    if (exchange->kind != PLAN_EXCHANGE || exchange->inputs[0]->kind != PLAN_LOCAL_GROUP_AGGREGATE)
        return NULL;
    return exchange->inputs[0];
}

static bool local_input_is_update(const PlanNode *global)
{
    const PlanNode *local = plan_global_aggregate_local(global);
    return local && local->inputs[0]->changelog_mode != CHANGELOG_INSERT;
}

static void explain_global_group_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    bool retract = local_input_is_update(node);
    uint32_t key_count = node->aggregate.group_key_count;
    if (key_count) {
        strbuf_append_cstr(out, "groupBy=[");
        for (uint32_t i = 0; i < key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    explain_partial_final(context, node);
    strbuf_append_cstr(out, "select=[");
    for (uint32_t i = 0; i < key_count; i++)
        strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
    uint32_t index = 0;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        strbuf_printf(out, "%s%s%s(", key_count || i ? ", " : "", plan_aggregate_call_name(call),
                      retract && !call->udf ? "_RETRACT" : "");
        plan_explain_accumulator(out, call, retract, &index);
        strbuf_printf(out, ") AS %s", node->fields[key_count + i].name);
    }
    strbuf_append_cstr(out, "]");
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_millis);
}

/* As a GroupAggregate's: updates (deletes too over retractions), unique by the keys. */
static int derive_global_group_aggregate(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    node->changelog_mode = CHANGELOG_INSERT | CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER;
    if (local_input_is_update(node))
        node->changelog_mode |= CHANGELOG_DELETE;
    uint32_t key_count = node->aggregate.group_key_count;
    node->row_count = key_count ? input->row_count * 0.1 : 1;
    if (key_count) {
        uint32_t fields[64];
        uint32_t count = key_count < 64 ? key_count : 64;
        for (uint32_t f = 0; f < count; f++)
            fields[f] = f;
        derive_add_unique_key(context->arena, node, fields, count);
    }
    if (!node->ttl_from_hint) /* a STATE_TTL hint wins over table.exec.state.ttl */
        node->state_ttl_millis = context->config->state_ttl_millis;
    return JOINERY_OK;
}

static double estimate_global_group_aggregate(const PlanNode *node)
{
    return node->aggregate.group_key_count ? cost_node_rows(node->inputs[0]) * 0.1 : 1;
}

/* The grouping keys are the input's first fields; the results are computed. */
static const PlanNode *trace_global_group_aggregate(const PlanNode *node, uint32_t *field)
{
    return *field < node->aggregate.group_key_count ? node->inputs[0] : NULL;
}

const PlanKindInfo plan_kind_global_group_aggregate = {
    .kind = PLAN_GLOBAL_GROUP_AGGREGATE,
    .name = "GlobalGroupAggregate",
    .physical = true,
    .stateful = true,
    .explain = explain_global_group_aggregate,
    .derive = derive_global_group_aggregate,
    .estimate = estimate_global_group_aggregate,
    .trace_field = trace_global_group_aggregate,
};
