/* build_local_group_aggregate.c - LocalGroupAggregate, the first phase of a two-phase
   aggregation (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_local_group_aggregate.h"

Operator *build_local_group_aggregate(BuildContext *context, const PlanNode *node)
{
    Arena *arena = context->arena;
    LocalGroupAggregateSpec *spec = arena_calloc(arena, 1, sizeof *spec);
    AggregateCall *calls = build_aggregate_calls(context, node);
    if (!spec || !calls)
        return NULL;
    const PlanNode *input = node->inputs[0];
    spec->input_field_count = input->field_count;
    spec->input_types = build_field_types(arena, input);
    if (!spec->input_types)
        return NULL;
    spec->group_keys = node->aggregate.group_keys;
    spec->group_key_count = node->aggregate.group_key_count;
    spec->calls = calls;
    spec->call_count = node->aggregate.call_count;
    spec->mini_batch_size = node->aggregate.mini_batch_size;
    return local_group_aggregate_operator_create(spec, context->diag);
}
