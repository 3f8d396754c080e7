/* build_window_aggregate.c - WindowAggregate and its SHOW JOB METRICS line (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_window_aggregate.h"

Operator *build_window_aggregate(BuildContext *context, const PlanNode *node)
{
    WindowAggregateOperatorSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    AggregateCall *calls = build_aggregate_calls(context, node);
    if (!spec || !calls)
        return NULL;
    const PlanNode *input = node->inputs[0];
    spec->input_field_count = input->field_count;
    spec->input_types = build_field_types(context->arena, input);
    if (!spec->input_types)
        return NULL;
    spec->group_keys = node->aggregate.group_keys;
    spec->group_key_count = node->aggregate.group_key_count;
    spec->calls = calls;
    spec->call_count = node->aggregate.call_count;
    spec->window = node->aggregate.window;
    spec->time_field = node->aggregate.time_field;
    spec->emits_window_time = node->aggregate.emits_window_time;
    spec->windows_from_fields = node->aggregate.windows_from_fields;
    spec->window_start_field = node->aggregate.window_start_field;
    spec->window_end_field = node->aggregate.window_end_field;
    return window_aggregate_operator_create(spec, context->diag);
}

void build_window_aggregate_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                    StrBuf *out)
{
    (void)node;
    uint64_t late = 0;
    for (uint32_t i = 0; i < count; i++)
        late += window_aggregate_operator_late_rows(subtasks[i]);
    strbuf_printf(out, "%-4s   numLateRecordsDropped %llu\n", "", (unsigned long long)late);
}
