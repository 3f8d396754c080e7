/*
 * build_window_rank.c - WindowRank and WindowDeduplicate (one operator,
 * op_window_rank.c: a deduplication is rank 1 of 1, ties to the latest row
 * for LastRow) keyed by the partition fields, and their SHOW JOB METRICS
 * line (numLateRecordsDropped) (see build.h).
 */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_window_rank.h"

Operator *build_window_rank(BuildContext *context, const PlanNode *node)
{
    const PlanNode *input = node->inputs[0];
    WindowRankSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
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
    spec->window_end_field = node->rank.window_end_field;
    for (uint32_t k = 0; k < node->rank.order_count; k++)
        sort[k] = (RowOrderKey){.field = node->rank.order_fields[k],
                                .descending = node->rank.order_descending[k],
                                .nulls_first = node->rank.order_nulls_first[k]};
    spec->sort_fields = sort;
    spec->sort_count = node->rank.order_count;
    spec->rank_start = node->rank.rank_start;
    spec->rank_end = node->rank.rank_end;
    spec->output_rank_number = node->rank.number_field != UINT32_MAX;
    spec->ties_latest_first = node->kind == PLAN_WINDOW_DEDUPLICATE && node->rank.keep_last;
    return window_rank_operator_create(spec, context->diag);
}

void build_window_rank_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                               StrBuf *out)
{
    (void)node;
    uint64_t late = 0;
    for (uint32_t i = 0; i < count; i++)
        late += window_rank_operator_late_rows(subtasks[i]);
    strbuf_printf(out, "%-4s   numLateRecordsDropped %llu\n", "", (unsigned long long)late);
}
