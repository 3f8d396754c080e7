/*
 * fuse_multi_join.c - MultiJoin fusion (Flink 2.1's FLIP-516, extended to
 * RIGHT and FULL joins as Huawei MRS does).
 *
 * A left-deep chain of regular joins (((in0 J1 in1) J2 in2) ... Jn inn)
 * is cut into groups whose inputs share a common join key: the common key
 * is the set of equivalence classes, built by union-find over the equi
 * conditions `a = b` of the group's steps (plain references of one type),
 * that have a field in every input of the group and that every step joins
 * its new input on (so rows matched at any step agree on the key, and
 * partitioning all inputs by it is exact). Groups are formed
 * greedily from the bottom; a group closes when the next input shares no
 * class with it, and its result becomes the first input of the next group,
 * as Flink does. A step that cannot pair with anything stays a binary join.
 * Runs after projection pruning, so chains are joins directly over joins
 * and field offsets line up with the concatenated inputs. Interval joins
 * (interval_bounds.h) end a chain: they stay binary, the joins around them
 * fuse as usual.
 */
#include <string.h>

#include "engine/plan/interval_bounds.h"
#include "engine/plan/rules/rules.h"
#include "engine/plan/window_properties.h"

/* A regular join, which chains fuse: an interval or window join never joins a MultiJoin (its
   state is bounded by time, a MultiJoin's is not), nor a semi / anti join (Flink's MultiJoin
   has none); it stays binary and its inputs are fused apart. */
static bool is_fusable_join(Arena *arena, const PlanNode *node)
{
    return node->kind == PLAN_LOGICAL_JOIN && join_type_emits_right(node->join.join_type) &&
           !interval_bounds_of_join(arena, node) && !plan_join_is_window_join(node);
}

typedef struct Chain {
    PlanNode **joins;  /* joins[i], i >= 1: the chain's step i (joins[0] unused) */
    PlanNode **inputs; /* inputs[0..count-1], already fused recursively */
    uint32_t *offsets; /* offsets[i]: first field of input i; offsets[count] = total */
    uint32_t count;
} Chain;

static uint32_t find_root(uint32_t *parent, uint32_t field)
{
    while (parent[field] != field) {
        parent[field] = parent[parent[field]];
        field = parent[field];
    }
    return field;
}

/* Adds the plain, same-typed equalities of a condition to the union-find. */
static void unite_equalities(uint32_t *parent, const Expr *condition)
{
    if (!condition || condition->kind != EXPR_CALL)
        return;
    if (condition->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < condition->call.arg_count; i++)
            unite_equalities(parent, condition->call.args[i]);
        return;
    }
    if (condition->call.function != FUNCTION_EQUAL || condition->call.arg_count != 2)
        return;
    const Expr *a = condition->call.args[0], *b = condition->call.args[1];
    if (a->kind != EXPR_INPUT_REF || b->kind != EXPR_INPUT_REF || !type_equals(a->type, b->type))
        return;
    uint32_t root_a = find_root(parent, a->input_index);
    uint32_t root_b = find_root(parent, b->input_index);
    if (root_a != root_b)
        parent[root_a] = root_b;
}

/* True when `condition` has a conjunct a = b joining input g's key field members[g] to the
   key field of an earlier group input. */
static bool step_joins_on_key(const Expr *condition, const uint32_t *members, uint32_t g)
{
    if (!condition || condition->kind != EXPR_CALL)
        return false;
    if (condition->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < condition->call.arg_count; i++)
            if (step_joins_on_key(condition->call.args[i], members, g))
                return true;
        return false;
    }
    if (condition->call.function != FUNCTION_EQUAL || condition->call.arg_count != 2)
        return false;
    const Expr *a = condition->call.args[0], *b = condition->call.args[1];
    if (a->kind != EXPR_INPUT_REF || b->kind != EXPR_INPUT_REF)
        return false;
    for (uint32_t earlier = 0; earlier < g; earlier++)
        if ((a->input_index == members[g] && b->input_index == members[earlier]) ||
            (b->input_index == members[g] && a->input_index == members[earlier]))
            return true;
    return false;
}

/*
 * The MultiJoin operator cannot split a NULL-padded key by the common key when a later
 * step compares with IS NOT DISTINCT FROM: such a group stays binary.
 */
static bool group_is_runnable(const Chain *chain, uint32_t start, uint32_t end)
{
    bool outer_before = false;
    for (uint32_t step = start + 1; step <= end; step++) {
        const PlanNode *join = chain->joins[step];
        if (outer_before && expr_calls(join->join.condition, FUNCTION_IS_NOT_DISTINCT_FROM))
            return false;
        outer_before = outer_before || join->join.join_type != JOIN_TYPE_INNER;
    }
    return true;
}

/*
 * Common key of the group whose first input is fields [0, offsets[start+1])
 * and whose other inputs are chain inputs start+1..end. Fills key_fields[g]
 * (global field indexes) for every group input g and returns the number of
 * common classes (0: none).
 */
static uint32_t common_key(Arena *arena, const Chain *chain, uint32_t start, uint32_t end,
                           uint32_t **key_fields)
{
    if (!group_is_runnable(chain, start, end))
        return 0;
    uint32_t total = chain->offsets[end + 1];
    uint32_t *parent = arena_calloc(arena, total + 1, sizeof(uint32_t));
    if (!parent)
        return 0;
    for (uint32_t f = 0; f < total; f++)
        parent[f] = f;
    for (uint32_t step = start + 1; step <= end; step++)
        unite_equalities(parent, chain->joins[step]->join.condition);
    uint32_t group_inputs = end - start + 1;
    uint32_t classes = 0;
    /* candidate classes: roots of the first input's fields, in field order */
    for (uint32_t f = 0; f < chain->offsets[start + 1]; f++) {
        uint32_t root = find_root(parent, f);
        bool seen = false;
        for (uint32_t c = 0; c < classes; c++)
            if (find_root(parent, key_fields[0][c]) == root)
                seen = true;
        if (seen)
            continue;
        /* exactly one field of the class in every input: a composite input holding two
           of them (t0.k and t1.k after an outer join) may hold two different values */
        uint32_t members[64];
        bool everywhere = group_inputs <= 64;
        for (uint32_t g = 0; g < group_inputs && everywhere; g++) {
            uint32_t from = g == 0 ? 0 : chain->offsets[start + g];
            uint32_t to = g == 0 ? chain->offsets[start + 1] : chain->offsets[start + g + 1];
            uint32_t found = 0;
            for (uint32_t field = from; field < to; field++)
                if (find_root(parent, field) == root) {
                    members[g] = field;
                    found++;
                }
            everywhere = found == 1;
        }
        if (!everywhere || classes >= 16)
            continue;
        /* and every step must join its new input's key field to an earlier input's key
           field: rows matched at a step on another column could carry other key values */
        bool every_step = true;
        for (uint32_t g = 1; g < group_inputs && every_step; g++)
            every_step = step_joins_on_key(chain->joins[start + g]->join.condition, members, g);
        if (!every_step)
            continue;
        for (uint32_t g = 0; g < group_inputs; g++)
            key_fields[g][classes] = members[g];
        classes++;
    }
    return classes;
}

static PlanNode *make_group(PlannerContext *context, const Chain *chain, PlanNode *first,
                            uint32_t start, uint32_t end, uint32_t **key_fields, uint32_t key_count)
{
    Arena *arena = context->arena;
    uint32_t group_inputs = end - start + 1;
    const PlanNode *last = chain->joins[end];
    PlanNode *node = plan_node_new(arena, PLAN_LOGICAL_MULTI_JOIN, group_inputs, last->field_count);
    if (!node)
        return NULL;
    node->id = ++context->next_node_id;
    memcpy(node->fields, last->fields, last->field_count * sizeof(PlanField));
    node->multi_join.join_types = arena_calloc(arena, group_inputs, sizeof(JoinType));
    node->multi_join.conditions = arena_calloc(arena, group_inputs, sizeof(Expr *));
    node->multi_join.key_fields = arena_calloc(arena, group_inputs, sizeof(uint32_t *));
    node->multi_join.ttl_millis = arena_calloc(arena, group_inputs, sizeof(int64_t));
    node->multi_join.input_names = arena_calloc(arena, group_inputs, sizeof(char *));
    if (!node->multi_join.join_types || !node->multi_join.conditions ||
        !node->multi_join.key_fields || !node->multi_join.ttl_millis ||
        !node->multi_join.input_names)
        return NULL;
    node->multi_join.common_key_count = key_count;
    node->inputs[0] = first;
    /* the first input keeps a hint only when it is the chain's first table */
    const PlanNode *first_join = chain->joins[start + 1];
    node->multi_join.ttl_millis[0] =
        start == 0 && first_join->ttl_from_hint ? first_join->state_ttl_millis : -1;
    node->multi_join.input_names[0] = start == 0 ? first_join->join.left_hint_name : NULL;
    for (uint32_t g = 0; g < group_inputs; g++) {
        uint32_t base = g == 0 ? 0 : chain->offsets[start + g];
        node->multi_join.key_fields[g] = arena_calloc(arena, key_count + 1, sizeof(uint32_t));
        if (!node->multi_join.key_fields[g])
            return NULL;
        for (uint32_t k = 0; k < key_count; k++)
            node->multi_join.key_fields[g][k] = key_fields[g][k] - base;
        if (g == 0)
            continue;
        const PlanNode *step = chain->joins[start + g];
        node->inputs[g] = chain->inputs[start + g];
        node->multi_join.join_types[g] = step->join.join_type;
        node->multi_join.conditions[g] = step->join.condition;
        node->multi_join.ttl_millis[g] = step->ttl_from_hint ? step->state_ttl_right_millis : -1;
        node->multi_join.input_names[g] = step->join.right_hint_name;
    }
    node->state_ttl_millis = -1;
    return node;
}

static int fuse(PlannerContext *context, PlanNode *node, PlanNode **result);

static int fuse_chain(PlannerContext *context, PlanNode *top, PlanNode **result)
{
    Arena *arena = context->arena;
    uint32_t steps = 0;
    for (PlanNode *walk = top; is_fusable_join(arena, walk); walk = walk->inputs[0])
        steps++;
    Chain chain;
    chain.count = steps + 1;
    chain.joins = arena_calloc(arena, chain.count, sizeof(PlanNode *));
    chain.inputs = arena_calloc(arena, chain.count, sizeof(PlanNode *));
    chain.offsets = arena_calloc(arena, chain.count + 1, sizeof(uint32_t));
    if (!chain.joins || !chain.inputs || !chain.offsets)
        return JOINERY_ERROR_NO_MEMORY;
    PlanNode *walk = top;
    for (uint32_t i = steps; i >= 1; i--) {
        chain.joins[i] = walk;
        int status = fuse(context, walk->inputs[1], &chain.inputs[i]);
        if (status != JOINERY_OK)
            return status;
        walk = walk->inputs[0];
    }
    int status = fuse(context, walk, &chain.inputs[0]);
    if (status != JOINERY_OK)
        return status;
    for (uint32_t i = 0; i < chain.count; i++)
        chain.offsets[i + 1] = chain.offsets[i] + chain.inputs[i]->field_count;
    uint32_t **keys = arena_calloc(arena, chain.count, sizeof(uint32_t *));
    if (!keys)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < chain.count; i++)
        if (!(keys[i] = arena_calloc(arena, 16, sizeof(uint32_t))))
            return JOINERY_ERROR_NO_MEMORY;
    PlanNode *current = chain.inputs[0];
    uint32_t start = 0, end = 0;
    for (uint32_t i = 1; i <= steps; i++) {
        if (common_key(arena, &chain, start, i, keys) > 0) {
            end = i;
            continue;
        }
        if (end > start) {
            uint32_t key_count = common_key(arena, &chain, start, end, keys);
            current = make_group(context, &chain, current, start, end, keys, key_count);
            if (!current)
                return JOINERY_ERROR_NO_MEMORY;
            start = end;
            if (common_key(arena, &chain, start, i, keys) > 0) {
                end = i;
                continue;
            }
        }
        /* step i shares no key with what is below it: it stays a binary join */
        PlanNode *join = plan_node_copy(arena, chain.joins[i]);
        if (!join)
            return JOINERY_ERROR_NO_MEMORY;
        join->inputs[0] = current;
        join->inputs[1] = chain.inputs[i];
        current = join;
        start = end = i;
    }
    if (end > start) {
        uint32_t key_count = common_key(arena, &chain, start, end, keys);
        current = make_group(context, &chain, current, start, end, keys, key_count);
        if (!current)
            return JOINERY_ERROR_NO_MEMORY;
    }
    *result = current;
    return JOINERY_OK;
}

static int fuse(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    if (is_fusable_join(context->arena, node))
        return fuse_chain(context, node, result);
    if (node->input_count == 0) {
        *result = node;
        return JOINERY_OK;
    }
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = fuse(context, node->inputs[i], &copy->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    *result = copy;
    return JOINERY_OK;
}

int rule_fuse_multi_join(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    int status = fuse(context, node, result);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    return status;
}
