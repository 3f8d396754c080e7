/*
 * user_defined.c - the evaluator of user-defined scalar C functions
 * (FUNCTION_USER_DEFINED, call.udf): the arguments (the binder cast them to
 * the declared types) go to udf_call_scalar; an error the function returns
 * becomes the evaluation's runtime error naming it.
 */
#include "engine/exec/eval/eval.h"
#include "engine/udf/udf.h"

enum { USER_DEFINED_MAX_ARGUMENTS = 64 };

Value eval_user_defined(const Expr *expr, const EvalInput *input)
{
    const UdfFunction *function = expr->call.udf;
    if (!function || expr->call.arg_count != function->argument_count ||
        function->argument_count > USER_DEFINED_MAX_ARGUMENTS)
        return eval_error(input, "internal: a user-defined function call without its function");
    Value arguments[USER_DEFINED_MAX_ARGUMENTS + 1];
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        arguments[i] = eval_expr(expr->call.args[i], input);
        if (input->context->failed)
            return value_null();
    }
    Diag local;
    diag_clear(&local);
    Value result;
    if (udf_call_scalar(function, arguments, input->context->arena, &result, &local) != JOINERY_OK)
        return eval_error(input, "%s", local.message);
    return result;
}
