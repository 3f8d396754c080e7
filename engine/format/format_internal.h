/*
 * format_internal.h - the decoder and encoder structures shared by
 * format.c (generic part), json.c and csv.c. Not for connectors.
 *
 * Invariant: before a record is decoded, the scratch buffer holds at least
 * as many bytes as the record, so unescaped strings (never longer than
 * their escaped form) are appended without reallocating: string Values
 * pointing into scratch stay valid for the whole record.
 */
#ifndef JOINERY_FORMAT_INTERNAL_H
#define JOINERY_FORMAT_INTERNAL_H

#include "engine/format/format.h"

struct FormatDecoder {
    FormatOptions options;
    uint32_t field_count;
    char **names;
    uint32_t *name_lengths;
    DataType *types;
    char *scratch; /* unescaped strings of the current record */
    size_t scratch_capacity;
    size_t scratch_used;
    void *json_tokens; /* jsmntok_t array (json.c) */
    uint32_t json_token_capacity;
    int32_t *json_field_tokens; /* token of each field's value, -1 when absent */
    bool json_scan_fast_off;    /* tests: tokenize every record with jsmn (json.c) */
    /* format_decode_changelog's rows: decoded_capacity rows of field_count values */
    Value *decoded_values;
    RowKind *decoded_kinds;
    uint32_t decoded_capacity;
    /* debezium-json, canal-json: decoder of the envelope's fields, as raw JSON text */
    struct FormatDecoder *envelope;
    /* values built while decoding (BYTES from base64, MAP encodings): reset with scratch at
       the start of each record, so they too stay valid for the whole record */
    Arena record_arena;
    StrBuf convert; /* temporary text of one value being converted */
};

struct FormatEncoder {
    FormatOptions options;
    uint32_t field_count;
    char **names;
    DataType *types;
    StrBuf scratch;  /* text of one value */
    char error[256]; /* why the last encode failed with JOINERY_ERROR_RUNTIME */
};

/* Starts a record: empties scratch and the record arena. */
void format_begin_record(FormatDecoder *decoder);
/* Makes sure scratch can take `size` more bytes from scratch_used; false on no memory. */
bool format_reserve_scratch(FormatDecoder *decoder, size_t size);
/*
 * Writes `field '<name>': <reason>: "<text>"` (text shortened) into error
 * and returns JOINERY_ERROR_RUNTIME.
 */
int format_field_error(char *error, size_t error_size, const char *name, const char *reason,
                       const char *text, size_t text_length);
/*
 * Converts text to a value of `type` (strings point into text). For the
 * timestamp types, `iso_8601` selects 'T' as the date/time separator (else
 * a space, SQL standard). Returns 0, or JOINERY_ERROR_RUNTIME with the
 * field error written.
 */
int format_parse_field(const FormatDecoder *decoder, uint32_t field, const char *text,
                       size_t length, bool iso_8601, Value *value, char *error, size_t error_size);
/* Appends the text of a non-NULL value as both formats write it (no quoting). */
int format_append_value_text(DataType type, Value value, bool iso_8601, StrBuf *out);

int format_json_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                       char *error, size_t error_size);
int format_csv_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                      char *error, size_t error_size);
/* True when data[at] is escaped: a csv escape character run of odd length right before it. */
bool format_csv_is_escaped(const FormatDecoder *decoder, const char *data, size_t at);
size_t format_csv_record_length(const FormatDecoder *decoder, const char *data, size_t length,
                                uint32_t *embedded_newlines);
int format_json_encode(FormatEncoder *encoder, const Row *row, StrBuf *out);
int format_csv_encode(FormatEncoder *encoder, const Row *row, StrBuf *out);
/* Makes room for `count` decoded rows; false on no memory. */
bool format_reserve_decoded(FormatDecoder *decoder, uint32_t count);
/*
 * Decodes one row of a change event (the JSON object text of "after",
 * "before" or a "data" element) into decoded row `index` with `kind`,
 * reserving room for it. `label` names the part in errors (e.g. "\"after\"").
 * Returns FORMAT_RECORD_ROW or a negative JoineryStatus with `error` filled.
 */
int format_decode_event_row(FormatDecoder *decoder, const char *label, const char *text,
                            size_t length, uint32_t index, RowKind kind, char *error,
                            size_t error_size);
/*
 * Decodes a change event's envelope (debezium-json, canal-json) with the
 * decoder's envelope decoder into parts[0..count-1]; NULL parts get a
 * defined empty text (value_null leaves it unset). Returns
 * FORMAT_RECORD_ROW, FORMAT_RECORD_EMPTY, or a negative JoineryStatus with
 * `error` filled.
 */
int format_decode_envelope(FormatDecoder *decoder, const char *data, size_t length, Value *parts,
                           int count, char *error, size_t error_size);
/* raw.c: the record is the one string field (never fails for a string field). */
int format_raw_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                      char *error, size_t error_size);
int format_raw_encode(FormatEncoder *encoder, const Row *row, StrBuf *out);
/* debezium_json.c / canal_json.c: envelope decoders, changelog decoding, encoding. */
bool format_debezium_init(FormatDecoder *decoder);
int format_debezium_decode(FormatDecoder *decoder, const char *data, size_t length,
                           uint32_t *row_count, char *error, size_t error_size);
int format_debezium_encode(FormatEncoder *encoder, const Row *row, StrBuf *out);
bool format_canal_init(FormatDecoder *decoder);
int format_canal_decode(FormatDecoder *decoder, const char *data, size_t length,
                        uint32_t *row_count, char *error, size_t error_size);
int format_canal_encode(FormatEncoder *encoder, const Row *row, StrBuf *out);
/* Frees json.c's per-decoder memory. */
void format_json_decoder_release(FormatDecoder *decoder);

#endif
