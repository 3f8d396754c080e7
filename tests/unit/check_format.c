/*
 * check_format.c - Check suite for the record formats (engine/format):
 * JSON and CSV decoding of every type, BIGINT precision, string escapes,
 * nested values, malformed records and their messages, missing fields,
 * options, and encoding back (round trips); json.c's fast tokenizer against
 * jsmn on valid, malformed and mutated records (the same status, error and
 * values both ways).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/map.h"
#include "engine/base/value.h"
#include "engine/format/format.h"
#include "engine/format/format_internal.h"

enum { ALL_TYPES = 14 };

static const char *const ALL_NAMES[ALL_TYPES] = {"b",   "ti", "si", "i",  "bi", "f",  "d",
                                                 "dec", "s",  "vc", "dt", "tm", "ts", "ltz"};

static void all_types(DataType *types)
{
    types[0] = type_make(TYPE_BOOLEAN, true);
    types[1] = type_make(TYPE_TINYINT, true);
    types[2] = type_make(TYPE_SMALLINT, true);
    types[3] = type_make(TYPE_INT, true);
    types[4] = type_make(TYPE_BIGINT, true);
    types[5] = type_make(TYPE_FLOAT, true);
    types[6] = type_make(TYPE_DOUBLE, true);
    types[7] = type_make_decimal(10, 2, true);
    types[8] = type_make_varchar(TYPE_STRING_LENGTH, true);
    types[9] = type_make_varchar(20, true);
    types[10] = type_make(TYPE_DATE, true);
    types[11] = type_make(TYPE_TIME, true);
    types[12] = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    types[13] = type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, true);
}

static FormatDecoder *make_decoder(FormatKind kind, uint32_t count, const char *const *names,
                                   const DataType *types, FormatOptions *options_or_null)
{
    FormatOptions options;
    if (options_or_null)
        options = *options_or_null;
    else
        format_options_init(&options, kind);
    FormatDecoder *decoder = format_decoder_create(&options, count, names, types);
    ck_assert_ptr_nonnull(decoder);
    return decoder;
}

static int decode(FormatDecoder *decoder, const char *text, Value *values, char *error)
{
    error[0] = '\0';
    return format_decode(decoder, text, strlen(text), values, error, 512);
}

static void assert_string(Value value, const char *expected)
{
    ck_assert(!value.is_null);
    ck_assert_uint_eq(value.s.len, strlen(expected));
    ck_assert(memcmp(value.s.ptr, expected, value.s.len) == 0);
}

static int64_t epoch_millis(int year, int month, int day, int hour, int minute, int second,
                            int millis)
{
    return datetime_days_from_civil(year, (unsigned)month, (unsigned)day) * 86400000 +
           ((int64_t)hour * 3600 + minute * 60 + second) * 1000 + millis;
}

static void assert_all_types(const Value *v)
{
    ck_assert_int_eq(v[0].i, 1);
    ck_assert_int_eq(v[1].i, -5);
    ck_assert_int_eq(v[2].i, 300);
    ck_assert_int_eq(v[3].i, -70000);
    ck_assert_int_eq(v[4].i, 9007199254740993LL);
    ck_assert(v[5].d == (double)1.5f);
    ck_assert(v[6].d == 2.25);
    ck_assert_int_eq(v[7].i, 1250);
    assert_string(v[8], "hello, world");
    assert_string(v[9], "x");
    ck_assert_int_eq(v[10].i, datetime_days_from_civil(2024, 2, 29));
    ck_assert_int_eq(v[11].i, (13 * 3600 + 14 * 60 + 15) * 1000 + 500);
    ck_assert_int_eq(v[12].i, epoch_millis(2024, 3, 1, 10, 20, 30, 123));
    ck_assert_int_eq(v[13].i, epoch_millis(2024, 3, 1, 10, 20, 30, 0));
}

START_TEST(test_json_all_types)
{
    DataType types[ALL_TYPES];
    all_types(types);
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, ALL_TYPES, ALL_NAMES, types, NULL);
    Value values[ALL_TYPES];
    char error[512];
    const char *record =
        "{\"b\": true, \"ti\": -5, \"si\": 300, \"i\": -70000, \"bi\": 9007199254740993, "
        "\"f\": 1.5, \"d\": 2.25, \"dec\": 12.50, \"s\": \"hello, world\", \"vc\": \"x\", "
        "\"dt\": \"2024-02-29\", \"tm\": \"13:14:15.5\", \"ts\": \"2024-03-01 10:20:30.123\", "
        "\"ltz\": \"2024-03-01 10:20:30Z\"}";
    ck_assert_int_eq(decode(decoder, record, values, error), FORMAT_RECORD_ROW);
    assert_all_types(values);

    /* keys in any order, numbers given as strings */
    const char *shuffled =
        "{\"ltz\":\"2024-03-01 10:20:30Z\",\"ts\":\"2024-03-01 10:20:30.123\","
        "\"tm\":\"13:14:15.500\",\"dt\":\"2024-02-29\",\"vc\":\"x\",\"s\":\"hello, world\","
        "\"dec\":\"12.5\",\"d\":\"2.25\",\"f\":\"1.5\",\"bi\":\"9007199254740993\",\"i\":\"-"
        "70000\","
        "\"si\":\"300\",\"ti\":\"-5\",\"b\":\"true\",\"extra\":{\"x\":[1,2,{\"y\":null}]}}";
    ck_assert_int_eq(decode(decoder, shuffled, values, error), FORMAT_RECORD_ROW);
    assert_all_types(values);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_json_bigint_precision)
{
    const char *names[] = {"id"};
    DataType types[] = {type_make(TYPE_BIGINT, false)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 1, names, types, NULL);
    Value values[1];
    char error[512];
    ck_assert_int_eq(decode(decoder, "{\"id\":9007199254740993}", values, error),
                     FORMAT_RECORD_ROW);
    ck_assert_int_eq(values[0].i, 9007199254740993LL);
    ck_assert_int_eq(decode(decoder, "{\"id\":-9223372036854775808}", values, error),
                     FORMAT_RECORD_ROW);
    ck_assert_int_eq(values[0].i, INT64_MIN);
    ck_assert_int_eq(decode(decoder, "{\"id\":9223372036854775808}", values, error),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "field 'id'"));
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_json_escapes)
{
    const char *names[] = {"s", "k\"ey"};
    DataType types[] = {type_make_varchar(TYPE_STRING_LENGTH, true),
                        type_make_varchar(TYPE_STRING_LENGTH, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 2, names, types, NULL);
    Value values[2];
    char error[512];
    ck_assert_int_eq(decode(decoder,
                            "{\"s\":\"a\\nb\\t\\\"q\\\" \\\\ \\/ \\u00e9 \\u20ac \\ud83d\\ude00\","
                            "\"k\\\"ey\":\"plain\"}",
                            values, error),
                     FORMAT_RECORD_ROW);
    assert_string(values[0], "a\nb\t\"q\" \\ / \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    assert_string(values[1], "plain");
    /* a lone surrogate becomes U+FFFD */
    ck_assert_int_eq(decode(decoder, "{\"s\":\"x\\ud800y\"}", values, error), FORMAT_RECORD_ROW);
    assert_string(values[0], "x\xef\xbf\xbdy");
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_json_nested_and_nulls)
{
    const char *names[] = {"s", "n", "missing"};
    DataType types[] = {type_make_varchar(TYPE_STRING_LENGTH, true), type_make(TYPE_INT, true),
                        type_make(TYPE_INT, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 3, names, types, NULL);
    Value values[3];
    char error[512];
    ck_assert_int_eq(decode(decoder, "{\"s\":{\"a\": [1, 2]},\"n\":null}", values, error),
                     FORMAT_RECORD_ROW);
    assert_string(values[0], "{\"a\": [1, 2]}");
    ck_assert(values[1].is_null);
    ck_assert(values[2].is_null);
    ck_assert_int_eq(decode(decoder, "{\"s\":12.5,\"n\":[1]}", values, error),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(error, "field 'n': expected a INT but found a JSON array: \"[1]\"");
    ck_assert_int_eq(decode(decoder, "  ", values, error), FORMAT_RECORD_EMPTY);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_json_errors)
{
    const char *names[] = {"amount", "ts"};
    DataType types[] = {type_make_decimal(10, 2, true),
                        type_make_timestamp(TYPE_TIMESTAMP, 3, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 2, names, types, NULL);
    Value values[2];
    char error[512];
    ck_assert_int_eq(decode(decoder, "{\"amount\":\"abc\"}", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(error, "field 'amount': not a valid DECIMAL(10, 2): \"abc\"");
    ck_assert_int_eq(decode(decoder, "{\"amount\": 1,", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "malformed JSON at byte"));
    ck_assert_int_eq(decode(decoder, "{\"amount\": tru}", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "malformed JSON at byte 12"));
    ck_assert_int_eq(decode(decoder, "[1,2]", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "expected a JSON object"));
    ck_assert_int_eq(decode(decoder, "{\"amount\":1} {}", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_int_eq(decode(decoder, "{\"amount\":true}", values, error), JOINERY_ERROR_RUNTIME);
    /* SQL timestamp standard rejects the ISO 'T' separator, with a hint */
    ck_assert_int_eq(decode(decoder, "{\"ts\":\"2024-01-01T10:00:00\"}", values, error),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "json.timestamp-format.standard"));
    format_decoder_free(decoder);

    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_JSON);
    options.timestamp_iso_8601 = true;
    decoder = make_decoder(FORMAT_KIND_JSON, 2, names, types, &options);
    ck_assert_int_eq(decode(decoder, "{\"ts\":\"2024-01-01T10:00:00.5Z\"}", values, error),
                     FORMAT_RECORD_ROW);
    ck_assert_int_eq(values[1].i, epoch_millis(2024, 1, 1, 10, 0, 0, 500));
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_json_fail_on_missing_field)
{
    const char *names[] = {"a", "b"};
    DataType types[] = {type_make(TYPE_INT, true), type_make(TYPE_INT, true)};
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_JSON);
    options.fail_on_missing_field = true;
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 2, names, types, &options);
    Value values[2];
    char error[512];
    ck_assert_int_eq(decode(decoder, "{\"a\":1}", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "field 'b': missing"));
    ck_assert_int_eq(decode(decoder, "{\"a\":1,\"b\":null}", values, error), FORMAT_RECORD_ROW);
    ck_assert(values[1].is_null);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_json_many_tokens)
{
    const char *names[] = {"last"};
    DataType types[] = {type_make(TYPE_INT, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 1, names, types, NULL);
    StrBuf record = STRBUF_INIT;
    strbuf_append_cstr(&record, "{\"big\":[");
    for (int i = 0; i < 5000; i++)
        strbuf_printf(&record, "%s%d", i ? "," : "", i);
    strbuf_append_cstr(&record, "],\"last\":7}");
    Value values[1];
    char error[512];
    ck_assert_int_eq(decode(decoder, record.data, values, error), FORMAT_RECORD_ROW);
    ck_assert_int_eq(values[0].i, 7);
    strbuf_free(&record);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_csv_all_types)
{
    DataType types[ALL_TYPES];
    all_types(types);
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_CSV, ALL_TYPES, ALL_NAMES, types, NULL);
    Value values[ALL_TYPES];
    char error[512];
    const char *record = "true,-5,300,-70000,9007199254740993,1.5,2.25,12.50,\"hello, world\",x,"
                         "2024-02-29,13:14:15.5,2024-03-01 10:20:30.123,2024-03-01 10:20:30Z\r";
    ck_assert_int_eq(decode(decoder, record, values, error), FORMAT_RECORD_ROW);
    assert_all_types(values);
    /* empty fields: NULL for non-strings, "" for strings */
    ck_assert_int_eq(decode(decoder, ",,,,,,,,,,,,,", values, error), FORMAT_RECORD_ROW);
    for (int i = 0; i < ALL_TYPES; i++) {
        if (i == 8 || i == 9)
            assert_string(values[i], "");
        else
            ck_assert(values[i].is_null);
    }
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_csv_quoting_and_options)
{
    const char *names[] = {"id", "text"};
    DataType types[] = {type_make(TYPE_INT, true), type_make_varchar(TYPE_STRING_LENGTH, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_CSV, 2, names, types, NULL);
    Value values[2];
    char error[512];
    ck_assert_int_eq(decode(decoder, "1,\"say \"\"hi\"\", ok\"", values, error), FORMAT_RECORD_ROW);
    assert_string(values[1], "say \"hi\", ok");
    ck_assert_int_eq(decode(decoder, "1", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(error, "expected 2 fields but found 1");
    ck_assert_int_eq(decode(decoder, "1,a,b", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_int_eq(decode(decoder, "x,a", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(error, "field 'id': not a valid INT: \"x\"");
    ck_assert_int_eq(decode(decoder, "1,\"open", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "unterminated"));

    /* a quoted field spanning lines is one record */
    const char *two = "1,\"line one\nline two\"\n2,next\n";
    uint32_t newlines = 0;
    size_t length = format_record_length(decoder, two, strlen(two), &newlines);
    ck_assert_uint_eq(length, strlen("1,\"line one\nline two\""));
    ck_assert_uint_eq(newlines, 1);
    ck_assert_int_eq(format_decode(decoder, two, length, values, error, sizeof error),
                     FORMAT_RECORD_ROW);
    assert_string(values[1], "line one\nline two");
    format_decoder_free(decoder);

    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_CSV);
    options.field_delimiter = '|';
    options.allow_comments = true;
    options.null_literal = "N/A";
    decoder = make_decoder(FORMAT_KIND_CSV, 2, names, types, &options);
    ck_assert_int_eq(decode(decoder, "# a comment", values, error), FORMAT_RECORD_EMPTY);
    ck_assert_int_eq(decode(decoder, "N/A|a,b", values, error), FORMAT_RECORD_ROW);
    ck_assert(values[0].is_null);
    assert_string(values[1], "a,b");
    ck_assert_int_eq(decode(decoder, "3|N/A", values, error), FORMAT_RECORD_ROW);
    ck_assert_int_eq(values[0].i, 3);
    ck_assert(values[1].is_null);
    format_decoder_free(decoder);
}
END_TEST

static Row *build_row(RowBuilder *builder, const DataType *types, const Value *values,
                      uint32_t count)
{
    row_builder_begin(builder, count, ROW_KIND_INSERT);
    for (uint32_t i = 0; i < count; i++)
        value_to_builder(builder, i, types[i], values[i]);
    return row_builder_finish(builder);
}

START_TEST(test_json_encode_round_trip)
{
    DataType types[ALL_TYPES];
    all_types(types);
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_JSON);
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, ALL_TYPES, ALL_NAMES, types, NULL);
    FormatEncoder *encoder = format_encoder_create(&options, ALL_TYPES, ALL_NAMES, types);
    ck_assert_ptr_nonnull(encoder);
    Value values[ALL_TYPES];
    char error[512];
    const char *record =
        "{\"b\":true,\"ti\":-5,\"si\":300,\"i\":-70000,\"bi\":9007199254740993,\"f\":1.5,"
        "\"d\":2.25,\"dec\":12.50,\"s\":\"hello, world\",\"vc\":\"x\",\"dt\":\"2024-02-29\","
        "\"tm\":\"13:14:15.5\",\"ts\":\"2024-03-01 10:20:30.123\",\"ltz\":\"2024-03-01 "
        "10:20:30Z\"}";
    ck_assert_int_eq(decode(decoder, record, values, error), FORMAT_RECORD_ROW);
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = build_row(&builder, types, values, ALL_TYPES);
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(format_encode_row(encoder, row, &out), JOINERY_OK);
    ck_assert_str_eq(out.data, record);

    /* escapes and NULL */
    const char *names[] = {"s", "n"};
    DataType string_types[] = {type_make_varchar(TYPE_STRING_LENGTH, true),
                               type_make(TYPE_INT, true)};
    FormatEncoder *strings = format_encoder_create(&options, 2, names, string_types);
    Value pair[2] = {value_string("a\"b\\c\n\x01", 7), value_null()};
    row = build_row(&builder, string_types, pair, 2);
    strbuf_clear(&out);
    ck_assert_int_eq(format_encode_row(strings, row, &out), JOINERY_OK);
    ck_assert_str_eq(out.data, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":null}");
    format_encoder_free(strings);
    strbuf_free(&out);
    row_builder_free(&builder);
    format_encoder_free(encoder);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_json_bytes_and_maps)
{
    /* BYTES are base64 strings, MAPs objects; decoded and encoded back exactly (map members
       in key order, the canonical order) */
    const char *names[] = {"b", "m"};
    DataType types[] = {type_make_binary(TYPE_VARBINARY, TYPE_STRING_LENGTH, true),
                        type_make_map(type_make_varchar(TYPE_STRING_LENGTH, true),
                                      type_make_binary(TYPE_VARBINARY, TYPE_STRING_LENGTH, true),
                                      true)};
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_JSON);
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 2, names, types, NULL);
    FormatEncoder *encoder = format_encoder_create(&options, 2, names, types);
    Value values[2];
    char error[512];
    ck_assert_int_eq(decode(decoder,
                            "{\"b\":\"AAH/\",\"m\":{\"z\":\"eA==\",\"a\":null,\"k\\u00e9\":\"\"}}",
                            values, error),
                     FORMAT_RECORD_ROW);
    ck_assert_uint_eq(values[0].s.len, 3);
    ck_assert(memcmp(values[0].s.ptr, "\x00\x01\xff", 3) == 0);
    ck_assert_uint_eq(map_cardinality(values[1].s.ptr, values[1].s.len), 3);
    Value found;
    ck_assert(map_lookup(types[1], values[1].s.ptr, values[1].s.len, value_string("z", 1), &found));
    assert_string(found, "x");
    ck_assert(map_lookup(types[1], values[1].s.ptr, values[1].s.len, value_string("a", 1), &found));
    ck_assert(found.is_null);
    ck_assert(
        !map_lookup(types[1], values[1].s.ptr, values[1].s.len, value_string("q", 1), &found));
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = build_row(&builder, types, values, 2);
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(format_encode_row(encoder, row, &out), JOINERY_OK);
    ck_assert_str_eq(out.data,
                     "{\"b\":\"AAH/\",\"m\":{\"a\":null,\"k\xc3\xa9\":\"\",\"z\":\"eA==\"}}");
    /* bad input: not base64, not an object */
    ck_assert_int_eq(decode(decoder, "{\"b\":\"A*==\"}", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "not valid base64"));
    ck_assert_int_eq(decode(decoder, "{\"m\":[1]}", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "field 'm'"));
    strbuf_free(&out);
    row_builder_free(&builder);
    format_encoder_free(encoder);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_csv_bytes_base64_and_no_maps)
{
    const char *names[] = {"b"};
    DataType types[] = {type_make_binary(TYPE_VARBINARY, TYPE_STRING_LENGTH, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_CSV, 1, names, types, NULL);
    Value values[1];
    char error[512];
    ck_assert_int_eq(decode(decoder, "aGk=", values, error), FORMAT_RECORD_ROW);
    assert_string(values[0], "hi");
    ck_assert_int_eq(decode(decoder, "", values, error), FORMAT_RECORD_EMPTY);
    ck_assert_int_eq(decode(decoder, "%%", values, error), JOINERY_ERROR_RUNTIME);
    format_decoder_free(decoder);
    Diag diag;
    diag_clear(&diag);
    DataType map = type_make_map(type_make(TYPE_INT, true), type_make(TYPE_INT, true), true);
    ck_assert_int_eq(format_check_fields(FORMAT_KIND_CSV, 1, &map, "t", &diag),
                     JOINERY_ERROR_UNSUPPORTED);
    ck_assert_int_eq(format_check_fields(FORMAT_KIND_RAW, 1, types, "t", &diag), JOINERY_OK);
}
END_TEST

/* Malformed JSON says what is wrong, where; a record must be UTF-8 (as Jackson requires). */
START_TEST(test_json_error_reasons)
{
    const char *names[] = {"a"};
    DataType types[] = {type_make_varchar(TYPE_STRING_LENGTH, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_JSON, 1, names, types, NULL);
    Value values[1];
    char error[512];
    static const struct {
        const char *record, *error;
    } cases[] = {
        {"{a: 1}", "malformed JSON at byte 2: expected a string key but found 'a'"},
        {"{\"a\" 1}", "malformed JSON at byte 6: expected ':' after the key but found '1'"},
        {"{\"a\": \"x\\qy\"}", "malformed JSON at byte 9: invalid escape \\q"},
        {"{\"a\": \"\\u12\"}", "malformed JSON at byte 8: invalid escape \\u: four hex digits "
                               "expected"},
        {"{\"a\": 1 \"b\": 2}", "malformed JSON at byte 9: expected ',' or '}' but found '\"'"},
        {"{\"a\": [1, 2}", "malformed JSON at byte 12: expected ',' or ']' but found '}'"},
        {"{\"a\": 1", "malformed JSON at byte 8: unexpected end of record (the object opened at "
                      "byte 1 is not closed)"},
        {"{\"a\": \"open", "malformed JSON at byte 12: unterminated string"},
        {"{\"a\": nul}", "malformed JSON at byte 7: invalid literal 'nul' (true, false or null "
                         "expected)"},
        {"{\"a\": 01}", "malformed JSON at byte 7: invalid number"},
        {"{\"a\": @}", "malformed JSON at byte 7: expected a value but found '@'"},
        {"{\"a\": \"\xff\xfe\"}", "malformed JSON at byte 8: invalid UTF-8 (byte 0xff)"},
        {"{\"a\": \"\xc3\"}", "malformed JSON at byte 8: invalid UTF-8 (byte 0xc3)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(decode(decoder, cases[i].record, values, error), JOINERY_ERROR_RUNTIME);
        ck_assert_str_eq(error, cases[i].error);
    }
    ck_assert_int_eq(decode(decoder, "{\"a\": \"caf\xc3\xa9\"}", values, error), FORMAT_RECORD_ROW);
    assert_string(values[0], "caf\xc3\xa9");
    format_decoder_free(decoder);
}
END_TEST

static int append_to_strbuf(void *context, const char *bytes, size_t length)
{
    return strbuf_append(context, bytes, length);
}

/* The shell's JSON strings: valid UTF-8 whatever the input; an ill-formed sequence is one
   \ufffd (as Java decodes it), U+2028/U+2029 and DEL escaped. */
START_TEST(test_json_quote_valid_utf8)
{
    StrBuf out = STRBUF_INIT;
    static const char text[] = "a\xff\xfe b \xe2\x82 caf\xc3\xa9 \xe2\x80\xa8\x7f\"";
    ck_assert_int_eq(format_json_quote(text, sizeof text - 1, FORMAT_JSON_QUOTE_VALID_UTF8,
                                       append_to_strbuf, &out),
                     0);
    ck_assert_str_eq(out.data, "\"a\\ufffd\\ufffd b \\ufffd caf\xc3\xa9 \\u2028\\u007f\\\"\"");
    strbuf_free(&out);
}
END_TEST

/* A CSV record must be UTF-8 too (Jackson's CSV parser reads it as such). */
/*
 * Encodes one string field with the options and expects `encoded`, then decodes that
 * and expects the string back (the fuzz target's round-trip contract).
 */
static void assert_csv_string_round_trip(FormatOptions *options, const char *text,
                                         const char *encoded)
{
    const char *names[] = {"s", "t"};
    DataType types[] = {type_make_varchar(TYPE_STRING_LENGTH, true),
                        type_make_varchar(TYPE_STRING_LENGTH, true)};
    FormatEncoder *encoder = format_encoder_create(options, 2, names, types);
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_CSV, 2, names, types, options);
    Value values[2] = {value_string(text, (uint32_t)strlen(text)), value_string("z", 1)};
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = build_row(&builder, types, values, 2);
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(format_encode_row(encoder, row, &out), JOINERY_OK);
    ck_assert_str_eq(strbuf_cstr(&out), encoded);
    uint32_t newlines = 0;
    ck_assert_uint_eq(format_record_length(decoder, out.data, out.length, &newlines), out.length);
    Value decoded[2];
    char error[512];
    ck_assert_int_eq(decode(decoder, out.data, decoded, error), FORMAT_RECORD_ROW);
    assert_string(decoded[0], text);
    assert_string(decoded[1], "z");
    strbuf_free(&out);
    row_builder_free(&builder);
    format_encoder_free(encoder);
    format_decoder_free(decoder);
}

/* A fuzz finding: with an escape character, written values lost their escape characters. */
START_TEST(test_csv_escape_character_round_trip)
{
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_CSV);
    options.escape_character = '\\';
    /* quoted: the escape character inside quotes is escaped too */
    assert_csv_string_round_trip(&options, "a\\b", "\"a\\\\b\",z");
    assert_csv_string_round_trip(&options, "q\"\\", "\"q\"\"\\\\\",z");
    /* no quote character: the delimiter, the escape character and line breaks escaped */
    options.quote_character = '\0';
    assert_csv_string_round_trip(&options, "\\\\)*", "\\\\\\\\)*,z");
    assert_csv_string_round_trip(&options, "a,b\nc", "a\\,b\\\nc,z");
    options.allow_comments = true;
    assert_csv_string_round_trip(&options, "#not a comment", "\\#not a comment,z");
    /* neither: a delimiter in a value cannot be written, and the encoder says why */
    options.escape_character = '\0';
    assert_csv_string_round_trip(&options, "plain", "plain,z");
    const char *names[] = {"s"};
    DataType types[] = {type_make_varchar(TYPE_STRING_LENGTH, true)};
    FormatEncoder *encoder = format_encoder_create(&options, 1, names, types);
    Value values[1] = {value_string("a,b", 3)};
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = build_row(&builder, types, values, 1);
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(format_encode_row(encoder, row, &out), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(format_encoder_error(encoder), "the field delimiter"));
    strbuf_free(&out);
    row_builder_free(&builder);
    format_encoder_free(encoder);
}
END_TEST

START_TEST(test_csv_invalid_utf8)
{
    const char *names[] = {"id", "s"};
    DataType types[] = {type_make(TYPE_INT, true), type_make_varchar(TYPE_STRING_LENGTH, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_CSV, 2, names, types, NULL);
    Value values[2];
    char error[512];
    ck_assert_int_eq(decode(decoder, "1,caf\xc3\xa9", values, error), FORMAT_RECORD_ROW);
    ck_assert_int_eq(decode(decoder, "1,ab\xff", values, error), JOINERY_ERROR_RUNTIME);
    ck_assert_str_eq(error, "malformed CSV at byte 5: invalid UTF-8 (byte 0xff)");
    format_decoder_free(decoder);
}
END_TEST

/* raw into a STRING: ill-formed UTF-8 becomes U+FFFD, one per maximal ill-formed subpart. */
START_TEST(test_raw_string_replaces_invalid_utf8)
{
    const char *names[] = {"s"};
    DataType types[] = {type_make_varchar(TYPE_STRING_LENGTH, true)};
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_RAW, 1, names, types, NULL);
    Value values[1];
    char error[512];
    ck_assert_int_eq(decode(decoder, "ok\xff\xfe!\xe2\x82", values, error), FORMAT_RECORD_ROW);
    assert_string(values[0], "ok\xef\xbf\xbd\xef\xbf\xbd!\xef\xbf\xbd");
    ck_assert_int_eq(decode(decoder, "caf\xc3\xa9", values, error), FORMAT_RECORD_ROW);
    assert_string(values[0], "caf\xc3\xa9");
    format_decoder_free(decoder);
    /* BYTES keep the bytes */
    DataType bytes[] = {type_make_binary(TYPE_VARBINARY, TYPE_STRING_LENGTH, true)};
    decoder = make_decoder(FORMAT_KIND_RAW, 1, names, bytes, NULL);
    ck_assert_int_eq(decode(decoder, "\xff", values, error), FORMAT_RECORD_ROW);
    ck_assert_uint_eq(values[0].s.len, 1);
    ck_assert_int_eq((unsigned char)values[0].s.ptr[0], 0xff);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_csv_encode_round_trip)
{
    const char *names[] = {"id", "text", "amount"};
    DataType types[] = {type_make(TYPE_INT, true), type_make_varchar(TYPE_STRING_LENGTH, true),
                        type_make_decimal(10, 2, true)};
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_CSV);
    FormatEncoder *encoder = format_encoder_create(&options, 3, names, types);
    FormatDecoder *decoder = make_decoder(FORMAT_KIND_CSV, 3, names, types, NULL);
    Value values[3] = {value_int(7), value_string("a, \"quoted\"\nline", 16), value_null()};
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = build_row(&builder, types, values, 3);
    StrBuf out = STRBUF_INIT;
    ck_assert_int_eq(format_encode_row(encoder, row, &out), JOINERY_OK);
    ck_assert_str_eq(out.data, "7,\"a, \"\"quoted\"\"\nline\",");
    Value decoded[3];
    char error[512];
    ck_assert_int_eq(decode(decoder, out.data, decoded, error), FORMAT_RECORD_ROW);
    ck_assert_int_eq(decoded[0].i, 7);
    assert_string(decoded[1], "a, \"quoted\"\nline");
    ck_assert(decoded[2].is_null);
    strbuf_free(&out);
    row_builder_free(&builder);
    format_encoder_free(encoder);
    format_decoder_free(decoder);
}
END_TEST

static CatalogTable *table_with_options(const char *const *pairs, size_t count)
{
    CatalogTable *table = catalog_table_new("t", false);
    table->options = arena_calloc(&table->arena, count ? count : 1, sizeof *table->options);
    for (size_t i = 0; i < count; i++) {
        table->options[i].key = arena_strdup(&table->arena, pairs[2 * i]);
        table->options[i].value = arena_strdup(&table->arena, pairs[2 * i + 1]);
    }
    table->option_count = count;
    return table;
}

START_TEST(test_format_options)
{
    Diag diag;
    FormatOptions options;
    const char *json[] = {"json.ignore-parse-errors", "true", "json.timestamp-format.standard",
                          "ISO-8601"};
    CatalogTable *table = table_with_options(json, 2);
    diag_clear(&diag);
    ck_assert_int_eq(format_options_from_table(table, "", FORMAT_KIND_JSON, &options, &diag),
                     JOINERY_OK);
    ck_assert(options.ignore_parse_errors);
    ck_assert(options.timestamp_iso_8601);
    /* csv options do not apply to json */
    diag_clear(&diag);
    ck_assert_int_eq(format_options_from_table(table, "", FORMAT_KIND_CSV, &options, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'json.ignore-parse-errors' does not apply"));
    catalog_table_free(table);

    const char *bad[] = {"value.csv.field-delimiter", "ab"};
    table = table_with_options(bad, 1);
    diag_clear(&diag);
    ck_assert_int_eq(format_options_from_table(table, "value.", FORMAT_KIND_CSV, &options, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "value.csv.field-delimiter"));
    catalog_table_free(table);

    const char *tab[] = {"csv.field-delimiter", "\\t", "csv.null-literal", "NULL"};
    table = table_with_options(tab, 2);
    diag_clear(&diag);
    ck_assert_int_eq(format_options_from_table(table, "", FORMAT_KIND_CSV, &options, &diag),
                     JOINERY_OK);
    ck_assert_int_eq(options.field_delimiter, '\t');
    ck_assert_str_eq(options.null_literal, "NULL");
    catalog_table_free(table);

    FormatKind kind;
    ck_assert(format_kind_from_name("json", &kind) && kind == FORMAT_KIND_JSON);
    ck_assert(!format_kind_from_name("avro", &kind));
}
END_TEST

/* Equal decoded values of `type`: strings, bytes and encoded composites by bytes. */
static bool values_equal(DataType type, Value a, Value b)
{
    if (a.is_null || b.is_null)
        return a.is_null == b.is_null;
    if (type_is_string(type.id) || type_is_binary(type.id) || type.id == TYPE_MAP ||
        type_is_composite(type.id))
        return a.s.len == b.s.len && memcmp(a.s.ptr, b.s.ptr, a.s.len) == 0;
    if (type.id == TYPE_DOUBLE || type.id == TYPE_FLOAT)
        return memcmp(&a.d, &b.d, sizeof a.d) == 0;
    return a.i == b.i;
}

/* Decodes `text` with the fast tokenizer and with jsmn alone; both must say the same. */
static void assert_scans_agree(FormatDecoder *fast, FormatDecoder *slow, const DataType *types,
                               uint32_t count, const char *text, size_t length)
{
    Value fast_values[8], slow_values[8];
    char fast_error[512] = "", slow_error[512] = "";
    int fast_status = format_decode(fast, text, length, fast_values, fast_error, sizeof fast_error);
    int slow_status = format_decode(slow, text, length, slow_values, slow_error, sizeof slow_error);
    if (fast_status != slow_status || strcmp(fast_error, slow_error) != 0)
        ck_abort_msg("record '%.*s': fast %d '%s', jsmn %d '%s'", (int)length, text, fast_status,
                     fast_error, slow_status, slow_error);
    if (fast_status == FORMAT_RECORD_ROW)
        for (uint32_t i = 0; i < count; i++)
            if (!values_equal(types[i], fast_values[i], slow_values[i]))
                ck_abort_msg("record '%.*s': field %u differs", (int)length, text, i);
}

START_TEST(test_json_fast_scan_matches_jsmn)
{
    const char *names[] = {"i", "s", "d", "ts", "b", "r", "a", "m"};
    DataType types[8];
    types[0] = type_make(TYPE_BIGINT, true);
    types[1] = type_make_varchar(TYPE_STRING_LENGTH, true);
    types[2] = type_make_decimal(10, 2, true);
    types[3] = type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    types[4] = type_make(TYPE_BOOLEAN, true);
    const char *row_names[] = {"x", "y"};
    DataType row_types[] = {type_make(TYPE_INT, true), type_make_varchar(TYPE_STRING_LENGTH, true)};
    ck_assert(type_make_row(row_names, row_types, 2, true, &types[5]));
    ck_assert(type_make_array(type_make(TYPE_INT, true), true, &types[6]));
    types[7] =
        type_make_map(type_make_varchar(TYPE_STRING_LENGTH, true), type_make(TYPE_INT, true), true);
    FormatDecoder *fast = make_decoder(FORMAT_KIND_JSON, 8, names, types, NULL);
    FormatDecoder *slow = make_decoder(FORMAT_KIND_JSON, 8, names, types, NULL);
    slow->json_scan_fast_off = true;
    static const char *const seeds[] = {
        "{\"i\":1,\"s\":\"a b\",\"d\":12.5,\"ts\":\"2024-03-01 10:20:30.123\",\"b\":true,"
        "\"r\":{\"x\":7,\"y\":\"q\"},\"a\":[1,2,null],\"m\":{\"k\":3}}",
        " { \"i\" : -9007199254740993 , \"s\" : { \"n\" : [ 1 , { } , [ ] ] } , \"r\" : null "
        "}\t\r\n",
        "{\"s\":[],\"a\":[],\"m\":{},\"r\":{},\"i\":null,\"d\":\"3\",\"b\":false}",
        "{\"i\":1e3,\"s\":12,\"i\":2,\"extra\":{\"deep\":[[[[1]]]]},\"d\":-0.5}",
        "{\"s\":\"\xc3\xa9\xe2\x82\xac \\\" \\\\ \\/ \\n "
        "\\u00e9\\ud83d\\ude00\",\"i\":0,\"r\":{\"y\":\"\\\"\"}}",
        "{\"s\":\"\\q\"}",
        "{\"s\":\"\\u12\"}",
        "{\"s\":\"\\u12G4\"}",
        "{\"s\":\"x\\\"}",
        "{\"s\\u0020\":1,\"\\u0073\":\"k\"}",
        "{}",
        "{\"i\":01}",
        "{\"i\":1.}",
        "{\"i\":+1}",
        "{\"i\":nul}",
        "{\"i\":1,}",
        "{\"i\" 1}",
        "{\"i\":1 \"s\":\"x\"}",
        "{\"a\":[1,]}",
        "{\"a\":[1 2]}",
        "{\"r\":{\"x\":1]}",
        "{\"s\":\"unterminated}",
        "{\"i\":1}}",
        "{\"i\":1} x",
        "{\"s\":\"\xff\"}",
        "{\"s\":\"a\\\"b\"}",
        "{\"i\":true}",
        "{1:2}",
        "{\"i\":1:2}",
    };
    char record[512];
    for (size_t seed = 0; seed < sizeof seeds / sizeof seeds[0]; seed++)
        assert_scans_agree(fast, slow, types, 8, seeds[seed], strlen(seeds[seed]));
    /* mutations of the seeds: a byte replaced, removed or inserted, from JSON's own bytes */
    static const char bytes[] = "{}[]\":, \t\n\\01-.eEtfnulra\x80\xff";
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 40000; round++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        const char *seed = seeds[state % 6];
        size_t length = strlen(seed);
        memcpy(record, seed, length);
        for (int edits = 1 + (int)((state >> 8) % 3); edits > 0; edits--) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            size_t at = (size_t)(state >> 16) % (length + 1);
            char byte = bytes[(state >> 40) % (sizeof bytes - 1)];
            switch ((state >> 56) % 3) {
            case 0:
                if (at < length)
                    record[at] = byte;
                break;
            case 1:
                if (at < length) {
                    memmove(record + at, record + at + 1, length - at - 1);
                    length--;
                }
                break;
            default:
                memmove(record + at + 1, record + at, length - at);
                record[at] = byte;
                length++;
                break;
            }
        }
        assert_scans_agree(fast, slow, types, 8, record, length);
    }
    format_decoder_free(fast);
    format_decoder_free(slow);
}
END_TEST

static Suite *format_suite(void)
{
    Suite *suite = suite_create("format");
    TCase *json = tcase_create("json");
    tcase_add_test(json, test_json_all_types);
    tcase_add_test(json, test_json_bigint_precision);
    tcase_add_test(json, test_json_escapes);
    tcase_add_test(json, test_json_nested_and_nulls);
    tcase_add_test(json, test_json_errors);
    tcase_add_test(json, test_json_fail_on_missing_field);
    tcase_add_test(json, test_json_many_tokens);
    tcase_add_test(json, test_json_encode_round_trip);
    tcase_add_test(json, test_json_fast_scan_matches_jsmn);
    suite_add_tcase(suite, json);
    TCase *csv = tcase_create("csv");
    tcase_add_test(csv, test_csv_all_types);
    tcase_add_test(csv, test_csv_quoting_and_options);
    tcase_add_test(csv, test_csv_encode_round_trip);
    tcase_add_test(csv, test_csv_escape_character_round_trip);
    tcase_add_test(csv, test_csv_bytes_base64_and_no_maps);
    tcase_add_test(csv, test_json_bytes_and_maps);
    tcase_add_test(csv, test_format_options);
    tcase_add_test(csv, test_json_error_reasons);
    tcase_add_test(csv, test_raw_string_replaces_invalid_utf8);
    tcase_add_test(csv, test_json_quote_valid_utf8);
    tcase_add_test(csv, test_csv_invalid_utf8);
    suite_add_tcase(suite, csv);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(format_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
