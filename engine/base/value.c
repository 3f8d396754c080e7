/*
 * value.c - scalar values: reading from rows, parsing text, formatting,
 * comparison, and the date and decimal arithmetic they need.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/base/value.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/binary.h"
#include "engine/base/composite.h"
#include "engine/base/map.h"

Value value_from_row(const Row *row, uint32_t field, DataType type)
{
    if (row_is_null(row, field))
        return value_null();
    if (type_is_variable_length(type.id)) {
        uint32_t length;
        const char *text = row_get_string(row, field, &length);
        return value_string(text, length);
    }
    if (type.id == TYPE_FLOAT || type.id == TYPE_DOUBLE)
        return value_double(row_get_double(row, field));
    return value_int(row_get_int64(row, field));
}

void value_to_builder(RowBuilder *builder, uint32_t field, DataType type, Value value)
{
    if (value.is_null)
        row_builder_set_null(builder, field);
    else if (type_is_variable_length(type.id))
        row_builder_set_string(builder, field, value.s.ptr, value.s.len);
    else if (type.id == TYPE_FLOAT)
        row_builder_set_double(builder, field, (double)(float)value.d);
    else if (type.id == TYPE_DOUBLE)
        row_builder_set_double(builder, field, value.d);
    else
        row_builder_set_int64(builder, field, value.i);
}

int64_t datetime_days_from_civil(int64_t year, unsigned month, unsigned day)
{
    year -= month <= 2;
    int64_t era = (year >= 0 ? year : year - 399) / 400;
    unsigned year_of_era = (unsigned)(year - era * 400);
    unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + (int64_t)day_of_era - 719468;
}

void datetime_civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned day_of_era = (unsigned)(days - era * 146097);
    unsigned year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    int64_t y = (int64_t)year_of_era + era * 400;
    unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    unsigned mp = (5 * day_of_year + 2) / 153;
    *day = day_of_year - (153 * mp + 2) / 5 + 1;
    *month = mp < 10 ? mp + 3 : mp - 9;
    *year = y + (*month <= 2);
}

int64_t datetime_now_millis(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int64_t datetime_monotonic_nanos(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int64_t value_wrap_integer(TypeId id, uint64_t bits)
{
    switch (id) {
    case TYPE_TINYINT:
        return (int8_t)(uint8_t)bits;
    case TYPE_SMALLINT:
        return (int16_t)(uint16_t)bits;
    case TYPE_INT:
        return (int32_t)(uint32_t)bits;
    default:
        return (int64_t)bits;
    }
}

int64_t decimal_power_of_ten(int n)
{
    static const int64_t powers[19] = {1LL,
                                       10LL,
                                       100LL,
                                       1000LL,
                                       10000LL,
                                       100000LL,
                                       1000000LL,
                                       10000000LL,
                                       100000000LL,
                                       1000000000LL,
                                       10000000000LL,
                                       100000000000LL,
                                       1000000000000LL,
                                       10000000000000LL,
                                       100000000000000LL,
                                       1000000000000000LL,
                                       10000000000000000LL,
                                       100000000000000000LL,
                                       1000000000000000000LL};
    return (n >= 0 && n <= 18) ? powers[n] : 0;
}

bool decimal_rescale(int64_t value, int from, int to, int64_t *result)
{
    if (to == from) {
        *result = value;
        return true;
    }
    if (to > from) {
        int64_t factor = decimal_power_of_ten(to - from);
        if (factor == 0 || __builtin_mul_overflow(value, factor, result))
            return false;
        return true;
    }
    int64_t factor = decimal_power_of_ten(from - to);
    if (factor == 0) {
        *result = 0;
        return true;
    }
    int64_t quotient = value / factor;
    int64_t remainder = value % factor;
    if (remainder * 2 >= factor)
        quotient++;
    else if (remainder * 2 <= -factor)
        quotient--;
    *result = quotient;
    return true;
}

static bool parse_digits(const char **cursor, const char *end, int count, int *result)
{
    int value = 0;
    for (int i = 0; i < count; i++) {
        if (*cursor >= end || !isdigit((unsigned char)**cursor))
            return false;
        value = value * 10 + (**cursor - '0');
        (*cursor)++;
    }
    *result = value;
    return true;
}

static bool parse_date_part(const char **cursor, const char *end, int64_t *days)
{
    int year, month, day;
    if (!parse_digits(cursor, end, 4, &year) || *cursor >= end || **cursor != '-')
        return false;
    (*cursor)++;
    if (!parse_digits(cursor, end, 2, &month) || *cursor >= end || **cursor != '-')
        return false;
    (*cursor)++;
    if (!parse_digits(cursor, end, 2, &day))
        return false;
    if (month < 1 || month > 12 || day < 1 || day > 31)
        return false;
    int64_t result = datetime_days_from_civil(year, (unsigned)month, (unsigned)day);
    int64_t check_year;
    unsigned check_month, check_day;
    datetime_civil_from_days(result, &check_year, &check_month, &check_day);
    if ((int)check_month != month || (int)check_day != day)
        return false;
    *days = result;
    return true;
}

/* HH:MM[:SS[.fff...]] -> milliseconds of day */
static bool parse_time_part(const char **cursor, const char *end, int64_t *millis)
{
    int hour, minute, second = 0, fraction = 0;
    if (!parse_digits(cursor, end, 2, &hour) || *cursor >= end || **cursor != ':')
        return false;
    (*cursor)++;
    if (!parse_digits(cursor, end, 2, &minute))
        return false;
    if (*cursor < end && **cursor == ':') {
        (*cursor)++;
        if (!parse_digits(cursor, end, 2, &second))
            return false;
        if (*cursor < end && **cursor == '.') {
            (*cursor)++;
            int digits = 0;
            while (*cursor < end && isdigit((unsigned char)**cursor)) {
                if (digits < 3)
                    fraction = fraction * 10 + (**cursor - '0');
                digits++;
                (*cursor)++;
            }
            if (digits == 0)
                return false;
            for (; digits < 3; digits++)
                fraction *= 10;
        }
    }
    if (hour > 23 || minute > 59 || second > 59)
        return false;
    *millis = ((int64_t)hour * 3600 + minute * 60 + second) * 1000 + fraction;
    return true;
}

static int parse_error(char *error, size_t error_size, const char *reason, DataType type)
{
    char type_name[64];
    snprintf(error, error_size, "%s %s", reason, type_format(type, type_name, sizeof type_name));
    return -1;
}

static bool parse_decimal_text(const char *text, uint32_t length, int scale, int precision,
                               int64_t *result)
{
    const char *cursor = text, *end = text + length;
    bool negative = false;
    if (cursor < end && (*cursor == '-' || *cursor == '+')) {
        negative = *cursor == '-';
        cursor++;
    }
    int64_t value = 0;
    int integer_digits = 0, fraction_digits = 0;
    bool any = false, round_up = false;
    while (cursor < end && isdigit((unsigned char)*cursor)) {
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, *cursor - '0', &value))
            return false;
        if (value != 0)
            integer_digits++;
        any = true;
        cursor++;
    }
    if (cursor < end && *cursor == '.') {
        cursor++;
        while (cursor < end && isdigit((unsigned char)*cursor)) {
            if (fraction_digits < scale) {
                if (__builtin_mul_overflow(value, 10, &value) ||
                    __builtin_add_overflow(value, *cursor - '0', &value))
                    return false;
                fraction_digits++;
            } else if (fraction_digits == scale) {
                round_up = *cursor >= '5';
                fraction_digits++;
            }
            any = true;
            cursor++;
        }
    }
    if (!any || cursor != end)
        return false;
    int used = fraction_digits < scale ? fraction_digits : scale;
    for (int i = used; i < scale; i++)
        if (__builtin_mul_overflow(value, 10, &value))
            return false;
    if (round_up)
        value++;
    if (integer_digits > precision - scale)
        return false;
    /* rounding up may carry into one more digit: 999.995 -> 1000.00 does not fit (5, 2) */
    if (precision < 19 && value >= decimal_power_of_ten(precision))
        return false;
    *result = negative ? -value : value;
    return true;
}

int value_parse_text(DataType type, const char *text, uint32_t length, Arena *arena, Value *result,
                     char *error, size_t error_size)
{
    /* trim surrounding blanks for everything but strings and bytes */
    if (!type_is_string(type.id) && !type_is_binary(type.id)) {
        while (length && isspace((unsigned char)text[0])) {
            text++;
            length--;
        }
        while (length && isspace((unsigned char)text[length - 1]))
            length--;
    }
    const char *cursor = text, *end = text + length;
    char number[64];
    switch (type.id) {
    case TYPE_NULL:
        *result = value_null();
        return 0;
    case TYPE_BOOLEAN:
        if (length == 4 && strncasecmp(text, "true", 4) == 0)
            *result = value_int(1);
        else if (length == 5 && strncasecmp(text, "false", 5) == 0)
            *result = value_int(0);
        else
            return parse_error(error, error_size, "not a valid", type);
        return 0;
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INT:
    case TYPE_BIGINT: {
        if (length == 0 || length >= sizeof number)
            return parse_error(error, error_size, "not a valid", type);
        memcpy(number, text, length);
        number[length] = '\0';
        char *stop;
        errno = 0;
        long long parsed = strtoll(number, &stop, 10);
        if (*stop != '\0' || errno == ERANGE)
            return parse_error(error, error_size, "not a valid", type);
        long long low = type.id == TYPE_TINYINT    ? -128
                        : type.id == TYPE_SMALLINT ? -32768
                        : type.id == TYPE_INT      ? -2147483648LL
                                                   : INT64_MIN;
        long long high = type.id == TYPE_TINYINT    ? 127
                         : type.id == TYPE_SMALLINT ? 32767
                         : type.id == TYPE_INT      ? 2147483647LL
                                                    : INT64_MAX;
        if (parsed < low || parsed > high)
            return parse_error(error, error_size, "out of range for", type);
        *result = value_int(parsed);
        return 0;
    }
    case TYPE_FLOAT:
    case TYPE_DOUBLE: {
        if (length == 0 || length >= sizeof number)
            return parse_error(error, error_size, "not a valid", type);
        memcpy(number, text, length);
        number[length] = '\0';
        char *stop;
        double parsed = strtod(number, &stop);
        if (*stop != '\0')
            return parse_error(error, error_size, "not a valid", type);
        *result = value_double(parsed);
        return 0;
    }
    case TYPE_DECIMAL: {
        int64_t scaled;
        if (!parse_decimal_text(text, length, type.scale, type.precision, &scaled))
            return parse_error(error, error_size, "not a valid", type);
        *result = value_int(scaled);
        return 0;
    }
    case TYPE_CHAR:
    case TYPE_VARCHAR:
    case TYPE_BINARY:
    case TYPE_VARBINARY: /* the text's bytes (UTF-8), as Flink's CAST(string AS BYTES) */
        if (arena) {
            char *copy = arena_strndup(arena, text, length);
            if (!copy) {
                snprintf(error, error_size, "out of memory");
                return -1;
            }
            *result = value_string(copy, length);
        } else {
            *result = value_string(text, length);
        }
        return 0;
    case TYPE_DATE: {
        int64_t days;
        if (!parse_date_part(&cursor, end, &days) || cursor != end)
            return parse_error(error, error_size, "not a valid", type);
        *result = value_int(days);
        return 0;
    }
    case TYPE_TIME: {
        int64_t millis;
        if (!parse_time_part(&cursor, end, &millis) || cursor != end)
            return parse_error(error, error_size, "not a valid", type);
        *result = value_int(millis);
        return 0;
    }
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ: {
        int64_t days, millis = 0;
        if (!parse_date_part(&cursor, end, &days))
            return parse_error(error, error_size, "not a valid", type);
        if (cursor < end && (*cursor == ' ' || *cursor == 'T')) {
            cursor++;
            if (!parse_time_part(&cursor, end, &millis))
                return parse_error(error, error_size, "not a valid", type);
        }
        if (cursor < end && *cursor == 'Z')
            cursor++;
        if (cursor != end)
            return parse_error(error, error_size, "not a valid", type);
        *result = value_int(days * 86400000 + millis);
        return 0;
    }
    case TYPE_INTERVAL_DAY_TIME:
    case TYPE_INTERVAL_YEAR_MONTH:
    case TYPE_MAP:
    case TYPE_ROW:
    case TYPE_ARRAY:
    case TYPE_MULTISET:
        return parse_error(error, error_size, "cannot parse text as", type);
    }
    return parse_error(error, error_size, "cannot parse text as", type);
}

/* Shortest text that reads back as `value` (as a float when single). */
static bool round_trips(const char *text, double value, bool single)
{
    double parsed = strtod(text, NULL);
    return single ? (float)parsed == (float)value : parsed == value;
}

static int format_double(double value, bool single, StrBuf *out)
{
    if (isnan(value))
        return strbuf_append_cstr(out, "NaN");
    if (isinf(value))
        return strbuf_append_cstr(out, value > 0 ? "Infinity" : "-Infinity");
    char text[64];
    /* shortest representation that round-trips */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, value);
        if (round_trips(text, value, single))
            break;
    }
    /* Java style: 1.0E10 for exponents, always a fraction digit */
    double magnitude = fabs(value);
    if (magnitude != 0 && (magnitude >= 1e7 || magnitude < 1e-3)) {
        char *exponent = strchr(text, 'e');
        char mantissa[64];
        int power = 0;
        if (exponent) {
            snprintf(mantissa, sizeof mantissa, "%.*s", (int)(exponent - text), text);
            power = atoi(exponent + 1);
        } else {
            snprintf(text, sizeof text, "%.16e", value);
            exponent = strchr(text, 'e');
            snprintf(mantissa, sizeof mantissa, "%.*s", (int)(exponent - text), text);
            power = atoi(exponent + 1);
            /* strip trailing zeros */
            size_t n = strlen(mantissa);
            while (n > 1 && mantissa[n - 1] == '0')
                mantissa[--n] = '\0';
        }
        if (!strchr(mantissa, '.'))
            strcat(mantissa, ".0");
        else if (mantissa[strlen(mantissa) - 1] == '.')
            strcat(mantissa, "0");
        return strbuf_printf(out, "%sE%d", mantissa, power);
    }
    /* plain notation: as many decimals as the shortest round-trip form needs, at least one */
    int significant = 1;
    for (; significant <= 17; significant++) {
        snprintf(text, sizeof text, "%.*e", significant - 1, value);
        if (round_trips(text, value, single))
            break;
    }
    snprintf(text, sizeof text, "%.*e", significant - 1, value);
    int exponent = atoi(strchr(text, 'e') + 1);
    int decimals = significant - 1 - exponent;
    if (decimals < 1)
        decimals = 1;
    snprintf(text, sizeof text, "%.*f", decimals, value);
    size_t length = strlen(text);
    while (length > 2 && text[length - 1] == '0' && text[length - 2] != '.')
        text[--length] = '\0';
    return strbuf_append_cstr(out, text);
}

static int format_time_of_day(int64_t millis, int precision, StrBuf *out)
{
    int64_t seconds = millis / 1000;
    int status = strbuf_printf(out, "%02d:%02d:%02d", (int)(seconds / 3600),
                               (int)(seconds / 60 % 60), (int)(seconds % 60));
    if (precision > 0 && status == 0) {
        int digits = precision > 3 ? 3 : precision;
        int fraction = (int)(millis % 1000);
        for (int i = digits; i < 3; i++)
            fraction /= 10;
        status = strbuf_printf(out, ".%0*d", digits, fraction);
    }
    return status;
}

static int format_date(int64_t days, StrBuf *out)
{
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    return strbuf_printf(out, "%04lld-%02u-%02u", (long long)year, month, day);
}

/* A map element as value_format_text writes it, NULL as "null". */
static int format_map_element(DataType type, Value value, StrBuf *out)
{
    return value.is_null ? strbuf_append_cstr(out, "null") : value_format_text(type, value, out);
}

int value_format_text(DataType type, Value value, StrBuf *out)
{
    if (value.is_null)
        return 0;
    switch (type.id) {
    case TYPE_NULL:
        return 0;
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "TRUE" : "FALSE");
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INT:
    case TYPE_BIGINT:
        return strbuf_printf(out, "%lld", (long long)value.i);
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
        return format_double(type.id == TYPE_FLOAT ? (double)(float)value.d : value.d,
                             type.id == TYPE_FLOAT, out);
    case TYPE_DECIMAL: {
        int64_t scaled = value.i;
        int64_t factor = decimal_power_of_ten(type.scale);
        uint64_t magnitude = scaled < 0 ? (uint64_t)0 - (uint64_t)scaled : (uint64_t)scaled;
        const char *sign = scaled < 0 ? "-" : "";
        if (type.scale == 0)
            return strbuf_printf(out, "%s%llu", sign, (unsigned long long)magnitude);
        return strbuf_printf(out, "%s%llu.%0*llu", sign,
                             (unsigned long long)(magnitude / (uint64_t)factor), type.scale,
                             (unsigned long long)(magnitude % (uint64_t)factor));
    }
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return strbuf_append(out, value.s.ptr, value.s.len);
    case TYPE_BINARY:
    case TYPE_VARBINARY:
        if (strbuf_append_cstr(out, "x'") != 0 ||
            binary_append_hex((const uint8_t *)value.s.ptr, value.s.len, out) != 0)
            return -1;
        return strbuf_append_char(out, '\'');
    case TYPE_MAP:
        return map_append_text(type, value, format_map_element, out);
    case TYPE_ROW:
    case TYPE_ARRAY:
    case TYPE_MULTISET: {
        static const CompositeTextStyle style = {format_map_element, "(", ")"};
        return composite_append_text(type, value, &style, out);
    }
    case TYPE_DATE:
        return format_date(value.i, out);
    case TYPE_TIME:
        return format_time_of_day(value.i, 0, out);
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ: {
        int64_t days = value.i >= 0 ? value.i / 86400000 : -((-value.i + 86399999) / 86400000);
        int64_t millis = value.i - days * 86400000;
        if (format_date(days, out) != 0 || strbuf_append_char(out, ' ') != 0)
            return -1;
        return format_time_of_day(millis, type.precision, out);
    }
    case TYPE_INTERVAL_DAY_TIME: {
        int64_t millis = value.i;
        const char *sign = millis < 0 ? "-" : "+";
        if (millis < 0)
            millis = -millis;
        int64_t days = millis / 86400000;
        if (strbuf_printf(out, "%s%lld ", sign, (long long)days) != 0)
            return -1;
        return format_time_of_day(millis % 86400000, 3, out);
    }
    case TYPE_INTERVAL_YEAR_MONTH: {
        int64_t months = value.i;
        const char *sign = months < 0 ? "-" : "+";
        if (months < 0)
            months = -months;
        return strbuf_printf(out, "%s%lld-%02lld", sign, (long long)(months / 12),
                             (long long)(months % 12));
    }
    }
    return 0;
}

int value_compare(DataType type, Value a, Value b)
{
    if (type.id == TYPE_FLOAT || type.id == TYPE_DOUBLE) {
        /* a total order, as Java's Double.compare: NaN equals NaN and sorts last */
        if (isnan(a.d) || isnan(b.d))
            return isnan(a.d) ? (isnan(b.d) ? 0 : 1) : -1;
        return a.d < b.d ? -1 : a.d > b.d ? 1 : 0;
    }
    if (type_is_variable_length(type.id)) {
        uint32_t n = a.s.len < b.s.len ? a.s.len : b.s.len;
        int c = n ? memcmp(a.s.ptr, b.s.ptr, n) : 0;
        if (c != 0)
            return c < 0 ? -1 : 1;
        return a.s.len < b.s.len ? -1 : a.s.len > b.s.len ? 1 : 0;
    }
    return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
}
