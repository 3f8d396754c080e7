/*
 * cast.c - CAST and TRY_CAST, as Flink casts: numeric narrowing wraps
 * (Java), DOUBLE -> integer truncates toward zero and saturates (Java's
 * (long) d), string parsing failures are errors naming the value (TRY_CAST
 * gives NULL), DECIMAL overflow gives NULL; bytes to strings decode UTF-8
 * (ill-formed sequences become U+FFFD), strings to BINARY(n) are padded or
 * cut.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/base/binary.h"
#include "engine/exec/eval/eval.h"

/* Java's (int) d, then narrowed for TINYINT/SMALLINT as (byte)(int) d. */
static int64_t java_double_to_integer(double d, TypeId id)
{
    if (id == TYPE_BIGINT)
        return java_double_to_long(d);
    int64_t value;
    if (isnan(d))
        value = 0;
    else if (d >= 2147483647.0)
        value = 2147483647;
    else if (d <= -2147483648.0)
        value = -2147483647 - 1;
    else
        value = (int64_t)d;
    return value_wrap_integer(id, (uint64_t)value);
}

static Value cast_failure(const EvalInput *input, bool try_cast, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static Value cast_failure(const EvalInput *input, bool try_cast, const char *format, ...)
{
    if (try_cast)
        return value_null();
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return eval_error(input, "%s", message);
}

static Value string_to_boolean(const char *text, uint32_t length, bool *ok)
{
    static const char *const truths[] = {"t", "true", "y", "yes", "1"};
    static const char *const falsehoods[] = {"f", "false", "n", "no", "0"};
    while (length && (text[0] == ' ' || text[0] == '\t')) {
        text++;
        length--;
    }
    while (length && (text[length - 1] == ' ' || text[length - 1] == '\t'))
        length--;
    *ok = true;
    for (size_t i = 0; i < 5; i++) {
        if (strlen(truths[i]) == length && strncasecmp(truths[i], text, length) == 0)
            return value_int(1);
        if (strlen(falsehoods[i]) == length && strncasecmp(falsehoods[i], text, length) == 0)
            return value_int(0);
    }
    *ok = false;
    return value_null();
}

/* Bytes fitted to BINARY(n) (zero-padded or cut) or VARBINARY(n) (cut), as Flink casts. */
static Value fit_binary(const EvalInput *input, DataType to, Value value)
{
    uint32_t length = to.precision > 0 ? (uint32_t)to.precision : 0;
    if (value.s.len > length)
        return value_string(value.s.ptr, length);
    if (to.id != TYPE_BINARY || value.s.len == length)
        return value;
    char *padded = arena_alloc(input->context->arena, length);
    if (!padded)
        return eval_out_of_memory(input);
    memcpy(padded, value.s.ptr, value.s.len);
    memset(padded + value.s.len, 0, length - value.s.len);
    return value_string(padded, length);
}

Value cast_value(const EvalInput *input, DataType from, DataType to, Value value, bool try_cast)
{
    if (value.is_null || from.id == TYPE_NULL)
        return value_null();
    char type_name[96];
    /* bytes: from strings (their UTF-8 bytes) and other bytes */
    if (type_is_binary(to.id) && (type_is_binary(from.id) || type_is_string(from.id)))
        return fit_binary(input, to, value);
    if (type_is_string(to.id) && type_is_binary(from.id)) {
        /* Flink decodes the bytes as UTF-8, ill-formed sequences becoming U+FFFD */
        StrBuf text = STRBUF_INIT;
        return string_from_strbuf(
            input, &text, binary_append_utf8((const uint8_t *)value.s.ptr, value.s.len, &text));
    }
    if (to.id == TYPE_MAP && type_equals(from, to))
        return value;
    if (type_is_composite(to.id) && from.id == to.id)
        return cast_composite(input, from, to, value, try_cast);
    /* to string */
    if (type_is_string(to.id)) {
        if (type_is_string(from.id))
            return value;
        StrBuf text = STRBUF_INIT;
        return string_from_strbuf(input, &text, value_format_text(from, value, &text));
    }
    /* from string */
    if (type_is_string(from.id)) {
        if (to.id == TYPE_BOOLEAN) {
            bool ok;
            Value result = string_to_boolean(value.s.ptr, value.s.len, &ok);
            if (!ok)
                return cast_failure(input, try_cast, "Cannot cast '%.*s' to BOOLEAN",
                                    (int)value.s.len, value.s.ptr);
            return result;
        }
        Value result;
        char reason[128];
        if (value_parse_text(to, value.s.ptr, value.s.len, NULL, &result, reason, sizeof reason) !=
            0)
            return cast_failure(input, try_cast, "Cannot cast '%.*s' to %s: %s",
                                (int)(value.s.len > 200 ? 200 : value.s.len), value.s.ptr,
                                type_format(to, type_name, sizeof type_name), reason);
        if (to.id == TYPE_FLOAT)
            result.d = (double)(float)result.d;
        if ((to.id == TYPE_TIMESTAMP || to.id == TYPE_TIMESTAMP_LTZ) && to.precision < 3) {
            int64_t unit = decimal_power_of_ten(3 - to.precision);
            int64_t remainder = result.i % unit;
            result.i -= remainder < 0 ? remainder + unit : remainder;
        }
        return result;
    }
    switch (to.id) {
    case TYPE_BOOLEAN:
        if (from.id == TYPE_BOOLEAN)
            return value;
        if (from.id == TYPE_FLOAT || from.id == TYPE_DOUBLE)
            return value_bool(value.d != 0);
        return value_bool(value.i != 0);
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INT:
    case TYPE_BIGINT:
        switch (from.id) {
        case TYPE_FLOAT:
        case TYPE_DOUBLE:
            return value_int(java_double_to_integer(value.d, to.id));
        case TYPE_DECIMAL:
            /* BigDecimal.longValue(): truncation toward zero */
            return value_int(
                value_wrap_integer(to.id, (uint64_t)(value.i / decimal_power_of_ten(from.scale))));
        case TYPE_TIMESTAMP:
        case TYPE_TIMESTAMP_LTZ: {
            int64_t seconds = value.i / 1000;
            if (value.i % 1000 < 0)
                seconds--;
            return value_int(value_wrap_integer(to.id, (uint64_t)seconds));
        }
        default:
            return value_int(value_wrap_integer(to.id, (uint64_t)value.i));
        }
    case TYPE_FLOAT:
    case TYPE_DOUBLE: {
        double d = from.id == TYPE_BOOLEAN ? (double)value.i : numeric_to_double(from, value);
        return value_double(to.id == TYPE_FLOAT ? (double)(float)d : d);
    }
    case TYPE_DECIMAL: {
        bool overflow = false;
        Int128 result;
        if (from.id == TYPE_FLOAT || from.id == TYPE_DOUBLE) {
            if (!isfinite(value.d))
                return value_null();
            if (fabs(value.d) >= 1e18)
                return value_null();
            /* a few digits past the scale, then HALF_UP while parsing (like BigDecimal.valueOf) */
            char fixed[64];
            int digits = to.scale + 3 > 30 ? 30 : to.scale + 3;
            snprintf(fixed, sizeof fixed, "%.*f", digits, value.d);
            Value parsed;
            char reason[64];
            DataType wide = type_make_decimal(TYPE_DECIMAL_MAX_PRECISION, to.scale, true);
            if (value_parse_text(wide, fixed, (uint32_t)strlen(fixed), NULL, &parsed, reason,
                                 sizeof reason) != 0)
                return value_null();
            return decimal_result(parsed.i, to, false);
        }
        if (from.id == TYPE_DECIMAL)
            result = rescale_128(value.i, from.scale, to.scale, &overflow);
        else
            result = rescale_128(value.i, 0, to.scale, &overflow);
        return decimal_result(result, to, overflow);
    }
    case TYPE_DATE:
        if (from.id == TYPE_TIMESTAMP || from.id == TYPE_TIMESTAMP_LTZ) {
            int64_t days = value.i / MILLIS_PER_DAY;
            if (value.i % MILLIS_PER_DAY < 0)
                days--;
            return value_int(days);
        }
        return value;
    case TYPE_TIME:
        if (from.id == TYPE_TIMESTAMP || from.id == TYPE_TIMESTAMP_LTZ) {
            int64_t millis = value.i % MILLIS_PER_DAY;
            return value_int(millis < 0 ? millis + MILLIS_PER_DAY : millis);
        }
        return value;
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ: {
        int64_t millis = value.i;
        if (from.id == TYPE_DATE)
            millis = value.i * MILLIS_PER_DAY;
        else if (type_is_integer(from.id))
            millis = (int64_t)((uint64_t)value.i * 1000u); /* epoch seconds */
        if (to.precision < 3) {
            int64_t unit = decimal_power_of_ten(3 - to.precision);
            int64_t remainder = millis % unit;
            millis -= remainder < 0 ? remainder + unit : remainder;
        }
        return value_int(millis);
    }
    case TYPE_INTERVAL_DAY_TIME:
    case TYPE_INTERVAL_YEAR_MONTH:
        return value;
    case TYPE_NULL:
        return value_null();
    case TYPE_CHAR:
    case TYPE_VARCHAR:
    case TYPE_BINARY:
    case TYPE_VARBINARY:
    case TYPE_MAP:
    case TYPE_ROW:
    case TYPE_ARRAY:
    case TYPE_MULTISET:
        break;
    }
    return cast_failure(input, try_cast, "Cannot cast %s to %s",
                        type_format(from, type_name, sizeof type_name),
                        type_format(to, type_name, sizeof type_name));
}

/* CAST or (try_cast) TRY_CAST */
static Value cast_call(const Expr *expr, const EvalInput *input, bool try_cast)
{
    const Expr *arg = expr->call.args[0];
    Value v = eval_expr(arg, input);
    if (input->context->failed)
        return value_null();
    return cast_value(input, arg->type, expr->type, v, try_cast);
}

Value eval_cast(const Expr *expr, const EvalInput *input)
{
    return cast_call(expr, input, false);
}

Value eval_try_cast(const Expr *expr, const EvalInput *input)
{
    return cast_call(expr, input, true);
}
