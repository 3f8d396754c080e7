/*
 * assign_mini_batch.c - mini-batch planning on the physical plan (Flink's
 * MiniBatchIntervalInferRule and the mini-batch choices of its exec nodes),
 * run by plan_optimize after physical planning when
 * table.exec.mini-batch.enabled is on.
 *
 * Placement: the interval (table.exec.mini-batch.allow-latency, ProcTime
 * mode) flows from the root to the leaves; below an operator that needs
 * watermarks (an event-time IntervalJoin, a window table function, a
 * WindowJoin, a WindowAggregate) it becomes RowTime mode; below a legacy
 * GroupWindowAggregate there is none (Flink's NO_MINIBATCH). A
 * MiniBatchAssigner goes right above every TableSourceScan, and in RowTime
 * mode above every WatermarkAssigner (whose scan then gets none); in
 * ProcTime mode a WatermarkAssigner's subtree gets none, as in Flink.
 *
 * Operators: a GroupAggregate runs as Flink's MiniBatchGroupAggFunction
 * (aggregate.mini_batch_size set), a regular Join as Flink 1.19's
 * MiniBatchStreamingJoinOperator (join.mini_batch_size; EXPLAIN prints it
 * as a plain Join, as Flink); rules/split_two_phase_aggregate.c then splits
 * the aggregates whose calls merge into LocalGroupAggregate /
 * GlobalGroupAggregate unless table.optimizer.agg-phase-strategy is
 * ONE_PHASE; a ChangelogNormalize and a Deduplicate run as Flink's mini-batch forms
 * (exchange.mini_batch_size: each key's last row of a batch; rank.mini_batch_size: its
 * first or last row on processing time, its rows key by key on event time).
 * A MultiJoin folds each input's batch as the mini-batch join folds a side's
 * (multi_join.mini_batch_size: joinery's extension, Flink's MultiJoin runs row
 * by row; EXPLAIN prints it unchanged). IntervalJoin, WindowAggregate and
 * GroupWindowAggregate run as they do without mini-batch (Flink has no
 * mini-batch form of them). Errors: the option checks
 * Flink makes, with its messages (latency and size must be > 0).
 */
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"

enum { MINI_BATCH_MAX_DEPTH = 1000 };

/* Flink's message for a mini-batch operator without a size. */
static int mini_batch_size_error(PlannerContext *context)
{
    return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                      "Key: 'table.exec.mini-batch.size' , default: -1 (fallback keys: []) must "
                      "be > 0.");
}

/* A MiniBatchAssigner over `input`; NULL on no memory. */
static PlanNode *mini_batch_over(PlannerContext *context, PlanNode *input, bool rowtime)
{
    PlanNode *assigner = physical_new_node(context, PLAN_MINI_BATCH_ASSIGNER, 1, 0);
    if (!assigner)
        return NULL;
    assigner->inputs[0] = input;
    assigner->fields = input->fields;
    assigner->field_count = input->field_count;
    assigner->mini_batch.interval_millis = context->config->mini_batch_latency_millis;
    assigner->mini_batch.rowtime = rowtime;
    return assigner;
}

/* Rewrites `*slot` (a physical subtree) in place; rowtime: an event-time operator is above. */
static int mini_batch_walk(PlannerContext *context, PlanNode **slot, bool rowtime, int depth)
{
    PlanNode *node = *slot;
    if (depth > MINI_BATCH_MAX_DEPTH)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE, "query is nested too deeply");
    switch (node->kind) {
    case PLAN_MINI_BATCH_ASSIGNER: /* a subtree shared by two parents, seen again */
        return JOINERY_OK;
    case PLAN_TABLE_SOURCE_SCAN:
        *slot = mini_batch_over(context, node, rowtime);
        return *slot ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    case PLAN_WATERMARK_ASSIGNER:
        if (!rowtime)
            return JOINERY_OK;
        *slot = mini_batch_over(context, node, true);
        return *slot ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    case PLAN_GROUP_AGGREGATE:
        if (context->config->mini_batch_size <= 0)
            return mini_batch_size_error(context);
        node->aggregate.mini_batch_size = context->config->mini_batch_size;
        break;
    case PLAN_JOIN:
        if (context->config->mini_batch_size <= 0)
            return mini_batch_size_error(context);
        /* a semi / anti join runs row by row also with mini-batch on, as Flink's
           StreamingSemiAntiJoinOperator */
        if (join_type_emits_right(node->join.join_type))
            node->join.mini_batch_size = context->config->mini_batch_size;
        break;
    case PLAN_MULTI_JOIN: {
        /* joinery's extension (Flink's MultiJoin runs row by row): each input's batch
           folded as the mini-batch join folds a side's; EXPLAIN prints it unchanged */
        if (context->config->mini_batch_size <= 0)
            return mini_batch_size_error(context);
        bool upsert = false;
        for (uint32_t i = 0; node->multi_join.upsert_inputs && i < node->input_count; i++)
            upsert = upsert || node->multi_join.upsert_inputs[i];
        if (!upsert)
            node->multi_join.mini_batch_size = context->config->mini_batch_size;
        break;
    }
    case PLAN_DEDUPLICATE:
        /* Flink's mini-batch forms (the key's first / last row of a batch on processing
           time; every row, key by key, on event time) */
        if (context->config->mini_batch_size <= 0)
            return mini_batch_size_error(context);
        node->rank.mini_batch_size = context->config->mini_batch_size;
        break;
    case PLAN_TEMPORAL_JOIN: /* event time only */
        rowtime = true;
        break;
    case PLAN_CHANGELOG_NORMALIZE:
        /* Flink's mini-batch form: each key's last row of a batch */
        if (context->config->mini_batch_size <= 0)
            return mini_batch_size_error(context);
        node->exchange.mini_batch_size = context->config->mini_batch_size;
        break;
    case PLAN_INTERVAL_JOIN:
        rowtime = rowtime || node->join.interval.rowtime;
        break;
    case PLAN_WINDOW_TABLE_FUNCTION: /* windows run on event time only (so far) */
    case PLAN_SESSION_WINDOW_TABLE_FUNCTION:
    case PLAN_WINDOW_JOIN:
    case PLAN_WINDOW_AGGREGATE: /* runs as without mini-batch (Flink has no mini-batch form) */
        rowtime = true;
        break;
    case PLAN_GROUP_WINDOW_AGGREGATE:
        /* Flink's NO_MINIBATCH: no assigner below a legacy group window, which runs row by
           row as without mini-batch */
        return JOINERY_OK;
    default:
        break;
    }
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = mini_batch_walk(context, &node->inputs[i], rowtime, depth + 1);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

int rule_assign_mini_batch(PlannerContext *context, PlanNode **physical)
{
    if (!context->config->mini_batch_enabled)
        return JOINERY_OK;
    if (context->config->mini_batch_latency_millis <= 0)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "MiniBatch Latency must be greater than 0 ms.");
    return mini_batch_walk(context, physical, false, 0);
}
