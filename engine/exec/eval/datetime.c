/*
 * datetime.c - DATE_FORMAT, TO_TIMESTAMP, EXTRACT, TIMESTAMPDIFF, TIMESTAMPADD,
 * UNIX_TIMESTAMP, FROM_UNIXTIME, TO_DATE and the current time
 * (CURRENT_TIMESTAMP, LOCALTIMESTAMP, PROCTIME, CURRENT_DATE: the batch's
 * time; CURRENT_WATERMARK: the evaluating operator's watermark).
 * FLOOR / CEIL (t TO unit) are here too (eval_round_to_unit), as Flink's
 * DateTimeUtils round: units up to DAY on the millisecond count; WEEK
 * (weeks start on Sunday), MONTH, QUARTER and YEAR on the date, so CEIL of a
 * timestamp on such a boundary's day stays on that day whatever its time.
 * DATE_FORMAT / TO_TIMESTAMP understand the SimpleDateFormat letters y M d
 * H h m s S a E and quoted text; the session time zone is UTC.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/exec/eval/eval.h"

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

/*
 * Parses text with a SimpleDateFormat pattern into epoch millis. With
 * `trailing_ok`, text after the pattern is ignored (SimpleDateFormat.parse's
 * behaviour, which UNIX_TIMESTAMP and TO_DATE keep); otherwise it fails.
 */
static bool parse_datetime(const char *text, uint32_t length, const char *format,
                           uint32_t format_length, bool trailing_ok, int64_t *result)
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
    if (position != length && !trailing_ok)
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

Value eval_date_format(const Expr *expr, const EvalInput *input)
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

Value eval_to_timestamp(const Expr *expr, const EvalInput *input)
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
    if (!parse_datetime(text.s.ptr, text.s.len, format.s.ptr, format.s.len, false, &millis))
        return value_null();
    return value_int(millis);
}

Value eval_to_timestamp_ltz(const Expr *expr, const EvalInput *input)
{
    const Expr *arg = expr->call.args[0];
    Value number = eval_expr(arg, input);
    if (number.is_null)
        return number;
    int64_t precision = 3;
    if (expr->call.arg_count == 2) {
        Value given = eval_expr(expr->call.args[1], input);
        if (given.is_null)
            return given;
        precision = given.i;
    }
    if (precision != 0 && precision != 3)
        return eval_error(input,
                          "The precision value '%lld' for function TO_TIMESTAMP_LTZ(numeric, "
                          "precision) is unsupported, the supported value is '0' for second or "
                          "'3' for millisecond.",
                          (long long)precision);
    /* the value in milliseconds, truncated toward zero */
    double scaled;
    if (arg->type.id == TYPE_FLOAT || arg->type.id == TYPE_DOUBLE) {
        scaled = number.d * (precision == 0 ? 1000.0 : 1.0);
    } else if (arg->type.id == TYPE_DECIMAL) {
        double unscaled = (double)number.i;
        for (int32_t s = 0; s < arg->type.scale; s++)
            unscaled /= 10.0;
        scaled = unscaled * (precision == 0 ? 1000.0 : 1.0);
    } else {
        int64_t millis;
        if (precision == 0 && __builtin_mul_overflow(number.i, (int64_t)1000, &millis))
            return eval_error(input, "TO_TIMESTAMP_LTZ: %lld seconds is out of range",
                              (long long)number.i);
        return value_int(precision == 0 ? millis : number.i);
    }
    if (!(scaled > -9.2e18 && scaled < 9.2e18))
        return eval_error(input, "TO_TIMESTAMP_LTZ: the value is out of range");
    return value_int((int64_t)scaled);
}

static bool unit_is(Value unit, const char *name)
{
    return strlen(name) == unit.s.len && strncasecmp(name, unit.s.ptr, unit.s.len) == 0;
}

Value eval_extract(const Expr *expr, const EvalInput *input)
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

/* CURRENT_TIMESTAMP, LOCALTIMESTAMP, PROCTIME: the batch's time */
Value eval_now(const Expr *expr, const EvalInput *input)
{
    (void)expr;
    return value_int(input->context->now_millis);
}

Value eval_current_date(const Expr *expr, const EvalInput *input)
{
    (void)expr;
    int64_t days, millis_of_day;
    split_timestamp(input->context->now_millis, &days, &millis_of_day);
    return value_int(days);
}

Value eval_current_watermark(const Expr *expr, const EvalInput *input)
{
    (void)expr;
    return input->context->has_watermark ? value_int(input->context->watermark) : value_null();
}

/* The legacy group window functions ($TUMBLE, TUMBLE_START, ...) are planned into a
   GroupWindowAggregate and its properties, never evaluated; a plan that still has one is an
   error, not a guess. */
Value eval_group_window(const Expr *expr, const EvalInput *input)
{
    return eval_error(input, "%s can only be used with a group window in GROUP BY",
                      function_info(expr->call.function)->name);
}

/* ---- TIMESTAMPDIFF, TIMESTAMPADD (Avatica's DateTimeUtils month arithmetic) ---- */

/* A DATE (days) or TIMESTAMP / TIMESTAMP_LTZ (millis) value as epoch millis. */
static int64_t temporal_millis(const Expr *arg, Value value)
{
    return arg->type.id == TYPE_DATE ? value.i * MILLIS_PER_DAY : value.i;
}

static bool is_leap_year(int64_t year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

static unsigned days_in_month(int64_t year, unsigned month)
{
    static const unsigned lengths[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && is_leap_year(year) ? 29 : lengths[month - 1];
}

/* The day `months` months after `days`, the day of month clamped to the month's last day. */
static int64_t add_months_to_days(int64_t days, int64_t months)
{
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    int64_t index = year * 12 + (int64_t)(month - 1) + months;
    int64_t new_year = index / 12, new_month = index % 12;
    if (new_month < 0) {
        new_month += 12;
        new_year--;
    }
    unsigned last = days_in_month(new_year, (unsigned)new_month + 1);
    return datetime_days_from_civil(new_year, (unsigned)new_month + 1, day > last ? last : day);
}

/* Whole months from day1 to day0 (day0 >= day1 gives >= 0). */
static int64_t months_between_days(int64_t day0, int64_t day1)
{
    if (day0 < day1)
        return -months_between_days(day1, day0);
    int64_t months = (day0 - day1) / 31;
    for (;;) {
        if (add_months_to_days(day1, months) >= day0 || add_months_to_days(day1, months + 1) > day0)
            return months;
        months++;
    }
}

/* Whole months from millis1 to millis0, as Avatica's subtractMonths(long, long). */
static int64_t months_between_millis(int64_t millis0, int64_t millis1)
{
    int64_t day0, time0, day1, time1;
    split_timestamp(millis0, &day0, &time0);
    split_timestamp(millis1, &day1, &time1);
    int64_t months = months_between_days(day0, day1);
    if (add_months_to_days(day1, months) == day0 && time0 < time1)
        months--;
    return months;
}

/* The unit's length in millis, 0 for the month-based units. */
static int64_t unit_millis(Value unit)
{
    if (unit_is(unit, "SECOND"))
        return 1000;
    if (unit_is(unit, "MINUTE"))
        return 60000;
    if (unit_is(unit, "HOUR"))
        return 3600000;
    if (unit_is(unit, "DAY"))
        return MILLIS_PER_DAY;
    if (unit_is(unit, "WEEK"))
        return 7LL * MILLIS_PER_DAY;
    return 0;
}

/* The unit's length in months (MONTH, QUARTER, YEAR), 0 otherwise. */
static int64_t unit_months(Value unit)
{
    return unit_is(unit, "MONTH")     ? 1
           : unit_is(unit, "QUARTER") ? 3
           : unit_is(unit, "YEAR")    ? 12
                                      : 0;
}

Value eval_timestampdiff(const Expr *expr, const EvalInput *input)
{
    Value unit = eval_expr(expr->call.args[0], input);
    Value first = eval_expr(expr->call.args[1], input);
    Value second = eval_expr(expr->call.args[2], input);
    if (unit.is_null || first.is_null || second.is_null)
        return value_null();
    int64_t from = temporal_millis(expr->call.args[1], first);
    int64_t to = temporal_millis(expr->call.args[2], second);
    int64_t result;
    int64_t millis = unit_millis(unit), months = unit_months(unit);
    if (millis != 0) {
        if (__builtin_sub_overflow(to, from, &result))
            return eval_error(input, "TIMESTAMPDIFF: the difference is out of range");
        result /= millis; /* truncated toward zero, as Java's long division */
    } else if (months != 0) {
        result = months_between_millis(to, from) / months;
    } else {
        return eval_error(input, "TIMESTAMPDIFF: unknown unit '%.*s'", (int)unit.s.len, unit.s.ptr);
    }
    /* Flink casts the long difference to INT (Java's narrowing: the low 32 bits) */
    return value_int((int32_t)(uint32_t)(uint64_t)result);
}

Value eval_timestampadd(const Expr *expr, const EvalInput *input)
{
    Value unit = eval_expr(expr->call.args[0], input);
    Value count = eval_expr(expr->call.args[1], input);
    const Expr *time_arg = expr->call.args[2];
    Value time = eval_expr(time_arg, input);
    if (unit.is_null || count.is_null || time.is_null)
        return value_null();
    int64_t millis = unit_millis(unit), months = unit_months(unit);
    if (months != 0) {
        if (count.i > 1000000000LL || count.i < -1000000000LL)
            return eval_error(input, "TIMESTAMPADD: %lld is out of range", (long long)count.i);
        if (time_arg->type.id == TYPE_DATE)
            return value_int(add_months_to_days(time.i, count.i * months));
        int64_t days, millis_of_day;
        split_timestamp(time.i, &days, &millis_of_day);
        return value_int(add_months_to_days(days, count.i * months) * MILLIS_PER_DAY +
                         millis_of_day);
    }
    if (millis == 0)
        return eval_error(input, "TIMESTAMPADD: unknown unit '%.*s'", (int)unit.s.len, unit.s.ptr);
    if (time_arg->type.id == TYPE_DATE) /* DAY, WEEK: the typing rejected finer units */
        return value_int(time.i + count.i * (millis / MILLIS_PER_DAY));
    int64_t delta;
    if (__builtin_mul_overflow(count.i, millis, &delta) ||
        __builtin_add_overflow(time.i, delta, &delta))
        return eval_error(input, "TIMESTAMPADD: the result is out of range");
    return value_int(delta);
}

/* ---- UNIX_TIMESTAMP, FROM_UNIXTIME, TO_DATE (the session time zone is UTC) ---- */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t quotient = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient;
}

Value eval_unix_timestamp(const Expr *expr, const EvalInput *input)
{
    if (expr->call.arg_count == 0)
        return value_int(floor_div(input->context->now_millis, 1000));
    Value text = eval_expr(expr->call.args[0], input);
    if (text.is_null)
        return text;
    static const char DEFAULT_FORMAT[] = "yyyy-MM-dd HH:mm:ss";
    const char *format = DEFAULT_FORMAT;
    uint32_t format_length = sizeof DEFAULT_FORMAT - 1;
    if (expr->call.arg_count == 2) {
        Value given = eval_expr(expr->call.args[1], input);
        if (given.is_null)
            return given;
        format = given.s.ptr;
        format_length = given.s.len;
    }
    int64_t millis;
    if (!parse_datetime(text.s.ptr, text.s.len, format, format_length, true, &millis))
        return value_int(INT64_MIN); /* Flink: Long.MIN_VALUE when it does not parse */
    return value_int(floor_div(millis, 1000));
}

Value eval_from_unixtime(const Expr *expr, const EvalInput *input)
{
    Value seconds = eval_expr(expr->call.args[0], input);
    if (seconds.is_null)
        return seconds;
    const char *format = "yyyy-MM-dd HH:mm:ss";
    uint32_t format_length = (uint32_t)strlen(format);
    if (expr->call.arg_count == 2) {
        Value given = eval_expr(expr->call.args[1], input);
        if (given.is_null)
            return given;
        format = given.s.ptr;
        format_length = given.s.len;
    }
    int64_t millis;
    if (__builtin_mul_overflow(seconds.i, (int64_t)1000, &millis))
        return eval_error(input, "FROM_UNIXTIME: %lld seconds is out of range",
                          (long long)seconds.i);
    StrBuf out = STRBUF_INIT;
    return string_from_strbuf(input, &out, format_datetime(millis, format, format_length, &out));
}

Value eval_to_date(const Expr *expr, const EvalInput *input)
{
    Value text = eval_expr(expr->call.args[0], input);
    if (text.is_null)
        return text;
    const char *format = "yyyy-MM-dd";
    uint32_t format_length = (uint32_t)strlen(format);
    if (expr->call.arg_count == 2) {
        Value given = eval_expr(expr->call.args[1], input);
        if (given.is_null)
            return given;
        format = given.s.ptr;
        format_length = given.s.len;
    }
    int64_t millis;
    if (!parse_datetime(text.s.ptr, text.s.len, format, format_length, true, &millis))
        return value_null();
    return value_int(floor_div(millis, MILLIS_PER_DAY));
}

/* ---- FLOOR / CEIL (t TO unit) ------------------------------------------------------ */

static int64_t round_millis(int64_t millis, int64_t unit, bool floor_it)
{
    int64_t floored = floor_div(millis, unit) * unit;
    return floor_it || floored == millis ? floored : floored + unit;
}

/* The day (days since the epoch) `days` rounded to the WEEK, MONTH, QUARTER or YEAR. */
static int64_t round_days(int64_t days, Value unit, bool floor_it)
{
    int64_t year;
    unsigned month, day;
    datetime_civil_from_days(days, &year, &month, &day);
    if (unit_is(unit, "WEEK")) {
        int64_t sunday_based = (days + 4) % 7; /* 1970-01-01 was a Thursday: Sunday = 0 */
        if (sunday_based < 0)
            sunday_based += 7;
        return floor_it || sunday_based == 0 ? days - sunday_based : days - sunday_based + 7;
    }
    unsigned months = unit_is(unit, "MONTH") ? 1 : unit_is(unit, "QUARTER") ? 3 : 12;
    unsigned first = (month - 1) / months * months + 1; /* the unit's first month */
    if (!floor_it && (month != first || day > 1)) {
        first += months;
        if (first > 12) {
            first -= 12;
            year++;
        }
    }
    return datetime_days_from_civil(year, first, 1);
}

Value eval_round_to_unit(const Expr *expr, const EvalInput *input, bool floor_it)
{
    const Expr *arg = expr->call.args[0];
    Value time = eval_expr(arg, input);
    Value unit = eval_expr(expr->call.args[1], input);
    if (time.is_null || unit.is_null)
        return value_null();
    int64_t millis = unit_is(unit, "MILLISECOND") ? 1
                     : unit_is(unit, "DAY")       ? MILLIS_PER_DAY
                     : unit_is(unit, "WEEK")      ? 0
                                                  : unit_millis(unit);
    if (arg->type.id == TYPE_DATE)
        return value_int(unit_is(unit, "DAY") ? time.i : round_days(time.i, unit, floor_it));
    if (arg->type.id == TYPE_TIME) {
        int64_t rounded = round_millis(time.i, millis, floor_it);
        return value_int(rounded % MILLIS_PER_DAY);
    }
    if (millis != 0) {
        if (time.i > INT64_MAX - MILLIS_PER_DAY || time.i < INT64_MIN + MILLIS_PER_DAY)
            return eval_error(input, "FLOOR / CEIL: the timestamp is out of range");
        return value_int(round_millis(time.i, millis, floor_it));
    }
    int64_t days, millis_of_day;
    split_timestamp(time.i, &days, &millis_of_day);
    return value_int(round_days(days, unit, floor_it) * MILLIS_PER_DAY);
}
