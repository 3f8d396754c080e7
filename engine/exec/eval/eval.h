/*
 * eval.h - what the files of expression evaluation share, inside
 * engine/exec: the input of one evaluation, the helpers, and the evaluators
 * of function_list.h's EVAL column, declared from its rows. expr_eval.c
 * dispatches to the evaluators; each family file defines its rows':
 *   compare.c     = <> < <= > >=, IS [NOT] DISTINCT FROM, IN
 *   logic.c       AND OR NOT, IS [NOT] NULL/TRUE/FALSE, CASE COALESCE IF NULLIF
 *   arithmetic.c  + - * / MOD, negation, ABS FLOOR CEIL ROUND, DECIMAL helpers
 *   cast.c        CAST, TRY_CAST
 *   strings.c     CHAR_LENGTH UPPER LOWER SUBSTRING CONCAT TRIM POSITION
 *                 REPLACE, LIKE
 *   datetime.c    DATE_FORMAT TO_TIMESTAMP EXTRACT, CURRENT_TIMESTAMP,
 *                 LOCALTIMESTAMP, CURRENT_DATE, PROCTIME, CURRENT_WATERMARK
 *   maps.c        ITEM CARDINALITY MAP (ITEM and CARDINALITY of arrays and multisets too)
 *   composites.c  ROW ARRAY DOT ELEMENT ARRAY_CONTAINS, CAST between composites,
 *                 HASH_CODE
 *   user_defined.c  user-defined scalar C functions (engine/udf/)
 * An evaluator evaluates the arguments it needs with eval_expr and reports
 * runtime errors with eval_error (the result is then NULL).
 */
#ifndef JOINERY_EXEC_EVAL_EVAL_H
#define JOINERY_EXEC_EVAL_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/strbuf.h"
#include "engine/exec/expr_eval.h"

__extension__ typedef __int128 Int128;

enum { MILLIS_PER_DAY = 86400000 };

/* One evaluation: the row or rows (see expr_eval) and the context. */
typedef struct EvalInput {
    const Row *left;
    uint32_t left_field_count;
    const Row *right;
    ExprEvalContext *context;
} EvalInput;

/* An evaluator: the EVAL column of function_list.h. */
typedef Value Evaluator(const Expr *expr, const EvalInput *input);

/* Every row's evaluator (one may serve several rows). */
#define FUNCTION(ID, NAME, CALL, MIN, MAX, SYNTAX, PRINT, TYPING, EVAL, ...) Evaluator EVAL;
#include "engine/plan/function_list.h"

static inline Value value_bool(bool b)
{
    return value_int(b ? 1 : 0);
}

/* ---- expr_eval.c ------------------------------------------------------ */

/* The value of any expression over the input. */
Value eval_expr(const Expr *expr, const EvalInput *input);
/* Records a runtime error (the first one wins), marks the evaluation failed; NULL. */
__attribute__((format(printf, 2, 3))) Value eval_error(const EvalInput *input, const char *format,
                                                       ...);
Value eval_out_of_memory(const EvalInput *input);
/* A copy of text in the evaluation arena, NUL-terminated; NULL when memory ran out. */
char *eval_arena_copy(const EvalInput *input, const char *text, size_t length);
Value string_from_strbuf(const EvalInput *input, StrBuf *built, int status);

/* ---- arithmetic.c ----------------------------------------------------- */

/* Java's (long) d: truncation toward zero, NaN -> 0, saturation. */
int64_t java_double_to_long(double d);
double numeric_to_double(DataType type, Value value);
/* A 128-bit unscaled decimal from scale `from` to `to` (HALF_UP); sets *overflow. */
Int128 rescale_128(Int128 value, int from, int to, bool *overflow);
/* The unscaled value as DECIMAL `type`, NULL when it overflowed or does not fit. */
Value decimal_result(Int128 value, DataType type, bool overflow);

/* ---- datetime.c ------------------------------------------------------- */

/* FLOOR / CEIL (t TO unit), the call (t, 'UNIT') as the typing checked it. */
Value eval_round_to_unit(const Expr *expr, const EvalInput *input, bool floor_it);

/* ---- compare.c -------------------------------------------------------- */

/* compare_mixed's result when an operand is NaN: only <> holds. */
enum { COMPARE_UNORDERED = -2147483647 - 1 };

/* <0, 0, >0 or COMPARE_UNORDERED for two non-NULL values of comparable types. */
int compare_mixed(DataType a_type, Value a, DataType b_type, Value b);
bool order_holds(FunctionOrder order, int comparison);

/* ---- cast.c ----------------------------------------------------------- */

/* CAST(value AS to) of a value of type `from`; with try_cast, failures are NULL. */
Value cast_value(const EvalInput *input, DataType from, DataType to, Value value, bool try_cast);

/* ---- composites.c ----------------------------------------------------- */

/* CAST of a non-NULL ROW, ARRAY or MULTISET to a composite of the same kind. */
Value cast_composite(const EvalInput *input, DataType from, DataType to, Value value,
                     bool try_cast);

#endif
