/* build_window_join.c - WindowJoin and its SHOW JOB METRICS lines (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_window_join.h"

Operator *build_window_join(BuildContext *context, const PlanNode *node)
{
    WindowJoinOperatorSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->join_type = node->window_join.join_type;
    spec->left_field_count = node->inputs[0]->field_count;
    spec->right_field_count = node->inputs[1]->field_count;
    spec->left_types = build_field_types(context->arena, node->inputs[0]);
    spec->right_types = build_field_types(context->arena, node->inputs[1]);
    if (!spec->left_types || !spec->right_types)
        return NULL;
    spec->left_keys = node->window_join.left_keys;
    spec->right_keys = node->window_join.right_keys;
    spec->key_count = node->window_join.key_count;
    spec->null_safe_keys = node->window_join.null_safe;
    spec->residual = node->window_join.residual;
    spec->left_window_end = node->window_join.left_window_end;
    spec->right_window_end = node->window_join.right_window_end;
    return window_join_operator_create(spec, context->diag);
}

void build_window_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                               StrBuf *out)
{
    (void)node;
    static const char *const names[2] = {"leftNumLateRecordsDropped", "rightNumLateRecordsDropped"};
    for (uint32_t side = 0; side < 2; side++) {
        uint64_t late = 0;
        for (uint32_t i = 0; i < count; i++)
            late += window_join_operator_late_rows(subtasks[i], side);
        strbuf_printf(out, "%-4s   %s %llu\n", "", names[side], (unsigned long long)late);
    }
}
