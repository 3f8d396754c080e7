/*
 * format.h - record formats (JSON lines, CSV): one record of bytes <-> one
 * row of given field names and types. Shared by the filesystem connector
 * and the message-queue connectors.
 *
 * Decoding: a FormatDecoder turns one record into one Value per field.
 * String values point into the record itself or into the decoder's scratch
 * buffer (escaped JSON strings, quoted CSV fields); they stay valid until
 * the next decode call on the same decoder and as long as the record bytes
 * do. Decoding never allocates per field: the scratch buffer and the JSON
 * token array grow once and are reused. Numbers are converted from their
 * text with value_parse_text, never through double for integers and
 * decimals, so BIGINT keeps every digit.
 *
 * Errors: a bad record gives JOINERY_ERROR_RUNTIME and a short reason in
 * the caller's buffer, without location ("field 'amount': not a valid
 * DECIMAL(10, 2): \"abc\"", "malformed JSON at byte 12"); the caller
 * prefixes where the record came from (file and line, topic and offset).
 *
 * Encoding: a FormatEncoder appends one record (no line terminator) for a
 * row of its fields to a StrBuf, as Flink's json and csv formats write them.
 */
#ifndef JOINERY_FORMAT_H
#define JOINERY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"
#include "engine/base/value.h"

typedef enum FormatKind {
    FORMAT_KIND_JSON = 1,
    FORMAT_KIND_CSV = 2,
    FORMAT_KIND_RAW = 3,           /* the whole record is the one STRING column (raw.c) */
    FORMAT_KIND_DEBEZIUM_JSON = 4, /* Debezium change events: before/after/op (debezium_json.c) */
    FORMAT_KIND_CANAL_JSON = 5,    /* Canal change events: data/old/type (canal_json.c) */
} FormatKind;

/* Options of both formats; each format reads its own. */
typedef struct FormatOptions {
    FormatKind kind;
    bool ignore_parse_errors;   /* json./csv.ignore-parse-errors: skip bad records */
    bool fail_on_missing_field; /* json.fail-on-missing-field (default false: NULL) */
    bool timestamp_iso_8601;    /* json.timestamp-format.standard = 'ISO-8601' */
    char field_delimiter;       /* csv.field-delimiter, default ',' */
    char quote_character;       /* csv.quote-character, default '"'; '\0' = no quoting */
    char escape_character;      /* csv.escape-character, '\0' = none (default) */
    bool allow_comments;        /* csv.allow-comments: skip lines starting with '#' */
    const char *null_literal;   /* csv.null-literal, NULL = none; borrowed */
    bool schema_include;        /* debezium-json.schema-include: events wrapped in "payload" */
} FormatOptions;

/* Outcome of decoding one record (negative values are JoineryStatus errors). */
typedef enum FormatRecordStatus {
    FORMAT_RECORD_ROW = 1,   /* values filled */
    FORMAT_RECORD_EMPTY = 2, /* blank line or comment: no row, not an error */
} FormatRecordStatus;

/* Maps a format name ('format' option value, case-sensitive) to its kind; false when unknown. */
bool format_kind_from_name(const char *name, FormatKind *kind);
/* Name of a kind ("json", "csv"). */
const char *format_kind_name(FormatKind kind);
/* Default options of a format. Never fails. */
void format_options_init(FormatOptions *options, FormatKind kind);
/*
 * Reads the options of format `kind` from the table's WITH options, keys
 * prefixed by `prefix` ("" for 'json.ignore-parse-errors', "value." for
 * 'value.json.ignore-parse-errors'). Rejects bad values (non-boolean,
 * delimiter not one character, unknown timestamp standard) and options of
 * the other format ('csv.*' with format json). String options are borrowed
 * from the table. Returns JOINERY_OK or JOINERY_ERROR_VALIDATE with diag.
 */
int format_options_from_table(const CatalogTable *table, const char *prefix, FormatKind kind,
                              FormatOptions *options, Diag *diag);

typedef struct FormatDecoder FormatDecoder;

/*
 * Creates a decoder for records of `field_count` fields. `names` and
 * `types` are copied; options are copied (null_literal stays borrowed).
 * Returns NULL when memory is exhausted.
 */
FormatDecoder *format_decoder_create(const FormatOptions *options, uint32_t field_count,
                                     const char *const *names, const DataType *types);
/* Frees the decoder. NULL is a no-op. */
void format_decoder_free(FormatDecoder *decoder);
/*
 * Length of the record starting at data (of `length` bytes available), up
 * to but excluding its terminating '\n' (or the end of data). CSV quoted
 * fields may contain newlines; *embedded_newlines gets how many the record
 * holds (0 for JSON lines). Never fails.
 */
size_t format_record_length(const FormatDecoder *decoder, const char *data, size_t length,
                            uint32_t *embedded_newlines);
/*
 * Decodes one record (without its line terminator; a trailing '\r' is
 * ignored) into values[0..field_count-1]. Returns FORMAT_RECORD_ROW,
 * FORMAT_RECORD_EMPTY (blank line, CSV comment), JOINERY_ERROR_RUNTIME
 * with the reason in error (bad record), or JOINERY_ERROR_NO_MEMORY.
 */
int format_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                  char *error, size_t error_size);
/*
 * Like format_decode, then builds the row of the decoder's fields with
 * `builder` (kind +I); *row is the builder's buffer (valid until the next
 * begin on that builder).
 */
int format_decode_row(FormatDecoder *decoder, const char *data, size_t length, RowBuilder *builder,
                      Row **row, char *error, size_t error_size);

/*
 * Changelog decoding, for every format: json, csv and raw give one +I row
 * per record (none for a blank line); debezium-json gives +I (op c or r),
 * -U and +U (op u) or -D (op d); canal-json gives one row per element of
 * its "data" array (+I, -D) or two (-U with the "old" values, +U) for
 * UPDATE, and none for DDL events. Empty records (Kafka tombstones) give
 * no row. Returns FORMAT_RECORD_ROW with *row_count rows (maybe 0),
 * FORMAT_RECORD_EMPTY, JOINERY_ERROR_RUNTIME with the reason in error, or
 * JOINERY_ERROR_NO_MEMORY. The rows' values are read with
 * format_decoded_row and stay valid until the next decode on the decoder
 * (and as long as the record bytes do).
 */
int format_decode_changelog(FormatDecoder *decoder, const char *data, size_t length,
                            uint32_t *row_count, char *error, size_t error_size);
/* Values (field_count of them) and kind of decoded row `index` (< *row_count). */
const Value *format_decoded_row(const FormatDecoder *decoder, uint32_t index, RowKind *kind);
/* True for the formats whose records carry row kinds (debezium-json, canal-json). */
bool format_kind_is_changelog(FormatKind kind);
/*
 * Checks that a format can carry the given physical fields (raw: exactly
 * one CHAR/VARCHAR/STRING field). Returns JOINERY_OK or
 * JOINERY_ERROR_VALIDATE with a message naming `table_name`.
 */
int format_check_fields(FormatKind kind, uint32_t field_count, const DataType *types,
                        const char *table_name, Diag *diag);

typedef struct FormatEncoder FormatEncoder;

/* Creates an encoder (names and types copied). NULL when memory is exhausted. */
FormatEncoder *format_encoder_create(const FormatOptions *options, uint32_t field_count,
                                     const char *const *names, const DataType *types);
/* Frees the encoder. NULL is a no-op. */
void format_encoder_free(FormatEncoder *encoder);
/*
 * Appends the record for fields 0..field_count-1 of `row` to out, without a
 * line terminator. Returns JOINERY_OK, JOINERY_ERROR_NO_MEMORY, or
 * JOINERY_ERROR_RUNTIME for a value the format's options cannot write so
 * that it reads back unchanged (csv without a quote or an escape character:
 * a delimiter or a line break in a value), with format_encoder_error saying
 * why; out then holds part of the record. The
 * changelog formats write the row's kind: debezium-json {"before":null,
 * "after":{...},"op":"c"} for +I/+U and {"before":{...},"after":null,
 * "op":"d"} for -U/-D; canal-json {"data":[{...}],"type":"INSERT"} or
 * "DELETE". raw writes the string itself (nothing for NULL).
 */
int format_encode_row(FormatEncoder *encoder, const Row *row, StrBuf *out);
/* Why the last format_encode_row failed ("out of memory" unless it said otherwise). */
const char *format_encoder_error(const FormatEncoder *encoder);

/* How format_json_quote escapes, beyond '"', '\\' and control characters. */
typedef enum FormatJsonQuote {
    /* every other byte as it is: the json format, as Flink writes it */
    FORMAT_JSON_QUOTE_MINIMAL = 0,
    /* also DEL and U+2028/U+2029 as \uXXXX, and each ill-formed UTF-8 sequence (maximal
       subpart, as utf8_decode steps over it) as \ufffd, the U+FFFD Java's decoder would
       have made of it: valid UTF-8 JSON whatever the input (the shell) */
    FORMAT_JSON_QUOTE_VALID_UTF8 = 1,
} FormatJsonQuote;

/*
 * The one JSON string escaper: writes text[0..length) as a JSON string,
 * quotes included, through write(context, bytes, length) in pieces (runs of
 * unescaped text, escapes). Control characters use the short escapes (\n,
 * \t, \r, \b, \f) or \u00XX (lowercase hex). Stops at the first write
 * that returns non-zero and returns that; 0 otherwise.
 */
int format_json_quote(const char *text, size_t length, FormatJsonQuote mode,
                      int (*write)(void *context, const char *bytes, size_t length), void *context);

#endif
