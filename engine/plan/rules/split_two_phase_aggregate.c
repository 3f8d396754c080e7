/*
 * split_two_phase_aggregate.c - two-phase group aggregation (Flink's
 * TwoStageOptimizedAggregateRule), on the derived physical plan, when
 * table.exec.mini-batch.enabled is on and table.optimizer.agg-phase-strategy
 * is not ONE_PHASE (AUTO, Flink's default, or TWO_PHASE).
 *
 * A mini-batch GroupAggregate over a hash (or single) Exchange whose calls
 * all merge (plan_aggregate_can_merge: COUNT(*), COUNT, SUM, AVG, MIN /
 * MAX over an insert-only input, a user-defined function with merge; no
 * DISTINCT) becomes
 *
 *     GlobalGroupAggregate(keys = the first fields)
 *     +- Exchange(hash[the keys])
 *        +- LocalGroupAggregate(the aggregate's keys and calls)
 *           +- the Exchange's input
 *
 * so a hot key is folded per batch before the shuffle: one partial row per
 * key and batch crosses the exchange and reaches the global state. Other
 * aggregates keep one phase (Flink also runs DISTINCT, LISTAGG, COLLECT and
 * MIN / MAX over retractions in two phases with map accumulators, which
 * joinery does not build). The GroupAggregate node becomes the global one
 * in place (its id, fields, TTL and mini-batch size stay); the caller
 * derives the plan's properties again afterwards.
 */
#include "engine/plan/nodes/nodes.h"
#include "engine/udf/udf.h"
#include "engine/plan/rules/rules.h"

enum { TWO_PHASE_MAX_DEPTH = 1000 };

/* The type of call `call`'s partial value field (aggregate_function.h's value). */
static DataType partial_value_type(const PlanAggregateCall *call, const PlanNode *input)
{
    switch (call->kind) {
    case PLAN_AGGREGATE_SUM:
    case PLAN_AGGREGATE_SUM0:
    case PLAN_AGGREGATE_AVG: {
        TypeId argument = input->fields[call->argument].type.id;
        return type_make(
            argument == TYPE_FLOAT || argument == TYPE_DOUBLE ? TYPE_DOUBLE : TYPE_BIGINT, true);
    }
    case PLAN_AGGREGATE_MIN:
    case PLAN_AGGREGATE_MAX: {
        DataType type = input->fields[call->argument].type;
        type.nullable = true;
        return type;
    }
    case PLAN_AGGREGATE_USER_DEFINED: /* the function's accumulator bytes */
        return type_make_binary(TYPE_VARBINARY, (int32_t)call->udf->descriptor->accumulator_size,
                                true);
    default:
        return type_make(TYPE_BIGINT, true);
    }
}

static int two_phase_split(PlannerContext *context, PlanNode *node)
{
    Arena *arena = context->arena;
    PlanNode *input = node->inputs[0]->inputs[0];
    uint32_t key_count = node->aggregate.group_key_count;
    uint32_t call_count = node->aggregate.call_count;
    PlanNode *local =
        physical_new_node(context, PLAN_LOCAL_GROUP_AGGREGATE, 1, key_count + 1 + 2 * call_count);
    uint32_t *keys = arena_calloc(arena, key_count + 1, sizeof(uint32_t));
    if (!local || !keys)
        return JOINERY_ERROR_NO_MEMORY;
    local->inputs[0] = input;
    local->aggregate = node->aggregate;
    for (uint32_t k = 0; k < key_count; k++) {
        local->fields[k] = input->fields[node->aggregate.group_keys[k]];
        keys[k] = k;
    }
    local->fields[key_count] = (PlanField){"count1$", type_make(TYPE_BIGINT, false)};
    for (uint32_t i = 0; i < call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        char *value_name = arena_printf(arena, "value$%u", i);
        char *count_name = arena_printf(arena, "count$%u", i);
        if (!value_name || !count_name)
            return JOINERY_ERROR_NO_MEMORY;
        local->fields[key_count + 1 + 2 * i] =
            (PlanField){value_name, partial_value_type(call, input)};
        local->fields[key_count + 2 + 2 * i] =
            (PlanField){count_name, type_make(TYPE_BIGINT, false)};
    }
    PlanNode *exchange = plan_make_exchange(context, local, keys, key_count);
    if (!exchange)
        return JOINERY_ERROR_NO_MEMORY;
    node->kind = PLAN_GLOBAL_GROUP_AGGREGATE;
    node->inputs[0] = exchange;
    node->aggregate.group_keys = keys;
    return JOINERY_OK;
}

static int two_phase_walk(PlannerContext *context, PlanNode *node, int depth)
{
    if (depth > TWO_PHASE_MAX_DEPTH)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE, "query is nested too deeply");
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = two_phase_walk(context, node->inputs[i], depth + 1);
        if (status != JOINERY_OK)
            return status;
    }
    if (node->kind != PLAN_GROUP_AGGREGATE || node->aggregate.mini_batch_size <= 0 ||
        node->inputs[0]->kind != PLAN_EXCHANGE)
        return JOINERY_OK;
    const PlanNode *input = node->inputs[0]->inputs[0];
    if (!plan_aggregate_can_merge(node, input->changelog_mode != CHANGELOG_INSERT))
        return JOINERY_OK;
    return two_phase_split(context, node);
}

int rule_split_two_phase_aggregate(PlannerContext *context, PlanNode **physical)
{
    if (!context->config->mini_batch_enabled ||
        context->config->agg_phase == PLAN_AGG_PHASE_ONE_PHASE)
        return JOINERY_OK;
    return two_phase_walk(context, *physical, 0);
}
