/*
 * value.h - one scalar value outside a row: what expressions evaluate to.
 *
 * A Value has no type of its own; the static DataType of the expression that
 * produced it says how to read it (see type.h for encodings):
 *   integers, BOOLEAN, DECIMAL (scaled), DATE, TIME, TIMESTAMP*, INTERVAL -> i
 *   FLOAT, DOUBLE -> d
 *   CHAR, VARCHAR, BINARY, VARBINARY, MAP -> s (pointer + length, not
 *   NUL-terminated; the memory belongs to the row or arena it came from; a
 *   MAP's bytes are its map.h encoding)
 */
#ifndef JOINERY_BASE_VALUE_H
#define JOINERY_BASE_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"

typedef struct Value {
    bool is_null;
    union {
        int64_t i;
        double d;
        struct {
            const char *ptr;
            uint32_t len;
        } s;
    };
} Value;

static inline Value value_null(void)
{
    Value value;
    value.is_null = true;
    value.i = 0;
    return value;
}

static inline Value value_int(int64_t i)
{
    Value value;
    value.is_null = false;
    value.i = i;
    return value;
}

static inline Value value_double(double d)
{
    Value value;
    value.is_null = false;
    value.d = d;
    return value;
}

static inline Value value_string(const char *ptr, uint32_t len)
{
    Value value;
    value.is_null = false;
    value.s.ptr = ptr;
    value.s.len = len;
    return value;
}

/* Reads field `field` of `row`, of type `type`, without copying strings. */
Value value_from_row(const Row *row, uint32_t field, DataType type);
/* Writes the value into field `field` of the row being built. */
void value_to_builder(RowBuilder *builder, uint32_t field, DataType type, Value value);

/*
 * Parses text (as found in CSV, JSON strings, CAST(string AS type)) into a
 * value of `type`. Strings are copied into `arena` when arena is not NULL,
 * else they point into `text`. Returns 0, or -1 with a short reason written
 * into `error` (size error_size) when the text is not a valid `type`.
 * BINARY/VARBINARY take the text's bytes as they are; MAP is an error.
 * Accepted: integers with optional sign; decimals "12.5", "-3", "1e3" for
 * DOUBLE; booleans true/false (any case); DATE "YYYY-MM-DD"; TIME
 * "HH:MM:SS[.fff]"; TIMESTAMP "YYYY-MM-DD[ T]HH:MM[:SS[.fff...]][Z]".
 */
int value_parse_text(DataType type, const char *text, uint32_t length, Arena *arena, Value *result,
                     char *error, size_t error_size);

/*
 * Appends the SQL text form of the value as Flink's SQL client prints it:
 * "<NULL>" is NOT written for NULL (callers decide); DECIMAL with exactly
 * `scale` digits; DOUBLE in shortest round-trip form ("1.5", "1.0E10");
 * TIMESTAMP "YYYY-MM-DD HH:MM:SS.fff" (fraction to the type precision, at
 * most 3 digits); BOOLEAN "TRUE"/"FALSE"; BINARY/VARBINARY "x'0a1b'"; MAP
 * "{k1=v1, k2=v2}" in key order (a NULL key or value as "null").
 * Returns 0 or -1 (no memory).
 */
int value_format_text(DataType type, Value value, StrBuf *out);

/* Three-way comparison of two non-NULL values of the same type (strings and
   bytes: unsigned bytes, then length; a MAP's encodings compare as bytes). */
int value_compare(DataType type, Value a, Value b);

/* Days since 1970-01-01 for a proleptic Gregorian date. */
int64_t datetime_days_from_civil(int64_t year, unsigned month, unsigned day);
/* Inverse of datetime_days_from_civil. */
void datetime_civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day);
/* Current wall-clock time in epoch milliseconds. */
int64_t datetime_now_millis(void);
/* Monotonic clock in nanoseconds (for metrics and processing time). */
int64_t datetime_monotonic_nanos(void);

/* Narrows a two's complement 64-bit pattern to an integer type's width, as Java's casts
   and arithmetic do (BIGINT is returned unchanged). */
int64_t value_wrap_integer(TypeId id, uint64_t bits);
/* 10^n for 0 <= n <= 18. */
int64_t decimal_power_of_ten(int n);
/* Rescales a DECIMAL value from scale `from` to scale `to` (rounding half up). */
bool decimal_rescale(int64_t value, int from, int to, int64_t *result);

#endif
