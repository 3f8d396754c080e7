/*
 * compare.c - comparisons: = <> < <= > >= (each row's ORDER says which
 * outcome makes it TRUE), IS [NOT] DISTINCT FROM and IN, over values of
 * possibly different numeric types (DECIMAL scales, DOUBLE with integers,
 * DATE with TIMESTAMP). NaN compares with nothing, itself included: only <>
 * holds. Maps compare by their canonical encodings. GREATEST and LEAST use
 * the same three-way comparison (a NaN argument is never picked after the first).
 */
#include <math.h>

#include "engine/exec/eval/eval.h"

/* Three-way comparison of two non-NULL values, possibly of different numeric types. */
int compare_mixed(DataType a_type, Value a, DataType b_type, Value b)
{
    bool approximate = a_type.id == TYPE_FLOAT || a_type.id == TYPE_DOUBLE ||
                       b_type.id == TYPE_FLOAT || b_type.id == TYPE_DOUBLE;
    if (approximate && type_is_numeric(a_type.id) && type_is_numeric(b_type.id)) {
        double x = numeric_to_double(a_type, a), y = numeric_to_double(b_type, b);
        if (isnan(x) || isnan(y))
            return COMPARE_UNORDERED; /* NaN compares with nothing, itself included */
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a_type.id == b_type.id && (a_type.id != TYPE_DECIMAL || a_type.scale == b_type.scale))
        return value_compare(a_type, a, b);
    if (type_is_numeric(a_type.id) && type_is_numeric(b_type.id)) {
        int a_scale = a_type.id == TYPE_DECIMAL ? a_type.scale : 0;
        int b_scale = b_type.id == TYPE_DECIMAL ? b_type.scale : 0;
        int scale = a_scale > b_scale ? a_scale : b_scale;
        bool overflow = false;
        Int128 x = rescale_128(a.i, a_scale, scale, &overflow);
        Int128 y = rescale_128(b.i, b_scale, scale, &overflow);
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a_type.id == TYPE_DATE && b_type.id != TYPE_DATE) {
        int64_t x = a.i * MILLIS_PER_DAY;
        return x < b.i ? -1 : x > b.i ? 1 : 0;
    }
    if (b_type.id == TYPE_DATE && a_type.id != TYPE_DATE) {
        int64_t y = b.i * MILLIS_PER_DAY;
        return a.i < y ? -1 : a.i > y ? 1 : 0;
    }
    return value_compare(a_type, a, b);
}

/* True when a comparison of `order` (its row's ORDER) holds for compare_mixed's result. */
bool order_holds(FunctionOrder order, int comparison)
{
    if (comparison == COMPARE_UNORDERED)
        return order == FUNCTION_ORDER_NOT_EQUAL;
    switch (order) {
    case FUNCTION_ORDER_EQUAL:
        return comparison == 0;
    case FUNCTION_ORDER_NOT_EQUAL:
        return comparison != 0;
    case FUNCTION_ORDER_LESS:
        return comparison < 0;
    case FUNCTION_ORDER_LESS_EQUAL:
        return comparison <= 0;
    case FUNCTION_ORDER_GREATER:
        return comparison > 0;
    case FUNCTION_ORDER_GREATER_EQUAL:
        return comparison >= 0;
    case FUNCTION_ORDER_NONE:
        break;
    }
    return false;
}

/* = <> < <= > >= */
Value eval_comparison(const Expr *expr, const EvalInput *input)
{
    const Expr *left = expr->call.args[0], *right = expr->call.args[1];
    Value a = eval_expr(left, input);
    Value b = eval_expr(right, input);
    if (a.is_null || b.is_null)
        return value_null();
    return value_bool(order_holds(function_info(expr->call.function)->order,
                                  compare_mixed(left->type, a, right->type, b)));
}

/* IS NOT DISTINCT FROM: equal, or both NULL */
static bool not_distinct(const Expr *expr, const EvalInput *input)
{
    const Expr *left = expr->call.args[0], *right = expr->call.args[1];
    Value a = eval_expr(left, input);
    Value b = eval_expr(right, input);
    if (a.is_null || b.is_null)
        return a.is_null && b.is_null;
    return compare_mixed(left->type, a, right->type, b) == 0;
}

Value eval_is_distinct_from(const Expr *expr, const EvalInput *input)
{
    return value_bool(!not_distinct(expr, input));
}

Value eval_is_not_distinct_from(const Expr *expr, const EvalInput *input)
{
    return value_bool(not_distinct(expr, input));
}

Value eval_in(const Expr *expr, const EvalInput *input)
{
    const Expr *operand = expr->call.args[0];
    Value a = eval_expr(operand, input);
    if (a.is_null)
        return a;
    bool saw_null = false;
    for (uint32_t i = 1; i < expr->call.arg_count; i++) {
        const Expr *candidate = expr->call.args[i];
        Value b = eval_expr(candidate, input);
        if (b.is_null) {
            saw_null = true;
            continue;
        }
        if (compare_mixed(operand->type, a, candidate->type, b) == 0)
            return value_bool(true);
    }
    return saw_null ? value_null() : value_bool(false);
}

/* GREATEST / LEAST: the first greatest (least) argument, NULL when any is NULL */
Value eval_greatest_least(const Expr *expr, const EvalInput *input)
{
    bool greatest = expr->call.function == FUNCTION_GREATEST;
    Value best = value_null();
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        Value v = eval_expr(expr->call.args[i], input);
        if (v.is_null)
            return v;
        if (i == 0) {
            best = v;
            continue;
        }
        int order = compare_mixed(expr->call.args[i]->type, v, expr->type, best);
        if (order != COMPARE_UNORDERED && (greatest ? order > 0 : order < 0))
            best = v;
    }
    return best;
}
