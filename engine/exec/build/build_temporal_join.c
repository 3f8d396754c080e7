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
