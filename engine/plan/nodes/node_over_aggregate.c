/*
 * node_over_aggregate.c - LogicalOverAggregate (printed LogicalWindow, Calcite's
 * name) and OverAggregate (Flink's StreamExecOverAggregate): aggregates over
 * a frame of each row's partition, ordered by a time attribute.
 *
 * Both keep their attributes in `aggregate`: group_keys are the PARTITION BY
 * fields, calls the aggregates whose results follow the input fields,
 * time_field the ORDER BY time attribute, over_rows / over_preceding the
 * frame (bind_over.c). The physical node sits over Exchange(hash[partition])
 * or Exchange(single) and prints as Flink does:
 *   OverAggregate(partitionBy=[c], orderBy=[rowtime ASC],
 *     window=[ ROWS BETWEEN 2 PRECEDING AND CURRENT ROW],
 *     select=[a, c, rowtime, COUNT(a) AS w0$o0, SUM(a) AS w0$o1])
 * Insert-only input (Flink's message otherwise), insert-only output; the
 * state TTL applies to UNBOUNDED frames (bounded ones free their rows as
 * they leave the frame).
 */
#include <string.h>

#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

/* " ROWS BETWEEN 2 PRECEDING AND CURRENT ROW" (Flink's window=[...], leading blank). */
static void explain_over_frame(ExplainContext *context, const PlanNode *node)
{
    strbuf_printf(context->out, " %s BETWEEN ", node->aggregate.over_rows ? "ROWS" : "RANGE");
    if (node->aggregate.over_preceding < 0)
        strbuf_append_cstr(context->out, "UNBOUNDED");
    else
        strbuf_printf(context->out, "%lld", (long long)node->aggregate.over_preceding);
    strbuf_append_cstr(context->out, " PRECEDING AND CURRENT ROW");
}

static void explain_over_aggregate(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const char *const *names = explain_input_names(context, node);
    if (node->aggregate.group_key_count) {
        strbuf_append_cstr(out, "partitionBy=[");
        for (uint32_t i = 0; i < node->aggregate.group_key_count; i++)
            strbuf_printf(out, "%s%s", i ? ", " : "", names[node->aggregate.group_keys[i]]);
        strbuf_append_cstr(out, "], ");
    }
    strbuf_printf(out, "orderBy=[%s ASC], window=[", names[node->aggregate.time_field]);
    explain_over_frame(context, node);
    strbuf_append_cstr(out, "], select=[");
    const PlanNode *input = node->inputs[0];
    for (uint32_t f = 0; f < input->field_count; f++)
        strbuf_printf(out, "%s%s", f ? ", " : "", names[f]);
    /* explain_aggregate_calls names the results after the group keys: here after the input */
    PlanNode shifted = *node;
    shifted.aggregate.group_key_count = input->field_count;
    explain_aggregate_calls(context, &shifted, names);
    strbuf_append_cstr(out, "]");
}

static int convert_over_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    PlanNode *input;
    int status = physical_convert(context, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    PlanNode *exchange = plan_make_exchange(context, input, node->aggregate.group_keys,
                                            node->aggregate.group_key_count);
    PlanNode *over = exchange ? physical_copy_as(context, node, PLAN_OVER_AGGREGATE) : NULL;
    if (!over)
        return JOINERY_ERROR_NO_MEMORY;
    over->inputs[0] = exchange;
    *result = over;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_over_aggregate = {
    .kind = PLAN_LOGICAL_OVER_AGGREGATE,
    .name = "LogicalWindow",
    .explain = explain_over_aggregate,
    .convert = convert_over_aggregate,
};

static const PlanNode *trace_over_aggregate(const PlanNode *node, uint32_t *field)
{
    return *field < node->inputs[0]->field_count ? node->inputs[0] : NULL;
}

static int derive_over_aggregate(PlannerContext *context, PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    if (input->changelog_mode != CHANGELOG_INSERT) {
        const PlanNode *producer = input;
        for (int depth = 0; plan_kind_info(producer->kind)->forwards_changes &&
                            producer->input_count == 1 && depth < 64;
             depth++)
            producer = producer->inputs[0];
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "OverAggregate doesn't support consuming update and delete changes "
                          "which is produced by node %s",
                          plan_kind_name(producer->kind));
    }
    node->changelog_mode = CHANGELOG_INSERT;
    node->row_count = cost_node_rows(input);
    /* UNBOUNDED frames keep an accumulator per key for good: the TTL frees idle keys */
    node->state_ttl_millis =
        node->aggregate.over_preceding < 0 ? context->config->state_ttl_millis : 0;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_over_aggregate = {
    .kind = PLAN_OVER_AGGREGATE,
    .name = "OverAggregate",
    .physical = true,
    .stateful = true,
    .explain = explain_over_aggregate,
    .derive = derive_over_aggregate,
    .trace_field = trace_over_aggregate,
};
