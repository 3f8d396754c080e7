/*
 * bind_expr.c - AST expressions to typed Exprs: name resolution in a scope,
 * literals, operators and special forms, and aggregate calls of grouped
 * queries (which become references to the aggregate's output).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/base/binary.h"
#include "engine/plan/bind_internal.h"
#include "engine/udf/udf.h"

int bind_error(Binder *binder, JoineryStatus status, SourcePosition position, const char *format,
               ...)
{
    char message[DIAG_MESSAGE_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return diag_error_at(binder->diag, status, position.line, position.column, "%s", message);
}

static int bind_no_memory(Binder *binder)
{
    return diag_error(binder->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

bool bind_contains_aggregate(Binder *binder, const AstExpr *ast)
{
    if (!ast)
        return false;
    switch (ast->kind) {
    case AST_EXPR_FUNCTION:
        if (!ast->function.over && (function_is_aggregate_name(ast->function.name) ||
                                    bind_is_udf_aggregate_call(binder, ast)))
            return true;
        for (size_t i = 0; i < ast->function.args.count; i++)
            if (bind_contains_aggregate(binder, ast->function.args.items[i]))
                return true;
        return false;
    case AST_EXPR_UNARY:
        return bind_contains_aggregate(binder, ast->unary.operand);
    case AST_EXPR_BINARY:
        return bind_contains_aggregate(binder, ast->binary.left) ||
               bind_contains_aggregate(binder, ast->binary.right);
    case AST_EXPR_CAST:
        return bind_contains_aggregate(binder, ast->cast.operand);
    case AST_EXPR_CASE:
        if (bind_contains_aggregate(binder, ast->case_expr.operand) ||
            bind_contains_aggregate(binder, ast->case_expr.else_result))
            return true;
        for (size_t i = 0; i < ast->case_expr.conditions.count; i++)
            if (bind_contains_aggregate(binder, ast->case_expr.conditions.items[i]) ||
                bind_contains_aggregate(binder, ast->case_expr.results.items[i]))
                return true;
        return false;
    case AST_EXPR_IS_NULL:
        return bind_contains_aggregate(binder, ast->is_null.operand);
    case AST_EXPR_IS_DISTINCT:
        return bind_contains_aggregate(binder, ast->is_distinct.left) ||
               bind_contains_aggregate(binder, ast->is_distinct.right);
    case AST_EXPR_IS_BOOLEAN:
        return bind_contains_aggregate(binder, ast->is_boolean.operand);
    case AST_EXPR_BETWEEN:
        return bind_contains_aggregate(binder, ast->between.operand) ||
               bind_contains_aggregate(binder, ast->between.low) ||
               bind_contains_aggregate(binder, ast->between.high);
    case AST_EXPR_IN_LIST:
        if (bind_contains_aggregate(binder, ast->in_list.operand))
            return true;
        for (size_t i = 0; i < ast->in_list.values.count; i++)
            if (bind_contains_aggregate(binder, ast->in_list.values.items[i]))
                return true;
        return false;
    case AST_EXPR_LIKE:
        return bind_contains_aggregate(binder, ast->like.operand) ||
               bind_contains_aggregate(binder, ast->like.pattern);
    default:
        return false;
    }
}

/* ------------------------------------------------------------ columns */

static int bind_call(Binder *binder, SourcePosition position, const char *name, FunctionId function,
                     Expr **args, uint32_t count, Expr **result);

/* row.name: the field access call (names match exactly, as Flink's are case-sensitive). */
static int bind_field_access(Binder *binder, SourcePosition position, Expr *row, const char *name,
                             Expr **result)
{
    if (row->type.id != TYPE_ROW) {
        char type_name[256];
        return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                          "Cannot access field '%s' of a value of type %s: not a ROW", name,
                          type_format(row->type, type_name, sizeof type_name));
    }
    uint32_t count = type_field_count(row->type);
    for (uint32_t i = 0; i < count; i++) {
        if (strcmp(type_field_name(row->type, i), name) != 0)
            continue;
        Expr **args = arena_calloc(binder->arena, 2, sizeof(Expr *));
        if (!args)
            return bind_no_memory(binder);
        args[0] = row;
        args[1] = expr_make_literal(binder->arena, type_make(TYPE_INT, false), value_int(i));
        if (!args[1])
            return bind_no_memory(binder);
        return bind_call(binder, position, NULL, FUNCTION_FIELD_ACCESS, args, 2, result);
    }
    return bind_error(binder, JOINERY_ERROR_VALIDATE, position, "Unknown field '%s'", name);
}

/*
 * A dotted name that is no qualified column: a column (qualified by its table or not) of a
 * ROW type followed by field names, t.r.f or r.f.g. Returns JOINERY_OK with *result, or -1
 * when no reading of the parts names a ROW column (the caller reports the name).
 */
static int bind_column_fields(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    char *path = arena_strdup(binder->arena, ast->column.qualifier);
    if (!path)
        return bind_no_memory(binder);
    const char *parts[64];
    uint32_t count = 0;
    for (char *cursor = path; cursor && count < 63;) {
        parts[count++] = cursor;
        cursor = strchr(cursor, '.');
        if (cursor)
            *cursor++ = '\0';
    }
    parts[count++] = ast->column.name;
    /* first: table.column.field...; then column.field... */
    for (uint32_t skip = 0; skip < 2 && skip + 1 < count; skip++) {
        const char *table = skip ? parts[0] : NULL;
        const char *column_name = parts[skip];
        int found = -1;
        for (uint32_t i = 0; i < scope->count; i++) {
            const ScopeColumn *column = &scope->columns[i];
            if (table && (!column->qualifier || strcmp(column->qualifier, table) != 0))
                continue;
            if (strcmp(column->name, column_name) != 0)
                continue;
            if (found >= 0)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                                  "Column '%s' is ambiguous", column_name);
            found = (int)i;
        }
        if (found < 0 || scope->columns[found].type.id != TYPE_ROW)
            continue;
        Expr *expr =
            expr_make_input_ref(binder->arena, (uint32_t)found, scope->columns[found].type);
        if (!expr)
            return bind_no_memory(binder);
        for (uint32_t i = skip + 1; i < count; i++) {
            int status = bind_field_access(binder, ast->position, expr, parts[i], &expr);
            if (status != JOINERY_OK)
                return status;
        }
        *result = expr;
        return JOINERY_OK;
    }
    return -1;
}

static int bind_column(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    const char *qualifier = ast->column.qualifier;
    const char *name = ast->column.name;
    int found = -1;
    bool qualifier_known = qualifier == NULL;
    for (uint32_t i = 0; i < scope->count; i++) {
        const ScopeColumn *column = &scope->columns[i];
        if (qualifier) {
            if (!column->qualifier || strcmp(column->qualifier, qualifier) != 0)
                continue;
            qualifier_known = true;
        }
        if (strcmp(column->name, name) != 0)
            continue;
        if (found >= 0)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Column '%s' is ambiguous", name);
        found = (int)i;
    }
    if (found >= 0) {
        *result = expr_make_input_ref(binder->arena, (uint32_t)found, scope->columns[found].type);
        return *result ? JOINERY_OK : bind_no_memory(binder);
    }
    if (binder->outer_scope) {
        /* a correlated subquery's WHERE: the enclosing query's columns come next */
        const Scope *outer = binder->outer_scope;
        for (uint32_t i = 0; i < outer->count; i++) {
            const ScopeColumn *column = &outer->columns[i];
            if (qualifier && (!column->qualifier || strcmp(column->qualifier, qualifier) != 0))
                continue;
            if (strcmp(column->name, name) != 0)
                continue;
            if (found >= 0)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                                  "Column '%s' is ambiguous", name);
            found = (int)i;
        }
        if (found >= 0 && binder->outer_forbidden)
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                              "A subquery with GROUP BY, aggregates, DISTINCT, set operations, "
                              "hints, WITH, ORDER BY or LIMIT that reads the outer query's "
                              "column '%s' is not supported yet",
                              name);
        if (found >= 0) {
            binder->outer_referenced = true;
            *result = expr_make_input_ref(binder->arena, scope->count + (uint32_t)found,
                                          outer->columns[found].type);
            return *result ? JOINERY_OK : bind_no_memory(binder);
        }
    }
    if (qualifier) {
        int status = bind_column_fields(binder, scope, ast, result);
        if (status != -1)
            return status;
    }
    if (!qualifier_known) {
        const char **names = arena_calloc(binder->arena, scope->count + 1, sizeof(char *));
        uint32_t count = 0;
        for (uint32_t i = 0; i < scope->count; i++) {
            const char *candidate = scope->columns[i].qualifier;
            bool seen = false;
            for (uint32_t j = 0; j < count && candidate; j++)
                seen = seen || strcmp(names[j], candidate) == 0;
            if (candidate && !seen)
                names[count++] = candidate;
        }
        const char *suggestion = catalog_suggest_name(qualifier, names, count);
        if (suggestion)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Table '%s' not found; did you mean '%s%s", qualifier, suggestion,
                              catalog_suggestion_end(qualifier, suggestion));
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position, "Table '%s' not found",
                          qualifier);
    }
    /* as Calcite: an unqualified name that is no column may be the niladic PI (through
       bind_call: a Diag here would sit in every expression's stack frame once inlined) */
    if (!qualifier && strcasecmp(name, "PI") == 0)
        return bind_call(binder, ast->position, "PI", FUNCTION_PI, NULL, 0, result);
    const char **names = arena_calloc(binder->arena, scope->count + 1, sizeof(char *));
    uint32_t count = 0;
    for (uint32_t i = 0; i < scope->count; i++)
        if (!qualifier ||
            (scope->columns[i].qualifier && strcmp(scope->columns[i].qualifier, qualifier) == 0))
            names[count++] = scope->columns[i].name;
    const char *suggestion = catalog_suggest_name(name, names, count);
    SourcePosition position =
        ast->column.name_position.line ? ast->column.name_position : ast->position;
    if (qualifier)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                          "Column '%s' not found in table '%s'%s%s%s", name, qualifier,
                          suggestion ? "; did you mean '" : "", suggestion ? suggestion : "",
                          catalog_suggestion_end(name, suggestion));
    return bind_error(binder, JOINERY_ERROR_VALIDATE, position,
                      "Column '%s' not found in any table%s%s%s", name,
                      suggestion ? "; did you mean '" : "", suggestion ? suggestion : "",
                      catalog_suggestion_end(name, suggestion));
}

/* ------------------------------------------------------------ literals */

static int bind_literal(Binder *binder, const AstExpr *ast, Expr **result)
{
    const char *text = ast->literal.text;
    DataType type;
    Value value;
    char error[128];
    switch (ast->literal.kind) {
    case AST_LITERAL_NULL:
        *result = expr_make_literal(binder->arena, type_make(TYPE_NULL, true), value_null());
        break;
    case AST_LITERAL_BOOLEAN:
        *result = expr_make_literal(binder->arena, type_make(TYPE_BOOLEAN, false),
                                    value_int(ast->literal.boolean_value ? 1 : 0));
        break;
    case AST_LITERAL_INTEGER: {
        errno = 0;
        char *end;
        long long parsed = strtoll(text, &end, 10);
        if (errno == ERANGE || *end) {
            /* too large for BIGINT: an exact DECIMAL if it fits 18 digits, else error */
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Numeric literal '%s' out of range", text);
        }
        TypeId id = (parsed >= -2147483648LL && parsed <= 2147483647LL) ? TYPE_INT : TYPE_BIGINT;
        *result = expr_make_literal(binder->arena, type_make(id, false), value_int(parsed));
        break;
    }
    case AST_LITERAL_DECIMAL: {
        const char *dot = strchr(text, '.');
        int scale = dot ? (int)strlen(dot + 1) : 0;
        int digits = 0;
        for (const char *p = text; *p; p++)
            if (*p >= '0' && *p <= '9')
                digits++;
        /* leading zeros of "0.5" do not count toward precision beyond 1 */
        int precision = digits;
        if (precision < scale + 1)
            precision = scale + 1;
        if (precision > TYPE_DECIMAL_MAX_PRECISION) {
            type = type_make(TYPE_DOUBLE, false);
            value = value_double(strtod(text, NULL));
        } else {
            type = type_make_decimal(precision, scale, false);
            if (value_parse_text(type, text, (uint32_t)strlen(text), NULL, &value, error,
                                 sizeof error) != 0)
                return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                                  "Invalid numeric literal '%s'", text);
        }
        *result = expr_make_literal(binder->arena, type, value);
        break;
    }
    case AST_LITERAL_DOUBLE:
        *result = expr_make_literal(binder->arena, type_make(TYPE_DOUBLE, false),
                                    value_double(strtod(text, NULL)));
        break;
    case AST_LITERAL_STRING: {
        uint32_t length = (uint32_t)ast->literal.text_length; /* NUL bytes included */
        type = type_make(TYPE_CHAR, false);
        type.precision = length ? (int32_t)length : 1;
        if (length == 0) {
            type = type_make_varchar(0, false);
        }
        *result = expr_make_literal(binder->arena, type, value_string(text, length));
        break;
    }
    case AST_LITERAL_BINARY: {
        /* X'0A1B' is BINARY(2) NOT NULL, as in Flink (X'' is VARBINARY(0)) */
        StrBuf bytes = STRBUF_INIT;
        int decoded = binary_decode_hex(text, strlen(text), &bytes);
        if (decoded != 0) {
            strbuf_free(&bytes);
            if (decoded < 0)
                return bind_no_memory(binder);
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Binary literal X'%s' must contain an even number of hexadecimal "
                              "digits (0-9, A-F)",
                              text);
        }
        uint32_t length = (uint32_t)bytes.length;
        type = length ? type_make_binary(TYPE_BINARY, (int32_t)length, false)
                      : type_make_binary(TYPE_VARBINARY, 0, false);
        *result = expr_make_literal(binder->arena, type, value_string(bytes.data, length));
        strbuf_free(&bytes);
        break;
    }
    case AST_LITERAL_DATE:
    case AST_LITERAL_TIME:
    case AST_LITERAL_TIMESTAMP: {
        if (ast->literal.kind == AST_LITERAL_DATE)
            type = type_make(TYPE_DATE, false);
        else if (ast->literal.kind == AST_LITERAL_TIME)
            type = type_make(TYPE_TIME, false);
        else
            type = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
        if (value_parse_text(type, text, (uint32_t)strlen(text), NULL, &value, error,
                             sizeof error) != 0)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Invalid literal '%s': %s", text, error);
        if (ast->literal.kind == AST_LITERAL_TIMESTAMP) {
            const char *dot = strchr(text, '.');
            int precision = dot ? (int)strspn(dot + 1, "0123456789") : 0;
            type.precision = precision;
        }
        *result = expr_make_literal(binder->arena, type, value);
        break;
    }
    }
    return *result ? JOINERY_OK : bind_no_memory(binder);
}

static int bind_interval(Binder *binder, const AstExpr *ast, Expr **result)
{
    const char *text = ast->interval.text;
    char *end;
    errno = 0;
    long long amount = strtoll(text, &end, 10);
    /* SECOND takes up to three fractional digits (milliseconds), as Flink's
       INTERVAL '0.001' SECOND in its watermark for ascending timestamps */
    long long millis = 0;
    bool fraction = false;
    if (*end == '.' && end != text && ast->interval.unit == AST_INTERVAL_SECOND &&
        ast->interval.to_unit == AST_INTERVAL_SECOND) {
        const char *digit = end + 1;
        int digits = 0;
        while (*digit >= '0' && *digit <= '9' && digits < 4) {
            if (digits < 3)
                millis = millis * 10 + (*digit - '0');
            digit++;
            digits++;
        }
        if (digits == 0 || digits > 3)
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                              "Interval literal '%s' is not supported yet: seconds keep at "
                              "most three fractional digits (milliseconds)",
                              text);
        for (; digits < 3; digits++)
            millis *= 10;
        fraction = true;
        end = (char *)digit;
    }
    while (*end == ' ')
        end++;
    if (errno == ERANGE || end == text || *end != '\0' ||
        ast->interval.unit != ast->interval.to_unit)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          "Interval literal '%s' is not supported yet: use a number of "
                          "one unit, e.g. INTERVAL '5' SECOND or INTERVAL '0.5' SECOND",
                          text);
    if (ast->interval.negative)
        amount = -amount;
    int64_t factor;
    TypeId id = TYPE_INTERVAL_DAY_TIME;
    switch (ast->interval.unit) {
    case AST_INTERVAL_YEAR:
        id = TYPE_INTERVAL_YEAR_MONTH;
        factor = 12;
        break;
    case AST_INTERVAL_MONTH:
        id = TYPE_INTERVAL_YEAR_MONTH;
        factor = 1;
        break;
    case AST_INTERVAL_DAY:
        factor = 86400000;
        break;
    case AST_INTERVAL_HOUR:
        factor = 3600000;
        break;
    case AST_INTERVAL_MINUTE:
        factor = 60000;
        break;
    default:
        factor = 1000;
        break;
    }
    int64_t value;
    bool text_negative = text[0] == '-';
    if (fraction && (text_negative != ast->interval.negative))
        millis = -millis; /* the fraction has the amount's sign */
    if (__builtin_mul_overflow((int64_t)amount, factor, &value) ||
        __builtin_add_overflow(value, (int64_t)millis, &value))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "Interval literal '%s' out of range", text);
    DataType type = type_make(id, false);
    static const TypeIntervalUnit units[] = {
        [AST_INTERVAL_YEAR] = TYPE_INTERVAL_UNIT_YEAR,
        [AST_INTERVAL_MONTH] = TYPE_INTERVAL_UNIT_MONTH,
        [AST_INTERVAL_DAY] = TYPE_INTERVAL_UNIT_DAY,
        [AST_INTERVAL_HOUR] = TYPE_INTERVAL_UNIT_HOUR,
        [AST_INTERVAL_MINUTE] = TYPE_INTERVAL_UNIT_MINUTE,
        [AST_INTERVAL_SECOND] = TYPE_INTERVAL_UNIT_SECOND,
    };
    type.precision = (int32_t)units[ast->interval.unit]; /* the unit EXPLAIN prints */
    *result = expr_make_literal(binder->arena, type, value_int(value));
    return *result ? JOINERY_OK : bind_no_memory(binder);
}

/* ------------------------------------------------------------ calls */

static int bind_call(Binder *binder, SourcePosition position, const char *name, FunctionId function,
                     Expr **args, uint32_t count, Expr **result)
{
    Diag local;
    diag_clear(&local);
    *result = function_resolve(binder->arena, name, function, args, count, &local);
    if (!*result) {
        if (local.status == JOINERY_OK)
            return bind_no_memory(binder);
        return bind_error(binder, local.status, position, "%s", local.message);
    }
    return JOINERY_OK;
}

static int bind_list(Binder *binder, const Scope *scope, const AstList *list, Expr **out)
{
    for (size_t i = 0; i < list->count; i++) {
        int status = bind_expr(binder, scope, list->items[i], &out[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static PlanAggregateKind bind_aggregate_kind(const char *name, bool star)
{
    if (strcasecmp(name, "COUNT") == 0)
        return star ? PLAN_AGGREGATE_COUNT_STAR : PLAN_AGGREGATE_COUNT;
    if (strcasecmp(name, "SUM") == 0)
        return PLAN_AGGREGATE_SUM;
    if (strcasecmp(name, "MIN") == 0)
        return PLAN_AGGREGATE_MIN;
    if (strcasecmp(name, "MAX") == 0)
        return PLAN_AGGREGATE_MAX;
    if (strcasecmp(name, "LISTAGG") == 0)
        return PLAN_AGGREGATE_LISTAGG;
    if (strcasecmp(name, "FIRST_VALUE") == 0)
        return PLAN_AGGREGATE_FIRST_VALUE;
    if (strcasecmp(name, "LAST_VALUE") == 0)
        return PLAN_AGGREGATE_LAST_VALUE;
    if (strcasecmp(name, "COLLECT") == 0)
        return PLAN_AGGREGATE_COLLECT;
    if (strcasecmp(name, "ARRAY_AGG") == 0)
        return PLAN_AGGREGATE_ARRAY_AGG;
    return PLAN_AGGREGATE_AVG;
}

static int bind_aggregate_result_type(Binder *binder, const AstExpr *ast, PlanAggregateKind kind,
                                      const Expr *argument, DataType *result)
{
    if (kind == PLAN_AGGREGATE_COUNT || kind == PLAN_AGGREGATE_COUNT_STAR) {
        *result = type_make(TYPE_BIGINT, false);
        return JOINERY_OK;
    }
    DataType type = argument->type;
    if (kind == PLAN_AGGREGATE_LISTAGG) {
        if (!type_is_string(type.id))
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported "
                              "form(s): 'LISTAGG(<CHARACTER>)'\n'LISTAGG(<CHARACTER>, "
                              "<CHARACTER>)'",
                              ast->function.name, ast->function.name,
                              type_format(type, (char[64]){0}, 64));
        *result = type_make_varchar(TYPE_STRING_LENGTH, true);
        return JOINERY_OK;
    }
    if (kind == PLAN_AGGREGATE_COLLECT || kind == PLAN_AGGREGATE_ARRAY_AGG) {
        /* COLLECT: MULTISET<T> NOT NULL (empty for no values); ARRAY_AGG: ARRAY<T>, NULL for
           no rows */
        if (type.id == TYPE_NULL)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Cannot apply '%s' to a NULL literal", ast->function.name);
        type.time_attribute = TIME_ATTRIBUTE_NONE;
        if (type.id == TYPE_CHAR)
            type.id = TYPE_VARCHAR;
        bool made = kind == PLAN_AGGREGATE_COLLECT ? type_make_multiset(type, false, result)
                                                   : type_make_array(type, true, result);
        return made ? JOINERY_OK : bind_no_memory(binder);
    }
    if (kind == PLAN_AGGREGATE_MIN || kind == PLAN_AGGREGATE_MAX ||
        kind == PLAN_AGGREGATE_FIRST_VALUE || kind == PLAN_AGGREGATE_LAST_VALUE) {
        if (type.id == TYPE_NULL)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Cannot apply '%s' to a NULL literal", ast->function.name);
        *result = type;
        result->nullable = true;
        result->time_attribute = TIME_ATTRIBUTE_NONE;
        return JOINERY_OK;
    }
    if (!type_is_numeric(type.id))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): "
                          "'%s(<NUMERIC>)'",
                          ast->function.name, ast->function.name,
                          type_format(type, (char[64]){0}, 64), ast->function.name);
    *result = type;
    result->nullable = true;
    if (type.id == TYPE_DECIMAL) {
        int scale = type.scale;
        if (kind == PLAN_AGGREGATE_AVG && scale < 6)
            scale = 6;
        *result = type_make_decimal(TYPE_DECIMAL_MAX_PRECISION, scale, true);
    }
    return JOINERY_OK;
}

/*
 * The condition of agg(...) FILTER (WHERE condition) over the FROM scope: a BOOLEAN
 * without aggregates; a nullable one becomes condition IS TRUE (Calcite's
 * conversion, so the aggregate reads a NOT NULL BOOLEAN field).
 */
int bind_aggregate_filter(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    if (bind_contains_aggregate(binder, ast))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "FILTER must not contain aggregate expression");
    AggregateBinding *aggregate = binder->aggregate;
    AggregateBinding *grouping = binder->grouping;
    binder->aggregate = NULL;
    binder->grouping = NULL;
    Expr *condition = NULL;
    int status = bind_expr(binder, scope, ast, &condition);
    binder->aggregate = aggregate;
    binder->grouping = grouping;
    if (status != JOINERY_OK)
        return status;
    if (condition->type.id != TYPE_BOOLEAN)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "FILTER clause must be a condition");
    if (condition->type.nullable) {
        condition = expr_make_call(binder->arena, FUNCTION_IS_TRUE, type_make(TYPE_BOOLEAN, false),
                                   &condition, 1);
        if (!condition)
            return bind_no_memory(binder);
    }
    *result = condition;
    return JOINERY_OK;
}

static int bind_aggregate_call(Binder *binder, const Scope *scope, const AstExpr *ast,
                               Expr **result)
{
    AggregateBinding *aggregate = binder->aggregate;
    if (!aggregate)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "Aggregate function %s is not allowed here", ast->function.name);
    const AstList *args = &ast->function.args;
    bool star = args->count == 1 && ((AstExpr *)args->items[0])->kind == AST_EXPR_STAR;
    bool variance = bind_is_variance_name(ast->function.name);
    PlanAggregateKind kind = bind_aggregate_kind(ast->function.name, star);
    uint32_t max_args = kind == PLAN_AGGREGATE_LISTAGG ? 2 : 1;
    if (args->count < 1 || args->count > max_args || (star && kind != PLAN_AGGREGATE_COUNT_STAR))
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "Invalid number of arguments to function '%s'. Was expecting %s "
                          "arguments",
                          ast->function.name, max_args == 2 ? "1 to 2" : "1");
    Expr *argument = NULL;
    if (!star) {
        if (bind_contains_aggregate(binder, args->items[0]))
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Aggregate function calls cannot be nested");
        AggregateBinding *grouping = binder->grouping;
        binder->aggregate = NULL;
        binder->grouping = NULL;
        int status = bind_expr(binder, scope, args->items[0], &argument);
        binder->aggregate = aggregate;
        binder->grouping = grouping;
        if (status != JOINERY_OK)
            return status;
    }
    Expr *filter = NULL;
    if (ast->function.filter) {
        int status = bind_aggregate_filter(binder, scope, ast->function.filter, &filter);
        if (status != JOINERY_OK)
            return status;
    }
    aggregate->filter = filter;
    if (variance) {
        /* SUM and COUNT (bind_variance.c), each with the FILTER */
        int status = bind_variance(binder, ast, argument, result);
        aggregate->filter = NULL;
        return status;
    }
    DataType result_type;
    int status = bind_aggregate_result_type(binder, ast, kind, argument, &result_type);
    if (status != JOINERY_OK)
        return status;
    Expr *separator = NULL;
    if (args->count == 2) {
        const AstExpr *separator_ast = args->items[1];
        AggregateBinding *outer_grouping = binder->grouping;
        binder->aggregate = NULL;
        binder->grouping = NULL;
        status = bind_expr(binder, scope, separator_ast, &separator);
        binder->aggregate = aggregate;
        binder->grouping = outer_grouping;
        if (status != JOINERY_OK)
            return status;
        if (!expr_is_constant(separator) || !type_is_string(separator->type.id))
            return bind_error(binder, JOINERY_ERROR_VALIDATE, separator_ast->position,
                              "The separator of LISTAGG must be a constant character string");
    }
    bool distinct = ast->function.distinct;
    if (kind == PLAN_AGGREGATE_MIN || kind == PLAN_AGGREGATE_MAX)
        distinct = false; /* MIN/MAX(DISTINCT x) = MIN/MAX(x) */
    status = bind_aggregate_add(binder, kind, distinct, argument, separator, result_type,
                                arena_strndup(binder->arena, ast->source_text, ast->source_length),
                                result);
    aggregate->filter = NULL;
    return status;
}

int bind_aggregate_add(Binder *binder, PlanAggregateKind kind, bool distinct, Expr *argument,
                       Expr *separator, DataType result_type, char *name, Expr **result)
{
    AggregateBinding *aggregate = binder->aggregate;
    uint32_t index = aggregate->call_count;
    for (uint32_t i = 0; i < aggregate->call_count; i++) {
        BoundAggregate *call = &aggregate->calls[i];
        if (call->kind == kind && call->distinct == distinct && call->udf == aggregate->udf &&
            ((!call->filter && !aggregate->filter) ||
             (call->filter && aggregate->filter && expr_equals(call->filter, aggregate->filter))) &&
            ((!call->separator && !separator) ||
             (call->separator && separator && expr_equals(call->separator, separator))) &&
            ((!call->argument && !argument) ||
             (call->argument && argument && expr_equals(call->argument, argument))) &&
            call->more_count == aggregate->more_count) {
            bool same = true;
            for (uint32_t m = 0; same && m < call->more_count; m++)
                same = expr_equals(call->more[m], aggregate->more[m]);
            if (!same)
                continue;
            index = i;
            break;
        }
    }
    if (index == aggregate->call_count) {
        if (aggregate->call_count == aggregate->call_capacity) {
            uint32_t capacity = aggregate->call_capacity ? aggregate->call_capacity * 2 : 8;
            BoundAggregate *calls = arena_calloc(binder->arena, capacity, sizeof *calls);
            if (!calls)
                return bind_no_memory(binder);
            if (aggregate->call_count)
                memcpy(calls, aggregate->calls, aggregate->call_count * sizeof *calls);
            aggregate->calls = calls;
            aggregate->call_capacity = capacity;
        }
        BoundAggregate *call = &aggregate->calls[aggregate->call_count++];
        call->kind = kind;
        call->distinct = distinct;
        call->argument = argument;
        call->separator = separator;
        call->filter = aggregate->filter;
        call->udf = aggregate->udf;
        call->more = aggregate->more;
        call->more_count = aggregate->more_count;
        call->result_type = result_type;
        call->name = name;
    }
    *result = expr_make_input_ref(binder->arena, aggregate->group_count + index, result_type);
    return *result ? JOINERY_OK : bind_no_memory(binder);
}

/*
 * agg(...) OVER window in the SELECT list of a query with OVER aggregates: the window is
 * checked (bind_over_window: the same for every call), the call registered among the
 * OverAggregate's calls and the result is a reference to its field. SUM(x) is
 * CASE(COUNT(x) > 0, SUM(x), null), as Calcite expands it (Flink prints it so).
 */
static int bind_function(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result);

static int bind_over_call(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    OverBinding *over = binder->over;
    if (ast->function.distinct)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          "DISTINCT in OVER aggregates is not supported yet");
    if (ast->function.filter)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->function.filter->position,
                          "FILTER in OVER aggregates is not supported yet");
    int status = bind_over_window(binder, scope, ast->function.over);
    if (status != JOINERY_OK)
        return status;
    AstExpr plain = *ast;
    plain.function.over = NULL;
    /* AVG(x) of an integer or approximate x: CASE(COUNT(x) > 0, SUM(x), null) / COUNT(x)
       (cast to AVG's type when the division's differs), Calcite's expansion */
    bool sum = strcasecmp(ast->function.name, "SUM") == 0;
    bool average = false;
    binder->over = NULL;
    if (strcasecmp(ast->function.name, "AVG") == 0 && ast->function.args.count == 1 &&
        ((const AstExpr *)ast->function.args.items[0])->kind != AST_EXPR_STAR) {
        Expr *argument = NULL;
        status = bind_expr(binder, scope, ast->function.args.items[0], &argument);
        if (status != JOINERY_OK) {
            binder->over = over;
            return status;
        }
        average = type_is_integer(argument->type.id) || argument->type.id == TYPE_FLOAT ||
                  argument->type.id == TYPE_DOUBLE;
    }
    binder->aggregate = &over->calls;
    Expr *count = NULL;
    Expr *average_value = NULL;
    if (sum || average) {
        AstExpr count_ast = plain;
        count_ast.function.name = "COUNT";
        count_ast.source_text = "COUNT";
        count_ast.source_length = 5;
        status = bind_aggregate_call(binder, scope, &count_ast, &count);
    }
    if (status == JOINERY_OK && average) {
        AstExpr sum_ast = plain;
        sum_ast.function.name = "SUM";
        sum_ast.source_text = "SUM";
        sum_ast.source_length = 3;
        status = bind_aggregate_call(binder, scope, &sum_ast, result);
        average_value = *result;
    } else if (status == JOINERY_OK) {
        /* a user-defined aggregate function through bind_function's lookup */
        status = function_is_aggregate_name(plain.function.name)
                     ? bind_aggregate_call(binder, scope, &plain, result)
                     : bind_function(binder, scope, &plain, result);
    }
    binder->aggregate = NULL;
    binder->over = over;
    if (status != JOINERY_OK || (!sum && !average))
        return status;
    Expr *compare[2] = {count,
                        expr_make_literal(binder->arena, type_make(TYPE_INT, false), value_int(0))};
    Expr *args[3] = {NULL, *result,
                     expr_make_literal(binder->arena, (*result)->type, value_null())};
    if (!compare[1] || !args[2])
        return bind_no_memory(binder);
    status = bind_call(binder, ast->position, NULL, FUNCTION_GREATER, compare, 2, &args[0]);
    if (status == JOINERY_OK)
        status = bind_call(binder, ast->position, NULL, FUNCTION_CASE, args, 3, result);
    if (status != JOINERY_OK || !average)
        return status;
    /* AVG's type is SUM's here: the argument's, nullable (bind_aggregate_result_type) */
    DataType average_type = average_value->type;
    Expr *divide[2] = {*result, count};
    status = bind_call(binder, ast->position, NULL, FUNCTION_DIVIDE, divide, 2, result);
    if (status != JOINERY_OK)
        return status;
    if (!type_equals((*result)->type, average_type)) {
        *result = expr_make_cast(binder->arena, *result, average_type);
        if (!*result)
            return bind_no_memory(binder);
    }
    return JOINERY_OK;
}

static int bind_function(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    const char *name = ast->function.name;
    if (function_is_aggregate_name(name))
        return bind_aggregate_call(binder, scope, ast, result);
    if (strcmp(name, "$DOT") != 0) {
        const UdfFunction *aggregate_udf = NULL;
        int found = bind_find_udf(binder, name, ast->position, &aggregate_udf);
        if (found != JOINERY_OK)
            return found;
        if (aggregate_udf && aggregate_udf->aggregate && !binder->aggregate)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Aggregate function %s is not allowed here", aggregate_udf->name);
        if (aggregate_udf && aggregate_udf->aggregate)
            return bind_udf_aggregate_call(binder, scope, ast, aggregate_udf, result);
    }
    if (ast->function.distinct)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                          "DISTINCT is only allowed in aggregate functions");
    if (ast->function.filter)
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->function.filter->position,
                          "FILTER is only allowed in aggregate functions");
    uint32_t count = (uint32_t)ast->function.args.count;
    if (strcmp(name, "$DOT") == 0 && count == 2) {
        /* expr.field after a parenthesised expression or an item access (parser.c) */
        const AstExpr *field = ast->function.args.items[1];
        Expr *row;
        int status = bind_expr(binder, scope, ast->function.args.items[0], &row);
        if (status != JOINERY_OK)
            return status;
        return bind_field_access(binder, field->position, row, field->literal.text, result);
    }
    Expr **args = arena_calloc(binder->arena, count + 1, sizeof(Expr *));
    for (uint32_t i = 0; i < count; i++) {
        const AstExpr *arg = ast->function.args.items[i];
        if (arg->kind == AST_EXPR_STAR)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, arg->position,
                              "'*' is only allowed in COUNT(*)");
    }
    int status = bind_list(binder, scope, &ast->function.args, args);
    if (status != JOINERY_OK)
        return status;
    const UdfFunction *udf = NULL;
    status = bind_find_udf(binder, name, ast->position, &udf);
    if (status != JOINERY_OK)
        return status;
    if (udf) {
        if (udf->table)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Function '%s' is a table function: call it in a FROM clause, "
                              "LATERAL TABLE(%s(...))",
                              udf->name, udf->name);
        status = bind_udf_arguments(binder, udf, args, count, ast->position);
        if (status != JOINERY_OK)
            return status;
        *result =
            expr_make_call(binder->arena, FUNCTION_USER_DEFINED, udf->result_types[0], args, count);
        if (!*result)
            return bind_no_memory(binder);
        (*result)->call.udf = udf;
        return JOINERY_OK;
    }
    return bind_call(binder, ast->position, name, FUNCTION_COUNT_, args, count, result);
}

static FunctionId bind_binary_function(AstOperator op)
{
    switch (op) {
    case AST_OP_PLUS:
        return FUNCTION_PLUS;
    case AST_OP_MINUS:
        return FUNCTION_MINUS;
    case AST_OP_MULTIPLY:
        return FUNCTION_MULTIPLY;
    case AST_OP_DIVIDE:
        return FUNCTION_DIVIDE;
    case AST_OP_MODULO:
        return FUNCTION_MOD;
    case AST_OP_EQUAL:
        return FUNCTION_EQUAL;
    case AST_OP_NOT_EQUAL:
        return FUNCTION_NOT_EQUAL;
    case AST_OP_LESS:
        return FUNCTION_LESS;
    case AST_OP_LESS_EQUAL:
        return FUNCTION_LESS_EQUAL;
    case AST_OP_GREATER:
        return FUNCTION_GREATER;
    case AST_OP_GREATER_EQUAL:
        return FUNCTION_GREATER_EQUAL;
    case AST_OP_AND:
        return FUNCTION_AND;
    case AST_OP_OR:
        return FUNCTION_OR;
    case AST_OP_CONCAT:
        return FUNCTION_CONCAT;
    case AST_OP_NOT:
        return FUNCTION_NOT;
    case AST_OP_NEGATE:
        return FUNCTION_NEGATE;
    }
    return FUNCTION_COUNT_;
}

static int bind_two(Binder *binder, const Scope *scope, const AstExpr *left, const AstExpr *right,
                    Expr **args)
{
    int status = bind_expr(binder, scope, left, &args[0]);
    if (status == JOINERY_OK)
        status = bind_expr(binder, scope, right, &args[1]);
    return status;
}

static int bind_case(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    size_t when_count = ast->case_expr.conditions.count;
    uint32_t count = (uint32_t)(when_count * 2 + 1);
    Expr **args = arena_calloc(binder->arena, count, sizeof(Expr *));
    Expr *operand = NULL;
    int status;
    if (ast->case_expr.operand) {
        status = bind_expr(binder, scope, ast->case_expr.operand, &operand);
        if (status != JOINERY_OK)
            return status;
    }
    for (size_t i = 0; i < when_count; i++) {
        const AstExpr *condition_ast = ast->case_expr.conditions.items[i];
        Expr *condition;
        status = bind_expr(binder, scope, condition_ast, &condition);
        if (status != JOINERY_OK)
            return status;
        if (operand) {
            Expr *pair[2] = {operand, condition};
            status = bind_call(binder, condition_ast->position, NULL, FUNCTION_EQUAL, pair, 2,
                               &condition);
            if (status != JOINERY_OK)
                return status;
        }
        args[i * 2] = condition;
        status = bind_expr(binder, scope, ast->case_expr.results.items[i], &args[i * 2 + 1]);
        if (status != JOINERY_OK)
            return status;
    }
    if (ast->case_expr.else_result) {
        status = bind_expr(binder, scope, ast->case_expr.else_result, &args[count - 1]);
        if (status != JOINERY_OK)
            return status;
    } else {
        args[count - 1] =
            expr_make_literal(binder->arena, type_make(TYPE_NULL, true), value_null());
    }
    return bind_call(binder, ast->position, NULL, FUNCTION_CASE, args, count, result);
}

static int bind_not(Binder *binder, SourcePosition position, Expr *operand, Expr **result)
{
    return bind_call(binder, position, NULL, FUNCTION_NOT, &operand, 1, result);
}

static int bind_between(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    Expr *operand, *low, *high;
    int status = bind_expr(binder, scope, ast->between.operand, &operand);
    if (status == JOINERY_OK)
        status = bind_expr(binder, scope, ast->between.low, &low);
    if (status == JOINERY_OK)
        status = bind_expr(binder, scope, ast->between.high, &high);
    if (status != JOINERY_OK)
        return status;
    if (ast->between.symmetric)
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          "BETWEEN SYMMETRIC is not supported yet");
    Expr *lower_args[2] = {operand, low};
    Expr *upper_args[2] = {operand, high};
    Expr *parts[2];
    bool negated = ast->between.negated;
    status = bind_call(binder, ast->position, NULL,
                       negated ? FUNCTION_LESS : FUNCTION_GREATER_EQUAL, lower_args, 2, &parts[0]);
    if (status == JOINERY_OK)
        status =
            bind_call(binder, ast->position, NULL, negated ? FUNCTION_GREATER : FUNCTION_LESS_EQUAL,
                      upper_args, 2, &parts[1]);
    if (status != JOINERY_OK)
        return status;
    return bind_call(binder, ast->position, NULL, negated ? FUNCTION_OR : FUNCTION_AND, parts, 2,
                     result);
}

/* AND/OR with nested ANDs (ORs) flattened into one call, as Calcite prints them. */
static int bind_flat_logic(Binder *binder, const AstExpr *ast, Expr **pair, Expr **result)
{
    FunctionId function = bind_binary_function(ast->binary.op);
    uint32_t count = 0;
    for (int side = 0; side < 2; side++) {
        const Expr *part = pair[side];
        bool nested = part->kind == EXPR_CALL && part->call.function == function;
        count += nested ? part->call.arg_count : 1;
    }
    Expr **args = arena_calloc(binder->arena, count, sizeof(Expr *));
    if (!args)
        return bind_no_memory(binder);
    uint32_t next = 0;
    for (int side = 0; side < 2; side++) {
        Expr *part = pair[side];
        if (part->kind == EXPR_CALL && part->call.function == function) {
            for (uint32_t i = 0; i < part->call.arg_count; i++)
                args[next++] = part->call.args[i];
        } else {
            args[next++] = part;
        }
    }
    return bind_call(binder, ast->position, NULL, function, args, count, result);
}

static int bind_expr_plain(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    Expr *args[3];
    int status;
    switch (ast->kind) {
    case AST_EXPR_LITERAL:
        return bind_literal(binder, ast, result);
    case AST_EXPR_COLUMN:
        return bind_column(binder, scope, ast, result);
    case AST_EXPR_STAR:
        return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position, "'*' is not allowed here");
    case AST_EXPR_UNARY:
        status = bind_expr(binder, scope, ast->unary.operand, &args[0]);
        if (status != JOINERY_OK)
            return status;
        if (ast->unary.op == AST_OP_PLUS) {
            *result = args[0];
            return JOINERY_OK;
        }
        return bind_call(binder, ast->position, NULL, bind_binary_function(ast->unary.op), args, 1,
                         result);
    case AST_EXPR_BINARY:
        status = bind_two(binder, scope, ast->binary.left, ast->binary.right, args);
        if (status != JOINERY_OK)
            return status;
        if (ast->binary.op == AST_OP_AND || ast->binary.op == AST_OP_OR)
            return bind_flat_logic(binder, ast, args, result);
        return bind_call(binder, ast->position, NULL, bind_binary_function(ast->binary.op), args, 2,
                         result);
    case AST_EXPR_FUNCTION:
        if (ast->function.over && binder->over &&
            (function_is_aggregate_name(ast->function.name) ||
             bind_names_udf_aggregate(binder, ast->function.name)))
            return bind_over_call(binder, scope, ast, result);
        if (ast->function.over && function_is_aggregate_name(ast->function.name))
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->function.over->position,
                              "OVER aggregates are supported only in the SELECT list of a query "
                              "without GROUP BY");
        if (ast->function.over)
            return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->function.over->position,
                              "ROW_NUMBER() OVER is supported only as a SELECT item of a query "
                              "without GROUP BY");
        return bind_function(binder, scope, ast, result);
    case AST_EXPR_CAST:
        status = bind_expr(binder, scope, ast->cast.operand, &args[0]);
        if (status != JOINERY_OK)
            return status;
        if (!expr_cast_is_valid(args[0]->type, ast->cast.cast_type)) {
            char from[64], to[64];
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Cast function cannot convert value of type %s to type %s",
                              type_format(args[0]->type, from, sizeof from),
                              type_format(ast->cast.cast_type, to, sizeof to));
        }
        {
            DataType target = ast->cast.cast_type;
            target.nullable = args[0]->type.nullable || ast->cast.try_cast;
            if (ast->cast.try_cast) {
                *result = expr_make_call(binder->arena, FUNCTION_TRY_CAST, target, args, 1);
                return *result ? JOINERY_OK : bind_no_memory(binder);
            }
            *result = expr_make_call(binder->arena, FUNCTION_CAST, target, args, 1);
            return *result ? JOINERY_OK : bind_no_memory(binder);
        }
    case AST_EXPR_CASE:
        return bind_case(binder, scope, ast, result);
    case AST_EXPR_IS_NULL:
        status = bind_expr(binder, scope, ast->is_null.operand, &args[0]);
        if (status != JOINERY_OK)
            return status;
        return bind_call(binder, ast->position, NULL,
                         ast->is_null.negated ? FUNCTION_IS_NOT_NULL : FUNCTION_IS_NULL, args, 1,
                         result);
    case AST_EXPR_IS_DISTINCT:
        status = bind_two(binder, scope, ast->is_distinct.left, ast->is_distinct.right, args);
        if (status != JOINERY_OK)
            return status;
        return bind_call(binder, ast->position, NULL,
                         ast->is_distinct.negated ? FUNCTION_IS_NOT_DISTINCT_FROM
                                                  : FUNCTION_IS_DISTINCT_FROM,
                         args, 2, result);
    case AST_EXPR_IS_BOOLEAN: {
        status = bind_expr(binder, scope, ast->is_boolean.operand, &args[0]);
        if (status != JOINERY_OK)
            return status;
        FunctionId function;
        bool negated = ast->is_boolean.negated;
        switch (ast->is_boolean.test) {
        case AST_IS_TRUE:
            function = negated ? FUNCTION_IS_NOT_TRUE : FUNCTION_IS_TRUE;
            break;
        case AST_IS_FALSE:
            function = negated ? FUNCTION_IS_NOT_FALSE : FUNCTION_IS_FALSE;
            break;
        default:
            function = negated ? FUNCTION_IS_NOT_NULL : FUNCTION_IS_NULL;
            break;
        }
        return bind_call(binder, ast->position, NULL, function, args, 1, result);
    }
    case AST_EXPR_BETWEEN:
        return bind_between(binder, scope, ast, result);
    case AST_EXPR_IN_LIST: {
        uint32_t count = (uint32_t)ast->in_list.values.count + 1;
        Expr **in_args = arena_calloc(binder->arena, count, sizeof(Expr *));
        status = bind_expr(binder, scope, ast->in_list.operand, &in_args[0]);
        for (uint32_t i = 1; i < count && status == JOINERY_OK; i++) {
            const AstExpr *value = ast->in_list.values.items[i - 1];
            if (value->kind == AST_EXPR_SUBQUERY)
                return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                                  "IN (subquery) is supported only as a conjunct of WHERE (a "
                                  "semi / anti join); not under OR, in SELECT, ON or HAVING");
            status = bind_expr(binder, scope, value, &in_args[i]);
        }
        if (status != JOINERY_OK)
            return status;
        status = bind_call(binder, ast->position, NULL, FUNCTION_IN, in_args, count, result);
        if (status == JOINERY_OK && ast->in_list.negated)
            status = bind_not(binder, ast->position, *result, result);
        return status;
    }
    case AST_EXPR_LIKE: {
        uint32_t count = ast->like.escape ? 3 : 2;
        status = bind_two(binder, scope, ast->like.operand, ast->like.pattern, args);
        if (status == JOINERY_OK && ast->like.escape)
            status = bind_expr(binder, scope, ast->like.escape, &args[2]);
        if (status != JOINERY_OK)
            return status;
        status = bind_call(binder, ast->position, NULL, FUNCTION_LIKE, args, count, result);
        if (status == JOINERY_OK && ast->like.negated)
            status = bind_not(binder, ast->position, *result, result);
        return status;
    }
    case AST_EXPR_INTERVAL:
        return bind_interval(binder, ast, result);
    case AST_EXPR_SUBQUERY:
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          ast->subquery.exists
                              ? "EXISTS (subquery) is supported only as a conjunct of WHERE (a "
                                "semi / anti join); not under OR, in SELECT, ON or HAVING"
                              : "Scalar subqueries are not supported yet; IN and EXISTS "
                                "subqueries are, as conjuncts of WHERE");
    case AST_EXPR_TABLE_ARGUMENT:
        return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                          "Table arguments (window table functions) are not supported yet");
    }
    return bind_error(binder, JOINERY_ERROR_UNSUPPORTED, ast->position,
                      "Expression not supported yet");
}

int bind_expr(Binder *binder, const Scope *scope, const AstExpr *ast, Expr **result)
{
    if (bind_is_group_window_auxiliary(ast))
        return bind_group_window_auxiliary(binder, scope, ast, result);
    AggregateBinding *aggregate = binder->aggregate;
    if (aggregate && !bind_contains_aggregate(binder, ast) && ast->kind != AST_EXPR_LITERAL) {
        /* a grouped expression: must match a GROUP BY expression, or be built from them */
        Expr *plain = NULL;
        binder->aggregate = NULL;
        int status = bind_expr_plain(binder, scope, ast, &plain);
        binder->aggregate = aggregate;
        if (status != JOINERY_OK)
            return status;
        for (uint32_t i = 0; i < aggregate->group_count; i++) {
            if (expr_equals(aggregate->group_exprs[i], plain)) {
                *result = expr_make_input_ref(binder->arena, i, plain->type);
                return *result ? JOINERY_OK : bind_no_memory(binder);
            }
        }
        if (expr_is_constant(plain)) {
            *result = plain;
            return JOINERY_OK;
        }
        if (ast->kind == AST_EXPR_COLUMN || ast->kind == AST_EXPR_INTERVAL)
            return bind_error(binder, JOINERY_ERROR_VALIDATE, ast->position,
                              "Expression '%.*s' is not being grouped", (int)ast->source_length,
                              ast->source_text);
        if (ast->kind == AST_EXPR_FUNCTION && ast->function.args.count == 0) {
            *result = plain;
            return JOINERY_OK;
        }
    }
    return bind_expr_plain(binder, scope, ast, result);
}
