/*
 * check_row.c - Check suite for the row format and scalar values
 * (engine/base/row.c, value.c, duration.c, type.c).
 *
 * - Rows: the builder's byte layout (header, null bitmap over 64-field
 *   words, 8-byte slots, the string tail in field order, zero padding to
 *   8 bytes), the canonical form (equal content gives equal bytes and hash
 *   whatever the kind; -0.0 is stored as 0.0; NULL slots are zero), copies,
 *   field copies and builder reuse across rows of different shapes.
 * - Values: reading and writing every type through rows, value_parse_text
 *   and value_format_text for every type as Flink's SQL client spells it
 *   (DECIMAL scales, timestamp precision, Java-style doubles such as 1.0E10
 *   and 1200.0, intervals), comparison, dates and decimal rescaling.
 * - Durations as options and hints write them, and back.
 * - Types: type_common widening (symmetric, nullability, time attributes)
 *   and type_format spellings.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/binary.h"
#include "engine/base/duration.h"
#include "engine/base/map.h"
#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"

/* ---- helpers ---- */

static DataType t_int(void)
{
    return type_make(TYPE_INT, true);
}

static DataType t_string(void)
{
    return type_make(TYPE_VARCHAR, true);
}

/* Formats `value` of `type` into a static buffer ("" for NULL). */
static const char *format_value(DataType type, Value value)
{
    static char text[256];
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(value_format_text(type, value, &out), 0);
    snprintf(text, sizeof text, "%s", strbuf_cstr(&out));
    strbuf_free(&out);
    return text;
}

/* Parses `text` as `type`; asserts success and returns the value. */
static Value parse_ok(DataType type, const char *text)
{
    Value value;
    char error[128] = "";
    int status =
        value_parse_text(type, text, (uint32_t)strlen(text), NULL, &value, error, sizeof error);
    ck_assert_msg(status == 0, "'%s' did not parse: %s", text, error);
    ck_assert(!value.is_null);
    return value;
}

/* Parses `text` as `type`; asserts failure and returns the error text. */
static const char *parse_error(DataType type, const char *text)
{
    static char error[128];
    Value value;
    error[0] = '\0';
    int status =
        value_parse_text(type, text, (uint32_t)strlen(text), NULL, &value, error, sizeof error);
    ck_assert_msg(status == -1, "'%s' parsed but should not", text);
    return error;
}

/* Parses then formats: the text form Flink would print for the input. */
static const char *round_trip(DataType type, const char *text)
{
    return format_value(type, parse_ok(type, text));
}

static const char *format_type(DataType type)
{
    static char text[96];
    return type_format(type, text, sizeof text);
}

/* ---- row layout ---- */

START_TEST(test_builder_layout)
{
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, 3, ROW_KIND_UPDATE_AFTER);
    row_builder_set_int64(&builder, 0, -7);
    row_builder_set_null(&builder, 1);
    row_builder_set_string(&builder, 2, "hello", 5);
    Row *row = row_builder_finish(&builder);
    ck_assert_ptr_nonnull(row);
    /* header 8 + bitmap 8 + 3 slots 24 = 40, then "hello" and 3 zero bytes */
    ck_assert_uint_eq(row_fixed_size(3), 40);
    ck_assert_uint_eq(row_size(row), 48);
    ck_assert_uint_eq(row_field_count(row), 3);
    ck_assert_int_eq(row_kind(row), ROW_KIND_UPDATE_AFTER);
    ck_assert_uint_eq(row->header.reserved, 0);
    ck_assert_uint_eq(((uintptr_t)row) % 8, 0);
    ck_assert_uint_eq(row->words[0], 2); /* bit 1: field 1 is NULL */
    ck_assert(!row_is_null(row, 0));
    ck_assert(row_is_null(row, 1));
    ck_assert(!row_is_null(row, 2));
    ck_assert_int_eq(row_get_int64(row, 0), -7);
    ck_assert_uint_eq(row_get_slot(row, 1), 0);
    ck_assert_uint_eq(row_get_slot(row, 2), ((uint64_t)40 << 32) | 5);
    uint32_t length;
    const char *text = row_get_string(row, 2, &length);
    ck_assert_uint_eq(length, 5);
    ck_assert_int_eq(memcmp(text, "hello", 5), 0);
    ck_assert_ptr_eq(text, (const char *)row + 40);
    const uint8_t *bytes = (const uint8_t *)row;
    for (uint32_t i = 45; i < 48; i++)
        ck_assert_uint_eq(bytes[i], 0);
    ck_assert_str_eq(row_kind_name(ROW_KIND_INSERT), "+I");
    ck_assert_str_eq(row_kind_name(ROW_KIND_UPDATE_BEFORE), "-U");
    ck_assert_str_eq(row_kind_name(ROW_KIND_UPDATE_AFTER), "+U");
    ck_assert_str_eq(row_kind_name(ROW_KIND_DELETE), "-D");
    ck_assert(row_kind_is_accumulate(ROW_KIND_INSERT));
    ck_assert(row_kind_is_accumulate(ROW_KIND_UPDATE_AFTER));
    ck_assert(!row_kind_is_accumulate(ROW_KIND_UPDATE_BEFORE));
    ck_assert(!row_kind_is_accumulate(ROW_KIND_DELETE));
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_builder_many_fields_and_empty_rows)
{
    RowBuilder builder;
    row_builder_init(&builder);
    /* 65 fields: two bitmap words; field 64 is bit 0 of the second */
    row_builder_begin(&builder, 65, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < 65; i++) {
        if (i == 3 || i == 64)
            row_builder_set_null(&builder, i);
        else
            row_builder_set_int64(&builder, i, i);
    }
    Row *row = row_builder_finish(&builder);
    ck_assert_ptr_nonnull(row);
    ck_assert_uint_eq(row_bitmap_words(65), 2);
    ck_assert_uint_eq(row_size(row), 8 + 16 + 65 * 8);
    ck_assert_uint_eq(row->words[0], (uint64_t)1 << 3);
    ck_assert_uint_eq(row->words[1], 1);
    ck_assert(row_is_null(row, 64));
    ck_assert(!row_is_null(row, 63));
    ck_assert_int_eq(row_get_int64(row, 63), 63);
    /* 64 fields still fit one bitmap word */
    ck_assert_uint_eq(row_bitmap_words(64), 1);
    ck_assert_uint_eq(row_bitmap_words(0), 0);
    /* a row of no fields is just its header */
    row_builder_begin(&builder, 0, ROW_KIND_DELETE);
    row = row_builder_finish(&builder);
    ck_assert_ptr_nonnull(row);
    ck_assert_uint_eq(row_size(row), 8);
    ck_assert_int_eq(row_kind(row), ROW_KIND_DELETE);
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_strings_in_tail_in_field_order)
{
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, 4, ROW_KIND_INSERT);
    row_builder_set_string(&builder, 0, "ab", 2);
    row_builder_set_string(&builder, 1, "", 0);
    row_builder_set_null(&builder, 2);
    row_builder_set_string(&builder, 3, "cdefghij", 8);
    Row *row = row_builder_finish(&builder);
    uint32_t fixed = row_fixed_size(4); /* 48 */
    ck_assert_uint_eq(row_get_slot(row, 0), ((uint64_t)fixed << 32) | 2);
    ck_assert_uint_eq(row_get_slot(row, 1), ((uint64_t)(fixed + 2) << 32) | 0);
    ck_assert_uint_eq(row_get_slot(row, 3), ((uint64_t)(fixed + 2) << 32) | 8);
    ck_assert_uint_eq(row_size(row), fixed + 16); /* 10 tail bytes padded to 16 */
    uint32_t length = 99;
    row_get_string(row, 1, &length);
    ck_assert_uint_eq(length, 0);
    const char *text = row_get_string(row, 3, &length);
    ck_assert_int_eq(memcmp(text, "cdefghij", 8), 0);
    /* a long string grows the buffer; the earlier fields stay intact */
    char big[3000];
    memset(big, 'x', sizeof big);
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    row_builder_set_string(&builder, 0, "head", 4);
    row_builder_set_string(&builder, 1, big, sizeof big);
    row = row_builder_finish(&builder);
    ck_assert_ptr_nonnull(row);
    ck_assert_uint_eq(row_size(row), row_fixed_size(2) + 3008);
    text = row_get_string(row, 0, &length);
    ck_assert_uint_eq(length, 4);
    ck_assert_int_eq(memcmp(text, "head", 4), 0);
    text = row_get_string(row, 1, &length);
    ck_assert_uint_eq(length, sizeof big);
    ck_assert_int_eq(memcmp(text, big, sizeof big), 0);
    row_builder_free(&builder);
}
END_TEST

/* ---- canonical form ---- */

static Row *build_mixed(RowBuilder *builder, RowKind kind, int64_t id, const char *name,
                        double score)
{
    row_builder_begin(builder, 4, kind);
    row_builder_set_int64(builder, 0, id);
    if (name)
        row_builder_set_string(builder, 1, name, (uint32_t)strlen(name));
    else
        row_builder_set_null(builder, 1);
    row_builder_set_double(builder, 2, score);
    row_builder_set_null(builder, 3);
    return row_copy_heap(row_builder_finish(builder));
}

START_TEST(test_canonical_equal_content_equal_bytes)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *a = build_mixed(&builder, ROW_KIND_INSERT, 42, "alice", 1.5);
    /* a different earlier row in the same builder leaves no trace */
    Row *noise = build_mixed(&builder, ROW_KIND_INSERT, -1, "a much longer name here", -8.25);
    Row *b = build_mixed(&builder, ROW_KIND_DELETE, 42, "alice", 1.5);
    ck_assert_uint_eq(row_size(a), row_size(b));
    ck_assert_int_eq(memcmp((uint8_t *)a + 8, (uint8_t *)b + 8, row_size(a) - 8), 0);
    ck_assert(row_content_equals(a, b));
    ck_assert_uint_eq(row_content_hash(a), row_content_hash(b));
    ck_assert(!row_content_equals(a, noise));
    /* kind ignored; any content difference is seen */
    Row *c = build_mixed(&builder, ROW_KIND_INSERT, 43, "alice", 1.5);
    Row *d = build_mixed(&builder, ROW_KIND_INSERT, 42, "alicf", 1.5);
    Row *e = build_mixed(&builder, ROW_KIND_INSERT, 42, NULL, 1.5);
    Row *f = build_mixed(&builder, ROW_KIND_INSERT, 42, "", 1.5);
    ck_assert(!row_content_equals(a, c));
    ck_assert(!row_content_equals(a, d));
    ck_assert(!row_content_equals(a, e));
    ck_assert(!row_content_equals(e, f)); /* NULL is not the empty string */
    ck_assert_uint_ne(row_content_hash(a), row_content_hash(c));
    ck_assert_uint_ne(row_content_hash(a), row_content_hash(d));
    ck_assert_uint_ne(row_content_hash(e), row_content_hash(f));
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
    free(f);
    free(noise);
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_canonical_string_boundaries_and_nulls)
{
    RowBuilder builder;
    row_builder_init(&builder);
    /* ("ab","c") and ("a","bc") have the same tail bytes but differ */
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    row_builder_set_string(&builder, 0, "ab", 2);
    row_builder_set_string(&builder, 1, "c", 1);
    Row *a = row_copy_heap(row_builder_finish(&builder));
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    row_builder_set_string(&builder, 0, "a", 1);
    row_builder_set_string(&builder, 1, "bc", 2);
    Row *b = row_copy_heap(row_builder_finish(&builder));
    ck_assert(!row_content_equals(a, b));
    /* NULL versus 0: the slot is zero either way, the bitmap differs */
    row_builder_begin(&builder, 1, ROW_KIND_INSERT);
    row_builder_set_int64(&builder, 0, 0);
    Row *zero = row_copy_heap(row_builder_finish(&builder));
    row_builder_begin(&builder, 1, ROW_KIND_INSERT);
    row_builder_set_null(&builder, 0);
    Row *null = row_copy_heap(row_builder_finish(&builder));
    ck_assert_uint_eq(row_get_slot(null, 0), 0);
    ck_assert(!row_content_equals(zero, null));
    /* setting NULL over an earlier value of the same field zeroes the slot */
    row_builder_begin(&builder, 1, ROW_KIND_INSERT);
    row_builder_set_int64(&builder, 0, 12345);
    row_builder_set_null(&builder, 0);
    Row *overwritten = row_builder_finish(&builder);
    ck_assert(row_content_equals(overwritten, null));
    /* rows of different widths never compare equal */
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    row_builder_set_null(&builder, 0);
    row_builder_set_null(&builder, 1);
    ck_assert(!row_content_equals(row_builder_finish(&builder), null));
    free(a);
    free(b);
    free(zero);
    free(null);
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_negative_zero_normalised)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *positive = build_mixed(&builder, ROW_KIND_INSERT, 1, "k", 0.0);
    Row *negative = build_mixed(&builder, ROW_KIND_INSERT, 1, "k", -0.0);
    ck_assert(row_content_equals(positive, negative));
    ck_assert_uint_eq(row_content_hash(positive), row_content_hash(negative));
    ck_assert(!signbit(row_get_double(negative, 2)));
    ck_assert_uint_eq(row_get_slot(negative, 2), 0);
    /* through value_to_builder for DOUBLE and FLOAT too */
    row_builder_begin(&builder, 2, ROW_KIND_INSERT);
    value_to_builder(&builder, 0, type_make(TYPE_DOUBLE, true), value_double(-0.0));
    value_to_builder(&builder, 1, type_make(TYPE_FLOAT, true), value_double(-0.0));
    Row *row = row_builder_finish(&builder);
    ck_assert_uint_eq(row_get_slot(row, 0), 0);
    ck_assert_uint_eq(row_get_slot(row, 1), 0);
    free(positive);
    free(negative);
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_copies)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *source = build_mixed(&builder, ROW_KIND_UPDATE_BEFORE, 9, "copy me", 2.25);
    Arena arena;
    arena_init(&arena, 0);
    Row *in_arena = row_copy(&arena, source);
    ck_assert_ptr_nonnull(in_arena);
    ck_assert_int_eq(memcmp(in_arena, source, row_size(source)), 0);
    ck_assert_int_eq(row_kind(in_arena), ROW_KIND_UPDATE_BEFORE);
    /* strings are found through offsets, so a copy reads its own bytes */
    uint32_t length;
    const char *text = row_get_string(in_arena, 1, &length);
    ck_assert_ptr_eq(text, (const char *)in_arena + (row_get_slot(in_arena, 1) >> 32));
    ck_assert_int_eq(memcmp(text, "copy me", length), 0);
    /* the kind can change; the content equality does not */
    row_set_kind(in_arena, ROW_KIND_UPDATE_AFTER);
    ck_assert_int_eq(row_kind(in_arena), ROW_KIND_UPDATE_AFTER);
    ck_assert_int_eq(row_kind(source), ROW_KIND_UPDATE_BEFORE);
    ck_assert(row_content_equals(in_arena, source));
    /* field copies: ints, doubles, strings and NULLs, reordered */
    row_builder_begin(&builder, 4, ROW_KIND_INSERT);
    row_builder_copy_field(&builder, 0, source, 1, true);
    row_builder_copy_field(&builder, 1, source, 3, false);
    row_builder_copy_field(&builder, 2, source, 0, false);
    row_builder_copy_field(&builder, 3, source, 2, false);
    Row *shuffled = row_builder_finish(&builder);
    text = row_get_string(shuffled, 0, &length);
    ck_assert_uint_eq(length, 7);
    ck_assert_int_eq(memcmp(text, "copy me", 7), 0);
    ck_assert(row_is_null(shuffled, 1));
    ck_assert_int_eq(row_get_int64(shuffled, 2), 9);
    ck_assert_double_eq(row_get_double(shuffled, 3), 2.25);
    /* copying every field in order reproduces the row byte for byte */
    row_builder_begin(&builder, 4, ROW_KIND_UPDATE_BEFORE);
    for (uint32_t i = 0; i < 4; i++)
        row_builder_copy_field(&builder, i, source, i, i == 1);
    Row *same = row_builder_finish(&builder);
    ck_assert_int_eq(memcmp(same, source, row_size(source)), 0);
    arena_destroy(&arena);
    free(source);
    row_builder_free(&builder);
}
END_TEST

/* ---- values through rows ---- */

START_TEST(test_values_through_rows)
{
    DataType types[] = {
        type_make(TYPE_BOOLEAN, true),
        type_make(TYPE_TINYINT, true),
        type_make(TYPE_BIGINT, true),
        type_make(TYPE_FLOAT, true),
        type_make(TYPE_DOUBLE, true),
        type_make_decimal(10, 2, true),
        t_string(),
        type_make(TYPE_DATE, true),
        type_make_timestamp(TYPE_TIMESTAMP, 3, true),
        t_int(),
    };
    Value values[] = {
        value_int(1),          value_int(-128),        value_int(INT64_MIN),
        value_double(0.1),     value_double(-2.5e300), value_int(-12345),
        value_string("zz", 2), value_int(-1),          value_int(1700000000123),
        value_null(),
    };
    uint32_t count = sizeof types / sizeof types[0];
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, count, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < count; i++)
        value_to_builder(&builder, i, types[i], values[i]);
    Row *row = row_builder_finish(&builder);
    for (uint32_t i = 0; i < count; i++) {
        Value read = value_from_row(row, i, types[i]);
        ck_assert_int_eq(read.is_null, values[i].is_null);
        if (read.is_null)
            continue;
        if (types[i].id == TYPE_FLOAT) /* rounded to float on store */
            ck_assert_double_eq(read.d, (double)(float)0.1);
        else if (types[i].id == TYPE_DOUBLE)
            ck_assert_double_eq(read.d, values[i].d);
        else if (type_is_variable_length(types[i].id))
            ck_assert(read.s.len == 2 && memcmp(read.s.ptr, "zz", 2) == 0);
        else
            ck_assert_int_eq(read.i, values[i].i);
    }
    ck_assert(row_is_null(row, count - 1));
    row_builder_free(&builder);
}
END_TEST

/* ---- value_parse_text ---- */

START_TEST(test_parse_booleans_and_integers)
{
    DataType boolean = type_make(TYPE_BOOLEAN, true);
    ck_assert_int_eq(parse_ok(boolean, "true").i, 1);
    ck_assert_int_eq(parse_ok(boolean, "FALSE").i, 0);
    ck_assert_int_eq(parse_ok(boolean, " True ").i, 1);
    ck_assert_str_eq(parse_error(boolean, "yes"), "not a valid BOOLEAN");
    ck_assert_str_eq(parse_error(boolean, "1"), "not a valid BOOLEAN");
    ck_assert_int_eq(parse_ok(t_int(), "42").i, 42);
    ck_assert_int_eq(parse_ok(t_int(), " -17 ").i, -17);
    ck_assert_int_eq(parse_ok(t_int(), "+7").i, 7);
    ck_assert_int_eq(parse_ok(t_int(), "2147483647").i, 2147483647);
    ck_assert_int_eq(parse_ok(t_int(), "-2147483648").i, -2147483648LL);
    ck_assert_str_eq(parse_error(t_int(), "2147483648"), "out of range for INT");
    ck_assert_str_eq(parse_error(t_int(), "12a"), "not a valid INT");
    ck_assert_str_eq(parse_error(t_int(), ""), "not a valid INT");
    ck_assert_str_eq(parse_error(t_int(), "1.5"), "not a valid INT");
    ck_assert_str_eq(parse_error(t_int(), "0x10"), "not a valid INT");
    DataType tiny = type_make(TYPE_TINYINT, false);
    ck_assert_int_eq(parse_ok(tiny, "127").i, 127);
    ck_assert_int_eq(parse_ok(tiny, "-128").i, -128);
    ck_assert_str_eq(parse_error(tiny, "128"), "out of range for TINYINT NOT NULL");
    DataType small = type_make(TYPE_SMALLINT, true);
    ck_assert_int_eq(parse_ok(small, "-32768").i, -32768);
    ck_assert_str_eq(parse_error(small, "32768"), "out of range for SMALLINT");
    DataType big = type_make(TYPE_BIGINT, true);
    ck_assert_int_eq(parse_ok(big, "9223372036854775807").i, INT64_MAX);
    ck_assert_int_eq(parse_ok(big, "-9223372036854775808").i, INT64_MIN);
    parse_error(big, "9223372036854775808");
}
END_TEST

START_TEST(test_parse_doubles)
{
    DataType type = type_make(TYPE_DOUBLE, true);
    ck_assert_double_eq(parse_ok(type, "12.5").d, 12.5);
    ck_assert_double_eq(parse_ok(type, "-3").d, -3.0);
    ck_assert_double_eq(parse_ok(type, "1e3").d, 1000.0);
    ck_assert_double_eq(parse_ok(type, "1.0E10").d, 1e10);
    ck_assert_double_eq(parse_ok(type, " .5 ").d, 0.5);
    ck_assert_str_eq(parse_error(type, "abc"), "not a valid DOUBLE");
    ck_assert_str_eq(parse_error(type, "1.5x"), "not a valid DOUBLE");
    ck_assert_str_eq(parse_error(type, ""), "not a valid DOUBLE");
    ck_assert_str_eq(parse_error(type_make(TYPE_FLOAT, true), "-"), "not a valid FLOAT");
}
END_TEST

START_TEST(test_parse_decimals)
{
    DataType type = type_make_decimal(5, 2, true);
    ck_assert_int_eq(parse_ok(type, "12.5").i, 1250);
    ck_assert_int_eq(parse_ok(type, "-3").i, -300);
    ck_assert_int_eq(parse_ok(type, "+0.07").i, 7);
    ck_assert_int_eq(parse_ok(type, ".5").i, 50);
    ck_assert_int_eq(parse_ok(type, "5.").i, 500);
    ck_assert_int_eq(parse_ok(type, "999.99").i, 99999);
    ck_assert_int_eq(parse_ok(type, "00012.5").i, 1250); /* leading zeros are no digits */
    /* extra digits round half up (away from zero) */
    ck_assert_int_eq(parse_ok(type, "1.005").i, 101);
    ck_assert_int_eq(parse_ok(type, "1.00499").i, 100);
    ck_assert_int_eq(parse_ok(type, "-1.005").i, -101);
    /* too many integer digits for DECIMAL(5, 2) */
    ck_assert_str_eq(parse_error(type, "1234.5"), "not a valid DECIMAL(5, 2)");
    parse_error(type, "");
    parse_error(type, "-");
    parse_error(type, "1e3");
    parse_error(type, "1.2.3");
    DataType whole = type_make_decimal(18, 0, true);
    ck_assert_int_eq(parse_ok(whole, "999999999999999999").i, 999999999999999999LL);
    ck_assert_int_eq(parse_ok(whole, "2.5").i, 3);
    parse_error(whole, "9999999999999999999");
    DataType fine = type_make_decimal(18, 17, true);
    ck_assert_int_eq(parse_ok(fine, "0.12345678901234567").i, 12345678901234567LL);
}
END_TEST

START_TEST(test_parse_dates_and_times)
{
    DataType date = type_make(TYPE_DATE, true);
    ck_assert_int_eq(parse_ok(date, "1970-01-01").i, 0);
    ck_assert_int_eq(parse_ok(date, "2024-01-01").i, 19723);
    ck_assert_int_eq(parse_ok(date, "2024-02-29").i, 19782);
    ck_assert_int_eq(parse_ok(date, "1969-12-31").i, -1);
    ck_assert_str_eq(parse_error(date, "2023-02-29"), "not a valid DATE");
    parse_error(date, "2024-13-01");
    parse_error(date, "2024-1-01");
    parse_error(date, "2024-01-01 00:00");
    DataType time = type_make(TYPE_TIME, true);
    ck_assert_int_eq(parse_ok(time, "12:34:56.789").i, 45296789);
    ck_assert_int_eq(parse_ok(time, "12:34").i, 45240000);
    ck_assert_int_eq(parse_ok(time, "00:00:00.5").i, 500);
    ck_assert_int_eq(parse_ok(time, "23:59:59.999999").i, 86399999);
    parse_error(time, "24:00:00");
    parse_error(time, "12:60");
    parse_error(time, "12:34:56.");
    DataType ts = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    int64_t base = 19724LL * 86400000; /* 2024-01-02 */
    ck_assert_int_eq(parse_ok(ts, "2024-01-02 03:04:05.123").i, base + 11045123);
    ck_assert_int_eq(parse_ok(ts, "2024-01-02T03:04:05.123456Z").i, base + 11045123);
    ck_assert_int_eq(parse_ok(ts, "2024-01-02 03:04").i, base + 11040000);
    ck_assert_int_eq(parse_ok(ts, "2024-01-02").i, base);
    ck_assert_int_eq(parse_ok(ts, "1969-12-31 23:59:59.999").i, -1);
    ck_assert_str_eq(parse_error(ts, "2024-01-02X"), "not a valid TIMESTAMP(3)");
    parse_error(ts, "2024-01-02 3:04:05");
    parse_error(type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, true), "yesterday");
}
END_TEST

START_TEST(test_parse_strings_and_others)
{
    /* strings are not trimmed; with an arena they are copied */
    char text[] = " a b ";
    Value value;
    char error[64];
    ck_assert_int_eq(value_parse_text(t_string(), text, 5, NULL, &value, error, sizeof error), 0);
    ck_assert_ptr_eq(value.s.ptr, text);
    ck_assert_uint_eq(value.s.len, 5);
    Arena arena;
    arena_init(&arena, 0);
    ck_assert_int_eq(value_parse_text(t_string(), text, 5, &arena, &value, error, sizeof error), 0);
    ck_assert_ptr_ne(value.s.ptr, text);
    ck_assert_int_eq(memcmp(value.s.ptr, " a b ", 5), 0);
    ck_assert_int_eq(
        value_parse_text(type_make(TYPE_CHAR, true), "", 0, &arena, &value, error, sizeof error),
        0);
    ck_assert_uint_eq(value.s.len, 0);
    arena_destroy(&arena);
    /* the NULL type parses to NULL; intervals cannot be parsed from text */
    ck_assert_int_eq(
        value_parse_text(type_make(TYPE_NULL, true), "x", 1, NULL, &value, error, sizeof error), 0);
    ck_assert(value.is_null);
    ck_assert_str_eq(parse_error(type_make(TYPE_INTERVAL_DAY_TIME, true), "1"),
                     "cannot parse text as INTERVAL SECOND(3)");
    parse_error(type_make(TYPE_INTERVAL_YEAR_MONTH, true), "1");
}
END_TEST

/* ---- value_format_text ---- */

START_TEST(test_format_scalars)
{
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(value_format_text(t_int(), value_null(), &out), 0);
    ck_assert_uint_eq(out.length, 0); /* NULL writes nothing */
    strbuf_free(&out);
    ck_assert_str_eq(format_value(type_make(TYPE_BOOLEAN, true), value_int(1)), "TRUE");
    ck_assert_str_eq(format_value(type_make(TYPE_BOOLEAN, true), value_int(0)), "FALSE");
    ck_assert_str_eq(format_value(t_int(), value_int(-42)), "-42");
    ck_assert_str_eq(format_value(type_make(TYPE_BIGINT, true), value_int(INT64_MIN)),
                     "-9223372036854775808");
    ck_assert_str_eq(format_value(t_string(), value_string("a,b\"c", 5)), "a,b\"c");
    ck_assert_str_eq(format_value(t_string(), value_string("xyz", 2)), "xy");
    ck_assert_str_eq(round_trip(type_make(TYPE_BOOLEAN, true), "true"), "TRUE");
}
END_TEST

START_TEST(test_format_decimals)
{
    DataType two = type_make_decimal(10, 2, true);
    ck_assert_str_eq(format_value(two, value_int(1250)), "12.50");
    ck_assert_str_eq(format_value(two, value_int(-5)), "-0.05");
    ck_assert_str_eq(format_value(two, value_int(0)), "0.00");
    ck_assert_str_eq(format_value(two, value_int(-100)), "-1.00");
    ck_assert_str_eq(format_value(type_make_decimal(10, 0, true), value_int(-42)), "-42");
    ck_assert_str_eq(format_value(type_make_decimal(18, 3, true), value_int(-1)), "-0.001");
    ck_assert_str_eq(format_value(type_make_decimal(18, 3, true), value_int(INT64_MIN)),
                     "-9223372036854775.808");
    ck_assert_str_eq(format_value(type_make_decimal(18, 18, true), value_int(5)),
                     "0.000000000000000005");
    ck_assert_str_eq(round_trip(type_make_decimal(5, 2, true), "12.5"), "12.50");
    ck_assert_str_eq(round_trip(type_make_decimal(5, 2, true), "-0.125"), "-0.13");
    ck_assert_str_eq(round_trip(type_make_decimal(5, 0, true), "7"), "7");
}
END_TEST

START_TEST(test_format_doubles_java_style)
{
    DataType type = type_make(TYPE_DOUBLE, true);
    static const struct {
        double value;
        const char *text;
    } cases[] = {
        {1.5, "1.5"},
        {1200.0, "1200.0"},
        {100.0, "100.0"},
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {0.1, "0.1"},
        {-2.5, "-2.5"},
        {1.0 / 3, "0.3333333333333333"},
        {0.001, "0.001"},
        {9999999.0, "9999999.0"},
        {1e7, "1.0E7"},
        {1e10, "1.0E10"},
        {12345678.0, "1.2345678E7"},
        {123456789.123, "1.23456789123E8"},
        {1e21, "1.0E21"},
        {1e-4, "1.0E-4"},
        {1.2e-4, "1.2E-4"},
        {2.5e-5, "2.5E-5"},
        {-1.5e-7, "-1.5E-7"},
        {1.7976931348623157e308, "1.7976931348623157E308"},
        {NAN, "NaN"},
        {INFINITY, "Infinity"},
        {-INFINITY, "-Infinity"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_str_eq(format_value(type, value_double(cases[i].value)), cases[i].text);
    /* the printed text parses back to the same double */
    double samples[] = {0.1, 1.0 / 3, 123456789.123, 2.5e-5, 6.02214076e23, -7.77e-300};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "%s", format_value(type, value_double(samples[i])));
        ck_assert_double_eq(parse_ok(type, text).d, samples[i]);
    }
    ck_assert_str_eq(round_trip(type, "1e10"), "1.0E10");
    ck_assert_str_eq(round_trip(type, "1200"), "1200.0");
    /* FLOAT values whose float and double forms agree */
    DataType real = type_make(TYPE_FLOAT, true);
    ck_assert_str_eq(format_value(real, value_double(1.5)), "1.5");
    ck_assert_str_eq(format_value(real, value_double(1e10)), "1.0E10");
}
END_TEST

START_TEST(test_format_temporal)
{
    ck_assert_str_eq(format_value(type_make(TYPE_DATE, true), value_int(0)), "1970-01-01");
    ck_assert_str_eq(format_value(type_make(TYPE_DATE, true), value_int(19782)), "2024-02-29");
    ck_assert_str_eq(format_value(type_make(TYPE_DATE, true), value_int(-719162)), "0001-01-01");
    ck_assert_str_eq(format_value(type_make(TYPE_TIME, true), value_int(45296789)), "12:34:56");
    int64_t millis = 19724LL * 86400000 + 11045123; /* 2024-01-02 03:04:05.123 */
    ck_assert_str_eq(format_value(type_make_timestamp(TYPE_TIMESTAMP, 3, true), value_int(millis)),
                     "2024-01-02 03:04:05.123");
    ck_assert_str_eq(format_value(type_make_timestamp(TYPE_TIMESTAMP, 0, true), value_int(millis)),
                     "2024-01-02 03:04:05");
    ck_assert_str_eq(format_value(type_make_timestamp(TYPE_TIMESTAMP, 1, true), value_int(millis)),
                     "2024-01-02 03:04:05.1");
    ck_assert_str_eq(format_value(type_make_timestamp(TYPE_TIMESTAMP, 2, true), value_int(millis)),
                     "2024-01-02 03:04:05.12");
    /* precision above 3 prints at most 3 digits (values are kept to the ms) */
    ck_assert_str_eq(format_value(type_make_timestamp(TYPE_TIMESTAMP, 6, true), value_int(millis)),
                     "2024-01-02 03:04:05.123");
    ck_assert_str_eq(
        format_value(type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, true), value_int(millis - 123)),
        "2024-01-02 03:04:05.000");
    /* before the epoch */
    ck_assert_str_eq(format_value(type_make_timestamp(TYPE_TIMESTAMP, 3, true), value_int(-1)),
                     "1969-12-31 23:59:59.999");
    ck_assert_str_eq(
        format_value(type_make_timestamp(TYPE_TIMESTAMP, 3, true), value_int(-86400000)),
        "1969-12-31 00:00:00.000");
    ck_assert_str_eq(round_trip(type_make_timestamp(TYPE_TIMESTAMP, 3, true), "2024-01-02T03:04Z"),
                     "2024-01-02 03:04:00.000");
    ck_assert_str_eq(round_trip(type_make(TYPE_DATE, true), "2000-02-29"), "2000-02-29");
    /* intervals */
    DataType day_time = type_make(TYPE_INTERVAL_DAY_TIME, true);
    ck_assert_str_eq(format_value(day_time, value_int(90061001)), "+1 01:01:01.001");
    ck_assert_str_eq(format_value(day_time, value_int(-5000)), "-0 00:00:05.000");
    DataType year_month = type_make(TYPE_INTERVAL_YEAR_MONTH, true);
    ck_assert_str_eq(format_value(year_month, value_int(14)), "+1-02");
    ck_assert_str_eq(format_value(year_month, value_int(-14)), "-1-02");
    ck_assert_str_eq(format_value(year_month, value_int(0)), "+0-00");
}
END_TEST

/* ---- comparison, dates, decimals ---- */

START_TEST(test_compare_and_arithmetic)
{
    ck_assert_int_eq(value_compare(t_int(), value_int(1), value_int(2)), -1);
    ck_assert_int_eq(value_compare(t_int(), value_int(2), value_int(2)), 0);
    ck_assert_int_eq(value_compare(t_int(), value_int(INT64_MAX), value_int(INT64_MIN)), 1);
    DataType d = type_make(TYPE_DOUBLE, true);
    ck_assert_int_eq(value_compare(d, value_double(-0.5), value_double(0.25)), -1);
    ck_assert_int_eq(value_compare(d, value_double(-0.0), value_double(0.0)), 0);
    ck_assert_int_eq(value_compare(t_string(), value_string("ab", 2), value_string("abc", 3)), -1);
    ck_assert_int_eq(value_compare(t_string(), value_string("b", 1), value_string("abc", 3)), 1);
    ck_assert_int_eq(value_compare(t_string(), value_string("", 0), value_string("", 0)), 0);
    /* bytes compare unsigned: é (0xC3...) sorts after z */
    ck_assert_int_eq(value_compare(t_string(), value_string("\xc3\xa9", 2), value_string("z", 1)),
                     1);
    /* civil dates both ways, across leap years and before the epoch */
    int64_t days[] = {-719162, -1, 0, 59, 11016, 19782, 2932896};
    for (size_t i = 0; i < sizeof days / sizeof days[0]; i++) {
        int64_t year;
        unsigned month, day;
        datetime_civil_from_days(days[i], &year, &month, &day);
        ck_assert_int_eq(datetime_days_from_civil(year, month, day), days[i]);
    }
    ck_assert_int_eq(datetime_days_from_civil(2000, 3, 1) - datetime_days_from_civil(2000, 2, 28),
                     2);
    ck_assert_int_eq(datetime_days_from_civil(1900, 3, 1) - datetime_days_from_civil(1900, 2, 28),
                     1);
    /* decimal rescaling rounds half up, away from zero */
    int64_t result;
    ck_assert(decimal_rescale(12345, 2, 0, &result) && result == 123);
    ck_assert(decimal_rescale(125, 1, 0, &result) && result == 13);
    ck_assert(decimal_rescale(-125, 1, 0, &result) && result == -13);
    ck_assert(decimal_rescale(-124, 1, 0, &result) && result == -12);
    ck_assert(decimal_rescale(7, 0, 3, &result) && result == 7000);
    ck_assert(decimal_rescale(7, 2, 2, &result) && result == 7);
    ck_assert(!decimal_rescale(INT64_MAX / 10, 0, 2, &result));
    ck_assert_int_eq(decimal_power_of_ten(0), 1);
    ck_assert_int_eq(decimal_power_of_ten(18), 1000000000000000000LL);
    ck_assert_int_eq(decimal_power_of_ten(19), 0);
}
END_TEST

/* ---- durations ---- */

START_TEST(test_duration_parse)
{
    static const struct {
        const char *text;
        int64_t millis;
    } cases[] = {
        {"500", 500},
        {"0", 0},
        {"250 ms", 250},
        {"1 milli", 1},
        {"3 milliseconds", 3},
        {"90s", 90000},
        {"90 sec", 90000},
        {"2 seconds", 2000},
        {"30 min", 1800000},
        {"1 minute", 60000},
        {"5 mins", 300000},
        {"1 h", 3600000},
        {"12h", 43200000},
        {"2 hours", 7200000},
        {"1d", 86400000},
        {"7 days", 604800000},
        {" 2 Days ", 172800000},
        {"1 HOUR", 3600000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t millis = -1;
        ck_assert_msg(duration_parse_millis(cases[i].text, &millis) == 0, "'%s' rejected",
                      cases[i].text);
        ck_assert_msg(millis == cases[i].millis, "'%s' gave %lld", cases[i].text,
                      (long long)millis);
    }
    const char *bad[] = {"",
                         "h",
                         "5 parsecs",
                         "-1 s",
                         "1.5 h",
                         "1 h 30 min",
                         "1e3",
                         "99999999999999999999",
                         "9223372036854775807 d"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t millis = 0;
        ck_assert_msg(duration_parse_millis(bad[i], &millis) == -1, "'%s' accepted", bad[i]);
    }
}
END_TEST

START_TEST(test_duration_format)
{
    char buffer[32];
    ck_assert_str_eq(duration_format(0, buffer, sizeof buffer), "0 ms");
    ck_assert_str_eq(duration_format(1500, buffer, sizeof buffer), "1500 ms");
    ck_assert_str_eq(duration_format(90000, buffer, sizeof buffer), "90 s");
    ck_assert_str_eq(duration_format(120000, buffer, sizeof buffer), "2 min");
    ck_assert_str_eq(duration_format(3600000, buffer, sizeof buffer), "1 h");
    ck_assert_str_eq(duration_format(5400000, buffer, sizeof buffer), "90 min");
    ck_assert_str_eq(duration_format(86400000, buffer, sizeof buffer), "1 d");
    ck_assert_str_eq(duration_format(36 * 3600000LL, buffer, sizeof buffer), "36 h");
    /* what is printed parses back */
    int64_t samples[] = {0, 1, 999, 1000, 61000, 3600000, 90061000, 864000000};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        int64_t millis = -1;
        ck_assert_int_eq(
            duration_parse_millis(duration_format(samples[i], buffer, sizeof buffer), &millis), 0);
        ck_assert_int_eq(millis, samples[i]);
    }
}
END_TEST

/* ---- types ---- */

static DataType common(DataType a, DataType b)
{
    DataType ab, ba;
    ck_assert_msg(type_common(a, b, &ab), "no common type of %s", format_type(a));
    ck_assert(type_common(b, a, &ba));
    /* widening is symmetric */
    char first[96];
    snprintf(first, sizeof first, "%s", format_type(ab));
    ck_assert_str_eq(first, format_type(ba));
    return ab;
}

START_TEST(test_type_common_numeric)
{
    DataType tiny = type_make(TYPE_TINYINT, false);
    DataType small = type_make(TYPE_SMALLINT, false);
    DataType integer = type_make(TYPE_INT, false);
    DataType big = type_make(TYPE_BIGINT, false);
    DataType dbl = type_make(TYPE_DOUBLE, false);
    DataType real = type_make(TYPE_FLOAT, false);
    ck_assert_str_eq(format_type(common(integer, big)), "BIGINT NOT NULL");
    ck_assert_str_eq(format_type(common(tiny, small)), "SMALLINT NOT NULL");
    ck_assert_str_eq(format_type(common(tiny, tiny)), "TINYINT NOT NULL");
    ck_assert_str_eq(format_type(common(integer, dbl)), "DOUBLE NOT NULL");
    ck_assert_str_eq(format_type(common(real, real)), "FLOAT NOT NULL");
    ck_assert_str_eq(format_type(common(real, dbl)), "DOUBLE NOT NULL");
    ck_assert_str_eq(format_type(common(type_make_decimal(10, 2, false), dbl)), "DOUBLE NOT NULL");
    ck_assert_str_eq(format_type(common(integer, type_make_decimal(10, 2, false))),
                     "DECIMAL(12, 2) NOT NULL");
    ck_assert_str_eq(format_type(common(tiny, type_make_decimal(4, 3, false))),
                     "DECIMAL(6, 3) NOT NULL");
    ck_assert_str_eq(
        format_type(common(type_make_decimal(5, 1, false), type_make_decimal(7, 4, false))),
        "DECIMAL(8, 4) NOT NULL"); /* 4 integer digits + scale 4 */
    ck_assert_str_eq(
        format_type(common(type_make_decimal(10, 2, false), type_make_decimal(10, 2, false))),
        "DECIMAL(10, 2) NOT NULL");
    /* capped at 18 digits, the scale kept */
    ck_assert_str_eq(format_type(common(big, type_make_decimal(10, 2, false))),
                     "DECIMAL(18, 2) NOT NULL");
    ck_assert_str_eq(
        format_type(common(type_make_decimal(18, 2, false), type_make_decimal(18, 10, false))),
        "DECIMAL(18, 10) NOT NULL");
    /* nullable when either side is */
    ck_assert_str_eq(format_type(common(integer, type_make(TYPE_BIGINT, true))), "BIGINT");
    ck_assert_str_eq(format_type(common(type_make(TYPE_INT, true), integer)), "INT");
}
END_TEST

START_TEST(test_type_common_other)
{
    DataType null = type_make(TYPE_NULL, true);
    ck_assert_str_eq(format_type(common(null, type_make(TYPE_INT, false))), "INT");
    ck_assert_str_eq(format_type(common(null, type_make_varchar(5, false))), "VARCHAR(5)");
    DataType c3 = type_make(TYPE_CHAR, false);
    c3.precision = 3;
    ck_assert_str_eq(format_type(common(c3, type_make_varchar(5, false))), "VARCHAR(5) NOT NULL");
    ck_assert_str_eq(format_type(common(c3, type_make_varchar(2, true))), "VARCHAR(3)");
    ck_assert_str_eq(format_type(common(c3, t_string())), "STRING");
    DataType c5 = c3;
    c5.precision = 5;
    ck_assert_str_eq(format_type(common(c3, c5)), "CHAR(5) NOT NULL");
    DataType ts3 = type_make_timestamp(TYPE_TIMESTAMP, 3, false);
    DataType ltz6 = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 6, false);
    ck_assert_str_eq(format_type(common(ts3, ltz6)), "TIMESTAMP_LTZ(6) NOT NULL");
    ck_assert_str_eq(format_type(common(type_make(TYPE_DATE, true), ts3)), "TIMESTAMP(3)");
    ck_assert_str_eq(format_type(common(ts3, type_make_timestamp(TYPE_TIMESTAMP, 6, false))),
                     "TIMESTAMP(6) NOT NULL");
    /* a time attribute survives only when both sides carry it */
    DataType rowtime = ts3;
    rowtime.time_attribute = TIME_ATTRIBUTE_ROWTIME;
    ck_assert_str_eq(format_type(common(rowtime, rowtime)), "TIMESTAMP(3) NOT NULL *ROWTIME*");
    ck_assert_str_eq(format_type(common(rowtime, ts3)), "TIMESTAMP(3) NOT NULL");
    /* no common type */
    DataType result;
    ck_assert(!type_common(type_make(TYPE_INT, true), t_string(), &result));
    ck_assert(!type_common(t_string(), type_make(TYPE_INT, true), &result));
    ck_assert(!type_common(type_make(TYPE_BOOLEAN, true), type_make(TYPE_INT, true), &result));
    ck_assert(!type_common(type_make(TYPE_DATE, true), type_make(TYPE_TIME, true), &result));
    ck_assert(!type_common(type_make(TYPE_INTERVAL_DAY_TIME, true),
                           type_make(TYPE_INTERVAL_YEAR_MONTH, true), &result));
}
END_TEST

START_TEST(test_type_format_and_classes)
{
    ck_assert_str_eq(format_type(type_make(TYPE_VARCHAR, true)), "STRING");
    ck_assert_str_eq(format_type(type_make_varchar(10, false)), "VARCHAR(10) NOT NULL");
    ck_assert_str_eq(format_type(type_make(TYPE_CHAR, true)), "CHAR(1)");
    ck_assert_str_eq(format_type(type_make(TYPE_DECIMAL, true)), "DECIMAL(10, 0)");
    ck_assert_str_eq(format_type(type_make(TYPE_TIMESTAMP, true)), "TIMESTAMP(6)");
    ck_assert_str_eq(format_type(type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, true)),
                     "TIMESTAMP_LTZ(3)");
    DataType proctime = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, false);
    proctime.time_attribute = TIME_ATTRIBUTE_PROCTIME;
    ck_assert_str_eq(format_type(proctime), "TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*");
    ck_assert_str_eq(format_type(type_make(TYPE_INTERVAL_DAY_TIME, true)), "INTERVAL SECOND(3)");
    ck_assert_str_eq(format_type(type_make(TYPE_INTERVAL_YEAR_MONTH, true)), "INTERVAL MONTH");
    ck_assert_str_eq(format_type(type_make(TYPE_NULL, true)), "NULL");
    ck_assert(type_is_integer(TYPE_TINYINT) && !type_is_integer(TYPE_DECIMAL));
    ck_assert(type_is_numeric(TYPE_DECIMAL) && type_is_numeric(TYPE_FLOAT));
    ck_assert(!type_is_numeric(TYPE_BOOLEAN));
    ck_assert(type_is_string(TYPE_CHAR) && type_is_variable_length(TYPE_VARCHAR));
    ck_assert(!type_is_variable_length(TYPE_DATE));
    ck_assert(type_is_temporal(TYPE_TIMESTAMP_LTZ) && !type_is_temporal(TYPE_INTERVAL_DAY_TIME));
    ck_assert(type_is_interval(TYPE_INTERVAL_YEAR_MONTH));
    /* equality ignores nullability but not DECIMAL precision and scale */
    ck_assert(type_equals(type_make(TYPE_INT, true), type_make(TYPE_INT, false)));
    ck_assert(!type_equals(type_make(TYPE_INT, true), type_make(TYPE_BIGINT, true)));
    ck_assert(!type_equals(type_make_decimal(10, 2, true), type_make_decimal(10, 3, true)));
    ck_assert(type_equals(type_make_decimal(10, 2, true), type_make_decimal(10, 2, false)));
}
END_TEST

START_TEST(test_bytes_and_maps)
{
    StrBuf out = STRBUF_INIT;
    /* hex, base64, UTF-8 decoding with U+FFFD for ill-formed bytes */
    ck_assert_int_eq(binary_append_hex((const uint8_t *)"\x0a\xff", 2, &out), 0);
    ck_assert_str_eq(strbuf_cstr(&out), "0aff");
    strbuf_clear(&out);
    ck_assert_int_eq(binary_decode_hex("0A1b", 4, &out), 0);
    ck_assert_uint_eq(out.length, 2);
    ck_assert_int_eq(binary_decode_hex("0A1", 3, &out), 1);
    ck_assert_int_eq(binary_decode_hex("0G", 2, &out), 1);
    strbuf_clear(&out);
    ck_assert_int_eq(binary_append_base64((const uint8_t *)"hello", 5, &out), 0);
    ck_assert_str_eq(strbuf_cstr(&out), "aGVsbG8=");
    strbuf_clear(&out);
    ck_assert_int_eq(binary_decode_base64("aGVsbG8=", 8, &out), 0);
    ck_assert_str_eq(strbuf_cstr(&out), "hello");
    ck_assert_int_eq(binary_decode_base64("aGVsbG8", 7, &out), 0); /* padding optional */
    ck_assert_int_eq(binary_decode_base64("a", 1, &out), 1);
    strbuf_clear(&out);
    ck_assert_int_eq(binary_append_utf8((const uint8_t *)"a\xff\xc3\xa9\xe2\x82", 6, &out), 0);
    ck_assert_str_eq(strbuf_cstr(&out), "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd");
    ck_assert(binary_is_utf8((const uint8_t *)"\xc3\xa9", 2));
    ck_assert(!binary_is_utf8((const uint8_t *)"\xc0\x80", 2));

    /* maps: canonical (sorted, last duplicate wins), so equal maps are equal bytes */
    DataType map =
        type_make_map(type_make_varchar(TYPE_STRING_LENGTH, true), type_make(TYPE_INT, true), true);
    MapEntry first[3] = {{value_string("b", 1), value_int(2)},
                         {value_string("a", 1), value_int(1)},
                         {value_string("b", 1), value_int(3)}};
    MapEntry second[2] = {{value_string("a", 1), value_int(1)},
                          {value_string("b", 1), value_int(3)}};
    StrBuf other = STRBUF_INIT;
    strbuf_clear(&out);
    ck_assert_int_eq(map_encode(map, first, 3, &out), 0);
    ck_assert_int_eq(map_encode(map, second, 2, &other), 0);
    ck_assert_uint_eq(out.length, other.length);
    ck_assert(memcmp(out.data, other.data, out.length) == 0);
    ck_assert_uint_eq(map_cardinality(out.data, (uint32_t)out.length), 2);
    Value found;
    ck_assert(map_lookup(map, out.data, (uint32_t)out.length, value_string("b", 1), &found));
    ck_assert_int_eq(found.i, 3);
    ck_assert(!map_lookup(map, out.data, (uint32_t)out.length, value_string("c", 1), &found));
    StrBuf text = STRBUF_INIT;
    ck_assert_int_eq(value_format_text(map, value_string(out.data, (uint32_t)out.length), &text),
                     0);
    ck_assert_str_eq(strbuf_cstr(&text), "{a=1, b=3}");
    strbuf_clear(&text);
    DataType bytes = type_make_binary(TYPE_VARBINARY, TYPE_STRING_LENGTH, true);
    ck_assert_int_eq(value_format_text(bytes, value_string("\x01\xab", 2), &text), 0);
    ck_assert_str_eq(strbuf_cstr(&text), "x'01ab'");
    char name[96];
    ck_assert_str_eq(type_format(map, name, sizeof name), "MAP<STRING, INT>");
    ck_assert(type_is_variable_length(TYPE_MAP) && type_is_variable_length(TYPE_BINARY));
    DataType common;
    ck_assert(type_common(type_make_binary(TYPE_BINARY, 2, false), bytes, &common));
    ck_assert_int_eq(common.id, TYPE_VARBINARY);
    ck_assert(!type_common(map, bytes, &common));
    strbuf_free(&text);
    strbuf_free(&other);
    strbuf_free(&out);
}
END_TEST

static Suite *row_suite(void)
{
    Suite *suite = suite_create("row");
    TCase *rows = tcase_create("rows");
    tcase_add_test(rows, test_builder_layout);
    tcase_add_test(rows, test_builder_many_fields_and_empty_rows);
    tcase_add_test(rows, test_strings_in_tail_in_field_order);
    tcase_add_test(rows, test_canonical_equal_content_equal_bytes);
    tcase_add_test(rows, test_canonical_string_boundaries_and_nulls);
    tcase_add_test(rows, test_negative_zero_normalised);
    tcase_add_test(rows, test_copies);
    suite_add_tcase(suite, rows);
    TCase *values = tcase_create("values");
    tcase_add_test(values, test_values_through_rows);
    tcase_add_test(values, test_parse_booleans_and_integers);
    tcase_add_test(values, test_parse_doubles);
    tcase_add_test(values, test_parse_decimals);
    tcase_add_test(values, test_parse_dates_and_times);
    tcase_add_test(values, test_parse_strings_and_others);
    tcase_add_test(values, test_format_scalars);
    tcase_add_test(values, test_format_decimals);
    tcase_add_test(values, test_format_doubles_java_style);
    tcase_add_test(values, test_format_temporal);
    tcase_add_test(values, test_compare_and_arithmetic);
    tcase_add_test(values, test_bytes_and_maps);
    suite_add_tcase(suite, values);
    TCase *durations = tcase_create("durations");
    tcase_add_test(durations, test_duration_parse);
    tcase_add_test(durations, test_duration_format);
    suite_add_tcase(suite, durations);
    TCase *types = tcase_create("types");
    tcase_add_test(types, test_type_common_numeric);
    tcase_add_test(types, test_type_common_other);
    tcase_add_test(types, test_type_format_and_classes);
    suite_add_tcase(suite, types);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(row_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
