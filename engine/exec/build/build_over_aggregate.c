/* build_over_aggregate.c - OverAggregate and its SHOW JOB METRICS line (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_over_aggregate.h"

Operator *build_over_aggregate(BuildContext *context, const PlanNode *node)
{
    AggregateCall *calls = build_aggregate_calls(context, node);
    const PlanNode *input = node->inputs[0];
    DataType *types = build_field_types(context->arena, input);
    if (!calls || !types)
        return NULL;
    OverAggregateSpec spec = {
        .input_field_count = input->field_count,
        .input_types = types,
        .partition_keys = node->aggregate.group_keys,
        .partition_key_count = node->aggregate.group_key_count,
        .time_field = node->aggregate.time_field,
        .rowtime = !node->aggregate.proctime,
        .rows = node->aggregate.over_rows,
        .preceding = node->aggregate.over_preceding,
        .calls = calls,
        .call_count = node->aggregate.call_count,
        .ttl_millis = node->state_ttl_millis,
    };
    return over_aggregate_operator_create(&spec, context->diag);
}

void build_over_aggregate_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                  StrBuf *out)
{
    (void)node;
    uint64_t late = 0;
    for (uint32_t i = 0; i < count; i++)
        late += over_aggregate_operator_late_rows(subtasks[i]);
    strbuf_printf(out, "%-4s   numLateRecordsDropped %llu\n", "", (unsigned long long)late);
}
