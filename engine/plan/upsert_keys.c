/*
 * upsert_keys.c - the upsert keys of a physical node (Flink's
 * FlinkRelMdUpsertKeys): field sets such that every change of one value of
 * the set travels one path, in order, from where it is made to the node.
 * A Sink asks (node_sink.c): when no upsert key of its input lies within
 * the table's primary key, changes of one primary key may come from
 * several places and out of order, and the sink materializes them (Flink's
 * SinkUpsertMaterializer, upsertMaterialize=[true]).
 *
 * Unique keys (derive.c) say which rows are distinct; upsert keys also say
 * where their changes come from. They differ at a join: an input's key is
 * kept only when the join key contains it (all its changes then meet in
 * one join instance) and the other input is unique on the join key, so
 * `orders JOIN users ON o.user_id = u.user_id` keeps no order id (a
 * changed user reaches its orders from the user's join instance, a changed
 * order from the order's). A Calc maps its input's keys, nodes that pass
 * changes on (Exchange, the assigners, DropUpdateBefore) keep them, a
 * Union, MultiJoin and the time-bounded joins have none here (none is the
 * safe answer: it only adds a materializer), and a node that makes its own
 * keys (aggregates, ranks, deduplication, ChangelogNormalize, scans) has
 * its unique keys. Computed on demand; the walk stops (with no keys) below
 * UPSERT_KEYS_MAX_DEPTH nodes.
 */
#include "engine/plan/upsert_keys.h"

#include "engine/plan/join_type.h"

enum { UPSERT_KEYS_MAX_DEPTH = 256 };

static bool keys_equal(const PlanKey *a, const PlanKey *b)
{
    if (a->count != b->count)
        return false;
    for (uint32_t i = 0; i < a->count; i++)
        if (a->fields[i] != b->fields[i])
            return false;
    return true;
}

/* Appends `fields` (count of them, each shifted by `offset`) as a key, sorted. */
static uint32_t add_key(Arena *arena, PlanKey *keys, uint32_t count, const uint32_t *fields,
                        uint32_t field_count, uint32_t offset)
{
    if (count >= PLAN_MAX_UNIQUE_KEYS)
        return count;
    uint32_t *copy = arena_calloc(arena, field_count + 1, sizeof(uint32_t));
    if (!copy)
        return count;
    for (uint32_t i = 0; i < field_count; i++) {
        uint32_t value = fields[i] + offset, j = i;
        while (j > 0 && copy[j - 1] > value) {
            copy[j] = copy[j - 1];
            j--;
        }
        copy[j] = value;
    }
    keys[count].fields = copy;
    keys[count].count = field_count;
    return count + 1;
}

static uint32_t upsert_keys(Arena *arena, const PlanNode *node, PlanKey *keys, int depth);

/* A Calc: its input's keys whose every field it projects as is. */
static uint32_t calc_keys(Arena *arena, const PlanNode *node, PlanKey *keys, int depth)
{
    PlanKey input_keys[PLAN_MAX_UNIQUE_KEYS];
    uint32_t input_count = upsert_keys(arena, node->inputs[0], input_keys, depth + 1);
    uint32_t count = 0;
    for (uint32_t k = 0; k < input_count; k++) {
        uint32_t fields[64];
        uint32_t found = 0;
        for (uint32_t f = 0; f < input_keys[k].count && f < 64; f++)
            for (uint32_t p = 0; p < node->calc.project_count; p++) {
                const Expr *expr = node->calc.projects[p];
                if (expr->kind == EXPR_INPUT_REF && expr->input_index == input_keys[k].fields[f]) {
                    fields[found++] = p;
                    break;
                }
            }
        if (found == input_keys[k].count)
            count = add_key(arena, keys, count, fields, found, 0);
    }
    return count;
}

/* The keys of `side` (0 left, 1 right) within its join key, when the other side is
   unique on its join key and the join does not pad `side` with NULLs. */
static uint32_t join_side_keys(Arena *arena, const PlanNode *node, int side, PlanKey *keys,
                               uint32_t count, int depth)
{
    const PlanNode *input = node->inputs[side];
    const uint32_t *join_keys = side == 0 ? node->join.left_keys : node->join.right_keys;
    JoinInputSpec other = side == 0 ? node->join.right_spec : node->join.left_spec;
    JoinType type = node->join.join_type;
    bool semi_anti = !join_type_emits_right(type);
    if (side == 1 && semi_anti)
        return count;
    bool padded = side == 0 ? join_type_preserves_right(type) : join_type_preserves_left(type);
    if (padded || (other != JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY && !semi_anti))
        return count;
    PlanKey input_keys[PLAN_MAX_UNIQUE_KEYS];
    uint32_t input_count = upsert_keys(arena, input, input_keys, depth + 1);
    uint32_t offset = side == 0 ? 0 : node->inputs[0]->field_count;
    for (uint32_t k = 0; k < input_count; k++)
        if (plan_key_within(&input_keys[k], join_keys, node->join.key_count))
            count = add_key(arena, keys, count, input_keys[k].fields, input_keys[k].count, offset);
    return count;
}

/* A node that keeps its first input's fields in place: its unique keys that are upsert
   keys of that input. */
static uint32_t kept_input_keys(Arena *arena, const PlanNode *node, PlanKey *keys, int depth)
{
    PlanKey input_keys[PLAN_MAX_UNIQUE_KEYS];
    uint32_t input_count = upsert_keys(arena, node->inputs[0], input_keys, depth + 1);
    uint32_t count = 0;
    for (uint32_t k = 0; k < node->unique_key_count; k++)
        for (uint32_t i = 0; i < input_count; i++)
            if (keys_equal(&node->unique_keys[k], &input_keys[i])) {
                count = add_key(arena, keys, count, input_keys[i].fields, input_keys[i].count, 0);
                break;
            }
    return count;
}

static uint32_t upsert_keys(Arena *arena, const PlanNode *node, PlanKey *keys, int depth)
{
    if (depth > UPSERT_KEYS_MAX_DEPTH)
        return 0;
    switch (node->kind) {
    case PLAN_CALC:
        return calc_keys(arena, node, keys, depth);
    case PLAN_EXCHANGE:
    case PLAN_MINI_BATCH_ASSIGNER:
    case PLAN_WATERMARK_ASSIGNER:
    case PLAN_DROP_UPDATE_BEFORE:
        return upsert_keys(arena, node->inputs[0], keys, depth + 1);
    case PLAN_JOIN: {
        uint32_t count = join_side_keys(arena, node, 0, keys, 0, depth);
        return join_side_keys(arena, node, 1, keys, count, depth);
    }
    case PLAN_CORRELATE:
    case PLAN_LOOKUP_JOIN:
    case PLAN_TEMPORAL_JOIN:
        return kept_input_keys(arena, node, keys, depth);
    case PLAN_UNION:
    case PLAN_MULTI_JOIN:
    case PLAN_INTERVAL_JOIN:
    case PLAN_WINDOW_JOIN:
        return 0;
    default: {
        uint32_t count = 0;
        for (uint32_t k = 0; k < node->unique_key_count; k++)
            count = add_key(arena, keys, count, node->unique_keys[k].fields,
                            node->unique_keys[k].count, 0);
        return count;
    }
    }
}

uint32_t plan_upsert_keys(Arena *arena, const PlanNode *node, PlanKey keys[PLAN_MAX_UNIQUE_KEYS])
{
    return upsert_keys(arena, node, keys, 0);
}

bool plan_upsert_key_within(Arena *arena, const PlanNode *node, const uint32_t *fields,
                            uint32_t count)
{
    PlanKey keys[PLAN_MAX_UNIQUE_KEYS];
    uint32_t key_count = plan_upsert_keys(arena, node, keys);
    for (uint32_t k = 0; k < key_count; k++)
        if (plan_key_within(&keys[k], fields, count))
            return true;
    return false;
}
