/*
 * expr_eval.h - evaluation of bound scalar expressions (engine/plan/expr.h)
 * over rows, with Flink's runtime semantics: SQL three-valued logic,
 * Java wrap-around for integer overflow, runtime errors for integer division
 * by zero and failing CASTs, NULL for DECIMAL overflow.
 *
 * Invariants: evaluation never allocates except from context->arena (for
 * strings it produces); results point into the input rows, the expression's
 * literals or that arena, so they are valid until the caller resets the
 * arena or releases the rows. The session time zone is UTC.
 */
#ifndef JOINERY_EXEC_EXPR_EVAL_H
#define JOINERY_EXEC_EXPR_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/value.h"
#include "engine/plan/expr.h"

typedef struct ExprEvalContext {
    Arena *arena;       /* scratch for string results; the caller resets it between batches */
    Diag *diag;         /* runtime errors (division by zero, overflow, bad cast) */
    int64_t now_millis; /* CURRENT_TIMESTAMP / PROCTIME value for this batch */
    bool failed;        /* set when an error was recorded; the result is then NULL */
    /* CURRENT_WATERMARK: the evaluating operator's input watermark (Calc sets it);
       without one (the zeroed default) CURRENT_WATERMARK is NULL */
    bool has_watermark;
    int64_t watermark;
} ExprEvalContext;

/*
 * Evaluates expr over one row (right NULL) or a pair of rows (left fields
 * first: input ref i < left_field_count reads left, others read right at
 * i - left_field_count). With one row, pass its field count (0 also
 * means "every field is the left row's"). A NULL row pointer reads as
 * all-NULL fields (the padded side of an outer join). On a runtime error, records it in
 * context->diag (JOINERY_ERROR_RUNTIME), sets context->failed and returns NULL.
 */
Value expr_eval(const Expr *expr, const Row *left, uint32_t left_field_count, const Row *right,
                ExprEvalContext *context);

/*
 * Evaluates a predicate: true only when the value is TRUE (NULL and FALSE
 * are false). Same inputs and error reporting as expr_eval.
 */
bool expr_eval_predicate(const Expr *expr, const Row *left, uint32_t left_field_count,
                         const Row *right, ExprEvalContext *context);

#endif
