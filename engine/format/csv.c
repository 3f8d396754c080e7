/*
 * csv.c - Flink's 'csv' format: RFC 4180 records with a configurable field
 * delimiter, quote character (doubled inside quotes to stand for itself),
 * optional escape character, optional '#' comment lines and null literal.
 *
 * Decoding: fields are split in one pass; a field is copied into the
 * decoder's scratch only when it holds doubled quotes or escapes, else its
 * value points into the record. An empty field is NULL for non-string
 * types and the empty string for strings (as Flink); a field equal to
 * csv.null-literal is NULL for every type. The record must have exactly one
 * column per field.
 *
 * Encoding: values are written in the same text forms the decoder reads;
 * a field is quoted when it holds the delimiter, the quote, a line break or
 * leading/trailing blanks. NULL is written as the null literal (or empty).
 */
#include "engine/format/format_internal.h"

#include "engine/base/utf8.h"

#include "engine/base/binary.h"

#include <stdio.h>
#include <string.h>

size_t format_csv_record_length(const FormatDecoder *decoder, const char *data, size_t length,
                                uint32_t *embedded_newlines)
{
    char quote = decoder->options.quote_character; /* '\0': none */
    char escape = decoder->options.escape_character;
    *embedded_newlines = 0;
    const char *newline = memchr(data, '\n', length);
    size_t line_length = newline ? (size_t)(newline - data) : length;
    if ((!quote || !memchr(data, quote, line_length)) &&
        (!escape || !memchr(data, escape, line_length)))
        return line_length;
    bool in_quotes = false;
    uint32_t newlines = 0;
    for (size_t i = 0; i < length; i++) {
        char c = data[i];
        if (escape && c == escape) {
            if (i + 1 < length && data[i + 1] == '\n')
                newlines++;
            i++;
        } else if (quote && c == quote) {
            in_quotes = !in_quotes;
        } else if (c == '\n') {
            if (!in_quotes) {
                *embedded_newlines = newlines;
                return i;
            }
            newlines++;
        }
    }
    *embedded_newlines = newlines;
    return length;
}

bool format_csv_is_escaped(const FormatDecoder *decoder, const char *data, size_t at)
{
    char escape = decoder->options.escape_character;
    if (decoder->options.kind != FORMAT_KIND_CSV || !escape)
        return false;
    size_t run = 0; /* escape characters right before `at`: an odd run escapes it */
    while (run < at && data[at - 1 - run] == escape)
        run++;
    return run % 2 == 1;
}

static int csv_convert(FormatDecoder *decoder, uint32_t field, const char *text, size_t length,
                       bool quoted, Value *value, char *error, size_t error_size)
{
    DataType type = decoder->types[field];
    const char *null_literal = decoder->options.null_literal;
    if (null_literal && strlen(null_literal) == length && memcmp(null_literal, text, length) == 0) {
        *value = value_null();
        return 0;
    }
    if (type_is_string(type.id)) {
        *value = value_string(text, (uint32_t)length);
        return 0;
    }
    if (length == 0) {
        *value = value_null();
        return 0;
    }
    if (type_is_binary(type.id)) {
        /* base64 (an empty field is NULL), as Flink's csv format (Jackson) writes byte arrays */
        strbuf_clear(&decoder->convert);
        int status = binary_decode_base64(text, length, &decoder->convert);
        char *bytes =
            status == 0 ? arena_alloc(&decoder->record_arena, decoder->convert.length + 1) : NULL;
        if (!bytes)
            return format_field_error(error, error_size, decoder->names[field],
                                      status > 0 ? "not valid base64" : "out of memory", text,
                                      length);
        if (decoder->convert.length)
            memcpy(bytes, decoder->convert.data, decoder->convert.length);
        *value = value_string(bytes, (uint32_t)decoder->convert.length);
        return 0;
    }
    (void)quoted;
    return format_parse_field(decoder, field, text, length, false, value, error, error_size);
}

int format_csv_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                      char *error, size_t error_size)
{
    const FormatOptions *options = &decoder->options;
    if (length == 0)
        return FORMAT_RECORD_EMPTY;
    if (options->allow_comments && data[0] == '#')
        return FORMAT_RECORD_EMPTY;
    /* a record must be UTF-8, as Jackson's CSV parser (Flink's csv format) reads it */
    size_t valid = utf8_valid_prefix(data, length);
    if (valid < length) {
        snprintf(error, error_size, "malformed CSV at byte %zu: invalid UTF-8 (byte 0x%02x)",
                 valid + 1, (unsigned char)data[valid]);
        return JOINERY_ERROR_RUNTIME;
    }
    char delimiter = options->field_delimiter;
    char quote = options->quote_character;
    char escape = options->escape_character;
    const char *cursor = data, *end = data + length;
    uint32_t column = 0;
    for (;;) {
        const char *text;
        size_t text_length;
        bool quoted = false;
        if (quote && cursor < end && *cursor == quote) {
            quoted = true;
            const char *start = ++cursor;
            char *out = NULL;
            for (;;) {
                if (cursor >= end) {
                    snprintf(error, error_size,
                             "malformed CSV at byte %zu: unterminated quoted field",
                             (size_t)(start - data));
                    return JOINERY_ERROR_RUNTIME;
                }
                char c = *cursor;
                bool doubled = c == quote && cursor + 1 < end && cursor[1] == quote;
                bool escaped = escape && c == escape && cursor + 1 < end;
                if (c == quote && !doubled)
                    break;
                if ((doubled || escaped) && !out) {
                    /* switch to copying: everything so far, then the rest char by char */
                    out = decoder->scratch + decoder->scratch_used;
                    memcpy(out, start, (size_t)(cursor - start));
                    out += cursor - start;
                }
                if (doubled || escaped) {
                    *out++ = cursor[1];
                    cursor += 2;
                    continue;
                }
                if (out)
                    *out++ = c;
                cursor++;
            }
            if (out) {
                text = decoder->scratch + decoder->scratch_used;
                text_length = (size_t)(out - text);
                decoder->scratch_used += text_length;
            } else {
                text = start;
                text_length = (size_t)(cursor - start);
            }
            cursor++; /* closing quote */
            if (cursor < end && *cursor != delimiter) {
                snprintf(error, error_size,
                         "malformed CSV at byte %zu: expected '%c' after a closing quote",
                         (size_t)(cursor - data) + 1, delimiter);
                return JOINERY_ERROR_RUNTIME;
            }
        } else {
            const char *start = cursor;
            const char *stop = memchr(cursor, delimiter, (size_t)(end - cursor));
            if (!stop)
                stop = end;
            if (escape && memchr(start, escape, (size_t)(stop - start))) {
                char *out = decoder->scratch + decoder->scratch_used;
                char *out_start = out;
                while (cursor < end && *cursor != delimiter) {
                    if (*cursor == escape && cursor + 1 < end)
                        cursor++;
                    *out++ = *cursor++;
                }
                text = out_start;
                text_length = (size_t)(out - out_start);
                decoder->scratch_used += text_length;
            } else {
                cursor = stop;
                text = start;
                text_length = (size_t)(stop - start);
            }
        }
        if (column < decoder->field_count) {
            int status = csv_convert(decoder, column, text, text_length, quoted, &values[column],
                                     error, error_size);
            if (status != 0)
                return status;
        }
        column++;
        if (cursor >= end)
            break;
        cursor++; /* delimiter */
    }
    if (column != decoder->field_count) {
        snprintf(error, error_size, "expected %u fields but found %u", decoder->field_count,
                 column);
        return JOINERY_ERROR_RUNTIME;
    }
    return FORMAT_RECORD_ROW;
}

static bool csv_needs_quotes(const FormatOptions *options, const char *text, size_t length)
{
    if (length == 0)
        return false;
    if (text[0] == ' ' || text[0] == '\t' || text[length - 1] == ' ' || text[length - 1] == '\t')
        return true;
    if (options->allow_comments && text[0] == '#')
        return true;
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        if (c == options->field_delimiter || c == options->quote_character || c == '\n' ||
            c == '\r' || (options->escape_character && c == options->escape_character))
            return true;
    }
    return false;
}

/*
 * Without a quote character a field is written bare: the characters the decoder would
 * read as structure (the delimiter, the escape character, a line break, and '#' first
 * in a record when comments are allowed) are each preceded by the escape character.
 */
static bool csv_needs_escape(const FormatOptions *options, char c, bool record_start)
{
    return c == options->field_delimiter || c == '\n' || c == '\r' ||
           (options->escape_character && c == options->escape_character) ||
           (record_start && options->allow_comments && c == '#');
}

/*
 * Appends one field's text so that the decoder reads it back unchanged: quoted when it
 * holds structure (the quote doubled and, with an escape character, that escaped too:
 * the decoder reads "\x" inside quotes as x), or escaped when there is no quote
 * character. A value that neither can protect (no quote and no escape character, and
 * a delimiter or line break in it) is an error: written bare it would be read back as
 * other fields or records. Returns 0, -1 (no memory) or 1 (error in encoder->error).
 */
static int csv_append_field(FormatEncoder *encoder, bool record_start, const char *text,
                            size_t length, StrBuf *out)
{
    const FormatOptions *options = &encoder->options;
    char quote = options->quote_character;
    char escape = options->escape_character;
    if (quote) {
        if (!csv_needs_quotes(options, text, length))
            return strbuf_append(out, text, length);
        if (strbuf_append_char(out, quote) != 0)
            return -1;
        size_t run = 0;
        for (size_t i = 0; i < length; i++) {
            char c = text[i];
            if (c != quote && !(escape && c == escape))
                continue;
            /* the text before it and the character itself, then the character again
               (doubled quote) or the escape character before it */
            if (strbuf_append(out, text + run, i - run) != 0 ||
                strbuf_append_char(out, c == quote ? quote : escape) != 0 ||
                strbuf_append_char(out, c) != 0)
                return -1;
            run = i + 1;
        }
        if (strbuf_append(out, text + run, length - run) != 0)
            return -1;
        return strbuf_append_char(out, quote);
    }
    size_t run = 0;
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        if (!csv_needs_escape(options, c, record_start && i == 0))
            continue;
        if (!escape) {
            snprintf(encoder->error, sizeof encoder->error,
                     "csv cannot write a value holding %s without a quote or an escape "
                     "character: set 'csv.escape-character' or leave "
                     "'csv.disable-quote-character' off",
                     c == options->field_delimiter ? "the field delimiter"
                     : c == '#'                    ? "a leading '#' (comments are allowed)"
                                                   : "a line break");
            return 1;
        }
        if (strbuf_append(out, text + run, i - run) != 0 || strbuf_append_char(out, escape) != 0 ||
            strbuf_append_char(out, c) != 0)
            return -1;
        run = i + 1;
    }
    return strbuf_append(out, text + run, length - run);
}

int format_csv_encode(FormatEncoder *encoder, const Row *row, StrBuf *out)
{
    const FormatOptions *options = &encoder->options;
    for (uint32_t field = 0; field < encoder->field_count; field++) {
        DataType type = encoder->types[field];
        if (field > 0 && strbuf_append_char(out, options->field_delimiter) != 0)
            return -1;
        Value value = value_from_row(row, field, type);
        if (value.is_null) {
            if (options->null_literal && strbuf_append_cstr(out, options->null_literal) != 0)
                return -1;
            continue;
        }
        if (type_is_string(type.id)) {
            int status = csv_append_field(encoder, field == 0, value.s.ptr, value.s.len, out);
            if (status != 0)
                return status < 0 ? -1 : JOINERY_ERROR_RUNTIME;
            continue;
        }
        strbuf_clear(&encoder->scratch);
        int status =
            type_is_binary(type.id)
                ? binary_append_base64((const uint8_t *)value.s.ptr, value.s.len, &encoder->scratch)
                : format_append_value_text(type, value, false, &encoder->scratch);
        if (status != 0)
            return -1;
        status = csv_append_field(encoder, field == 0,
                                  encoder->scratch.data ? encoder->scratch.data : "",
                                  encoder->scratch.length, out);
        if (status != 0)
            return status < 0 ? -1 : JOINERY_ERROR_RUNTIME;
    }
    return 0;
}
