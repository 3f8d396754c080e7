/*
 * build_multi_join.c - MultiJoin (see build.h), and its SHOW JOB METRICS
 * lines per input.
 *
 * A MultiJoin of two inputs keeps the same state as a binary join (both
 * inputs, nothing in between), and the binary join operator runs it faster
 * (batched lookups with prefetching): the plan keeps Flink's MultiJoin node,
 * the job runs a Join. Its key is the common key; its residual is the whole
 * condition, so a key equality written with IS NOT DISTINCT FROM makes the
 * keys null-safe and a plain one is still checked (NULL keys never match).
 */
#include <stdio.h>

#include "engine/exec/build/build.h"
#include "engine/exec/ops/op_join.h"
#include "engine/exec/ops/op_multi_join.h"

static Operator *build_two_input_multi_join(BuildContext *context, const PlanNode *node)
{
    Arena *arena = context->arena;
    JoinOperatorSpec *spec = arena_calloc(arena, 1, sizeof *spec);
    uint32_t key_count = node->multi_join.common_key_count;
    bool *null_safe = arena_calloc(arena, key_count + 1, sizeof(bool));
    if (!spec || !null_safe)
        return NULL;
    const Expr *condition = node->multi_join.conditions[1];
    bool any_null_safe = expr_calls(condition, FUNCTION_IS_NOT_DISTINCT_FROM);
    for (uint32_t k = 0; k < key_count; k++)
        null_safe[k] = any_null_safe;
    spec->join_type = node->multi_join.join_types[1];
    spec->left_field_count = node->inputs[0]->field_count;
    spec->right_field_count = node->inputs[1]->field_count;
    spec->left_types = build_field_types(arena, node->inputs[0]);
    spec->right_types = build_field_types(arena, node->inputs[1]);
    spec->left_keys = node->multi_join.key_fields[0];
    spec->right_keys = node->multi_join.key_fields[1];
    spec->key_count = key_count;
    spec->null_safe_keys = null_safe;
    spec->residual = condition;
    spec->left_input_spec =
        node->inputs[0]->unique_key_count ? JOIN_INPUT_HAS_UNIQUE_KEY : JOIN_INPUT_NO_UNIQUE_KEY;
    spec->right_input_spec =
        node->inputs[1]->unique_key_count ? JOIN_INPUT_HAS_UNIQUE_KEY : JOIN_INPUT_NO_UNIQUE_KEY;
    spec->left_ttl_millis = node->multi_join.ttl_millis[0];
    spec->right_ttl_millis = node->multi_join.ttl_millis[1];
    spec->mini_batch_size = node->multi_join.mini_batch_size;
    if (node->multi_join.upsert_inputs) {
        spec->upsert_input[0] = node->multi_join.upsert_inputs[0];
        spec->upsert_input[1] = node->multi_join.upsert_inputs[1];
    }
    if (!spec->left_types || !spec->right_types)
        return NULL;
    return join_operator_create(spec, context->diag);
}

Operator *build_multi_join(BuildContext *context, const PlanNode *node)
{
    uint32_t count = node->input_count;
    if (count == 2)
        return build_two_input_multi_join(context, node);
    Arena *arena = context->arena;
    MultiJoinSpec *spec = arena_calloc(arena, 1, sizeof *spec);
    MultiJoinInputSpec *inputs = arena_calloc(arena, count, sizeof *inputs);
    if (!spec || !inputs)
        return NULL;
    for (uint32_t i = 0; i < count; i++) {
        const PlanNode *input = node->inputs[i];
        inputs[i].field_count = input->field_count;
        inputs[i].types = build_field_types(arena, input);
        if (!inputs[i].types)
            return NULL;
        inputs[i].common_key_fields = node->multi_join.key_fields[i];
        inputs[i].ttl_millis = node->multi_join.ttl_millis[i];
        inputs[i].upsert = node->multi_join.upsert_inputs && node->multi_join.upsert_inputs[i];
        if (input->unique_key_count) {
            inputs[i].has_unique_key = true;
            inputs[i].unique_key_fields = input->unique_keys[0].fields;
            inputs[i].unique_key_count = input->unique_keys[0].count;
        }
    }
    spec->input_count = count;
    spec->inputs = inputs;
    spec->common_key_count = node->multi_join.common_key_count;
    spec->join_types = node->multi_join.join_types;
    spec->conditions = (const Expr *const *)node->multi_join.conditions;
    spec->empty_result_pruning = context->multi_join_pruning;
    spec->mini_batch_size = node->multi_join.mini_batch_size;
    return multi_join_operator_create(spec, context->diag);
}

void build_multi_join_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                              StrBuf *out)
{
    for (uint32_t input = 0; input < node->input_count; input++) {
        uint64_t bytes = 0, keys = 0, rows = 0;
        for (uint32_t j = 0; j < count; j++) {
            uint64_t input_bytes, input_keys, input_rows;
            /* a two-input MultiJoin runs as a binary join (build_two_input_multi_join) */
            if (node->input_count == 2)
                join_operator_side_state(subtasks[j], input, &input_bytes, &input_keys,
                                         &input_rows);
            else
                multi_join_operator_input_state(subtasks[j], input, &input_bytes, &input_keys,
                                                &input_rows);
            bytes += input_bytes;
            keys += input_keys;
            rows += input_rows;
        }
        const char *name = node->multi_join.input_names[input];
        char label[64];
        snprintf(label, sizeof label, "  input %u%s%s", input, name ? " " : "", name ? name : "");
        strbuf_printf(out, "%-4s %-22s %8s %12s %12s %10llu %10llu %12llu %10s\n", "", label, "",
                      "", "", (unsigned long long)rows, (unsigned long long)keys,
                      (unsigned long long)bytes, "");
    }
    if (node->multi_join.mini_batch_size <= 0)
        return;
    uint64_t folded = 0, accesses = 0;
    for (uint32_t j = 0; j < count; j++) {
        if (node->input_count == 2) { /* run as a binary join: its counts */
            uint64_t part_accesses, part_folded;
            join_operator_mini_batch_counts(subtasks[j], &part_accesses, &part_folded);
            accesses += part_accesses;
            folded += part_folded;
        } else {
            folded += multi_join_operator_folded_rows(subtasks[j]);
        }
    }
    build_format_mini_batch_metrics(out, folded, node->input_count == 2 ? &accesses : NULL);
}
