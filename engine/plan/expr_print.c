/*
 * expr_print.c - writes bound expressions as Flink's EXPLAIN does.
 *
 * Flink (FlinkRexUtil.getExpressionString) has two forms:
 * - prefix, used in the optimized physical plan, with Calcite's literal
 *   digests: >(amount, 10), AND(=(a, b), IS NOT NULL(c)),
 *   =(name, _UTF-16LE'x'), 10:BIGINT, 1.5:DECIMAL(2, 1), 1.5E0:DOUBLE,
 *   null:INTEGER, 5000:INTERVAL SECOND, CAST(x AS BIGINT NOT NULL) (the full
 *   type string, with CHARACTER SET "UTF-16LE" for strings);
 * - infix, used in the optimized execution plan, where only + - * / and the
 *   comparisons, AND and OR are written between their operands
 *   ((a > 10), ((a = b) AND (c < 2))), IS [NOT] NULL/TRUE/FALSE follows its
 *   operand (c IS NULL), everything else stays a call (UPPER(name),
 *   CASE(c, 1, 2)); literals are plain: 'x', 10L for BIGINT, 1.5 for
 *   DECIMAL, 1.5E0 for DOUBLE, null:INTEGER, and CAST shows the plain type.
 * IN lists of literals are written as Calcite's SEARCH(x, Sarg[1, 2, 3])
 * (sorted, duplicates removed); other IN lists as an OR of equalities.
 * Implicit casts (call.implicit) are not written: Flink shows none.
 * CONCAT is always written CONCAT(...), also for a || b (Flink writes ||).
 * Names and forms come from the function's row (FunctionInfo.name, .print).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/plan/expr.h"

#include "engine/base/binary.h"
#include "engine/udf/udf.h"

/* Calcite's spelling of a type; with `charset`, CHARACTER SET and the time attribute too. */
static const char *calcite_type_name(DataType type, bool charset, bool not_null, char *buffer,
                                     size_t size)
{
    unsigned flags = TYPE_FORMAT_CALCITE;
    if (charset)
        flags |= TYPE_FORMAT_CHARSET | TYPE_FORMAT_TIME_ATTRIBUTE;
    if (not_null)
        flags |= TYPE_FORMAT_NOT_NULL;
    return type_format_as(type, flags, buffer, size);
}

const char *expr_type_name(DataType type, bool full, char *buffer, size_t size)
{
    return calcite_type_name(type, full, full, buffer, size);
}

/* Calcite's Util.toScientificNotation for a double: 1.5E0, 1E2, -2.5E-1. */
static int append_scientific(StrBuf *out, double value)
{
    if (isnan(value))
        return strbuf_append_cstr(out, "NaN");
    if (isinf(value))
        return strbuf_append_cstr(out, value > 0 ? "Infinity" : "-Infinity");
    if (value == 0)
        return strbuf_append_cstr(out, "0E0");
    char text[64];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*e", digits - 1, value);
        if (strtod(text, NULL) == value)
            break;
    }
    /* text is [-]d[.ddd]e[+-]xx */
    char *exponent = strchr(text, 'e');
    if (!exponent)
        return strbuf_append_cstr(out, text);
    int power = atoi(exponent + 1);
    *exponent = '\0';
    size_t length = strlen(text);
    if (strchr(text, '.')) {
        while (length > 0 && text[length - 1] == '0')
            text[--length] = '\0';
        if (length > 0 && text[length - 1] == '.')
            text[--length] = '\0';
    }
    return strbuf_printf(out, "%sE%d", text, power);
}

static int append_time_of_day(StrBuf *out, int64_t millis)
{
    int64_t seconds = millis / 1000;
    int fraction = (int)(millis % 1000);
    int status = strbuf_printf(out, "%02d:%02d:%02d", (int)(seconds / 3600),
                               (int)(seconds / 60 % 60), (int)(seconds % 60));
    if (status == 0 && fraction != 0) {
        char digits[8];
        snprintf(digits, sizeof digits, "%03d", fraction);
        size_t length = strlen(digits);
        while (length > 1 && digits[length - 1] == '0')
            digits[--length] = '\0';
        status = strbuf_printf(out, ".%s", digits);
    }
    return status;
}

static int append_date(StrBuf *out, int64_t days)
{
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    return strbuf_printf(out, "%04lld-%02u-%02u", (long long)year, month, day);
}

static int append_timestamp(StrBuf *out, int64_t millis)
{
    int64_t days = millis / 86400000;
    if (millis % 86400000 < 0)
        days--;
    if (append_date(out, days) != 0 || strbuf_append_char(out, ' ') != 0)
        return -1;
    return append_time_of_day(out, millis - days * 86400000);
}

static int append_literal(StrBuf *out, DataType type, Value value, ExprStyle style)
{
    char type_name[128];
    bool prefix = style == EXPR_STYLE_PREFIX;
    if (value.is_null || type.id == TYPE_NULL) {
        DataType shown = type;
        if (shown.id == TYPE_NULL)
            return strbuf_append_cstr(out, "null:NULL");
        return strbuf_printf(out, "null:%s",
                             calcite_type_name(shown, prefix, false, type_name, sizeof type_name));
    }
    switch (type.id) {
    case TYPE_NULL:
        return strbuf_append_cstr(out, "null:NULL");
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "true" : "false");
    case TYPE_INT:
        return strbuf_printf(out, "%lld", (long long)value.i);
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
        if (!prefix)
            return strbuf_printf(out, "%lld", (long long)value.i);
        return strbuf_printf(out, "%lld:%s", (long long)value.i,
                             calcite_type_name(type, false, false, type_name, sizeof type_name));
    case TYPE_BIGINT:
        return strbuf_printf(out, prefix ? "%lld:BIGINT" : "%lldL", (long long)value.i);
    case TYPE_FLOAT:
    case TYPE_DOUBLE: {
        double number = type.id == TYPE_FLOAT ? (double)(float)value.d : value.d;
        if (append_scientific(out, number) != 0)
            return -1;
        if (prefix)
            return strbuf_append_cstr(out, type.id == TYPE_FLOAT ? ":FLOAT" : ":DOUBLE");
        return 0;
    }
    case TYPE_DECIMAL: {
        DataType plain = type;
        if (value_format_text(plain, value, out) != 0)
            return -1;
        if (prefix)
            return strbuf_printf(
                out, ":%s", calcite_type_name(type, false, false, type_name, sizeof type_name));
        return 0;
    }
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        if (!prefix) {
            if (strbuf_append_char(out, '\'') != 0)
                return -1;
            size_t from = out->length;
            if (strbuf_append(out, value.s.ptr, value.s.len) != 0 ||
                strbuf_show_nul(out, from) != 0)
                return -1;
            return strbuf_append_char(out, '\'');
        }
        if (strbuf_append_cstr(out, "_UTF-16LE'") != 0)
            return -1;
        size_t start = out->length;
        for (uint32_t i = 0; i < value.s.len; i++) {
            char c = value.s.ptr[i];
            if (strbuf_append_char(out, c) != 0 || (c == '\'' && strbuf_append_char(out, c) != 0))
                return -1;
        }
        /* the plan is C text: a NUL shows as U+2400 */
        if (strbuf_show_nul(out, start) != 0 || strbuf_append_char(out, '\'') != 0)
            return -1;
        if (type.id == TYPE_VARCHAR)
            return strbuf_printf(out, ":%s",
                                 calcite_type_name(type, true, false, type_name, sizeof type_name));
        return 0;
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        if (strbuf_append_cstr(out, "X'") != 0 ||
            binary_append_hex((const uint8_t *)value.s.ptr, value.s.len, out) != 0 ||
            strbuf_append_char(out, '\'') != 0)
            return -1;
        if (prefix)
            return strbuf_printf(
                out, ":%s", calcite_type_name(type, false, false, type_name, sizeof type_name));
        return 0;
    case TYPE_MAP:
    case TYPE_ROW:
    case TYPE_ARRAY:
    case TYPE_MULTISET:
        /* only constant-folded constructors reach here */
        return value_format_text(type, value, out);
    case TYPE_DATE:
        return append_date(out, value.i);
    case TYPE_TIME:
        return append_time_of_day(out, value.i);
    case TYPE_TIMESTAMP:
        return append_timestamp(out, value.i);
    case TYPE_TIMESTAMP_LTZ:
        if (append_timestamp(out, value.i) != 0)
            return -1;
        if (prefix)
            return strbuf_printf(
                out, ":%s", calcite_type_name(type, false, false, type_name, sizeof type_name));
        return 0;
    case TYPE_INTERVAL_DAY_TIME:
    case TYPE_INTERVAL_YEAR_MONTH:
        return strbuf_printf(out, "%lld:%s", (long long)value.i,
                             calcite_type_name(type, false, false, type_name, sizeof type_name));
    }
    return 0;
}

static int print_expr(const Expr *expr, const char *const *names, ExprStyle style, StrBuf *out);

/* Writes "op(a, b, ...)" or, for the infix operators in infix style, "(a op b ...)". */
static int print_operands(const char *op, Expr *const *args, uint32_t count, bool infix,
                          const char *const *names, ExprStyle style, StrBuf *out)
{
    if (infix) {
        if (strbuf_append_char(out, '(') != 0)
            return -1;
        for (uint32_t i = 0; i < count; i++) {
            if (i > 0 && strbuf_printf(out, " %s ", op) != 0)
                return -1;
            if (print_expr(args[i], names, style, out) != 0)
                return -1;
        }
        return strbuf_append_char(out, ')');
    }
    if (strbuf_printf(out, "%s(", op) != 0)
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        if (i > 0 && strbuf_append_cstr(out, ", ") != 0)
            return -1;
        if (print_expr(args[i], names, style, out) != 0)
            return -1;
    }
    return strbuf_append_char(out, ')');
}

/* The literal under any implicit casts, or NULL. */
static const Expr *literal_under_casts(const Expr *expr)
{
    while (expr->kind == EXPR_CALL && expr->call.function == FUNCTION_CAST && expr->call.implicit)
        expr = expr->call.args[0];
    return expr->kind == EXPR_LITERAL ? expr : NULL;
}

static int compare_literals(const Expr *a, const Expr *b)
{
    if (a->type.id != b->type.id)
        return a->type.id < b->type.id ? -1 : 1;
    if (a->type.id == TYPE_DECIMAL && a->type.scale != b->type.scale) {
        double x = (double)a->literal.i / (double)decimal_power_of_ten(a->type.scale);
        double y = (double)b->literal.i / (double)decimal_power_of_ten(b->type.scale);
        return x < y ? -1 : x > y ? 1 : 0;
    }
    return value_compare(a->type, a->literal, b->literal);
}

/* Sarg points print as the values' own toString: plain numbers, strings with charset. */
static int print_sarg_point(const Expr *literal, StrBuf *out)
{
    DataType type = literal->type;
    switch (type.id) {
    case TYPE_CHAR:
    case TYPE_VARCHAR: {
        DataType as_char = type;
        as_char.id = TYPE_CHAR;
        return append_literal(out, as_char, literal->literal, EXPR_STYLE_PREFIX);
    }
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_BIGINT:
        return strbuf_printf(out, "%lld", (long long)literal->literal.i);
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        return append_scientific(out, literal->literal.d);
    default:
        return append_literal(out, type, literal->literal, EXPR_STYLE_INFIX);
    }
}

static int print_in(const Expr *expr, const char *const *names, ExprStyle style, StrBuf *out)
{
    uint32_t count = expr->call.arg_count;
    Expr *const *args = expr->call.args;
    bool infix = style == EXPR_STYLE_INFIX;
    bool all_literals = count >= 3;
    for (uint32_t i = 1; i < count && all_literals; i++) {
        const Expr *literal = literal_under_casts(args[i]);
        if (!literal || literal->literal.is_null)
            all_literals = false;
    }
    if (count == 2) {
        return print_operands("=", args, 2, infix, names, style, out);
    }
    if (!all_literals) {
        /* OR(=(x, a), =(x, b), ...) */
        if (infix ? strbuf_append_char(out, '(') : strbuf_append_cstr(out, "OR("))
            return -1;
        for (uint32_t i = 1; i < count; i++) {
            if (i > 1 && strbuf_append_cstr(out, infix ? " OR " : ", ") != 0)
                return -1;
            Expr *pair[2] = {args[0], args[i]};
            if (print_operands("=", pair, 2, infix, names, style, out) != 0)
                return -1;
        }
        return strbuf_append_char(out, ')');
    }
    /* SEARCH(x, Sarg[sorted distinct points]) */
    const Expr *points[64];
    const Expr **sorted = points;
    const Expr **heap = NULL;
    if (count - 1 > 64) {
        heap = malloc((count - 1) * sizeof *heap);
        if (!heap)
            return -1;
        sorted = heap;
    }
    uint32_t used = 0;
    for (uint32_t i = 1; i < count; i++) {
        const Expr *literal = literal_under_casts(args[i]);
        uint32_t position = used;
        bool duplicate = false;
        for (uint32_t j = 0; j < used; j++) {
            int order = compare_literals(literal, sorted[j]);
            if (order == 0) {
                duplicate = true;
                break;
            }
            if (order < 0) {
                position = j;
                break;
            }
        }
        if (duplicate)
            continue;
        memmove(sorted + position + 1, sorted + position, (used - position) * sizeof *sorted);
        sorted[position] = literal;
        used++;
    }
    int status = strbuf_append_cstr(out, "SEARCH(");
    if (status == 0)
        status = print_expr(args[0], names, style, out);
    if (status == 0)
        status = strbuf_append_cstr(out, ", Sarg[");
    for (uint32_t i = 0; i < used && status == 0; i++) {
        if (i > 0)
            status = strbuf_append_cstr(out, ", ");
        if (status == 0)
            status = print_sarg_point(sorted[i], out);
    }
    if (status == 0)
        status = strbuf_append_cstr(out, "])");
    free(heap);
    return status;
}

static int print_unit_flag(const Expr *unit, StrBuf *out)
{
    if (strbuf_append_cstr(out, "FLAG(") != 0)
        return -1;
    for (uint32_t i = 0; i < unit->literal.s.len; i++) {
        char c = unit->literal.s.ptr[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (strbuf_append_char(out, c) != 0)
            return -1;
    }
    return strbuf_append_char(out, ')');
}

static int print_call(const Expr *expr, const char *const *names, ExprStyle style, StrBuf *out)
{
    const FunctionInfo *info = function_info(expr->call.function);
    uint32_t count = expr->call.arg_count;
    Expr *const *args = expr->call.args;
    bool infix = style == EXPR_STYLE_INFIX;
    const char *op = info->name; /* Calcite's SqlOperator.toString */
    if (expr->call.function == FUNCTION_USER_DEFINED && expr->call.udf)
        op = expr->call.udf->name;
    char type_name[128];

    switch (info->print) {
    case FUNCTION_PRINT_CAST:
        if (expr->call.function == FUNCTION_CAST && expr->call.implicit)
            return print_expr(args[0], names, style, out);
        if (strbuf_printf(out, "%s(", op) != 0 || print_expr(args[0], names, style, out) != 0)
            return -1;
        return strbuf_printf(out, " AS %s)",
                             expr_type_name(expr->type, !infix, type_name, sizeof type_name));
    case FUNCTION_PRINT_IN:
        return print_in(expr, names, style, out);
    case FUNCTION_PRINT_TRIM: {
        const char *mode = expr->call.trim_mode == TRIM_LEADING    ? "LEADING"
                           : expr->call.trim_mode == TRIM_TRAILING ? "TRAILING"
                                                                   : "BOTH";
        if (strbuf_printf(out, "TRIM(FLAG(%s), ", mode) != 0)
            return -1;
        if (count > 1) {
            if (print_expr(args[1], names, style, out) != 0)
                return -1;
        } else if (strbuf_append_cstr(out, infix ? "' '" : "_UTF-16LE' '") != 0) {
            return -1;
        }
        if (strbuf_append_cstr(out, ", ") != 0 || print_expr(args[0], names, style, out) != 0)
            return -1;
        return strbuf_append_char(out, ')');
    }
    case FUNCTION_PRINT_EXTRACT:
        /* EXTRACT, TIMESTAMPDIFF, TIMESTAMPADD: a unit flag, then the operands */
        if (count >= 2 && args[0]->kind == EXPR_LITERAL && !args[0]->literal.is_null &&
            type_is_string(args[0]->type.id)) {
            if (strbuf_printf(out, "%s(", op) != 0 || print_unit_flag(args[0], out) != 0)
                return -1;
            for (uint32_t i = 1; i < count; i++)
                if (strbuf_append_cstr(out, ", ") != 0 ||
                    print_expr(args[i], names, style, out) != 0)
                    return -1;
            return strbuf_append_char(out, ')');
        }
        break;
    case FUNCTION_PRINT_UNIT_LAST:
        /* FLOOR / CEIL (t TO unit): the operand, then the unit flag */
        if (count == 2 && args[1]->kind == EXPR_LITERAL && !args[1]->literal.is_null &&
            type_is_string(args[1]->type.id)) {
            if (strbuf_printf(out, "%s(", op) != 0 || print_expr(args[0], names, style, out) != 0 ||
                strbuf_append_cstr(out, ", ") != 0 || print_unit_flag(args[1], out) != 0)
                return -1;
            return strbuf_append_char(out, ')');
        }
        break;
    case FUNCTION_PRINT_FIELD:
        if (count == 2 && args[1]->kind == EXPR_LITERAL &&
            (uint64_t)args[1]->literal.i < type_field_count(args[0]->type)) {
            if (print_expr(args[0], names, style, out) != 0)
                return -1;
            return strbuf_printf(out, ".%s",
                                 type_field_name(args[0]->type, (uint32_t)args[1]->literal.i));
        }
        break;
    case FUNCTION_PRINT_POSTFIX:
        if (infix && count == 1) {
            if (print_expr(args[0], names, style, out) != 0)
                return -1;
            return strbuf_printf(out, " %s", op);
        }
        break;
    case FUNCTION_PRINT_INFIX:
        if (count != 1)
            return print_operands(op, args, count, infix, names, style, out);
        break;
    case FUNCTION_PRINT_CALL:
        break;
    }
    return print_operands(op, args, count, false, names, style, out);
}

static int print_expr(const Expr *expr, const char *const *names, ExprStyle style, StrBuf *out)
{
    switch (expr->kind) {
    case EXPR_INPUT_REF:
        if (names && names[expr->input_index])
            return strbuf_append_cstr(out, names[expr->input_index]);
        return strbuf_printf(out, "$%u", (unsigned)expr->input_index);
    case EXPR_LITERAL:
        return append_literal(out, expr->type, expr->literal, style);
    case EXPR_CALL:
        return print_call(expr, names, style, out);
    }
    return 0;
}

int expr_print(const Expr *expr, const char *const *field_names, ExprStyle style, StrBuf *out)
{
    return print_expr(expr, field_names, style, out);
}
