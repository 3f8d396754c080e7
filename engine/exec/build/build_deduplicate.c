/* build_deduplicate.c - Deduplicate, keyed by its partition keys (see build.h). */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_deduplicate.h"

Operator *build_deduplicate(BuildContext *context, const PlanNode *node)
{
    DeduplicateSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->field_count = node->field_count;
    spec->types = build_field_types(context->arena, node);
    if (!spec->types)
        return NULL;
    spec->key_fields = node->rank.partition;
    spec->key_count = node->rank.partition_count;
    spec->time_field = node->rank.order_field;
    spec->processing_time = node->rank.proctime;
    spec->keep_last = node->rank.keep_last;
    spec->generate_update_before = node->rank.generate_update_before;
    spec->ttl_millis = node->state_ttl_millis;
    spec->mini_batch_size = node->rank.mini_batch_size;
    return deduplicate_operator_create(spec, context->diag);
}
