/*
 * arithmetic.c - + - * / MOD, negation and the numeric functions ABS,
 * FLOOR, CEIL, ROUND, SIGN and (on DOUBLE, as Java's Math) POWER, SQRT, EXP, LN,
 * LOG10, LOG2, LOG, with the DECIMAL helpers the other families share:
 * - TINYINT..BIGINT + - * / wrap around as Java's int arithmetic does (done
 *   in unsigned arithmetic, then narrowed to the result width); integer / and
 *   MOD by zero are runtime errors ("Division by zero"); DOUBLE division
 *   gives Infinity/NaN;
 * - DECIMAL arithmetic is exact on scaled int64 (with 128-bit
 *   intermediates) and rounds HALF_UP to the result scale; a result that
 *   does not fit the result precision is NULL, as in Flink;
 * - temporal +/- interval (months added to the calendar, the day clamped to
 *   the month's last), interval +/- interval, interval * / number.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/exec/eval/eval.h"

/* Java's (long) d: truncation toward zero, NaN -> 0, saturation. */
int64_t java_double_to_long(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

double numeric_to_double(DataType type, Value value)
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
Int128 rescale_128(Int128 value, int from, int to, bool *overflow)
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

Value decimal_result(Int128 value, DataType type, bool overflow)
{
    if (overflow || !decimal_fits(value, type.precision))
        return value_null(); /* Flink: DECIMAL overflow gives NULL */
    return value_int((int64_t)value);
}

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

/* temporal +/- interval, interval +/- interval, interval * / number */
static Value eval_temporal_arithmetic(FunctionArithmetic op, DataType a_type, Value a,
                                      DataType b_type, Value b)
{
    int sign = op == FUNCTION_ARITHMETIC_MINUS ? -1 : 1;
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
    double result =
        op == FUNCTION_ARITHMETIC_DIVIDE ? (double)interval / factor : (double)interval * factor;
    return value_int(java_double_to_long(result));
}

/* + - * / MOD, as the row's ARITHMETIC says */
Value eval_arithmetic(const Expr *expr, const EvalInput *input)
{
    FunctionArithmetic op = function_info(expr->call.function)->arithmetic;
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
        case FUNCTION_ARITHMETIC_PLUS:
            result = x + y;
            break;
        case FUNCTION_ARITHMETIC_MINUS:
            result = x - y;
            break;
        case FUNCTION_ARITHMETIC_MULTIPLY:
            result = x * y;
            break;
        case FUNCTION_ARITHMETIC_DIVIDE:
            result = x / y;
            break;
        case FUNCTION_ARITHMETIC_MOD:
            result = fmod(x, y);
            break;
        case FUNCTION_ARITHMETIC_NONE:
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
        case FUNCTION_ARITHMETIC_PLUS:
        case FUNCTION_ARITHMETIC_MINUS: {
            int common = a_scale > b_scale ? a_scale : b_scale;
            x = rescale_128(x, a_scale, common, &overflow);
            y = rescale_128(y, b_scale, common, &overflow);
            result = op == FUNCTION_ARITHMETIC_PLUS ? x + y : x - y;
            result = rescale_128(result, common, scale, &overflow);
            break;
        }
        case FUNCTION_ARITHMETIC_MULTIPLY:
            result = rescale_128(x * y, a_scale + b_scale, scale, &overflow);
            break;
        case FUNCTION_ARITHMETIC_DIVIDE: {
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
        case FUNCTION_ARITHMETIC_MOD: {
            if (y == 0)
                return eval_error(input, "Division by zero");
            int common = a_scale > b_scale ? a_scale : b_scale;
            x = rescale_128(x, a_scale, common, &overflow);
            y = rescale_128(y, b_scale, common, &overflow);
            result = rescale_128(x % y, common, scale, &overflow);
            break;
        }
        case FUNCTION_ARITHMETIC_NONE:
            break;
        }
        return decimal_result(result, type, overflow);
    }
    /* integers: Java wrap-around */
    uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
    switch (op) {
    case FUNCTION_ARITHMETIC_PLUS:
        return value_int(value_wrap_integer(type.id, x + y));
    case FUNCTION_ARITHMETIC_MINUS:
        return value_int(value_wrap_integer(type.id, x - y));
    case FUNCTION_ARITHMETIC_MULTIPLY:
        return value_int(value_wrap_integer(type.id, x * y));
    case FUNCTION_ARITHMETIC_DIVIDE:
        if (b.i == 0)
            return eval_error(input, "Division by zero");
        if (b.i == -1)
            return value_int(value_wrap_integer(type.id, 0 - x));
        return value_int(value_wrap_integer(type.id, (uint64_t)(a.i / b.i)));
    case FUNCTION_ARITHMETIC_MOD:
        if (b.i == 0)
            return eval_error(input, "Division by zero");
        if (b.i == -1)
            return value_int(0);
        return value_int(a.i % b.i);
    case FUNCTION_ARITHMETIC_NONE:
        break;
    }
    return value_null(); /* not arithmetic */
}

Value eval_negate(const Expr *expr, const EvalInput *input)
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

/* BigDecimal.valueOf(d).setScale(places, HALF_UP or, when !half_up, DOWN).doubleValue() */
static double round_double(double d, int places, bool half_up)
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
    bool round_up = half_up && digits[keep] >= '5';
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

Value eval_abs(const Expr *expr, const EvalInput *input)
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

Value eval_floor(const Expr *expr, const EvalInput *input)
{
    if (expr->call.arg_count == 2)
        return eval_round_to_unit(expr, input, true);
    return floor_or_ceil(expr, input, true);
}

Value eval_ceil(const Expr *expr, const EvalInput *input)
{
    if (expr->call.arg_count == 2)
        return eval_round_to_unit(expr, input, false);
    return floor_or_ceil(expr, input, false);
}

/* ROUND (half_up: HALF_UP) or TRUNCATE (DOWN, toward zero) to `places` digits after the
   point (0 without a second argument; negative: before it), at the result type's scale */
static Value round_to_places(const Expr *expr, const EvalInput *input, bool half_up)
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
        return value_double(round_double(a.d, places, half_up));
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
    Int128 rounded = (half_up ? divide_half_up(a.i, unit) : a.i / unit) * unit; /* at `scale` */
    if (from.id != TYPE_DECIMAL) {
        if (rounded > INT64_MAX || rounded < INT64_MIN)
            return value_int(
                value_wrap_integer(from.id, (uint64_t)(int64_t)(rounded % ((Int128)1 << 64))));
        return value_int(value_wrap_integer(from.id, (uint64_t)(int64_t)rounded));
    }
    bool overflow = false;
    return decimal_result(rescale_128(rounded, scale, to.scale, &overflow), to, overflow);
}

Value eval_round(const Expr *expr, const EvalInput *input)
{
    return round_to_places(expr, input, true);
}

Value eval_truncate(const Expr *expr, const EvalInput *input)
{
    return round_to_places(expr, input, false);
}

Value eval_pi(const Expr *expr, const EvalInput *input)
{
    (void)expr;
    (void)input;
    return value_double(3.14159265358979323846); /* Java's Math.PI */
}

/* ---- POWER, SQRT, EXP, LN, LOG10, LOG2, LOG (DOUBLE arguments, C's libm = Java's Math) ---- */

/* Evaluates argument i (a DOUBLE); false when it is NULL. */
static bool double_arg(const Expr *expr, const EvalInput *input, uint32_t i, double *out)
{
    Value v = eval_expr(expr->call.args[i], input);
    *out = v.d;
    return !v.is_null;
}

Value eval_power(const Expr *expr, const EvalInput *input)
{
    double base, exponent;
    if (!double_arg(expr, input, 0, &base) || !double_arg(expr, input, 1, &exponent))
        return value_null();
    return value_double(pow(base, exponent));
}

Value eval_sqrt(const Expr *expr, const EvalInput *input)
{
    double x;
    return double_arg(expr, input, 0, &x) ? value_double(sqrt(x)) : value_null();
}

Value eval_exp(const Expr *expr, const EvalInput *input)
{
    double x;
    return double_arg(expr, input, 0, &x) ? value_double(exp(x)) : value_null();
}

Value eval_ln(const Expr *expr, const EvalInput *input)
{
    double x;
    return double_arg(expr, input, 0, &x) ? value_double(log(x)) : value_null();
}

Value eval_log10(const Expr *expr, const EvalInput *input)
{
    double x;
    return double_arg(expr, input, 0, &x) ? value_double(log10(x)) : value_null();
}

/* Flink: ln(x) / ln(2) */
Value eval_log2(const Expr *expr, const EvalInput *input)
{
    double x;
    return double_arg(expr, input, 0, &x) ? value_double(log(x) / log(2.0)) : value_null();
}

/* LOG(x) = ln(x); LOG(base, x) = ln(x) / ln(base) */
Value eval_log(const Expr *expr, const EvalInput *input)
{
    double first, second;
    if (!double_arg(expr, input, 0, &first))
        return value_null();
    if (expr->call.arg_count == 1)
        return value_double(log(first));
    if (!double_arg(expr, input, 1, &second))
        return value_null();
    return value_double(log(second) / log(first));
}

/* SIGN: -1, 0 or 1 in the argument's type (a DECIMAL's unscaled 10^scale for 1) */
Value eval_sign(const Expr *expr, const EvalInput *input)
{
    const Expr *arg = expr->call.args[0];
    Value a = eval_expr(arg, input);
    if (a.is_null)
        return a;
    if (arg->type.id == TYPE_FLOAT || arg->type.id == TYPE_DOUBLE)
        return value_double(a.d > 0 ? 1.0 : a.d < 0 ? -1.0 : a.d);
    int64_t one = arg->type.id == TYPE_DECIMAL ? decimal_power_of_ten(arg->type.scale) : 1;
    return value_int(a.i > 0 ? one : a.i < 0 ? -one : 0);
}
