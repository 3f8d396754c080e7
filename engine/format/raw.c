/*
 * raw.c - Flink's 'raw' format: the record's bytes are the value of the
 * table's single physical column (a STRING or BYTES column; the binary
 * number encodings are not supported). Decoding copies only a STRING whose
 * bytes are not well-formed UTF-8: each ill-formed sequence becomes U+FFFD
 * (as Java's UTF-8 decoder makes it), in the decoder's scratch; else the
 * value points into the record. An empty record is an empty string, not NULL
 * (a Kafka tombstone, a record without a value, is the connector's NULL).
 * Encoding appends the string as is; NULL appends nothing.
 *
 * Invariant: format_check_fields admitted exactly one string or bytes field; a
 * decoder built for anything else reports an error per record.
 */
#include "engine/format/format_internal.h"

#include <stdio.h>
#include <string.h>

#include "engine/base/utf8.h"

int format_raw_decode(FormatDecoder *decoder, const char *data, size_t length, Value *values,
                      char *error, size_t error_size)
{
    if (decoder->field_count != 1 ||
        (!type_is_string(decoder->types[0].id) && !type_is_binary(decoder->types[0].id))) {
        snprintf(error, error_size, "the 'raw' format needs exactly one STRING or BYTES column");
        return JOINERY_ERROR_RUNTIME;
    }
    if (length > UINT32_MAX) {
        snprintf(error, error_size, "field '%s': value too long", decoder->names[0]);
        return JOINERY_ERROR_RUNTIME;
    }
    size_t valid = type_is_string(decoder->types[0].id) ? utf8_valid_prefix(data, length) : length;
    if (valid == length) {
        values[0] = value_string(data, (uint32_t)length);
        return FORMAT_RECORD_ROW;
    }
    /* bytes become a STRING as Java's new String(bytes, UTF_8) makes them: each ill-formed
       sequence (its maximal subpart) is one U+FFFD, in the decoder's scratch */
    format_begin_record(decoder);
    if (length > UINT32_MAX / 3 || !format_reserve_scratch(decoder, 3 * length)) {
        snprintf(error, error_size, "out of memory");
        return JOINERY_ERROR_NO_MEMORY;
    }
    char *out = decoder->scratch + decoder->scratch_used;
    memcpy(out, data, valid);
    size_t written = valid;
    for (size_t i = valid; i < length;) {
        uint32_t code_point;
        size_t consumed;
        size_t good = utf8_decode(data + i, length - i, &code_point, &consumed);
        if (good) {
            memcpy(out + written, data + i, good);
            written += good;
        } else {
            written += utf8_encode(0xFFFD, out + written);
        }
        i += consumed;
    }
    decoder->scratch_used += written;
    values[0] = value_string(out, (uint32_t)written);
    return FORMAT_RECORD_ROW;
}

int format_raw_encode(FormatEncoder *encoder, const Row *row, StrBuf *out)
{
    if (encoder->field_count < 1 || row_is_null(row, 0))
        return 0;
    Value value = value_from_row(row, 0, encoder->types[0]);
    if (type_is_string(encoder->types[0].id) || type_is_binary(encoder->types[0].id))
        return strbuf_append(out, value.s.ptr, value.s.len);
    return format_append_value_text(encoder->types[0], value, false, out);
}
