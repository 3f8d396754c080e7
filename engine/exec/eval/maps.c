/*
 * maps.c - MAP[k1, v1, ...] (encoded by engine/base/map.h, sorted by key, a
 * repeated key keeping its last value), map[key] (NULL when absent),
 * array[i] (1-based, NULL out of range) and CARDINALITY.
 */
#include "engine/base/composite.h"
#include "engine/base/map.h"
#include "engine/exec/eval/eval.h"

Value eval_item(const Expr *expr, const EvalInput *input)
{
    const Expr *map = expr->call.args[0];
    Value m = eval_expr(map, input);
    Value key = eval_expr(expr->call.args[1], input);
    Value found;
    if (map->type.id == TYPE_ARRAY) {
        /* 1-based; out of range gives NULL, as Flink's ITEM on arrays */
        if (m.is_null || key.is_null ||
            !array_element_at(map->type, m.s.ptr, m.s.len, key.i, &found))
            return value_null();
        return found;
    }
    if (m.is_null || key.is_null || !map_lookup(map->type, m.s.ptr, m.s.len, key, &found))
        return value_null();
    return found;
}

Value eval_cardinality(const Expr *expr, const EvalInput *input)
{
    Value m = eval_expr(expr->call.args[0], input);
    if (m.is_null)
        return m;
    /* a map's entries, an array's elements, a multiset's distinct elements (its MapData's
       size, as Flink counts them) */
    return value_int(expr->call.args[0]->type.id == TYPE_MAP
                         ? map_cardinality(m.s.ptr, m.s.len)
                         : collection_entry_count(m.s.ptr, m.s.len));
}

/* MAP[k1, v1, ...] */
Value eval_map(const Expr *expr, const EvalInput *input)
{
    uint32_t count = expr->call.arg_count / 2;
    MapEntry *entries = arena_alloc(input->context->arena, (count ? count : 1) * sizeof *entries);
    if (!entries)
        return eval_out_of_memory(input);
    for (uint32_t i = 0; i < count; i++) {
        entries[i].key = eval_expr(expr->call.args[2 * i], input);
        entries[i].value = eval_expr(expr->call.args[2 * i + 1], input);
    }
    StrBuf encoded = STRBUF_INIT;
    return string_from_strbuf(input, &encoded, map_encode(expr->type, entries, count, &encoded));
}
