/* build_temporal_join.c - TemporalJoin, keyed by its equi keys (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_temporal_join.h"

Operator *build_temporal_join(BuildContext *context, const PlanNode *node)
{
    TemporalJoinSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->join_type = node->temporal.join_type;
    spec->left_field_count = node->inputs[0]->field_count;
    spec->right_field_count = node->inputs[1]->field_count;
    spec->left_types = build_field_types(context->arena, node->inputs[0]);
    spec->right_types = build_field_types(context->arena, node->inputs[1]);
    if (!spec->left_types || !spec->right_types)
        return NULL;
    spec->left_keys = node->temporal.left_keys;
    spec->right_keys = node->temporal.right_keys;
    spec->key_count = node->temporal.key_count;
    spec->left_time_field = node->temporal.period_field;
    spec->right_time_field = node->temporal.right_time_field;
    spec->residual = node->temporal.residual;
    return temporal_join_operator_create(spec, context->diag);
}

void build_temporal_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                                 StrBuf *out)
{
    (void)node;
    static const char *const labels[2] = {"  probe rows waiting", "  versions kept"};
    for (uint32_t side = 0; side < 2; side++) {
        uint64_t bytes = 0, keys = 0, rows = 0;
        for (uint32_t i = 0; i < count; i++) {
            uint64_t part_bytes, part_keys, part_rows;
            temporal_join_operator_side_state(subtasks[i], side, &part_bytes, &part_keys,
                                              &part_rows);
            bytes += part_bytes;
            keys += part_keys;
            rows += part_rows;
        }
        strbuf_printf(out, "%-4s %-22s %8s %12s %12s %10llu %10llu %12llu %10s\n", "", labels[side],
                      "", "", "", (unsigned long long)rows, (unsigned long long)keys,
                      (unsigned long long)bytes, "");
    }
}
