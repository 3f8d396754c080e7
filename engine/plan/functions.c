/*
 * functions.c - the catalogue of scalar functions and operators: the rows
 * of function_list.h as FUNCTION_INFO and the name lookup, and one typing
 * rule per row (arity and argument type checks, implicit widening and
 * result types), following Flink SQL (Calcite validation with type
 * coercion off).
 *
 * Rules (Flink 1.19 - 2.x):
 * - Comparisons need comparable operands (numeric with numeric, string with
 *   string, ...); numeric against string is an error, as in Flink:
 *   "Cannot apply '>' to arguments of type '<VARCHAR(2147483647)> > <INTEGER>'".
 *   Operands of different types are widened to their common type with
 *   implicit casts (not shown in EXPLAIN, as Flink shows none).
 * - Arithmetic: integer op integer stays integer of the wider type (also for
 *   '/': INT / INT is integer division, Calcite's QUOTIENT_NULLABLE falls
 *   back to the least restrictive type); MOD takes the second operand's type;
 *   anything with DOUBLE/FLOAT is DOUBLE (FLOAT with FLOAT stays FLOAT);
 *   DECIMAL follows Flink's LogicalTypeMerging (SQL Server rules), with
 *   integers taken as DECIMAL(3|5|10|19, 0) and joinery's maximum precision
 *   18 in place of 38 (the scale gives way first, keeping at least
 *   min(scale, 6) digits).
 * - Nullability: NULL in, NULL out for strict functions; IS [NOT] NULL,
 *   IS [NOT] TRUE/FALSE, IS [NOT] DISTINCT FROM are NOT NULL; COALESCE is
 *   nullable only if every argument is; NULLIF, DATE_FORMAT and
 *   TO_TIMESTAMP are always nullable.
 * - Unknown names: "No match found for function signature name(<FAMILY>, ...)"
 *   (Calcite writes type families: NUMERIC, CHARACTER, BOOLEAN, DATE, ...),
 *   with "; did you mean 'X'?" when a catalogued name is close.
 * - Flink functions joinery does not run yet: JOINERY_ERROR_UNSUPPORTED.
 */
#include "engine/plan/expr.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog.h"

/* ---- the rows ----------------------------------------------------------- */

const FunctionInfo FUNCTION_INFO[] = {
#define FUNCTION(ID, NAME, CALL, MIN, MAX, SYNTAX, PRINT, TYPING, EVAL, NULLS, ORDER, ARITHMETIC,  \
                 SELECTIVITY, DETERMINISM, FORMS)                                                  \
    {NAME,                                                                                         \
     FUNCTION_CALL_##CALL,                                                                         \
     MIN,                                                                                          \
     MAX,                                                                                          \
     FUNCTION_SYNTAX_##SYNTAX,                                                                     \
     FUNCTION_PRINT_##PRINT,                                                                       \
     FUNCTION_NULLS_##NULLS,                                                                       \
     FUNCTION_ORDER_##ORDER,                                                                       \
     FUNCTION_ARITHMETIC_##ARITHMETIC,                                                             \
     FUNCTION_SELECTIVITY_##SELECTIVITY,                                                           \
     FUNCTION_##DETERMINISM,                                                                       \
     FORMS},
#include "engine/plan/function_list.h"
};
_Static_assert(sizeof FUNCTION_INFO / sizeof FUNCTION_INFO[0] == FUNCTION_COUNT_,
               "FUNCTION_INFO has one row per function");

/* ---- names ---------------------------------------------------------------- */

/* What a name adds to its function. */
typedef enum NameFlavor {
    FLAVOR_PLAIN = 0,
    FLAVOR_LTRIM,
    FLAVOR_RTRIM,
    FLAVOR_EXTRACT_UNIT, /* YEAR(x) -> EXTRACT('YEAR', x) */
} NameFlavor;

typedef struct FunctionName {
    const char *name;
    FunctionId function;
    uint8_t min_args;
    uint8_t max_args;
    NameFlavor flavor;
} FunctionName;

/* Every name a function is called by, in the rows' order (see function_list.h). */
static const FunctionName FUNCTION_NAMES[] = {
#define NAME_OF_OPERATOR(ID, NAME, MIN, MAX)
#define NAME_OF_NAMED(ID, NAME, MIN, MAX) {NAME, FUNCTION_##ID, MIN, MAX, FLAVOR_PLAIN},
#define NAME_OF_NILADIC NAME_OF_NAMED
#define FUNCTION(ID, NAME, CALL, MIN, MAX, ...) NAME_OF_##CALL(ID, NAME, MIN, MAX)
#define FUNCTION_ALIAS(NAME, ID, MIN, MAX, FLAVOR) {NAME, FUNCTION_##ID, MIN, MAX, FLAVOR_##FLAVOR},
#include "engine/plan/function_list.h"
#undef NAME_OF_OPERATOR
#undef NAME_OF_NAMED
#undef NAME_OF_NILADIC
};

enum { FUNCTION_NAME_COUNT = sizeof FUNCTION_NAMES / sizeof FUNCTION_NAMES[0] };

/* Built-in Flink functions joinery recognises but does not run yet. */
static const char *const UNSUPPORTED_FUNCTIONS[] = {
    "TUMBLE",
    "HOP",
    "SESSION",
    "CUMULATE",
    "TUMBLE_START",
    "TUMBLE_END",
    "TUMBLE_ROWTIME",
    "TUMBLE_PROCTIME",
    "HOP_START",
    "HOP_END",
    "HOP_ROWTIME",
    "HOP_PROCTIME",
    "SESSION_START",
    "SESSION_END",
    "SESSION_ROWTIME",
    "SESSION_PROCTIME",
    "JSON_VALUE",
    "JSON_QUERY",
    "JSON_EXISTS",
    "JSON_OBJECT",
    "JSON_ARRAY",
    "JSON_STRING",
    "JSON_OBJECTAGG",
    "JSON_ARRAYAGG",
    "IS_JSON",
    "REGEXP_EXTRACT",
    "REGEXP_REPLACE",
    "REGEXP",
    "REGEXP_EXTRACT_ALL",
    "REGEXP_COUNT",
    "REGEXP_INSTR",
    "REGEXP_SUBSTR",
    "CONVERT_TZ",
    "DATEDIFF",
    "CURRENT_TIME",
    "LOCALTIME",
    "CURRENT_ROW_TIMESTAMP",
    "SOURCE_WATERMARK",
    "PROCTIME_MATERIALIZE",
    "ROW_NUMBER",
    "RANK",
    "DENSE_RANK",
    "PERCENT_RANK",
    "CUME_DIST",
    "NTILE",
    "LAG",
    "LEAD",
    "SPLIT",
    "OVERLAY",
    "TRANSLATE",
    "ELT",
    "PRINTF",
    "BTRIM",
    "STR_TO_MAP",
    "PARSE_URL",
    "URL_DECODE",
    "URL_ENCODE",
    "MD5",
    "SHA1",
    "SHA2",
    "SHA224",
    "SHA256",
    "SHA384",
    "SHA512",
    "TO_BASE64",
    "FROM_BASE64",
    "ENCODE",
    "DECODE",
    "HEX",
    "UNHEX",
    "BIN",
    "UUID",
    "RAND",
    "RAND_INTEGER",
    "SIN",
    "COS",
    "TAN",
    "COT",
    "ASIN",
    "ACOS",
    "ATAN",
    "ATAN2",
    "SINH",
    "COSH",
    "TANH",
    "DEGREES",
    "RADIANS",
    "E",
    "NVL",
    "IS_DECIMAL",
    "IS_DIGIT",
    "IS_ALPHA",
    "HASH_CODE",
    "TYPEOF",
    "ARRAY_DISTINCT",
    "ARRAY_JOIN",
    "ARRAY_POSITION",
    "ARRAY_REMOVE",
    "MAP_KEYS",
    "MAP_VALUES",
    "MAP_ENTRIES",
    "MATCH_ROWTIME",
    "MATCH_PROCTIME",
    "LAST_DAY",
    "DAYNAME",
    "MONTHNAME",
    "EPOCH",
    "DATE_ADD",
    "DATE_SUB",
    "TIMESTAMP_DIFF",
    "SUBSTRING_INDEX",
};

static const char *const AGGREGATE_FUNCTIONS[] = {
    "COUNT",       "SUM",        "MIN",      "MAX",       "AVG",    "LISTAGG",
    "FIRST_VALUE", "LAST_VALUE", "COLLECT",  "ARRAY_AGG", "STDDEV", "STDDEV_POP",
    "STDDEV_SAMP", "VAR_POP",    "VAR_SAMP", "VARIANCE"};

/* ---- messages -------------------------------------------------------- */

/* Calcite's type family names, used in "No match found for function signature". */
static const char *type_family_name(DataType type)
{
    switch (type.id) {
    case TYPE_NULL:
        return "NULL";
    case TYPE_BOOLEAN:
        return "BOOLEAN";
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INT:
    case TYPE_BIGINT:
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
    case TYPE_DECIMAL:
        return "NUMERIC";
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return "CHARACTER";
    case TYPE_DATE:
        return "DATE";
    case TYPE_TIME:
        return "TIME";
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ:
        return "TIMESTAMP";
    case TYPE_INTERVAL_DAY_TIME:
        return "INTERVAL_DAY_TIME";
    case TYPE_INTERVAL_YEAR_MONTH:
        return "INTERVAL_YEAR_MONTH";
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        return "BINARY";
    case TYPE_MAP:
        return "MAP";
    case TYPE_ROW:
        return "ROW";
    case TYPE_ARRAY:
        return "ARRAY";
    case TYPE_MULTISET:
        return "MULTISET";
    }
    return "ANY";
}

/* A call being typed: the typing rules' one argument. */
typedef struct Call {
    Arena *arena;
    FunctionId function;
    const char *name; /* the name it was called by (an alias's own), NULL for operators */
    NameFlavor flavor;
    Expr **args; /* a copy: the rules widen arguments in place */
    uint32_t count;
    Diag *diag;
} Call;

/* Writes the argument types as Calcite's "Cannot apply" message shows them. */
static void format_call_types(char *buffer, size_t size, const char *name, FunctionSyntax syntax,
                              Expr **args, uint32_t count)
{
    size_t used = 0;
    char type_name[96];
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (used < size) {                                                                         \
            int written = snprintf(buffer + used, size - used, __VA_ARGS__);                       \
            if (written > 0)                                                                       \
                used += (size_t)written;                                                           \
        }                                                                                          \
    } while (0)
    buffer[0] = '\0';
    switch (syntax) {
    case FUNCTION_SYNTAX_BINARY:
        for (uint32_t i = 0; i < count; i++) {
            if (i > 0)
                APPEND(" %s ", name);
            APPEND("<%s>", expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        }
        break;
    case FUNCTION_SYNTAX_PREFIX:
        APPEND("%s", name);
        for (uint32_t i = 0; i < count; i++)
            APPEND("<%s>", expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        break;
    case FUNCTION_SYNTAX_POSTFIX:
        for (uint32_t i = 0; i < count; i++)
            APPEND("<%s>", expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        APPEND(" %s", name);
        break;
    case FUNCTION_SYNTAX_FUNCTION:
    case FUNCTION_SYNTAX_SPECIAL:
        APPEND("%s(", name);
        for (uint32_t i = 0; i < count; i++)
            APPEND("%s<%s>", i ? ", " : "",
                   expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        APPEND(")");
        break;
    }
#undef APPEND
}

static Expr *fail_cannot_apply(const Call *call)
{
    const FunctionInfo *info = function_info(call->function);
    const char *name = info->name;
    if (call->name && info->syntax == FUNCTION_SYNTAX_FUNCTION)
        name = call->name;
    char types[768];
    format_call_types(types, sizeof types, name, info->syntax, call->args, call->count);
    if (info->forms[0])
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "Cannot apply '%s' to arguments of type '%s'. Supported form(s): %s", name,
                   types, info->forms);
    else
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "Cannot apply '%s' to arguments of type '%s'", name, types);
    return NULL;
}

static Expr *fail_memory(Diag *diag)
{
    diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return NULL;
}

/* ---- type helpers ---------------------------------------------------- */

static bool any_nullable(Expr **args, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (args[i]->type.nullable)
            return true;
    return false;
}

static bool is_string_or_null(DataType type)
{
    return type_is_string(type.id) || type.id == TYPE_NULL;
}

static bool is_boolean_or_null(DataType type)
{
    return type.id == TYPE_BOOLEAN || type.id == TYPE_NULL;
}

static bool is_numeric_or_null(DataType type)
{
    return type_is_numeric(type.id) || type.id == TYPE_NULL;
}

static bool is_timestamp(TypeId id)
{
    return id == TYPE_TIMESTAMP || id == TYPE_TIMESTAMP_LTZ;
}

/* Calcite's comparability: same family (numbers, strings, timestamps, ...). */
static bool types_comparable(DataType a, DataType b)
{
    if (a.id == TYPE_NULL || b.id == TYPE_NULL)
        return true;
    if (type_is_numeric(a.id) && type_is_numeric(b.id))
        return true;
    if (type_is_string(a.id) && type_is_string(b.id))
        return true;
    if (is_timestamp(a.id) && is_timestamp(b.id))
        return true;
    if (type_is_binary(a.id) && type_is_binary(b.id))
        return true;
    return a.id == b.id;
}

/* Common type of all args; false when there is none. */
static bool common_type_of(Expr **args, uint32_t count, DataType *result)
{
    DataType common = type_make(TYPE_NULL, true);
    for (uint32_t i = 0; i < count; i++) {
        DataType next;
        if (!type_common(common, args[i]->type, &next))
            return false;
        common = next;
    }
    *result = common;
    return true;
}

/* Replaces argument i by an implicit cast to `type` (keeping its own nullability). */
static bool widen_arg(Call *call, uint32_t i, DataType type)
{
    Expr **args = call->args;
    DataType target = type;
    target.nullable = args[i]->type.nullable || args[i]->type.id == TYPE_NULL;
    target.time_attribute = TIME_ATTRIBUTE_NONE;
    if (args[i]->type.id == TYPE_NULL) {
        /* an untyped NULL literal simply becomes a typed one */
        if (args[i]->kind == EXPR_LITERAL) {
            Expr *literal = expr_make_literal(call->arena, target, value_null());
            if (!literal)
                return false;
            args[i] = literal;
            return true;
        }
    }
    if (type_equals(args[i]->type, target))
        return true;
    Expr *cast = expr_make_implicit_cast(call->arena, args[i], target);
    if (!cast)
        return false;
    args[i] = cast;
    return true;
}

/* Widens arguments from..count-1 to `type`. */
static bool widen_args(Call *call, uint32_t from, DataType type)
{
    for (uint32_t i = from; i < call->count; i++)
        if (!widen_arg(call, i, type))
            return false;
    return true;
}

/* An integer type as a DECIMAL (Calcite: TINYINT -> DECIMAL(3, 0), ...). */
static void decimal_shape(DataType type, int *precision, int *scale)
{
    switch (type.id) {
    case TYPE_TINYINT:
        *precision = 3;
        *scale = 0;
        return;
    case TYPE_SMALLINT:
        *precision = 5;
        *scale = 0;
        return;
    case TYPE_INT:
        *precision = 10;
        *scale = 0;
        return;
    case TYPE_BIGINT:
        *precision = 19;
        *scale = 0;
        return;
    default:
        *precision = type.precision;
        *scale = type.scale;
        return;
    }
}

/* Flink's LogicalTypeMerging.adjustPrecisionScale with maximum precision 18. */
static DataType decimal_adjusted(int precision, int scale, bool nullable)
{
    if (precision <= TYPE_DECIMAL_MAX_PRECISION)
        return type_make_decimal(precision, scale, nullable);
    int digits = precision - scale;
    int minimum_scale = scale < 6 ? scale : 6;
    int adjusted = TYPE_DECIMAL_MAX_PRECISION - digits;
    if (adjusted < minimum_scale)
        adjusted = minimum_scale;
    if (adjusted > TYPE_DECIMAL_MAX_PRECISION)
        adjusted = TYPE_DECIMAL_MAX_PRECISION;
    return type_make_decimal(TYPE_DECIMAL_MAX_PRECISION, adjusted, nullable);
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* The integer type as DECIMAL(p, 0), capped at the maximum precision. */
static DataType integer_as_decimal(DataType type)
{
    int precision, scale;
    decimal_shape(type, &precision, &scale);
    if (precision > TYPE_DECIMAL_MAX_PRECISION)
        precision = TYPE_DECIMAL_MAX_PRECISION;
    return type_make_decimal(precision, scale, type.nullable);
}

/* ---- typing rules: the TYPING column of function_list.h ------------------ */

static Expr *make(const Call *call, DataType type)
{
    Expr *expr = expr_make_call(call->arena, call->function, type, call->args, call->count);
    return expr ? expr : fail_memory(call->diag);
}

/* ---- comparison ---- */

/* Two comparable operands widened to their common type; MAPs only when `maps`. */
static Expr *compared(Call *call, bool maps, bool nullable_result)
{
    Expr **args = call->args;
    DataType common;
    if (!types_comparable(args[0]->type, args[1]->type) ||
        !common_type_of(args, call->count, &common))
        return fail_cannot_apply(call);
    bool nullable = any_nullable(args, call->count) && nullable_result;
    if ((common.id == TYPE_MAP || type_is_composite(common.id)) && !maps)
        return fail_cannot_apply(call);
    if (common.id == TYPE_NULL)
        common = type_make(TYPE_BOOLEAN, true); /* NULL = NULL */
    if (!widen_args(call, 0, common))
        return fail_memory(call->diag);
    return make(call, type_make(TYPE_BOOLEAN, nullable));
}

/* = and <>: maps are equal or not (their canonical encodings) */
static Expr *type_equality(Call *call)
{
    return compared(call, true, true);
}

/* < <= > >=: maps are never ordered */
static Expr *type_ordering(Call *call)
{
    return compared(call, false, true);
}

/* IS [NOT] DISTINCT FROM: never NULL */
static Expr *type_distinct(Call *call)
{
    return compared(call, true, false);
}

static Expr *type_in(Call *call)
{
    Expr **args = call->args;
    for (uint32_t i = 1; i < call->count; i++) {
        if (!types_comparable(args[0]->type, args[i]->type)) {
            Expr *pair[2] = {args[0], args[i]};
            char types[512];
            format_call_types(types, sizeof types, function_info(FUNCTION_IN)->name,
                              function_info(FUNCTION_IN)->syntax, pair, 2);
            diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                       "Values passed to IN operator must have compatible types: '%s'", types);
            return NULL;
        }
    }
    DataType common;
    if (!common_type_of(args, call->count, &common) || common.id == TYPE_NULL)
        return fail_cannot_apply(call);
    if (!widen_args(call, 0, common))
        return fail_memory(call->diag);
    return make(call, type_make(TYPE_BOOLEAN, any_nullable(args, call->count)));
}

/* ---- logic ---- */

/* AND, OR, NOT: BOOLEAN operands */
static Expr *type_logic(Call *call)
{
    for (uint32_t i = 0; i < call->count; i++)
        if (!is_boolean_or_null(call->args[i]->type))
            return fail_cannot_apply(call);
    if (!widen_args(call, 0, type_make(TYPE_BOOLEAN, true)))
        return fail_memory(call->diag);
    return make(call, type_make(TYPE_BOOLEAN, any_nullable(call->args, call->count)));
}

/* IS [NOT] NULL: of anything, never NULL */
static Expr *type_null_test(Call *call)
{
    return make(call, type_make(TYPE_BOOLEAN, false));
}

/* IS [NOT] TRUE, IS [NOT] FALSE: of a BOOLEAN, never NULL */
static Expr *type_truth_test(Call *call)
{
    if (!is_boolean_or_null(call->args[0]->type))
        return fail_cannot_apply(call);
    if (!widen_args(call, 0, type_make(TYPE_BOOLEAN, true)))
        return fail_memory(call->diag);
    return make(call, type_make(TYPE_BOOLEAN, false));
}

/* ---- arithmetic ---- */

static DataType decimal_arithmetic_type(FunctionArithmetic op, DataType a, DataType b,
                                        bool nullable)
{
    int p1, s1, p2, s2;
    decimal_shape(a, &p1, &s1);
    decimal_shape(b, &p2, &s2);
    switch (op) {
    case FUNCTION_ARITHMETIC_PLUS:
    case FUNCTION_ARITHMETIC_MINUS: {
        int scale = max_int(s1, s2);
        return decimal_adjusted(max_int(p1 - s1, p2 - s2) + scale + 1, scale, nullable);
    }
    case FUNCTION_ARITHMETIC_MULTIPLY:
        return decimal_adjusted(p1 + p2 + 1, s1 + s2, nullable);
    case FUNCTION_ARITHMETIC_DIVIDE: {
        int scale = max_int(6, s1 + p2 + 1);
        return decimal_adjusted(p1 - s1 + s2 + scale, scale, nullable);
    }
    case FUNCTION_ARITHMETIC_MOD: {
        int scale = max_int(s1, s2);
        return decimal_adjusted(min_int(p1 - s1, p2 - s2) + scale, scale, nullable);
    }
    case FUNCTION_ARITHMETIC_NONE:
        break;
    }
    return a; /* not arithmetic */
}

/* + - * / MOD, as the row's ARITHMETIC says */
static Expr *type_arithmetic(Call *call)
{
    FunctionArithmetic op = function_info(call->function)->arithmetic;
    Expr **args = call->args;
    DataType a = args[0]->type, b = args[1]->type;
    bool nullable = a.nullable || b.nullable;
    /* untyped NULL takes the other operand's type */
    if (a.id == TYPE_NULL && b.id != TYPE_NULL) {
        if (!widen_arg(call, 0, b))
            return fail_memory(call->diag);
        a = args[0]->type;
    } else if (b.id == TYPE_NULL && a.id != TYPE_NULL) {
        if (!widen_arg(call, 1, a))
            return fail_memory(call->diag);
        b = args[1]->type;
    } else if (a.id == TYPE_NULL && b.id == TYPE_NULL) {
        return fail_cannot_apply(call);
    }
    if (type_is_numeric(a.id) && type_is_numeric(b.id)) {
        DataType result;
        bool approximate =
            a.id == TYPE_DOUBLE || b.id == TYPE_DOUBLE || a.id == TYPE_FLOAT || b.id == TYPE_FLOAT;
        if (op == FUNCTION_ARITHMETIC_MOD && approximate)
            return fail_cannot_apply(call);
        if (approximate || (type_is_integer(a.id) && type_is_integer(b.id))) {
            if (!type_common(a, b, &result))
                return fail_cannot_apply(call);
            result.nullable = nullable;
            if (!widen_args(call, 0, result))
                return fail_memory(call->diag);
            if (op == FUNCTION_ARITHMETIC_MOD && !approximate)
                result = type_make(b.id, nullable); /* Calcite: MOD has the divisor's type */
        } else {
            result = decimal_arithmetic_type(op, a, b, nullable);
            for (uint32_t i = 0; i < 2; i++)
                if (type_is_integer(args[i]->type.id) &&
                    !widen_arg(call, i, integer_as_decimal(args[i]->type)))
                    return fail_memory(call->diag);
        }
        return make(call, result);
    }
    /* temporal and interval arithmetic */
    bool a_time = type_is_temporal(a.id), b_time = type_is_temporal(b.id);
    bool a_interval = type_is_interval(a.id), b_interval = type_is_interval(b.id);
    DataType result;
    if (op == FUNCTION_ARITHMETIC_PLUS && ((a_time && b_interval) || (a_interval && b_time))) {
        result = a_time ? a : b;
    } else if (op == FUNCTION_ARITHMETIC_MINUS && a_time && b_interval) {
        result = a;
    } else if ((op == FUNCTION_ARITHMETIC_PLUS || op == FUNCTION_ARITHMETIC_MINUS) && a_interval &&
               b_interval && a.id == b.id) {
        result = a;
    } else if (op == FUNCTION_ARITHMETIC_MULTIPLY &&
               ((a_interval && type_is_numeric(b.id)) || (type_is_numeric(a.id) && b_interval))) {
        result = a_interval ? a : b;
    } else if (op == FUNCTION_ARITHMETIC_DIVIDE && a_interval && type_is_numeric(b.id)) {
        result = a;
    } else {
        return fail_cannot_apply(call);
    }
    result.nullable = nullable;
    result.time_attribute = TIME_ATTRIBUTE_NONE;
    return make(call, result);
}

static Expr *type_negate(Call *call)
{
    DataType type = call->args[0]->type;
    if (!type_is_numeric(type.id) && !type_is_interval(type.id))
        return fail_cannot_apply(call);
    type.time_attribute = TIME_ATTRIBUTE_NONE;
    return make(call, type);
}

/* ---- CAST ---- */

static Expr *type_cast(Call *call)
{
    diag_error(call->diag, JOINERY_ERROR_VALIDATE,
               "internal: CAST is built with expr_make_cast, not function_resolve");
    return NULL;
}

/* ---- conditional ---- */

static Expr *type_case(Call *call)
{
    Expr **args = call->args;
    uint32_t count = call->count;
    if (count < 3 || count % 2 == 0) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "CASE needs conditions, results and an ELSE (got %u arguments)",
                   (unsigned)count);
        return NULL;
    }
    for (uint32_t i = 0; i + 1 < count; i += 2) {
        if (!is_boolean_or_null(args[i]->type)) {
            char type_name[96];
            diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                       "Expected a boolean type in a CASE condition, got %s",
                       expr_type_name(args[i]->type, false, type_name, sizeof type_name));
            return NULL;
        }
        if (!widen_arg(call, i, type_make(TYPE_BOOLEAN, true)))
            return fail_memory(call->diag);
    }
    /* results sit at 1, 3, ..., count - 2, and the ELSE at count - 1 */
    DataType common = type_make(TYPE_NULL, true);
    bool nullable = false;
    uint32_t results = (count - 1) / 2 + 1;
    for (uint32_t k = 0; k < results; k++) {
        uint32_t i = k + 1 < results ? 2 * k + 1 : count - 1;
        DataType next;
        if (!type_common(common, args[i]->type, &next)) {
            diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                       "Illegal mixing of types in CASE or COALESCE statement");
            return NULL;
        }
        common = next;
        nullable = nullable || args[i]->type.nullable || args[i]->type.id == TYPE_NULL;
    }
    if (common.id == TYPE_NULL) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "Illegal use of 'NULL': CASE results cannot all be NULL");
        return NULL;
    }
    for (uint32_t i = 1; i < count; i += 2)
        if (!widen_arg(call, i, common))
            return fail_memory(call->diag);
    if (!widen_arg(call, count - 1, common))
        return fail_memory(call->diag);
    common.nullable = nullable;
    common.time_attribute = TIME_ATTRIBUTE_NONE;
    return make(call, common);
}

/*
 * Widens arguments first.. to their common type, the result's (without a
 * time attribute); false with diag set when there is none.
 */
static bool widen_to_common(Call *call, uint32_t first, DataType *common)
{
    if (!common_type_of(call->args + first, call->count - first, common)) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "Illegal mixing of types in CASE or COALESCE statement");
        return false;
    }
    if (common->id == TYPE_NULL) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE, "Illegal use of 'NULL'");
        return false;
    }
    if (!widen_args(call, first, *common)) {
        fail_memory(call->diag);
        return false;
    }
    common->time_attribute = TIME_ATTRIBUTE_NONE;
    return true;
}

/* nullable only when every argument is */
static Expr *type_coalesce(Call *call)
{
    DataType common;
    if (!widen_to_common(call, 0, &common))
        return NULL;
    common.nullable = true;
    for (uint32_t i = 0; i < call->count; i++)
        if (!call->args[i]->type.nullable)
            common.nullable = false;
    return make(call, common);
}

/* GREATEST, LEAST: one common comparable type (not MAP), nullable when an argument is */
static Expr *type_greatest_least(Call *call)
{
    for (uint32_t i = 1; i < call->count; i++)
        if (!types_comparable(call->args[0]->type, call->args[i]->type))
            return fail_cannot_apply(call);
    DataType common;
    if (!widen_to_common(call, 0, &common))
        return NULL;
    if (common.id == TYPE_MAP)
        return fail_cannot_apply(call);
    common.nullable = any_nullable(call->args, call->count) || common.id == TYPE_NULL;
    return make(call, common);
}

static Expr *type_nullif(Call *call)
{
    DataType common;
    if (!types_comparable(call->args[0]->type, call->args[1]->type))
        return fail_cannot_apply(call);
    if (!widen_to_common(call, 0, &common))
        return NULL;
    common.nullable = true;
    return make(call, common);
}

static Expr *type_if(Call *call)
{
    DataType common;
    if (!is_boolean_or_null(call->args[0]->type))
        return fail_cannot_apply(call);
    if (!widen_to_common(call, 1, &common))
        return NULL;
    if (!widen_arg(call, 0, type_make(TYPE_BOOLEAN, true)))
        return fail_memory(call->diag);
    common.nullable = call->args[1]->type.nullable || call->args[2]->type.nullable;
    return make(call, common);
}

/* ---- strings and time ---- */

/* The call typed `result` when its arguments were acceptable (`ok`). */
static Expr *typed(const Call *call, bool ok, DataType result)
{
    if (!ok)
        return fail_cannot_apply(call);
    result.time_attribute = TIME_ATTRIBUTE_NONE;
    return make(call, result);
}

/*
 * Checks arguments from..to-1 are strings (an untyped NULL becomes a typed
 * NULL STRING); *ok tells. False when memory ran out.
 */
static bool require_strings(Call *call, uint32_t from, uint32_t to, bool *ok)
{
    Expr **args = call->args;
    *ok = true;
    for (uint32_t i = from; i < to; i++) {
        if (!is_string_or_null(args[i]->type)) {
            *ok = false;
            return true;
        }
        if (args[i]->type.id == TYPE_NULL && !widen_arg(call, i, type_make(TYPE_VARCHAR, true)))
            return false;
    }
    return true;
}

/* As require_strings, for integers (an untyped NULL becomes an INT). */
static bool require_integers(Call *call, uint32_t from, uint32_t to, bool *ok)
{
    Expr **args = call->args;
    *ok = true;
    for (uint32_t i = from; i < to; i++) {
        if (!type_is_integer(args[i]->type.id) && args[i]->type.id != TYPE_NULL) {
            *ok = false;
            return true;
        }
        if (args[i]->type.id == TYPE_NULL && !widen_arg(call, i, type_make(TYPE_INT, true)))
            return false;
    }
    return true;
}

/* The call of string arguments typed `result` (nullable when an argument is). */
static Expr *typed_strings(Call *call, DataType result)
{
    bool ok;
    result.nullable = any_nullable(call->args, call->count);
    if (!require_strings(call, 0, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, result);
}

/* FUNCTION_USER_DEFINED: the binder types its calls from the function's descriptor
   (bind_expr.c); never resolved by name */
static Expr *type_user_defined(Call *call)
{
    diag_error(call->diag, JOINERY_ERROR, "internal: a user-defined function resolved by name");
    return NULL;
}

/* CHAR_LENGTH, POSITION */
static Expr *type_strings_to_int(Call *call)
{
    return typed_strings(call, type_make(TYPE_INT, true));
}

static Expr *type_replace(Call *call)
{
    return typed_strings(call, type_make(TYPE_VARCHAR, true));
}

/*
 * REPEAT, REVERSE, LPAD, RPAD, LEFT, RIGHT, CONCAT_WS: strings, with an
 * integer second argument for all but REVERSE and CONCAT_WS; STRING out,
 * nullable when an argument is (CONCAT_WS: when its separator is; LPAD /
 * RPAD: always, a negative length gives NULL).
 */
static Expr *type_string_function(Call *call)
{
    bool ok;
    FunctionId id = call->function;
    bool integer_second = id != FUNCTION_REVERSE && id != FUNCTION_CONCAT_WS;
    bool nullable = id == FUNCTION_CONCAT_WS
                        ? call->args[0]->type.nullable || call->args[0]->type.id == TYPE_NULL
                        : any_nullable(call->args, call->count);
    if (id == FUNCTION_LPAD || id == FUNCTION_RPAD)
        nullable = true;
    if (!require_strings(call, 0, 1, &ok))
        return fail_memory(call->diag);
    if (ok && integer_second && !require_integers(call, 1, 2, &ok))
        return fail_memory(call->diag);
    if (ok && !require_strings(call, integer_second ? 2 : 1, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_VARCHAR, nullable));
}

/* LOCATE(needle, string[, from]): strings, an integer start; INT */
static Expr *type_locate(Call *call)
{
    bool ok;
    bool nullable = any_nullable(call->args, call->count);
    if (!require_strings(call, 0, 2, &ok))
        return fail_memory(call->diag);
    if (ok && !require_integers(call, 2, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_INT, nullable));
}

/* SPLIT_INDEX(string, separator, index): the separator a string or a character's code
   (1-255); STRING out, always nullable (an index past the last part gives NULL) */
static Expr *type_split_index(Call *call)
{
    bool ok;
    if (!require_strings(call, 0, 1, &ok))
        return fail_memory(call->diag);
    if (ok && !type_is_integer(call->args[1]->type.id) && !require_strings(call, 1, 2, &ok))
        return fail_memory(call->diag);
    if (ok && !require_integers(call, 2, 3, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_VARCHAR, true));
}

/* CHR(code): an integer; a one-character STRING */
static Expr *type_chr(Call *call)
{
    bool ok;
    bool nullable = any_nullable(call->args, call->count);
    if (!require_integers(call, 0, 1, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_VARCHAR, nullable));
}

static Expr *type_like(Call *call)
{
    return typed_strings(call, type_make(TYPE_BOOLEAN, true));
}

/* UPPER, LOWER: the string's own type */
static Expr *type_case_change(Call *call)
{
    bool ok;
    bool nullable = any_nullable(call->args, call->count);
    if (!require_strings(call, 0, 1, &ok))
        return fail_memory(call->diag);
    DataType result = call->args[0]->type;
    result.nullable = nullable;
    return typed(call, ok, result);
}

static Expr *type_substring(Call *call)
{
    bool ok;
    bool nullable = any_nullable(call->args, call->count);
    if (!require_strings(call, 0, 1, &ok))
        return fail_memory(call->diag);
    if (ok && !require_integers(call, 1, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make_varchar(call->args[0]->type.precision, nullable));
}

/* Called by name, CONCAT(...) is a STRING; the operator a || b adds the lengths up. */
static Expr *type_concat(Call *call)
{
    bool ok;
    bool nullable = any_nullable(call->args, call->count);
    if (!require_strings(call, 0, call->count, &ok))
        return fail_memory(call->diag);
    if (call->name || !ok)
        return typed(call, ok, type_make(TYPE_VARCHAR, nullable));
    /* a || b: CHAR only when both are CHAR */
    int64_t length = 0;
    bool all_char = true;
    for (uint32_t i = 0; i < call->count; i++) {
        length += call->args[i]->type.precision;
        all_char = all_char && call->args[i]->type.id == TYPE_CHAR;
    }
    if (length > TYPE_STRING_LENGTH)
        length = TYPE_STRING_LENGTH;
    DataType result = type_make_varchar((int32_t)length, nullable);
    if (all_char)
        result.id = TYPE_CHAR;
    return typed(call, ok, result);
}

/* TRIM, and LTRIM/RTRIM with their mode */
static Expr *type_trim(Call *call)
{
    bool ok;
    bool nullable = any_nullable(call->args, call->count);
    if (!require_strings(call, 0, call->count, &ok))
        return fail_memory(call->diag);
    Expr *expr = typed(call, ok, type_make_varchar(call->args[0]->type.precision, nullable));
    if (expr && call->flavor == FLAVOR_LTRIM)
        expr->call.trim_mode = TRIM_LEADING;
    if (expr && call->flavor == FLAVOR_RTRIM)
        expr->call.trim_mode = TRIM_TRAILING;
    return expr;
}

static Expr *type_date_format(Call *call)
{
    Expr **args = call->args;
    bool ok = (is_timestamp(args[0]->type.id) || args[0]->type.id == TYPE_DATE ||
               is_string_or_null(args[0]->type)) &&
              is_string_or_null(args[1]->type);
    if (ok && args[0]->type.id == TYPE_NULL &&
        !widen_arg(call, 0, type_make_timestamp(TYPE_TIMESTAMP, 3, true)))
        return fail_memory(call->diag);
    if (ok && !require_strings(call, 1, 2, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_VARCHAR, true));
}

static Expr *type_to_timestamp(Call *call)
{
    bool ok;
    if (!require_strings(call, 0, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make_timestamp(TYPE_TIMESTAMP, 3, true));
}

/*
 * TO_TIMESTAMP_LTZ(numeric [, precision]): epoch seconds (precision 0) or
 * milliseconds (3, the default) as TIMESTAMP_LTZ(3); a literal precision
 * other than 0 or 3 is Flink's error.
 */
static Expr *type_to_timestamp_ltz(Call *call)
{
    Expr **args = call->args;
    bool ok = is_numeric_or_null(args[0]->type);
    if (ok && args[0]->type.id == TYPE_NULL && !widen_arg(call, 0, type_make(TYPE_BIGINT, true)))
        return fail_memory(call->diag);
    if (ok && call->count == 2) {
        if (!require_integers(call, 1, 2, &ok))
            return fail_memory(call->diag);
        const Expr *precision = args[1];
        if (ok && precision->kind == EXPR_LITERAL && !precision->literal.is_null &&
            precision->literal.i != 0 && precision->literal.i != 3) {
            diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                       "The precision value '%lld' for function TO_TIMESTAMP_LTZ(numeric, "
                       "precision) is unsupported, the supported value is '0' for second or "
                       "'3' for millisecond.",
                       (long long)precision->literal.i);
            return NULL;
        }
    }
    DataType result = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, true);
    result.nullable = any_nullable(args, call->count);
    return typed(call, ok, result);
}

static Expr *type_current_timestamp(Call *call)
{
    return typed(call, true, type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, false));
}

static Expr *type_localtimestamp(Call *call)
{
    return typed(call, true, type_make_timestamp(TYPE_TIMESTAMP, 3, false));
}

static Expr *type_current_date(Call *call)
{
    return typed(call, true, type_make(TYPE_DATE, false));
}

static Expr *type_proctime(Call *call)
{
    DataType result = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, false);
    result.time_attribute = TIME_ATTRIBUTE_PROCTIME;
    return make(call, result);
}

/* $TUMBLE/$HOP/$SESSION(time, ...) and $WINDOW(start, ...): the first argument's type */
static Expr *type_group_window(Call *call)
{
    return make(call, call->args[0]->type);
}

/* TUMBLE_START/END, HOP_START/END, SESSION_START/END: TIMESTAMP(3) NOT NULL */
static Expr *type_window_bound(Call *call)
{
    return make(call, type_make_timestamp(TYPE_TIMESTAMP, 3, false));
}

/* TUMBLE_ROWTIME, ...: TIMESTAMP(3) NOT NULL *ROWTIME* (a later window can use it) */
static Expr *type_window_rowtime(Call *call)
{
    DataType result = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    result.time_attribute = TIME_ATTRIBUTE_ROWTIME;
    return make(call, result);
}

/* Flink: the argument must be a rowtime attribute; the result has its type, at precision 3,
   nullable */
static Expr *type_current_watermark(Call *call)
{
    const Expr *rowtime = call->args[0];
    if (rowtime->type.time_attribute != TIME_ATTRIBUTE_ROWTIME) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "The argument of CURRENT_WATERMARK must be a rowtime attribute (a "
                   "column with a WATERMARK), got %s",
                   rowtime->kind == EXPR_INPUT_REF ? "a column without a watermark"
                                                   : "an expression");
        return NULL;
    }
    return typed(call, true, type_make_timestamp(rowtime->type.id, 3, true));
}

static bool extract_unit_valid(const Expr *unit)
{
    static const char *const units[] = {
        "YEAR",   "QUARTER", "MONTH",       "WEEK",  "DAY",       "DOY",        "DOW",      "HOUR",
        "MINUTE", "SECOND",  "MILLISECOND", "EPOCH", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK"};
    if (unit->kind != EXPR_LITERAL || !type_is_string(unit->type.id) || unit->literal.is_null)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i]) == unit->literal.s.len &&
            strncasecmp(units[i], unit->literal.s.ptr, unit->literal.s.len) == 0)
            return true;
    return false;
}

static Expr *type_extract(Call *call)
{
    Expr **args = call->args;
    if (!extract_unit_valid(args[0])) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "EXTRACT needs a time unit (YEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, "
                   "HOUR, MINUTE, SECOND, MILLISECOND, EPOCH)");
        return NULL;
    }
    bool ok = type_is_temporal(args[1]->type.id) || type_is_interval(args[1]->type.id) ||
              args[1]->type.id == TYPE_NULL;
    if (ok && args[1]->type.id == TYPE_NULL &&
        !widen_arg(call, 1, type_make_timestamp(TYPE_TIMESTAMP, 3, true)))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_BIGINT, args[1]->type.nullable));
}

/* TIMESTAMPDIFF / TIMESTAMPADD's unit: SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR */
static bool timestamp_unit_valid(Call *call)
{
    static const char *const units[] = {"SECOND", "MINUTE", "HOUR",    "DAY",
                                        "WEEK",   "MONTH",  "QUARTER", "YEAR"};
    const Expr *unit = call->args[0];
    if (unit->kind == EXPR_LITERAL && type_is_string(unit->type.id) && !unit->literal.is_null)
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i]) == unit->literal.s.len &&
                strncasecmp(units[i], unit->literal.s.ptr, unit->literal.s.len) == 0)
                return true;
    diag_error(call->diag, JOINERY_ERROR_VALIDATE,
               "%s needs a time unit (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR)",
               call->name);
    return false;
}

static bool is_datetime_or_null(DataType type)
{
    return type.id == TYPE_DATE || type.id == TYPE_TIMESTAMP || type.id == TYPE_TIMESTAMP_LTZ ||
           type.id == TYPE_NULL;
}

/* Flink: INT, NULL when either time is */
static Expr *type_timestampdiff(Call *call)
{
    Expr **args = call->args;
    if (!timestamp_unit_valid(call))
        return NULL;
    bool ok = is_datetime_or_null(args[1]->type) && is_datetime_or_null(args[2]->type);
    for (uint32_t i = 1; ok && i < 3; i++)
        if (args[i]->type.id == TYPE_NULL &&
            !widen_arg(call, i, type_make_timestamp(TYPE_TIMESTAMP, 3, true)))
            return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_INT, args[1]->type.nullable || args[2]->type.nullable));
}

/* Flink: the time's type; a DATE moves by whole days at least (sub-day units on a DATE are
   rejected: Calcite would make the result a TIMESTAMP) */
static Expr *type_timestampadd(Call *call)
{
    Expr **args = call->args;
    if (!timestamp_unit_valid(call))
        return NULL;
    bool ok;
    if (!require_integers(call, 1, 2, &ok))
        return fail_memory(call->diag);
    ok = ok && is_datetime_or_null(args[2]->type);
    if (ok && args[2]->type.id == TYPE_NULL &&
        !widen_arg(call, 2, type_make_timestamp(TYPE_TIMESTAMP, 3, true)))
        return fail_memory(call->diag);
    const Expr *unit = args[0];
    if (ok && args[2]->type.id == TYPE_DATE && unit->literal.s.len >= 4 &&
        (strncasecmp(unit->literal.s.ptr, "HOUR", 4) == 0 ||
         strncasecmp(unit->literal.s.ptr, "MINU", 4) == 0 ||
         strncasecmp(unit->literal.s.ptr, "SECO", 4) == 0)) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "TIMESTAMPADD of %.*s to a DATE is not supported; cast the DATE to TIMESTAMP",
                   (int)unit->literal.s.len, unit->literal.s.ptr);
        return NULL;
    }
    DataType result = args[2]->type;
    result.nullable = args[1]->type.nullable || args[2]->type.nullable;
    return typed(call, ok, result);
}

/* Flink: BIGINT NOT NULL without arguments, else NULL when an argument is */
static Expr *type_unix_timestamp(Call *call)
{
    bool ok;
    if (!require_strings(call, 0, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_BIGINT, any_nullable(call->args, call->count)));
}

/* Flink: STRING, nullable */
static Expr *type_from_unixtime(Call *call)
{
    bool ok;
    if (!require_integers(call, 0, 1, &ok))
        return fail_memory(call->diag);
    if (ok && !require_strings(call, 1, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_VARCHAR, true));
}

/* Flink: DATE, nullable (NULL when the string does not parse) */
static Expr *type_to_date(Call *call)
{
    bool ok;
    if (!require_strings(call, 0, call->count, &ok))
        return fail_memory(call->diag);
    return typed(call, ok, type_make(TYPE_DATE, true));
}

/* ---- numeric ---- */

/*
 * A number in (ABS: or an interval; an untyped NULL becomes an INT), its
 * type out; with `rounds` (FLOOR, CEIL, ROUND), a DECIMAL keeps the digits
 * rounding leaves (Flink's LogicalTypeMerging.findRoundDecimalType).
 */
static Expr *numeric_function(Call *call, bool intervals, bool rounds)
{
    Expr **args = call->args;
    DataType type = args[0]->type;
    if (!is_numeric_or_null(type) && !(intervals && type_is_interval(type.id)))
        return fail_cannot_apply(call);
    if (type.id == TYPE_NULL) {
        if (!widen_arg(call, 0, type_make(TYPE_INT, true)))
            return fail_memory(call->diag);
        type = args[0]->type;
    }
    type.time_attribute = TIME_ATTRIBUTE_NONE;
    DataType result = type;
    if (rounds) {
        int32_t digits = 0;
        if (call->count == 2) { /* ROUND(x, digits) */
            const Expr *places = args[1];
            if (!type_is_integer(places->type.id))
                return fail_cannot_apply(call);
            if (places->kind == EXPR_LITERAL && !places->literal.is_null) {
                int64_t value = places->literal.i;
                digits = value > 18 ? 18 : value < -18 ? -18 : (int32_t)value;
            }
        }
        if (type.id == TYPE_DECIMAL) {
            int p = type.precision, s = type.scale;
            if (digits >= s)
                result = type_make_decimal(p, s, type.nullable);
            else if (digits < 0)
                result = type_make_decimal(min_int(TYPE_DECIMAL_MAX_PRECISION, 1 + p - s), 0,
                                           type.nullable);
            else
                result = type_make_decimal(min_int(TYPE_DECIMAL_MAX_PRECISION, 1 + p - s + digits),
                                           digits, type.nullable);
        }
    }
    result.nullable = any_nullable(args, call->count);
    return make(call, result);
}

static Expr *type_abs(Call *call)
{
    return numeric_function(call, true, false);
}

/* The unit of FLOOR / CEIL (t TO unit) and whether `type` has it: DATE takes DAY and
   coarser units, TIME HOUR and finer, TIMESTAMP / TIMESTAMP_LTZ all. */
static bool round_unit_valid(const Expr *unit, TypeId type)
{
    static const char *const time_units[] = {"MILLISECOND", "SECOND", "MINUTE", "HOUR"};
    static const char *const date_units[] = {"DAY", "WEEK", "MONTH", "QUARTER", "YEAR"};
    if (unit->kind != EXPR_LITERAL || !type_is_string(unit->type.id) || unit->literal.is_null)
        return false;
    for (int set = 0; set < 2; set++) {
        if ((set == 0 && type == TYPE_DATE) || (set == 1 && type == TYPE_TIME))
            continue;
        const char *const *units = set == 0 ? time_units : date_units;
        size_t count = set == 0 ? sizeof time_units / sizeof time_units[0]
                                : sizeof date_units / sizeof date_units[0];
        for (size_t i = 0; i < count; i++)
            if (strlen(units[i]) == unit->literal.s.len &&
                strncasecmp(units[i], unit->literal.s.ptr, unit->literal.s.len) == 0)
                return true;
    }
    return false;
}

/* FLOOR / CEIL (t TO unit), read as (t, 'UNIT'): the operand's type, no time attribute */
static Expr *type_round_to_unit(Call *call)
{
    Expr **args = call->args;
    TypeId type = args[0]->type.id;
    bool temporal = type == TYPE_DATE || type == TYPE_TIME || type == TYPE_TIMESTAMP ||
                    type == TYPE_TIMESTAMP_LTZ;
    if (!temporal)
        return fail_cannot_apply(call);
    if (!round_unit_valid(args[1], type)) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE, "%s(<%s> TO unit) needs a time unit %s",
                   call->name,
                   type == TYPE_DATE   ? "DATE"
                   : type == TYPE_TIME ? "TIME"
                                       : "TIMESTAMP",
                   type == TYPE_DATE ? "(DAY, WEEK, MONTH, QUARTER, YEAR)"
                   : type == TYPE_TIME
                       ? "(MILLISECOND, SECOND, MINUTE, HOUR)"
                       : "(MILLISECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR)");
        return NULL;
    }
    return typed(call, true, args[0]->type);
}

/* FLOOR, CEIL, ROUND */
static Expr *type_rounding(Call *call)
{
    if (call->count == 2 && (call->function == FUNCTION_FLOOR || call->function == FUNCTION_CEIL))
        return type_round_to_unit(call);
    return numeric_function(call, false, true);
}

/* POWER, SQRT, EXP, LN, LOG10, LOG2, LOG: numbers widened to DOUBLE, DOUBLE out */
static Expr *type_double_math(Call *call)
{
    for (uint32_t i = 0; i < call->count; i++) {
        if (!is_numeric_or_null(call->args[i]->type))
            return fail_cannot_apply(call);
        if (!widen_arg(call, i, type_make(TYPE_DOUBLE, true)))
            return fail_memory(call->diag);
    }
    return make(call, type_make(TYPE_DOUBLE, any_nullable(call->args, call->count)));
}

/* PI: DOUBLE NOT NULL */
static Expr *type_pi(Call *call)
{
    return typed(call, true, type_make(TYPE_DOUBLE, false));
}

/* SIGN: the number's own type */
static Expr *type_sign(Call *call)
{
    return numeric_function(call, false, false);
}

/* ---- maps ---- */

/* A CHAR type as VARCHAR of the same length (map keys and values hold no padding). */
static DataType unpadded(DataType type)
{
    if (type.id == TYPE_CHAR)
        type.id = TYPE_VARCHAR;
    return type;
}

/* map[key], array[index] */
static Expr *type_item(Call *call)
{
    DataType map = call->args[0]->type;
    if (map.id == TYPE_ARRAY) {
        if (!type_is_integer(call->args[1]->type.id) && call->args[1]->type.id != TYPE_NULL)
            return fail_cannot_apply(call);
        if (!widen_arg(call, 1, type_make(TYPE_INT, true)))
            return fail_memory(call->diag);
        DataType element = type_element(map);
        element.nullable = true; /* out of range gives NULL */
        return make(call, element);
    }
    if (map.id != TYPE_MAP || !types_comparable(type_map_key(map), call->args[1]->type))
        return fail_cannot_apply(call);
    if (!widen_arg(call, 1, type_map_key(map)))
        return fail_memory(call->diag);
    DataType value = type_map_value(map);
    value.nullable = true; /* an absent key gives NULL */
    return make(call, value);
}

static Expr *type_cardinality(Call *call)
{
    TypeId id = call->args[0]->type.id;
    if (id != TYPE_MAP && id != TYPE_ARRAY && id != TYPE_MULTISET)
        return fail_cannot_apply(call);
    return make(call, type_make(TYPE_INT, call->args[0]->type.nullable));
}

/* MAP[k1, v1, ...]: keys widened to their common type, values to theirs */
static Expr *type_map(Call *call)
{
    Expr **args = call->args;
    uint32_t count = call->count;
    if (count % 2 != 0)
        return fail_cannot_apply(call);
    DataType key = type_make(TYPE_NULL, true), value = type_make(TYPE_NULL, true);
    for (uint32_t i = 0; i < count; i++) {
        DataType *common = i % 2 == 0 ? &key : &value;
        DataType next;
        if (args[i]->type.id == TYPE_MAP || !type_common(*common, args[i]->type, &next)) {
            if (args[i]->type.id == TYPE_MAP) {
                diag_error(call->diag, JOINERY_ERROR_UNSUPPORTED,
                           "a MAP inside a MAP is not supported yet");
                return NULL;
            }
            return fail_cannot_apply(call);
        }
        *common = next;
    }
    if (key.id == TYPE_NULL || value.id == TYPE_NULL) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "Cannot infer the key or value type of MAP[...] from NULL literals alone; "
                   "CAST them");
        return NULL;
    }
    key = unpadded(key);
    value = unpadded(value);
    for (uint32_t i = 0; i < count; i++)
        if (!widen_arg(call, i, i % 2 == 0 ? key : value))
            return fail_memory(call->diag);
    return make(call, type_make_map(key, value, false));
}

/* ---- rows, arrays, multisets ---- */

/* ROW(a, b, ...): a ROW NOT NULL of the arguments' types, fields EXPR$0, EXPR$1, ... */
static Expr *type_row(Call *call)
{
    const char **names = arena_calloc(call->arena, call->count, sizeof *names);
    DataType *types = arena_calloc(call->arena, call->count, sizeof *types);
    if (!names || !types)
        return fail_memory(call->diag);
    for (uint32_t i = 0; i < call->count; i++) {
        char name[32];
        snprintf(name, sizeof name, "EXPR$%u", (unsigned)i);
        names[i] = arena_strdup(call->arena, name);
        if (!names[i])
            return fail_memory(call->diag);
        types[i] = unpadded(call->args[i]->type);
        types[i].time_attribute = TIME_ATTRIBUTE_NONE;
        if (types[i].id == TYPE_NULL) {
            /* Calcite types a NULL field as NULL; joinery keeps it as a nullable INT */
            types[i] = type_make(TYPE_INT, true);
            if (!widen_arg(call, i, types[i]))
                return fail_memory(call->diag);
        }
    }
    DataType row;
    if (!type_make_row(names, types, call->count, false, &row))
        return fail_memory(call->diag);
    return make(call, row);
}

/* ARRAY[a, b, ...]: elements widened to their common type, an ARRAY NOT NULL */
static Expr *type_array(Call *call)
{
    DataType element;
    if (!common_type_of(call->args, call->count, &element))
        return fail_cannot_apply(call);
    if (element.id == TYPE_NULL) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE,
                   "Cannot infer the element type of ARRAY[...] from NULL literals alone; CAST "
                   "them");
        return NULL;
    }
    element = unpadded(element);
    element.time_attribute = TIME_ATTRIBUTE_NONE;
    element.nullable = any_nullable(call->args, call->count);
    if (!widen_args(call, 0, element))
        return fail_memory(call->diag);
    DataType array;
    if (!type_make_array(element, false, &array))
        return fail_memory(call->diag);
    return make(call, array);
}

/* row.field: args are the row and the field's index (an INT literal the binder made) */
static Expr *type_field_access(Call *call)
{
    DataType row = call->args[0]->type;
    const Expr *index = call->args[1];
    if (row.id != TYPE_ROW || index->kind != EXPR_LITERAL || index->literal.is_null ||
        (uint64_t)index->literal.i >= type_field_count(row))
        return fail_cannot_apply(call);
    DataType field = type_field(row, (uint32_t)index->literal.i);
    field.nullable = field.nullable || row.nullable;
    return make(call, field);
}

/* HASH_CODE(x): INT, NULL when x is */
static Expr *type_hash_code(Call *call)
{
    return make(call, type_make(TYPE_INT, call->args[0]->type.nullable));
}

/* ELEMENT(array): the element type, nullable (an empty array gives NULL) */
static Expr *type_element_of(Call *call)
{
    if (call->args[0]->type.id != TYPE_ARRAY)
        return fail_cannot_apply(call);
    DataType element = type_element(call->args[0]->type);
    element.nullable = true;
    return make(call, element);
}

/* ARRAY_CONTAINS(array, value): value widened to the element type (comparable) */
static Expr *type_array_contains(Call *call)
{
    DataType array = call->args[0]->type;
    if (array.id != TYPE_ARRAY || !types_comparable(type_element(array), call->args[1]->type))
        return fail_cannot_apply(call);
    DataType common;
    if (!type_common(type_element(array), call->args[1]->type, &common))
        return fail_cannot_apply(call);
    if (!type_equals(common, type_element(array))) {
        /* the array's elements would need a cast: refuse as Flink's strict typing does */
        return fail_cannot_apply(call);
    }
    if (!widen_arg(call, 1, common))
        return fail_memory(call->diag);
    return make(call, type_make(TYPE_BOOLEAN, array.nullable));
}

/* ---- dispatch ------------------------------------------------------------ */

typedef Expr *TypingRule(Call *call);

static TypingRule *const TYPING_RULES[] = {
#define FUNCTION(ID, NAME, CALL, MIN, MAX, SYNTAX, PRINT, TYPING, ...) TYPING,
#include "engine/plan/function_list.h"
};
_Static_assert(sizeof TYPING_RULES / sizeof TYPING_RULES[0] == FUNCTION_COUNT_,
               "TYPING_RULES has one rule per function");

/* Types a call whose FunctionId is known: its number of arguments, then its rule. */
static Expr *resolve_function(Call *call)
{
    if ((unsigned)call->function >= FUNCTION_COUNT_) {
        diag_error(call->diag, JOINERY_ERROR_VALIDATE, "internal: unknown function id %d",
                   (int)call->function);
        return NULL;
    }
    const FunctionInfo *info = function_info(call->function);
    if (call->count < info->min_args ||
        (info->max_args != FUNCTION_ARGS_ANY && call->count > info->max_args))
        return fail_cannot_apply(call);
    return TYPING_RULES[call->function](call);
}

/* ---- name lookup ----------------------------------------------------- */

static const FunctionName *find_name(const char *name)
{
    for (size_t i = 0; i < FUNCTION_NAME_COUNT; i++)
        if (strcasecmp(FUNCTION_NAMES[i].name, name) == 0)
            return &FUNCTION_NAMES[i];
    return NULL;
}

static bool name_in(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcasecmp(names[i], name) == 0)
            return true;
    return false;
}

bool function_is_aggregate_name(const char *name)
{
    return name && name_in(name, AGGREGATE_FUNCTIONS,
                           sizeof AGGREGATE_FUNCTIONS / sizeof AGGREGATE_FUNCTIONS[0]);
}

void function_list_names(void (*emit)(void *context, const char *name), void *context)
{
    for (size_t i = 0; i < FUNCTION_NAME_COUNT; i++)
        emit(context, FUNCTION_NAMES[i].name);
    for (size_t i = 0; i < sizeof AGGREGATE_FUNCTIONS / sizeof AGGREGATE_FUNCTIONS[0]; i++)
        emit(context, AGGREGATE_FUNCTIONS[i]);
}

static Expr *fail_unknown(const char *name, Expr **args, uint32_t count, Diag *diag)
{
    char signature[512];
    size_t used = 0;
    signature[0] = '\0';
    for (uint32_t i = 0; i < count && used < sizeof signature; i++) {
        int written = snprintf(signature + used, sizeof signature - used, "%s<%s>", i ? ", " : "",
                               type_family_name(args[i]->type));
        if (written > 0)
            used += (size_t)written;
    }
    const char *candidates[FUNCTION_NAME_COUNT];
    for (size_t i = 0; i < FUNCTION_NAME_COUNT; i++)
        candidates[i] = FUNCTION_NAMES[i].name;
    const char *suggestion = catalog_suggest_name(name, candidates, FUNCTION_NAME_COUNT);
    if (suggestion)
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "No match found for function signature %s(%s); did you mean '%s'?", name,
                   signature, suggestion);
    else
        diag_error(diag, JOINERY_ERROR_VALIDATE, "No match found for function signature %s(%s)",
                   name, signature);
    return NULL;
}

static Expr *fail_arity(const FunctionName *entry, Diag *diag)
{
    if (entry->max_args == FUNCTION_ARGS_ANY)
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "Invalid number of arguments to function '%s'. Was expecting at least %u "
                   "arguments",
                   entry->name, (unsigned)entry->min_args);
    else if (entry->min_args == entry->max_args)
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "Invalid number of arguments to function '%s'. Was expecting %u arguments",
                   entry->name, (unsigned)entry->min_args);
    else
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "Invalid number of arguments to function '%s'. Was expecting %u to %u "
                   "arguments",
                   entry->name, (unsigned)entry->min_args, (unsigned)entry->max_args);
    return NULL;
}

Expr *function_resolve(Arena *arena, const char *name, FunctionId function, Expr **args,
                       uint32_t arg_count, Diag *diag)
{
    /* work on a copy: widening replaces arguments */
    Expr *local[16];
    Expr **work = local;
    if (arg_count > 16) {
        work = arena_alloc(arena, arg_count * sizeof *work);
        if (!work)
            return fail_memory(diag);
    }
    for (uint32_t i = 0; i < arg_count; i++)
        work[i] = args[i];
    Call call = {arena, function, NULL, FLAVOR_PLAIN, work, arg_count, diag};
    if (!name)
        return resolve_function(&call);

    const FunctionName *entry = find_name(name);
    if (!entry) {
        if (name_in(name, UNSUPPORTED_FUNCTIONS,
                    sizeof UNSUPPORTED_FUNCTIONS / sizeof UNSUPPORTED_FUNCTIONS[0])) {
            char upper[64];
            size_t length = strlen(name);
            if (length >= sizeof upper)
                length = sizeof upper - 1;
            for (size_t i = 0; i < length; i++)
                upper[i] = (char)((name[i] >= 'a' && name[i] <= 'z') ? name[i] - 32 : name[i]);
            upper[length] = '\0';
            diag_error(diag, JOINERY_ERROR_UNSUPPORTED, "function %s is not supported yet", upper);
            return NULL;
        }
        if (function_is_aggregate_name(name)) {
            diag_error(diag, JOINERY_ERROR_VALIDATE, "Aggregate function %s is not allowed here",
                       name);
            return NULL;
        }
        return fail_unknown(name, args, arg_count, diag);
    }
    if (arg_count < entry->min_args ||
        (entry->max_args != FUNCTION_ARGS_ANY && arg_count > entry->max_args)) {
        /* as Calcite: CURRENT_DATE(1) and YEAR(a, b) have no such signature */
        if (function_info(entry->function)->call == FUNCTION_CALL_NILADIC ||
            entry->flavor == FLAVOR_EXTRACT_UNIT)
            return fail_unknown(name, args, arg_count, diag);
        return fail_arity(entry, diag);
    }
    if (entry->flavor == FLAVOR_EXTRACT_UNIT) {
        /* YEAR(x) is EXTRACT(YEAR FROM x) */
        const char *unit = entry->name;
        if (strcmp(unit, "DAYOFMONTH") == 0)
            unit = "DAY";
        else if (strcmp(unit, "DAYOFYEAR") == 0)
            unit = "DOY";
        else if (strcmp(unit, "DAYOFWEEK") == 0)
            unit = "DOW";
        Expr *unit_literal =
            expr_make_literal(arena, type_make_varchar((int32_t)strlen(unit), false),
                              value_string(unit, (uint32_t)strlen(unit)));
        if (!unit_literal)
            return fail_memory(diag);
        unit_literal->type.id = TYPE_CHAR;
        Expr *pair[2] = {unit_literal, work[0]};
        Call extract = {arena, FUNCTION_EXTRACT, "EXTRACT", FLAVOR_PLAIN, pair, 2, diag};
        return resolve_function(&extract);
    }
    call.function = entry->function;
    call.name = entry->name;
    call.flavor = entry->flavor;
    return resolve_function(&call);
}
