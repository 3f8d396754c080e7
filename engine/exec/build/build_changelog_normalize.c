/* build_changelog_normalize.c - ChangelogNormalize, keyed by its exchange keys (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_changelog_normalize.h"

Operator *build_changelog_normalize(BuildContext *context, const PlanNode *node)
{
    ChangelogNormalizeSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->field_count = node->field_count;
    spec->types = build_field_types(context->arena, node);
    spec->key_fields = node->exchange.keys;
    spec->key_count = node->exchange.key_count;
    spec->ttl_millis = node->state_ttl_millis;
    spec->mini_batch_size = node->exchange.mini_batch_size;
    if (!spec->types)
        return NULL;
    return changelog_normalize_operator_create(spec, context->diag);
}
