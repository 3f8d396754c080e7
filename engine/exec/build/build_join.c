/* build_join.c - the regular Join (see build.h) and its SHOW JOB METRICS line in mini-batch
   mode. */
#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_join.h"

Operator *build_join(BuildContext *context, const PlanNode *node)
{
    JoinOperatorSpec *spec = arena_calloc(context->arena, 1, sizeof *spec);
    if (!spec)
        return NULL;
    spec->join_type = node->join.join_type;
    spec->left_field_count = node->inputs[0]->field_count;
    spec->right_field_count = node->inputs[1]->field_count;
    spec->left_types = build_field_types(context->arena, node->inputs[0]);
    spec->right_types = build_field_types(context->arena, node->inputs[1]);
    spec->left_keys = node->join.left_keys;
    spec->right_keys = node->join.right_keys;
    spec->key_count = node->join.key_count;
    spec->null_safe_keys = node->join.null_safe;
    spec->residual = node->join.residual;
    spec->left_input_spec = node->join.left_spec;
    spec->right_input_spec = node->join.right_spec;
    spec->left_ttl_millis = node->state_ttl_millis;
    spec->right_ttl_millis = node->state_ttl_right_millis;
    if (!spec->left_types || !spec->right_types)
        return NULL;
    spec->mini_batch_size = node->join.mini_batch_size;
    spec->upsert_input[0] = node->join.upsert_left;
    spec->upsert_input[1] = node->join.upsert_right;
    return join_operator_create(spec, context->diag);
}

void build_format_mini_batch_metrics(StrBuf *out, uint64_t folded_rows,
                                     const uint64_t *state_accesses)
{
    strbuf_printf(out, "%-4s   mini-batch: %llu rows folded (cancelled in pairs before the state)",
                  "", (unsigned long long)folded_rows);
    if (state_accesses)
        strbuf_printf(out, ", %llu state accesses", (unsigned long long)*state_accesses);
    strbuf_append_cstr(out, "\n");
}

void build_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                        StrBuf *out)
{
    if (node->join.mini_batch_size <= 0)
        return;
    uint64_t accesses = 0, folded = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t part_accesses, part_folded;
        join_operator_mini_batch_counts(subtasks[i], &part_accesses, &part_folded);
        accesses += part_accesses;
        folded += part_folded;
    }
    build_format_mini_batch_metrics(out, folded, &accesses);
}
