/* build_group_window_aggregate.c - GroupWindowAggregate and its SHOW JOB METRICS line (see
   build.h): the merging window operator with the legacy group window's properties. */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_group_window_aggregate.h"

Operator *build_group_window_aggregate(BuildContext *context, const PlanNode *node)
{
    GroupWindowAggregateSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
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
    spec->proctime = node->aggregate.proctime;
    if (node->aggregate.group_window_properties) {
        spec->properties[spec->property_count++] = WINDOW_PROPERTY_START;
        spec->properties[spec->property_count++] = WINDOW_PROPERTY_END;
        if (!spec->proctime)
            spec->properties[spec->property_count++] = WINDOW_PROPERTY_ROWTIME;
        spec->properties[spec->property_count++] = WINDOW_PROPERTY_PROCTIME;
    }
    return group_window_aggregate_operator_create(spec, context->diag);
}

void build_group_window_aggregate_metrics(const PlanNode *node, Operator *const *subtasks,
                                          uint32_t count, StrBuf *out)
{
    (void)node;
    uint64_t late = 0;
    for (uint32_t i = 0; i < count; i++)
        late += group_window_aggregate_operator_late_rows(subtasks[i]);
    strbuf_printf(out, "%-4s   numLateRecordsDropped %llu\n", "", (unsigned long long)late);
}
