/*
 * expr.h - bound (resolved, typed) scalar expressions, shared by the planner
 * (which builds, rewrites and prints them) and the executor (which evaluates
 * them, engine/exec/expr_eval.h).
 *
 * Invariants:
 * - Every Expr has its result DataType; arguments have been given implicit
 *   casts (EXPR_CALL with FUNCTION_CAST) where their types differed from what
 *   the function needs, so evaluation never guesses types.
 * - An input reference indexes the fields of the node's input; for a
 *   two-input node (join) the left input's fields come first, then the
 *   right's.
 * - Expressions live in an arena (statement or job); they are immutable once
 *   built, and may be shared between plan nodes.
 */
#ifndef JOINERY_PLAN_EXPR_H
#define JOINERY_PLAN_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"

typedef enum ExprKind {
    EXPR_INPUT_REF, /* field input_index of the input row(s) */
    EXPR_LITERAL,   /* constant `literal` of `type` (strings point into the arena) */
    EXPR_CALL,      /* function applied to args */
} ExprKind;

/*
 * Scalar functions and operators. Spelling in plans (prefix form in the
 * physical plan, infix in the execution plan) comes from expr_print.c.
 */
typedef enum FunctionId {
    /* comparison: two args of one common type, BOOLEAN result */
    FUNCTION_EQUAL,
    FUNCTION_NOT_EQUAL,
    FUNCTION_LESS,
    FUNCTION_LESS_EQUAL,
    FUNCTION_GREATER,
    FUNCTION_GREATER_EQUAL,
    FUNCTION_IS_DISTINCT_FROM,
    FUNCTION_IS_NOT_DISTINCT_FROM,
    /* logic, three-valued: AND/OR take 2+ args */
    FUNCTION_AND,
    FUNCTION_OR,
    FUNCTION_NOT,
    FUNCTION_IS_NULL,
    FUNCTION_IS_NOT_NULL,
    FUNCTION_IS_TRUE,
    FUNCTION_IS_NOT_TRUE,
    FUNCTION_IS_FALSE,
    FUNCTION_IS_NOT_FALSE,
    /* arithmetic */
    FUNCTION_PLUS,
    FUNCTION_MINUS,
    FUNCTION_MULTIPLY,
    FUNCTION_DIVIDE,
    FUNCTION_MOD,
    FUNCTION_NEGATE,
    /* conditional */
    FUNCTION_CASE, /* args: cond1, result1, cond2, result2, ..., else (always present) */
    FUNCTION_COALESCE,
    FUNCTION_NULLIF,
    FUNCTION_IF,       /* IF(cond, a, b) */
    FUNCTION_IN,       /* args: operand, value1, value2, ... (same type) */
    FUNCTION_LIKE,     /* operand, pattern[, escape] */
    FUNCTION_CAST,     /* one arg, to the Expr's type */
    FUNCTION_TRY_CAST, /* like CAST but NULL on failure */
    /* strings */
    FUNCTION_CHAR_LENGTH,
    FUNCTION_UPPER,
    FUNCTION_LOWER,
    FUNCTION_SUBSTRING, /* string, start[, length] */
    FUNCTION_CONCAT,    /* CONCAT(a, b, ...) and a || b */
    FUNCTION_TRIM,      /* string[, characters]; trim_mode in Expr */
    FUNCTION_POSITION,
    FUNCTION_REPLACE,
    /* time */
    FUNCTION_DATE_FORMAT,       /* timestamp or string, format */
    FUNCTION_TO_TIMESTAMP,      /* string[, format] */
    FUNCTION_CURRENT_TIMESTAMP, /* TIMESTAMP_LTZ(3), evaluated per record */
    FUNCTION_CURRENT_DATE,
    FUNCTION_PROCTIME,          /* TIMESTAMP_LTZ(3) *PROCTIME* */
    FUNCTION_CURRENT_WATERMARK, /* (rowtime): the evaluating operator's input watermark as
                                   the rowtime's type, NULL before the first; the argument
                                   is only typed, never evaluated */
    FUNCTION_EXTRACT,           /* unit literal, temporal */
    /* numeric */
    FUNCTION_ABS,
    FUNCTION_FLOOR,
    FUNCTION_CEIL,
    FUNCTION_ROUND,
    FUNCTION_ITEM,        /* map[key]: the value, NULL when the key is absent */
    FUNCTION_CARDINALITY, /* CARDINALITY(map): number of entries, INT */
    FUNCTION_MAP,         /* MAP[k1, v1, k2, v2, ...] */
    FUNCTION_COUNT_       /* number of functions; not a function */
} FunctionId;

typedef enum TrimMode {
    TRIM_BOTH = 0,
    TRIM_LEADING,
    TRIM_TRAILING,
} TrimMode;

typedef struct Expr Expr;

struct Expr {
    ExprKind kind;
    DataType type;
    union {
        uint32_t input_index; /* EXPR_INPUT_REF */
        Value literal;        /* EXPR_LITERAL */
        struct {
            FunctionId function;
            uint32_t arg_count;
            Expr **args;
            TrimMode trim_mode; /* FUNCTION_TRIM only */
            /*
             * FUNCTION_CAST only: inserted by function_resolve to widen an
             * argument (INT -> BIGINT, CHAR -> VARCHAR); Flink's plans do not
             * show such casts, so expr_print writes only the operand.
             */
            bool implicit;
        } call;
    };
};

/* Constructors: all allocate from `arena`; NULL when memory is exhausted. */
Expr *expr_make_input_ref(Arena *arena, uint32_t input_index, DataType type);
Expr *expr_make_literal(Arena *arena, DataType type, Value value); /* copies strings */
Expr *expr_make_call(Arena *arena, FunctionId function, DataType type, Expr **args,
                     uint32_t arg_count); /* copies the args array */
/* CAST(expr AS type), or expr itself when the types already match. */
Expr *expr_make_cast(Arena *arena, Expr *expr, DataType type);
/* Like expr_make_cast, but marks the cast implicit (not printed in plans). */
Expr *expr_make_implicit_cast(Arena *arena, Expr *expr, DataType type);
/*
 * True when CAST(value of `from` AS `to`) is allowed (as Flink allows it):
 * between numerics, anything to and from strings, BOOLEAN <-> numeric,
 * DATE <-> TIMESTAMP, TIMESTAMP <-> TIMESTAMP_LTZ, TIME <-> TIMESTAMP,
 * NULL to anything. The binder checks explicit CAST/TRY_CAST with it.
 */
bool expr_cast_is_valid(DataType from, DataType to);

/* AND of the non-NULL conditions (NULL when there are none). */
Expr *expr_make_and(Arena *arena, Expr **conditions, uint32_t count);

/*
 * Resolves a call of function `name` (case-insensitive, as written in SQL,
 * e.g. "upper", "DATE_FORMAT", "CHAR_LENGTH", "COALESCE") or an operator to a
 * typed Expr: checks arity and argument types, widens arguments with casts
 * as Flink does, and infers the result type and nullability. Operators and
 * special forms come with their FunctionId already (pass name NULL).
 * Returns NULL with diag set (JOINERY_ERROR_VALIDATE, message naming the
 * function and the offending argument types, or "No match found for function
 * signature NAME(<types>)"; JOINERY_ERROR_UNSUPPORTED for known Flink
 * functions joinery does not run yet) on failure. Unknown names give a "did
 * you mean" suggestion.
 */
Expr *function_resolve(Arena *arena, const char *name, FunctionId function, Expr **args,
                       uint32_t arg_count, Diag *diag);

/* True when `name` is an aggregate function name (COUNT, SUM, MIN, MAX, AVG). */
bool function_is_aggregate_name(const char *name);

/* Deep structural equality (same shape, types, literals, refs). */
bool expr_equals(const Expr *a, const Expr *b);
/* Copy with every input ref i replaced by mapping[i] (mapping[i] < 0 is an error: returns NULL). */
Expr *expr_remap_inputs(Arena *arena, const Expr *expr, const int32_t *mapping);
/* Copy with every input ref i replaced by the expression replacements[i]. */
Expr *expr_substitute_inputs(Arena *arena, const Expr *expr, Expr *const *replacements);
/* Sets bit i of `used` (an array of uint64 words, caller zeroed) for every input ref i. */
void expr_collect_inputs(const Expr *expr, uint64_t *used);
/* True when the expression reads no input and calls nothing non-deterministic. */
bool expr_is_constant(const Expr *expr);
/* True when `expr` (NULL allowed) calls `function` anywhere in its tree. */
bool expr_calls(const Expr *expr, FunctionId function);
/* True for functions whose value changes per call (CURRENT_TIMESTAMP, PROCTIME). */
bool expr_is_deterministic(const Expr *expr);
/*
 * True when the expression is NULL or FALSE whenever every input ref in
 * `fields` (bit set) is NULL: a WHERE with such a predicate rejects the
 * NULL-padded rows of an outer join (used for LEFT -> INNER simplification).
 */
bool expr_is_null_rejecting(const Expr *expr, const uint64_t *fields);

/* How EXPLAIN writes expressions. */
typedef enum ExprStyle {
    EXPR_STYLE_PREFIX, /* physical plan: >(amount, 10), AND(=(a, b), IS NOT NULL(c)) */
    EXPR_STYLE_INFIX,  /* execution plan: (amount > 10), ((a = b) AND c IS NOT NULL) */
} ExprStyle;

/*
 * Appends the expression, naming input ref i as field_names[i]. Literals are
 * written as Flink writes them: 10, 10.5:DECIMAL(3, 1) where Flink adds a
 * type, _UTF-16LE'text' in the prefix style ('text' in infix), null:BIGINT,
 * 5000:INTERVAL SECOND, 2024-01-01 10:00:00 for timestamps.
 */
int expr_print(const Expr *expr, const char *const *field_names, ExprStyle style, StrBuf *out);

/*
 * Writes the type as Calcite (and so Flink's plans and validation messages)
 * spells it: INTEGER, VARCHAR(2147483647), DECIMAL(10, 2),
 * TIMESTAMP_WITH_LOCAL_TIME_ZONE(3), INTERVAL SECOND. With `full`, adds
 * CHARACTER SET "UTF-16LE" to strings, " NOT NULL" and a time attribute
 * marker (the form CAST shows in the physical plan). Returns buffer.
 * type_format_as (engine/base/type.h) with TYPE_FORMAT_CALCITE.
 */
const char *expr_type_name(DataType type, bool full, char *buffer, size_t size);

#endif
