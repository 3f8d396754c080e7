/*
 * node_join.c - LogicalJoin and Join: the regular streaming join of two
 * inputs (Flink's StreamingJoinOperator), keyed by its equi keys.
 */
#include "engine/plan/cost.h"
#include "engine/plan/nodes/nodes.h"

static void explain_logical_join(ExplainContext *context, const PlanNode *node)
{
    strbuf_append_cstr(context->out, "condition=[");
    if (node->join.condition)
        explain_expr(context, node->join.condition, explain_input_names(context, node));
    else
        strbuf_append_cstr(context->out, "true");
    strbuf_printf(context->out, "], joinType=[%s]", join_type_logical_name(node->join.join_type));
    if (node->join.state_ttl_hint)
        strbuf_printf(context->out, ", stateTtlHints=[[%s]]", node->join.state_ttl_hint);
}

static void explain_join(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    strbuf_printf(out, "joinType=[%s], where=[", join_type_name(node->join.join_type));
    if (node->join.condition)
        explain_expr(context, node->join.condition, plan_join_input_names(context->arena, node));
    else
        strbuf_append_cstr(out, "true");
    strbuf_append_cstr(out, "], select=[");
    explain_field_list(context, node);
    strbuf_printf(out, "], leftInputSpec=[%s], rightInputSpec=[%s]",
                  join_input_spec_name(node->join.left_spec),
                  join_input_spec_name(node->join.right_spec));
    explain_ttl(context, node->state_ttl_millis, node->state_ttl_right_millis);
}

/* True when every field of `key` is among `fields`. */
static bool key_within(const PlanKey *key, const uint32_t *fields, uint32_t count)
{
    for (uint32_t i = 0; i < key->count; i++) {
        bool found = false;
        for (uint32_t j = 0; j < count; j++)
            if (fields[j] == key->fields[i])
                found = true;
        if (!found)
            return false;
    }
    return true;
}

static JoinInputSpec input_spec(const PlanNode *input, const uint32_t *keys, uint32_t key_count)
{
    if (input->unique_key_count == 0)
        return JOIN_INPUT_NO_UNIQUE_KEY;
    for (uint32_t i = 0; i < input->unique_key_count; i++)
        if (key_within(&input->unique_keys[i], keys, key_count))
            return JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    return JOIN_INPUT_HAS_UNIQUE_KEY;
}

static int derive_join(PlannerContext *context, PlanNode *node)
{
    Arena *arena = context->arena;
    int64_t default_ttl = context->config->state_ttl_millis;
    PlanNode *left = node->inputs[0], *right = node->inputs[1];
    uint32_t left_count = left->field_count;
    node->join.left_spec = input_spec(left, node->join.left_keys, node->join.key_count);
    node->join.right_spec = input_spec(right, node->join.right_keys, node->join.key_count);
    /* an inner join forwards its inputs' row kinds; an outer join updates its
       NULL-padded rows, which Flink declares as [I,UB,UA,D] */
    node->changelog_mode = CHANGELOG_INSERT | left->changelog_mode | right->changelog_mode;
    if (node->join.join_type != JOIN_TYPE_INNER)
        node->changelog_mode |= CHANGELOG_UPDATE_BEFORE | CHANGELOG_UPDATE_AFTER | CHANGELOG_DELETE;
    node->row_count = cost_node_estimate(node);
    /* unique keys: each side's key survives when the other side's join key is unique */
    bool right_unique_on_key = node->join.right_spec == JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    bool left_unique_on_key = node->join.left_spec == JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    if (right_unique_on_key && !join_type_preserves_right(node->join.join_type))
        for (uint32_t k = 0; k < left->unique_key_count; k++)
            derive_add_unique_key(arena, node, left->unique_keys[k].fields,
                                  left->unique_keys[k].count);
    if (left_unique_on_key && !join_type_preserves_left(node->join.join_type))
        for (uint32_t k = 0; k < right->unique_key_count; k++) {
            uint32_t fields[64];
            uint32_t count = right->unique_keys[k].count < 64 ? right->unique_keys[k].count : 64;
            for (uint32_t f = 0; f < count; f++)
                fields[f] = left_count + right->unique_keys[k].fields[f];
            derive_add_unique_key(arena, node, fields, count);
        }
    if (!node->ttl_from_hint)
        node->state_ttl_millis = node->state_ttl_right_millis = -1;
    if (node->state_ttl_millis < 0)
        node->state_ttl_millis = default_ttl;
    if (node->state_ttl_right_millis < 0)
        node->state_ttl_right_millis = default_ttl;
    return JOINERY_OK;
}

const PlanKindInfo plan_kind_logical_join = {
    .kind = PLAN_LOGICAL_JOIN,
    .name = "LogicalJoin",
    .explain = explain_logical_join,
};

const PlanKindInfo plan_kind_join = {
    .kind = PLAN_JOIN,
    .name = "Join",
    .physical = true,
    .stateful = true,
    .explain = explain_join,
    .derive = derive_join,
};
