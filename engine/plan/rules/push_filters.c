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
 *
 * The walk is here; what happens at a node is its kind's push_filters hook
 * (nodes/): a kind without one keeps the conjuncts above it and its inputs
 * are pushed into with none (values, sinks).
 */
#include <string.h>

#include "engine/plan/nodes/nodes.h"

int rule_conjuncts_add(Arena *arena, RuleConjuncts *list, Expr *expr)
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

int rule_split_conjuncts(Arena *arena, Expr *condition, RuleConjuncts *list)
{
    if (!condition)
        return JOINERY_OK;
    if (condition->kind == EXPR_CALL && condition->call.function == FUNCTION_AND) {
        for (uint32_t i = 0; i < condition->call.arg_count; i++) {
            int status = rule_split_conjuncts(arena, condition->call.args[i], list);
            if (status != JOINERY_OK)
                return status;
        }
        return JOINERY_OK;
    }
    /* a TRUE literal adds nothing */
    if (condition->kind == EXPR_LITERAL && condition->type.id == TYPE_BOOLEAN &&
        !condition->literal.is_null && condition->literal.i == 1)
        return JOINERY_OK;
    return rule_conjuncts_add(arena, list, condition);
}

PlanNode *rule_filter_above(PlannerContext *context, PlanNode *node, const RuleConjuncts *conjuncts)
{
    if (conjuncts->count == 0)
        return node;
    PlanNode *filter = plan_node_new(context->arena, PLAN_LOGICAL_FILTER, 1, node->field_count);
    if (!filter)
        return NULL;
    filter->id = ++context->next_node_id;
    filter->inputs[0] = node;
    memcpy(filter->fields, node->fields, node->field_count * sizeof(PlanField));
    filter->filter.condition = expr_make_and(context->arena, conjuncts->items, conjuncts->count);
    return filter;
}

int rule_push_through(PlannerContext *context, PlanNode *node, RuleConjuncts *below,
                      const RuleConjuncts *above, PlanNode **result)
{
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    int status = rule_push_filters_into(context, node->inputs[0], below, &copy->inputs[0]);
    if (status != JOINERY_OK)
        return status;
    *result = rule_filter_above(context, copy, above);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

int rule_push_filters_into(PlannerContext *context, PlanNode *node, RuleConjuncts *conjuncts,
                           PlanNode **result)
{
    const PlanKindInfo *info = plan_kind_info(node->kind);
    if (info->push_filters)
        return info->push_filters(context, node, conjuncts, result);
    /* recurse into the inputs, keep the conjuncts here */
    PlanNode *copy = plan_node_copy(context->arena, node);
    if (!copy)
        return JOINERY_ERROR_NO_MEMORY;
    for (uint32_t i = 0; i < node->input_count; i++) {
        RuleConjuncts none = {0};
        int status = rule_push_filters_into(context, node->inputs[i], &none, &copy->inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    *result = rule_filter_above(context, copy, conjuncts);
    return *result ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

int rule_push_filters(PlannerContext *context, PlanNode *node, PlanNode **result)
{
    RuleConjuncts none = {0};
    int status = rule_push_filters_into(context, node, &none, result);
    if (status == JOINERY_ERROR_NO_MEMORY)
        return diag_error(context->diag, status, "out of memory");
    return status;
}
