/*
 * fuzz_format.c - libFuzzer target: one record format's decoder, chosen at
 * compile time with -DFUZZ_FORMAT=FORMAT_KIND_JSON (..._CSV, _RAW,
 * _DEBEZIUM_JSON, _CANAL_JSON); the Makefile builds one binary a format.
 *
 * Input: the first byte picks the format options (ignore-parse-errors,
 * fail-on-missing-field, ISO-8601 timestamps, CSV delimiter, quote,
 * escape, comments and null literal, Debezium's schema envelope); the rest
 * is a file of records, cut as the filesystem connector cuts it
 * (format_record_length) and decoded record by record over a schema with
 * every type a format can carry (raw: one STRING; the json formats also
 * nested ROW, ARRAY, MULTISET and a MAP of ROWs). For json, csv and raw a
 * decoded row is encoded again and the encoded record must decode to the
 * same row bytes (a broken round trip aborts: a finding).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/format/format.h"

#ifndef FUZZ_FORMAT
#error "compile with -DFUZZ_FORMAT=FORMAT_KIND_..."
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_FIELDS = 14, FUZZ_NESTED_FIELDS = 4 };

static uint32_t fuzz_schema(const char **names, DataType *types)
{
    if (FUZZ_FORMAT == FORMAT_KIND_RAW) {
        names[0] = "line";
        types[0] = type_make_varchar(TYPE_STRING_LENGTH, true);
        return 1;
    }
    static const char *const NAMES[FUZZ_FIELDS] = {"id", "i",  "si", "f",  "d",   "b",   "s",
                                                   "c",  "dt", "tm", "ts", "ltz", "dec", "by"};
    DataType all[FUZZ_FIELDS] = {
        type_make(TYPE_BIGINT, true),
        type_make(TYPE_INT, true),
        type_make(TYPE_SMALLINT, true),
        type_make(TYPE_FLOAT, true),
        type_make(TYPE_DOUBLE, true),
        type_make(TYPE_BOOLEAN, true),
        type_make_varchar(TYPE_STRING_LENGTH, true),
        type_make_varchar(3, true),
        type_make(TYPE_DATE, true),
        type_make(TYPE_TIME, true),
        type_make_timestamp(TYPE_TIMESTAMP, 3, true),
        type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, true),
        type_make_decimal(10, 2, true),
        type_make_binary(TYPE_VARBINARY, 2147483647, true),
    };
    for (uint32_t i = 0; i < FUZZ_FIELDS; i++) {
        names[i] = NAMES[i];
        types[i] = all[i];
    }
    if (FUZZ_FORMAT == FORMAT_KIND_CSV)
        return FUZZ_FIELDS;
    /* the json formats: nested values too, ROW<a INT, b STRING, c ARRAY<DOUBLE>>,
       ARRAY<ARRAY<BIGINT>>, MULTISET<STRING>, MAP<STRING, ROW<x BOOLEAN>> */
    const char *row_names[] = {"a", "b", "c"};
    DataType row_types[3] = {type_make(TYPE_INT, true), type_make_varchar(TYPE_STRING_LENGTH, true),
                             type_make(TYPE_DOUBLE, true)};
    DataType inner, value_row;
    const char *value_names[] = {"x"};
    DataType value_types[] = {type_make(TYPE_BOOLEAN, true)};
    if (!type_make_array(row_types[2], true, &row_types[2]) ||
        !type_make_row(row_names, row_types, 3, true, &types[FUZZ_FIELDS]) ||
        !type_make_array(type_make(TYPE_BIGINT, true), true, &inner) ||
        !type_make_array(inner, true, &types[FUZZ_FIELDS + 1]) ||
        !type_make_multiset(type_make_varchar(TYPE_STRING_LENGTH, true), true,
                            &types[FUZZ_FIELDS + 2]) ||
        !type_make_row(value_names, value_types, 1, true, &value_row))
        return FUZZ_FIELDS;
    types[FUZZ_FIELDS + 3] =
        type_make_map(type_make_varchar(TYPE_STRING_LENGTH, true), value_row, true);
    names[FUZZ_FIELDS] = "r";
    names[FUZZ_FIELDS + 1] = "arr";
    names[FUZZ_FIELDS + 2] = "ms";
    names[FUZZ_FIELDS + 3] = "m";
    return FUZZ_FIELDS + FUZZ_NESTED_FIELDS;
}

static void fuzz_options(uint8_t bits, FormatOptions *options)
{
    format_options_init(options, FUZZ_FORMAT);
    options->ignore_parse_errors = bits & 1;
    options->fail_on_missing_field = (bits >> 1) & 1;
    options->timestamp_iso_8601 = (bits >> 2) & 1;
    options->schema_include = (bits >> 3) & 1;
    if (FUZZ_FORMAT == FORMAT_KIND_CSV) {
        static const char DELIMITERS[] = {',', ';', '\t', '|'};
        options->field_delimiter = DELIMITERS[(bits >> 4) & 3];
        options->quote_character = (bits >> 6) & 1 ? '\0' : '"';
        options->escape_character = (bits >> 7) & 1 ? '\\' : '\0';
        options->allow_comments = (bits >> 1) & 1;
        options->null_literal = (bits >> 2) & 1 ? "NULL" : NULL;
    }
}

/* json, csv and raw: the row encoded and decoded again is the same row. */
static void fuzz_round_trip(const FormatOptions *options, uint32_t count, const char **names,
                            const DataType *types, const Row *row)
{
    FormatEncoder *encoder = format_encoder_create(options, count, names, types);
    FormatDecoder *decoder = format_decoder_create(options, count, names, types);
    StrBuf encoded = {0};
    RowBuilder builder;
    row_builder_init(&builder);
    if (encoder && decoder && format_encode_row(encoder, row, &encoded) == JOINERY_OK) {
        char error[256];
        Row *again = NULL;
        const char *bytes = encoded.data ? encoded.data : "";
        int status = format_decode_row(decoder, bytes, encoded.length, &builder, &again, error,
                                       sizeof error);
        bool empty_raw = status == FORMAT_RECORD_EMPTY; /* an empty line decodes to no row */
        if (!empty_raw &&
            (status != FORMAT_RECORD_ROW || again == NULL || row_size(again) != row_size(row) ||
             memcmp(again, row, row_size(row)) != 0)) {
            fprintf(stderr, "round trip broken: encoded '%.*s' decodes to %s (status %d%s%s)\n",
                    (int)encoded.length, bytes,
                    status == FORMAT_RECORD_ROW ? "another row" : "no row", status,
                    status < 0 ? ": " : "", status < 0 ? error : "");
            abort();
        }
    }
    row_builder_free(&builder);
    strbuf_free(&encoded);
    format_encoder_free(encoder);
    format_decoder_free(decoder);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FormatOptions options;
    fuzz_options(data[0], &options);
    const char *names[FUZZ_FIELDS + FUZZ_NESTED_FIELDS];
    DataType types[FUZZ_FIELDS + FUZZ_NESTED_FIELDS];
    uint32_t count = fuzz_schema(names, types);
    FormatDecoder *decoder = format_decoder_create(&options, count, names, types);
    if (decoder == NULL)
        return 0;
    RowBuilder builder;
    row_builder_init(&builder);
    const char *text = (const char *)data + 1;
    size_t left = size - 1;
    char error[512];
    while (left > 0) {
        uint32_t newlines = 0;
        size_t length = format_record_length(decoder, text, left, &newlines);
        if (length > left)
            abort(); /* format_record_length must stay inside the data */
        if (format_kind_is_changelog(FUZZ_FORMAT)) {
            uint32_t rows = 0;
            if (format_decode_changelog(decoder, text, length, &rows, error, sizeof error) ==
                FORMAT_RECORD_ROW) {
                for (uint32_t r = 0; r < rows; r++) {
                    RowKind kind;
                    const Value *values = format_decoded_row(decoder, r, &kind);
                    for (uint32_t f = 0; f < count; f++)
                        (void)values[f];
                }
            }
        } else {
            Row *row = NULL;
            if (format_decode_row(decoder, text, length, &builder, &row, error, sizeof error) ==
                    FORMAT_RECORD_ROW &&
                row != NULL)
                fuzz_round_trip(&options, count, names, types, row);
        }
        text += length;
        left -= length;
        if (left > 0) { /* the '\n' that ended the record */
            text++;
            left--;
        }
    }
    row_builder_free(&builder);
    format_decoder_free(decoder);
    return 0;
}
