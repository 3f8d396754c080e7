/*
 * build_rank.c - Rank and SortLimit (a Rank without partition), keyed by
 * the partition fields (see build.h): the
 * strategy, range, ORDER BY and unique key of the plan node. RANK() and
 * DENSE_RANK() plan but do not run on streams, as in Flink (StreamExecRank):
 * refused here with Flink's message, as a SortLimit without FETCH (StreamExecSortLimit).
 */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_rank.h"

Operator *build_rank(BuildContext *context, const PlanNode *node)
{
    if (node->rank.function != PLAN_RANK_ROW_NUMBER) {
        diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                   "%s() on streaming table is not supported currently",
                   node->rank.function == PLAN_RANK_RANK ? "RANK" : "DENSE_RANK");
        return NULL;
    }
    if (node->rank.rank_end == INT64_MAX) {
        diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                   "FETCH is missed, which on streaming table is not supported currently.");
        return NULL;
    }
    const PlanNode *input = node->inputs[0];
    RankSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    RowOrderKey *sort =
        arena_calloc(context->arena, node->rank.order_count + 1, sizeof(RowOrderKey));
    if (!spec || !sort)
        return NULL;
    spec->field_count = input->field_count;
    spec->types = build_field_types(context->arena, input);
    if (!spec->types)
        return NULL;
    spec->partition_fields = node->rank.partition;
    spec->partition_count = node->rank.partition_count;
    for (uint32_t k = 0; k < node->rank.order_count; k++)
        sort[k] = (RowOrderKey){.field = node->rank.order_fields[k],
                                .descending = node->rank.order_descending[k],
                                .nulls_first = node->rank.order_nulls_first[k]};
    spec->sort_fields = sort;
    spec->sort_count = node->rank.order_count;
    spec->rank_start = node->rank.rank_start;
    spec->rank_end = node->rank.rank_end;
    spec->output_rank_number = node->rank.number_field != UINT32_MAX;
    spec->strategy = node->rank.strategy == PLAN_RANK_APPEND_FAST   ? RANK_STRATEGY_APPEND_FAST
                     : node->rank.strategy == PLAN_RANK_UPDATE_FAST ? RANK_STRATEGY_UPDATE_FAST
                                                                    : RANK_STRATEGY_RETRACT;
    spec->unique_key_fields = node->rank.unique_key;
    spec->unique_key_count = node->rank.unique_key_count;
    spec->generate_update_before = node->rank.generate_update_before;
    spec->ttl_millis = node->state_ttl_millis;
    return rank_operator_create(spec, context->diag);
}
