/*
 * split_distinct_aggregate.c - Flink's SplitAggregateRule, on the logical
 * plan, when table.optimizer.distinct-agg.split.enabled is on: a GROUP BY
 * with DISTINCT calls becomes two aggregates, so a hot group key's distinct
 * values spread over table.optimizer.distinct-agg.split.bucket-num (1024)
 * buckets:
 *
 *     LogicalAggregate(keys, finals)               partialFinalType FINAL
 *     +- LogicalAggregate(keys, $fN, partials)     partialFinalType PARTIAL
 *        +- LogicalProject(input..., MOD(HASH_CODE(d), buckets) AS $fN)
 *           +- input
 *
 * where d is the distinct calls' argument. The partial aggregate keeps the
 * calls (COUNT(DISTINCT d) per key and bucket: each distinct value lives in
 * one bucket, so the buckets' distinct counts add up); the final one sums
 * them: COUNT(*), COUNT and COUNT(DISTINCT) become $SUM0 of the partial
 * counts, SUM and SUM(DISTINCT) SUM, MIN / MAX (DISTINCT or not) MIN / MAX.
 * The partial calls are named as Calcite names them ($f<position>, "_0"
 * when a key has that name); the final aggregate keeps the fields of the
 * aggregate it replaces (Flink names them $f<position> and drops the
 * renaming projection; joinery keeps the query's names so the result's
 * columns are the query's).
 *
 * Not split yet (refused with a message, not run unsplit): DISTINCT over
 * more than one argument (Flink's Expand), AVG, LISTAGG, FIRST_VALUE,
 * LAST_VALUE, COLLECT, ARRAY_AGG beside a DISTINCT call, and mini-batch
 * two-phase aggregation (Flink's IncrementalGroupAggregate). Window
 * aggregates are left alone.
 */
#include <string.h>

#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"
#include "engine/udf/udf.h"

enum { SPLIT_MAX_DEPTH = 1000 };

static int split_refuse(PlannerContext *context, const char *what)
{
    return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                      "%s is not supported yet with 'table.optimizer.distinct-agg.split.enabled' "
                      "= 'true'",
                      what);
}

static bool has_distinct(const PlanNode *node)
{
    for (uint32_t i = 0; i < node->aggregate.call_count; i++)
        if (node->aggregate.calls[i].distinct)
            return true;
    return false;
}

/* JOINERY_OK when `node`'s calls split; *argument: the distinct calls' argument. */
static int split_check(PlannerContext *context, const PlanNode *node, uint32_t *argument)
{
    bool found = false;
    for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
        const PlanAggregateCall *call = &node->aggregate.calls[i];
        switch (call->kind) {
        case PLAN_AGGREGATE_COUNT_STAR:
        case PLAN_AGGREGATE_COUNT:
        case PLAN_AGGREGATE_SUM:
        case PLAN_AGGREGATE_MIN:
        case PLAN_AGGREGATE_MAX:
            break;
        case PLAN_AGGREGATE_USER_DEFINED: {
            const char *what = arena_printf(context->arena,
                                            "A DISTINCT aggregate beside the user-defined "
                                            "aggregate function '%s'",
                                            call->udf->name);
            return split_refuse(context, what ? what : "A user-defined aggregate function");
        }
        default:
            return split_refuse(context, "a DISTINCT aggregate beside AVG, LISTAGG, FIRST_VALUE, "
                                         "LAST_VALUE, COLLECT or ARRAY_AGG");
        }
        if (!call->distinct)
            continue;
        if (found && call->argument != *argument)
            return split_refuse(context, "DISTINCT aggregates over more than one argument "
                                         "(Flink's Expand)");
        *argument = call->argument;
        found = true;
    }
    if (context->config->distinct_split_buckets <= 0 ||
        context->config->distinct_split_buckets > INT32_MAX)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "'table.optimizer.distinct-agg.split.bucket-num' must be greater than 0 "
                          "(an INT)");
    return JOINERY_OK;
}

static PlanNode *split_new_node(PlannerContext *context, PlanKind kind, uint32_t inputs,
                                uint32_t fields)
{
    PlanNode *node = plan_node_new(context->arena, kind, inputs, fields);
    if (node)
        node->id = ++context->next_node_id;
    return node;
}

/* input ++ MOD(HASH_CODE(argument), buckets) AS $f<n> */
static PlanNode *split_bucket_project(PlannerContext *context, PlanNode *input, uint32_t argument)
{
    Arena *arena = context->arena;
    uint32_t count = input->field_count;
    PlanNode *project = split_new_node(context, PLAN_LOGICAL_PROJECT, 1, count + 1);
    Expr **projects = arena_calloc(arena, count + 2, sizeof(Expr *));
    if (!project || !projects)
        return NULL;
    for (uint32_t i = 0; i < count; i++) {
        projects[i] = expr_make_input_ref(arena, i, input->fields[i].type);
        project->fields[i] = input->fields[i];
    }
    Expr *value = expr_make_input_ref(arena, argument, input->fields[argument].type);
    Expr *hash =
        value ? function_resolve(arena, NULL, FUNCTION_HASH_CODE, &value, 1, context->diag) : NULL;
    Expr *buckets = expr_make_literal(arena, type_make(TYPE_INT, false),
                                      value_int(context->config->distinct_split_buckets));
    Expr *mod_args[2] = {hash, buckets};
    Expr *bucket = hash && buckets
                       ? function_resolve(arena, "MOD", FUNCTION_MOD, mod_args, 2, context->diag)
                       : NULL;
    char *name = arena_printf(arena, "$f%u", count);
    if (!bucket || !name)
        return NULL;
    projects[count] = bucket;
    project->fields[count] = (PlanField){name, bucket->type};
    project->inputs[0] = input;
    project->calc.projects = projects;
    project->calc.project_count = count + 1;
    return project;
}

/* Calcite's name of a computed field at `position`: $f<position>, "_0" on a clash. */
static char *split_field_name(Arena *arena, const PlanNode *node, uint32_t position, uint32_t named)
{
    char *name = arena_printf(arena, "$f%u", position);
    for (uint32_t i = 0; name && i < named; i++)
        if (strcmp(node->fields[i].name, name) == 0)
            return arena_printf(arena, "$f%u_0", position);
    return name;
}

static int split_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    Arena *arena = context->arena;
    uint32_t argument = 0;
    int status = split_check(context, node, &argument);
    if (status != JOINERY_OK)
        return status;
    PlanNode *project = split_bucket_project(context, node->inputs[0], argument);
    if (!project)
        return context->diag->status != JOINERY_OK ? context->diag->status
                                                   : JOINERY_ERROR_NO_MEMORY;
    uint32_t bucket = project->field_count - 1;
    uint32_t key_count = node->aggregate.group_key_count;
    uint32_t call_count = node->aggregate.call_count;
    /* the partial aggregate: by the keys and the bucket, the calls as they are */
    PlanNode *partial =
        split_new_node(context, PLAN_LOGICAL_AGGREGATE, 1, key_count + 1 + call_count);
    uint32_t *partial_keys = arena_calloc(arena, key_count + 2, sizeof(uint32_t));
    PlanAggregateCall *partial_calls =
        arena_calloc(arena, call_count + 1, sizeof(PlanAggregateCall));
    if (!partial || !partial_keys || !partial_calls)
        return JOINERY_ERROR_NO_MEMORY;
    partial->inputs[0] = project;
    partial->aggregate = node->aggregate;
    for (uint32_t k = 0; k < key_count; k++) {
        partial_keys[k] = node->aggregate.group_keys[k];
        partial->fields[k] = project->fields[partial_keys[k]];
    }
    partial_keys[key_count] = bucket;
    partial->fields[key_count] = project->fields[bucket];
    for (uint32_t i = 0; i < call_count; i++) {
        PlanAggregateCall *call = &partial_calls[i];
        *call = node->aggregate.calls[i];
        if (call->kind == PLAN_AGGREGATE_COUNT || call->kind == PLAN_AGGREGATE_COUNT_STAR)
            call->result_type = type_make(TYPE_BIGINT, false);
        uint32_t position = key_count + 1 + i;
        call->name = split_field_name(arena, partial, position, key_count + 1);
        if (!call->name)
            return JOINERY_ERROR_NO_MEMORY;
        partial->fields[position] = (PlanField){call->name, call->result_type};
    }
    partial->aggregate.group_keys = partial_keys;
    partial->aggregate.group_key_count = key_count + 1;
    partial->aggregate.calls = partial_calls;
    partial->aggregate.partial_final = PLAN_PARTIAL_FINAL_PARTIAL;
    partial->state_ttl_millis = node->state_ttl_millis;
    partial->ttl_from_hint = node->ttl_from_hint;
    /* the final aggregate: by the keys, the partial results summed (or their extremes) */
    PlanNode *final = plan_node_copy(arena, node);
    uint32_t *final_keys = arena_calloc(arena, key_count + 1, sizeof(uint32_t));
    PlanAggregateCall *final_calls = arena_calloc(arena, call_count + 1, sizeof(PlanAggregateCall));
    if (!final || !final_keys || !final_calls)
        return JOINERY_ERROR_NO_MEMORY;
    final->inputs[0] = partial;
    for (uint32_t k = 0; k < key_count; k++)
        final_keys[k] = k;
    for (uint32_t i = 0; i < call_count; i++) {
        PlanAggregateCall *call = &final_calls[i];
        *call = node->aggregate.calls[i];
        if (call->kind == PLAN_AGGREGATE_COUNT || call->kind == PLAN_AGGREGATE_COUNT_STAR)
            call->kind = PLAN_AGGREGATE_SUM0;
        call->distinct = false;
        call->argument = key_count + 1 + i;
        call->has_separator = false;
        call->has_filter = false; /* the partial call read only the filtered rows */
    }
    final->aggregate.group_keys = final_keys;
    final->aggregate.calls = final_calls;
    final->aggregate.partial_final = PLAN_PARTIAL_FINAL_FINAL;
    *result = final;
    return JOINERY_OK;
}

static int split_walk(PlannerContext *context, PlanNode *node, PlanNode **result, int depth)
{
    *result = node;
    if (depth > SPLIT_MAX_DEPTH)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE, "query is nested too deeply");
    PlanNode *copy = NULL;
    for (uint32_t i = 0; i < node->input_count; i++) {
        PlanNode *input;
        int status = split_walk(context, node->inputs[i], &input, depth + 1);
        if (status != JOINERY_OK)
            return status;
        if (input == node->inputs[i])
            continue;
        if (!copy && !(copy = plan_node_copy(context->arena, node)))
            return JOINERY_ERROR_NO_MEMORY;
        copy->inputs[i] = input;
    }
    if (copy)
        node = *result = copy;
    if (node->kind != PLAN_LOGICAL_AGGREGATE || !has_distinct(node) ||
        node->aggregate.partial_final != PLAN_PARTIAL_FINAL_NONE ||
        plan_aggregate_is_windowed(node))
        return JOINERY_OK;
    if (context->config->mini_batch_enabled &&
        context->config->agg_phase != PLAN_AGG_PHASE_ONE_PHASE)
        return split_refuse(context, "two-phase aggregation of a split distinct aggregate "
                                     "(Flink's IncrementalGroupAggregate; set "
                                     "'table.optimizer.agg-phase-strategy' = 'ONE_PHASE')");
    return split_aggregate(context, node, result);
}

int rule_split_distinct_aggregate(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    int status = split_walk(context, node, result, 0);
    if (status == JOINERY_ERROR_NO_MEMORY && context->diag->status == JOINERY_OK)
        return diag_error(context->diag, status, "out of memory");
    return status;
}
