/*
 * debezium_json.c - Flink's 'debezium-json' format: Debezium change events
 * {"before": {...}, "after": {...}, "op": "c|r|u|d", ...}, optionally
 * wrapped as {"schema": ..., "payload": {...}} (debezium-json.schema-include).
 *
 * Decoding: an envelope decoder (json.c, fields before/after/op/payload as
 * STRING) finds the parts; nested objects come back as their raw JSON text
 * pointing into the record, which the table's decoder then decodes. op c
 * and r (snapshot read) give +I of "after", u gives -U of "before" and +U
 * of "after", d gives -D of "before". An empty record (a Kafka tombstone
 * following a delete) gives no row. A missing "before" on u or d is an
 * error, as in Flink (Postgres needs REPLICA IDENTITY FULL).
 *
 * Encoding, as Flink's serializer: +I/+U -> {"before":null,"after":{...},
 * "op":"c"}, -U/-D -> {"before":{...},"after":null,"op":"d"}.
 *
 * Invariant: the table decoder's scratch was reserved for the whole record
 * by format_decode_changelog, and the parts decoded are disjoint spans of
 * it, so the strings of every decoded row stay valid together.
 */
#include "engine/format/format_internal.h"

#include <stdio.h>
#include <string.h>

enum { ENVELOPE_BEFORE = 0, ENVELOPE_AFTER, ENVELOPE_OP, ENVELOPE_PAYLOAD, ENVELOPE_FIELDS };

bool format_debezium_init(FormatDecoder *decoder)
{
    static const char *const NAMES[ENVELOPE_FIELDS] = {"before", "after", "op", "payload"};
    DataType types[ENVELOPE_FIELDS];
    for (int i = 0; i < ENVELOPE_FIELDS; i++)
        types[i] = type_make_varchar(TYPE_STRING_LENGTH, true);
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_JSON);
    decoder->envelope = format_decoder_create(&options, ENVELOPE_FIELDS, NAMES, types);
    return decoder->envelope != NULL && format_reserve_decoded(decoder, 2);
}

/* Decodes one nested row (JSON object text) into decoded row `index` with `kind`. */
static int debezium_decode_part(FormatDecoder *decoder, const char *part, Value text,
                                uint32_t index, RowKind kind, char *error, size_t error_size)
{
    char label[64];
    snprintf(label, sizeof label, "\"%s\"", part);
    return format_decode_event_row(decoder, label, text.s.ptr, text.s.len, index, kind, error,
                                   error_size);
}

int format_debezium_decode(FormatDecoder *decoder, const char *data, size_t length,
                           uint32_t *row_count, char *error, size_t error_size)
{
    *row_count = 0;
    Value parts[ENVELOPE_FIELDS];
    int status =
        format_decode_envelope(decoder, data, length, parts, ENVELOPE_FIELDS, error, error_size);
    if (status != FORMAT_RECORD_ROW)
        return status;
    if (decoder->options.schema_include) {
        if (parts[ENVELOPE_PAYLOAD].is_null) {
            snprintf(error, error_size,
                     "field 'payload' is missing (debezium-json.schema-include is true)");
            return JOINERY_ERROR_RUNTIME;
        }
        Value payload = parts[ENVELOPE_PAYLOAD];
        status = format_json_decode(decoder->envelope, payload.s.ptr, payload.s.len, parts, error,
                                    error_size);
        if (status != FORMAT_RECORD_ROW)
            return status == FORMAT_RECORD_EMPTY ? FORMAT_RECORD_EMPTY : status;
    } else if (!parts[ENVELOPE_PAYLOAD].is_null && parts[ENVELOPE_OP].is_null) {
        snprintf(error, error_size,
                 "the event has a \"payload\": set 'debezium-json.schema-include' = 'true'");
        return JOINERY_ERROR_RUNTIME;
    }
    Value op = parts[ENVELOPE_OP];
    if (op.is_null) {
        snprintf(error, error_size, "field 'op' is missing");
        return JOINERY_ERROR_RUNTIME;
    }
    Value before = parts[ENVELOPE_BEFORE], after = parts[ENVELOPE_AFTER];
    char code = op.s.len == 1 ? op.s.ptr[0] : '?';
    switch (code) {
    case 'c':
    case 'r':
        if (after.is_null) {
            snprintf(error, error_size, "field 'after' is null for op '%c'", code);
            return JOINERY_ERROR_RUNTIME;
        }
        status =
            debezium_decode_part(decoder, "after", after, 0, ROW_KIND_INSERT, error, error_size);
        *row_count = status == FORMAT_RECORD_ROW ? 1 : 0;
        return status;
    case 'u':
    case 'd':
        if (before.is_null) {
            snprintf(error, error_size,
                     "The \"before\" field of %s message is null, if you are using Debezium "
                     "Postgres Connector, please check the Postgres table has been set REPLICA "
                     "IDENTITY to FULL level.",
                     code == 'u' ? "UPDATE" : "DELETE");
            return JOINERY_ERROR_RUNTIME;
        }
        status = debezium_decode_part(decoder, "before", before, 0,
                                      code == 'u' ? ROW_KIND_UPDATE_BEFORE : ROW_KIND_DELETE, error,
                                      error_size);
        if (status != FORMAT_RECORD_ROW || code == 'd') {
            *row_count = status == FORMAT_RECORD_ROW ? 1 : 0;
            return status;
        }
        if (after.is_null) {
            snprintf(error, error_size, "field 'after' is null for op 'u'");
            return JOINERY_ERROR_RUNTIME;
        }
        status = debezium_decode_part(decoder, "after", after, 1, ROW_KIND_UPDATE_AFTER, error,
                                      error_size);
        *row_count = status == FORMAT_RECORD_ROW ? 2 : 0;
        return status;
    default:
        snprintf(error, error_size, "Unknown \"op\" value \"%.*s\"",
                 op.s.len > 20 ? 20 : (int)op.s.len, op.s.ptr);
        return JOINERY_ERROR_RUNTIME;
    }
}

int format_debezium_encode(FormatEncoder *encoder, const Row *row, StrBuf *out)
{
    bool accumulate = row_kind_is_accumulate(row_kind(row));
    if (strbuf_append_cstr(out, accumulate ? "{\"before\":null,\"after\":" : "{\"before\":") != 0 ||
        format_json_encode(encoder, row, out) != 0)
        return -1;
    return strbuf_append_cstr(out, accumulate ? ",\"op\":\"c\"}" : ",\"after\":null,\"op\":\"d\"}");
}
