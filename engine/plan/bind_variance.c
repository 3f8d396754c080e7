/*
 * bind_variance.c - STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP and their
 * aliases STDDEV (= STDDEV_SAMP) and VARIANCE (= VAR_SAMP), bound as Flink
 * plans them: its AggregateReduceFunctionsRule rewrites each into SUM and
 * COUNT aggregates and an expression over them, so they run (and retract)
 * wherever SUM and COUNT do — GroupAggregate, WindowAggregate,
 * GroupWindowAggregate — and EXPLAIN shows the same plan as Flink's
 * (GroupWindowTest.xml testDecomposableAggFunctions).
 *
 * For x of the call's result type T (AVG's: the argument's type, DECIMAL
 * with at least 6 decimals; x is cast to T when it is not):
 *   VAR_POP(x)     = (SUM(x * x) - CAST(SUM(x)) * CAST(SUM(x)) / COUNT(x)) / COUNT(x)
 *   VAR_SAMP(x)    = (same numerator) / CASE(COUNT(x) = 1, NULL, COUNT(x) - 1)
 *   STDDEV_POP(x)  = POWER(VAR_POP(x), 0.5)
 *   STDDEV_SAMP(x) = POWER(VAR_SAMP(x), 0.5)
 * each cast to T at the end (no cast when the type already is T), with the
 * arithmetic of the argument's type (integers divide as integers, as in
 * Flink). SUM(x * x) reads the product from the projection below the
 * aggregate; SUM(x) and COUNT(x) read x itself and are shared with the
 * query's own SUM(x) / COUNT(x) and between the calls. DISTINCT goes to the
 * three aggregates. No state and no evaluation here.
 */
#include <string.h>
#include <strings.h>

#include "engine/plan/bind_internal.h"

typedef enum VarianceKind {
    VARIANCE_POP,
    VARIANCE_SAMP,
    STDDEV_POP,
    STDDEV_SAMP,
} VarianceKind;

static const struct {
    const char *name;
    VarianceKind kind;
} VARIANCE_NAMES[] = {
    {"VAR_POP", VARIANCE_POP},  {"VAR_SAMP", VARIANCE_SAMP},  {"VARIANCE", VARIANCE_SAMP},
    {"STDDEV_POP", STDDEV_POP}, {"STDDEV_SAMP", STDDEV_SAMP}, {"STDDEV", STDDEV_SAMP},
};

static int variance_kind(const char *name)
{
    for (size_t i = 0; name && i < sizeof VARIANCE_NAMES / sizeof VARIANCE_NAMES[0]; i++)
        if (strcasecmp(name, VARIANCE_NAMES[i].name) == 0)
            return (int)VARIANCE_NAMES[i].kind;
    return -1;
}

bool bind_is_variance_name(const char *name)
{
    return variance_kind(name) >= 0;
}

static int variance_no_memory(Binder *binder)
{
    return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

/* A call of an operator, typed as function_resolve types it; NULL with diag set. */
static Expr *variance_call(Binder *binder, FunctionId function, Expr *a, Expr *b, Expr *c)
{
    Expr *args[3] = {a, b, c};
    uint32_t count = c ? 3 : b ? 2 : 1;
    return function_resolve(binder->arena, NULL, function, args, count, binder->diag);
}

/* `expr` as `type` (Calcite's ensureType: no cast when only the nullability differs). */
static Expr *variance_ensure_type(Binder *binder, Expr *expr, DataType type)
{
    type.nullable = expr->type.nullable;
    type.time_attribute = TIME_ATTRIBUTE_NONE;
    DataType current = expr->type;
    current.time_attribute = TIME_ATTRIBUTE_NONE;
    if (type_equals(current, type))
        return expr;
    return expr_make_cast(binder->arena, expr, type);
}

int bind_variance(Binder *binder, const AstExpr *ast, Expr *argument, Expr **result)
{
    VarianceKind kind = (VarianceKind)variance_kind(ast->function.name);
    DataType type = argument->type;
    if (!type_is_numeric(type.id))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): "
                          "'%s(<NUMERIC>)'",
                          ast->function.name, ast->function.name,
                          type_format(type, (char[64]){0}, 64), ast->function.name);
    /* the call's type: AVG's (the argument's, DECIMAL with at least 6 decimals), nullable */
    DataType call_type = type;
    call_type.nullable = true;
    call_type.time_attribute = TIME_ATTRIBUTE_NONE;
    if (type.id == TYPE_DECIMAL)
        call_type =
            type_make_decimal(TYPE_DECIMAL_MAX_PRECISION, type.scale < 6 ? 6 : type.scale, true);
    bool distinct = ast->function.distinct;
    Arena *arena = binder->arena;

    Expr *x = variance_ensure_type(binder, argument, call_type);
    if (!x)
        return variance_no_memory(binder);
    Expr *square = variance_call(binder, FUNCTION_MULTIPLY, x, x, NULL);
    if (!square)
        return binder->diag->status;
    DataType sum_square_type = square->type;
    sum_square_type.nullable = true;
    DataType sum_type = argument->type;
    sum_type.nullable = true;
    sum_type.time_attribute = TIME_ATTRIBUTE_NONE;
    if (sum_type.id == TYPE_DECIMAL)
        sum_type = type_make_decimal(TYPE_DECIMAL_MAX_PRECISION, sum_type.scale, true);
    if (sum_square_type.id == TYPE_DECIMAL)
        sum_square_type =
            type_make_decimal(TYPE_DECIMAL_MAX_PRECISION, sum_square_type.scale, true);
    char *name = arena_strndup(arena, ast->source_text, ast->source_length);
    Expr *sum_square, *sum, *count;
    int status = bind_aggregate_add(binder, PLAN_AGGREGATE_SUM, distinct, square, NULL,
                                    sum_square_type, name, &sum_square);
    if (status == JOINERY_OK && sum_square->input_index >= binder->aggregate->group_count)
        binder->aggregate->calls[sum_square->input_index - binder->aggregate->group_count]
            .argument_last = true;
    if (status == JOINERY_OK)
        status = bind_aggregate_add(binder, PLAN_AGGREGATE_SUM, distinct, argument, NULL, sum_type,
                                    name, &sum);
    if (status == JOINERY_OK)
        status = bind_aggregate_add(binder, PLAN_AGGREGATE_COUNT, distinct, argument, NULL,
                                    type_make(TYPE_BIGINT, false), name, &count);
    if (status != JOINERY_OK)
        return status;

    Expr *sum_cast = variance_ensure_type(binder, sum, call_type);
    if (!sum_cast)
        return variance_no_memory(binder);
    Expr *sum_squared = variance_call(binder, FUNCTION_MULTIPLY, sum_cast, sum_cast, NULL);
    Expr *mean_part =
        sum_squared ? variance_call(binder, FUNCTION_DIVIDE, sum_squared, count, NULL) : NULL;
    Expr *difference =
        mean_part ? variance_call(binder, FUNCTION_MINUS, sum_square, mean_part, NULL) : NULL;
    if (!difference)
        return binder->diag->status;
    Expr *denominator = count;
    if (kind == VARIANCE_SAMP || kind == STDDEV_SAMP) {
        Expr *one = expr_make_literal(arena, type_make(TYPE_INT, false), value_int(1));
        Expr *null_count = expr_make_literal(arena, type_make(TYPE_BIGINT, true), value_null());
        if (!one || !null_count)
            return variance_no_memory(binder);
        Expr *is_one = variance_call(binder, FUNCTION_EQUAL, count, one, NULL);
        Expr *less_one = is_one ? variance_call(binder, FUNCTION_MINUS, count, one, NULL) : NULL;
        denominator =
            less_one ? variance_call(binder, FUNCTION_CASE, is_one, null_count, less_one) : NULL;
        if (!denominator)
            return binder->diag->status;
    }
    Expr *variance = variance_call(binder, FUNCTION_DIVIDE, difference, denominator, NULL);
    if (!variance)
        return binder->diag->status;
    Expr *value = variance;
    if (kind == STDDEV_POP || kind == STDDEV_SAMP) {
        Expr *half = expr_make_literal(arena, type_make_decimal(1, 1, false), value_int(5));
        if (!half)
            return variance_no_memory(binder);
        value = variance_call(binder, FUNCTION_POWER, variance, half, NULL);
        if (!value)
            return binder->diag->status;
    }
    *result = variance_ensure_type(binder, value, call_type);
    return *result ? JOINERY_OK : variance_no_memory(binder);
}
