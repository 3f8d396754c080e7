/* build_group_aggregate.c - GroupAggregate, and the aggregate calls of any aggregate node
   (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_group_aggregate.h"

/* The operator's aggregate kind of a plan aggregate call. */
static AggregateKind build_aggregate_kind(PlanAggregateKind kind)
{
    switch (kind) {
    case PLAN_AGGREGATE_COUNT_STAR:
        return AGGREGATE_COUNT_STAR;
    case PLAN_AGGREGATE_COUNT:
        return AGGREGATE_COUNT;
    case PLAN_AGGREGATE_SUM:
        return AGGREGATE_SUM;
    case PLAN_AGGREGATE_MIN:
        return AGGREGATE_MIN;
    case PLAN_AGGREGATE_MAX:
        return AGGREGATE_MAX;
    case PLAN_AGGREGATE_AVG:
        return AGGREGATE_AVG;
    case PLAN_AGGREGATE_LISTAGG:
        return AGGREGATE_LISTAGG;
    case PLAN_AGGREGATE_FIRST_VALUE:
        return AGGREGATE_FIRST_VALUE;
    case PLAN_AGGREGATE_LAST_VALUE:
        return AGGREGATE_LAST_VALUE;
    case PLAN_AGGREGATE_COLLECT:
        return AGGREGATE_COLLECT;
    case PLAN_AGGREGATE_ARRAY_AGG:
        return AGGREGATE_ARRAY_AGG;
    case PLAN_AGGREGATE_SUM0:
        return AGGREGATE_SUM0;
    case PLAN_AGGREGATE_USER_DEFINED:
        return AGGREGATE_USER_DEFINED;
    }
    return AGGREGATE_AVG;
}

AggregateCall *build_aggregate_calls(BuildContext *context, const PlanNode *node)
{
    AggregateCall *calls =
        arena_calloc(context->arena, node->aggregate.call_count + 1, sizeof(AggregateCall));
    if (!calls)
        return NULL;
    const PlanNode *input = node->inputs[0];
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        calls[i].kind = build_aggregate_kind(call->kind);
        calls[i].argument = call->argument;
        calls[i].has_separator = call->has_separator;
        calls[i].separator = call->separator;
        calls[i].distinct = call->distinct;
        calls[i].argument_type = call->kind == PLAN_AGGREGATE_COUNT_STAR
                                     ? type_make(TYPE_BIGINT, false)
                                     : input->fields[call->argument].type;
        calls[i].result_type = call->result_type;
        calls[i].has_filter = call->has_filter;
        calls[i].filter = call->filter;
        calls[i].udf = call->udf;
        if (call->has_separator)
            calls[i].separator_type = input->fields[call->separator].type;
        if (call->more_argument_count) {
            uint32_t count = call->more_argument_count;
            uint32_t *more = arena_calloc(context->arena, count, sizeof(uint32_t));
            DataType *types = arena_calloc(context->arena, count, sizeof(DataType));
            if (!more || !types)
                return NULL;
            for (uint32_t m = 0; m < count; m++) {
                more[m] = call->more_arguments[m];
                types[m] = input->fields[more[m]].type;
            }
            calls[i].more_argument_count = count;
            calls[i].more_arguments = more;
            calls[i].more_types = types;
        }
        if (call->kind == PLAN_AGGREGATE_COUNT_STAR && call->has_filter) {
            /* COUNT(*) FILTER (WHERE c) counts the rows that pass: COUNT(c) of the TRUE
               (never NULL) filter field (COUNT(*) itself reads the group's row count) */
            calls[i].kind = AGGREGATE_COUNT;
            calls[i].argument = call->filter;
            calls[i].argument_type = input->fields[call->filter].type;
        }
    }
    return calls;
}

Operator *build_group_aggregate(BuildContext *context, const PlanNode *node)
{
    Arena *arena = context->arena;
    GroupAggregateSpec *spec = arena_calloc(arena, 1, sizeof *spec);
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
    spec->input_is_update = input->changelog_mode != CHANGELOG_INSERT;
    spec->ttl_millis = node->state_ttl_millis;
    spec->mini_batch_size = node->aggregate.mini_batch_size;
    return group_aggregate_operator_create(spec, context->diag);
}
