/*
 * functions.c - the catalogue of scalar functions and operators: name
 * lookup, arity and argument type checks, implicit widening and result
 * types, following Flink SQL (Calcite validation with type coercion off).
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

enum { ARITY_ANY = 255 };

typedef enum NameFlavor {
    FLAVOR_PLAIN = 0,
    FLAVOR_LOCALTIMESTAMP, /* CURRENT_TIMESTAMP id, TIMESTAMP(3) type */
    FLAVOR_LTRIM,
    FLAVOR_RTRIM,
    FLAVOR_CONCAT_FUNCTION, /* CONCAT(...) returns STRING, unlike || */
    FLAVOR_EXTRACT_UNIT,    /* YEAR(x) -> EXTRACT('YEAR', x) */
} NameFlavor;

typedef struct FunctionEntry {
    const char *name;
    FunctionId function;
    uint8_t min_args;
    uint8_t max_args;
    NameFlavor flavor;
} FunctionEntry;

static const FunctionEntry FUNCTION_TABLE[] = {
    {"CHAR_LENGTH", FUNCTION_CHAR_LENGTH, 1, 1, FLAVOR_PLAIN},
    {"CHARACTER_LENGTH", FUNCTION_CHAR_LENGTH, 1, 1, FLAVOR_PLAIN},
    {"UPPER", FUNCTION_UPPER, 1, 1, FLAVOR_PLAIN},
    {"LOWER", FUNCTION_LOWER, 1, 1, FLAVOR_PLAIN},
    {"SUBSTRING", FUNCTION_SUBSTRING, 2, 3, FLAVOR_PLAIN},
    {"SUBSTR", FUNCTION_SUBSTRING, 2, 3, FLAVOR_PLAIN},
    {"CONCAT", FUNCTION_CONCAT, 1, ARITY_ANY, FLAVOR_CONCAT_FUNCTION},
    {"TRIM", FUNCTION_TRIM, 1, 2, FLAVOR_PLAIN},
    {"LTRIM", FUNCTION_TRIM, 1, 1, FLAVOR_LTRIM},
    {"RTRIM", FUNCTION_TRIM, 1, 1, FLAVOR_RTRIM},
    {"POSITION", FUNCTION_POSITION, 2, 2, FLAVOR_PLAIN},
    {"REPLACE", FUNCTION_REPLACE, 3, 3, FLAVOR_PLAIN},
    {"COALESCE", FUNCTION_COALESCE, 1, ARITY_ANY, FLAVOR_PLAIN},
    {"NULLIF", FUNCTION_NULLIF, 2, 2, FLAVOR_PLAIN},
    {"IF", FUNCTION_IF, 3, 3, FLAVOR_PLAIN},
    {"DATE_FORMAT", FUNCTION_DATE_FORMAT, 2, 2, FLAVOR_PLAIN},
    {"TO_TIMESTAMP", FUNCTION_TO_TIMESTAMP, 1, 2, FLAVOR_PLAIN},
    {"CURRENT_TIMESTAMP", FUNCTION_CURRENT_TIMESTAMP, 0, 0, FLAVOR_PLAIN},
    {"NOW", FUNCTION_CURRENT_TIMESTAMP, 0, 0, FLAVOR_PLAIN},
    {"LOCALTIMESTAMP", FUNCTION_CURRENT_TIMESTAMP, 0, 0, FLAVOR_LOCALTIMESTAMP},
    {"CURRENT_DATE", FUNCTION_CURRENT_DATE, 0, 0, FLAVOR_PLAIN},
    {"PROCTIME", FUNCTION_PROCTIME, 0, 0, FLAVOR_PLAIN},
    {"CURRENT_WATERMARK", FUNCTION_CURRENT_WATERMARK, 1, 1, FLAVOR_PLAIN},
    {"ABS", FUNCTION_ABS, 1, 1, FLAVOR_PLAIN},
    {"FLOOR", FUNCTION_FLOOR, 1, 1, FLAVOR_PLAIN},
    {"CEIL", FUNCTION_CEIL, 1, 1, FLAVOR_PLAIN},
    {"CEILING", FUNCTION_CEIL, 1, 1, FLAVOR_PLAIN},
    {"ROUND", FUNCTION_ROUND, 1, 2, FLAVOR_PLAIN},
    {"ITEM", FUNCTION_ITEM, 2, 2, FLAVOR_PLAIN},
    {"CARDINALITY", FUNCTION_CARDINALITY, 1, 1, FLAVOR_PLAIN},
    {"MAP", FUNCTION_MAP, 2, ARITY_ANY, FLAVOR_PLAIN},
    {"MOD", FUNCTION_MOD, 2, 2, FLAVOR_PLAIN},
    {"EXTRACT", FUNCTION_EXTRACT, 2, 2, FLAVOR_PLAIN},
    {"YEAR", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"QUARTER", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"MONTH", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"WEEK", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"DAYOFYEAR", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"DAYOFMONTH", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"DAYOFWEEK", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"HOUR", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"MINUTE", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
    {"SECOND", FUNCTION_EXTRACT, 1, 1, FLAVOR_EXTRACT_UNIT},
};

enum { FUNCTION_TABLE_SIZE = sizeof FUNCTION_TABLE / sizeof FUNCTION_TABLE[0] };

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
    "UNIX_TIMESTAMP",
    "FROM_UNIXTIME",
    "TO_TIMESTAMP_LTZ",
    "TO_DATE",
    "CONVERT_TZ",
    "DATEDIFF",
    "TIMESTAMPADD",
    "TIMESTAMPDIFF",
    "CURRENT_TIME",
    "LOCALTIME",
    "CURRENT_ROW_TIMESTAMP",
    "SOURCE_WATERMARK",
    "PROCTIME_MATERIALIZE",
    "LISTAGG",
    "COLLECT",
    "FIRST_VALUE",
    "LAST_VALUE",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VAR_POP",
    "VAR_SAMP",
    "VARIANCE",
    "ARRAY_AGG",
    "ROW_NUMBER",
    "RANK",
    "DENSE_RANK",
    "PERCENT_RANK",
    "CUME_DIST",
    "NTILE",
    "LAG",
    "LEAD",
    "CONCAT_WS",
    "SPLIT_INDEX",
    "SPLIT",
    "LPAD",
    "RPAD",
    "INITCAP",
    "REVERSE",
    "REPEAT",
    "OVERLAY",
    "LOCATE",
    "INSTR",
    "LEFT",
    "RIGHT",
    "ASCII",
    "CHR",
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
    "POWER",
    "SQRT",
    "EXP",
    "LN",
    "LOG",
    "LOG10",
    "LOG2",
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
    "SIGN",
    "PI",
    "E",
    "TRUNCATE",
    "GREATEST",
    "LEAST",
    "IFNULL",
    "NVL",
    "IS_DECIMAL",
    "IS_DIGIT",
    "IS_ALPHA",
    "HASH_CODE",
    "TYPEOF",
    "ARRAY",
    "MAP",
    "CARDINALITY",
    "ELEMENT",
    "ARRAY_CONTAINS",
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
    "INSTR",
    "SUBSTRING_INDEX",
};

static const char *const AGGREGATE_FUNCTIONS[] = {"COUNT", "SUM", "MIN", "MAX", "AVG"};

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
    }
    return "ANY";
}

typedef enum Syntax {
    SYNTAX_FUNCTION, /* NAME(<A>, <B>) */
    SYNTAX_BINARY,   /* <A> op <B> */
    SYNTAX_PREFIX,   /* op<A> */
    SYNTAX_POSTFIX,  /* <A> op */
    SYNTAX_SPECIAL,  /* CASE, IN, LIKE: NAME(<A>, <B>) as well */
} Syntax;

typedef struct OperatorInfo {
    const char *name; /* as in Calcite's messages */
    Syntax syntax;
    const char *forms; /* Supported form(s) text */
} OperatorInfo;

static OperatorInfo operator_info(FunctionId function)
{
    static const char *comparable_forms[] = {
        "'<COMPARABLE_TYPE> = <COMPARABLE_TYPE>'", "'<COMPARABLE_TYPE> <> <COMPARABLE_TYPE>'",
        "'<COMPARABLE_TYPE> < <COMPARABLE_TYPE>'", "'<COMPARABLE_TYPE> <= <COMPARABLE_TYPE>'",
        "'<COMPARABLE_TYPE> > <COMPARABLE_TYPE>'", "'<COMPARABLE_TYPE> >= <COMPARABLE_TYPE>'",
    };
    OperatorInfo info = {"?", SYNTAX_FUNCTION, ""};
    switch (function) {
    case FUNCTION_EQUAL:
        return (OperatorInfo){"=", SYNTAX_BINARY, comparable_forms[0]};
    case FUNCTION_NOT_EQUAL:
        return (OperatorInfo){"<>", SYNTAX_BINARY, comparable_forms[1]};
    case FUNCTION_LESS:
        return (OperatorInfo){"<", SYNTAX_BINARY, comparable_forms[2]};
    case FUNCTION_LESS_EQUAL:
        return (OperatorInfo){"<=", SYNTAX_BINARY, comparable_forms[3]};
    case FUNCTION_GREATER:
        return (OperatorInfo){">", SYNTAX_BINARY, comparable_forms[4]};
    case FUNCTION_GREATER_EQUAL:
        return (OperatorInfo){">=", SYNTAX_BINARY, comparable_forms[5]};
    case FUNCTION_IS_DISTINCT_FROM:
        return (OperatorInfo){"IS DISTINCT FROM", SYNTAX_BINARY,
                              "'<COMPARABLE_TYPE> IS DISTINCT FROM <COMPARABLE_TYPE>'"};
    case FUNCTION_IS_NOT_DISTINCT_FROM:
        return (OperatorInfo){"IS NOT DISTINCT FROM", SYNTAX_BINARY,
                              "'<COMPARABLE_TYPE> IS NOT DISTINCT FROM <COMPARABLE_TYPE>'"};
    case FUNCTION_AND:
        return (OperatorInfo){"AND", SYNTAX_BINARY, "'<BOOLEAN> AND <BOOLEAN>'"};
    case FUNCTION_OR:
        return (OperatorInfo){"OR", SYNTAX_BINARY, "'<BOOLEAN> OR <BOOLEAN>'"};
    case FUNCTION_NOT:
        return (OperatorInfo){"NOT", SYNTAX_PREFIX, "'NOT<BOOLEAN>'"};
    case FUNCTION_IS_NULL:
        return (OperatorInfo){"IS NULL", SYNTAX_POSTFIX, "'<ANY> IS NULL'"};
    case FUNCTION_IS_NOT_NULL:
        return (OperatorInfo){"IS NOT NULL", SYNTAX_POSTFIX, "'<ANY> IS NOT NULL'"};
    case FUNCTION_IS_TRUE:
        return (OperatorInfo){"IS TRUE", SYNTAX_POSTFIX, "'<BOOLEAN> IS TRUE'"};
    case FUNCTION_IS_NOT_TRUE:
        return (OperatorInfo){"IS NOT TRUE", SYNTAX_POSTFIX, "'<BOOLEAN> IS NOT TRUE'"};
    case FUNCTION_IS_FALSE:
        return (OperatorInfo){"IS FALSE", SYNTAX_POSTFIX, "'<BOOLEAN> IS FALSE'"};
    case FUNCTION_IS_NOT_FALSE:
        return (OperatorInfo){"IS NOT FALSE", SYNTAX_POSTFIX, "'<BOOLEAN> IS NOT FALSE'"};
    case FUNCTION_PLUS:
        return (OperatorInfo){"+", SYNTAX_BINARY,
                              "'<NUMERIC> + <NUMERIC>'\n'<DATETIME_INTERVAL> + "
                              "<DATETIME_INTERVAL>'\n'<DATETIME> + <DATETIME_INTERVAL>'\n"
                              "'<DATETIME_INTERVAL> + <DATETIME>'"};
    case FUNCTION_MINUS:
        return (OperatorInfo){"-", SYNTAX_BINARY,
                              "'<NUMERIC> - <NUMERIC>'\n'<DATETIME_INTERVAL> - "
                              "<DATETIME_INTERVAL>'\n'<DATETIME> - <DATETIME_INTERVAL>'"};
    case FUNCTION_MULTIPLY:
        return (OperatorInfo){"*", SYNTAX_BINARY,
                              "'<NUMERIC> * <NUMERIC>'\n'<DATETIME_INTERVAL> * <NUMERIC>'\n"
                              "'<NUMERIC> * <DATETIME_INTERVAL>'"};
    case FUNCTION_DIVIDE:
        return (OperatorInfo){"/", SYNTAX_BINARY,
                              "'<NUMERIC> / <NUMERIC>'\n'<DATETIME_INTERVAL> / <NUMERIC>'"};
    case FUNCTION_MOD:
        return (OperatorInfo){"MOD", SYNTAX_FUNCTION, "'MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)'"};
    case FUNCTION_NEGATE:
        return (OperatorInfo){"-", SYNTAX_PREFIX, "'-<NUMERIC>'\n'-<DATETIME_INTERVAL>'"};
    case FUNCTION_CASE:
        return (OperatorInfo){"CASE", SYNTAX_SPECIAL, ""};
    case FUNCTION_COALESCE:
        return (OperatorInfo){"COALESCE", SYNTAX_FUNCTION, "'COALESCE(<ANY>, <ANY>...)'"};
    case FUNCTION_NULLIF:
        return (OperatorInfo){"NULLIF", SYNTAX_FUNCTION, "'NULLIF(<ANY>, <ANY>)'"};
    case FUNCTION_IF:
        return (OperatorInfo){"IF", SYNTAX_FUNCTION, "'IF(<BOOLEAN>, <ANY>, <ANY>)'"};
    case FUNCTION_IN:
        return (OperatorInfo){"IN", SYNTAX_BINARY, "'<COMPARABLE_TYPE> IN <COMPARABLE_TYPE>'"};
    case FUNCTION_LIKE:
        return (OperatorInfo){"LIKE", SYNTAX_BINARY,
                              "'<STRING> LIKE <STRING>'\n'<STRING> LIKE <STRING> ESCAPE "
                              "<STRING>'"};
    case FUNCTION_CAST:
        return (OperatorInfo){"CAST", SYNTAX_FUNCTION, ""};
    case FUNCTION_TRY_CAST:
        return (OperatorInfo){"TRY_CAST", SYNTAX_FUNCTION, ""};
    case FUNCTION_CHAR_LENGTH:
        return (OperatorInfo){"CHAR_LENGTH", SYNTAX_FUNCTION, "'CHAR_LENGTH(<CHARACTER>)'"};
    case FUNCTION_UPPER:
        return (OperatorInfo){"UPPER", SYNTAX_FUNCTION, "'UPPER(<CHARACTER>)'"};
    case FUNCTION_LOWER:
        return (OperatorInfo){"LOWER", SYNTAX_FUNCTION, "'LOWER(<CHARACTER>)'"};
    case FUNCTION_SUBSTRING:
        return (OperatorInfo){"SUBSTRING", SYNTAX_FUNCTION,
                              "'SUBSTRING(<CHAR> FROM <INTEGER>)'\n'SUBSTRING(<CHAR> FROM "
                              "<INTEGER> FOR <INTEGER>)'"};
    case FUNCTION_CONCAT:
        return (OperatorInfo){"CONCAT", SYNTAX_FUNCTION, "'CONCAT(<STRING>, <STRING>...)'"};
    case FUNCTION_TRIM:
        return (OperatorInfo){"TRIM", SYNTAX_FUNCTION,
                              "'TRIM(<CHARACTER>)'\n'TRIM(<CHARACTER> FROM <CHARACTER>)'"};
    case FUNCTION_POSITION:
        return (OperatorInfo){"POSITION", SYNTAX_FUNCTION, "'POSITION(<STRING> IN <STRING>)'"};
    case FUNCTION_REPLACE:
        return (OperatorInfo){"REPLACE", SYNTAX_FUNCTION,
                              "'REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)'"};
    case FUNCTION_DATE_FORMAT:
        return (OperatorInfo){"DATE_FORMAT", SYNTAX_FUNCTION,
                              "'DATE_FORMAT(<TIMESTAMP>, <CHARACTER>)'\n"
                              "'DATE_FORMAT(<CHARACTER>, <CHARACTER>)'"};
    case FUNCTION_TO_TIMESTAMP:
        return (OperatorInfo){"TO_TIMESTAMP", SYNTAX_FUNCTION,
                              "'TO_TIMESTAMP(<CHARACTER>)'\n'TO_TIMESTAMP(<CHARACTER>, "
                              "<CHARACTER>)'"};
    case FUNCTION_CURRENT_TIMESTAMP:
        return (OperatorInfo){"CURRENT_TIMESTAMP", SYNTAX_FUNCTION, "'CURRENT_TIMESTAMP'"};
    case FUNCTION_CURRENT_DATE:
        return (OperatorInfo){"CURRENT_DATE", SYNTAX_FUNCTION, "'CURRENT_DATE'"};
    case FUNCTION_PROCTIME:
        return (OperatorInfo){"PROCTIME", SYNTAX_FUNCTION, "'PROCTIME()'"};
    case FUNCTION_CURRENT_WATERMARK:
        return (OperatorInfo){"CURRENT_WATERMARK", SYNTAX_FUNCTION,
                              "'CURRENT_WATERMARK(<TIMESTAMP> *ROWTIME*)'"};
    case FUNCTION_EXTRACT:
        return (OperatorInfo){"EXTRACT", SYNTAX_FUNCTION,
                              "'EXTRACT(<INTERVAL SYMBOL> FROM <DATETIME>)'"};
    case FUNCTION_ABS:
        return (OperatorInfo){"ABS", SYNTAX_FUNCTION, "'ABS(<NUMERIC>)'"};
    case FUNCTION_FLOOR:
        return (OperatorInfo){"FLOOR", SYNTAX_FUNCTION, "'FLOOR(<NUMERIC>)'"};
    case FUNCTION_CEIL:
        return (OperatorInfo){"CEIL", SYNTAX_FUNCTION, "'CEIL(<NUMERIC>)'"};
    case FUNCTION_ROUND:
        return (OperatorInfo){"ROUND", SYNTAX_FUNCTION,
                              "'ROUND(<NUMERIC>)'\n'ROUND(<NUMERIC>, <INTEGER>)'"};
    case FUNCTION_ITEM:
        return (OperatorInfo){"ITEM", SYNTAX_SPECIAL, "'<MAP>[<ANY>]'"};
    case FUNCTION_CARDINALITY:
        return (OperatorInfo){"CARDINALITY", SYNTAX_FUNCTION, "'CARDINALITY(<MAP>)'"};
    case FUNCTION_MAP:
        return (OperatorInfo){"MAP", SYNTAX_SPECIAL, "'MAP[<ANY>, <ANY>, ...]'"};
    case FUNCTION_COUNT_:
        break;
    }
    return info;
}

/* Writes the argument types as Calcite's "Cannot apply" message shows them. */
static void format_call_types(char *buffer, size_t size, OperatorInfo info, Expr **args,
                              uint32_t count)
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
    switch (info.syntax) {
    case SYNTAX_BINARY:
        for (uint32_t i = 0; i < count; i++) {
            if (i > 0)
                APPEND(" %s ", info.name);
            APPEND("<%s>", expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        }
        break;
    case SYNTAX_PREFIX:
        APPEND("%s", info.name);
        for (uint32_t i = 0; i < count; i++)
            APPEND("<%s>", expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        break;
    case SYNTAX_POSTFIX:
        for (uint32_t i = 0; i < count; i++)
            APPEND("<%s>", expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        APPEND(" %s", info.name);
        break;
    case SYNTAX_FUNCTION:
    case SYNTAX_SPECIAL:
        APPEND("%s(", info.name);
        for (uint32_t i = 0; i < count; i++)
            APPEND("%s<%s>", i ? ", " : "",
                   expr_type_name(args[i]->type, false, type_name, sizeof type_name));
        APPEND(")");
        break;
    }
#undef APPEND
}

static Expr *fail_cannot_apply(FunctionId function, const char *name, Expr **args, uint32_t count,
                               Diag *diag)
{
    OperatorInfo info = operator_info(function);
    if (name && info.syntax == SYNTAX_FUNCTION)
        info.name = name;
    char types[768];
    format_call_types(types, sizeof types, info, args, count);
    if (info.forms[0])
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "Cannot apply '%s' to arguments of type '%s'. Supported form(s): %s", info.name,
                   types, info.forms);
    else
        diag_error(diag, JOINERY_ERROR_VALIDATE, "Cannot apply '%s' to arguments of type '%s'",
                   info.name, types);
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

/* Replaces args[i] by an implicit cast to `type` (keeping its own nullability). */
static bool widen_arg(Arena *arena, Expr **args, uint32_t i, DataType type)
{
    DataType target = type;
    target.nullable = args[i]->type.nullable || args[i]->type.id == TYPE_NULL;
    target.time_attribute = TIME_ATTRIBUTE_NONE;
    if (args[i]->type.id == TYPE_NULL) {
        /* an untyped NULL literal simply becomes a typed one */
        if (args[i]->kind == EXPR_LITERAL) {
            Expr *literal = expr_make_literal(arena, target, value_null());
            if (!literal)
                return false;
            args[i] = literal;
            return true;
        }
    }
    if (type_equals(args[i]->type, target))
        return true;
    Expr *cast = expr_make_implicit_cast(arena, args[i], target);
    if (!cast)
        return false;
    args[i] = cast;
    return true;
}

static bool widen_args(Arena *arena, Expr **args, uint32_t from, uint32_t count, DataType type)
{
    for (uint32_t i = from; i < count; i++)
        if (!widen_arg(arena, args, i, type))
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

static DataType decimal_arithmetic_type(FunctionId function, DataType a, DataType b, bool nullable)
{
    int p1, s1, p2, s2;
    decimal_shape(a, &p1, &s1);
    decimal_shape(b, &p2, &s2);
    switch (function) {
    case FUNCTION_PLUS:
    case FUNCTION_MINUS: {
        int scale = max_int(s1, s2);
        return decimal_adjusted(max_int(p1 - s1, p2 - s2) + scale + 1, scale, nullable);
    }
    case FUNCTION_MULTIPLY:
        return decimal_adjusted(p1 + p2 + 1, s1 + s2, nullable);
    case FUNCTION_DIVIDE: {
        int scale = max_int(6, s1 + p2 + 1);
        return decimal_adjusted(p1 - s1 + s2 + scale, scale, nullable);
    }
    default: { /* MOD */
        int scale = max_int(s1, s2);
        return decimal_adjusted(min_int(p1 - s1, p2 - s2) + scale, scale, nullable);
    }
    }
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

/* ---- per-family resolution ------------------------------------------ */

static Expr *make(Arena *arena, FunctionId function, DataType type, Expr **args, uint32_t count,
                  Diag *diag)
{
    Expr *expr = expr_make_call(arena, function, type, args, count);
    return expr ? expr : fail_memory(diag);
}

static Expr *resolve_comparison(Arena *arena, FunctionId function, Expr **args, uint32_t count,
                                Diag *diag)
{
    DataType common;
    if (count != 2 || !types_comparable(args[0]->type, args[1]->type) ||
        !common_type_of(args, count, &common))
        return fail_cannot_apply(function, NULL, args, count, diag);
    bool nullable = any_nullable(args, count);
    /* maps are equal or not (their canonical encodings), never ordered */
    if (common.id == TYPE_MAP && function != FUNCTION_EQUAL && function != FUNCTION_NOT_EQUAL &&
        function != FUNCTION_IS_DISTINCT_FROM && function != FUNCTION_IS_NOT_DISTINCT_FROM)
        return fail_cannot_apply(function, NULL, args, count, diag);
    if (common.id == TYPE_NULL)
        common = type_make(TYPE_BOOLEAN, true); /* NULL = NULL */
    if (!widen_args(arena, args, 0, count, common))
        return fail_memory(diag);
    if (function == FUNCTION_IS_DISTINCT_FROM || function == FUNCTION_IS_NOT_DISTINCT_FROM)
        nullable = false;
    return make(arena, function, type_make(TYPE_BOOLEAN, nullable), args, count, diag);
}

static Expr *resolve_logic(Arena *arena, FunctionId function, Expr **args, uint32_t count,
                           Diag *diag)
{
    uint32_t minimum = function == FUNCTION_NOT ? 1 : 2;
    if (count < minimum || (function == FUNCTION_NOT && count != 1))
        return fail_cannot_apply(function, NULL, args, count, diag);
    for (uint32_t i = 0; i < count; i++)
        if (!is_boolean_or_null(args[i]->type))
            return fail_cannot_apply(function, NULL, args, count, diag);
    if (!widen_args(arena, args, 0, count, type_make(TYPE_BOOLEAN, true)))
        return fail_memory(diag);
    return make(arena, function, type_make(TYPE_BOOLEAN, any_nullable(args, count)), args, count,
                diag);
}

static Expr *resolve_is(Arena *arena, FunctionId function, Expr **args, uint32_t count, Diag *diag)
{
    if (count != 1)
        return fail_cannot_apply(function, NULL, args, count, diag);
    if (function != FUNCTION_IS_NULL && function != FUNCTION_IS_NOT_NULL) {
        if (!is_boolean_or_null(args[0]->type))
            return fail_cannot_apply(function, NULL, args, count, diag);
        if (!widen_args(arena, args, 0, 1, type_make(TYPE_BOOLEAN, true)))
            return fail_memory(diag);
    }
    return make(arena, function, type_make(TYPE_BOOLEAN, false), args, count, diag);
}

static Expr *resolve_arithmetic(Arena *arena, FunctionId function, const char *name, Expr **args,
                                uint32_t count, Diag *diag)
{
    if (function == FUNCTION_NEGATE) {
        if (count != 1)
            return fail_cannot_apply(function, name, args, count, diag);
        DataType type = args[0]->type;
        if (!type_is_numeric(type.id) && !type_is_interval(type.id))
            return fail_cannot_apply(function, name, args, count, diag);
        type.time_attribute = TIME_ATTRIBUTE_NONE;
        return make(arena, function, type, args, count, diag);
    }
    if (count != 2)
        return fail_cannot_apply(function, name, args, count, diag);
    DataType a = args[0]->type, b = args[1]->type;
    bool nullable = a.nullable || b.nullable;
    /* untyped NULL takes the other operand's type */
    if (a.id == TYPE_NULL && b.id != TYPE_NULL) {
        if (!widen_arg(arena, args, 0, b))
            return fail_memory(diag);
        a = args[0]->type;
    } else if (b.id == TYPE_NULL && a.id != TYPE_NULL) {
        if (!widen_arg(arena, args, 1, a))
            return fail_memory(diag);
        b = args[1]->type;
    } else if (a.id == TYPE_NULL && b.id == TYPE_NULL) {
        return fail_cannot_apply(function, name, args, count, diag);
    }
    if (type_is_numeric(a.id) && type_is_numeric(b.id)) {
        DataType result;
        bool approximate =
            a.id == TYPE_DOUBLE || b.id == TYPE_DOUBLE || a.id == TYPE_FLOAT || b.id == TYPE_FLOAT;
        if (function == FUNCTION_MOD && approximate)
            return fail_cannot_apply(function, name, args, count, diag);
        if (approximate || (type_is_integer(a.id) && type_is_integer(b.id))) {
            if (!type_common(a, b, &result))
                return fail_cannot_apply(function, name, args, count, diag);
            result.nullable = nullable;
            if (!widen_args(arena, args, 0, 2, result))
                return fail_memory(diag);
            if (function == FUNCTION_MOD && !approximate)
                result = type_make(b.id, nullable); /* Calcite: MOD has the divisor's type */
        } else {
            result = decimal_arithmetic_type(function, a, b, nullable);
            for (uint32_t i = 0; i < 2; i++)
                if (type_is_integer(args[i]->type.id) &&
                    !widen_arg(arena, args, i, integer_as_decimal(args[i]->type)))
                    return fail_memory(diag);
        }
        return make(arena, function, result, args, count, diag);
    }
    /* temporal and interval arithmetic */
    bool a_time = type_is_temporal(a.id), b_time = type_is_temporal(b.id);
    bool a_interval = type_is_interval(a.id), b_interval = type_is_interval(b.id);
    DataType result;
    if (function == FUNCTION_PLUS && ((a_time && b_interval) || (a_interval && b_time))) {
        result = a_time ? a : b;
    } else if (function == FUNCTION_MINUS && a_time && b_interval) {
        result = a;
    } else if ((function == FUNCTION_PLUS || function == FUNCTION_MINUS) && a_interval &&
               b_interval && a.id == b.id) {
        result = a;
    } else if (function == FUNCTION_MULTIPLY &&
               ((a_interval && type_is_numeric(b.id)) || (type_is_numeric(a.id) && b_interval))) {
        result = a_interval ? a : b;
    } else if (function == FUNCTION_DIVIDE && a_interval && type_is_numeric(b.id)) {
        result = a;
    } else {
        return fail_cannot_apply(function, name, args, count, diag);
    }
    result.nullable = nullable;
    result.time_attribute = TIME_ATTRIBUTE_NONE;
    return make(arena, function, result, args, count, diag);
}

static Expr *resolve_case(Arena *arena, Expr **args, uint32_t count, Diag *diag)
{
    if (count < 3 || count % 2 == 0) {
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "CASE needs conditions, results and an ELSE (got %u arguments)",
                   (unsigned)count);
        return NULL;
    }
    for (uint32_t i = 0; i + 1 < count; i += 2) {
        if (!is_boolean_or_null(args[i]->type)) {
            char type_name[96];
            diag_error(diag, JOINERY_ERROR_VALIDATE,
                       "Expected a boolean type in a CASE condition, got %s",
                       expr_type_name(args[i]->type, false, type_name, sizeof type_name));
            return NULL;
        }
        if (!widen_arg(arena, args, i, type_make(TYPE_BOOLEAN, true)))
            return fail_memory(diag);
    }
    /* results sit at 1, 3, ..., count - 2, and the ELSE at count - 1 */
    DataType common = type_make(TYPE_NULL, true);
    bool nullable = false;
    uint32_t results = (count - 1) / 2 + 1;
    for (uint32_t k = 0; k < results; k++) {
        uint32_t i = k + 1 < results ? 2 * k + 1 : count - 1;
        DataType next;
        if (!type_common(common, args[i]->type, &next)) {
            diag_error(diag, JOINERY_ERROR_VALIDATE,
                       "Illegal mixing of types in CASE or COALESCE statement");
            return NULL;
        }
        common = next;
        nullable = nullable || args[i]->type.nullable || args[i]->type.id == TYPE_NULL;
    }
    if (common.id == TYPE_NULL) {
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "Illegal use of 'NULL': CASE results cannot all be NULL");
        return NULL;
    }
    for (uint32_t i = 1; i < count; i += 2)
        if (!widen_arg(arena, args, i, common))
            return fail_memory(diag);
    if (!widen_arg(arena, args, count - 1, common))
        return fail_memory(diag);
    common.nullable = nullable;
    common.time_attribute = TIME_ATTRIBUTE_NONE;
    return make(arena, FUNCTION_CASE, common, args, count, diag);
}

static Expr *resolve_conditional(Arena *arena, FunctionId function, const char *name, Expr **args,
                                 uint32_t count, Diag *diag)
{
    DataType common;
    uint32_t first = function == FUNCTION_IF ? 1 : 0;
    if ((function == FUNCTION_IF && count != 3) || (function == FUNCTION_NULLIF && count != 2) ||
        count == 0)
        return fail_cannot_apply(function, name, args, count, diag);
    if (function == FUNCTION_IF && !is_boolean_or_null(args[0]->type))
        return fail_cannot_apply(function, name, args, count, diag);
    if (function == FUNCTION_NULLIF && !types_comparable(args[0]->type, args[1]->type))
        return fail_cannot_apply(function, name, args, count, diag);
    if (!common_type_of(args + first, count - first, &common)) {
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "Illegal mixing of types in CASE or COALESCE statement");
        return NULL;
    }
    if (common.id == TYPE_NULL) {
        diag_error(diag, JOINERY_ERROR_VALIDATE, "Illegal use of 'NULL'");
        return NULL;
    }
    if (first == 1 && !widen_arg(arena, args, 0, type_make(TYPE_BOOLEAN, true)))
        return fail_memory(diag);
    if (!widen_args(arena, args, first, count, common))
        return fail_memory(diag);
    common.time_attribute = TIME_ATTRIBUTE_NONE;
    switch (function) {
    case FUNCTION_COALESCE:
        common.nullable = true;
        for (uint32_t i = 0; i < count; i++)
            if (!args[i]->type.nullable)
                common.nullable = false;
        break;
    case FUNCTION_NULLIF:
        common.nullable = true;
        break;
    default: /* IF */
        common.nullable = args[1]->type.nullable || args[2]->type.nullable;
        break;
    }
    return make(arena, function, common, args, count, diag);
}

static Expr *resolve_in(Arena *arena, Expr **args, uint32_t count, Diag *diag)
{
    if (count < 2)
        return fail_cannot_apply(FUNCTION_IN, NULL, args, count, diag);
    for (uint32_t i = 1; i < count; i++) {
        if (!types_comparable(args[0]->type, args[i]->type)) {
            Expr *pair[2] = {args[0], args[i]};
            char types[512];
            format_call_types(types, sizeof types, operator_info(FUNCTION_IN), pair, 2);
            diag_error(diag, JOINERY_ERROR_VALIDATE,
                       "Values passed to IN operator must have compatible types: '%s'", types);
            return NULL;
        }
    }
    DataType common;
    if (!common_type_of(args, count, &common) || common.id == TYPE_NULL)
        return fail_cannot_apply(FUNCTION_IN, NULL, args, count, diag);
    if (!widen_args(arena, args, 0, count, common))
        return fail_memory(diag);
    return make(arena, FUNCTION_IN, type_make(TYPE_BOOLEAN, any_nullable(args, count)), args, count,
                diag);
}

/* Checks every arg is a string (or NULL, which becomes a typed NULL STRING). */
static bool require_strings(Arena *arena, Expr **args, uint32_t from, uint32_t to, bool *ok)
{
    *ok = true;
    for (uint32_t i = from; i < to; i++) {
        if (!is_string_or_null(args[i]->type)) {
            *ok = false;
            return true;
        }
        if (args[i]->type.id == TYPE_NULL &&
            !widen_arg(arena, args, i, type_make(TYPE_VARCHAR, true)))
            return false;
    }
    return true;
}

static bool require_integers(Arena *arena, Expr **args, uint32_t from, uint32_t to, bool *ok)
{
    *ok = true;
    for (uint32_t i = from; i < to; i++) {
        if (!type_is_integer(args[i]->type.id) && args[i]->type.id != TYPE_NULL) {
            *ok = false;
            return true;
        }
        if (args[i]->type.id == TYPE_NULL && !widen_arg(arena, args, i, type_make(TYPE_INT, true)))
            return false;
    }
    return true;
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

static Expr *resolve_string_or_time(Arena *arena, FunctionId function, const char *name,
                                    NameFlavor flavor, Expr **args, uint32_t count, Diag *diag)
{
    bool ok = true;
    bool nullable = any_nullable(args, count);
    DataType result;
    switch (function) {
    case FUNCTION_CHAR_LENGTH:
        if (!require_strings(arena, args, 0, 1, &ok))
            return fail_memory(diag);
        result = type_make(TYPE_INT, nullable);
        break;
    case FUNCTION_UPPER:
    case FUNCTION_LOWER:
        if (!require_strings(arena, args, 0, 1, &ok))
            return fail_memory(diag);
        result = args[0]->type;
        result.nullable = nullable;
        break;
    case FUNCTION_SUBSTRING:
        if (!require_strings(arena, args, 0, 1, &ok))
            return fail_memory(diag);
        if (ok && !require_integers(arena, args, 1, count, &ok))
            return fail_memory(diag);
        result = type_make_varchar(args[0]->type.precision, nullable);
        break;
    case FUNCTION_CONCAT: {
        if (!require_strings(arena, args, 0, count, &ok))
            return fail_memory(diag);
        if (flavor == FLAVOR_CONCAT_FUNCTION || !ok) {
            result = type_make(TYPE_VARCHAR, nullable);
            break;
        }
        /* a || b: lengths add up; CHAR only when both are CHAR */
        int64_t length = 0;
        bool all_char = true;
        for (uint32_t i = 0; i < count; i++) {
            length += args[i]->type.precision;
            all_char = all_char && args[i]->type.id == TYPE_CHAR;
        }
        if (length > TYPE_STRING_LENGTH)
            length = TYPE_STRING_LENGTH;
        result = type_make_varchar((int32_t)length, nullable);
        if (all_char)
            result.id = TYPE_CHAR;
        break;
    }
    case FUNCTION_TRIM:
        if (!require_strings(arena, args, 0, count, &ok))
            return fail_memory(diag);
        result = type_make_varchar(args[0]->type.precision, nullable);
        break;
    case FUNCTION_POSITION:
        if (!require_strings(arena, args, 0, count, &ok))
            return fail_memory(diag);
        result = type_make(TYPE_INT, nullable);
        break;
    case FUNCTION_REPLACE:
        if (!require_strings(arena, args, 0, count, &ok))
            return fail_memory(diag);
        result = type_make(TYPE_VARCHAR, nullable);
        break;
    case FUNCTION_LIKE:
        if (count < 2 || count > 3)
            return fail_cannot_apply(function, NULL, args, count, diag);
        if (!require_strings(arena, args, 0, count, &ok))
            return fail_memory(diag);
        result = type_make(TYPE_BOOLEAN, nullable);
        break;
    case FUNCTION_DATE_FORMAT:
        ok = (is_timestamp(args[0]->type.id) || args[0]->type.id == TYPE_DATE ||
              is_string_or_null(args[0]->type)) &&
             is_string_or_null(args[1]->type);
        if (ok && args[0]->type.id == TYPE_NULL &&
            !widen_arg(arena, args, 0, type_make_timestamp(TYPE_TIMESTAMP, 3, true)))
            return fail_memory(diag);
        if (ok && !require_strings(arena, args, 1, 2, &ok))
            return fail_memory(diag);
        result = type_make(TYPE_VARCHAR, true);
        break;
    case FUNCTION_TO_TIMESTAMP:
        if (!require_strings(arena, args, 0, count, &ok))
            return fail_memory(diag);
        result = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
        break;
    case FUNCTION_CURRENT_TIMESTAMP:
        result = flavor == FLAVOR_LOCALTIMESTAMP
                     ? type_make_timestamp(TYPE_TIMESTAMP, 3, false)
                     : type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, false);
        break;
    case FUNCTION_CURRENT_DATE:
        result = type_make(TYPE_DATE, false);
        break;
    case FUNCTION_PROCTIME:
        result = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, false);
        result.time_attribute = TIME_ATTRIBUTE_PROCTIME;
        break;
    case FUNCTION_CURRENT_WATERMARK:
        /* Flink: the argument must be a rowtime attribute; the result has its type, at
           precision 3, nullable */
        if (args[0]->type.time_attribute != TIME_ATTRIBUTE_ROWTIME) {
            diag_error(diag, JOINERY_ERROR_VALIDATE,
                       "The argument of CURRENT_WATERMARK must be a rowtime attribute (a "
                       "column with a WATERMARK), got %s",
                       args[0]->kind == EXPR_INPUT_REF ? "a column without a watermark"
                                                       : "an expression");
            return NULL;
        }
        result = type_make_timestamp(args[0]->type.id, 3, true);
        break;
    default: /* EXTRACT */
        if (!extract_unit_valid(args[0])) {
            diag_error(diag, JOINERY_ERROR_VALIDATE,
                       "EXTRACT needs a time unit (YEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, "
                       "HOUR, MINUTE, SECOND, MILLISECOND, EPOCH)");
            return NULL;
        }
        ok = type_is_temporal(args[1]->type.id) || type_is_interval(args[1]->type.id) ||
             args[1]->type.id == TYPE_NULL;
        if (ok && args[1]->type.id == TYPE_NULL &&
            !widen_arg(arena, args, 1, type_make_timestamp(TYPE_TIMESTAMP, 3, true)))
            return fail_memory(diag);
        result = type_make(TYPE_BIGINT, args[1]->type.nullable);
        break;
    }
    if (!ok)
        return fail_cannot_apply(function, name, args, count, diag);
    result.time_attribute =
        function == FUNCTION_PROCTIME ? TIME_ATTRIBUTE_PROCTIME : TIME_ATTRIBUTE_NONE;
    Expr *expr = make(arena, function, result, args, count, diag);
    if (expr && flavor == FLAVOR_LTRIM)
        expr->call.trim_mode = TRIM_LEADING;
    if (expr && flavor == FLAVOR_RTRIM)
        expr->call.trim_mode = TRIM_TRAILING;
    return expr;
}

static Expr *resolve_numeric(Arena *arena, FunctionId function, const char *name, Expr **args,
                             uint32_t count, Diag *diag)
{
    DataType type = args[0]->type;
    if (!is_numeric_or_null(type) && !(function == FUNCTION_ABS && type_is_interval(type.id)))
        return fail_cannot_apply(function, name, args, count, diag);
    if (type.id == TYPE_NULL) {
        if (!widen_arg(arena, args, 0, type_make(TYPE_INT, true)))
            return fail_memory(diag);
        type = args[0]->type;
    }
    type.time_attribute = TIME_ATTRIBUTE_NONE;
    DataType result = type;
    if (function == FUNCTION_FLOOR || function == FUNCTION_CEIL || function == FUNCTION_ROUND) {
        int32_t digits = 0;
        if (function == FUNCTION_ROUND && count == 2) {
            const Expr *places = args[1];
            if (!type_is_integer(places->type.id))
                return fail_cannot_apply(function, name, args, count, diag);
            if (places->kind == EXPR_LITERAL && !places->literal.is_null) {
                int64_t value = places->literal.i;
                digits = value > 18 ? 18 : value < -18 ? -18 : (int32_t)value;
            }
        }
        if (type.id == TYPE_DECIMAL) {
            /* Flink's LogicalTypeMerging.findRoundDecimalType */
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
    result.nullable = any_nullable(args, count);
    return make(arena, function, result, args, count, diag);
}

/* ---- name lookup ----------------------------------------------------- */

static const FunctionEntry *find_entry(const char *name)
{
    for (size_t i = 0; i < FUNCTION_TABLE_SIZE; i++)
        if (strcasecmp(FUNCTION_TABLE[i].name, name) == 0)
            return &FUNCTION_TABLE[i];
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
    const char *candidates[FUNCTION_TABLE_SIZE];
    for (size_t i = 0; i < FUNCTION_TABLE_SIZE; i++)
        candidates[i] = FUNCTION_TABLE[i].name;
    const char *suggestion = catalog_suggest_name(name, candidates, FUNCTION_TABLE_SIZE);
    if (suggestion)
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "No match found for function signature %s(%s); did you mean '%s'?", name,
                   signature, suggestion);
    else
        diag_error(diag, JOINERY_ERROR_VALIDATE, "No match found for function signature %s(%s)",
                   name, signature);
    return NULL;
}

static Expr *fail_arity(const FunctionEntry *entry, Diag *diag)
{
    if (entry->max_args == ARITY_ANY)
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

/* Dispatches a call whose FunctionId is known. */
/* A CHAR type as VARCHAR of the same length (map keys and values hold no padding). */
static DataType unpadded(DataType type)
{
    if (type.id == TYPE_CHAR)
        type.id = TYPE_VARCHAR;
    return type;
}

/* map[key], CARDINALITY(map), MAP[k1, v1, ...]. */
static Expr *resolve_map_function(Arena *arena, FunctionId function, const char *name, Expr **args,
                                  uint32_t count, Diag *diag)
{
    if (function == FUNCTION_CARDINALITY) {
        if (args[0]->type.id != TYPE_MAP)
            return fail_cannot_apply(function, name, args, count, diag);
        return make(arena, function, type_make(TYPE_INT, args[0]->type.nullable), args, count,
                    diag);
    }
    if (function == FUNCTION_ITEM) {
        DataType map = args[0]->type;
        if (map.id != TYPE_MAP || !types_comparable(type_map_key(map), args[1]->type))
            return fail_cannot_apply(function, name, args, count, diag);
        if (!widen_arg(arena, args, 1, type_map_key(map)))
            return fail_memory(diag);
        DataType value = type_map_value(map);
        value.nullable = true; /* an absent key gives NULL */
        return make(arena, function, value, args, count, diag);
    }
    /* MAP[k1, v1, ...]: keys widened to their common type, values to theirs */
    if (count % 2 != 0)
        return fail_cannot_apply(function, name, args, count, diag);
    DataType key = type_make(TYPE_NULL, true), value = type_make(TYPE_NULL, true);
    for (uint32_t i = 0; i < count; i++) {
        DataType *common = i % 2 == 0 ? &key : &value;
        DataType next;
        if (args[i]->type.id == TYPE_MAP || !type_common(*common, args[i]->type, &next)) {
            if (args[i]->type.id == TYPE_MAP) {
                diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                           "a MAP inside a MAP is not supported yet");
                return NULL;
            }
            return fail_cannot_apply(function, name, args, count, diag);
        }
        *common = next;
    }
    if (key.id == TYPE_NULL || value.id == TYPE_NULL) {
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "Cannot infer the key or value type of MAP[...] from NULL literals alone; "
                   "CAST them");
        return NULL;
    }
    key = unpadded(key);
    value = unpadded(value);
    for (uint32_t i = 0; i < count; i++)
        if (!widen_arg(arena, args, i, i % 2 == 0 ? key : value))
            return fail_memory(diag);
    return make(arena, function, type_make_map(key, value, false), args, count, diag);
}

static Expr *resolve_function(Arena *arena, FunctionId function, const char *name,
                              NameFlavor flavor, Expr **args, uint32_t count, Diag *diag)
{
    uint32_t minimum = 0, maximum = UINT32_MAX;
    switch (function) {
    case FUNCTION_CHAR_LENGTH:
    case FUNCTION_UPPER:
    case FUNCTION_LOWER:
    case FUNCTION_ABS:
    case FUNCTION_FLOOR:
    case FUNCTION_CEIL:
        minimum = maximum = 1;
        break;
    case FUNCTION_SUBSTRING:
        minimum = 2;
        maximum = 3;
        break;
    case FUNCTION_TRIM:
    case FUNCTION_TO_TIMESTAMP:
    case FUNCTION_ROUND:
        minimum = 1;
        maximum = 2;
        break;
    case FUNCTION_POSITION:
    case FUNCTION_DATE_FORMAT:
    case FUNCTION_EXTRACT:
        minimum = maximum = 2;
        break;
    case FUNCTION_REPLACE:
        minimum = maximum = 3;
        break;
    case FUNCTION_CONCAT:
    case FUNCTION_COALESCE:
        minimum = 1;
        break;
    case FUNCTION_CURRENT_TIMESTAMP:
    case FUNCTION_CURRENT_DATE:
    case FUNCTION_PROCTIME:
        maximum = 0;
        break;
    default:
        break;
    }
    if (count < minimum || count > maximum)
        return fail_cannot_apply(function, name, args, count, diag);
    switch (function) {
    case FUNCTION_EQUAL:
    case FUNCTION_NOT_EQUAL:
    case FUNCTION_LESS:
    case FUNCTION_LESS_EQUAL:
    case FUNCTION_GREATER:
    case FUNCTION_GREATER_EQUAL:
    case FUNCTION_IS_DISTINCT_FROM:
    case FUNCTION_IS_NOT_DISTINCT_FROM:
        return resolve_comparison(arena, function, args, count, diag);
    case FUNCTION_AND:
    case FUNCTION_OR:
    case FUNCTION_NOT:
        return resolve_logic(arena, function, args, count, diag);
    case FUNCTION_IS_NULL:
    case FUNCTION_IS_NOT_NULL:
    case FUNCTION_IS_TRUE:
    case FUNCTION_IS_NOT_TRUE:
    case FUNCTION_IS_FALSE:
    case FUNCTION_IS_NOT_FALSE:
        return resolve_is(arena, function, args, count, diag);
    case FUNCTION_PLUS:
    case FUNCTION_MINUS:
    case FUNCTION_MULTIPLY:
    case FUNCTION_DIVIDE:
    case FUNCTION_MOD:
    case FUNCTION_NEGATE:
        return resolve_arithmetic(arena, function, name, args, count, diag);
    case FUNCTION_CASE:
        return resolve_case(arena, args, count, diag);
    case FUNCTION_COALESCE:
    case FUNCTION_NULLIF:
    case FUNCTION_IF:
        return resolve_conditional(arena, function, name, args, count, diag);
    case FUNCTION_IN:
        return resolve_in(arena, args, count, diag);
    case FUNCTION_CAST:
    case FUNCTION_TRY_CAST:
        diag_error(diag, JOINERY_ERROR_VALIDATE,
                   "internal: CAST is built with expr_make_cast, not function_resolve");
        return NULL;
    case FUNCTION_LIKE:
    case FUNCTION_CHAR_LENGTH:
    case FUNCTION_UPPER:
    case FUNCTION_LOWER:
    case FUNCTION_SUBSTRING:
    case FUNCTION_CONCAT:
    case FUNCTION_TRIM:
    case FUNCTION_POSITION:
    case FUNCTION_REPLACE:
    case FUNCTION_DATE_FORMAT:
    case FUNCTION_TO_TIMESTAMP:
    case FUNCTION_CURRENT_TIMESTAMP:
    case FUNCTION_CURRENT_DATE:
    case FUNCTION_PROCTIME:
    case FUNCTION_CURRENT_WATERMARK:
    case FUNCTION_EXTRACT:
        return resolve_string_or_time(arena, function, name, flavor, args, count, diag);
    case FUNCTION_ABS:
    case FUNCTION_FLOOR:
    case FUNCTION_CEIL:
    case FUNCTION_ROUND:
        return resolve_numeric(arena, function, name, args, count, diag);
    case FUNCTION_ITEM:
    case FUNCTION_CARDINALITY:
    case FUNCTION_MAP:
        return resolve_map_function(arena, function, name, args, count, diag);
    case FUNCTION_COUNT_:
        break;
    }
    diag_error(diag, JOINERY_ERROR_VALIDATE, "internal: unknown function id %d", (int)function);
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
    if (!name)
        return resolve_function(arena, function, NULL, FLAVOR_PLAIN, work, arg_count, diag);

    const FunctionEntry *entry = find_entry(name);
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
        (entry->max_args != ARITY_ANY && arg_count > entry->max_args)) {
        if (entry->function == FUNCTION_CURRENT_TIMESTAMP ||
            entry->function == FUNCTION_CURRENT_DATE || entry->function == FUNCTION_PROCTIME ||
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
        return resolve_function(arena, FUNCTION_EXTRACT, "EXTRACT", FLAVOR_PLAIN, pair, 2, diag);
    }
    return resolve_function(arena, entry->function, entry->name, entry->flavor, work, arg_count,
                            diag);
}
