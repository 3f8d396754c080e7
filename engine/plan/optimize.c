/*
 * optimize.c - the optimizer: a fixed sequence of rule passes over the
 * logical plan, then physical planning and property derivation.
 */
#include "engine/plan/physical.h"
#include "engine/plan/rules/rules.h"

int plan_optimize(PlannerContext *context, PlanNode *logical, PlanNode **physical)
{
    PlanNode *node = logical;
    int status = rule_push_filters(context, node, &node);
    if (status == JOINERY_OK && context->config->join_reorder_enabled)
        status = rule_reorder_joins(context, node, &node);
    if (status == JOINERY_OK)
        status = rule_prune_fields(context, node, &node);
    if (status == JOINERY_OK && context->config->distinct_split_enabled)
        status = rule_split_distinct_aggregate(context, node, &node);
    if (status == JOINERY_OK)
        status = rule_push_watermark(context, node, &node);
    if (status == JOINERY_OK && (context->multi_join_hinted || context->config->multi_join_enabled))
        status = rule_fuse_multi_join(context, node, &node);
    if (status == JOINERY_OK)
        status = plan_to_physical(context, node, physical);
    if (status == JOINERY_OK)
        status = rule_assign_mini_batch(context, physical);
    if (status == JOINERY_OK)
        status = plan_derive_properties(context, *physical);
    if (status == JOINERY_OK && !context->config->mini_batch_enabled &&
        !context->config->batch_mode) {
        PlanNode *before = *physical;
        status = rule_drop_changelog_normalize(context, physical);
        if (status == JOINERY_OK && *physical != before)
            status = plan_derive_properties(context, *physical);
    }
    /* two phases are chosen by the aggregates' input changelogs: after a derivation, and
       derived again once split */
    if (status == JOINERY_OK && context->config->mini_batch_enabled &&
        context->config->agg_phase != PLAN_AGG_PHASE_ONE_PHASE) {
        status = rule_split_two_phase_aggregate(context, physical);
        if (status == JOINERY_OK)
            status = plan_derive_properties(context, *physical);
    }
    return status;
}
