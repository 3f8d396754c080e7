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
 * Scalar functions and operators, one row each in function_list.h (name,
 * arity, typing rule, evaluator, printing, NULL behaviour, ...): the enum
 * and FUNCTION_INFO below come from those rows.
 */
typedef enum FunctionId {
#define FUNCTION(ID, ...) FUNCTION_##ID,
#include "engine/plan/function_list.h"
    FUNCTION_COUNT_ /* number of functions; not a function */
} FunctionId;

enum { FUNCTION_ARGS_ANY = 255 }; /* max_args of functions without an upper bound */

/* How SQL calls a function. */
typedef enum FunctionCall {
    FUNCTION_CALL_OPERATOR, /* by its syntax only (a = b, CASE, CAST, x IN (...)), not by name */
    FUNCTION_CALL_NAMED,    /* NAME(args); a wrong number of arguments is reported as such */
    FUNCTION_CALL_NILADIC,  /* NAME without arguments; with some, an unknown signature */
} FunctionCall;

/* How Calcite's "Cannot apply" messages write a call. */
typedef enum FunctionSyntax {
    FUNCTION_SYNTAX_FUNCTION, /* NAME(<A>, <B>), NAME as the call spelled it */
    FUNCTION_SYNTAX_BINARY,   /* <A> NAME <B> */
    FUNCTION_SYNTAX_PREFIX,   /* NAME<A> */
    FUNCTION_SYNTAX_POSTFIX,  /* <A> NAME */
    FUNCTION_SYNTAX_SPECIAL,  /* NAME(<A>, <B>), always NAME (CASE, ITEM, MAP) */
} FunctionSyntax;

/* How EXPLAIN writes a call (expr_print.c). */
typedef enum FunctionPrint {
    FUNCTION_PRINT_CALL,      /* NAME(a, b) */
    FUNCTION_PRINT_INFIX,     /* NAME(a, b); (a NAME b) in the execution plan */
    FUNCTION_PRINT_POSTFIX,   /* NAME(a); a NAME in the execution plan */
    FUNCTION_PRINT_CAST,      /* CAST(a AS type); nothing of an implicit cast */
    FUNCTION_PRINT_IN,        /* SEARCH(x, Sarg[...]) of literals, else an OR of equalities */
    FUNCTION_PRINT_TRIM,      /* TRIM(FLAG(BOTH), ' ', s) */
    FUNCTION_PRINT_EXTRACT,   /* EXTRACT(FLAG(YEAR), t) */
    FUNCTION_PRINT_UNIT_LAST, /* FLOOR(t, FLAG(HOUR)) with a unit; else as CALL */
    FUNCTION_PRINT_FIELD,     /* r.name (field access; the index literal names the field) */
} FunctionPrint;

/*
 * When a call is NULL because its arguments are, and for predicates, which
 * rows with NULL inputs it rejects (expr_is_null_rejecting).
 */
typedef enum FunctionNulls {
    FUNCTION_NULLS_STRICT,       /* NULL when any argument is */
    FUNCTION_NULLS_ALL,          /* NULL when every argument is (COALESCE) */
    FUNCTION_NULLS_AND,          /* as ALL; rejects a row when any argument does */
    FUNCTION_NULLS_OR,           /* as ALL; rejects a row when every argument does */
    FUNCTION_NULLS_ARG0,         /* NULL when argument 0 is (IN: the operand) */
    FUNCTION_NULLS_ARG1,         /* NULL when argument 1 is (EXTRACT: not the unit) */
    FUNCTION_NULLS_OWN,          /* not known from its arguments: never NULL (IS TRUE), or
                                    NULL for reasons of its own (NULLIF, CASE, TRY_CAST) */
    FUNCTION_NULLS_IS_NOT_NULL,  /* never NULL; rejects a row whose argument is NULL */
    FUNCTION_NULLS_IS_TRUE,      /* never NULL; rejects a row its argument rejects */
    FUNCTION_NULLS_NOT_DISTINCT, /* never NULL; rejects a row where one side is NULL and the
                                    other a non-NULL literal */
} FunctionNulls;

/* For a comparison, the outcome of comparing its two values that makes it TRUE. */
typedef enum FunctionOrder {
    FUNCTION_ORDER_NONE, /* not a comparison of two values */
    FUNCTION_ORDER_EQUAL,
    FUNCTION_ORDER_NOT_EQUAL, /* also TRUE when they are unordered (NaN) */
    FUNCTION_ORDER_LESS,
    FUNCTION_ORDER_LESS_EQUAL,
    FUNCTION_ORDER_GREATER,
    FUNCTION_ORDER_GREATER_EQUAL,
} FunctionOrder;

/* For arithmetic, its operation. */
typedef enum FunctionArithmetic {
    FUNCTION_ARITHMETIC_NONE, /* not + - * / MOD */
    FUNCTION_ARITHMETIC_PLUS,
    FUNCTION_ARITHMETIC_MINUS,
    FUNCTION_ARITHMETIC_MULTIPLY,
    FUNCTION_ARITHMETIC_DIVIDE,
    FUNCTION_ARITHMETIC_MOD,
} FunctionArithmetic;

/* How the cost model estimates the fraction of rows a predicate keeps (cost.c). */
typedef enum FunctionSelectivity {
    FUNCTION_SELECTIVITY_GUESS,       /* 0.25 */
    FUNCTION_SELECTIVITY_EQUAL,       /* 1 / distinct values against a constant, else 0.15 */
    FUNCTION_SELECTIVITY_RANGE,       /* 0.5 */
    FUNCTION_SELECTIVITY_IS_NULL,     /* the known NULL fraction, else 0.25 */
    FUNCTION_SELECTIVITY_IS_NOT_NULL, /* 1 - the known NULL fraction, else 0.9 */
    FUNCTION_SELECTIVITY_AND,         /* the product of its conjuncts' */
} FunctionSelectivity;

typedef enum FunctionDeterminism {
    FUNCTION_DETERMINISTIC,
    FUNCTION_NONDETERMINISTIC, /* changes per call (CURRENT_TIMESTAMP) or with where it runs
                                  (CURRENT_WATERMARK): never folded, never moved */
} FunctionDeterminism;

/* One row of function_list.h, as the planner reads it (the evaluator is engine/exec's). */
typedef struct FunctionInfo {
    const char *name; /* SQL name; EXPLAIN's and Calcite's spelling */
    FunctionCall call;
    uint8_t min_args;
    uint8_t max_args; /* FUNCTION_ARGS_ANY: no upper bound */
    FunctionSyntax syntax;
    FunctionPrint print;
    FunctionNulls nulls;
    FunctionOrder order;
    FunctionArithmetic arithmetic;
    FunctionSelectivity selectivity;
    FunctionDeterminism determinism;
    const char *forms; /* Calcite's "Supported form(s)", "" for none */
} FunctionInfo;

extern const FunctionInfo FUNCTION_INFO[FUNCTION_COUNT_];

static inline const FunctionInfo *function_info(FunctionId function)
{
    return &FUNCTION_INFO[function];
}

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
            /* FUNCTION_USER_DEFINED only: the loaded scalar function (engine/udf/udf.h) */
            const struct UdfFunction *udf;
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

/*
 * Calls emit(context, name) for every name a query can call a function by:
 * the named and niladic rows of function_list.h, their aliases, then the
 * aggregate functions (SHOW FUNCTIONS, completion). Names are upper case and
 * may repeat (MIN, MAX); the caller sorts and deduplicates as it needs.
 */
void function_list_names(void (*emit)(void *context, const char *name), void *context);

/* 0..3 for an auxiliary group window function (TUMBLE_START, HOP_END, SESSION_ROWTIME,
   ..._PROCTIME: start, end, rowtime, proctime), else -1. */
int expr_window_property(FunctionId function);
/* Deep structural equality (same shape, types, literals, refs). */
bool expr_equals(const Expr *a, const Expr *b);
/* Copy with every input ref i replaced by mapping[i] (mapping[i] < 0 is an error: returns NULL). */
Expr *expr_remap_inputs(Arena *arena, const Expr *expr, const int32_t *mapping);
/*
 * Copy with every input ref i replaced by the expression replacements[i]; an
 * auxiliary group window function over $WINDOW(start, end, rowtime, proctime)
 * becomes that argument (TUMBLE_END($WINDOW(...)) -> end).
 */
Expr *expr_substitute_inputs(Arena *arena, const Expr *expr, Expr *const *replacements);
/*
 * The bound on expressions the rules build by substitution (merging Calcs,
 * pushing filters and watermarks through projections): at most EXPR_MAX_DEPTH
 * levels (the parser's SQL_MAX_DEPTH) and EXPR_MAX_NODES nodes read as a tree
 * (substitution shares subexpressions, so a tree can be exponential in its
 * memory). A rule whose result would not fit keeps the nodes apart instead.
 */
enum { EXPR_MAX_DEPTH = 2000, EXPR_MAX_NODES = 100000 };
/* True when expr fits the bound above; stops counting (and recursing) beyond it. */
bool expr_fits(const Expr *expr);
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
