/*
 * push_filters.c - predicate pushdown and outer-join simplification.
 *
 * push(node, conjuncts) returns a tree equivalent to Filter(AND(conjuncts),
 * node) with each conjunct as deep as it can legally go:
 * - through a projection, by substituting the projected expressions
 *   (deterministic conjuncts only);
 * - into a join: a conjunct on one side goes to that side if the side is
 *   not NULL-generating; a conjunct on both sides joins the ON condition of
 *   an inner join. WHERE conjuncts that reject NULLs of a NULL-generating
 *   side first turn the outer join into an inner (or less outer) one.
 *   ON conjuncts of outer joins go only to the NULL-generating side;
 * - below an aggregate when they only read grouping keys;
 * - into both inputs of a union;
 * - into a table scan, as its filter=[...].
 * What cannot move stays in a LogicalFilter at that point.
 */
#include <string.h>

#include "engine/plan/rules/rules.h"

typedef struct ConjunctList {
    Expr **items;
    uint32_t count;
    uint32_t capacity;
} ConjunctList;

static int list_add(Arena *arena, ConjunctList *list, Expr *expr)
{
    if (list->count == list->capacity) {
        uint32_t capacity = list->capacity ? list->capacity * 2 : 8;
        Expr **items = arena_calloc(arena, capacity, sizeof(Expr *));
        if (!items)
            return JOINERY_ERROR_NO_MEMORY;
        if (list->count)
            memcpy(items, list->items, list->count * sizeof(Expr *));
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = expr;
    return JOINERY_OK;
}

int rule_split_conjuncts(Arena *arena, Expr *condition, Expr ***items, uint32_t *count,
                         uint32_t *capacity)
{
    if (!condition)
        return JOINERY_OK;
    if (condition->kind == EXPR_CALL && condition->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < condition->call.arg_count; i++) {
            int status =
                rule_split_conjuncts(arena, condition->call.args[i], items, count, capacity);
            if (status != JOINERY_OK)
                return status;
        }
        return JOINERY_OK;
    }
    /* a TRUE literal adds nothing */
    if (condition->kind == EXPR_LITERAL && condition->type.id == TYPE_BOOLEAN &&
        !condition->literal.is_null && condition->literal.i == 1)
        return JOINERY_OK;
    ConjunctList list = {*items, *count, *capacity};
    int status = list_add(arena, &list, condition);
    *items = list.items;
    *count = list.count;
    *capacity = list.capacity;
    return status;
}

static int split_into(Arena *arena, Expr *condition, ConjunctList *list)
{
    return rule_split_conjuncts(arena, condition, &list->items, &list->count, &list->capacity);
}

/* Which inputs a conjunct reads: bit 0 = left fields, bit 1 = right fields. */
static unsigned conjunct_sides(const Expr *expr, uint32_t left_count, uint32_t total)
{
    uint64_t used[16] = {0};
    if (total > 64 * 16)
        return 3;
    expr_collect_inputs(expr, used);
    unsigned sides = 0;
    for (uint32_t i = 0; i < total; i++)
        if ((used[i / 64] >> (i % 64)) & 1)
            sides |= i < left_count ? 1u : 2u;
    return sides;
}

static PlanNode *wrap_filter(PlannerContext *context, PlanNode *node, const ConjunctList *list)
{
    if (list->count == 0)
        return node;
    PlanNode *filter = plan_node_new(context->arena, PLAN_LOGICAL_FILTER, 1, node->field_count);
    if (!filter)
        return NULL;
    filter->id = ++context->next_node_id;
    filter->inputs[0] = node;
    memcpy(filter->fields, node->fields, node->field_count * sizeof(PlanField));
    filter->filter.condition = expr_make_and(context->arena, list->items, list->count);
    return filter;
}

/* Copy of a node with new inputs (shallow: attributes shared). */

static int push(PlannerContext *context, PlanNode *node, ConjunctList *conjuncts,
                PlanNode **result);

static int push_fresh(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    ConjunctList none = {0};
    return push(context, node, &none, result);
}

static bool fields_null_rejected(const Expr *expr, uint32_t from, uint32_t to)
{
    uint64_t fields[16] = {0};
    if (to > 64 * 16)
        return false;
    for (uint32_t i = from; i < to; i++)
        fields[i / 64] |= (uint64_t)1 << (i % 64);
    return expr_is_null_rejecting(expr, fields);
}

static int push_join(PlannerContext *context, PlanNode *node, ConjunctList *conjuncts,
                     PlanNode **result)
{
    Arena *arena = context->arena;
    PlanNode *join = plan_node_copy(context->arena, node);
    if (!join)
        return JOINERY_ERROR_NO_MEMORY;
    uint32_t left_count = node->inputs[0]->field_count;
    uint32_t total = node->field_count;
    /* outer-join simplification from the WHERE conjuncts */
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        Expr *conjunct = conjuncts->items[i];
        bool rejects_right = fields_null_rejected(conjunct, left_count, total);
        bool rejects_left = fields_null_rejected(conjunct, 0, left_count);
        if (rejects_right) {
            if (join->join.join_type == JOIN_TYPE_LEFT)
                join->join.join_type = JOIN_TYPE_INNER;
            else if (join->join.join_type == JOIN_TYPE_FULL)
                join->join.join_type = JOIN_TYPE_RIGHT;
        }
        if (rejects_left) {
            if (join->join.join_type == JOIN_TYPE_RIGHT)
                join->join.join_type = JOIN_TYPE_INNER;
            else if (join->join.join_type == JOIN_TYPE_FULL)
                join->join.join_type = JOIN_TYPE_LEFT;
        }
    }
    if (join->join.join_type != node->join.join_type) {
        /* the fields of a side that is no longer NULL-generating keep their nullability
           from the input */
        join->fields = arena_calloc(arena, total, sizeof(PlanField));
        if (!join->fields)
            return JOINERY_ERROR_NO_MEMORY;
        memcpy(join->fields, node->fields, total * sizeof(PlanField));
        bool left_nullable = join_type_preserves_right(join->join.join_type);
        bool right_nullable = join_type_preserves_left(join->join.join_type);
        for (uint32_t i = 0; i < total; i++) {
            const PlanNode *input = i < left_count ? node->inputs[0] : node->inputs[1];
            uint32_t index = i < left_count ? i : i - left_count;
            bool nullable = i < left_count ? left_nullable : right_nullable;
            join->fields[i].type.nullable = input->fields[index].type.nullable || nullable;
        }
    }
    JoinType type = join->join.join_type;
    bool left_preserved_only = type == JOIN_TYPE_LEFT;   /* right side is NULL-generating */
    bool right_preserved_only = type == JOIN_TYPE_RIGHT; /* left side is NULL-generating */
    ConjunctList left = {0}, right = {0}, above = {0}, on = {0};
    int status = JOINERY_OK;
    /* WHERE conjuncts */
    for (uint32_t i = 0; i < conjuncts->count && status == JOINERY_OK; i++) {
        Expr *conjunct = conjuncts->items[i];
        unsigned sides = conjunct_sides(conjunct, left_count, total);
        bool deterministic = expr_is_deterministic(conjunct);
        if (sides == 1 && deterministic && (type == JOIN_TYPE_INNER || left_preserved_only))
            status = list_add(arena, &left, conjunct);
        else if (sides == 2 && deterministic && (type == JOIN_TYPE_INNER || right_preserved_only))
            status = list_add(arena, &right, conjunct);
        else if (type == JOIN_TYPE_INNER && sides == 3 && deterministic)
            status = list_add(arena, &on, conjunct);
        else
            status = list_add(arena, &above, conjunct);
    }
    /* ON conjuncts */
    ConjunctList existing = {0};
    if (status == JOINERY_OK)
        status = split_into(arena, node->join.condition, &existing);
    for (uint32_t i = 0; i < existing.count && status == JOINERY_OK; i++) {
        Expr *conjunct = existing.items[i];
        unsigned sides = conjunct_sides(conjunct, left_count, total);
        bool deterministic = expr_is_deterministic(conjunct);
        if (sides == 1 && deterministic && (type == JOIN_TYPE_INNER || right_preserved_only))
            status = list_add(arena, &left, conjunct);
        else if (sides == 2 && deterministic && (type == JOIN_TYPE_INNER || left_preserved_only))
            status = list_add(arena, &right, conjunct);
        else
            status = list_add(arena, &on, conjunct);
    }
    if (status != JOINERY_OK)
        return status;
    /* right conjuncts are over the combined row: shift them to the right input */
    int32_t *shift = arena_calloc(arena, total + 1, sizeof(int32_t));
    if (!shift)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < total; i++)
        shift[i] = i < left_count ? -1 : (int32_t)(i - left_count);
    for (uint32_t i = 0; i < right.count; i++) {
        right.items[i] = expr_remap_inputs(arena, right.items[i], shift);
        if (!right.items[i])
            return JOINERY_ERROR_NO_MEMORY;
    }
    status = push(context, node->inputs[0], &left, &join->inputs[0]);
    if (status == JOINERY_OK)
        status = push(context, node->inputs[1], &right, &join->inputs[1]);
    if (status != JOINERY_OK)
        return status;
    join->join.condition = on.count ? expr_make_and(arena, on.items, on.count) : NULL;
    *result = wrap_filter(context, join, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static int push_project(PlannerContext *context, PlanNode *node, ConjunctList *conjuncts,
                        PlanNode **result)
{
    Arena *arena = context->arena;
    ConjunctList below = {0}, above = {0};
    bool projects_deterministic = true;
    for (uint32_t i = 0; i < node->calc.project_count; i++)
        if (!expr_is_deterministic(node->calc.projects[i]))
            projects_deterministic = false;
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        Expr *conjunct = conjuncts->items[i];
        if (expr_is_deterministic(conjunct) && projects_deterministic) {
            Expr *substituted = expr_substitute_inputs(arena, conjunct, node->calc.projects);
            if (!substituted || list_add(arena, &below, substituted) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        } else if (list_add(arena, &above, conjunct) != JOINERY_OK) {
            return JOINERY_ERROR_NO_MEMORY;
        }
    }
    PlanNode *project = plan_node_copy(context->arena, node);
    if (!project)
        return JOINERY_ERROR_NO_MEMORY;
    int status = push(context, node->inputs[0], &below, &project->inputs[0]);
    if (status != JOINERY_OK)
        return status;
    *result = wrap_filter(context, project, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

static int push_aggregate(PlannerContext *context, PlanNode *node, ConjunctList *conjuncts,
                          PlanNode **result)
{
    Arena *arena = context->arena;
    uint32_t group_count = node->aggregate.group_key_count;
    int32_t *mapping = arena_calloc(arena, node->field_count + 1, sizeof(int32_t));
    if (!mapping)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->field_count; i++)
        mapping[i] = i < group_count ? (int32_t)node->aggregate.group_keys[i] : -1;
    ConjunctList below = {0}, above = {0};
    for (uint32_t i = 0; i < conjuncts->count; i++) {
        Expr *conjunct = conjuncts->items[i];
        uint64_t used[16] = {0};
        bool only_keys = node->field_count <= 64 * 16 && expr_is_deterministic(conjunct);
        if (only_keys) {
            expr_collect_inputs(conjunct, used);
            for (uint32_t f = group_count; f < node->field_count; f++)
                if ((used[f / 64] >> (f % 64)) & 1)
                    only_keys = false;
        }
        /* a global aggregate emits a row even for empty input: keep filters above */
        if (only_keys && group_count > 0) {
            Expr *remapped = expr_remap_inputs(arena, conjunct, mapping);
            if (!remapped || list_add(arena, &below, remapped) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        } else if (list_add(arena, &above, conjunct) != JOINERY_OK) {
            return JOINERY_ERROR_NO_MEMORY;
        }
    }
    PlanNode *aggregate = plan_node_copy(context->arena, node);
    if (!aggregate)
        return JOINERY_ERROR_NO_MEMORY;
    int status = push(context, node->inputs[0], &below, &aggregate->inputs[0]);
    if (status != JOINERY_OK)
        return status;
    *result = wrap_filter(context, aggregate, &above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

/*
 * An upsert source is normalized (ChangelogNormalize) above its scan: only conditions on
 * the primary key may filter before that, or an update that leaves the filter's range
 * would never retract the row it replaces.
 */
static bool scan_may_filter(const PlanNode *scan, const Expr *conjunct)
{
    const CatalogTable *table = scan->scan.table;
    if (!plan_table_is_upsert_source(table))
        return true;
    uint64_t used[16] = {0};
    if (scan->field_count > 64 * 16)
        return false;
    expr_collect_inputs(conjunct, used);
    for (uint32_t f = 0; f < scan->field_count; f++) {
        if (!((used[f / 64] >> (f % 64)) & 1))
            continue;
        bool key = false;
        for (size_t k = 0; k < table->primary_key_count; k++)
            if ((int)scan->scan.columns[f] ==
                catalog_table_column_index(table, table->primary_key[k]))
                key = true;
        if (!key)
            return false;
    }
    return true;
}

static int push(PlannerContext *context, PlanNode *node, ConjunctList *conjuncts, PlanNode **result)
{
    Arena *arena = context->arena;
    switch (node->kind) {
    case PLAN_LOGICAL_FILTER: {
        ConjunctList merged = {0};
        for (uint32_t i = 0; i < conjuncts->count; i++)
            if (list_add(arena, &merged, conjuncts->items[i]) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        if (split_into(arena, node->filter.condition, &merged) != JOINERY_OK)
            return JOINERY_ERROR_NO_MEMORY;
        return push(context, node->inputs[0], &merged, result);
    }
    case PLAN_LOGICAL_PROJECT:
        return push_project(context, node, conjuncts, result);
    case PLAN_LOGICAL_JOIN:
        return push_join(context, node, conjuncts, result);
    case PLAN_LOGICAL_AGGREGATE:
        return push_aggregate(context, node, conjuncts, result);
    case PLAN_LOGICAL_WATERMARK_ASSIGNER: {
        /* filters stay above the watermark assigner: watermarks see every row */
        PlanNode *copy = plan_node_copy(context->arena, node);
        if (!copy)
            return JOINERY_ERROR_NO_MEMORY;
        int status = push_fresh(context, node->inputs[0], &copy->inputs[0]);
        if (status != JOINERY_OK)
            return status;
        *result = wrap_filter(context, copy, conjuncts);
        return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    }
    case PLAN_LOGICAL_UNION: {
        PlanNode *copy = plan_node_copy(context->arena, node);
        if (!copy)
            return JOINERY_ERROR_NO_MEMORY;
        ConjunctList below = {0}, above = {0};
        for (uint32_t i = 0; i < conjuncts->count; i++)
            if (list_add(arena, expr_is_deterministic(conjuncts->items[i]) ? &below : &above,
                         conjuncts->items[i]) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        for (uint32_t i = 0; i < node->input_count; i++) {
            ConjunctList copy_list = below;
            int status = push(context, node->inputs[i], &copy_list, &copy->inputs[i]);
            if (status != JOINERY_OK)
                return status;
        }
        *result = wrap_filter(context, copy, &above);
        return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    }
    case PLAN_LOGICAL_TABLE_SCAN: {
        ConjunctList into = {0}, above = {0};
        for (uint32_t i = 0; i < conjuncts->count; i++) {
            Expr *conjunct = conjuncts->items[i];
            bool push = expr_is_deterministic(conjunct) && scan_may_filter(node, conjunct);
            if (list_add(arena, push ? &into : &above, conjunct) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
        }
        PlanNode *scan = node;
        if (into.count) {
            scan = plan_node_copy(context->arena, node);
            if (!scan)
                return JOINERY_ERROR_NO_MEMORY;
            if (node->scan.filter && split_into(arena, node->scan.filter, &into) != JOINERY_OK)
                return JOINERY_ERROR_NO_MEMORY;
            scan->scan.filter = expr_make_and(arena, into.items, into.count);
        }
        *result = wrap_filter(context, scan, &above);
        return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    }
    default: {
        /* values, sinks: recurse into inputs, keep conjuncts here */
        PlanNode *copy = plan_node_copy(context->arena, node);
        if (!copy)
            return JOINERY_ERROR_NO_MEMORY;
        for (uint32_t i = 0; i < node->input_count; i++) {
            int status = push_fresh(context, node->inputs[i], &copy->inputs[i]);
            if (status != JOINERY_OK)
                return status;
        }
        *result = wrap_filter(context, copy, conjuncts);
        return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    }
    }
}

int rule_push_filters(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    int status = push_fresh(context, node, result);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    return status;
}
