/* build_interval_join.c - the IntervalJoin (see build.h) and its SHOW JOB METRICS lines. */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_interval_join.h"

Operator *build_interval_join(BuildContext *context, const PlanNode *node)
{
    IntervalJoinOperatorSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    const PlanIntervalBounds *bounds = &node->join.interval;
    spec->join_type = node->join.join_type;
    spec->left_field_count = node->inputs[0]->field_count;
    spec->right_field_count = node->inputs[1]->field_count;
    spec->left_types = build_field_types(context->arena, node->inputs[0]);
    spec->right_types = build_field_types(context->arena, node->inputs[1]);
    if (!spec->left_types || !spec->right_types)
        return NULL;
    spec->left_keys = node->join.left_keys;
    spec->right_keys = node->join.right_keys;
    spec->key_count = node->join.key_count;
    spec->null_safe_keys = node->join.null_safe;
    spec->residual = node->join.residual;
    spec->rowtime = bounds->rowtime;
    spec->left_lower_bound = bounds->left_lower;
    spec->left_upper_bound = bounds->left_upper;
    spec->left_time_field = bounds->left_time;
    spec->right_time_field = bounds->right_time;
    spec->min_cleanup_interval = bounds->min_cleanup_millis;
    return interval_join_operator_create(spec, context->diag);
}

void build_interval_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                 StrBuf *out)
{
    (void)node;
    static const char *const labels[2] = {"  left input", "  right input"};
    for (uint32_t side = 0; side < 2; side++) {
        IntervalJoinSideMetrics total = {0, 0, 0, 0};
        for (uint32_t i = 0; i < count; i++) {
            IntervalJoinSideMetrics part = interval_join_operator_side_metrics(subtasks[i], side);
            total.rows += part.rows;
            total.keys += part.keys;
            total.bytes += part.bytes;
            total.late += part.late;
        }
        strbuf_printf(out, "%-4s %-22s %8s %12s %12s %10llu %10llu %12llu %10s   %llu late rows\n",
                      "", labels[side], "", "", "", (unsigned long long)total.rows,
                      (unsigned long long)total.keys, (unsigned long long)total.bytes, "",
                      (unsigned long long)total.late);
    }
}
