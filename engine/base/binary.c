/*
 * binary.c - hex, base64 and UTF-8 helpers for byte strings (see binary.h);
 * the UTF-8 decoding itself is utf8_decode (utf8.h).
 */
#include "engine/base/binary.h"

#include "engine/base/utf8.h"

static const char HEX_DIGITS[] = "0123456789abcdef";
static const char BASE64_ALPHABET[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int binary_append_hex(const uint8_t *bytes, size_t length, StrBuf *out)
{
    if (strbuf_reserve(out, 2 * length) != 0)
        return -1;
    for (size_t i = 0; i < length; i++) {
        char pair[2] = {HEX_DIGITS[bytes[i] >> 4], HEX_DIGITS[bytes[i] & 15]};
        if (strbuf_append(out, pair, 2) != 0)
            return -1;
    }
    return 0;
}

int binary_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int binary_decode_hex(const char *text, size_t length, StrBuf *out)
{
    if (length % 2 != 0)
        return 1;
    if (strbuf_reserve(out, length / 2) != 0)
        return -1;
    for (size_t i = 0; i < length; i += 2) {
        int high = binary_hex_digit(text[i]), low = binary_hex_digit(text[i + 1]);
        if (high < 0 || low < 0)
            return 1;
        if (strbuf_append_char(out, (char)(high << 4 | low)) != 0)
            return -1;
    }
    return 0;
}

int binary_append_base64(const uint8_t *bytes, size_t length, StrBuf *out)
{
    if (strbuf_reserve(out, (length + 2) / 3 * 4) != 0)
        return -1;
    for (size_t i = 0; i < length; i += 3) {
        uint32_t group = (uint32_t)bytes[i] << 16;
        if (i + 1 < length)
            group |= (uint32_t)bytes[i + 1] << 8;
        if (i + 2 < length)
            group |= bytes[i + 2];
        char quad[4] = {BASE64_ALPHABET[group >> 18 & 63], BASE64_ALPHABET[group >> 12 & 63],
                        i + 1 < length ? BASE64_ALPHABET[group >> 6 & 63] : '=',
                        i + 2 < length ? BASE64_ALPHABET[group & 63] : '='};
        if (strbuf_append(out, quad, 4) != 0)
            return -1;
    }
    return 0;
}

static int base64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int binary_decode_base64(const char *text, size_t length, StrBuf *out)
{
    size_t padding = 0;
    while (length > 0 && text[length - 1] == '=' && padding < 2) {
        length--;
        padding++;
    }
    if (length % 4 == 1 || (padding > 0 && (length + padding) % 4 != 0))
        return 1;
    uint32_t group = 0;
    int bits = 0;
    for (size_t i = 0; i < length; i++) {
        int value = base64_value(text[i]);
        if (value < 0)
            return 1;
        group = group << 6 | (uint32_t)value;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (strbuf_append_char(out, (char)(group >> bits & 0xff)) != 0)
                return -1;
        }
    }
    /* leftover bits must be zero for a canonical encoding; Java's decoder accepts either */
    return 0;
}

int binary_append_utf8(const uint8_t *bytes, size_t length, StrBuf *out)
{
    size_t i = 0;
    while (i < length) {
        size_t consumed;
        uint32_t code_point;
        size_t good = utf8_decode((const char *)bytes + i, length - i, &code_point, &consumed);
        int status = good ? strbuf_append(out, (const char *)bytes + i, good)
                          : strbuf_append(out, "\xEF\xBF\xBD", 3);
        if (status != 0)
            return -1;
        i += consumed;
    }
    return 0;
}

bool binary_is_utf8(const uint8_t *bytes, size_t length)
{
    return utf8_valid_prefix((const char *)bytes, length) == length;
}
