/*
 * expr_eval.c - evaluates bound expressions over rows (see expr_eval.h):
 * input references, literals and calls, each call by its row's evaluator
 * (EVALUATORS, from the EVAL column of engine/plan/function_list.h). The
 * evaluators are in engine/exec/eval/, one file per family (eval/eval.h
 * lists them); their semantics follow Flink's generated code.
 * Common predicate shapes (input ref compared with a literal, AND chains)
 * are evaluated without the general recursion.
 */
#include "engine/exec/expr_eval.h"

#include <stdarg.h>
#include <stdio.h>

#include "engine/exec/eval/eval.h"

/* ---- errors ----------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) Value eval_error(const EvalInput *input, const char *format,
                                                       ...)
{
    ExprEvalContext *context = input->context;
    if (!context->failed && context->diag && !diag_failed(context->diag)) {
        char message[DIAG_MESSAGE_MAX];
        va_list args;
        va_start(args, format);
        vsnprintf(message, sizeof message, format, args);
        va_end(args);
        diag_error(context->diag, JOINERY_ERROR_RUNTIME, "%s", message);
    }
    context->failed = true;
    return value_null();
}

Value eval_out_of_memory(const EvalInput *input)
{
    return eval_error(input, "out of memory while evaluating an expression");
}

/* ---- small helpers ---------------------------------------------------- */

static inline Value read_input(const Expr *expr, const EvalInput *input)
{
    uint32_t field = expr->input_index;
    const Row *row = input->left;
    if (field >= input->left_field_count) {
        row = input->right;
        field -= input->left_field_count;
    }
    if (!row)
        return value_null();
    return value_from_row(row, field, expr->type);
}

char *eval_arena_copy(const EvalInput *input, const char *text, size_t length)
{
    return arena_strndup(input->context->arena, text ? text : "", length);
}

/*
 * The bytes built in `built` (freed here) as a string value in the
 * evaluation arena; `status` is how the building went (0, or non-zero when
 * memory ran out: the out-of-memory result).
 */
Value string_from_strbuf(const EvalInput *input, StrBuf *built, int status)
{
    char *copy = status == 0 ? eval_arena_copy(input, built->data, built->length) : NULL;
    uint32_t length = (uint32_t)built->length;
    strbuf_free(built);
    return copy ? value_string(copy, length) : eval_out_of_memory(input);
}

/* ---- dispatch --------------------------------------------------------- */

static Evaluator *const EVALUATORS[] = {
#define FUNCTION(ID, NAME, CALL, MIN, MAX, SYNTAX, PRINT, TYPING, EVAL, ...) EVAL,
#include "engine/plan/function_list.h"
};
_Static_assert(sizeof EVALUATORS / sizeof EVALUATORS[0] == FUNCTION_COUNT_,
               "EVALUATORS has one evaluator per function");

static Value eval_call(const Expr *expr, const EvalInput *input)
{
    FunctionId function = expr->call.function;
    if ((unsigned)function >= FUNCTION_COUNT_)
        return eval_error(input, "cannot evaluate function %d", (int)function);
    return EVALUATORS[function](expr, input);
}

Value eval_expr(const Expr *expr, const EvalInput *input)
{
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        return read_input(expr, input);
    case EXPR_LITERAL:
        return expr->literal;
    case EXPR_CALL:
        return eval_call(expr, input);
    }
    return value_null();
}

/* With one row (right NULL) and no field count given, every field is the left row's. */
static uint32_t single_row_count(const Row *left, uint32_t left_field_count, const Row *right)
{
    if (!right && left && left_field_count == 0)
        return UINT32_MAX;
    return left_field_count;
}

Value expr_eval(const Expr *expr, const Row *left, uint32_t left_field_count, const Row *right,
                ExprEvalContext *context)
{
    EvalInput input = {left, single_row_count(left, left_field_count, right), right, context};
    Value result = eval_expr(expr, &input);
    return context->failed ? value_null() : result;
}

/* Rank of an integer type by width (TINYINT < SMALLINT < INT < BIGINT). */
static int integer_width_rank(TypeId id)
{
    return id == TYPE_TINYINT ? 1 : id == TYPE_SMALLINT ? 2 : id == TYPE_INT ? 3 : 4;
}

/* Integer widening casts change nothing in storage: look through them (not through
   narrowing ones, which wrap the value). */
static const Expr *strip_free_cast(const Expr *expr)
{
    while (expr->kind == EXPR_CALL && expr->call.function == FUNCTION_CAST &&
           type_is_integer(expr->type.id) && type_is_integer(expr->call.args[0]->type.id) &&
           integer_width_rank(expr->call.args[0]->type.id) <= integer_width_rank(expr->type.id))
        expr = expr->call.args[0];
    return expr;
}

/* Predicate evaluation with fast paths; returns true only for TRUE. */
static bool predicate(const Expr *expr, const EvalInput *input)
{
    if (expr->kind == EXPR_CALL) {
        FunctionId function = expr->call.function;
        if (function == FUNCTION_AND) {
            /* FALSE and NULL both reject: stop at the first non-TRUE conjunct */
            for (uint32_t i = 0; i < expr->call.arg_count; i++)
                if (!predicate(expr->call.args[i], input))
                    return false;
            return true;
        }
        FunctionOrder order = function_info(function)->order;
        if (order != FUNCTION_ORDER_NONE) {
            const Expr *left = expr->call.args[0];
            const Expr *right = strip_free_cast(expr->call.args[1]);
            if (left->kind == EXPR_INPUT_REF && right->kind == EXPR_LITERAL &&
                type_is_integer(left->type.id) && type_is_integer(right->type.id)) {
                Value a = read_input(left, input);
                if (a.is_null || right->literal.is_null)
                    return false;
                int64_t b = right->literal.i;
                return order_holds(order, a.i < b ? -1 : a.i > b ? 1 : 0);
            }
        }
        if (function == FUNCTION_IS_NOT_NULL && expr->call.args[0]->kind == EXPR_INPUT_REF)
            return !read_input(expr->call.args[0], input).is_null;
    }
    Value v = eval_expr(expr, input);
    return !v.is_null && v.i != 0;
}

bool expr_eval_predicate(const Expr *expr, const Row *left, uint32_t left_field_count,
                         const Row *right, ExprEvalContext *context)
{
    EvalInput input = {left, single_row_count(left, left_field_count, right), right, context};
    bool result = predicate(expr, &input);
    return result && !context->failed;
}
