/*
 * canal_json.c - Flink's 'canal-json' format: Canal change events
 * {"data": [{...}, ...], "old": [{...}, ...], "type": "INSERT|UPDATE|DELETE",
 * "isDdl": false, "database": ..., "table": ..., ...}.
 *
 * Decoding: an envelope decoder (json.c, STRING fields) finds the parts;
 * "data" and "old" come back as raw JSON array text, split here into
 * elements, each decoded with the table's decoder. INSERT gives +I per
 * element of "data", DELETE -D per element, UPDATE -U then +U per element:
 * +U is data[i], -U is old[i] with the fields old[i] lacks taken from
 * data[i] (Canal lists only the changed columns in "old"). DDL events
 * (isDdl true, or type CREATE) give no row; another type is an error.
 *
 * Encoding, as Flink's serializer: {"data":[{...}],"type":"INSERT"} for
 * +I/+U and "DELETE" for -U/-D.
 *
 * Invariant: as in debezium_json.c, the elements are disjoint spans of the
 * record, decoded with scratch reserved for the whole record.
 */
#include "engine/format/format_internal.h"

#include <stdio.h>
#include <string.h>

enum { CANAL_DATA = 0, CANAL_OLD, CANAL_TYPE, CANAL_IS_DDL, CANAL_FIELDS };

bool format_canal_init(FormatDecoder *decoder)
{
    static const char *const NAMES[CANAL_FIELDS] = {"data", "old", "type", "isDdl"};
    DataType types[CANAL_FIELDS];
    for (int i = 0; i < CANAL_FIELDS; i++)
        types[i] = type_make_varchar(TYPE_STRING_LENGTH, true);
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_JSON);
    decoder->envelope = format_decoder_create(&options, CANAL_FIELDS, NAMES, types);
    return decoder->envelope != NULL && format_reserve_decoded(decoder, 2);
}

static bool is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Finds the next element of the JSON array text [text, text + length) from
 * *cursor (just after '[' for the first element, else just after the
 * previous element). Returns 1 with the element's span, 0 at the closing
 * ']', -1 when the text is not a well-formed array at this point.
 */
static int canal_next_element(const char *text, size_t length, size_t *cursor, bool first,
                              const char **element, size_t *element_length)
{
    size_t i = *cursor;
    while (i < length && is_json_space(text[i]))
        i++;
    if (i >= length)
        return -1;
    if (text[i] == ']') {
        *cursor = i + 1;
        return 0;
    }
    if (!first) {
        if (text[i] != ',')
            return -1;
        i++;
        while (i < length && is_json_space(text[i]))
            i++;
    }
    size_t start = i;
    int depth = 0;
    bool in_string = false;
    for (; i < length; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                break; /* the array's own ']' */
            depth--;
        } else if (c == ',' && depth == 0) {
            break;
        }
    }
    if (in_string || depth != 0 || i >= length)
        return -1;
    size_t stop = i;
    while (stop > start && is_json_space(text[stop - 1]))
        stop--;
    if (stop == start)
        return -1;
    *element = text + start;
    *element_length = stop - start;
    *cursor = i;
    return 1;
}

/* Positions *cursor after the '[' of an array text; false when it is no array. */
static bool canal_open_array(Value array, size_t *cursor)
{
    size_t i = 0;
    while (i < array.s.len && is_json_space(array.s.ptr[i]))
        i++;
    if (i >= array.s.len || array.s.ptr[i] != '[')
        return false;
    *cursor = i + 1;
    return true;
}

static int canal_decode_element(FormatDecoder *decoder, const char *part, uint32_t position,
                                const char *element, size_t element_length, uint32_t index,
                                RowKind kind, char *error, size_t error_size)
{
    char label[64];
    snprintf(label, sizeof label, "\"%s\"[%u]", part, position);
    return format_decode_event_row(decoder, label, element, element_length, index, kind, error,
                                   error_size);
}

int format_canal_decode(FormatDecoder *decoder, const char *data, size_t length,
                        uint32_t *row_count, char *error, size_t error_size)
{
    *row_count = 0;
    Value parts[CANAL_FIELDS];
    int status =
        format_decode_envelope(decoder, data, length, parts, CANAL_FIELDS, error, error_size);
    if (status != FORMAT_RECORD_ROW)
        return status;
    Value type = parts[CANAL_TYPE];
    if (type.is_null) {
        snprintf(error, error_size, "field 'type' is missing");
        return JOINERY_ERROR_RUNTIME;
    }
    Value is_ddl = parts[CANAL_IS_DDL];
    if ((!is_ddl.is_null && is_ddl.s.len == 4 && memcmp(is_ddl.s.ptr, "true", 4) == 0) ||
        (type.s.len == 6 && memcmp(type.s.ptr, "CREATE", 6) == 0))
        return FORMAT_RECORD_ROW; /* a DDL event: no row */
    RowKind kind;
    bool update = false;
    if (type.s.len == 6 && memcmp(type.s.ptr, "INSERT", 6) == 0)
        kind = ROW_KIND_INSERT;
    else if (type.s.len == 6 && memcmp(type.s.ptr, "DELETE", 6) == 0)
        kind = ROW_KIND_DELETE;
    else if (type.s.len == 6 && memcmp(type.s.ptr, "UPDATE", 6) == 0) {
        kind = ROW_KIND_UPDATE_AFTER;
        update = true;
    } else {
        snprintf(error, error_size, "Unknown \"type\" value \"%.*s\"",
                 type.s.len > 20 ? 20 : (int)type.s.len, type.s.ptr);
        return JOINERY_ERROR_RUNTIME;
    }
    Value rows = parts[CANAL_DATA];
    size_t cursor = 0;
    if (rows.is_null || !canal_open_array(rows, &cursor)) {
        snprintf(error, error_size, "field 'data' is %s",
                 rows.is_null ? "missing" : "not an array");
        return JOINERY_ERROR_RUNTIME;
    }
    Value old = parts[CANAL_OLD];
    size_t old_cursor = 0;
    if (update && (old.is_null || !canal_open_array(old, &old_cursor))) {
        snprintf(error, error_size, "field 'old' is %s for an UPDATE",
                 old.is_null ? "missing" : "not an array");
        return JOINERY_ERROR_RUNTIME;
    }
    uint32_t count = 0, position = 0;
    uint32_t width = decoder->field_count;
    for (;; position++) {
        const char *element;
        size_t element_length;
        int found = canal_next_element(rows.s.ptr, rows.s.len, &cursor, position == 0, &element,
                                       &element_length);
        if (found < 0) {
            snprintf(error, error_size, "field 'data' is not a well-formed array");
            return JOINERY_ERROR_RUNTIME;
        }
        if (found == 0)
            break;
        if (!update) {
            status = canal_decode_element(decoder, "data", position, element, element_length, count,
                                          kind, error, error_size);
            if (status != FORMAT_RECORD_ROW)
                return status;
            count++;
            continue;
        }
        /* after first: then the old element, whose absent fields come from the after row */
        status = canal_decode_element(decoder, "data", position, element, element_length, count + 1,
                                      ROW_KIND_UPDATE_AFTER, error, error_size);
        if (status != FORMAT_RECORD_ROW)
            return status;
        const char *old_element;
        size_t old_length;
        found = canal_next_element(old.s.ptr, old.s.len, &old_cursor, position == 0, &old_element,
                                   &old_length);
        if (found <= 0) {
            snprintf(error, error_size, "field 'old' has no element %u for \"data\"[%u]", position,
                     position);
            return JOINERY_ERROR_RUNTIME;
        }
        status = canal_decode_element(decoder, "old", position, old_element, old_length, count,
                                      ROW_KIND_UPDATE_BEFORE, error, error_size);
        if (status != FORMAT_RECORD_ROW)
            return status;
        Value *before = decoder->decoded_values + (size_t)count * width;
        const Value *after = before + width;
        for (uint32_t field = 0; field < width; field++)
            if (decoder->json_field_tokens[field] < 0)
                before[field] = after[field];
        count += 2;
    }
    *row_count = count;
    return FORMAT_RECORD_ROW;
}

int format_canal_encode(FormatEncoder *encoder, const Row *row, StrBuf *out)
{
    if (strbuf_append_cstr(out, "{\"data\":[") != 0 || format_json_encode(encoder, row, out) != 0)
        return -1;
    return strbuf_append_cstr(out, row_kind_is_accumulate(row_kind(row))
                                       ? "],\"type\":\"INSERT\"}"
                                       : "],\"type\":\"DELETE\"}");
}
