/*
 * fields.c - sets of field indexes for the rules and the kinds' rule hooks
 * (rules.h).
 */
#include "engine/plan/rules/rules.h"

uint64_t *rule_fields_new(Arena *arena, uint32_t count)
{
    return arena_calloc(arena, count / 64 + 1, sizeof(uint64_t));
}

uint64_t *rule_fields_copy(Arena *arena, const uint64_t *fields, uint32_t count)
{
    uint64_t *copy = rule_fields_new(arena, count);
    for (uint32_t i = 0; copy && i < count; i++)
        if (!fields || rule_fields_has(fields, i))
            rule_fields_add(copy, i);
    return copy;
}

uint64_t *rule_fields_slice(Arena *arena, const uint64_t *fields, uint32_t from, uint32_t count)
{
    uint64_t *slice = rule_fields_new(arena, count);
    for (uint32_t i = 0; slice && i < count; i++)
        if (rule_fields_has(fields, from + i))
            rule_fields_add(slice, i);
    return slice;
}

bool rule_fields_has(const uint64_t *fields, uint32_t i)
{
    return (fields[i / 64] >> (i % 64)) & 1;
}

void rule_fields_add(uint64_t *fields, uint32_t i)
{
    fields[i / 64] |= (uint64_t)1 << (i % 64);
}

void rule_fields_add_expr(uint64_t *fields, const Expr *expr)
{
    if (expr)
        expr_collect_inputs(expr, fields);
}
