/*
 * logic.c - three-valued logic and conditionals, as Flink's generated code:
 * AND is FALSE if any operand is FALSE, else NULL if any is NULL; OR is TRUE
 * if any operand is TRUE, else NULL if any is NULL; IS [NOT] NULL/TRUE/FALSE
 * are never NULL; CASE, COALESCE, IF and NULLIF evaluate only the branches
 * they need and cast the chosen one to the call's type.
 */
#include "engine/exec/eval/eval.h"

Value eval_and(const Expr *expr, const EvalInput *input)
{
    bool saw_null = false;
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        Value v = eval_expr(expr->call.args[i], input);
        if (input->context->failed)
            return value_null();
        if (v.is_null)
            saw_null = true;
        else if (!v.i)
            return value_bool(false);
    }
    return saw_null ? value_null() : value_bool(true);
}

Value eval_or(const Expr *expr, const EvalInput *input)
{
    bool saw_null = false;
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        Value v = eval_expr(expr->call.args[i], input);
        if (input->context->failed)
            return value_null();
        if (v.is_null)
            saw_null = true;
        else if (v.i)
            return value_bool(true);
    }
    return saw_null ? value_null() : value_bool(false);
}

Value eval_not(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return a.is_null ? a : value_bool(!a.i);
}

Value eval_is_null(const Expr *expr, const EvalInput *input)
{
    return value_bool(eval_expr(expr->call.args[0], input).is_null);
}

Value eval_is_not_null(const Expr *expr, const EvalInput *input)
{
    return value_bool(!eval_expr(expr->call.args[0], input).is_null);
}

Value eval_is_true(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(!a.is_null && a.i);
}

Value eval_is_not_true(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(a.is_null || !a.i);
}

Value eval_is_false(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(!a.is_null && !a.i);
}

Value eval_is_not_false(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(a.is_null || a.i);
}

/* Evaluates arg i and casts it to the call's result type when the types differ. */
static Value eval_as_result(const Expr *expr, uint32_t i, const EvalInput *input)
{
    const Expr *arg = expr->call.args[i];
    Value v = eval_expr(arg, input);
    if (v.is_null || type_equals(arg->type, expr->type))
        return v;
    return cast_value(input, arg->type, expr->type, v, false);
}

Value eval_case(const Expr *expr, const EvalInput *input)
{
    uint32_t count = expr->call.arg_count;
    for (uint32_t i = 0; i + 1 < count; i += 2) {
        Value condition = eval_expr(expr->call.args[i], input);
        if (!condition.is_null && condition.i)
            return eval_as_result(expr, i + 1, input);
    }
    return eval_as_result(expr, count - 1, input);
}

Value eval_coalesce(const Expr *expr, const EvalInput *input)
{
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        Value v = eval_as_result(expr, i, input);
        if (!v.is_null || input->context->failed)
            return v;
    }
    return value_null();
}

Value eval_if(const Expr *expr, const EvalInput *input)
{
    Value condition = eval_expr(expr->call.args[0], input);
    return eval_as_result(expr, (!condition.is_null && condition.i) ? 1 : 2, input);
}

Value eval_nullif(const Expr *expr, const EvalInput *input)
{
    const Expr *right = expr->call.args[1];
    Value a = eval_as_result(expr, 0, input);
    if (a.is_null)
        return a;
    Value b = eval_expr(right, input);
    if (!b.is_null && compare_mixed(expr->type, a, right->type, b) == 0)
        return value_null();
    return a;
}
