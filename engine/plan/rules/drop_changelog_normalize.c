/*
 * drop_changelog_normalize.c - an upsert source fed straight to the join
 * that is keyed by its upsert key, without the ChangelogNormalize (and the
 * full copy of the table it keeps in state) under it, where Flink drops it
 * (its FlinkChangelogModeInferenceProgram: a join asks an input for
 * updates without UPDATE_BEFORE when the input's unique key holds the join
 * key and its own consumer takes upserts; MultiJoinTest.xml's plans).
 *
 * Runs on the derived physical plan, streaming mode without mini-batch,
 * from the root down with one flag, "the consumer takes upserts": true at a
 * collect sink (a SELECT, as Flink's plan tests) and at a sink with a
 * primary key; a Calc and an Exchange pass it on; a Join (inner or outer,
 * not semi / anti) passes it to an input whose unique key equals its join
 * key, a MultiJoin to an input whose unique key equals its common key;
 * every other node clears it. An input reached with the flag whose chain
 * is Exchange / Calc nodes without conditions over
 *   ChangelogNormalize -> Exchange(hash[key]) -> the scan
 * loses the ChangelogNormalize and the Exchange under it, and the join
 * marks the input as an upsert input (join.upsert_input /
 * multi_join.upsert_inputs): its operator keeps the input's one row per key
 * and turns each upsert into the retraction of the row it replaces and the
 * new row, so what the join emits is the same complete changelog as before
 * (the join's state already holds the row ChangelogNormalize kept).
 *
 * joinery drops it only where the unique key equals the join key (Flink
 * also where the join key is a part of a longer unique key: kept there).
 * Nodes on a changed path are copied, the rest shared; walks are bounded by
 * NORMALIZE_MAX_DEPTH. The caller derives the properties again.
 */
#include "engine/plan/nodes/nodes.h"
#include "engine/plan/rules/rules.h"

/* above the deepest plan a statement within SQL_MAX_DEPTH makes (each join level is a few
   nodes: Join, Exchange, Calc); check_limits' 1000-table join goes through */
enum { NORMALIZE_MAX_DEPTH = 10000 };

static int drop_walk(PlannerContext *context, PlanNode *node, bool upserts, int depth,
                     PlanNode **result);

/* True when `key` is exactly the fields `fields[0..count)` (in any order). */
static bool key_equals_fields(const PlanKey *key, const uint32_t *fields, uint32_t count)
{
    return key->count == count && plan_key_within(key, fields, count);
}

static bool unique_key_is(const PlanNode *input, const uint32_t *fields, uint32_t count)
{
    for (uint32_t i = 0; i < input->unique_key_count; i++)
        if (key_equals_fields(&input->unique_keys[i], fields, count))
            return true;
    return false;
}

/*
 * The input chain `node` (Exchange / condition-free Calc nodes over a ChangelogNormalize
 * over an Exchange) without the ChangelogNormalize and its Exchange: *result is the copy,
 * or NULL when the chain has another shape (nothing dropped).
 */
static int drop_in_chain(PlannerContext *context, PlanNode *node, int depth, PlanNode **result)
{
    *result = NULL;
    if (depth > NORMALIZE_MAX_DEPTH)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "the plan is nested too deeply (more than %d levels)",
                          NORMALIZE_MAX_DEPTH);
    if (node->kind == PLAN_CHANGELOG_NORMALIZE) {
        PlanNode *below = node->inputs[0];
        if (below->kind == PLAN_EXCHANGE)
            *result = below->inputs[0];
        return JOINERY_OK;
    }
    bool passes = node->kind == PLAN_EXCHANGE || (node->kind == PLAN_CALC && !node->calc.condition);
    if (!passes)
        return JOINERY_OK;
    PlanNode *input;
    int status = drop_in_chain(context, node->inputs[0], depth + 1, &input);
    if (status != JOINERY_OK || !input)
        return status;
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    copy->inputs[0] = input;
    *result = copy;
    return JOINERY_OK;
}

/* Input `i` of a join: dropped when `eligible`, else walked on with the flag cleared.
 *upsert tells which. */
static int drop_join_input(PlannerContext *context, PlanNode *input, bool eligible, int depth,
                           PlanNode **result, bool *upsert)
{
    *upsert = false;
    if (eligible) {
        PlanNode *dropped;
        int status = drop_in_chain(context, input, depth + 1, &dropped);
        if (status != JOINERY_OK)
            return status;
        if (dropped) {
            *upsert = true;
            /* below the scan nothing changes; above it the chain is new */
            *result = dropped;
            return JOINERY_OK;
        }
    }
    return drop_walk(context, input, false, depth + 1, result);
}

static int drop_walk(PlannerContext *context, PlanNode *node, bool upserts, int depth,
                     PlanNode **result)
{
    *result = node;
    if (depth > NORMALIZE_MAX_DEPTH)
        return diag_error(context->diag, JOINERY_ERROR_VALIDATE,
                          "the plan is nested too deeply (more than %d levels)",
                          NORMALIZE_MAX_DEPTH);
    PlanNode **inputs = arena_calloc(context->arena, node->input_count + 1, sizeof(PlanNode *));
    bool *upsert = arena_calloc(context->arena, node->input_count + 1, sizeof(bool));
    if (!inputs || !upsert)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    bool changed = false;
    for (uint32_t i = 0; i < node->input_count; i++) {
        PlanNode *input = node->inputs[i];
        int status;
        if (node->kind == PLAN_JOIN && join_type_emits_right(node->join.join_type)) {
            const uint32_t *keys = i == 0 ? node->join.left_keys : node->join.right_keys;
            bool eligible = upserts && unique_key_is(input, keys, node->join.key_count);
            status = drop_join_input(context, input, eligible, depth, &inputs[i], &upsert[i]);
        } else if (node->kind == PLAN_MULTI_JOIN) {
            bool eligible = upserts && unique_key_is(input, node->multi_join.key_fields[i],
                                                     node->multi_join.common_key_count);
            status = drop_join_input(context, input, eligible, depth, &inputs[i], &upsert[i]);
        } else {
            bool passes = (node->kind == PLAN_SINK &&
                           (!node->sink.table || node->sink.table->primary_key_count > 0)) ||
                          ((node->kind == PLAN_CALC || node->kind == PLAN_EXCHANGE) && upserts);
            status = drop_walk(context, input, passes, depth + 1, &inputs[i]);
        }
        if (status != JOINERY_OK)
            return status;
        changed = changed || inputs[i] != input || upsert[i];
    }
    if (!changed)
        return JOINERY_OK;
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    copy->inputs = inputs;
    if (node->kind == PLAN_JOIN) {
        copy->join.upsert_left = node->join.upsert_left || upsert[0];
        copy->join.upsert_right = node->join.upsert_right || upsert[1];
    } else if (node->kind == PLAN_MULTI_JOIN) {
        bool *flags = arena_calloc(context->arena, node->input_count, sizeof(bool));
        if (!flags)
            return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        for (uint32_t i = 0; i < node->input_count; i++)
            flags[i] =
                upsert[i] || (node->multi_join.upsert_inputs && node->multi_join.upsert_inputs[i]);
        copy->multi_join.upsert_inputs = flags;
    }
    *result = copy;
    return JOINERY_OK;
}

int rule_drop_changelog_normalize(PlannerContext *context, PlanNode **physical)
{
    /* a query's root (a SELECT collected to the client) takes upserts, as the root of
       Flink's plan tests; a sink or statement set decides below */
    PlanNode *root = *physical;
    bool upserts = root->kind != PLAN_SINK && root->kind != PLAN_STATEMENT_SET;
    return drop_walk(context, root, upserts, 0, physical);
}
