/*
 * format.c - the generic part of the record formats: names, options,
 * decoder and encoder lifecycles, dispatch to json.c / csv.c, and the value
 * text conversions both formats share.
 *
 * Invariants: see format.h (values valid until the next decode) and
 * format_internal.h (scratch reserved for a whole record before decoding).
 */
#include "engine/format/format_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool format_kind_from_name(const char *name, FormatKind *kind)
{
    if (!name)
        return false;
    if (strcmp(name, "json") == 0) {
        *kind = FORMAT_KIND_JSON;
        return true;
    }
    if (strcmp(name, "csv") == 0) {
        *kind = FORMAT_KIND_CSV;
        return true;
    }
    if (strcmp(name, "raw") == 0) {
        *kind = FORMAT_KIND_RAW;
        return true;
    }
    if (strcmp(name, "debezium-json") == 0) {
        *kind = FORMAT_KIND_DEBEZIUM_JSON;
        return true;
    }
    if (strcmp(name, "canal-json") == 0) {
        *kind = FORMAT_KIND_CANAL_JSON;
        return true;
    }
    return false;
}

bool format_kind_is_changelog(FormatKind kind)
{
    return kind == FORMAT_KIND_DEBEZIUM_JSON || kind == FORMAT_KIND_CANAL_JSON;
}

int format_check_fields(FormatKind kind, uint32_t field_count, const DataType *types,
                        const char *table_name, Diag *diag)
{
    if (kind == FORMAT_KIND_CSV) {
        for (uint32_t i = 0; i < field_count; i++) {
            char name[160];
            if (types[i].id == TYPE_MAP || types[i].id == TYPE_MULTISET)
                return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                                  "The 'csv' format of table '%s' cannot hold a column of type %s "
                                  "(as in Flink): %s in csv is not supported",
                                  table_name ? table_name : "?",
                                  type_format(types[i], name, sizeof name),
                                  types[i].id == TYPE_MAP ? "MAP" : "MULTISET");
            /* Flink's csv writes ROW and ARRAY with its nested delimiters; joinery does not
               yet */
            if (types[i].id == TYPE_ROW || types[i].id == TYPE_ARRAY)
                return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                                  "The 'csv' format of table '%s' cannot hold a column of type %s "
                                  "yet: ROW and ARRAY in csv are not supported yet (use 'json')",
                                  table_name ? table_name : "?",
                                  type_format(types[i], name, sizeof name));
        }
    }
    if (kind == FORMAT_KIND_JSON || kind == FORMAT_KIND_DEBEZIUM_JSON ||
        kind == FORMAT_KIND_CANAL_JSON) {
        for (uint32_t i = 0; i < field_count; i++) {
            char name[160];
            /* a multiset is written as an object of element -> count: its elements are names */
            if (types[i].id == TYPE_MULTISET && !type_is_string(type_element(types[i]).id))
                return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                                  "The JSON format of table '%s' doesn't support non-string as "
                                  "key type of map (as in Flink). The type is: %s",
                                  table_name ? table_name : "?",
                                  type_format(types[i], name, sizeof name));
        }
    }
    if (kind != FORMAT_KIND_RAW)
        return JOINERY_OK;
    if (field_count != 1)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "The 'raw' format supports only one physical column, but table '%s' "
                          "has %u.",
                          table_name ? table_name : "?", field_count);
    if (!type_is_string(types[0].id) && !type_is_binary(types[0].id)) {
        char name[160];
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "The 'raw' format of table '%s' supports a STRING or BYTES column here, "
                          "not %s (binary numbers are not supported yet).",
                          table_name ? table_name : "?", type_format(types[0], name, sizeof name));
    }
    return JOINERY_OK;
}

const char *format_kind_name(FormatKind kind)
{
    switch (kind) {
    case FORMAT_KIND_CSV:
        return "csv";
    case FORMAT_KIND_RAW:
        return "raw";
    case FORMAT_KIND_DEBEZIUM_JSON:
        return "debezium-json";
    case FORMAT_KIND_CANAL_JSON:
        return "canal-json";
    default:
        return "json";
    }
}

void format_options_init(FormatOptions *options, FormatKind kind)
{
    memset(options, 0, sizeof *options);
    options->kind = kind;
    options->field_delimiter = ',';
    options->quote_character = '"';
}

static const char *option_with_prefix(const CatalogTable *table, const char *prefix,
                                      const char *key)
{
    char full[256];
    snprintf(full, sizeof full, "%s%s", prefix, key);
    return catalog_table_option(table, full);
}

static int read_boolean_option(const CatalogTable *table, const char *prefix, const char *key,
                               bool *result, Diag *diag)
{
    const char *value = option_with_prefix(table, prefix, key);
    if (!value)
        return JOINERY_OK;
    if (strcasecmp(value, "true") == 0)
        *result = true;
    else if (strcasecmp(value, "false") == 0)
        *result = false;
    else
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option '%s%s': '%s' (expected 'true' or 'false')",
                          prefix, key, value);
    return JOINERY_OK;
}

/* Option prefix + key ('SQL' or 'ISO-8601', Flink's timestamp-format.standard), if set. */
static int read_timestamp_standard(const CatalogTable *table, const char *prefix, const char *key,
                                   FormatOptions *options, Diag *diag)
{
    const char *standard = option_with_prefix(table, prefix, key);
    if (!standard)
        return JOINERY_OK;
    if (strcmp(standard, "SQL") == 0)
        options->timestamp_iso_8601 = false;
    else if (strcmp(standard, "ISO-8601") == 0)
        options->timestamp_iso_8601 = true;
    else
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Unsupported value '%s' for '%s%s'. Supported values are [SQL, "
                          "ISO-8601].",
                          standard, prefix, key);
    return JOINERY_OK;
}

/* One character, or a Java-style escape like '\t' or '\u0001'. */
static int read_character_option(const CatalogTable *table, const char *prefix, const char *key,
                                 char *result, Diag *diag)
{
    const char *value = option_with_prefix(table, prefix, key);
    if (!value)
        return JOINERY_OK;
    size_t length = strlen(value);
    if (length == 1) {
        *result = value[0];
        return JOINERY_OK;
    }
    if (length == 2 && value[0] == '\\' && value[1] == 't') {
        *result = '\t';
        return JOINERY_OK;
    }
    if (length == 6 && value[0] == '\\' && value[1] == 'u') {
        unsigned code = 0;
        if (sscanf(value + 2, "%4x", &code) == 1 && code > 0 && code < 128) {
            *result = (char)code;
            return JOINERY_OK;
        }
    }
    return diag_error(diag, JOINERY_ERROR_VALIDATE,
                      "Invalid value for option '%s%s': '%s' (expected a single character)", prefix,
                      key, value);
}

/* Options of the formats added after json and csv: raw, debezium-json, canal-json. */
static int changelog_options_from_table(const CatalogTable *table, const char *prefix,
                                        FormatKind kind, FormatOptions *options, Diag *diag)
{
    static const char *const FAMILIES[] = {"json.", "csv.", "raw.", "debezium-json.",
                                           "canal-json."};
    char own[32];
    snprintf(own, sizeof own, "%s.", format_kind_name(kind));
    size_t prefix_length = strlen(prefix);
    for (size_t i = 0; i < table->option_count; i++) {
        const char *key = table->options[i].key;
        if (strncmp(key, prefix, prefix_length) != 0)
            continue;
        for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++)
            if (strcmp(FAMILIES[f], own) != 0 &&
                strncmp(key + prefix_length, FAMILIES[f], strlen(FAMILIES[f])) == 0)
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "Option '%s' does not apply to format '%s'", key,
                                  format_kind_name(kind));
    }
    char key[64];
    int status;
    if (kind == FORMAT_KIND_RAW) {
        const char *charset = option_with_prefix(table, prefix, "raw.charset");
        if (charset && strcasecmp(charset, "UTF-8") != 0 && strcasecmp(charset, "UTF8") != 0)
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "Unsupported value '%s' for '%sraw.charset': only UTF-8 is "
                              "supported.",
                              charset, prefix);
        const char *endianness = option_with_prefix(table, prefix, "raw.endianness");
        if (endianness && strcmp(endianness, "big-endian") != 0 &&
            strcmp(endianness, "little-endian") != 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Unsupported endianness '%s' for '%sraw.endianness'. Supported "
                              "values are [big-endian, little-endian].",
                              endianness, prefix);
        return JOINERY_OK;
    }
    snprintf(key, sizeof key, "%signore-parse-errors", own);
    if ((status = read_boolean_option(table, prefix, key, &options->ignore_parse_errors, diag)) !=
        0)
        return status;
    if (kind == FORMAT_KIND_DEBEZIUM_JSON &&
        (status = read_boolean_option(table, prefix, "debezium-json.schema-include",
                                      &options->schema_include, diag)) != 0)
        return status;
    snprintf(key, sizeof key, "%stimestamp-format.standard", own);
    if ((status = read_timestamp_standard(table, prefix, key, options, diag)) != 0)
        return status;
    if (kind == FORMAT_KIND_CANAL_JSON &&
        (option_with_prefix(table, prefix, "canal-json.database.include") ||
         option_with_prefix(table, prefix, "canal-json.table.include")))
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Options 'canal-json.database.include' and 'canal-json.table.include' "
                          "are not supported yet: filter on a metadata-free topic per table");
    return JOINERY_OK;
}

int format_options_from_table(const CatalogTable *table, const char *prefix, FormatKind kind,
                              FormatOptions *options, Diag *diag)
{
    format_options_init(options, kind);
    if (kind == FORMAT_KIND_RAW || format_kind_is_changelog(kind))
        return changelog_options_from_table(table, prefix, kind, options, diag);
    const char *other = kind == FORMAT_KIND_JSON ? "csv." : "json.";
    size_t prefix_length = strlen(prefix);
    for (size_t i = 0; i < table->option_count; i++) {
        const char *key = table->options[i].key;
        if (strncmp(key, prefix, prefix_length) == 0 &&
            strncmp(key + prefix_length, other, strlen(other)) == 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Option '%s' does not apply to format '%s'", key,
                              format_kind_name(kind));
    }
    int status;
    if (kind == FORMAT_KIND_JSON) {
        if ((status = read_boolean_option(table, prefix, "json.ignore-parse-errors",
                                          &options->ignore_parse_errors, diag)) != 0 ||
            (status = read_boolean_option(table, prefix, "json.fail-on-missing-field",
                                          &options->fail_on_missing_field, diag)) != 0)
            return status;
        if (options->ignore_parse_errors && options->fail_on_missing_field)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "fail-on-missing-field and ignore-parse-errors shouldn't both be "
                              "true.");
        return read_timestamp_standard(table, prefix, "json.timestamp-format.standard", options,
                                       diag);
    }
    if ((status = read_boolean_option(table, prefix, "csv.ignore-parse-errors",
                                      &options->ignore_parse_errors, diag)) != 0 ||
        (status = read_boolean_option(table, prefix, "csv.allow-comments", &options->allow_comments,
                                      diag)) != 0 ||
        (status = read_character_option(table, prefix, "csv.field-delimiter",
                                        &options->field_delimiter, diag)) != 0 ||
        (status = read_character_option(table, prefix, "csv.quote-character",
                                        &options->quote_character, diag)) != 0 ||
        (status = read_character_option(table, prefix, "csv.escape-character",
                                        &options->escape_character, diag)) != 0)
        return status;
    bool disable_quote = false;
    if ((status = read_boolean_option(table, prefix, "csv.disable-quote-character", &disable_quote,
                                      diag)) != 0)
        return status;
    if (disable_quote)
        options->quote_character = '\0';
    if (options->field_delimiter == '\n' || options->field_delimiter == '\r' ||
        (options->quote_character && options->quote_character == options->field_delimiter))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid CSV options: the field delimiter must differ from the quote "
                          "character and from line breaks");
    options->null_literal = option_with_prefix(table, prefix, "csv.null-literal");
    return JOINERY_OK;
}

static char **copy_names(uint32_t count, const char *const *names, uint32_t *lengths)
{
    char **copy = calloc(count ? count : 1, sizeof *copy);
    if (!copy)
        return NULL;
    for (uint32_t i = 0; i < count; i++) {
        const char *name = names && names[i] ? names[i] : "";
        copy[i] = strdup(name);
        if (!copy[i]) {
            for (uint32_t j = 0; j < i; j++)
                free(copy[j]);
            free(copy);
            return NULL;
        }
        if (lengths)
            lengths[i] = (uint32_t)strlen(name);
    }
    return copy;
}

static void free_names(char **names, uint32_t count)
{
    if (!names)
        return;
    for (uint32_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

FormatDecoder *format_decoder_create(const FormatOptions *options, uint32_t field_count,
                                     const char *const *names, const DataType *types)
{
    FormatDecoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder)
        return NULL;
    decoder->options = *options;
    decoder->field_count = field_count;
    arena_init(&decoder->record_arena, 4096);
    size_t slots = field_count ? field_count : 1;
    decoder->name_lengths = calloc(slots, sizeof *decoder->name_lengths);
    decoder->types = calloc(slots, sizeof *decoder->types);
    decoder->json_field_tokens = calloc(slots, sizeof *decoder->json_field_tokens);
    if (decoder->name_lengths)
        decoder->names = copy_names(field_count, names, decoder->name_lengths);
    if (!decoder->name_lengths || !decoder->types || !decoder->json_field_tokens ||
        !decoder->names) {
        format_decoder_free(decoder);
        return NULL;
    }
    if (field_count)
        memcpy(decoder->types, types, field_count * sizeof *types);
    bool envelope_ready = true;
    if (options->kind == FORMAT_KIND_DEBEZIUM_JSON)
        envelope_ready = format_debezium_init(decoder);
    else if (options->kind == FORMAT_KIND_CANAL_JSON)
        envelope_ready = format_canal_init(decoder);
    if (!envelope_ready || !format_reserve_decoded(decoder, 1)) {
        format_decoder_free(decoder);
        return NULL;
    }
    return decoder;
}

bool format_reserve_decoded(FormatDecoder *decoder, uint32_t count)
{
    if (count <= decoder->decoded_capacity)
        return true;
    uint32_t capacity = decoder->decoded_capacity ? decoder->decoded_capacity : 2;
    while (capacity < count)
        capacity *= 2;
    size_t width = decoder->field_count ? decoder->field_count : 1;
    Value *values = realloc(decoder->decoded_values, capacity * width * sizeof *values);
    if (!values)
        return false;
    decoder->decoded_values = values;
    RowKind *kinds = realloc(decoder->decoded_kinds, capacity * sizeof *kinds);
    if (!kinds)
        return false;
    decoder->decoded_kinds = kinds;
    decoder->decoded_capacity = capacity;
    return true;
}

int format_decode_changelog(FormatDecoder *decoder, const char *data, size_t length,
                            uint32_t *row_count, char *error, size_t error_size)
{
    *row_count = 0;
    if (decoder->options.kind == FORMAT_KIND_DEBEZIUM_JSON ||
        decoder->options.kind == FORMAT_KIND_CANAL_JSON) {
        format_begin_record(decoder);
        if (!format_reserve_scratch(decoder, length)) {
            snprintf(error, error_size, "out of memory");
            return JOINERY_ERROR_NO_MEMORY;
        }
        if (decoder->options.kind == FORMAT_KIND_DEBEZIUM_JSON)
            return format_debezium_decode(decoder, data, length, row_count, error, error_size);
        return format_canal_decode(decoder, data, length, row_count, error, error_size);
    }
    int status = format_decode(decoder, data, length, decoder->decoded_values, error, error_size);
    if (status == FORMAT_RECORD_ROW) {
        decoder->decoded_kinds[0] = ROW_KIND_INSERT;
        *row_count = 1;
    }
    return status;
}

const Value *format_decoded_row(const FormatDecoder *decoder, uint32_t index, RowKind *kind)
{
    *kind = decoder->decoded_kinds[index];
    return decoder->decoded_values + (size_t)index * decoder->field_count;
}

void format_decoder_free(FormatDecoder *decoder)
{
    if (!decoder)
        return;
    format_json_decoder_release(decoder);
    free_names(decoder->names, decoder->field_count);
    free(decoder->name_lengths);
    free(decoder->types);
    free(decoder->json_field_tokens);
    free(decoder->scratch);
    arena_destroy(&decoder->record_arena);
    strbuf_free(&decoder->convert);
    free(decoder->decoded_values);
    free(decoder->decoded_kinds);
    format_decoder_free(decoder->envelope);
    free(decoder);
}

void format_begin_record(FormatDecoder *decoder)
{
    decoder->scratch_used = 0;
    arena_reset(&decoder->record_arena);
}

bool format_reserve_scratch(FormatDecoder *decoder, size_t size)
{
    size_t needed = decoder->scratch_used + size + 1;
    if (needed <= decoder->scratch_capacity)
        return true;
    size_t capacity = decoder->scratch_capacity ? decoder->scratch_capacity : 4096;
    while (capacity < needed)
        capacity *= 2;
    char *scratch = realloc(decoder->scratch, capacity);
    if (!scratch)
        return false;
    decoder->scratch = scratch;
    decoder->scratch_capacity = capacity;
    return true;
}

size_t format_record_length(const FormatDecoder *decoder, const char *data, size_t length,
                            uint32_t *embedded_newlines)
{
    if (decoder->options.kind == FORMAT_KIND_CSV &&
        (decoder->options.quote_character || decoder->options.escape_character))
        return format_csv_record_length(decoder, data, length, embedded_newlines);
    *embedded_newlines = 0;
    const char *newline = memchr(data, '\n', length);
    return newline ? (size_t)(newline - data) : length;
}

int format_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                  char *error, size_t error_size)
{
    if (decoder->options.kind == FORMAT_KIND_RAW)
        return format_raw_decode(decoder, data, length, values, error, error_size);
    if (format_kind_is_changelog(decoder->options.kind)) {
        snprintf(error, error_size, "format '%s' produces changelog rows (format_decode_changelog)",
                 format_kind_name(decoder->options.kind));
        return JOINERY_ERROR_RUNTIME;
    }
    if (length && data[length - 1] == '\r' && !format_csv_is_escaped(decoder, data, length - 1))
        length--; /* a CRLF line end (an escaped CR is the value's) */
    format_begin_record(decoder);
    if (!format_reserve_scratch(decoder, length)) {
        snprintf(error, error_size, "out of memory");
        return JOINERY_ERROR_NO_MEMORY;
    }
    if (decoder->options.kind == FORMAT_KIND_CSV)
        return format_csv_decode(decoder, data, length, values, error, error_size);
    return format_json_decode(decoder, data, length, values, error, error_size);
}

int format_decode_row(FormatDecoder *decoder, const char *data, size_t length, RowBuilder *builder,
                      Row **row, char *error, size_t error_size)
{
    Value stack_values[64];
    Value *values = stack_values;
    if (decoder->field_count > 64) {
        values = malloc(decoder->field_count * sizeof *values);
        if (!values) {
            snprintf(error, error_size, "out of memory");
            return JOINERY_ERROR_NO_MEMORY;
        }
    }
    int status = format_decode(decoder, data, length, values, error, error_size);
    if (status == FORMAT_RECORD_ROW) {
        row_builder_begin(builder, decoder->field_count, ROW_KIND_INSERT);
        for (uint32_t i = 0; i < decoder->field_count; i++)
            value_to_builder(builder, i, decoder->types[i], values[i]);
        *row = row_builder_finish(builder);
        if (!*row) {
            snprintf(error, error_size, "out of memory");
            status = JOINERY_ERROR_NO_MEMORY;
        }
    }
    if (values != stack_values)
        free(values);
    return status;
}

int format_field_error(char *error, size_t error_size, const char *name, const char *reason,
                       const char *text, size_t text_length)
{
    enum { SHOWN = 60 };
    int shown = text_length > SHOWN ? SHOWN : (int)text_length;
    if (text)
        snprintf(error, error_size, "field '%s': %s: \"%.*s%s\"", name, reason, shown, text,
                 text_length > SHOWN ? "..." : "");
    else
        snprintf(error, error_size, "field '%s': %s", name, reason);
    return JOINERY_ERROR_RUNTIME;
}

int format_parse_field(const FormatDecoder *decoder, uint32_t field, const char *text,
                       size_t length, bool iso_8601, Value *value, char *error, size_t error_size)
{
    DataType type = decoder->types[field];
    if (type_is_integer(type.id) && length > 0 && length <= 18) {
        /* fast path: plain decimal digits, optional minus, cannot overflow int64 */
        size_t i = text[0] == '-' ? 1 : 0;
        int64_t number = 0;
        for (; i < length && (unsigned)(text[i] - '0') < 10; i++)
            number = number * 10 + (text[i] - '0');
        if (i == length && length > (text[0] == '-' ? 1u : 0u)) {
            number = text[0] == '-' ? -number : number;
            int64_t low, high;
            switch (type.id) {
            case TYPE_TINYINT:
                low = -128, high = 127;
                break;
            case TYPE_SMALLINT:
                low = -32768, high = 32767;
                break;
            case TYPE_INT:
                low = INT32_MIN, high = INT32_MAX;
                break;
            default:
                low = INT64_MIN, high = INT64_MAX;
                break;
            }
            if (number >= low && number <= high) {
                *value = value_int(number);
                return 0;
            }
        }
    }
    char reason[160];
    if (length > UINT32_MAX)
        return format_field_error(error, error_size, decoder->names[field], "value too long", NULL,
                                  0);
    if (type.id == TYPE_TIMESTAMP || type.id == TYPE_TIMESTAMP_LTZ) {
        /* Flink is strict about the date/time separator of the chosen standard. */
        const char *cursor = text, *end = text + length;
        while (cursor < end && isspace((unsigned char)*cursor))
            cursor++;
        if (end - cursor > 10) {
            char separator = cursor[10];
            char expected = iso_8601 ? 'T' : ' ';
            if ((separator == ' ' || separator == 'T') && separator != expected) {
                char type_name[64];
                snprintf(reason, sizeof reason,
                         "not a valid %s in the %s timestamp format (see "
                         "'json.timestamp-format.standard')",
                         type_format(type, type_name, sizeof type_name),
                         iso_8601 ? "ISO-8601" : "SQL");
                return format_field_error(error, error_size, decoder->names[field], reason, text,
                                          length);
            }
        }
    }
    if (value_parse_text(type, text, (uint32_t)length, NULL, value, reason, sizeof reason) != 0)
        return format_field_error(error, error_size, decoder->names[field], reason, text, length);
    if (type.id == TYPE_FLOAT)
        value->d = (double)(float)value->d;
    return 0;
}

/* Java's Float.toString digits: the shortest decimal that reads back as the same float. */
static int append_float(float number, StrBuf *out)
{
    char text[48];
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, (double)number);
        if (strtof(text, NULL) == number)
            break;
    }
    return value_format_text(type_make(TYPE_DOUBLE, true), value_double(strtod(text, NULL)), out);
}

/* HH:MM:SS then the fraction with as many digits as needed (none when zero). */
static int append_time_of_day(int64_t millis, StrBuf *out)
{
    int64_t seconds = millis / 1000;
    int fraction = (int)(millis % 1000);
    if (strbuf_printf(out, "%02d:%02d:%02d", (int)(seconds / 3600), (int)(seconds / 60 % 60),
                      (int)(seconds % 60)) != 0)
        return -1;
    if (fraction == 0)
        return 0;
    char digits[8];
    snprintf(digits, sizeof digits, "%03d", fraction);
    size_t n = 3;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    return strbuf_printf(out, ".%s", digits);
}

int format_append_value_text(DataType type, Value value, bool iso_8601, StrBuf *out)
{
    switch (type.id) {
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "true" : "false");
    case TYPE_FLOAT:
        return append_float((float)value.d, out);
    case TYPE_TIME:
        return append_time_of_day(value.i, out);
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ: {
        int64_t days = value.i >= 0 ? value.i / 86400000 : -((-value.i + 86399999) / 86400000);
        int64_t millis = value.i - days * 86400000;
        int64_t year;
        unsigned month, day;
        datetime_civil_from_days(days, &year, &month, &day);
        if (strbuf_printf(out, "%04lld-%02u-%02u%c", (long long)year, month, day,
                          iso_8601 ? 'T' : ' ') != 0 ||
            append_time_of_day(millis, out) != 0)
            return -1;
        return type.id == TYPE_TIMESTAMP_LTZ ? strbuf_append_char(out, 'Z') : 0;
    }
    default:
        return value_format_text(type, value, out);
    }
}

FormatEncoder *format_encoder_create(const FormatOptions *options, uint32_t field_count,
                                     const char *const *names, const DataType *types)
{
    FormatEncoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder)
        return NULL;
    encoder->options = *options;
    encoder->field_count = field_count;
    encoder->names = copy_names(field_count, names, NULL);
    encoder->types = calloc(field_count ? field_count : 1, sizeof *encoder->types);
    if (!encoder->names || !encoder->types) {
        format_encoder_free(encoder);
        return NULL;
    }
    if (field_count)
        memcpy(encoder->types, types, field_count * sizeof *types);
    return encoder;
}

void format_encoder_free(FormatEncoder *encoder)
{
    if (!encoder)
        return;
    free_names(encoder->names, encoder->field_count);
    free(encoder->types);
    strbuf_free(&encoder->scratch);
    free(encoder);
}

int format_encode_row(FormatEncoder *encoder, const Row *row, StrBuf *out)
{
    int status;
    switch (encoder->options.kind) {
    case FORMAT_KIND_CSV:
        status = format_csv_encode(encoder, row, out);
        break;
    case FORMAT_KIND_RAW:
        status = format_raw_encode(encoder, row, out);
        break;
    case FORMAT_KIND_DEBEZIUM_JSON:
        status = format_debezium_encode(encoder, row, out);
        break;
    case FORMAT_KIND_CANAL_JSON:
        status = format_canal_encode(encoder, row, out);
        break;
    default:
        status = format_json_encode(encoder, row, out);
        break;
    }
    if (status == JOINERY_ERROR_RUNTIME)
        return status; /* a value the format cannot write: encoder->error says why */
    return status == 0 ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
}

const char *format_encoder_error(const FormatEncoder *encoder)
{
    return encoder->error[0] ? encoder->error : "out of memory";
}

int format_decode_event_row(FormatDecoder *decoder, const char *label, const char *text,
                            size_t length, uint32_t index, RowKind kind, char *error,
                            size_t error_size)
{
    if (!format_reserve_decoded(decoder, index + 1)) {
        snprintf(error, error_size, "out of memory");
        return JOINERY_ERROR_NO_MEMORY;
    }
    Value *values = decoder->decoded_values + (size_t)index * decoder->field_count;
    char reason[400];
    int status = format_json_decode(decoder, text, length, values, reason, sizeof reason);
    if (status == FORMAT_RECORD_EMPTY) {
        snprintf(error, error_size, "%s is empty", label);
        return JOINERY_ERROR_RUNTIME;
    }
    if (status < 0) {
        snprintf(error, error_size, "in %s: %s", label, reason);
        return status;
    }
    decoder->decoded_kinds[index] = kind;
    return FORMAT_RECORD_ROW;
}

int format_decode_envelope(FormatDecoder *decoder, const char *data, size_t length, Value *parts,
                           int count, char *error, size_t error_size)
{
    FormatDecoder *envelope = decoder->envelope;
    envelope->scratch_used = 0;
    if (!format_reserve_scratch(envelope, length)) {
        snprintf(error, error_size, "out of memory");
        return JOINERY_ERROR_NO_MEMORY;
    }
    int status = format_json_decode(envelope, data, length, parts, error, error_size);
    if (status != FORMAT_RECORD_ROW)
        return status;
    for (int i = 0; i < count; i++)
        if (parts[i].is_null) {
            parts[i] = value_string(NULL, 0);
            parts[i].is_null = true;
        }
    return FORMAT_RECORD_ROW;
}
