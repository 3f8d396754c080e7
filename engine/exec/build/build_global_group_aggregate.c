/* build_global_group_aggregate.c - GlobalGroupAggregate: the GroupAggregate operator
   merging the partial accumulators of the LocalGroupAggregate under its exchange
   (GroupAggregateSpec.merges_partials; see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_group_aggregate.h"
#include "engine/plan/nodes/nodes.h"

Operator *build_global_group_aggregate(BuildContext *context, const PlanNode *node)
{
    Arena *arena = context->arena;
    const PlanNode *local = plan_global_aggregate_local(node);
    if (!local) {
        diag_error(context->diag, JOINERY_ERROR, "GlobalGroupAggregate without its local phase");
        return NULL;
    }
    GroupAggregateSpec *spec = arena_calloc(arena, 1, sizeof *spec);
    /* the calls as the local phase has them (argument types of its input), each argument
       then moved to its partial value field */
    AggregateCall *calls = build_aggregate_calls(context, local);
    uint32_t key_count = node->aggregate.group_key_count;
    uint32_t *keys = arena_calloc(arena, key_count + 1, sizeof(uint32_t));
    if (!spec || !calls || !keys)
        return NULL;
    for (uint32_t k = 0; k < key_count; k++)
        keys[k] = k;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        calls[i].argument = key_count + 1 + 2 * i;
        calls[i].has_separator = false;
        calls[i].more_argument_count = 0; /* it merges accumulators, reads no argument */
        calls[i].has_filter = false;      /* the local phase applied it */
    }
    const PlanNode *input = node->inputs[0];
    spec->input_field_count = input->field_count;
    spec->input_types = build_field_types(arena, input);
    if (!spec->input_types)
        return NULL;
    spec->group_keys = keys;
    spec->group_key_count = key_count;
    spec->calls = calls;
    spec->call_count = node->aggregate.call_count;
    spec->input_is_update = false; /* partial accumulators: +I rows */
    spec->ttl_millis = node->state_ttl_millis;
    spec->mini_batch_size = node->aggregate.mini_batch_size;
    spec->merges_partials = true;
    return group_aggregate_operator_create(spec, context->diag);
}
