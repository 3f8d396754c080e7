/*
 * expr_eval.c - evaluates bound expressions over rows (see expr_eval.h).
 *
 * Semantics follow Flink's generated code:
 * - three-valued logic: AND is FALSE if any operand is FALSE, else NULL if
 *   any is NULL; OR is TRUE if any is TRUE, else NULL if any is NULL;
 * - TINYINT..BIGINT + - * / wrap around as Java's int arithmetic does (done
 *   in unsigned arithmetic, then narrowed to the result width); integer / and
 *   MOD by zero are runtime errors ("Division by zero"); DOUBLE division
 *   gives Infinity/NaN;
 * - DECIMAL arithmetic is exact on scaled int64 (with 128-bit
 *   intermediates) and rounds HALF_UP to the result scale; a result that
 *   does not fit the result precision is NULL, as in Flink;
 * - CAST: numeric narrowing wraps (Java), DOUBLE -> integer truncates toward
 *   zero and saturates (Java's (long) d), string parsing failures are errors
 *   naming the value (TRY_CAST gives NULL), DECIMAL overflow gives NULL;
 * - strings are UTF-8: CHAR_LENGTH, SUBSTRING, POSITION and LIKE's '_' count
 *   code points; UPPER/LOWER change ASCII letters only and leave other bytes
 *   alone (unlike Java, which also maps non-ASCII letters);
 * - LIKE has no escape character unless ESCAPE is given (SQL standard);
 * - DATE_FORMAT / TO_TIMESTAMP understand the SimpleDateFormat letters y M d
 *   H h m s S a E and quoted text; the session time zone is UTC.
 * Common predicate shapes (input ref compared with a literal, AND chains)
 * are evaluated without the general recursion.
 */
#include "engine/exec/expr_eval.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/base/binary.h"
#include "engine/base/map.h"
#include "engine/base/utf8.h"

__extension__ typedef __int128 Int128;

enum { MILLIS_PER_DAY = 86400000 };

typedef struct EvalInput {
    const Row *left;
    uint32_t left_field_count;
    const Row *right;
    ExprEvalContext *context;
} EvalInput;

static Value eval_expr(const Expr *expr, const EvalInput *input);

/* ---- errors ----------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static Value eval_error(const EvalInput *input,
                                                              const char *format, ...)
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

static Value eval_out_of_memory(const EvalInput *input)
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

static inline Value value_bool(bool b)
{
    return value_int(b ? 1 : 0);
}

/* Java's (long) d: truncation toward zero, NaN -> 0, saturation. */
static int64_t java_double_to_long(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

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

static double numeric_to_double(DataType type, Value value)
{
    switch (type.id) {
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        return value.d;
    case TYPE_DECIMAL:
        return (double)value.i / (double)decimal_power_of_ten(type.scale);
    default:
        return (double)value.i;
    }
}

static Int128 power_of_ten_128(int n)
{
    Int128 result = 1;
    for (int i = 0; i < n; i++)
        result *= 10;
    return result;
}

/* Divides rounding HALF_UP (away from zero on ties). divisor > 0. */
static Int128 divide_half_up(Int128 value, Int128 divisor)
{
    Int128 quotient = value / divisor;
    Int128 remainder = value % divisor;
    if (remainder < 0)
        remainder = -remainder;
    if (remainder * 2 >= divisor)
        quotient += value < 0 ? -1 : 1;
    return quotient;
}

/* Rescales a 128-bit decimal from scale `from` to `to`, HALF_UP. */
static Int128 rescale_128(Int128 value, int from, int to, bool *overflow)
{
    if (to >= from) {
        Int128 factor = power_of_ten_128(to - from);
        Int128 result;
        if (__builtin_mul_overflow(value, factor, &result)) {
            *overflow = true;
            return 0;
        }
        return result;
    }
    return divide_half_up(value, power_of_ten_128(from - to));
}

/* True when the unscaled value fits DECIMAL(precision, *). */
static bool decimal_fits(Int128 value, int precision)
{
    Int128 limit = power_of_ten_128(precision > 18 ? 18 : precision);
    return value < limit && value > -limit;
}

static Value decimal_result(Int128 value, DataType type, bool overflow)
{
    if (overflow || !decimal_fits(value, type.precision))
        return value_null(); /* Flink: DECIMAL overflow gives NULL */
    return value_int((int64_t)value);
}

static char *eval_arena_copy(const EvalInput *input, const char *text, size_t length)
{
    return arena_strndup(input->context->arena, text ? text : "", length);
}

/*
 * The bytes built in `built` (freed here) as a string value in the
 * evaluation arena; `status` is how the building went (0, or non-zero when
 * memory ran out: the out-of-memory result).
 */
static Value string_from_strbuf(const EvalInput *input, StrBuf *built, int status)
{
    char *copy = status == 0 ? eval_arena_copy(input, built->data, built->length) : NULL;
    uint32_t length = (uint32_t)built->length;
    strbuf_free(built);
    return copy ? value_string(copy, length) : eval_out_of_memory(input);
}

/* ---- comparison ------------------------------------------------------- */

/* Three-way comparison of two non-NULL values, possibly of different numeric types. */
/* compare_mixed's result when an operand is NaN: only <> holds. */
enum { COMPARE_UNORDERED = -2147483647 - 1 };

static int compare_mixed(DataType a_type, Value a, DataType b_type, Value b)
{
    bool approximate = a_type.id == TYPE_FLOAT || a_type.id == TYPE_DOUBLE ||
                       b_type.id == TYPE_FLOAT || b_type.id == TYPE_DOUBLE;
    if (approximate && type_is_numeric(a_type.id) && type_is_numeric(b_type.id)) {
        double x = numeric_to_double(a_type, a), y = numeric_to_double(b_type, b);
        if (isnan(x) || isnan(y))
            return COMPARE_UNORDERED; /* NaN compares with nothing, itself included */
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a_type.id == b_type.id && (a_type.id != TYPE_DECIMAL || a_type.scale == b_type.scale))
        return value_compare(a_type, a, b);
    if (type_is_numeric(a_type.id) && type_is_numeric(b_type.id)) {
        int a_scale = a_type.id == TYPE_DECIMAL ? a_type.scale : 0;
        int b_scale = b_type.id == TYPE_DECIMAL ? b_type.scale : 0;
        int scale = a_scale > b_scale ? a_scale : b_scale;
        bool overflow = false;
        Int128 x = rescale_128(a.i, a_scale, scale, &overflow);
        Int128 y = rescale_128(b.i, b_scale, scale, &overflow);
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a_type.id == TYPE_DATE && b_type.id != TYPE_DATE) {
        int64_t x = a.i * MILLIS_PER_DAY;
        return x < b.i ? -1 : x > b.i ? 1 : 0;
    }
    if (b_type.id == TYPE_DATE && a_type.id != TYPE_DATE) {
        int64_t y = b.i * MILLIS_PER_DAY;
        return a.i < y ? -1 : a.i > y ? 1 : 0;
    }
    return value_compare(a_type, a, b);
}

/* True when a comparison of `order` (its row's ORDER) holds for compare_mixed's result. */
static bool order_holds(FunctionOrder order, int comparison)
{
    if (comparison == COMPARE_UNORDERED)
        return order == FUNCTION_ORDER_NOT_EQUAL;
    switch (order) {
    case FUNCTION_ORDER_EQUAL:
        return comparison == 0;
    case FUNCTION_ORDER_NOT_EQUAL:
        return comparison != 0;
    case FUNCTION_ORDER_LESS:
        return comparison < 0;
    case FUNCTION_ORDER_LESS_EQUAL:
        return comparison <= 0;
    case FUNCTION_ORDER_GREATER:
        return comparison > 0;
    case FUNCTION_ORDER_GREATER_EQUAL:
        return comparison >= 0;
    case FUNCTION_ORDER_NONE:
        break;
    }
    return false;
}

/* ---- CAST ------------------------------------------------------------- */

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

static Value cast_value(const EvalInput *input, DataType from, DataType to, Value value,
                        bool try_cast)
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
        break;
    }
    return cast_failure(input, try_cast, "Cannot cast %s to %s",
                        type_format(from, type_name, sizeof type_name),
                        type_format(to, type_name, sizeof type_name));
}

/* ---- arithmetic ------------------------------------------------------- */

static Value add_months(DataType type, int64_t base, int64_t months)
{
    int64_t days = base, millis_of_day = 0;
    if (type.id != TYPE_DATE) {
        days = base / MILLIS_PER_DAY;
        millis_of_day = base % MILLIS_PER_DAY;
        if (millis_of_day < 0) {
            millis_of_day += MILLIS_PER_DAY;
            days--;
        }
    }
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    int64_t total = year * 12 + (int64_t)(month - 1) + months;
    int64_t new_year = total >= 0 ? total / 12 : -((-total + 11) / 12);
    unsigned new_month = (unsigned)(total - new_year * 12) + 1;
    static const unsigned month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    unsigned last = month_days[new_month - 1];
    if (new_month == 2 && ((new_year % 4 == 0 && new_year % 100 != 0) || new_year % 400 == 0))
        last = 29;
    if (day > last)
        day = last;
    int64_t new_days = datetime_days_from_civil(new_year, new_month, day);
    if (type.id == TYPE_DATE)
        return value_int(new_days);
    return value_int(new_days * MILLIS_PER_DAY + millis_of_day);
}

typedef enum Arithmetic {
    ARITHMETIC_PLUS,
    ARITHMETIC_MINUS,
    ARITHMETIC_MULTIPLY,
    ARITHMETIC_DIVIDE,
    ARITHMETIC_MOD,
} Arithmetic;

/* temporal +/- interval, interval +/- interval, interval * / number */
static Value eval_temporal_arithmetic(Arithmetic op, DataType a_type, Value a, DataType b_type,
                                      Value b)
{
    int sign = op == ARITHMETIC_MINUS ? -1 : 1;
    if (type_is_interval(a_type.id) && type_is_temporal(b_type.id)) {
        DataType t = a_type;
        a_type = b_type;
        b_type = t;
        Value v = a;
        a = b;
        b = v;
    }
    if (type_is_temporal(a_type.id) && type_is_interval(b_type.id)) {
        int64_t amount = (int64_t)((uint64_t)b.i * (uint64_t)(int64_t)sign);
        if (b_type.id == TYPE_INTERVAL_YEAR_MONTH) {
            if (a_type.id == TYPE_TIME)
                return a;
            return add_months(a_type, a.i, amount);
        }
        switch (a_type.id) {
        case TYPE_DATE: {
            int64_t days = amount / MILLIS_PER_DAY;
            return value_int(a.i + days);
        }
        case TYPE_TIME: {
            int64_t millis = (a.i + amount % MILLIS_PER_DAY) % MILLIS_PER_DAY;
            return value_int(millis < 0 ? millis + MILLIS_PER_DAY : millis);
        }
        default:
            return value_int((int64_t)((uint64_t)a.i + (uint64_t)amount));
        }
    }
    if (type_is_interval(a_type.id) && type_is_interval(b_type.id))
        return value_int((int64_t)((uint64_t)a.i + (uint64_t)b.i * (uint64_t)(int64_t)sign));
    /* interval * number, number * interval, interval / number */
    DataType number_type = type_is_interval(a_type.id) ? b_type : a_type;
    Value number = type_is_interval(a_type.id) ? b : a;
    int64_t interval = type_is_interval(a_type.id) ? a.i : b.i;
    double factor = numeric_to_double(number_type, number);
    double result = op == ARITHMETIC_DIVIDE ? (double)interval / factor : (double)interval * factor;
    return value_int(java_double_to_long(result));
}

static Value eval_arithmetic(const Expr *expr, const EvalInput *input, Arithmetic op)
{
    const Expr *left = expr->call.args[0], *right = expr->call.args[1];
    Value a = eval_expr(left, input);
    if (a.is_null)
        return a;
    Value b = eval_expr(right, input);
    if (b.is_null)
        return b;
    DataType type = expr->type;
    DataType a_type = left->type, b_type = right->type;
    if (type_is_temporal(type.id) || type_is_interval(type.id))
        return eval_temporal_arithmetic(op, a_type, a, b_type, b);
    if (type.id == TYPE_DOUBLE || type.id == TYPE_FLOAT) {
        double x = numeric_to_double(a_type, a), y = numeric_to_double(b_type, b);
        double result = 0;
        switch (op) {
        case ARITHMETIC_PLUS:
            result = x + y;
            break;
        case ARITHMETIC_MINUS:
            result = x - y;
            break;
        case ARITHMETIC_MULTIPLY:
            result = x * y;
            break;
        case ARITHMETIC_DIVIDE:
            result = x / y;
            break;
        case ARITHMETIC_MOD:
            result = fmod(x, y);
            break;
        }
        return value_double(type.id == TYPE_FLOAT ? (double)(float)result : result);
    }
    if (type.id == TYPE_DECIMAL) {
        int a_scale = a_type.id == TYPE_DECIMAL ? a_type.scale : 0;
        int b_scale = b_type.id == TYPE_DECIMAL ? b_type.scale : 0;
        int scale = type.scale;
        bool overflow = false;
        Int128 x = a.i, y = b.i, result = 0;
        switch (op) {
        case ARITHMETIC_PLUS:
        case ARITHMETIC_MINUS: {
            int common = a_scale > b_scale ? a_scale : b_scale;
            x = rescale_128(x, a_scale, common, &overflow);
            y = rescale_128(y, b_scale, common, &overflow);
            result = op == ARITHMETIC_PLUS ? x + y : x - y;
            result = rescale_128(result, common, scale, &overflow);
            break;
        }
        case ARITHMETIC_MULTIPLY:
            result = rescale_128(x * y, a_scale + b_scale, scale, &overflow);
            break;
        case ARITHMETIC_DIVIDE: {
            if (y == 0)
                return eval_error(input, "Division by zero");
            /* x / 10^a_scale / (y / 10^b_scale) * 10^scale */
            int exponent = scale - a_scale + b_scale;
            Int128 numerator = x;
            Int128 denominator = y;
            if (exponent >= 0) {
                if (__builtin_mul_overflow(numerator, power_of_ten_128(exponent), &numerator))
                    return value_null();
            } else if (__builtin_mul_overflow(denominator, power_of_ten_128(-exponent),
                                              &denominator)) {
                return value_int(0);
            }
            if (denominator < 0) {
                denominator = -denominator;
                numerator = -numerator;
            }
            result = divide_half_up(numerator, denominator);
            break;
        }
        case ARITHMETIC_MOD: {
            if (y == 0)
                return eval_error(input, "Division by zero");
            int common = a_scale > b_scale ? a_scale : b_scale;
            x = rescale_128(x, a_scale, common, &overflow);
            y = rescale_128(y, b_scale, common, &overflow);
            result = rescale_128(x % y, common, scale, &overflow);
            break;
        }
        }
        return decimal_result(result, type, overflow);
    }
    /* integers: Java wrap-around */
    uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
    switch (op) {
    case ARITHMETIC_PLUS:
        return value_int(value_wrap_integer(type.id, x + y));
    case ARITHMETIC_MINUS:
        return value_int(value_wrap_integer(type.id, x - y));
    case ARITHMETIC_MULTIPLY:
        return value_int(value_wrap_integer(type.id, x * y));
    case ARITHMETIC_DIVIDE:
        if (b.i == 0)
            return eval_error(input, "Division by zero");
        if (b.i == -1)
            return value_int(value_wrap_integer(type.id, 0 - x));
        return value_int(value_wrap_integer(type.id, (uint64_t)(a.i / b.i)));
    case ARITHMETIC_MOD:
        if (b.i == 0)
            return eval_error(input, "Division by zero");
        if (b.i == -1)
            return value_int(0);
        return value_int(a.i % b.i);
    }
    return value_null(); /* not reached: every operation returns above */
}

static Value eval_plus(const Expr *expr, const EvalInput *input)
{
    return eval_arithmetic(expr, input, ARITHMETIC_PLUS);
}

static Value eval_minus(const Expr *expr, const EvalInput *input)
{
    return eval_arithmetic(expr, input, ARITHMETIC_MINUS);
}

static Value eval_multiply(const Expr *expr, const EvalInput *input)
{
    return eval_arithmetic(expr, input, ARITHMETIC_MULTIPLY);
}

static Value eval_divide(const Expr *expr, const EvalInput *input)
{
    return eval_arithmetic(expr, input, ARITHMETIC_DIVIDE);
}

static Value eval_mod(const Expr *expr, const EvalInput *input)
{
    return eval_arithmetic(expr, input, ARITHMETIC_MOD);
}

static Value eval_negate(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    if (a.is_null)
        return a;
    switch (expr->type.id) {
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        return value_double(-a.d);
    default:
        return value_int(value_wrap_integer(expr->type.id, 0 - (uint64_t)a.i));
    }
}

/* ---- numeric functions ------------------------------------------------ */

/* BigDecimal.valueOf(d).setScale(places, HALF_UP).doubleValue() */
static double round_double(double d, int places)
{
    if (!isfinite(d))
        return d;
    char text[64];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*e", digits - 1, d);
        if (strtod(text, NULL) == d)
            break;
    }
    /* text: [-]D.DDDDe[+-]XX; digits as an integer with exponent */
    bool negative = text[0] == '-';
    const char *cursor = text + (negative ? 1 : 0);
    char digits[40];
    size_t count = 0;
    for (; *cursor && *cursor != 'e'; cursor++)
        if (*cursor >= '0' && *cursor <= '9' && count < sizeof digits - 1)
            digits[count++] = *cursor;
    digits[count] = '\0';
    int exponent = *cursor == 'e' ? atoi(cursor + 1) : 0;
    /* value = 0.digits * 10^(exponent + 1); keep (exponent + 1 + places) digits */
    long keep = (long)exponent + 1 + places;
    if (keep < 0)
        return negative ? -0.0 : 0.0;
    if ((size_t)keep >= count)
        return d;
    bool round_up = digits[keep] >= '5';
    double kept = 0;
    for (long i = 0; i < keep; i++)
        kept = kept * 10 + (digits[i] - '0');
    if (round_up)
        kept += 1;
    /* kept * 10^(exponent + 1 - keep) = kept / 10^places */
    char result[80];
    snprintf(result, sizeof result, "%s%.0fe%d", negative ? "-" : "", kept, -places);
    return strtod(result, NULL);
}

static Value eval_abs(const Expr *expr, const EvalInput *input)
{
    const Expr *arg = expr->call.args[0];
    Value a = eval_expr(arg, input);
    if (a.is_null)
        return a;
    if (arg->type.id == TYPE_FLOAT || arg->type.id == TYPE_DOUBLE)
        return value_double(fabs(a.d));
    if (a.i < 0)
        return value_int(value_wrap_integer(arg->type.id, 0 - (uint64_t)a.i));
    return a;
}

/* FLOOR (floor_it) or CEIL */
static Value floor_or_ceil(const Expr *expr, const EvalInput *input, bool floor_it)
{
    const Expr *arg = expr->call.args[0];
    Value a = eval_expr(arg, input);
    if (a.is_null)
        return a;
    DataType from = arg->type;
    if (from.id == TYPE_FLOAT || from.id == TYPE_DOUBLE)
        return value_double(floor_it ? floor(a.d) : ceil(a.d));
    if (from.id != TYPE_DECIMAL || from.scale == 0)
        return a;
    int64_t factor = decimal_power_of_ten(from.scale);
    int64_t quotient = a.i / factor, remainder = a.i % factor;
    if (floor_it && remainder < 0)
        quotient--;
    if (!floor_it && remainder > 0)
        quotient++;
    bool overflow = false;
    return decimal_result(rescale_128(quotient, 0, expr->type.scale, &overflow), expr->type,
                          overflow);
}

static Value eval_floor(const Expr *expr, const EvalInput *input)
{
    return floor_or_ceil(expr, input, true);
}

static Value eval_ceil(const Expr *expr, const EvalInput *input)
{
    return floor_or_ceil(expr, input, false);
}

static Value eval_round(const Expr *expr, const EvalInput *input)
{
    const Expr *arg = expr->call.args[0];
    Value a = eval_expr(arg, input);
    if (a.is_null)
        return a;
    DataType from = arg->type;
    DataType to = expr->type;
    int places = 0;
    if (expr->call.arg_count > 1) {
        Value p = eval_expr(expr->call.args[1], input);
        if (p.is_null)
            return p;
        places = p.i > 18 ? 18 : p.i < -18 ? -18 : (int)p.i;
    }
    if (from.id == TYPE_FLOAT || from.id == TYPE_DOUBLE)
        return value_double(round_double(a.d, places));
    int scale = from.id == TYPE_DECIMAL ? from.scale : 0;
    if (places >= scale) {
        if (from.id == TYPE_DECIMAL) {
            bool overflow = false;
            return decimal_result(rescale_128(a.i, scale, to.scale, &overflow), to, overflow);
        }
        return a;
    }
    /* round to `places` (may be negative), then express at the result scale */
    Int128 unit = power_of_ten_128(scale - places);
    Int128 rounded = divide_half_up(a.i, unit) * unit; /* still at `scale` */
    if (from.id != TYPE_DECIMAL) {
        if (rounded > INT64_MAX || rounded < INT64_MIN)
            return value_int(
                value_wrap_integer(from.id, (uint64_t)(int64_t)(rounded % ((Int128)1 << 64))));
        return value_int(value_wrap_integer(from.id, (uint64_t)(int64_t)rounded));
    }
    bool overflow = false;
    return decimal_result(rescale_128(rounded, scale, to.scale, &overflow), to, overflow);
}

/* ---- strings ---------------------------------------------------------- */

/* UPPER (upper) or LOWER: ASCII letters only */
static Value case_change(const Expr *expr, const EvalInput *input, bool upper)
{
    Value a = eval_expr(expr->call.args[0], input);
    if (a.is_null)
        return a;
    char *copy = eval_arena_copy(input, a.s.ptr, a.s.len);
    if (!copy)
        return eval_out_of_memory(input);
    for (uint32_t i = 0; i < a.s.len; i++) {
        char c = copy[i];
        if (upper && c >= 'a' && c <= 'z')
            copy[i] = (char)(c - 'a' + 'A');
        else if (!upper && c >= 'A' && c <= 'Z')
            copy[i] = (char)(c - 'A' + 'a');
    }
    return value_string(copy, a.s.len);
}

static Value eval_upper(const Expr *expr, const EvalInput *input)
{
    return case_change(expr, input, true);
}

static Value eval_lower(const Expr *expr, const EvalInput *input)
{
    return case_change(expr, input, false);
}

static Value eval_char_length(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return a.is_null ? a : value_int(utf8_count(a.s.ptr, a.s.len));
}

static Value eval_substring(const Expr *expr, const EvalInput *input)
{
    Value s = eval_expr(expr->call.args[0], input);
    if (s.is_null)
        return s;
    Value start = eval_expr(expr->call.args[1], input);
    if (start.is_null)
        return start;
    int64_t length = INT64_MAX;
    if (expr->call.arg_count > 2) {
        Value l = eval_expr(expr->call.args[2], input);
        if (l.is_null)
            return l;
        length = l.i;
        if (length < 0)
            return value_null();
    }
    /* Flink's BinaryStringDataUtil.substringSQL */
    int64_t characters = utf8_count(s.s.ptr, s.s.len);
    int64_t first;
    if (start.i > 0) {
        first = start.i - 1;
        if (first >= characters)
            return value_string(s.s.ptr, 0);
    } else if (start.i < 0) {
        first = characters + start.i;
        if (first < 0)
            return value_string(s.s.ptr, 0);
    } else {
        first = 0;
    }
    int64_t last = characters - first < length ? characters : first + length;
    uint32_t from = utf8_offset(s.s.ptr, s.s.len, first);
    uint32_t to = utf8_offset(s.s.ptr, s.s.len, last);
    return value_string(s.s.ptr + from, to - from);
}

static Value eval_concat(const Expr *expr, const EvalInput *input)
{
    uint32_t count = expr->call.arg_count;
    Value parts[16];
    Value *values = parts;
    if (count > 16) {
        values = arena_alloc(input->context->arena, count * sizeof *values);
        if (!values)
            return eval_out_of_memory(input);
    }
    size_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        values[i] = eval_expr(expr->call.args[i], input);
        if (values[i].is_null)
            return values[i];
        total += values[i].s.len;
    }
    if (total > UINT32_MAX)
        return eval_error(input, "string too long in CONCAT");
    char *result = arena_alloc(input->context->arena, total + 1);
    if (!result)
        return eval_out_of_memory(input);
    size_t used = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (values[i].s.len)
            memcpy(result + used, values[i].s.ptr, values[i].s.len);
        used += values[i].s.len;
    }
    result[used] = '\0';
    return value_string(result, (uint32_t)used);
}

/* True when the code point at text[position..] is one of the code points of `set`. */
static bool code_point_in(const char *text, uint32_t position, uint32_t width, Value set)
{
    for (uint32_t i = 0; i < set.s.len;) {
        uint32_t set_width = utf8_width((unsigned char)set.s.ptr[i]);
        if (set_width == width && i + width <= set.s.len &&
            memcmp(set.s.ptr + i, text + position, width) == 0)
            return true;
        i += set_width;
    }
    return false;
}

static Value eval_trim(const Expr *expr, const EvalInput *input)
{
    Value s = eval_expr(expr->call.args[0], input);
    if (s.is_null)
        return s;
    Value set = value_string(" ", 1);
    if (expr->call.arg_count > 1) {
        set = eval_expr(expr->call.args[1], input);
        if (set.is_null)
            return set;
    }
    uint32_t begin = 0, end = s.s.len;
    TrimMode mode = expr->call.trim_mode;
    if (mode == TRIM_BOTH || mode == TRIM_LEADING) {
        while (begin < end) {
            uint32_t width = utf8_width((unsigned char)s.s.ptr[begin]);
            if (begin + width > end || !code_point_in(s.s.ptr, begin, width, set))
                break;
            begin += width;
        }
    }
    if (mode == TRIM_BOTH || mode == TRIM_TRAILING) {
        while (end > begin) {
            uint32_t start = end - 1;
            while (start > begin && ((unsigned char)s.s.ptr[start] & 0xC0) == 0x80)
                start--;
            if (!code_point_in(s.s.ptr, start, end - start, set))
                break;
            end = start;
        }
    }
    return value_string(s.s.ptr + begin, end - begin);
}

static const char *find_bytes(const char *haystack, uint32_t haystack_length, const char *needle,
                              uint32_t needle_length)
{
    if (needle_length == 0)
        return haystack;
    if (needle_length > haystack_length)
        return NULL;
    return memmem(haystack, haystack_length, needle, needle_length);
}

static Value eval_position(const Expr *expr, const EvalInput *input)
{
    Value needle = eval_expr(expr->call.args[0], input);
    if (needle.is_null)
        return needle;
    Value haystack = eval_expr(expr->call.args[1], input);
    if (haystack.is_null)
        return haystack;
    const char *found = find_bytes(haystack.s.ptr, haystack.s.len, needle.s.ptr, needle.s.len);
    if (!found)
        return value_int(0);
    return value_int((int64_t)utf8_count(haystack.s.ptr, (uint32_t)(found - haystack.s.ptr)) + 1);
}

static Value eval_replace(const Expr *expr, const EvalInput *input)
{
    Value s = eval_expr(expr->call.args[0], input);
    if (s.is_null)
        return s;
    Value from = eval_expr(expr->call.args[1], input);
    if (from.is_null)
        return from;
    Value to = eval_expr(expr->call.args[2], input);
    if (to.is_null)
        return to;
    if (from.s.len == 0)
        return s;
    StrBuf out = STRBUF_INIT;
    uint32_t position = 0;
    int status = 0;
    while (position <= s.s.len && status == 0) {
        const char *found =
            find_bytes(s.s.ptr + position, s.s.len - position, from.s.ptr, from.s.len);
        if (!found) {
            status = strbuf_append(&out, s.s.ptr + position, s.s.len - position);
            break;
        }
        uint32_t offset = (uint32_t)(found - s.s.ptr);
        status = strbuf_append(&out, s.s.ptr + position, offset - position);
        if (status == 0)
            status = strbuf_append(&out, to.s.ptr, to.s.len);
        position = offset + from.s.len;
    }
    return string_from_strbuf(input, &out, status);
}

/* ---- LIKE ------------------------------------------------------------- */

typedef enum LikeToken { LIKE_LITERAL, LIKE_ANY_ONE, LIKE_ANY_MANY } LikeToken;

/* Reads the pattern token at *position; advances it. */
static LikeToken like_token(Value pattern, uint32_t *position, int escape, char *literal)
{
    char c = pattern.s.ptr[*position];
    (*position)++;
    if (escape >= 0 && (unsigned char)c == (unsigned)escape && *position < pattern.s.len) {
        *literal = pattern.s.ptr[*position];
        (*position)++;
        return LIKE_LITERAL;
    }
    if (c == '%')
        return LIKE_ANY_MANY;
    if (c == '_')
        return LIKE_ANY_ONE;
    *literal = c;
    return LIKE_LITERAL;
}

static bool like_match(Value text, Value pattern, int escape)
{
    uint32_t s = 0, p = 0;
    bool star = false;
    uint32_t star_p = 0, star_s = 0;
    while (s < text.s.len) {
        if (p < pattern.s.len) {
            uint32_t next = p;
            char literal = 0;
            LikeToken token = like_token(pattern, &next, escape, &literal);
            if (token == LIKE_ANY_MANY) {
                star = true;
                star_p = next;
                star_s = s;
                p = next;
                continue;
            }
            if (token == LIKE_ANY_ONE) {
                s = utf8_next(text.s.ptr, text.s.len, s);
                p = next;
                continue;
            }
            if (text.s.ptr[s] == literal) {
                s++;
                p = next;
                continue;
            }
        }
        if (!star)
            return false;
        star_s = utf8_next(text.s.ptr, text.s.len, star_s);
        s = star_s;
        p = star_p;
    }
    while (p < pattern.s.len) {
        uint32_t next = p;
        char literal = 0;
        if (like_token(pattern, &next, escape, &literal) != LIKE_ANY_MANY)
            return false;
        p = next;
    }
    return true;
}

/* Fast paths for 'abc', 'abc%', '%abc', '%abc%' (no '_' or escape). */
static bool like_simple(Value text, Value pattern, bool *result)
{
    const char *p = pattern.s.ptr;
    uint32_t length = pattern.s.len;
    bool leading = length > 0 && p[0] == '%';
    bool trailing = length > (leading ? 1u : 0u) && p[length - 1] == '%';
    uint32_t begin = leading ? 1 : 0, end = trailing ? length - 1 : length;
    for (uint32_t i = begin; i < end; i++)
        if (p[i] == '%' || p[i] == '_')
            return false;
    uint32_t core = end - begin;
    const char *needle = p + begin;
    if (!leading && !trailing)
        *result = text.s.len == core && memcmp(text.s.ptr, needle, core) == 0;
    else if (!leading)
        *result = text.s.len >= core && memcmp(text.s.ptr, needle, core) == 0;
    else if (!trailing)
        *result = text.s.len >= core && memcmp(text.s.ptr + text.s.len - core, needle, core) == 0;
    else
        *result = find_bytes(text.s.ptr, text.s.len, needle, core) != NULL;
    return true;
}

static Value eval_like(const Expr *expr, const EvalInput *input)
{
    Value text = eval_expr(expr->call.args[0], input);
    if (text.is_null)
        return text;
    Value pattern = eval_expr(expr->call.args[1], input);
    if (pattern.is_null)
        return pattern;
    int escape = -1;
    if (expr->call.arg_count > 2) {
        Value e = eval_expr(expr->call.args[2], input);
        if (e.is_null)
            return e;
        if (e.s.len != 1)
            return eval_error(input, "Invalid escape character '%.*s' in LIKE",
                              (int)(e.s.len > 32 ? 32 : e.s.len), e.s.ptr);
        escape = (unsigned char)e.s.ptr[0];
    }
    bool result;
    if (escape < 0 && like_simple(text, pattern, &result))
        return value_bool(result);
    return value_bool(like_match(text, pattern, escape));
}

/* ---- date and time ---------------------------------------------------- */

static void split_timestamp(int64_t millis, int64_t *days, int64_t *millis_of_day)
{
    *days = millis / MILLIS_PER_DAY;
    *millis_of_day = millis % MILLIS_PER_DAY;
    if (*millis_of_day < 0) {
        *millis_of_day += MILLIS_PER_DAY;
        (*days)--;
    }
}

static const char *const MONTH_NAMES[] = {"January",   "February", "March",    "April",
                                          "May",       "June",     "July",     "August",
                                          "September", "October",  "November", "December"};
static const char *const DAY_NAMES[] = {"Thursday", "Friday",  "Saturday", "Sunday",
                                        "Monday",   "Tuesday", "Wednesday"};

/* Formats epoch millis with a SimpleDateFormat pattern. */
static int format_datetime(int64_t millis, const char *format, uint32_t length, StrBuf *out)
{
    int64_t days, millis_of_day;
    split_timestamp(millis, &days, &millis_of_day);
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    int hour = (int)(millis_of_day / 3600000), minute = (int)(millis_of_day / 60000 % 60);
    int second = (int)(millis_of_day / 1000 % 60), fraction = (int)(millis_of_day % 1000);
    int64_t weekday = days % 7;
    if (weekday < 0)
        weekday += 7;
    int status = 0;
    for (uint32_t i = 0; i < length && status == 0;) {
        char c = format[i];
        if (c == '\'') {
            if (i + 1 < length && format[i + 1] == '\'') {
                status = strbuf_append_char(out, '\'');
                i += 2;
                continue;
            }
            uint32_t j = i + 1;
            while (j < length) {
                if (format[j] == '\'') {
                    if (j + 1 < length && format[j + 1] == '\'') {
                        status = strbuf_append_char(out, '\'');
                        j += 2;
                        continue;
                    }
                    break;
                }
                status = strbuf_append_char(out, format[j]);
                j++;
            }
            i = j + 1;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            status = strbuf_append_char(out, c);
            i++;
            continue;
        }
        uint32_t run = 1;
        while (i + run < length && format[i + run] == c)
            run++;
        i += run;
        int width = (int)run;
        switch (c) {
        case 'y':
        case 'u':
            if (run == 2)
                status = strbuf_printf(out, "%02lld", (long long)((year % 100 + 100) % 100));
            else
                status = strbuf_printf(out, "%0*lld", width, (long long)year);
            break;
        case 'M':
        case 'L':
            if (run >= 4)
                status = strbuf_append_cstr(out, MONTH_NAMES[month - 1]);
            else if (run == 3)
                status = strbuf_printf(out, "%.3s", MONTH_NAMES[month - 1]);
            else
                status = strbuf_printf(out, "%0*u", width, month);
            break;
        case 'd':
            status = strbuf_printf(out, "%0*u", width, day);
            break;
        case 'D':
            status = strbuf_printf(out, "%0*lld", width,
                                   (long long)(days - datetime_days_from_civil(year, 1, 1) + 1));
            break;
        case 'H':
            status = strbuf_printf(out, "%0*d", width, hour);
            break;
        case 'k':
            status = strbuf_printf(out, "%0*d", width, hour == 0 ? 24 : hour);
            break;
        case 'h':
            status = strbuf_printf(out, "%0*d", width, hour % 12 == 0 ? 12 : hour % 12);
            break;
        case 'K':
            status = strbuf_printf(out, "%0*d", width, hour % 12);
            break;
        case 'm':
            status = strbuf_printf(out, "%0*d", width, minute);
            break;
        case 's':
            status = strbuf_printf(out, "%0*d", width, second);
            break;
        case 'S': {
            /* fraction of second, most significant digits first */
            char digits[16];
            snprintf(digits, sizeof digits, "%03d000000", fraction);
            status = strbuf_append(out, digits, run > 9 ? 9 : run);
            break;
        }
        case 'a':
            status = strbuf_append_cstr(out, hour < 12 ? "AM" : "PM");
            break;
        case 'E':
            if (run >= 4)
                status = strbuf_append_cstr(out, DAY_NAMES[weekday]);
            else
                status = strbuf_printf(out, "%.3s", DAY_NAMES[weekday]);
            break;
        default:
            for (uint32_t k = 0; k < run && status == 0; k++)
                status = strbuf_append_char(out, c);
            break;
        }
    }
    return status;
}

static bool parse_number(const char *text, uint32_t length, uint32_t *position, uint32_t min,
                         uint32_t max, int64_t *value)
{
    uint32_t count = 0;
    int64_t result = 0;
    while (*position < length && count < max && text[*position] >= '0' && text[*position] <= '9') {
        result = result * 10 + (text[*position] - '0');
        (*position)++;
        count++;
    }
    if (count < min)
        return false;
    *value = result;
    return true;
}

/* Parses text with a SimpleDateFormat pattern into epoch millis. */
static bool parse_datetime(const char *text, uint32_t length, const char *format,
                           uint32_t format_length, int64_t *result)
{
    int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0;
    bool pm = false, has_am_pm = false;
    uint32_t position = 0;
    for (uint32_t i = 0; i < format_length;) {
        char c = format[i];
        if (c == '\'') {
            uint32_t j = i + 1;
            while (j < format_length && format[j] != '\'') {
                if (position >= length || text[position] != format[j])
                    return false;
                position++;
                j++;
            }
            if (j == i + 1) { /* '' is a quote */
                if (position >= length || text[position] != '\'')
                    return false;
                position++;
            }
            i = j + 1;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            if (position >= length || text[position] != c)
                return false;
            position++;
            i++;
            continue;
        }
        uint32_t run = 1;
        while (i + run < format_length && format[i + run] == c)
            run++;
        i += run;
        /* adjacent numeric fields (yyyyMMdd) take exactly their width */
        bool adjacent = i < format_length && ((format[i] >= 'a' && format[i] <= 'z') ||
                                              (format[i] >= 'A' && format[i] <= 'Z'));
        uint32_t max = adjacent ? run : 9;
        bool ok = true;
        switch (c) {
        case 'y':
        case 'u':
            ok = parse_number(text, length, &position, run == 2 ? 2 : 1,
                              run == 2 ? 2 : (adjacent ? run : 9), &year);
            if (ok && run == 2)
                year += 2000;
            break;
        case 'M':
            ok = parse_number(text, length, &position, 1, adjacent ? run : 2, &month);
            break;
        case 'd':
            ok = parse_number(text, length, &position, 1, adjacent ? run : 2, &day);
            break;
        case 'H':
        case 'h':
        case 'k':
        case 'K':
            ok = parse_number(text, length, &position, 1, adjacent ? run : 2, &hour);
            break;
        case 'm':
            ok = parse_number(text, length, &position, 1, adjacent ? run : 2, &minute);
            break;
        case 's':
            ok = parse_number(text, length, &position, 1, adjacent ? run : 2, &second);
            break;
        case 'S': {
            uint32_t start = position;
            int64_t digits_value;
            ok = parse_number(text, length, &position, 1, max, &digits_value);
            if (ok) {
                uint32_t digits = position - start;
                /* keep milliseconds: the first three digits */
                int64_t value = 0;
                for (uint32_t k = 0; k < 3; k++)
                    value = value * 10 + (k < digits ? text[start + k] - '0' : 0);
                millis = value;
            }
            break;
        }
        case 'a':
            if (position + 2 <= length && strncasecmp(text + position, "AM", 2) == 0) {
                has_am_pm = true;
                position += 2;
            } else if (position + 2 <= length && strncasecmp(text + position, "PM", 2) == 0) {
                has_am_pm = true;
                pm = true;
                position += 2;
            } else {
                ok = false;
            }
            break;
        default:
            ok = false;
            break;
        }
        if (!ok)
            return false;
    }
    if (position != length)
        return false;
    if (has_am_pm) {
        hour %= 12;
        if (pm)
            hour += 12;
    }
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
        return false;
    int64_t days = datetime_days_from_civil(year, (unsigned)month, (unsigned)day);
    int64_t check_year;
    unsigned check_month, check_day;
    datetime_civil_from_days(days, &check_year, &check_month, &check_day);
    if ((int64_t)check_month != month || (int64_t)check_day != day)
        return false;
    *result = days * MILLIS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
    return true;
}

static Value eval_date_format(const Expr *expr, const EvalInput *input)
{
    const Expr *arg = expr->call.args[0];
    Value time = eval_expr(arg, input);
    if (time.is_null)
        return time;
    Value format = eval_expr(expr->call.args[1], input);
    if (format.is_null)
        return format;
    int64_t millis;
    if (type_is_string(arg->type.id)) {
        Value parsed;
        char reason[64];
        if (value_parse_text(type_make_timestamp(TYPE_TIMESTAMP, 3, true), time.s.ptr, time.s.len,
                             NULL, &parsed, reason, sizeof reason) != 0)
            return value_null();
        millis = parsed.i;
    } else if (arg->type.id == TYPE_DATE) {
        millis = time.i * MILLIS_PER_DAY;
    } else {
        millis = time.i;
    }
    StrBuf out = STRBUF_INIT;
    return string_from_strbuf(input, &out,
                              format_datetime(millis, format.s.ptr, format.s.len, &out));
}

static Value eval_to_timestamp(const Expr *expr, const EvalInput *input)
{
    Value text = eval_expr(expr->call.args[0], input);
    if (text.is_null)
        return text;
    if (expr->call.arg_count == 1) {
        Value parsed;
        char reason[64];
        if (value_parse_text(type_make_timestamp(TYPE_TIMESTAMP, 3, true), text.s.ptr, text.s.len,
                             NULL, &parsed, reason, sizeof reason) != 0)
            return value_null();
        return parsed;
    }
    Value format = eval_expr(expr->call.args[1], input);
    if (format.is_null)
        return format;
    int64_t millis;
    if (!parse_datetime(text.s.ptr, text.s.len, format.s.ptr, format.s.len, &millis))
        return value_null();
    return value_int(millis);
}

static bool unit_is(Value unit, const char *name)
{
    return strlen(name) == unit.s.len && strncasecmp(name, unit.s.ptr, unit.s.len) == 0;
}

static Value eval_extract(const Expr *expr, const EvalInput *input)
{
    Value unit = eval_expr(expr->call.args[0], input);
    const Expr *arg = expr->call.args[1];
    Value time = eval_expr(arg, input);
    if (time.is_null || unit.is_null)
        return value_null();
    if (type_is_interval(arg->type.id)) {
        int64_t v = time.i;
        if (arg->type.id == TYPE_INTERVAL_YEAR_MONTH) {
            if (unit_is(unit, "YEAR"))
                return value_int(v / 12);
            if (unit_is(unit, "MONTH"))
                return value_int(v % 12);
            return value_int(0);
        }
        if (unit_is(unit, "DAY"))
            return value_int(v / MILLIS_PER_DAY);
        if (unit_is(unit, "HOUR"))
            return value_int(v / 3600000 % 24);
        if (unit_is(unit, "MINUTE"))
            return value_int(v / 60000 % 60);
        if (unit_is(unit, "SECOND"))
            return value_int(v / 1000 % 60);
        if (unit_is(unit, "MILLISECOND"))
            return value_int(v % 60000);
        if (unit_is(unit, "EPOCH"))
            return value_int(v / 1000);
        return value_int(0);
    }
    int64_t days = 0, millis_of_day = 0;
    switch (arg->type.id) {
    case TYPE_DATE:
        days = time.i;
        break;
    case TYPE_TIME:
        millis_of_day = time.i;
        break;
    default:
        split_timestamp(time.i, &days, &millis_of_day);
        break;
    }
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    if (unit_is(unit, "YEAR"))
        return value_int(year);
    if (unit_is(unit, "QUARTER"))
        return value_int((month + 2) / 3);
    if (unit_is(unit, "MONTH"))
        return value_int(month);
    if (unit_is(unit, "DAY") || unit_is(unit, "DAYOFMONTH"))
        return value_int(day);
    if (unit_is(unit, "DOY") || unit_is(unit, "DAYOFYEAR"))
        return value_int(days - datetime_days_from_civil(year, 1, 1) + 1);
    if (unit_is(unit, "DOW") || unit_is(unit, "DAYOFWEEK")) {
        /* Sunday = 1 ... Saturday = 7; 1970-01-01 was a Thursday */
        int64_t weekday = (days + 4) % 7;
        if (weekday < 0)
            weekday += 7;
        return value_int(weekday + 1);
    }
    if (unit_is(unit, "WEEK")) {
        /* ISO-8601 week number */
        int64_t iso_weekday = (days + 3) % 7; /* Monday = 0 */
        if (iso_weekday < 0)
            iso_weekday += 7;
        int64_t thursday = days - iso_weekday + 3;
        int64_t thursday_year;
        unsigned thursday_month, thursday_day;
        datetime_civil_from_days(thursday, &thursday_year, &thursday_month, &thursday_day);
        return value_int((thursday - datetime_days_from_civil(thursday_year, 1, 1)) / 7 + 1);
    }
    if (unit_is(unit, "HOUR"))
        return value_int(millis_of_day / 3600000);
    if (unit_is(unit, "MINUTE"))
        return value_int(millis_of_day / 60000 % 60);
    if (unit_is(unit, "SECOND"))
        return value_int(millis_of_day / 1000 % 60);
    if (unit_is(unit, "MILLISECOND"))
        return value_int(millis_of_day % 60000);
    if (unit_is(unit, "EPOCH")) {
        int64_t millis = days * MILLIS_PER_DAY + millis_of_day;
        int64_t seconds = millis / 1000;
        if (millis % 1000 < 0)
            seconds--;
        return value_int(seconds);
    }
    return eval_error(input, "EXTRACT: unknown unit '%.*s'", (int)unit.s.len, unit.s.ptr);
}

/* ---- conditionals and logic ------------------------------------------ */

static Value eval_and(const Expr *expr, const EvalInput *input)
{
    bool saw_null = false;
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        Value v = eval_expr(expr->call.args[i], input);
        if (input->context->failed)
            return value_null();
        if (v.is_null)
            saw_null = true;
        else if (!v.i)
            return value_bool(false);
    }
    return saw_null ? value_null() : value_bool(true);
}

static Value eval_or(const Expr *expr, const EvalInput *input)
{
    bool saw_null = false;
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        Value v = eval_expr(expr->call.args[i], input);
        if (input->context->failed)
            return value_null();
        if (v.is_null)
            saw_null = true;
        else if (v.i)
            return value_bool(true);
    }
    return saw_null ? value_null() : value_bool(false);
}

/* = <> < <= > >= */
static Value eval_comparison(const Expr *expr, const EvalInput *input)
{
    const Expr *left = expr->call.args[0], *right = expr->call.args[1];
    Value a = eval_expr(left, input);
    Value b = eval_expr(right, input);
    if (a.is_null || b.is_null)
        return value_null();
    return value_bool(order_holds(function_info(expr->call.function)->order,
                                  compare_mixed(left->type, a, right->type, b)));
}

/* IS NOT DISTINCT FROM: equal, or both NULL */
static bool not_distinct(const Expr *expr, const EvalInput *input)
{
    const Expr *left = expr->call.args[0], *right = expr->call.args[1];
    Value a = eval_expr(left, input);
    Value b = eval_expr(right, input);
    if (a.is_null || b.is_null)
        return a.is_null && b.is_null;
    return compare_mixed(left->type, a, right->type, b) == 0;
}

static Value eval_is_distinct_from(const Expr *expr, const EvalInput *input)
{
    return value_bool(!not_distinct(expr, input));
}

static Value eval_is_not_distinct_from(const Expr *expr, const EvalInput *input)
{
    return value_bool(not_distinct(expr, input));
}

static Value eval_in(const Expr *expr, const EvalInput *input)
{
    const Expr *operand = expr->call.args[0];
    Value a = eval_expr(operand, input);
    if (a.is_null)
        return a;
    bool saw_null = false;
    for (uint32_t i = 1; i < expr->call.arg_count; i++) {
        const Expr *candidate = expr->call.args[i];
        Value b = eval_expr(candidate, input);
        if (b.is_null) {
            saw_null = true;
            continue;
        }
        if (compare_mixed(operand->type, a, candidate->type, b) == 0)
            return value_bool(true);
    }
    return saw_null ? value_null() : value_bool(false);
}

static Value eval_not(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return a.is_null ? a : value_bool(!a.i);
}

static Value eval_is_null(const Expr *expr, const EvalInput *input)
{
    return value_bool(eval_expr(expr->call.args[0], input).is_null);
}

static Value eval_is_not_null(const Expr *expr, const EvalInput *input)
{
    return value_bool(!eval_expr(expr->call.args[0], input).is_null);
}

static Value eval_is_true(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(!a.is_null && a.i);
}

static Value eval_is_not_true(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(a.is_null || !a.i);
}

static Value eval_is_false(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(!a.is_null && !a.i);
}

static Value eval_is_not_false(const Expr *expr, const EvalInput *input)
{
    Value a = eval_expr(expr->call.args[0], input);
    return value_bool(a.is_null || a.i);
}

/* Evaluates arg i and casts it to the call's result type when the types differ. */
static Value eval_as_result(const Expr *expr, uint32_t i, const EvalInput *input)
{
    const Expr *arg = expr->call.args[i];
    Value v = eval_expr(arg, input);
    if (v.is_null || type_equals(arg->type, expr->type))
        return v;
    return cast_value(input, arg->type, expr->type, v, false);
}

static Value eval_case(const Expr *expr, const EvalInput *input)
{
    uint32_t count = expr->call.arg_count;
    for (uint32_t i = 0; i + 1 < count; i += 2) {
        Value condition = eval_expr(expr->call.args[i], input);
        if (!condition.is_null && condition.i)
            return eval_as_result(expr, i + 1, input);
    }
    return eval_as_result(expr, count - 1, input);
}

static Value eval_coalesce(const Expr *expr, const EvalInput *input)
{
    for (uint32_t i = 0; i < expr->call.arg_count; i++) {
        Value v = eval_as_result(expr, i, input);
        if (!v.is_null || input->context->failed)
            return v;
    }
    return value_null();
}

static Value eval_if(const Expr *expr, const EvalInput *input)
{
    Value condition = eval_expr(expr->call.args[0], input);
    return eval_as_result(expr, (!condition.is_null && condition.i) ? 1 : 2, input);
}

static Value eval_nullif(const Expr *expr, const EvalInput *input)
{
    const Expr *right = expr->call.args[1];
    Value a = eval_as_result(expr, 0, input);
    if (a.is_null)
        return a;
    Value b = eval_expr(right, input);
    if (!b.is_null && compare_mixed(expr->type, a, right->type, b) == 0)
        return value_null();
    return a;
}

/* ---- maps --------------------------------------------------------------- */

static Value eval_item(const Expr *expr, const EvalInput *input)
{
    const Expr *map = expr->call.args[0];
    Value m = eval_expr(map, input);
    Value key = eval_expr(expr->call.args[1], input);
    Value found;
    if (m.is_null || key.is_null || !map_lookup(map->type, m.s.ptr, m.s.len, key, &found))
        return value_null();
    return found;
}

static Value eval_cardinality(const Expr *expr, const EvalInput *input)
{
    Value m = eval_expr(expr->call.args[0], input);
    return m.is_null ? m : value_int(map_cardinality(m.s.ptr, m.s.len));
}

/* MAP[k1, v1, ...] */
static Value eval_map(const Expr *expr, const EvalInput *input)
{
    uint32_t count = expr->call.arg_count / 2;
    MapEntry *entries = arena_alloc(input->context->arena, (count ? count : 1) * sizeof *entries);
    if (!entries)
        return eval_out_of_memory(input);
    for (uint32_t i = 0; i < count; i++) {
        entries[i].key = eval_expr(expr->call.args[2 * i], input);
        entries[i].value = eval_expr(expr->call.args[2 * i + 1], input);
    }
    StrBuf encoded = STRBUF_INIT;
    return string_from_strbuf(input, &encoded, map_encode(expr->type, entries, count, &encoded));
}

/* ---- CAST, time, dispatch ------------------------------------------- */

/* CAST or (try_cast) TRY_CAST */
static Value cast_call(const Expr *expr, const EvalInput *input, bool try_cast)
{
    const Expr *arg = expr->call.args[0];
    Value v = eval_expr(arg, input);
    if (input->context->failed)
        return value_null();
    return cast_value(input, arg->type, expr->type, v, try_cast);
}

static Value eval_cast(const Expr *expr, const EvalInput *input)
{
    return cast_call(expr, input, false);
}

static Value eval_try_cast(const Expr *expr, const EvalInput *input)
{
    return cast_call(expr, input, true);
}

/* CURRENT_TIMESTAMP, LOCALTIMESTAMP, PROCTIME: the batch's time */
static Value eval_now(const Expr *expr, const EvalInput *input)
{
    (void)expr;
    return value_int(input->context->now_millis);
}

static Value eval_current_date(const Expr *expr, const EvalInput *input)
{
    (void)expr;
    int64_t days, millis_of_day;
    split_timestamp(input->context->now_millis, &days, &millis_of_day);
    return value_int(days);
}

static Value eval_current_watermark(const Expr *expr, const EvalInput *input)
{
    (void)expr;
    return input->context->has_watermark ? value_int(input->context->watermark) : value_null();
}

/* An evaluator: the EVAL column of function_list.h. */
typedef Value Evaluator(const Expr *expr, const EvalInput *input);

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

static Value eval_expr(const Expr *expr, const EvalInput *input)
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
