/*
 * expr.c - bound expressions: construction, structural equality, input
 * remapping and substitution, and the static analyses the planner needs
 * (inputs used, constant, deterministic, NULL-rejecting).
 *
 * Invariants: every Expr built here lives in the caller's arena and is never
 * modified after construction; copies share unchanged subtrees with the
 * original only where documented (expr_make_cast returns its operand when
 * no cast is needed). Strings of literals are copied into the arena.
 */
#include "engine/plan/expr.h"

#include <string.h>

Expr *expr_make_input_ref(Arena *arena, uint32_t input_index, DataType type)
{
    Expr *expr = arena_calloc(arena, 1, sizeof *expr);
    if (!expr)
        return NULL;
    expr->kind = EXPR_INPUT_REF;
    expr->type = type;
    expr->input_index = input_index;
    return expr;
}

Expr *expr_make_literal(Arena *arena, DataType type, Value value)
{
    Expr *expr = arena_calloc(arena, 1, sizeof *expr);
    if (!expr)
        return NULL;
    expr->kind = EXPR_LITERAL;
    expr->type = type;
    expr->literal = value;
    if (!value.is_null && type_is_variable_length(type.id)) {
        char *copy = arena_strndup(arena, value.s.ptr ? value.s.ptr : "", value.s.len);
        if (!copy)
            return NULL;
        expr->literal.s.ptr = copy;
    }
    return expr;
}

Expr *expr_make_call(Arena *arena, FunctionId function, DataType type, Expr **args,
                     uint32_t arg_count)
{
    Expr *expr = arena_calloc(arena, 1, sizeof *expr);
    if (!expr)
        return NULL;
    expr->kind = EXPR_CALL;
    expr->type = type;
    expr->call.function = function;
    expr->call.arg_count = arg_count;
    if (arg_count > 0) {
        expr->call.args = arena_alloc(arena, arg_count * sizeof *expr->call.args);
        if (!expr->call.args)
            return NULL;
        memcpy(expr->call.args, args, arg_count * sizeof *expr->call.args);
    }
    return expr;
}

static Expr *make_cast(Arena *arena, Expr *expr, DataType type, bool implicit)
{
    if (!expr)
        return NULL;
    /* same storage and meaning (nullability and lengths aside): nothing to do */
    if (type_equals(expr->type, type) && expr->type.time_attribute == type.time_attribute)
        return expr;
    Expr *args[1] = {expr};
    Expr *cast = expr_make_call(arena, FUNCTION_CAST, type, args, 1);
    if (cast)
        cast->call.implicit = implicit;
    return cast;
}

Expr *expr_make_cast(Arena *arena, Expr *expr, DataType type)
{
    return make_cast(arena, expr, type, false);
}

Expr *expr_make_implicit_cast(Arena *arena, Expr *expr, DataType type)
{
    return make_cast(arena, expr, type, true);
}

bool expr_cast_is_valid(DataType from, DataType to)
{
    TypeId f = from.id, t = to.id;
    if (f == TYPE_NULL)
        return true;
    if (type_is_composite(f) || type_is_composite(t)) {
        /* to STRING prints it; ROW to ROW field by field (same count), ARRAY to ARRAY and
           MULTISET to MULTISET element by element */
        if (type_is_composite(f) && type_is_string(t))
            return true;
        if (f != t || type_field_count(from) != type_field_count(to))
            return false;
        if (t != TYPE_ROW)
            return expr_cast_is_valid(type_element(from), type_element(to));
        for (uint32_t i = 0; i < type_field_count(from); i++)
            if (!expr_cast_is_valid(type_field(from, i), type_field(to, i)))
                return false;
        return true;
    }
    if (f == TYPE_MAP || t == TYPE_MAP) /* MAP to STRING prints it; MAP to MAP only unchanged */
        return type_equals(from, to) || (f == TYPE_MAP && type_is_string(t));
    if (type_is_binary(f) || type_is_binary(t)) /* bytes to and from strings and bytes */
        return (type_is_binary(f) || type_is_string(f)) && (type_is_binary(t) || type_is_string(t));
    if (f == t)
        return true;
    if (type_is_string(f) || type_is_string(t))
        return true;
    if (type_is_numeric(f) && type_is_numeric(t))
        return true;
    if ((f == TYPE_BOOLEAN && type_is_numeric(t)) || (type_is_numeric(f) && t == TYPE_BOOLEAN))
        return true;
    bool from_timestamp = f == TYPE_TIMESTAMP || f == TYPE_TIMESTAMP_LTZ;
    bool to_timestamp = t == TYPE_TIMESTAMP || t == TYPE_TIMESTAMP_LTZ;
    if (from_timestamp && (to_timestamp || t == TYPE_DATE || t == TYPE_TIME))
        return true;
    if ((f == TYPE_DATE || f == TYPE_TIME) && to_timestamp)
        return true;
    /* Flink allows numeric <-> TIMESTAMP_LTZ (epoch seconds) and BIGINT <- TIMESTAMP */
    if (type_is_integer(f) && t == TYPE_TIMESTAMP_LTZ)
        return true;
    if (from_timestamp && type_is_integer(t))
        return true;
    if (type_is_interval(f) && type_is_integer(t))
        return true;
    if (type_is_integer(f) && type_is_interval(t))
        return true;
    return false;
}

static uint32_t count_conjuncts(Expr **conditions, uint32_t count)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        Expr *condition = conditions[i];
        if (!condition)
            continue;
        if (condition->kind == EXPR_CALL && condition->call.function == FUNCTION_AND)
            total += count_conjuncts(condition->call.args, condition->call.arg_count);
        else
            total++;
    }
    return total;
}

static void gather_conjuncts(Expr **conditions, uint32_t count, Expr **out, uint32_t *used,
                             bool *nullable)
{
    for (uint32_t i = 0; i < count; i++) {
        Expr *condition = conditions[i];
        if (!condition)
            continue;
        if (condition->kind == EXPR_CALL && condition->call.function == FUNCTION_AND) {
            gather_conjuncts(condition->call.args, condition->call.arg_count, out, used, nullable);
        } else {
            out[(*used)++] = condition;
            if (condition->type.nullable)
                *nullable = true;
        }
    }
}

Expr *expr_make_and(Arena *arena, Expr **conditions, uint32_t count)
{
    uint32_t total = count_conjuncts(conditions, count);
    if (total == 0)
        return NULL;
    Expr **flat = arena_alloc(arena, total * sizeof *flat);
    if (!flat)
        return NULL;
    uint32_t used = 0;
    bool nullable = false;
    gather_conjuncts(conditions, count, flat, &used, &nullable);
    if (used == 1)
        return flat[0];
    return expr_make_call(arena, FUNCTION_AND, type_make(TYPE_BOOLEAN, nullable), flat, used);
}

static bool type_identical(DataType a, DataType b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale &&
           a.nullable == b.nullable && a.time_attribute == b.time_attribute;
}

static bool literal_equals(DataType type, Value a, Value b)
{
    if (a.is_null || b.is_null)
        return a.is_null == b.is_null;
    if (type_is_variable_length(type.id))
        return a.s.len == b.s.len && (a.s.len == 0 || memcmp(a.s.ptr, b.s.ptr, a.s.len) == 0);
    if (type.id == TYPE_FLOAT || type.id == TYPE_DOUBLE)
        return memcmp(&a.d, &b.d, sizeof a.d) == 0 || a.d == b.d;
    return a.i == b.i;
}

bool expr_equals(const Expr *a, const Expr *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind || !type_identical(a->type, b->type))
        return false;
    switch (a->kind) {
    case EXPR_INPUT_REF:
        return a->input_index == b->input_index;
    case EXPR_LITERAL:
        return literal_equals(a->type, a->literal, b->literal);
    case EXPR_CALL:
        if (a->call.function != b->call.function || a->call.arg_count != b->call.arg_count ||
            a->call.trim_mode != b->call.trim_mode || a->call.implicit != b->call.implicit ||
            a->call.udf != b->call.udf)
            return false;
        for (uint32_t i = 0; i < a->call.arg_count; i++)
            if (!expr_equals(a->call.args[i], b->call.args[i]))
                return false;
        return true;
    }
    return false;
}

/* Copies a call node with new args (same function, type, flags). */
static Expr *copy_call(Arena *arena, const Expr *expr, Expr **args)
{
    Expr *copy = expr_make_call(arena, expr->call.function, expr->type, args, expr->call.arg_count);
    if (copy) {
        copy->call.trim_mode = expr->call.trim_mode;
        copy->call.implicit = expr->call.implicit;
        copy->call.udf = expr->call.udf;
    }
    return copy;
}

Expr *expr_remap_inputs(Arena *arena, const Expr *expr, const int32_t *mapping)
{
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        if (mapping[expr->input_index] < 0)
            return NULL;
        return expr_make_input_ref(arena, (uint32_t)mapping[expr->input_index], expr->type);
    case EXPR_LITERAL:
        return (Expr *)expr;
    case EXPR_CALL: {
        uint32_t count = expr->call.arg_count;
        Expr **args = count ? arena_alloc(arena, count * sizeof *args) : NULL;
        if (count && !args)
            return NULL;
        for (uint32_t i = 0; i < count; i++) {
            args[i] = expr_remap_inputs(arena, expr->call.args[i], mapping);
            if (!args[i])
                return NULL;
        }
        return copy_call(arena, expr, args);
    }
    }
    return NULL;
}

int expr_window_property(FunctionId function)
{
    switch (function) {
    case FUNCTION_TUMBLE_START:
    case FUNCTION_HOP_START:
    case FUNCTION_SESSION_START:
        return 0;
    case FUNCTION_TUMBLE_END:
    case FUNCTION_HOP_END:
    case FUNCTION_SESSION_END:
        return 1;
    case FUNCTION_TUMBLE_ROWTIME:
    case FUNCTION_HOP_ROWTIME:
    case FUNCTION_SESSION_ROWTIME:
        return 2;
    case FUNCTION_TUMBLE_PROCTIME:
    case FUNCTION_HOP_PROCTIME:
    case FUNCTION_SESSION_PROCTIME:
        return 3;
    default:
        return -1;
    }
}

Expr *expr_substitute_inputs(Arena *arena, const Expr *expr, Expr *const *replacements)
{
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        return replacements[expr->input_index];
    case EXPR_LITERAL:
        return (Expr *)expr;
    case EXPR_CALL: {
        uint32_t count = expr->call.arg_count;
        Expr **args = count ? arena_alloc(arena, count * sizeof *args) : NULL;
        if (count && !args)
            return NULL;
        for (uint32_t i = 0; i < count; i++) {
            args[i] = expr_substitute_inputs(arena, expr->call.args[i], replacements);
            if (!args[i])
                return NULL;
        }
        /* TUMBLE_END($WINDOW(start, end, rowtime, proctime)) is the end field */
        int property = expr_window_property(expr->call.function);
        if (property >= 0 && args[0]->kind == EXPR_CALL &&
            args[0]->call.function == FUNCTION_WINDOW_PROPERTIES)
            return args[0]->call.args[property];
        return copy_call(arena, expr, args);
    }
    }
    return NULL;
}

/* Counts expr's tree nodes into *nodes; false once depth or *nodes passes the bound. */
static bool expr_fits_within(const Expr *expr, uint32_t depth, uint32_t *nodes)
{
    if (depth > EXPR_MAX_DEPTH || ++*nodes > EXPR_MAX_NODES)
        return false;
    if (expr->kind != EXPR_CALL)
        return true;
    for (uint32_t i = 0; i < expr->call.arg_count; i++)
        if (!expr_fits_within(expr->call.args[i], depth + 1, nodes))
            return false;
    return true;
}

bool expr_fits(const Expr *expr)
{
    uint32_t nodes = 0;
    return !expr || expr_fits_within(expr, 1, &nodes);
}

bool expr_calls(const Expr *expr, FunctionId function)
{
    if (!expr || expr->kind != EXPR_CALL)
        return false;
    if (expr->call.function == function)
        return true;
    for (uint32_t i = 0; i < expr->call.arg_count; i++)
        if (expr_calls(expr->call.args[i], function))
            return true;
    return false;
}

void expr_collect_inputs(const Expr *expr, uint64_t *used)
{
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        used[expr->input_index / 64] |= (uint64_t)1 << (expr->input_index % 64);
        return;
    case EXPR_LITERAL:
        return;
    case EXPR_CALL:
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            expr_collect_inputs(expr->call.args[i], used);
        return;
    }
}

bool expr_is_deterministic(const Expr *expr)
{
    if (expr->kind != EXPR_CALL)
        return true;
    if (function_info(expr->call.function)->determinism == FUNCTION_NONDETERMINISTIC)
        return false;
    for (uint32_t i = 0; i < expr->call.arg_count; i++)
        if (!expr_is_deterministic(expr->call.args[i]))
            return false;
    return true;
}

bool expr_is_constant(const Expr *expr)
{
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        return false;
    case EXPR_LITERAL:
        return true;
    case EXPR_CALL:
        if (!expr_is_deterministic(expr))
            return false;
        for (uint32_t i = 0; i < expr->call.arg_count; i++)
            if (!expr_is_constant(expr->call.args[i]))
                return false;
        return true;
    }
    return false;
}

/* True when the expression is certainly NULL once every ref in `fields` is NULL. */
static bool is_null_when_fields_null(const Expr *expr, const uint64_t *fields)
{
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        return (fields[expr->input_index / 64] >> (expr->input_index % 64)) & 1u;
    case EXPR_LITERAL:
        return expr->literal.is_null;
    case EXPR_CALL:
        break;
    }
    uint32_t count = expr->call.arg_count;
    Expr **args = expr->call.args;
    switch (function_info(expr->call.function)->nulls) {
    case FUNCTION_NULLS_STRICT:
        for (uint32_t i = 0; i < count; i++)
            if (is_null_when_fields_null(args[i], fields))
                return true;
        return false;
    case FUNCTION_NULLS_ALL:
    case FUNCTION_NULLS_AND:
    case FUNCTION_NULLS_OR:
        for (uint32_t i = 0; i < count; i++)
            if (!is_null_when_fields_null(args[i], fields))
                return false;
        return count > 0;
    case FUNCTION_NULLS_ARG0:
        return count > 0 && is_null_when_fields_null(args[0], fields);
    case FUNCTION_NULLS_ARG1:
        return count > 1 && is_null_when_fields_null(args[1], fields);
    case FUNCTION_NULLS_OWN:
    case FUNCTION_NULLS_IS_NOT_NULL:
    case FUNCTION_NULLS_IS_TRUE:
    case FUNCTION_NULLS_NOT_DISTINCT:
        /* conservative: CASE/IF branches could be non-NULL literals */
        return false;
    }
    return false;
}

bool expr_is_null_rejecting(const Expr *expr, const uint64_t *fields)
{
    if (is_null_when_fields_null(expr, fields))
        return true;
    if (expr->kind != EXPR_CALL)
        return false;
    uint32_t count = expr->call.arg_count;
    Expr **args = expr->call.args;
    switch (function_info(expr->call.function)->nulls) {
    case FUNCTION_NULLS_AND:
        for (uint32_t i = 0; i < count; i++)
            if (expr_is_null_rejecting(args[i], fields))
                return true;
        return false;
    case FUNCTION_NULLS_OR:
        for (uint32_t i = 0; i < count; i++)
            if (!expr_is_null_rejecting(args[i], fields))
                return false;
        return count > 0;
    case FUNCTION_NULLS_IS_NOT_NULL:
        return is_null_when_fields_null(args[0], fields);
    case FUNCTION_NULLS_IS_TRUE:
        return expr_is_null_rejecting(args[0], fields);
    case FUNCTION_NULLS_NOT_DISTINCT:
        /* x IS NOT DISTINCT FROM non-NULL literal is FALSE when x is NULL */
        for (uint32_t i = 0; i < 2 && count == 2; i++) {
            const Expr *other = args[1 - i];
            if (is_null_when_fields_null(args[i], fields) && other->kind == EXPR_LITERAL &&
                !other->literal.is_null)
                return true;
        }
        return false;
    case FUNCTION_NULLS_STRICT:
    case FUNCTION_NULLS_ALL:
    case FUNCTION_NULLS_ARG0:
    case FUNCTION_NULLS_ARG1:
    case FUNCTION_NULLS_OWN:
        return false; /* rejects only when it is NULL itself */
    }
    return false;
}
